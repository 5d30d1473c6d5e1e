#!/usr/bin/env bash
# Install / consumer tests:  run.sh KIND BUILD_DIR SOURCE_DIR
#   cmake      cmake --install BUILD_DIR into a scratch prefix, then build
#              cmake_consumer/ with find_package(prof CONFIG REQUIRED)
#   pkgconfig  same install, then compile consumer.c with
#              `pkg-config --cflags --libs prof`
#   subdir     build subdir_consumer/, which add_subdirectory()s SOURCE_DIR
#   fetchcontent  build fetch_consumer/, which takes prof with FetchContent
#              from a tarball of SOURCE_DIR's files (a local URL)
#   c-only     configure SOURCE_DIR itself without a C++ compiler (tests
#              off), install it, then the find_package and pkg-config
#              consumers against that install
# Every consumer is a C-only project (LANGUAGES C) configured with
# CXX=/bin/false: prof must never ask for a C++ compiler there. pkg-config's
# output must be plain: no "/../" in paths, no flag twice.
# Environment: CMAKE_COMMAND, CC, PROF_VERSION (optional, checked).
set -euo pipefail

kind=$1 build=$2 src=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cmake=${CMAKE_COMMAND:-cmake}
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/prof-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

step() { echo "+ $*"; "$@"; }
# C-only consumers: a C++ compiler that cannot work
export CXX=/bin/false
noxx=(-DCMAKE_CXX_COMPILER=/bin/false)

install_prefix() {
    step "$cmake" --install "$build" --prefix "$prefix"
    echo "installed files:"
    (cd "$prefix" && find . -type f | sort | sed 's/^/  /')
    test -f "$prefix/include/prof.h"
}

run_in_tmp() {
    mkdir -p "$tmp/run"
    (cd "$tmp/run" && step "$1")
}

cmake_consumer() {
    local vers=()
    [[ -n ${PROF_VERSION:-} ]] && vers=(-DPROF_EXPECT_VERSION="$PROF_VERSION")
    step "$cmake" -S "$here/cmake_consumer" -B "$tmp/consumer" "${noxx[@]}" \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" "${vers[@]}"
    step "$cmake" --build "$tmp/consumer"
    run_in_tmp "$tmp/consumer/x"
}

pkgconfig_consumer() {
    local flags w seen=" "
    command -v pkg-config >/dev/null || { echo "pkg-config not found: skipping"; exit 77; }
    export PKG_CONFIG_PATH=$prefix/share/pkgconfig:$prefix/lib/pkgconfig
    unset PKG_CONFIG_LIBDIR
    flags=$(pkg-config --cflags --libs prof)
    echo "pkg-config --cflags --libs prof: $flags"
    echo "pkg-config --modversion prof: $(pkg-config --modversion prof)"
    if [[ -n ${PROF_VERSION:-} && $(pkg-config --modversion prof) != "$PROF_VERSION" ]]; then
        echo "version mismatch: expected $PROF_VERSION"; exit 1
    fi
    if [[ $flags == *"/../"* || $flags == *"/./"* ]]; then
        echo "pkg-config output is not plain (a /../ or /./ in a path)"; exit 1
    fi
    [[ $flags == *"-I$prefix/include"* ]] || { echo "pkg-config output lacks -I$prefix/include"; exit 1; }
    for w in $flags; do
        [[ $seen == *" $w "* ]] && { echo "pkg-config output has $w twice"; exit 1; }
        seen+="$w "
    done
    # word splitting of $flags is intended
    # shellcheck disable=SC2086
    step "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror "$here/consumer.c" -o "$tmp/x" $flags
    run_in_tmp "$tmp/x"
}

case $kind in
cmake)
    install_prefix
    cmake_consumer
    ;;
pkgconfig)
    install_prefix
    pkgconfig_consumer
    ;;
c-only)
    step "$cmake" -S "$src" -B "$tmp/prof-build" "${noxx[@]}" -DCMAKE_C_COMPILER="$cc" \
        -DPROF_BUILD_TESTS=OFF -DPROF_BUILD_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX="$tmp/elsewhere"
    build=$tmp/prof-build
    install_prefix
    cmake_consumer
    pkgconfig_consumer
    ;;
subdir)
    step "$cmake" -S "$here/subdir_consumer" -B "$tmp/consumer" "${noxx[@]}" \
        -DPROF_SOURCE_DIR="$src" -DCMAKE_C_COMPILER="$cc"
    step "$cmake" --build "$tmp/consumer"
    run_in_tmp "$tmp/consumer/x"
    ;;
fetchcontent)
    # what a release tarball holds: the header and the build files
    mkdir -p "$tmp/prof-src"
    (cd "$src" && cp -R prof.h CMakeLists.txt prof.pc.in cmake LICENSE "$tmp/prof-src/")
    (cd "$tmp" && tar czf prof.tar.gz prof-src)
    step "$cmake" -S "$here/fetch_consumer" -B "$tmp/consumer" "${noxx[@]}" \
        -DPROF_URL="file://$tmp/prof.tar.gz" -DCMAKE_C_COMPILER="$cc" \
        -DFETCHCONTENT_BASE_DIR="$tmp/deps" -DFETCHCONTENT_FULLY_DISCONNECTED=OFF
    step "$cmake" --build "$tmp/consumer"
    run_in_tmp "$tmp/consumer/x"
    ;;
*)
    echo "usage: $0 cmake|pkgconfig|subdir|fetchcontent|c-only BUILD_DIR SOURCE_DIR" >&2; exit 2 ;;
esac
echo "OK ($kind)"
