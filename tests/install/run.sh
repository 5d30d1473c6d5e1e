#!/usr/bin/env bash
# Install / consumer tests:  run.sh KIND BUILD_DIR SOURCE_DIR
#   cmake      cmake --install BUILD_DIR into a scratch prefix, then build
#              cmake_consumer/ with find_package(prof CONFIG REQUIRED)
#   pkgconfig  same install, then compile consumer.c with
#              `pkg-config --cflags --libs prof`
#   subdir     build subdir_consumer/, which add_subdirectory()s SOURCE_DIR
# Environment: CMAKE_COMMAND, CC, CXX, PROF_VERSION (optional, checked).
set -euo pipefail

kind=$1 build=$2 src=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cmake=${CMAKE_COMMAND:-cmake}
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/prof-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

step() { echo "+ $*"; "$@"; }

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

case $kind in
cmake)
    install_prefix
    vers=()
    [[ -n ${PROF_VERSION:-} ]] && vers=(-DPROF_EXPECT_VERSION="$PROF_VERSION")
    step "$cmake" -S "$here/cmake_consumer" -B "$tmp/consumer" \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" "${vers[@]}"
    step "$cmake" --build "$tmp/consumer"
    run_in_tmp "$tmp/consumer/x"
    ;;
pkgconfig)
    command -v pkg-config >/dev/null || { echo "pkg-config not found: skipping"; exit 77; }
    install_prefix
    export PKG_CONFIG_PATH=$prefix/share/pkgconfig:$prefix/lib/pkgconfig
    unset PKG_CONFIG_LIBDIR
    flags=$(pkg-config --cflags --libs prof)
    echo "pkg-config --cflags --libs prof: $flags"
    echo "pkg-config --modversion prof: $(pkg-config --modversion prof)"
    if [[ -n ${PROF_VERSION:-} && $(pkg-config --modversion prof) != "$PROF_VERSION" ]]; then
        echo "version mismatch: expected $PROF_VERSION"; exit 1
    fi
    # word splitting of $flags is intended
    # shellcheck disable=SC2086
    step "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror "$here/consumer.c" -o "$tmp/x" $flags
    run_in_tmp "$tmp/x"
    ;;
subdir)
    step "$cmake" -S "$here/subdir_consumer" -B "$tmp/consumer" \
        -DPROF_SOURCE_DIR="$src" -DCMAKE_C_COMPILER="$cc"
    step "$cmake" --build "$tmp/consumer"
    run_in_tmp "$tmp/consumer/x"
    ;;
*)
    echo "usage: $0 cmake|pkgconfig|subdir BUILD_DIR SOURCE_DIR" >&2; exit 2 ;;
esac
echo "OK ($kind)"
