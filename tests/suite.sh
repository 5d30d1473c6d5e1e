#!/usr/bin/env bash
# The whole test suite, as `make test` runs it:
#   1. the tools the suite needs: when one is missing, installs the Debian
#      packages (as root, with apt-get), or stops at once naming the command
#      to run (ALLOW_MISSING=1 runs anyway: the parts that need the missing
#      tools are then skipped, and named in the summary);
#   2. configures and builds into $BUILD (the build's output goes to
#      $BUILD/build.log, shown when it fails);
#   3. runs CTest, then a summary: counts, every skipped part with its
#      reason, every failure with the command that reruns it.
# tests/js installs its pinned npm packages itself (npm ci) when needed.
#
#   tests/suite.sh            all of it
#   tests/suite.sh --deps     only step 1
# Environment: BUILD (build), JOBS (2), CC, CXX (first configure only),
# CTEST_ARGS (e.g. '-L unit' or '-LE valgrind'), ALLOW_MISSING (0).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
BUILD=${BUILD:-build}
JOBS=${JOBS:-2}
ALLOW_MISSING=${ALLOW_MISSING:-0}
bold='' red='' reset=''
if [[ -t 1 ]]; then bold=$'\e[1m' red=$'\e[1;31m' reset=$'\e[0m'; fi
say() { echo "${bold}== $*${reset}"; }

# --- 1. tools ----------------------------------------------------------------
# tool:Debian package (what needs it)
tools=(
    "cc:build-essential" "c++:build-essential" "make:make" "cmake:cmake"
    "clang:clang" "clang++:clang"            # compile matrix
    "valgrind:valgrind"                      # *_valgrind tests
    "pkg-config:pkg-config"                  # install_pkgconfig_consumer
    "python3:python3"                        # the exports' checkers (tests/export), tables' cases, make_demo
    "objdump:binutils"                       # compile_shared_* cases
    "tcc:tcc" "pcc:pcc"                      # compile matrix: refused-* (prof.h's #error first)
    "clang-19:clang-19"                      # compile matrix: clang19-* (a newer clang's warnings)
    "node:nodejs" "npm:npm"                  # tests/js (real consumers of the exports)
    "protoc:protobuf-compiler"               # test_export_io: Perfetto and pprof files decoded
    "go:golang-go"                           # test_export_io: go tool pprof reads the pprof file
)
# cc -m32 links a program (the compile matrix's m32-* cases, i386)
m32_links() {
    local d rc
    d=$(mktemp -d "${TMPDIR:-/tmp}/prof-m32.XXXXXX") || return 1
    printf 'int main(void) { return 0; }\n' >"$d/a.c"
    cc -m32 "$d/a.c" -o "$d/a" >/dev/null 2>&1
    rc=$?
    rm -rf "$d"
    return $rc
}
missing_tools() {
    local t
    missing=() pkgs=()
    for t in "${tools[@]}"; do
        if ! command -v "${t%%:*}" >/dev/null 2>&1; then
            missing+=("${t%%:*}")
            [[ " ${pkgs[*]} " == *" ${t#*:} "* ]] || pkgs+=("${t#*:}")
        fi
    done
}
missing_tools
if ((${#missing[@]})); then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        mkdir -p "$BUILD"
        say "installing ${pkgs[*]} (for ${missing[*]}; log: $BUILD/apt.log)"
        apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"; }
        if ! { DEBIAN_FRONTEND=noninteractive apt-get update -q && apt_install "${pkgs[@]}" ca-certificates; } \
               >"$BUILD/apt.log" 2>&1; then
            # one package this release lacks (clang-19 before Debian 12,
            # say) must not cost the others: each on its own, and what is
            # still missing is named below (ALLOW_MISSING=1 runs without it)
            echo "  apt-get could not install them all at once (see $BUILD/apt.log): one at a time"
            for p in "${pkgs[@]}" ca-certificates; do
                apt_install "$p" >>"$BUILD/apt.log" 2>&1 || echo "  could not install $p"
            done
        fi
        missing_tools
    fi
fi
# gcc-multilib for the compile matrix's m32-* cases (i386): optional, those
# cases skip without it; installed where we may, a failure only named
if [[ $(uname -m) == x86_64 && $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1 && command -v cc >/dev/null 2>&1 && ! m32_links; then
    mkdir -p "$BUILD"
    say "installing gcc-multilib g++-multilib (the m32-* compile cases; log: $BUILD/apt-m32.log)"
    m32_pkgs() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gcc-multilib g++-multilib; }
    { m32_pkgs || { DEBIAN_FRONTEND=noninteractive apt-get update -q && m32_pkgs; }; } >"$BUILD/apt-m32.log" 2>&1 ||
        echo "  could not install them (see $BUILD/apt-m32.log): the m32-* cases will be skipped"
fi
# musl-tools for the compile matrix's musl-gcc case (Alpine's libc):
# optional likewise
if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1 && ! command -v musl-gcc >/dev/null 2>&1; then
    mkdir -p "$BUILD"
    say "installing musl-tools (the musl-gcc compile case; log: $BUILD/apt-musl.log)"
    musl_pkgs() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends musl-tools; }
    { musl_pkgs || { DEBIAN_FRONTEND=noninteractive apt-get update -q && musl_pkgs; }; } >"$BUILD/apt-musl.log" 2>&1 ||
        echo "  could not install it (see $BUILD/apt-musl.log): the musl-gcc case will be skipped"
fi
if ((${#missing[@]})); then
    if [[ $ALLOW_MISSING != 1 ]]; then
        echo "${red}make test needs: ${missing[*]} (not found).${reset} Install them with:"
        echo "    sudo apt-get install -y --no-install-recommends ${pkgs[*]}"
        echo "or run without them (the parts that need them are skipped, and named): make test ALLOW_MISSING=1"
        exit 1
    fi
    say "running without ${missing[*]}: the parts that need them are skipped"
fi
[[ ${1:-} == --deps ]] && exit 0

# --- 2. configure and build --------------------------------------------------
mkdir -p "$BUILD"
say "configure and build into $BUILD/ (log: $BUILD/build.log)"
if ! { cmake -S . -B "$BUILD" && cmake --build "$BUILD" -j"$JOBS" -- --no-print-directory; } >"$BUILD/build.log" 2>&1; then
    grep -E -m 30 -B2 -A6 'error|Error' "$BUILD/build.log" || tail -n 30 "$BUILD/build.log"
    echo "${red}the build failed${reset} (whole log: $BUILD/build.log)"
    exit 1
fi

# --- 3. tests ------------------------------------------------------------------
say "ctest -j$JOBS ${CTEST_ARGS:-}"
# CTEST_ARGS as the shell would split it (quotes included)
if ! eval "ctest_args=(${CTEST_ARGS:-})" 2>/dev/null; then
    echo "${red}CTEST_ARGS does not parse as shell words:${reset} ${CTEST_ARGS}"
    exit 2
fi
ctest --test-dir "$BUILD" --output-on-failure -j"$JOBS" "${ctest_args[@]}" 2>&1 | tee "$BUILD/ctest.log" |
    grep -v -E '^( +Start +[0-9]+: |Internal ctest changing into directory|Test project |Label Time Summary:|Total Test time|Errors while running CTest|Output from these tests are in|Use "--rerun-failed)'
rc=${PIPESTATUS[0]}

# Each test's result line, and for the skipped ones the last line of their
# output (their reason) from CTest's log.
awk -v logf="$BUILD/Testing/Temporary/LastTest.log" '
    BEGIN {
        while ((getline l < logf) > 0) {
            if (l ~ /^[0-9]+\/[0-9]+ Test: /) { name = l; sub(/^[0-9]+\/[0-9]+ Test: /, "", name); last = "" }
            else if (l == "<end of output>") reason[name] = last
            else if (l != "" && l !~ /^-+$/ && l != "Output:") last = l
        }
    }
    / Test +#[0-9]+: / {
        name = $0; sub(/.* Test +#[0-9]+: /, "", name); sub(/ .*/, "", name)
        if ($0 ~ /\*\*\*Skipped|Not Run/) skipped[++ns] = name
        else if ($0 ~ / Passed /) np++
        else failed[++nf] = name
        total++
    }
    END {
        printf "\n== prof.h test suite, %d tests\n", total
        for (i = 1; i <= ns; i++) printf "   skipped %s: %s\n", skipped[i], reason[skipped[i]]
        for (i = 1; i <= nf; i++) printf "   FAILED  %s   (rerun: ctest --test-dir '"$BUILD"' -R \"^%s$\" --output-on-failure)\n", failed[i], failed[i]
        # last, alone on its line: the plain closing line CI readers look for
        printf "suite: %d passed, %d failed, %d skipped\n", np, nf, ns
    }' "$BUILD/ctest.log" | sed "s/^   FAILED/   ${red}FAILED${reset}/"
exit "$rc"
