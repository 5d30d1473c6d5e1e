#!/usr/bin/env bash
# tests/gpu/run.sh - prof.h's CUDA path checked end to end (make gpu-check).
#
#   tests/gpu/run.sh [--gpu | --fake | --compile-only] [OUT_DIR]
#
# --gpu (the default when nvidia-smi sees a GPU): builds with nvcc and runs
#   examples/cuda_demo.cu and tests/gpu/gpu_check.cu (three sessions of
#   known kernels, copies, a memset, a cuBLAS GEMM, two streams, a graph,
#   cudaMallocAsync, pinned memory, a second thread; then the cost of a
#   launch: 100k empty kernels untraced, under prof.h, and under bare CUPTI
#   with the same record kinds, medians of 5), and, where python3 has
#   PyTorch with CUDA, prof.h and torch.profiler taking turns in one process
#   (interop.py), then checks each session's trace with
#   check_trace.py and, where tests/js's packages are installed, with
#   DevTools' trace engine and speedscope. Takes a minute or two; every step is under a timeout
#   and the whole run stays under 8 minutes.
# --fake (the default without a GPU; `make test` runs it): the same
#   scenario and the same checks (gpu_checks.h, check_trace.py) on the fake
#   CUPTI of tests/fake_cupti (fake_check.c). FAKE_CUPTI_DIR = an already
#   built fake (else it is built into OUT_DIR/fake_cupti).
# --compile-only: gpu_check.cu and interop_lib.cu through nvcc, no run
#   (exit 77 without nvcc).
# --build: builds the GPU programs (and interop.py's library) into OUT_DIR with libcupti beside them
#   (OUT_DIR/lib, rpath $ORIGIN/lib), for a GPU machine without nvcc: --gpu
#   there uses them when it finds no nvcc (cuBLAS is loaded at run time;
#   without it the GEMM is skipped, and cuda_demo, which links it, too).
#   One prepared run from another machine:
#     here:  tests/gpu/run.sh --build build/gpu-check
#     there: tests/gpu/run.sh --gpu build/gpu-check   (carry build/gpu-check; < 8 min)
#
# Every check prints "pass: ..." or "FAIL: ..." with its figure; the last
# line counts them. Exit 0 = all passed. Environment: CUDA_HOME (default
# /usr/local/cuda), CC (default cc), NVCC (default $CUDA_HOME/bin/nvcc).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
NVCC="${NVCC:-$CUDA_HOME/bin/nvcc}"
CC="${CC:-cc}"
mode=""
case "${1:-}" in --gpu|--fake|--compile-only|--build) mode="${1#--}"; shift ;; esac
out="${1:-$root/build/gpu-check}"
mkdir -p "$out" && out="$(cd "$out" && pwd)"
if [ -z "$mode" ]; then
    if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; then mode=gpu; else mode=fake; fi
fi
t_start=$(date +%s)
passed=0
failed=0
count() { # the pass/FAIL lines of a step's output
    passed=$((passed + $(grep -c '^pass: ' "$1" || true)))
    failed=$((failed + $(grep -c '^FAIL: ' "$1" || true)))
}
step_fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
# A program that exited with an error without saying which check failed
ended_badly() { # WHAT RC OUTPUT_FILE
    [ "$2" -eq 0 ] || [ "$(grep -c '^FAIL: ' "$3")" -gt 0 ] || step_fail "$1 exited with $2"
}
nvcc_flags=(-std=c++17 -O2 -DPROF_CUPTI -I"$root" -I"$here" -I"$CUDA_HOME/include" -Werror all-warnings -Xcompiler -Wall,-Wextra)
# libcupti from OUT_DIR/lib (a copy, when built with --build), else the toolkit's
nvcc_libs=(-L"$CUDA_HOME/lib64" -L"$CUDA_HOME/lib64/stubs" -Xlinker -rpath -Xlinker '$ORIGIN/lib' -Xlinker -rpath -Xlinker "$CUDA_HOME/lib64"
           -lcupti -lcuda -ldl -lpthread)
# toolkits that keep CUPTI apart (extras/CUPTI, as CUDA 12 installers do)
cupti_extra="$CUDA_HOME/extras/CUPTI"
if [ -f "$cupti_extra/include/cupti.h" ]; then nvcc_flags+=(-I"$cupti_extra/include"); fi
if [ -d "$cupti_extra/lib64" ]; then nvcc_libs+=(-L"$cupti_extra/lib64" -Xlinker -rpath -Xlinker "$cupti_extra/lib64"); fi

build_gpu_programs() {
    mkdir -p "$out/lib"
    cp -L "$CUDA_HOME/lib64/libcupti.so.13" "$out/lib/" 2> /dev/null || cp -L "$CUDA_HOME"/lib64/libcupti.so.1[0-9] "$out/lib/" 2> /dev/null ||
        cp -L "$cupti_extra"/lib64/libcupti.so.1[0-9] "$out/lib/" 2> /dev/null || true
    timeout 240 "$NVCC" "${nvcc_flags[@]}" "$here/gpu_check.cu" -o "$out/gpu_check" "${nvcc_libs[@]}" &&
    timeout 240 "$NVCC" "${nvcc_flags[@]}" "$root/examples/cuda_demo.cu" -o "$out/cuda_demo" "${nvcc_libs[@]}" -lcublas &&
    timeout 240 "$NVCC" "${nvcc_flags[@]}" -shared -Xcompiler -fPIC "$here/interop_lib.cu" -o "$out/libinterop.so" "${nvcc_libs[@]}"
}

check_traces() { # the trace checks of each session
    local i
    if ! command -v python3 > /dev/null 2>&1; then echo "skip: no python3, traces not checked"; return; fi
    for i in 1 2 3; do
        python3 "$here/check_trace.py" "$out/trace_s$i.json" "$out/expect_s$i.json" > "$out/trace_s$i.check" 2>&1
        cat "$out/trace_s$i.check"
        count "$out/trace_s$i.check"
    done
}

# Each session's trace (and the demo's) loaded by real viewers, with
# tests/js's checkers: Chrome DevTools' trace engine keeps every complete
# event in its call tree, speedscope imports every lane without a warning.
# Skipped where node or tests/js's pinned packages are missing (tests/js/run.sh
# installs them).
check_viewers() {
    local js="$root/tests/js" f rc
    if ! command -v node > /dev/null 2>&1 || ! command -v python3 > /dev/null 2>&1 ||
       [ ! -d "$js/node_modules/@paulirish/trace_engine" ] || [ ! -d "$js/node_modules/speedscope" ]; then
        echo "skip: viewers: node or tests/js's packages are not installed (tests/js/run.sh installs them)"
        return
    fi
    for f in "$out"/trace_s[0-9].json "$out/cuda_trace.json"; do
        [ -f "$f" ] || continue
        rc=0
        { python3 "$here/viewer_expect.py" "$f" "$f.expect" &&
          (cd "$js" && node check_trace.mjs "$f" "$f.expect" && node check_speedscope.mjs "$f" "$f.expect"); } > "$f.viewers" 2>&1 || rc=1
        if [ $rc -eq 0 ]; then
            echo "pass: viewers: $(basename "$f"): $(grep -h '^ok ' "$f.viewers" | sed 's/^ok [^:]*: //' | paste -sd ';' -)"
            passed=$((passed + 1))
        else
            step_fail "viewers: $(basename "$f") (DevTools' trace engine or speedscope):"
            tail -8 "$f.viewers"
        fi
    done
}

# The cost of a launch: 100k empty kernels in fresh processes, untraced,
# under bare CUPTI (the floor) and under prof.h, alternating, 5 rounds;
# medians. (A process that has used CUPTI launches slower ever after, so
# the three cannot share one.) Fails when a traced run lost kernels or when
# prof.h adds more than twice what bare CUPTI adds (seen: 0.85-1.08x).
launch_costs() {
    local r m
    : > "$out/cost.txt"
    for r in 1 2 3 4 5; do
        for m in off bare prof; do timeout 60 "$out/gpu_check" --cost "$m" >> "$out/cost.txt" 2>&1; done
    done
    awk 'function med(m,   n, i, j, t, v) { n = 0; for (i = 1; i <= cnt; i++) if (mode[i] == m) v[++n] = ns[i]
             for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j] < v[j-1]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
             return n ? v[int((n + 1) / 2)] : -1 }
         $1 == "cost" { cnt++; mode[cnt] = $2; ns[cnt] = $3; if ($2 != "off" && $4 < 100000) untraced++ }
         END { off = med("off"); bare = med("bare"); prof = med("prof")
               if (cnt != 15 || off <= 0 || bare <= 0 || prof <= 0) { printf "FAIL: launch cost: %d of 15 runs gave a figure (%s)\n", cnt, FILENAME; exit }
               if (untraced) { printf "FAIL: launch cost: %d traced runs recorded fewer than their 100000 kernels (%s)\n", untraced, FILENAME; exit }
               if (bare > off && prof - off > 2 * (bare - off)) {
                   printf "FAIL: launch cost: prof.h adds %.3f us a launch, over twice bare CUPTI'"'"'s %.3f us (%s)\n", (prof - off) / 1e3, (bare - off) / 1e3, FILENAME; exit }
               printf "pass: launch cost, medians of 5 fresh processes of 100000 empty kernels: %.3f us untraced, %.3f us under bare CUPTI (+%.3f us, the floor), %.3f us under prof.h (+%.3f us, %.2fx the floor'"'"'s added cost; %.2fx bare CUPTI'"'"'s launch)\n",
                      off / 1e3, bare / 1e3, (bare - off) / 1e3, prof / 1e3, (prof - off) / 1e3, (bare > off ? (prof - off) / (bare - off) : 0), prof / bare }' \
        "$out/cost.txt" > "$out/cost.check"
    cat "$out/cost.check"
    count "$out/cost.check"
}

# prof.h and torch.profiler in one process, where python3 has PyTorch with
# CUDA (interop.py exits 77 where it has not)
check_interop() {
    local rc
    command -v python3 > /dev/null 2>&1 || { echo "skip: interop: no python3"; return; }
    CUDA_HOME="$CUDA_HOME" NVCC="$NVCC" timeout 300 python3 "$here/interop.py" "$out" > "$out/interop.out" 2>&1
    rc=$?
    cat "$out/interop.out"
    count "$out/interop.out"
    [ $rc -eq 77 ] || ended_badly interop.py $rc "$out/interop.out"
}

case "$mode" in
build)
    [ -x "$NVCC" ] || { echo "FAIL: $NVCC not found"; exit 1; }
    if build_gpu_programs; then echo "built $out/gpu_check, $out/cuda_demo and $out/lib ($(du -sh "$out" | cut -f1))"; exit 0; fi
    echo "FAIL: nvcc build"; exit 1
    ;;
compile-only)
    [ -x "$NVCC" ] || { echo "skipped: $NVCC not found"; exit 77; }
    if "$NVCC" "${nvcc_flags[@]}" -c "$here/gpu_check.cu" -o "$out/gpu_check.o" &&
       "$NVCC" "${nvcc_flags[@]}" -Xcompiler -fPIC -c "$here/interop_lib.cu" -o "$out/interop_lib.o"; then
        echo "pass: gpu_check.cu and interop_lib.cu compile with $NVCC"; exit 0
    fi
    echo "FAIL: gpu_check.cu or interop_lib.cu does not compile"; exit 1
    ;;
gpu)
    echo "gpu-check on: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    if [ ! -x "$NVCC" ] && [ -x "$out/gpu_check" ]; then
        echo "info: no nvcc here: using the programs built by --build in $out"
    elif [ ! -x "$NVCC" ]; then
        echo "FAIL: $NVCC not found (set CUDA_HOME or NVCC, or build with --build elsewhere)"; exit 1
    elif build_gpu_programs; then
        echo "pass: built cuda_demo and gpu_check ($(( $(date +%s) - t_start )) s)"; passed=$((passed + 1))
    else
        step_fail "nvcc build"; echo "gpu-check: $passed passed, $failed failed"; exit 1
    fi
    # the example: runs, writes a trace with kernels and flows
    missing="$(ldd "$out/cuda_demo" 2> /dev/null | awk '/not found/ {print $1; exit}')"
    if [ -n "$missing" ]; then
        echo "skip: cuda_demo: $missing is not on this machine"
    elif (cd "$out" && timeout 120 ./cuda_demo > cuda_demo.out 2>&1); then
        if command -v python3 > /dev/null 2>&1 &&
           python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); e=t["traceEvents"]; k=[x for x in e if x.get("cat")=="kernel"]; f=[x for x in e if x.get("ph")=="f"]; print("pass: cuda_demo: %d kernels, %d flow ends in cuda_trace.json" % (len(k), len(f))); sys.exit(0 if k and len(f) >= len(k) else 1)' "$out/cuda_trace.json"; then
            passed=$((passed + 1))
        else step_fail "cuda_demo: cuda_trace.json without kernels or flows"; fi
    else
        step_fail "cuda_demo exited with an error:"; tail -20 "$out/cuda_demo.out"
    fi
    timeout 300 "$out/gpu_check" "$out" > "$out/gpu_check.out" 2>&1
    rc=$?
    cat "$out/gpu_check.out"
    count "$out/gpu_check.out"
    ended_badly gpu_check $rc "$out/gpu_check.out"
    check_traces
    check_viewers
    launch_costs
    check_interop
    ;;
fake)
    fake="${FAKE_CUPTI_DIR:-}"
    if [ -z "$fake" ] || [ ! -f "$fake/libcupti.so.13" ]; then
        fake="$out/fake_cupti"
        bash "$root/tests/fake_cupti/build.sh" "$fake" > "$out/fake_build.log" 2>&1 || { cat "$out/fake_build.log"; echo "skipped: the fake CUPTI does not build here"; exit 77; }
    fi
    cupti_inc=(-isystem "$CUDA_HOME/include")
    [ -f "$CUDA_HOME/extras/CUPTI/include/cupti.h" ] && cupti_inc=(-isystem "$CUDA_HOME/extras/CUPTI/include" "${cupti_inc[@]}")
    # shellcheck disable=SC2016 # $ORIGIN-free: the rpath is the fake's directory
    if ! "$CC" -std=c11 -Wall -Wextra -Wpedantic -Werror -O1 -g -DPROF_CUPTI -I"$root" -I"$here" -I"$root/tests/fake_cupti" "${cupti_inc[@]}" \
         "$here/fake_check.c" -o "$out/fake_check" "$fake/libcupti.so.13" -Wl,-rpath,"$fake" -pthread -ldl; then
        step_fail "fake_check.c does not build"; echo "gpu-check (fake CUPTI): $passed passed, $failed failed"; exit 1
    fi
    LD_LIBRARY_PATH="$fake" timeout 300 "$out/fake_check" "$out" > "$out/fake_check.out" 2>&1
    rc=$?
    cat "$out/fake_check.out"
    count "$out/fake_check.out"
    ended_badly fake_check $rc "$out/fake_check.out"
    check_traces
    check_viewers
    echo "info: no GPU here: the checks ran on the fake CUPTI; GPU figures need a GPU (tests/gpu/run.sh --gpu)"
    ;;
esac
echo "gpu-check ($mode): $passed passed, $failed failed, $(( $(date +%s) - t_start )) s"
[ "$failed" -eq 0 ]
