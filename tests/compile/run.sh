#!/usr/bin/env bash
# Compile matrix for prof.h.
#
#   tests/compile/run.sh            run every case
#   tests/compile/run.sh CASE...    run the named cases (or patterns: 'm32-*')
#   tests/compile/run.sh --list     print the case names
#
# Every case builds with -Wall -Wextra -Wpedantic -Werror. gcc's flow-based
# warnings (-Wmaybe-uninitialized, -Wuse-after-free, ...) need the optimiser,
# so gcc-c11, gxx-cxx17 and cupti-gcc-c11 build at -O2; every other case at
# -O0 to keep the matrix fast (clang's warnings do not depend on -O; the
# other cases add language-mode, macro-expansion and linkage coverage).
# Cases that produce a program also link it and run it (in a scratch
# directory).
#
# probe17-static-fn-{gcc,clang,gxx,clangxx}: a static function called only
# inside a macro argument (PROF_COUNTER("q", queue_depth()), a FLOP count,
# an async id, a dynamic name) under -DPROF_DISABLED and PROF_NO_FLOPS /
# PROF_NO_SHAPES: clang's -Wunneeded-internal-declaration (in -Wall) must
# stay quiet (sizeof alone does not count as a use there); under
# -DPROF_DISABLED the program runs and none of the functions is called.
#
# gnu-source-after-{gcc,clang}: the implementation on the file's first
# line, then the file's own bare `#define _GNU_SOURCE`: no redefinition.
#
# disabled-args-{gcc,gxx}: under -DPROF_DISABLED, a variable used only as a
# macro argument (a PROF_COUNTER value, a PROF_*_DYN name) must not trigger
# -Wunused-variable / -Wunused-but-set-variable.
#
# nvcc-cuda-demo[-nocupti|-disabled]: examples/cuda_demo.cu through nvcc
# (with -DPROF_CUPTI, without it, and with -DPROF_DISABLED), compiled only:
# no warning from nvcc's front end or the host compiler.
#
# include-after-{gcc,clang,default-source}: the implementation included after
# other system headers (gnu11, and c11 with -D_DEFAULT_SOURCE): builds, runs,
# and names native stacks. include-after-strict: in plain -std=c11 the build
# stops with prof.h's own message. include-after-posix2008-{gcc,clang},
# -xopen700, -gnu-posix2008: the file sets _POSIX_C_SOURCE=200809L or
# _XOPEN_SOURCE=700 before its first header: builds and runs.
# include-after-posix2001-{gcc,clang}, -xopen600: POSIX.1-2001
# (_POSIX_C_SOURCE=200112L; _XOPEN_SOURCE=600 with _FILE_OFFSET_BITS=64, as
# Lua's lprefix.h sets them) builds and runs too, with -Wredundant-decls
# (prof.h declares only what the mode hides). include-after-posix1995:
# _POSIX_C_SOURCE=199506L stops with prof.h's message naming it.
#
# shared-linked-{gcc,clang}: the implementation in a -fPIC shared library,
# an executable linked against it records in both, on two threads.
# shared-dlclose-after: the implementation in the executable (-rdynamic), the
# macros in a dlopen'ed plugin that is dlclose'd after prof_stop: the list
# and every export keep the plugin's names. shared-dlclose-before (run by
# name only): dlclose before prof_stop, a known defect that crashes.
# visibility-hidden-{gcc,clang}: the implementation in a library built with
# -fvisibility=hidden and PROF_API of default visibility, the macros in the
# executable: it links (prof__tls exported too) and counts every kind.
# cxx20-coroutine-migrate: a PROF_SCOPE held across a co_await that resumes
# on another thread (a crash until the end on a foreign thread was refused
# and counted): every scope recorded, dropped or counted open.
# shared-dlopen-{gcc,clang}: the library loaded with dlopen(RTLD_LOCAL),
# three threads, two sessions. shared-dlopen-ie: the same with
# PROF_TLS_MODEL="initial-exec", and objdump finds no __tls_get_addr call
# in the library's scopes.
#
# strict-{gcc,clang,gxx,clangxx}[-disabled]: user code calling every
# recording macro with assorted argument types, built with -Wshadow,
# -Wconversion, -Wsign-conversion, -Wcast-qual, -Wdouble-promotion, -Wundef,
# -Wvla, in C -Wdeclaration-after-statement (gcc: -Wstrict-aliasing=1,
# -Wjump-misses-init, -Waggregate-return, the user's file at -O0 too; the
# implementation at -O2 so that they apply), ... and
# in C++ -Wold-style-cast, -Wzero-as-null-pointer-constant, -Wuseless-cast:
# the macros expand in the user's code and must add none of them. The
# implementation file gets the same warnings (in C++ all but the C++-style
# ones, which probe20b-cxx-impl-* adds), since it too is a user's file
# built with the user's flags. m32-strict-{gcc,clang}: the C cases on i386
# (32-bit size_t: the hash tables' 64-bit hashes taken to a slot index
# failed -Wconversion there), linked, run where the kernel runs i386.
#
# clang19-CASE: the case with clang-19 and clang++-19 (the strict and
# -Weverything cases, a plain C and C++ build).
#
# refused-{tcc,pcc,cxx98-gxx,cxx98-clangxx}: a compiler prof.h cannot be
# built with (tcc, pcc; C++98) gets prof.h's #error, in a user file and in
# the implementation: from tcc and pcc no other diagnostic in prof.h, in
# C++98 as the first error.
#
# runtime-name-{gxx,clangxx}: PROF_SCOPE(s.c_str()) must not compile in C++
# (as it does not in C); PROF_SCOPE_DYN with the same name must.
#
# shapes-limit-{gcc,gcc-c99,gxx}: PROF_SCOPE_SHAPES with 65 values must not
# compile; with 64 it must; recording, with PROF_DISABLED and with PROF_NO_SHAPES.
#
# no-libm-{gcc,clang}: the implementation links without -lm.
#
# no-features-{gcc,clang,gxx}: PROF_NO_SHAPES PROF_NO_FLOPS PROF_NO_MEMORY
# PROF_NO_STACK all defined (features compiled out), built, linked and run.
# no-features-args-gcc: the same, with the disabled-args check.
# pragma-pack-{gcc,clang}: prof.h included inside #pragma pack(4) is refused
# (its call sites must be 8-byte aligned); a pack after it is fine.
# preprocessed-{gcc,clang}: the macros compiled from a .i file (-save-temps,
# as distcc and ccache do), recording and compiled out (preprocessed.c).
# config-features-{all,no-shapes,no-flops,no-memory,no-stack}: what the
# config's feature flags give (with_flops records shapes, as torch's; a
# feature compiled out ignores its flag: no memory columns of zeros, no
# "[]" shapes), recording and with each PROF_NO_* (config_features.c).
# jump-{gcc,clang,gxx,clangxx}: a goto over a scope macro to a label after
# it, or a case label after it, must not compile (it would run the scope's
# cleanup on an uninitialised scope), for every scope macro; the legitimate
# jumps of jump_into_scope.c compile and run. Also with the user's -Wvla.
#
# c89-{gcc,clang}: c90_decls.c and its main built as -std=c89 (no
# -Wpedantic: the manual's C90 promise) record the same 9 events.
# c90-decls-{gcc,clang}[-disabled|-nofeatures]: every scope macro is a
# declaration, recording, under -DPROF_DISABLED and with PROF_NO_SHAPES /
# PROF_NO_FLOPS: C90-style code under -Wdeclaration-after-statement -Werror.
#
# disabled-define-{empty,one,zero}: "#define PROF_DISABLED" (empty) and
# -DPROF_DISABLED=1 compile every macro out (no event recorded); =0 stops
# the build with prof.h's message.
#
# probe19c-lua-flags-{gcc,clang}: the implementation and Lua-style scopes
# in one file built with Lua's makefile warnings (gcc: -Wlogical-op too)
# and -Werror: builds, runs, counts its events.
# probe19c-bad-function-cast-{gcc,clang}: PROF_COUNTER, PROF_SCOPE_FLOPS
# and PROF_ASYNC_BEGIN/END given a function call, under -Wbad-function-cast.
# probe19c-computed-goto-{gcc,gxx}: a scope in a case of a computed-goto
# interpreter loop (Lua's luaV_execute with gcc) left by goto *p: gcc
# runs no cleanup/destructor there (clang refuses the build), so the scope
# stays open; the manual says so (SCOPES AND JUMPS). Fails: by name only.
# probe19c-c99-inline-{gcc,clang}[-disabled]: every macro inside C99
# `inline` functions with external linkage (a header's inline helpers):
# recording, the macros name prof.h's static inline helpers, which C99
# 6.7.4p3 forbids there (both compilers warn; the manual says to use
# static inline): fails, by name only; compiled out (-disabled) they name
# none, and those run with the rest.
# probe19c-double-include-{gcc,clang}: prof.h included first, then again
# after #define PROF_IMPLEMENTATION, in strict -std=c11: builds and runs,
# or stops with a first error that names the earlier inclusion (the
# strict-mode message tells to include prof.h first, which this file did).
# probe19c-shapes-size-t-{gcc,clang}: PROF_SCOPE_SHAPES with size_t and
# unsigned long dims in C under -Wconversion -Wsign-conversion (C++
# converts them; the other macros convert theirs).
# probe19c-hidden-exe-{gcc,clang}: every file built with -fvisibility=hidden
# (cJSON's CMake), the implementation in the executable (-rdynamic), the
# macros in a linked shared library: with the manual's PROF_API of default
# visibility, links and records the library's scopes.
#
# probe20b-cxx-impl-{gxx,clangxx}: the implementation in a C++ file built
# with fmt's gcc source flags (-Wuseless-cast, -Wzero-as-null-pointer-
# constant, -Wold-style-cast and the rest of its PEDANTIC_COMPILE_FLAGS)
# and -Werror: builds, runs, counts its scopes.
# probe20b-c89-pedantic-{gcc,clang}: zstd's c89build flags (-std=c89
# -Wpedantic -Wno-long-long -Wno-variadic-macros ...) on a user's file (the
# implementation in C11): gcc refused __func__ in every scope macro's call
# site until prof.h wrote it `__extension__ __func__` (see the file).
#
# probe21a-weverything-user-{clang,clangxx}: user code with every recording
# macro (strict_user.c / .cpp) under clang's -Weverything less only what no
# project keeps on (-Wpadded, -Wreserved-identifier; in C
# -Wdeclaration-after-statement, in C++ -Wc++98-compat*), recording,
# -DPROF_DISABLED and with the features compiled out; linked and run.
# probe21a-weverything-impl-{clang,clangxx}: the implementation and every
# macro in one file (probe21a_hardening.c) under the same: builds, runs
# (clang 14 said -Wdisabled-macro-expansion: prof_report passed stdout,
# glibc's `#define stdout stdout`, inside PROF__REPORT_PART's argument).
# probe21a-short-enums-{gcc,gxx}: that file with -fshort-enums (enums as
# small as their values): builds, runs (gcc 12 said -Wtype-limits, in
# -Wextra, at `(int)r < 0` checks of an enum that is now unsigned char).
# probe21a-winline-{gcc,gxx}: -Winline -Werror (netray's and other
# makefiles): user code in C at -O2 and -O3, the implementation at -O3, -Os,
# -Og and -O2; linked and run (the implementation turns -Winline off for
# itself). User code at -Os and -Og is not built: gcc keeps the recording
# helpers out of line there and says so (in C++ also at -O2, on the
# unwinding path of a scope's end), and prof.h does not make them
# always_inline, which would inline them into functions that call setjmp
# where -Wclobbered then flags their locals (test_recorder's lj_session);
# a pragma does not reach the calls in the user's functions (manual).
# native-catch-{gxx,clangxx}: native_catch.cpp at -O2 with -rdynamic: a
# scope in a C++ catch handler (helpers kept out of line there) has a
# native stack that starts in its own function, not in prof.h's helper.
#
# native-leaf-{gcc,clang,gxx}: tests/test_probe27B_native_leaf.c built and run
# at -O0 and -Os, where the recording helpers stay out of line: a native
# stack must still start in the scope's own function.
#
# probe26B-alloc-after-malloc-{gcc,gxx}: a user's malloc wrapper that reports
# the fresh block with prof_alloc, as the manual says, under -Werror: gcc 11+
# warns -Wmaybe-uninitialized at prof_alloc(p, n) (a const void * parameter).
#
# probe24B-xz-flags-gcc: xz's gcc warning set with -Werror (as its developer
# builds use it: -Wstrict-overflow=3, -Waggregate-return, -Wsign-conversion,
# ...) at -O2 and -O1: probe21a_hardening.c (the implementation and every
# macro) and strict_user.c compile clean.
# probe21a-unsuffixed-float-gcc: user code under -Wunsuffixed-float-constants
# (Intel SGX SDK's C flags): the macros bring no unsuffixed constant
# (PROF_MARK passed 0.0).
# probe21a-hardening-{gcc,clang}: probe21a_hardening.c built as distros
# harden (-D_FORTIFY_SOURCE=3 -fstack-protector-all -fstack-clash-protection
# -ftrivial-auto-var-init=pattern) and run: fortify's checks of memcpy,
# snprintf and the like happen at run time, over a session with every
# feature and prof_report writing every file. probe21a-ubsan-{gcc,clang}:
# the same program under -fsanitize=undefined,bounds
# -fno-sanitize-recover=all (-fsanitize=bounds-strict with gcc).
# probe22b-attr-macros-{gcc,clang,gxx,clangxx}: the implementation and
# the scope macros in a file that defines noinline, always_inline, unused
# and printf as object-like macros first (Linux tools, FD.io VPP, embedded
# printf libraries do): builds under -Werror in C11 and C++17, runs.
# cxx-calls-c-lto-gcc: c_impl.c (C) and cxx_lto_main.cpp (C++, through
# every struct holding a prof_device_type) with -flto, -Werror at link:
# gcc's LTO finds a type the two languages see differently.
# user-macros-{gcc,clang,gxx,clangxx}: the same for macros named like
# prof.h's identifiers once were (zstd's KB/MB/GB, aligned(n), T and N,
# Qt's slots, Windows' small and far; user_macros.c names its sources).
# probe21a-lto-{gcc,clang}: two_tu_impl.c and two_tu_main.c built and linked
# with -flto -O2 and -Werror at link time too (where cross-unit type
# mismatches, -Wlto-type-mismatch and -Wodr, are found); runs.
#
# Exit status: 0 all passed, 1 something failed, 77 everything selected
# was skipped (compiler / CUDA missing).
#
# Environment: PROF_ROOT (repo root, default ../..), GCC, CLANG, GXX,
# CLANGXX (compilers), CUDA_HOME (default /usr/local/cuda), PROF_KEEP=1
# keeps the scratch directory.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=${PROF_ROOT:-$(cd "$here/../.." && pwd)}
GCC=${GCC:-gcc}
CLANG=${CLANG:-clang}
GXX=${GXX:-g++}
CLANGXX=${CLANGXX:-clang++}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

WARN=(-Wall -Wextra -Wpedantic -Werror)
LIBS=(-pthread -lm -ldl)
INC=(-I"$root" -I"$here")

all_cases() {
    local d
    for d in "" -disabled; do
        echo "gcc-c99$d" "gcc-c11$d" "clang-c99$d" "clang-c11$d"
        echo "gxx-cxx11$d" "gxx-cxx17$d" "clangxx-cxx11$d" "clangxx-cxx17$d"
        echo "two-tu-gcc$d" "two-tu-clang$d" "cxx-calls-c-gcc$d" "cxx-calls-c-clang$d"
    done
    echo disabled-args-gcc disabled-args-gxx
    echo no-features-gcc no-features-clang no-features-gxx no-features-args-gcc
    echo cupti-gcc-c11 cupti-clang-c11 cupti-gxx-cxx17 cupti-link cupti-run
    echo nvcc-cuda-demo nvcc-cuda-demo-nocupti nvcc-cuda-demo-disabled nvcc-host-device
    echo include-after-gcc include-after-clang include-after-default-source include-after-strict
    echo include-after-posix2008-gcc include-after-posix2008-clang include-after-xopen700 include-after-gnu-posix2008
    echo include-after-posix2001-gcc include-after-posix2001-clang include-after-xopen600 include-after-posix1995
    echo shared-linked-gcc shared-linked-clang shared-dlopen-gcc shared-dlopen-clang shared-dlopen-ie
    echo shared-dlclose-after visibility-hidden-gcc visibility-hidden-clang cxx20-coroutine-migrate
    # shared-dlclose-before: a known defect (see dlclose_host.c), run by name only
    echo strict-gcc strict-clang strict-gxx strict-clangxx strict-gcc-disabled strict-gxx-disabled
    echo runtime-name-gxx runtime-name-clangxx shapes-limit-gcc shapes-limit-gcc-c99 shapes-limit-gxx
    echo no-libm-gcc no-libm-clang
    echo jump-gcc jump-clang jump-gxx jump-clangxx
    echo c90-decls-gcc c90-decls-clang c90-decls-gcc-disabled c90-decls-clang-disabled c90-decls-gcc-nofeatures
    echo c89-gcc c89-clang
    echo disabled-define-empty disabled-define-one disabled-define-zero
    echo probe17-static-fn-gcc probe17-static-fn-clang probe17-static-fn-gxx probe17-static-fn-clangxx
    echo probe19c-lua-flags-gcc probe19c-lua-flags-clang
    echo gnu-source-after-gcc gnu-source-after-clang
    echo probe19c-bad-function-cast-gcc probe19c-bad-function-cast-clang
    # probe19c-computed-goto-{gcc,gxx}, probe19c-c99-inline-{gcc,clang}:
    # limits of the language the manual states (no cleanup runs on goto *p;
    # a C99 inline function with external linkage may not name prof.h's
    # static helpers), run by name only
    echo probe19c-c99-inline-gcc-disabled probe19c-c99-inline-clang-disabled
    echo probe19c-double-include-gcc probe19c-double-include-clang
    echo probe19c-shapes-size-t-gcc probe19c-shapes-size-t-clang
    echo probe19c-hidden-exe-gcc probe19c-hidden-exe-clang
    echo probe20b-cxx-impl-gxx probe20b-cxx-impl-clangxx
    echo probe20b-c89-pedantic-gcc probe20b-c89-pedantic-clang
    echo probe21a-weverything-user-clang probe21a-weverything-user-clangxx
    echo probe21a-weverything-impl-clang probe21a-weverything-impl-clangxx
    echo probe21a-short-enums-gcc probe21a-short-enums-gxx probe21a-winline-gcc probe21a-winline-gxx
    echo probe21a-unsuffixed-float-gcc probe21a-hardening-gcc probe21a-hardening-clang
    echo m32-gcc m32-clang m32-gxx m32-clangxx m32-posix2001-gcc m32-posix2001-clang m32-dyn-names-gcc m32-units-gcc m32-reserve-gcc m32-strict-gcc m32-strict-clang
    echo refused-tcc refused-pcc refused-cxx98-gxx refused-cxx98-clangxx
    echo clang19-strict-clang clang19-strict-clangxx clang19-clang-c99 clang19-clangxx-cxx17 clang19-preprocessed-clang
    echo clang19-probe21a-weverything-user-clang clang19-probe21a-weverything-user-clangxx
    echo clang19-probe21a-weverything-impl-clang clang19-probe21a-weverything-impl-clangxx
    echo deprecated-malloc-gcc deprecated-malloc-clang deprecated-malloc-gxx deprecated-malloc-clangxx
    echo preprocessed-gcc preprocessed-clang pragma-pack-gcc pragma-pack-clang
    echo config-features-all config-features-no-shapes config-features-no-flops config-features-no-memory config-features-no-stack
    echo probe21a-ubsan-gcc probe21a-ubsan-clang probe21a-lto-gcc probe21a-lto-clang
    echo probe22b-attr-macros-gcc probe22b-attr-macros-clang probe22b-attr-macros-gxx probe22b-attr-macros-clangxx
    echo user-macros-gcc user-macros-clang user-macros-gxx user-macros-clangxx
    echo cxx-calls-c-lto-gcc
    echo probe24B-xz-flags-gcc
    echo probe26B-alloc-after-malloc-gcc probe26B-alloc-after-malloc-gxx
    echo native-leaf-gcc native-leaf-clang native-leaf-gxx native-catch-gxx native-catch-clangxx
    echo musl-gcc
}

# directory holding libcupti.so, or nothing
cupti_libdir() {
    local d
    for d in "$CUDA_HOME/lib64" "$CUDA_HOME/extras/CUPTI/lib64" \
             "$CUDA_HOME/targets/$(uname -m)-linux/lib" "$CUDA_HOME/lib"; do
        if [[ -e $d/libcupti.so ]]; then echo "$d"; return 0; fi
    done
    return 1
}

if [[ ${1:-} == --list ]]; then
    all_cases | tr ' ' '\n'
    exit 0
fi

if [[ ! -f $root/prof.h ]]; then
    echo "run.sh: $root/prof.h not found" >&2
    exit 1
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/prof-compile.XXXXXX")
[[ ${PROF_KEEP:-0} == 1 ]] || trap 'rm -rf "$scratch"' EXIT

have() { command -v "$1" >/dev/null 2>&1; }

# run_cmd DESCRIPTION CMD... : echo the command, run it, show its output
run_cmd() {
    echo "  \$ ${*}"
    "$@" 2>&1 | sed 's/^/    /'
    return "${PIPESTATUS[0]}"
}

run_prog() {
    local exe=$1 dir
    shift
    dir=$(mktemp -d "$scratch/run.XXXXXX")
    echo "  \$ (cd scratch && $exe $*)"
    (cd "$dir" && timeout 300 "$exe" "$@") 2>&1 | tail -n 20 | sed 's/^/    /'
    return "${PIPESTATUS[0]}"
}

# knows_warning CC FLAG: whether CC takes the warning flag (clang warns of
# an unknown one, which -Werror makes an error).
knows_warning() {
    have "$1" && echo 'int x;' | "$1" -Werror "$2" -x c - -fsyntax-only >/dev/null 2>&1
}

# m32_runs OUT: whether $GCC -m32 links and this kernel runs what it
# makes (says why not)
m32_runs() {
    have "$GCC" || { echo "  $GCC not found"; return 1; }
    printf 'int main(void) { return 0; }\n' >"$1.probe.c"
    "$GCC" -m32 -x c "$1.probe.c" -o "$1.probe" >/dev/null 2>&1 ||
        { echo "  $GCC -m32 cannot link (gcc-multilib not installed)"; return 1; }
    "$1.probe" 2>/dev/null || { echo "  this kernel runs no 32-bit programs"; return 1; }
}

# unit_sources TEST: tests/TEST.c, and tests/prof_impl.c when TEST.c does
# not define PROF_IMPLEMENTATION itself (tests/CMakeLists.txt links the
# implementation to it), one to a line
unit_sources() {
    echo "$here/../$1.c"
    grep -q '^#[[:space:]]*define[[:space:]][[:space:]]*PROF_IMPLEMENTATION' "$here/../$1.c" || echo "$here/../prof_impl.c"
}
# run_units "TEST..." CC FLAG...: each tests/TEST.c built by CC with the
# flags (C11, the warnings, -O1 -g) and run in a scratch directory that
# has the build/ the unit tests write into.
run_units() {
    local tests=$1 t srcs
    shift
    for t in $tests; do
        mapfile -t srcs < <(unit_sources "$t")
        run_cmd "$@" -std=c11 "${WARN[@]}" -O1 -g "${INC[@]}" -I"$here/.." "${srcs[@]}" -o "$out.$t" "${LIBS[@]}" || return 1
        run_prog sh -c 'mkdir -p build && exec "$0"' "$out.$t" || return 1
    done
}

# compile_fails LOG WHY CMD...: CMD must fail to compile (its output goes
# to LOG); if it compiles, say WHY it must not and fail.
compile_fails() {
    local log=$1 why=$2
    shift 2
    if "$@" >"$log" 2>&1; then
        echo "  $why"
        return 1
    fi
}
# prof.h's #error is the only diagnostic: the implementation after it is
# skipped (it added some 30 errors and warnings that follow from it)
only_error() {
    local n
    n=$(grep -c 'error:\|warning:' "$1")
    if [[ $n -ne 1 ]]; then
        echo "  $n diagnostics where prof.h's #error should be the only one:"
        sed 's/^/    /' "$1" | head -8
        return 1
    fi
}

# For the cases named *-gcc / *-clang (one_case's $base): cc=$GCC, or
# $CLANG for *-clang; 77 (skip) when it is not installed.
pick_gcc_or_clang() {
    cc=$GCC
    [[ $base == *-clang ]] && cc=$CLANG
    have "$cc" || { echo "  $cc not found"; return 77; }
}

# c11_object FILE FLAGS...: $cc compiles tests/compile/FILE to $out.o in
# C11 under -Werror (WARN) and FLAGS.
c11_object() {
    local file=$1
    shift
    run_cmd "$cc" -std=c11 "${WARN[@]}" "$@" "${INC[@]}" -c "$here/$file" -o "$out.o"
}

# one_case NAME -> 0 pass, 1 fail, 77 skip
one_case() {
    local name=$1 base=$1 defs=() cc std src lang out opt=-O0 srcs
    # clang19-CASE: CASE with clang 19 (newer clangs warn more: clang 17
    # on brought -Wpre-c11-compat of _Static_assert into -Weverything)
    if [[ $name == clang19-* ]]; then
        have clang-19 && have clang++-19 || { echo "  clang-19 not found"; return 77; }
        CLANG=clang-19 CLANGXX=clang++-19 one_case "${name#clang19-}"
        return
    fi
    if [[ $name == *-disabled ]]; then
        base=${name%-disabled}
        defs=(-DPROF_DISABLED)
    fi
    case $name in gcc-c11|gxx-cxx17|cupti-gcc-c11) opt=-O2 ;; esac
    local WARN=("${WARN[@]}" "$opt")
    out="$scratch/$name"
    case $base in
    gcc-c99|gcc-c11|clang-c99|clang-c11)
        cc=${base%-*}; std=-std=${base#*-}
        [[ $cc == gcc ]] && cc=$GCC || cc=$CLANG
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" "$std" "${WARN[@]}" "${defs[@]}" "${INC[@]}" \
            "$here/matrix.c" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    gxx-cxx11|gxx-cxx17|clangxx-cxx11|clangxx-cxx17)
        cc=${base%-*}; std=${base#*-}; std=-std=c++${std#cxx}
        [[ $cc == gxx ]] && cc=$GXX || cc=$CLANGXX
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" "$std" "${WARN[@]}" "${defs[@]}" "${INC[@]}" \
            "$here/matrix.cpp" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    two-tu-gcc|two-tu-clang)
        [[ $base == two-tu-gcc ]] && cc=$GCC || cc=$CLANG
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" -std=c11 "${WARN[@]}" "${defs[@]}" "${INC[@]}" \
            -c "$here/two_tu_impl.c" -o "$out.impl.o" || return 1
        run_cmd "$cc" -std=c11 "${WARN[@]}" "${defs[@]}" "${INC[@]}" \
            -c "$here/two_tu_main.c" -o "$out.main.o" || return 1
        run_cmd "$cc" "$out.impl.o" "$out.main.o" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    cxx-calls-c-lto-gcc)
        # gcc's LTO compares the public types C and C++ see (cxx_lto_main.cpp)
        have "$GCC" && have "$GXX" || { echo "  $GCC or $GXX not found"; return 77; }
        run_cmd "$GCC" -std=c11 "${WARN[@]}" -O2 -flto "${INC[@]}" -c "$here/c_impl.c" -o "$out.impl.o" || return 1
        run_cmd "$GXX" -std=c++17 "${WARN[@]}" -O2 -flto "${INC[@]}" -c "$here/cxx_lto_main.cpp" -o "$out.main.o" || return 1
        run_cmd "$GXX" "${WARN[@]}" -O2 -flto -flto-partition=one "$out.impl.o" "$out.main.o" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    cxx-calls-c-gcc|cxx-calls-c-clang)
        if [[ $base == cxx-calls-c-gcc ]]; then cc=$GCC; lang=$GXX
        else cc=$CLANG; lang=$CLANGXX; fi
        have "$cc" && have "$lang" || { echo "  $cc or $lang not found"; return 77; }
        run_cmd "$cc" -std=c11 "${WARN[@]}" "${defs[@]}" "${INC[@]}" \
            -c "$here/c_impl.c" -o "$out.impl.o" || return 1
        run_cmd "$lang" -std=c++17 "${WARN[@]}" "${defs[@]}" "${INC[@]}" \
            -c "$here/cxx_main.cpp" -o "$out.main.o" || return 1
        run_cmd "$lang" "$out.impl.o" "$out.main.o" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    cupti-gcc-c11|cupti-clang-c11|cupti-gxx-cxx17)
        [[ -f $CUDA_HOME/include/cupti.h ]] || { echo "  $CUDA_HOME/include/cupti.h not found"; return 77; }
        local xlang=() extra=()
        src=$here/cupti.c
        case $base in
        # at -O2 with the strictest aliasing warning: CUPTI's records are
        # read by kind, never through a type-punned cast
        cupti-gcc-c11) cc=$GCC; std=-std=c11; extra=(-Wstrict-aliasing=1 -Wcast-qual) ;;
        cupti-clang-c11) cc=$CLANG; std=-std=c11 ;;
        *) cc=$GXX; std=-std=c++17; xlang=(-x c++) ;;
        esac
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" "${xlang[@]}" "$std" "${WARN[@]}" "${extra[@]}" -DPROF_CUPTI "${INC[@]}" \
            -I"$CUDA_HOME/include" -c "$src" -o "$out.o" || return 1 ;;
    disabled-args-gcc|disabled-args-gxx)
        local x=()
        if [[ $base == disabled-args-gcc ]]; then cc=$GCC; std=-std=c11
        else cc=$GXX; std=-std=c++17; x=(-x c++); fi
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" "${x[@]}" "$std" "${WARN[@]}" -DPROF_DISABLED -DUSAGE_MACRO_ONLY_ARGS \
            "${INC[@]}" -c "$here/matrix.c" -o "$out.o" || return 1 ;;
    no-features-gcc|no-features-clang|no-features-gxx|no-features-args-gcc)
        local nofeat=(-DPROF_NO_SHAPES -DPROF_NO_FLOPS -DPROF_NO_MEMORY -DPROF_NO_STACK)
        case $base in
        no-features-args-gcc)
            have "$GCC" || { echo "  $GCC not found"; return 77; }
            run_cmd "$GCC" -std=c11 "${WARN[@]}" "${nofeat[@]}" -DUSAGE_MACRO_ONLY_ARGS "${INC[@]}" \
                -c "$here/matrix.c" -o "$out.o" || return 1
            return 0 ;;
        no-features-gcc) cc=$GCC; std=-std=c11; src=$here/matrix.c ;;
        no-features-clang) cc=$CLANG; std=-std=c11; src=$here/matrix.c ;;
        *) cc=$GXX; std=-std=c++17; src=$here/matrix.cpp ;;
        esac
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" "$std" "${WARN[@]}" "${nofeat[@]}" "${INC[@]}" \
            "$src" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    musl-gcc)
        # musl (Alpine's libc), run: unit tests built with musl-gcc (no
        # backtrace(): PROF_STACK_NATIVE warns at prof_start and records no
        # stacks, test_features checks that), and a strict ISO C file that
        # includes <stdio.h> before prof.h (musl's stdio.h then keeps fileno
        # and renameat back: implicit declarations before)
        have musl-gcc || { echo "  musl-gcc not found (Debian: musl-tools)"; return 77; }
        run_units "test_features test_tree test_recorder test_dyn_names test_memory" musl-gcc || return 1
        printf '#include <stdio.h>\n#define PROF_IMPLEMENTATION\n#include "prof.h"\nint main(void) {\n    prof_events *ev;\n    if (prof_start(NULL) != PROF_OK) return 1;\n    { PROF_SCOPE("x"); }\n    ev = prof_stop();\n    if (!ev || prof_events_count(ev) != 1) return 1;\n    printf("%%zu event\\n", prof_events_count(ev));\n    prof_events_free(ev);\n    return 0;\n}\n' >"$out.c"
        run_cmd musl-gcc -std=c11 "${WARN[@]}" "${INC[@]}" "$out.c" -o "$out" || return 1
        run_prog "$out" || return 1 ;;
    pragma-pack-gcc|pragma-pack-clang)
        # prof.h inside #pragma pack(push, 4): call sites would be 4-byte
        # aligned (the pack wins over aligned(8)) and their records' tag
        # bits garbled; refused with a message that says so
        pick_gcc_or_clang || return $?
        printf '#pragma pack(push, 4)\n#include "prof.h"\n#pragma pack(pop)\nint packed_user(void);\nint packed_user(void) { PROF_SCOPE("s"); return 0; }\n' >"$out.c"
        compile_fails "$out.log" "prof.h inside #pragma pack(4) compiled; its call sites may be 4-byte aligned" \
            "$cc" -std=c11 "${WARN[@]}" "${INC[@]}" -c "$out.c" -o "$out.o" || return 1
        grep -q include_prof_h_outside_pragma_pack "$out.log" || { echo "  refused, but not by prof.h's check:"; cat "$out.log"; return 1; }
        printf '#include "prof.h"\n#pragma pack(push, 4)\nstruct packed_s { char c; int i; };\n#pragma pack(pop)\nint packed_user(void);\nint packed_user(void) { PROF_SCOPE("s"); return 0; }\n' >"$out.c"
        run_cmd "$cc" -std=c11 "${WARN[@]}" "${INC[@]}" -c "$out.c" -o "$out.o" || return 1
        # -fpack-struct (every struct packed; gcc keeps a member's own
        # aligned(8), so the site check alone passed: prof_config and
        # prof_event changed size, and a file built with it read the
        # implementation's structs as garbage)
        local p
        for p in -fpack-struct -fpack-struct=4; do
            compile_fails "$out.log" "prof.h compiled with $p; its structs change size" \
                "$cc" -std=c11 "${WARN[@]}" "$p" "${INC[@]}" -c "$out.c" -o "$out.o" || return 1
            grep -q do_not_build_with_fpack_struct "$out.log" || { echo "  $p refused, but not by prof.h's check:"; cat "$out.log"; return 1; }
        done ;;
    preprocessed-gcc|preprocessed-clang)
        # the user's file compiled from its preprocessed form (-save-temps)
        local m x=()
        pick_gcc_or_clang || return $?
        # (clang 16 and later flag the line markers of any preprocessed
        # file under -Wpedantic: not prof.h's)
        knows_warning "$cc" -Wgnu-line-marker && x=(-Wno-gnu-line-marker)
        for m in -DPROF_RECORDING_BUILD -DPROF_DISABLED -DPROF_NO_SHAPES; do
            run_cmd "$cc" -std=c11 "${WARN[@]}" "${x[@]}" "$m" "${INC[@]}" -save-temps=obj -c "$here/preprocessed.c" -o "$out.o" || return 1
        done ;;
    config-features-all|config-features-no-shapes|config-features-no-flops|config-features-no-memory|config-features-no-stack)
        local d=()
        case $base in
        *-no-shapes) d=(-DPROF_NO_SHAPES) ;; *-no-flops) d=(-DPROF_NO_FLOPS) ;;
        *-no-memory) d=(-DPROF_NO_MEMORY) ;; *-no-stack) d=(-DPROF_NO_STACK) ;;
        esac
        have "$GCC" || { echo "  $GCC not found"; return 77; }
        run_cmd "$GCC" -std=c11 "${WARN[@]}" "${d[@]}" "${INC[@]}" "$here/config_features.c" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1
        run_prog "$out" flops || return 1 ;;
    cupti-link|cupti-run)
        # -DPROF_CUPTI program linked against libcupti. cupti-run also runs
        # it: without a GPU/driver it must degrade gracefully (exit 0).
        local libdir
        [[ -f $CUDA_HOME/include/cupti.h ]] || { echo "  $CUDA_HOME/include/cupti.h not found"; return 77; }
        libdir=$(cupti_libdir) || { echo "  libcupti.so not found under $CUDA_HOME"; return 77; }
        have "$GCC" || { echo "  $GCC not found"; return 77; }
        run_cmd "$GCC" -std=c11 "${WARN[@]}" -DPROF_CUPTI "${INC[@]}" -I"$CUDA_HOME/include" \
            "$here/cupti.c" -o "$out" -L"$libdir" -Wl,-rpath,"$libdir" -lcupti "${LIBS[@]}" || return 1
        if [[ $base == cupti-run ]]; then
            if ldd "$out" 2>/dev/null | grep -q 'not found'; then
                echo "  unresolved shared libraries (no driver on this machine?):"
                ldd "$out" | grep 'not found' | sed 's/^/    /'
                return 77
            fi
            run_prog "$out" || return 1
        fi ;;
    include-after-gcc|include-after-clang|include-after-default-source|include-after-posix2008-*|include-after-xopen700|include-after-gnu-posix2008|include-after-posix2001-*|include-after-xopen600)
        local mode=(-std=gnu11)
        cc=$GCC
        [[ $base == *-clang ]] && cc=$CLANG
        case $base in
        include-after-default-source) mode=(-std=c11 -D_DEFAULT_SOURCE) ;;
        include-after-posix2008-*) mode=(-std=c99 -D_POSIX_C_SOURCE=200809L) ;;
        include-after-xopen700) mode=(-std=c11 -D_XOPEN_SOURCE=700) ;;
        include-after-gnu-posix2008) mode=(-std=gnu11 -D_POSIX_C_SOURCE=200809L) ;;
        include-after-posix2001-*) mode=(-std=c99 -D_POSIX_C_SOURCE=200112L -Wredundant-decls) ;;
        include-after-xopen600) mode=(-std=c99 -D_XOPEN_SOURCE=600 -D_FILE_OFFSET_BITS=64 -Wredundant-decls) ;;
        esac
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" "${mode[@]}" "${WARN[@]}" "${INC[@]}" -rdynamic \
            "$here/include_after.c" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    include-after-strict)
        # must fail, and with prof.h's message first
        have "$GCC" || { echo "  $GCC not found"; return 77; }
        compile_fails "$out.log" "a strict -std=c11 build with a system header first compiled; expected prof.h's #error" \
            "$GCC" -std=c11 "${WARN[@]}" "${INC[@]}" -c "$here/include_after.c" -o "$out.o" || return 1
        if ! grep -m1 'error' "$out.log" | grep -q 'includes a system header before prof.h'; then
            echo "  the first error is not prof.h's message:"
            sed 's/^/    /' "$out.log" | head -5
            return 1
        fi
        only_error "$out.log" || return 1 ;;
    include-after-posix1995)
        # below POSIX.1-2001: prof.h's message names _POSIX_C_SOURCE
        have "$GCC" || { echo "  $GCC not found"; return 77; }
        compile_fails "$out.log" "-D_POSIX_C_SOURCE=199506L with a system header first compiled; expected prof.h's #error" \
            "$GCC" -std=c11 -D_POSIX_C_SOURCE=199506L "${WARN[@]}" "${INC[@]}" -c "$here/include_after.c" -o "$out.o" || return 1
        if ! grep -m1 'error' "$out.log" | grep -q 'sets _POSIX_C_SOURCE below 200112L'; then
            echo "  the first error is not prof.h's message:"
            sed 's/^/    /' "$out.log" | head -5
            return 1
        fi
        only_error "$out.log" || return 1 ;;
    no-libm-gcc|no-libm-clang)
        # prof.h links with -pthread -ldl alone: no -lm
        pick_gcc_or_clang || return $?
        run_cmd "$cc" -std=c11 "${WARN[@]}" -O2 "${INC[@]}" "$here/matrix.c" -o "$out" -pthread -ldl || return 1
        run_prog "$out" || return 1 ;;
    shapes-limit-gcc|shapes-limit-gcc-c99|shapes-limit-gxx)
        local x=()
        case $base in
        shapes-limit-gcc) cc=$GCC; std=-std=c11 ;;
        shapes-limit-gcc-c99) cc=$GCC; std=-std=c99 ;;
        *) cc=$GXX; std=-std=c++11; x=(-x c++) ;;
        esac
        have "$cc" || { echo "  $cc not found"; return 77; }
        # recording, and compiled out: a program that builds one way builds the other
        local m
        for m in -DPROF_RECORDING_BUILD -DPROF_DISABLED -DPROF_NO_SHAPES; do
            run_cmd "$cc" "${x[@]}" "$std" "${WARN[@]}" "$m" "${INC[@]}" -c "$here/shapes_limit.c" -o "$out.o" || return 1
            compile_fails "$out.log" "PROF_SCOPE_SHAPES with 65 values compiled ($m); the values past 64 would be dropped at run time" \
                "$cc" "${x[@]}" "$std" "${WARN[@]}" "$m" "${INC[@]}" -DSHAPES_OVER_THE_LIMIT -c "$here/shapes_limit.c" -o "$out.bad.o" || return 1
        done ;;
    runtime-name-gxx|runtime-name-clangxx)
        cc=$GXX
        [[ $base == runtime-name-clangxx ]] && cc=$CLANGXX
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" -std=c++11 "${WARN[@]}" "${INC[@]}" -c "$here/runtime_name.cpp" -o "$out.o" || return 1
        compile_fails "$out.log" "PROF_SCOPE with a run-time name compiled; it must not (the site would keep a dangling pointer)" \
            "$cc" -std=c++11 "${WARN[@]}" "${INC[@]}" -DRUNTIME_NAME_IN_PROF_SCOPE -c "$here/runtime_name.cpp" -o "$out.bad.o" || return 1 ;;
    strict-gcc|strict-clang|strict-gxx|strict-clangxx|m32-strict-gcc|m32-strict-clang)
        # user code with the warnings projects add on top of the matrix's,
        # every recording macro in it. The implementation lives in a user's
        # file too, so it gets the same warnings: in C all of them, in C++
        # those that are not about C++ style (prof.h's implementation is C
        # and turns those off for itself: probe20b-cxx-impl-* builds it in
        # C++ with all of them)
        local strict=(-Wshadow -Wconversion -Wsign-conversion -Wundef -Wcast-qual -Wcast-align
                      -Wredundant-decls -Wdouble-promotion -Wnull-dereference -Wfloat-equal -Wvla)
        local impl_cc=$GCC impl_lang=(-std=c11) impl_strict arch=()
        # m32-strict-*: the same on i386, where size_t is 32 bits (the hash
        # tables' 64-bit hashes cut to a slot index failed -Wconversion)
        local run=1
        if [[ $base == m32-strict-* ]]; then
            printf 'int main(void) { return 0; }\n' >"$out.probe.c"
            "$GCC" -m32 -x c "$out.probe.c" -o "$out.probe" >/dev/null 2>&1 ||
                { echo "  $GCC -m32 cannot link (gcc-multilib not installed)"; return 77; }
            "$out.probe" 2>/dev/null || { run=0; echo "  (this kernel runs no 32-bit programs: built and linked only)"; }
            arch=(-m32)
            base=strict-${base#m32-strict-}
        fi
        case $base in
        strict-gcc) cc=$GCC; std=-std=c11; src=$here/strict_user.c
            strict+=(-Wstrict-prototypes -Wmissing-prototypes -Wbad-function-cast -Wdeclaration-after-statement
                     -Wstrict-aliasing=1 -Wjump-misses-init -Waggregate-return -Wformat-truncation=2 -Wformat-overflow=2) ;;
        strict-clang) cc=$CLANG; std=-std=c11; src=$here/strict_user.c; impl_cc=$CLANG
            strict+=(-Wstrict-prototypes -Wmissing-prototypes -Wbad-function-cast -Wdeclaration-after-statement) ;;
        strict-gxx) cc=$GXX; std=-std=c++11; src=$here/strict_user.cpp; impl_cc=$GXX; impl_lang=(-x c++ -std=c++11)
            strict+=(-Wstrict-aliasing=1 -Waggregate-return -Wformat-truncation=2 -Wformat-overflow=2) ;;
        *) cc=$CLANGXX; std=-std=c++11; src=$here/strict_user.cpp; impl_cc=$CLANGXX; impl_lang=(-x c++ -std=c++11) ;;
        esac
        impl_strict=("${strict[@]}")
        case $base in
        strict-gxx) strict+=(-Wold-style-cast -Wzero-as-null-pointer-constant -Wuseless-cast -Wmissing-declarations -Wextra-semi -Weffc++) ;;
        strict-clangxx) strict+=(-Wold-style-cast -Wzero-as-null-pointer-constant -Wmissing-declarations -Wextra-semi) ;;
        esac
        have "$cc" && have "$impl_cc" || { echo "  $cc or $impl_cc not found"; return 77; }
        run_cmd "$impl_cc" "${arch[@]}" "${impl_lang[@]}" "${WARN[@]}" -O2 "${impl_strict[@]}" "${defs[@]}" "${INC[@]}" -c "$here/c_impl.c" -o "$out.impl.o" || return 1
        run_cmd "$cc" "${arch[@]}" "$std" "${WARN[@]}" -O2 "${strict[@]}" "${defs[@]}" "${INC[@]}" -c "$src" -o "$out.main.o" || return 1
        # gcc's -Waggregate-return sees the macros' struct-returning calls
        # only where nothing inlines them: the user's file at -O0 as well
        case $base in strict-gcc*|strict-gxx*)
            run_cmd "$cc" "${arch[@]}" "$std" "${WARN[@]}" -O0 "${strict[@]}" "${defs[@]}" "${INC[@]}" -c "$src" -o "$out.main0.o" || return 1 ;;
        esac
        run_cmd "$cc" "${arch[@]}" "$out.main.o" "$out.impl.o" -o "$out" "${LIBS[@]}" || return 1
        ((run)) || return 0
        run_prog "$out" || return 1 ;;
    shared-linked-gcc|shared-linked-clang|shared-dlopen-gcc|shared-dlopen-clang|shared-dlopen-ie)
        local model=() calls
        pick_gcc_or_clang || return $?
        [[ $base == shared-dlopen-ie ]] && model=(-DPROF_TLS_MODEL='"initial-exec"')
        have objdump || { echo "  objdump not found"; return 77; }
        run_cmd "$cc" -std=c11 "${WARN[@]}" -O2 "${model[@]}" "${INC[@]}" -fPIC -shared \
            "$here/shared_lib.c" -o "$out.so" "${LIBS[@]}" || return 1
        # PROF_TLS_MODEL="initial-exec": the library's scopes reach the
        # thread-local pointer without a call to __tls_get_addr
        calls=$(objdump -d --no-show-raw-insn "$out.so" | awk '/^[0-9a-f]+ </ { f = $2 } /call.*__tls_get_addr/ && f ~ /shared_lib_/ { n++ } END { print n + 0 }')
        if [[ $base == shared-dlopen-ie ]]; then
            ((calls == 0)) || { echo "  PROF_TLS_MODEL=initial-exec: $calls calls of __tls_get_addr in the library's scopes"; return 1; }
        fi
        if [[ $base == shared-linked-* ]]; then
            run_cmd "$cc" -std=c11 "${WARN[@]}" "${INC[@]}" "$here/shared_main.c" "$out.so" \
                -Wl,-rpath,"$scratch" -o "$out" "${LIBS[@]}" || return 1
            run_prog "$out" || return 1
        else
            run_cmd "$cc" -std=c11 "${WARN[@]}" "$here/shared_dlopen.c" -o "$out" "${LIBS[@]}" || return 1
            run_prog "$out" "$out.so" || return 1
        fi ;;
    visibility-hidden-gcc|visibility-hidden-clang)
        local api='-DPROF_API=extern __attribute__((visibility("default")))'
        pick_gcc_or_clang || return $?
        run_cmd "$cc" -std=c11 "${WARN[@]}" -O2 -fvisibility=hidden "$api" "${INC[@]}" -fPIC -shared \
            "$here/visibility_lib.c" -o "$out.so" "${LIBS[@]}" || return 1
        run_cmd "$cc" -std=c11 "${WARN[@]}" -O2 "$api" "${INC[@]}" "$here/visibility_main.c" "$out.so" \
            -Wl,-rpath,"$scratch" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    cxx20-coroutine-migrate)
        cc=$GXX
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" -std=c++20 "${WARN[@]}" -O2 "${INC[@]}" "$here/coroutine_migrate.cpp" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    shared-dlclose-after|shared-dlclose-before)
        cc=$GCC
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" -std=c11 "${WARN[@]}" "${INC[@]}" -fPIC -shared "$here/dlclose_plugin.c" -o "$out.so" || return 1
        run_cmd "$cc" -std=c11 "${WARN[@]}" "${INC[@]}" "$here/dlclose_host.c" -rdynamic -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" "$out.so" "${base#shared-dlclose-}" || return 1 ;;
    nvcc-cuda-demo|nvcc-cuda-demo-nocupti)
        # nvcc compiles .cu files as C++ through its own front end (EDG),
        # which has warnings of its own: every one is an error here. Its
        # generated host code uses GCC line markers, so the host compiler
        # gets -Wall -Wextra -Werror without -Wpedantic.
        local nvcc=$CUDA_HOME/bin/nvcc nv=(-DPROF_CUPTI -I"$CUDA_HOME/include")
        [[ -x $nvcc ]] || { echo "  $nvcc not found"; return 77; }
        [[ $base == nvcc-cuda-demo-nocupti ]] && nv=()
        run_cmd "$nvcc" -std=c++17 "${defs[@]}" "${nv[@]}" -I"$root" -Werror all-warnings \
            -Xcompiler -Wall,-Wextra,-Werror -c "$root/examples/cuda_demo.cu" -o "$out.o" || return 1 ;;
    deprecated-malloc-gcc|deprecated-malloc-clang|deprecated-malloc-gxx|deprecated-malloc-clangxx)
        # libc's allocator marked deprecated before the implementation
        # (Valkey's server.h): prof.h's own calls do not warn, with the
        # hooks (the C++ cases) or without; the user's own call still does
        local x=(-std=c11) h=()
        case $base in
        *-gcc) cc=$GCC ;; *-clang) cc=$CLANG ;;
        *-gxx) cc=$GXX; x=(-x c++ -std=c++17); h=(-DWITH_HOOKS) ;;
        *-clangxx) cc=$CLANGXX; x=(-x c++ -std=c++17); h=(-DWITH_HOOKS) ;;
        esac
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" "${x[@]}" "${WARN[@]}" "${h[@]}" "${INC[@]}" "$here/deprecated_malloc.c" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1
        compile_fails "$out.user.log" "the program's own malloc after prof.h must still warn (deprecated)" \
            "$cc" "${x[@]}" "${WARN[@]}" "${h[@]}" -DUSER_CALLS_MALLOC "${INC[@]}" -c "$here/deprecated_malloc.c" -o "$out.user.o" || return 1
        grep -q deprecated "$out.user.log" || { echo "  the program's own malloc failed, but not as deprecated:"; sed 's/^/    /' "$out.user.log"; return 1; } ;;
    nvcc-host-device)
        # every macro in a __host__ __device__ function: nothing in nvcc's
        # device pass, recorded in the host pass (run on the host alone)
        local nvcc=$CUDA_HOME/bin/nvcc
        [[ -x $nvcc ]] || { echo "  $nvcc not found"; return 77; }
        run_cmd "$nvcc" -std=c++17 -I"$root" -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror \
            "$here/host_device.cu" -o "$out" -lpthread -ldl || return 1
        run_prog "$out" || return 1 ;;
    jump-gcc|jump-clang|jump-gxx|jump-clangxx)
        local x=() m j
        case $base in
        jump-gcc) cc=$GCC ;;
        jump-clang) cc=$CLANG ;;
        jump-gxx) cc=$GXX; x=(-x c++ -std=c++11) ;;
        *) cc=$CLANGXX; x=(-x c++ -std=c++11) ;;
        esac
        have "$cc" || { echo "  $cc not found"; return 77; }
        src=$here/jump_into_scope.c
        run_cmd "$cc" "${x[@]}" "${WARN[@]}" -Wvla "${INC[@]}" "$src" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1
        for m in 'PROF_SCOPE("w")' 'PROF_FUNC()' 'PROF_SCOPE_DYN(dyn)' 'PROF_SCOPE_OP("o")' \
                 'PROF_SCOPE_SHAPES("s", 1, 4)' 'PROF_SCOPE_FLOPS("f", 8)' 'PROF_SCOPE_ARGS("a", &args)'; do
            run_cmd "$cc" "${x[@]}" "${WARN[@]}" -Wvla "${INC[@]}" "-DSCOPE_MACRO=$m" -fsyntax-only "$src" || return 1
            for j in JUMP_GOTO JUMP_SWITCH; do
                compile_fails "$out.log" "$j into the range of $m compiled; its cleanup would run on an uninitialised scope" \
                    "$cc" "${x[@]}" "${WARN[@]}" -Wvla "${INC[@]}" "-DSCOPE_MACRO=$m" "-D$j" -fsyntax-only "$src" || return 1
                if ! grep -q -i -E 'jump|crosses|bypasses' "$out.log"; then
                    echo "  $j with $m failed for another reason:"; sed 's/^/    /' "$out.log" | head -5; return 1
                fi
            done
        done ;;
    c90-decls-gcc|c90-decls-clang|c90-decls-gcc-nofeatures)
        local feat=()
        pick_gcc_or_clang || return $?
        [[ $base == c90-decls-gcc-nofeatures ]] && feat=(-DPROF_NO_SHAPES -DPROF_NO_FLOPS)
        run_cmd "$cc" -std=c99 "${WARN[@]}" -Wdeclaration-after-statement "${defs[@]}" "${feat[@]}" "${INC[@]}" \
            -c "$here/c90_decls.c" -o "$out.decls.o" || return 1
        run_cmd "$cc" -std=c99 "${WARN[@]}" "${defs[@]}" "${feat[@]}" "${INC[@]}" \
            "$here/c90_main.c" "$out.decls.o" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    c89-gcc|c89-clang)
        # the manual's C90 promise: files in -std=c89 build and record, the
        # implementation's too, without -Wpedantic (variadic macros and
        # __func__ are C99's)
        pick_gcc_or_clang || return $?
        run_cmd "$cc" -std=c89 -Wall -Wextra -Werror -Wdeclaration-after-statement "${INC[@]}" \
            -c "$here/c90_decls.c" -o "$out.decls.o" || return 1
        run_cmd "$cc" -std=c89 -Wall -Wextra -Werror "${INC[@]}" \
            "$here/c90_main.c" "$out.decls.o" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    disabled-define-empty|disabled-define-one)
        # c90_main.c checks that nothing was recorded when PROF_DISABLED is defined
        local d=-DPROF_DISABLED=
        [[ $base == disabled-define-one ]] && d=-DPROF_DISABLED=1
        have "$GCC" || { echo "  $GCC not found"; return 77; }
        run_cmd "$GCC" -std=c11 "${WARN[@]}" -Wundef "$d" "${INC[@]}" \
            "$here/c90_main.c" "$here/c90_decls.c" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    disabled-define-zero)
        have "$GCC" || { echo "  $GCC not found"; return 77; }
        compile_fails "$out.log" "-DPROF_DISABLED=0 compiled; prof.h refuses it (defined means on)" \
            "$GCC" -std=c11 "${WARN[@]}" -DPROF_DISABLED=0 "${INC[@]}" -c "$here/c90_decls.c" -o "$out.o" || return 1
        if ! grep -m1 'error' "$out.log" | grep -q 'PROF_DISABLED is defined as 0'; then
            echo "  the first error is not prof.h's message:"; sed 's/^/    /' "$out.log" | head -5; return 1
        fi ;;
    probe17-static-fn-gcc|probe17-static-fn-clang|probe17-static-fn-gxx|probe17-static-fn-clangxx)
        # a static function called only in a macro argument, the feature
        # compiled out: no "unneeded"/"unused" function under -Wall -Werror
        local x=() d
        case $base in
        probe17-static-fn-gcc) cc=$GCC; std=-std=c11 ;;
        probe17-static-fn-clang) cc=$CLANG; std=-std=c11 ;;
        probe17-static-fn-gxx) cc=$GXX; std=-std=c++17; x=(-x c++) ;;
        *) cc=$CLANGXX; std=-std=c++17; x=(-x c++) ;;
        esac
        have "$cc" || { echo "  $cc not found"; return 77; }
        for d in -DPROF_DISABLED "-DPROF_NO_FLOPS -DPROF_NO_SHAPES"; do
            # shellcheck disable=SC2086
            run_cmd "$cc" "${x[@]}" "$std" "${WARN[@]}" $d "${INC[@]}" \
                -c "$here/probe17_static_fn_args.c" -o "$out.o" || return 1
        done
        # compiled out, the arguments are never evaluated
        run_cmd "$cc" "${x[@]}" "$std" "${WARN[@]}" -DPROF_DISABLED -DPROBE17_MAIN "${INC[@]}" \
            "$here/probe17_static_fn_args.c" -o "$out" || return 1
        run_cmd "$out" || return 1 ;;
    gnu-source-after-gcc|gnu-source-after-clang)
        # the implementation first, then the file's bare #define _GNU_SOURCE
        # (gnu_source_after.c): no redefinition warning under -Werror
        pick_gcc_or_clang || return $?
        run_cmd "$cc" -std=c11 "${WARN[@]}" "${INC[@]}" "$here/gnu_source_after.c" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    probe19c-lua-flags-gcc|probe19c-lua-flags-clang)
        # Lua's makefile flags (CWARNSCPP, CWARNSC; CWARNGCC for gcc, with
        # -Wlogical-op) on a file that holds the implementation and scopes
        # in Lua's style: builds under -Werror, runs, counts its events
        local luaw=(-Wextra -Wshadow -Wundef -Wwrite-strings -Wredundant-decls -Wdisabled-optimization
                    -Wdouble-promotion -Wmissing-declarations -Wconversion -Wdeclaration-after-statement
                    -Wmissing-prototypes -Wnested-externs -Wstrict-prototypes -Wc++-compat -Wold-style-definition)
        pick_gcc_or_clang || return $?
        [[ $base == *-gcc ]] && luaw+=(-Wlogical-op -Wno-aggressive-loop-optimizations)
        run_cmd "$cc" -std=c99 -Wall -O2 "${luaw[@]}" -fno-stack-protector -fno-common -Werror "${INC[@]}" \
            "$here/probe19c_lua_flags.c" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    probe19c-bad-function-cast-gcc|probe19c-bad-function-cast-clang)
        # a function call as a numeric macro argument under -Wbad-function-cast
        pick_gcc_or_clang || return $?
        c11_object probe19c_bad_function_cast.c -Wbad-function-cast || return 1 ;;
    probe19c-computed-goto-gcc|probe19c-computed-goto-gxx)
        # a scope left by a computed goto (Lua's jump table): recorded, or
        # refused at compile time as clang does; never silently left open
        # (no -Wpedantic: goto *p is a GNU extension)
        local x=()
        cc=$GCC
        [[ $base == *-gxx ]] && { cc=$GXX; x=(-x c++ -std=gnu++17); }
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" "${x[@]}" -Wall -Wextra -Werror "${INC[@]}" \
            "$here/probe19c_computed_goto.c" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    probe19c-c99-inline-gcc|probe19c-c99-inline-clang)
        # every macro in C99 inline functions with external linkage (no
        # static helper may be named there): quiet under -Werror, also
        # compiled out
        pick_gcc_or_clang || return $?
        c11_object probe19c_c99_inline.c -O2 "${defs[@]}" || return 1 ;;
    probe19c-double-include-gcc|probe19c-double-include-clang)
        # prof.h, then PROF_IMPLEMENTATION and prof.h again, in strict C11:
        # builds and runs, or the first error names the earlier inclusion
        pick_gcc_or_clang || return $?
        if "$cc" -std=c11 "${WARN[@]}" "${INC[@]}" "$here/probe19c_double_include.c" -o "$out" "${LIBS[@]}" >"$out.log" 2>&1; then
            run_prog "$out" || return 1
        elif ! grep -m1 'error' "$out.log" | grep -q 'PROF_IMPLEMENTATION'; then
            echo "  prof.h included first, then again with PROF_IMPLEMENTATION: the build stops, and its first error does not name the cause:"
            grep -m1 'error' "$out.log" | sed 's/^/    /'
            return 1
        fi ;;
    probe19c-shapes-size-t-gcc|probe19c-shapes-size-t-clang)
        # size_t dims in C under -Wconversion -Wsign-conversion
        pick_gcc_or_clang || return $?
        c11_object probe19c_shapes_size_t.c -Wconversion -Wsign-conversion || return 1 ;;
    probe19c-hidden-exe-gcc|probe19c-hidden-exe-clang)
        # everything built with -fvisibility=hidden, the implementation in
        # the executable (-rdynamic), the macros in a linked library
        pick_gcc_or_clang || return $?
        # with the manual's remedy: PROF_API of default visibility in every file
        local api=(-DPROF_API='extern __attribute__((visibility("default")))')
        run_cmd "$cc" -std=c11 "${WARN[@]}" -O2 -fvisibility=hidden "${api[@]}" "${INC[@]}" -fPIC -shared \
            "$here/probe19c_hidden_exe_lib.c" -o "$scratch/libprobe19c_hidden.so" "${LIBS[@]}" || return 1
        run_cmd "$cc" -std=c11 "${WARN[@]}" -O2 -fvisibility=hidden "${api[@]}" "${INC[@]}" -rdynamic \
            "$here/probe19c_hidden_exe_main.c" -o "$out" -L"$scratch" -lprobe19c_hidden -Wl,-rpath,"$scratch" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    probe20b-cxx-impl-gxx|probe20b-cxx-impl-clangxx)
        # fmt's PEDANTIC_COMPILE_FLAGS (its CMakeLists.txt, one list per
        # compiler) on a C++ file holding the implementation
        local fmtw
        if [[ $base == *-clangxx ]]; then cc=$CLANGXX
            fmtw=(-pedantic -Wconversion -Wundef -Wdeprecated -Wweak-vtables -Wshadow
                  -Wno-gnu-zero-variadic-macro-arguments -Wzero-as-null-pointer-constant)
        else cc=$GXX
            fmtw=(-pedantic-errors -pedantic -Wold-style-cast -Wundef -Wredundant-decls -Wwrite-strings
                  -Wpointer-arith -Wcast-qual -Wformat=2 -Wmissing-include-dirs -Wcast-align -Wctor-dtor-privacy
                  -Wdisabled-optimization -Winvalid-pch -Woverloaded-virtual -Wconversion -Wno-ctor-dtor-privacy
                  -Wno-format-nonliteral -Wno-dangling-else -Wno-unused-local-typedefs -Wdouble-promotion
                  -Wtrampolines -Wzero-as-null-pointer-constant -Wuseless-cast -Wvector-operation-performance
                  -Wsized-deallocation -Wshadow -Wshift-overflow=2 -Wduplicated-cond)
        fi
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" -std=c++17 "${WARN[@]}" "${fmtw[@]}" "${INC[@]}" \
            "$here/probe20b_cxx_impl.cpp" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    probe20b-c89-pedantic-gcc|probe20b-c89-pedantic-clang)
        # zstd's make c89build CFLAGS and its DEBUGFLAGS
        local zflags=(-std=c89 -Werror -Wno-attributes -Wpedantic -Wno-long-long -Wno-variadic-macros -O0
                      -Wall -Wextra -Wcast-qual -Wcast-align -Wshadow -Wstrict-aliasing=1 -Wswitch-enum
                      -Wdeclaration-after-statement -Wstrict-prototypes -Wundef -Wpointer-arith -Wvla -Wformat=2
                      -Winit-self -Wfloat-equal -Wwrite-strings -Wredundant-decls -Wmissing-prototypes -Wc++-compat)
        cc=$GCC
        [[ $base == *-clang ]] && cc=$CLANG
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" -std=c11 "${WARN[@]}" "${INC[@]}" -c "$here/c_impl.c" -o "$out.impl.o" || return 1
        run_cmd "$cc" "${zflags[@]}" "${INC[@]}" -c "$here/probe20b_c89_pedantic.c" -o "$out.o" || return 1
        run_cmd "$cc" "$out.o" "$out.impl.o" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    probe21a-weverything-user-clang|probe21a-weverything-user-clangxx)
        # -Weverything on the user's code: every macro, three configurations
        local ev=(-Weverything -Wno-padded -Wno-reserved-identifier) d
        knows_warning "$CLANG" -Wunsafe-buffer-usage && ev+=(-Wno-unsafe-buffer-usage)
        if [[ $base == *-clangxx ]]; then cc=$CLANGXX; std=-std=c++17; src=$here/strict_user.cpp
            ev+=(-Wno-c++98-compat -Wno-c++98-compat-pedantic)
        else cc=$CLANG; std=-std=c11; src=$here/strict_user.c
            ev+=(-Wno-declaration-after-statement)
        fi
        have "$cc" && have "$CLANG" || { echo "  $cc or $CLANG not found"; return 77; }
        for d in -DPROF_DISABLED "-DPROF_NO_SHAPES -DPROF_NO_FLOPS -DPROF_NO_MEMORY -DPROF_NO_STACK"; do
            # shellcheck disable=SC2086
            run_cmd "$cc" "$std" "${WARN[@]}" -O2 "${ev[@]}" $d "${INC[@]}" -fsyntax-only "$src" || return 1
        done
        run_cmd "$cc" "$std" "${WARN[@]}" -O2 "${ev[@]}" "${INC[@]}" -c "$src" -o "$out.main.o" || return 1
        run_cmd "$CLANG" -std=c11 "${WARN[@]}" "${INC[@]}" -c "$here/c_impl.c" -o "$out.impl.o" || return 1
        run_cmd "$cc" "$out.main.o" "$out.impl.o" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    probe21a-weverything-impl-clang|probe21a-weverything-impl-clangxx)
        # -Weverything on the file that holds the implementation
        local ev=(-Weverything -Wno-padded -Wno-reserved-identifier)
        # clang 16 and later: -Wunsafe-buffer-usage flags every pointer
        # index and step (C++'s hardening mode), off as the manual says
        knows_warning "$CLANG" -Wunsafe-buffer-usage && ev+=(-Wno-unsafe-buffer-usage)
        if [[ $base == *-clangxx ]]; then cc=$CLANGXX; lang=(-x c++ -std=c++17)
            ev+=(-Wno-c++98-compat -Wno-c++98-compat-pedantic)
        else cc=$CLANG; lang=(-std=c11)
            ev+=(-Wno-declaration-after-statement)
        fi
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" "${lang[@]}" "${WARN[@]}" "${ev[@]}" "${INC[@]}" \
            "$here/probe21a_hardening.c" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    probe21a-short-enums-gcc|probe21a-short-enums-gxx)
        local x=(-std=c11)
        cc=$GCC
        [[ $base == *-gxx ]] && { cc=$GXX; x=(-x c++ -std=c++17); }
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" "${x[@]}" "${WARN[@]}" -O2 -fshort-enums "${INC[@]}" \
            "$here/probe21a_hardening.c" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    probe21a-winline-gcc|probe21a-winline-gxx)
        # -Winline warns where a function declared inline is not inlined:
        # gcc inlines nothing "unlikely" at -Os, nothing at -Og, and stops
        # at its growth limits at -O2/-O3 (in the implementation)
        local x=(-std=c11) ux=(-std=c11) o
        cc=$GCC; src=$here/strict_user.c
        if [[ $base == *-gxx ]]; then cc=$GXX; src=$here/strict_user.cpp; x=(-x c++ -std=c++17); ux=(-std=c++17); fi
        have "$cc" || { echo "  $cc not found"; return 77; }
        for o in -O2 -O3; do
            # (C++: a scope's end on the unwinding path is a cold call gcc
            # keeps out of line, with -Winline's word: built without it)
            if [[ $base == *-gxx ]]; then
                run_cmd "$cc" "${ux[@]}" "${WARN[@]}" "$o" "${INC[@]}" -c "$src" -o "$out.main$o.o" || return 1
            else
                run_cmd "$cc" "${ux[@]}" "${WARN[@]}" "$o" -Winline "${INC[@]}" -c "$src" -o "$out.main$o.o" || return 1
            fi
        done
        for o in -O3 -Os -Og -O2; do
            run_cmd "$cc" "${x[@]}" "${WARN[@]}" "$o" -Winline "${INC[@]}" -c "$here/c_impl.c" -o "$out.impl.o" || return 1
        done
        run_cmd "$cc" "$out.main-O2.o" "$out.impl.o" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    native-leaf-gcc|native-leaf-clang|native-leaf-gxx)
        # tests/test_probe27B_native_leaf.c at -O0 and -Os, where the
        # recording helpers stay out of line: native stacks still start in
        # the scope's own function; and at -O2, where they are inlined into
        # it (C++'s PROF_SCOPE_DYN starts its scope in a helper of its own,
        # which inlined there cut the scope's function from its stack)
        local x=(-std=c11) o
        case $base in
            *-gcc) cc=$GCC ;;
            *-clang) cc=$CLANG ;;
            *) cc=$GXX; x=(-x c++ -std=c++17) ;;
        esac
        have "$cc" || { echo "  $cc not found"; return 77; }
        for o in -O0 -Os -O2; do
            run_cmd "$cc" "${x[@]}" -Wall -Wextra -Wpedantic -Werror -g $o "${INC[@]}" -I"$root/tests" "$root/tests/test_probe27B_native_leaf.c" -o "$out$o" -pthread -ldl -lm || return 1
            run_prog "$out$o" || return 1
        done ;;
    native-catch-gxx|native-catch-clangxx)
        # native_catch.cpp at -O2 with -rdynamic: a scope in a catch handler,
        # where the compilers keep the recording helper out of line, still
        # has a native stack that starts in its own function
        cc=$GXX
        [[ $base == *-clangxx ]] && cc=$CLANGXX
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" -std=c++17 -Wall -Wextra -Wpedantic -Werror -g -O2 -rdynamic "${INC[@]}" "$here/native_catch.cpp" -o "$out" -pthread -ldl -lm || return 1
        run_prog "$out" || return 1 ;;
    probe26B-alloc-after-malloc-gcc|probe26B-alloc-after-malloc-gxx)
        # the manual's allocator wrapper (malloc, then prof_alloc of the
        # fresh block) under -Wall -Werror at -O0, -O1 and -O2: gcc's
        # -Wmaybe-uninitialized must not take prof_alloc's const void *
        # for a read of the block
        local x=() o
        cc=$GCC
        [[ $base == *-gxx ]] && { cc=$GXX; x=(-x c++ -std=c++17); }
        have "$cc" || { echo "  $cc not found"; return 77; }
        [[ $base == *-gcc ]] && x=(-std=c11)
        for o in -O0 -O1 -O2; do
            run_cmd "$cc" "${x[@]}" -Wall -Wextra -Wpedantic -Werror $o "${INC[@]}" -c "$here/probe26B_alloc_after_malloc.c" -o "$out.o" || return 1
        done ;;
    probe24B-xz-flags-gcc)
        # xz's own gcc warning set (CMakeLists.txt, configure.ac; -Werror in
        # its developer builds), at -O2 and -O1 as a Release build compiles:
        # the implementation with every macro, and user code
        local xzw=(-Wall -Wextra -Wvla -Wformat=2 -Winit-self -Wmissing-include-dirs -Wshift-overflow=2
                   -Wstrict-overflow=3 -Walloc-zero -Wduplicated-cond -Wfloat-equal -Wundef -Wshadow
                   -Wpointer-arith -Wbad-function-cast -Wwrite-strings -Wdate-time -Wsign-conversion
                   -Wfloat-conversion -Wlogical-op -Waggregate-return -Werror) o
        cc=$GCC
        have "$cc" || { echo "  $cc not found"; return 77; }
        for o in -O2 -O1; do
            run_cmd "$cc" -std=c99 $o "${xzw[@]}" "${INC[@]}" -c "$here/probe21a_hardening.c" -o "$out.impl.o" || return 1
            run_cmd "$cc" -std=c99 $o "${xzw[@]}" "${INC[@]}" -c "$here/strict_user.c" -o "$out.user.o" || return 1
        done ;;
    probe21a-unsuffixed-float-gcc)
        cc=$GCC
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" -std=c11 "${WARN[@]}" -Wunsuffixed-float-constants "${INC[@]}" \
            -c "$here/probe21a_user_float.c" -o "$out.main.o" || return 1
        run_cmd "$cc" -std=c11 "${WARN[@]}" "${INC[@]}" -c "$here/c_impl.c" -o "$out.impl.o" || return 1
        run_cmd "$cc" "$out.main.o" "$out.impl.o" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    probe21a-hardening-gcc|probe21a-hardening-clang|probe21a-ubsan-gcc|probe21a-ubsan-clang)
        local hard=(-O2 -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3 -fstack-protector-all -fstack-clash-protection
                    -ftrivial-auto-var-init=pattern)
        pick_gcc_or_clang || return $?
        if [[ $base == probe21a-ubsan-* ]]; then
            hard=(-O1 -fsanitize=undefined,bounds -fno-sanitize-recover=all)
            [[ $base == *-gcc ]] && hard+=(-fsanitize=bounds-strict)
        fi
        run_cmd "$cc" -std=c11 "${WARN[@]}" "${hard[@]}" "${INC[@]}" \
            "$here/probe21a_hardening.c" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    probe21a-lto-gcc|probe21a-lto-clang)
        # gcc: one partition, or lto-wrapper warns "using serial compilation"
        local ld=(-flto -flto-partition=one)
        pick_gcc_or_clang || return $?
        if [[ $base == *-clang ]]; then
            have ld.lld || { echo "  ld.lld not found (clang's -flto links with it)"; return 77; }
            ld=(-flto -fuse-ld=lld)
        fi
        run_cmd "$cc" -std=c11 "${WARN[@]}" -O2 -flto "${INC[@]}" -c "$here/two_tu_impl.c" -o "$out.impl.o" || return 1
        run_cmd "$cc" -std=c11 "${WARN[@]}" -O2 -flto "${INC[@]}" -c "$here/two_tu_main.c" -o "$out.main.o" || return 1
        run_cmd "$cc" "${WARN[@]}" -O2 "${ld[@]}" "$out.impl.o" "$out.main.o" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    m32-units-gcc)
        # i386, run: unit tests that hold on 32-bit targets (the others
        # assume 64-bit sizes), with SSE math as the manual asks there;
        # test_oom failed with the arena's 4-byte alignment, test_wide_sums
        # with sums of memory sizes that saturated past int64 (no __int128)
        m32_runs "$out" || return 77
        run_units "test_oom test_tree test_list_rebuild test_stack_groups test_threads_late_states test_wide_sums test_probe19e_timeline_i128" "$GCC" -m32 -msse2 -mfpmath=sse ;;
    m32-dyn-names-gcc)
        # i386, run: run-time names past the inline limit live in an arena
        # whose chunk header was 12 bytes there, so their sites were 4-byte
        # aligned and their records' tag bits garbled the name (a 4096-byte
        # name came back as 8 bytes); tests/test_dyn_names.c as it is
        m32_runs "$out" || return 77
        mapfile -t srcs < <(unit_sources test_dyn_names)
        run_cmd "$GCC" -m32 -std=c11 "${WARN[@]}" -g "${INC[@]}" -I"$here/.." "${srcs[@]}" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    m32-reserve-gcc)
        # i386, run: a reserve past the address space is cut to a quarter
        # of it (tests/compile/m32_reserve.c says why)
        m32_runs "$out" || return 77
        run_cmd "$GCC" -m32 -std=c11 "${WARN[@]}" -O1 "${INC[@]}" "$here/m32_reserve.c" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    m32-gcc|m32-clang|m32-gxx|m32-clangxx|m32-posix2001-gcc|m32-posix2001-clang)
        # i386: 64-bit counters read across threads must be 8-byte aligned
        # (clang's -Watomic-alignment, on by default), no helper only
        # 64-bit targets use may be left unused, and under POSIX.1-2001
        # the export writes without pwrite (PROF__NO_PWRITE)
        local x=(-std=c11) file=matrix.c
        case $base in
        *-gcc) cc=$GCC ;; *-clang) cc=$CLANG ;;
        *-gxx) cc=$GXX; x=(-std=c++17); file=matrix.cpp ;; *-clangxx) cc=$CLANGXX; x=(-std=c++17); file=matrix.cpp ;;
        esac
        [[ $base == m32-posix2001-* ]] && { x=(-std=c11 -D_POSIX_C_SOURCE=200112L); file=include_after.c; }
        have "$cc" || { echo "  $cc not found"; return 77; }
        printf 'int main(void) { return 0; }\n' >"$out.probe.c"
        "$cc" -m32 -x c "$out.probe.c" -o "$out.probe" >/dev/null 2>&1 ||
            { echo "  $cc -m32 cannot link (gcc-multilib / g++-multilib not installed)"; return 77; }
        run_cmd "$cc" -m32 "${x[@]}" "${WARN[@]}" "${INC[@]}" -rdynamic "$here/$file" -o "$out" "${LIBS[@]}" || return 1
        if "$out.probe" 2>/dev/null; then run_prog "$out" || return 1
        else echo "  (this kernel runs no 32-bit programs: built and linked only)"; fi ;;
    refused-tcc|refused-pcc|refused-cxx98-gxx|refused-cxx98-clangxx)
        # what prof.h cannot be built with says so first, in its own words,
        # user file or implementation: tcc stopped at the first __thread,
        # pcc (which defines __GNUC__) at a diagnostic pragma
        local x=() want="prof.h needs gcc or clang" f
        case $base in
        refused-tcc) cc=tcc ;; refused-pcc) cc=pcc ;;
        refused-cxx98-gxx) cc=$GXX; x=(-x c++ -std=c++98); want="prof.h needs C++11" ;;
        *) cc=$CLANGXX; x=(-x c++ -std=c++98); want="prof.h needs C++11" ;;
        esac
        have "$cc" || { echo "  $cc not found"; return 77; }
        printf '#include "prof.h"\nint f(int n);\nint f(int n) { PROF_SCOPE("f"); return n + 1; }\n' >"$out.user.c"
        printf '#define PROF_IMPLEMENTATION\n#include "prof.h"\nint main(void) { return 0; }\n' >"$out.impl.c"
        for f in "$out.user.c" "$out.impl.c"; do
            compile_fails "$out.log" "$cc ${x[*]} built $(basename "$f"); prof.h must refuse it" \
                "$cc" "${x[@]}" "${INC[@]}" -c "$f" -o "$out.o" || return 1
            grep -q "$want" "$out.log" || { echo "  no '$want' from $cc:"; sed 's/^/    /' "$out.log" | head -8; return 1; }
            # (C++98: the first error; what the header then declares
            # adds more, as a compiler goes on after an #error)
            if [[ $base == refused-cxx98-* ]]; then
                grep -m1 'error' "$out.log" | grep -q "$want" ||
                    { echo "  '$want' is not the first error from $cc:"; sed 's/^/    /' "$out.log" | head -8; return 1; }
            elif grep -v "$want" "$out.log" | grep -q 'prof\.h'; then
                echo "  more than prof.h's #error from $cc:"; sed 's/^/    /' "$out.log" | head -8; return 1
            fi
        done ;;
    probe22b-attr-macros-gcc|probe22b-attr-macros-clang|probe22b-attr-macros-gxx|probe22b-attr-macros-clangxx|\
    user-macros-gcc|user-macros-clang|user-macros-gxx|user-macros-clangxx)
        local x=(-std=c11) src=probe22b_attr_macros.c
        case $base in user-macros-*) src=user_macros.c ;; esac
        case $base in
        *-gcc) cc=$GCC ;; *-clang) cc=$CLANG ;;
        *-gxx) cc=$GXX; x=(-x c++ -std=c++17) ;; *-clangxx) cc=$CLANGXX; x=(-x c++ -std=c++17) ;;
        esac
        have "$cc" || { echo "  $cc not found"; return 77; }
        run_cmd "$cc" "${x[@]}" "${WARN[@]}" "${INC[@]}" \
            "$here/$src" -o "$out" "${LIBS[@]}" || return 1
        run_prog "$out" || return 1 ;;
    *)
        echo "  unknown case '$name' (see --list)"; return 1 ;;
    esac
    return 0
}

if [[ $# -gt 0 ]]; then
    cases=()
    for a in "$@"; do # a name, or a pattern of names ('m32-*')
        if [[ $a == *[*?[]* ]]; then
            n=${#cases[@]}
            for c in $(all_cases); do [[ $c == $a ]] && cases+=("$c"); done
            ((${#cases[@]} > n)) || { echo "no case matches '$a' (see --list)"; exit 1; }
        else cases+=("$a"); fi
    done
else read -r -a cases <<<"$(all_cases | tr '\n' ' ')"; fi

pass=0 fail=0 skip=0 failed=()
for c in "${cases[@]}"; do
    echo "== $c"
    one_case "$c"
    rc=$?
    case $rc in
    0) echo "PASS $c"; pass=$((pass + 1)) ;;
    77) echo "SKIP $c"; skip=$((skip + 1)) ;;
    *) echo "FAIL $c"; fail=$((fail + 1)); failed+=("$c") ;;
    esac
done

echo "compile matrix: $pass passed, $fail failed, $skip skipped"
if ((fail > 0)); then
    echo "failed: ${failed[*]}"
    exit 1
fi
if ((pass == 0 && skip > 0)); then exit 77; fi
exit 0
