#!/usr/bin/env bash
# prof.h with PROF_CUPTI builds against CUDA 12 headers as well as CUDA 13's.
#
#   tests/gpu/cuda12_headers.sh        (CUDA_HOME, default /usr/local/cuda: a CUDA 13 toolkit)
#
# No CUDA 12 toolkit is needed: a CUDA 12-shaped header set is made from the
# CUDA 13 one by what 13.0 changed for the records prof.h reads: the
# versioned API number (CUPTI_API_VERSION 28, CUDA 12.9 Update 1) and the
# record versions new in 13.0 (Kernel10, Memcpy6, Memory4,
# Synchronization2, Device5), renamed away so that any use of them fails.
# Checked: prof.h compiles clean (C11, C++17, -Wall -Wextra -Wpedantic
# -Werror) against both sets; headers older than CUDA 12.0 are a clear
# #error; and every field prof.h reads has the same offset in the CUDA 12
# record as in the CUDA 13 one (the 13 headers keep the old records).
# Exit 0 = all passed, 77 = skipped (no CUDA headers).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
CC="${CC:-gcc}"
CXX="${CXX:-g++}"
inc="$CUDA_HOME/include"
[ -f "$inc/cupti_activity.h" ] || inc="$CUDA_HOME/extras/CUPTI/include"
if [ ! -f "$inc/cupti_activity.h" ] || [ ! -f "$CUDA_HOME/include/cuda.h" ]; then
    echo "skipped: no CUDA headers under $CUDA_HOME"; exit 77
fi
if ! grep -q "CUpti_ActivityKernel10" "$inc/cupti_activity.h"; then
    echo "skipped: $inc is not a CUDA 13 header set"; exit 77
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "pass: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

mkdir -p "$tmp/cuda12"
cp "$inc"/cupti*.h "$tmp/cuda12/"
sed -i 's/^#define CUPTI_API_VERSION .*/#define CUPTI_API_VERSION 28/' "$tmp/cuda12/cupti_version.h"
for t in Kernel10 Memcpy6 Memory4 Synchronization2 Device5; do
    sed -i "s/\bCUpti_Activity$t\b/prof_test_not_in_cuda12_$t/g" "$tmp"/cuda12/cupti*.h
done

cat > "$tmp/use.c" <<'C'
#define PROF_IMPLEMENTATION
#include "prof.h"
int main(void) {
    prof_config c;
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.cuda_flags = PROF_CUDA_SYNC;
    return c.cuda_flags == PROF_CUDA_SYNC ? 0 : 1;
}
C
cp "$tmp/use.c" "$tmp/use.cpp"
warn=(-Wall -Wextra -Wpedantic -Werror)
for set in cuda12 cuda13; do
    if [ $set = cuda12 ]; then hdr=(-isystem "$tmp/cuda12" -isystem "$CUDA_HOME/include"); else hdr=(-isystem "$inc" -isystem "$CUDA_HOME/include"); fi
    if "$CC" -std=c11 "${warn[@]}" -DPROF_CUPTI -I"$root" "${hdr[@]}" -c "$tmp/use.c" -o "$tmp/use_$set.o" 2> "$tmp/err"; then
        ok "C11 against $set headers"
    else bad "C11 against $set headers"; cat "$tmp/err"; fi
    if "$CXX" -std=c++17 "${warn[@]}" -DPROF_CUPTI -I"$root" "${hdr[@]}" -c "$tmp/use.cpp" -o "$tmp/usexx_$set.o" 2> "$tmp/err"; then
        ok "C++17 against $set headers"
    else bad "C++17 against $set headers"; cat "$tmp/err"; fi
done

# CUDA 11.8 headers (API 18): refused with a message that says why
sed -i 's/^#define CUPTI_API_VERSION .*/#define CUPTI_API_VERSION 18/' "$tmp/cuda12/cupti_version.h"
if "$CC" -std=c11 -DPROF_CUPTI -I"$root" -isystem "$tmp/cuda12" -isystem "$CUDA_HOME/include" -c "$tmp/use.c" -o "$tmp/old.o" 2> "$tmp/err"; then
    bad "CUDA 11.8 headers were accepted"
elif grep -q "CUDA 12.0 or newer" "$tmp/err"; then ok "CUDA 11.8 headers: #error naming CUDA 12.0"
else bad "CUDA 11.8 headers: no clear #error"; cat "$tmp/err"; fi

# the fields prof.h reads sit where the CUDA 13 records have them
cat > "$tmp/offsets.c" <<'C'
#include <stddef.h>
#include <cupti.h>
#define SAME(a, b, f) _Static_assert(offsetof(a, f) == offsetof(b, f), #a "." #f " moved in " #b)
#define K(f) SAME(CUpti_ActivityKernel9, CUpti_ActivityKernel10, f)
K(kind); K(start); K(end); K(deviceId); K(contextId); K(streamId); K(correlationId); K(name); K(gridX); K(gridY); K(gridZ);
K(blockX); K(blockY); K(blockZ); K(registersPerThread); K(staticSharedMemory); K(dynamicSharedMemory); K(queued); K(graphId); K(graphNodeId);
#define M(f) SAME(CUpti_ActivityMemcpy5, CUpti_ActivityMemcpy6, f)
M(copyKind); M(srcKind); M(dstKind); M(bytes); M(start); M(end); M(deviceId); M(contextId); M(streamId); M(correlationId);
M(runtimeCorrelationId); M(graphId); M(graphNodeId);
#define Y(f) SAME(CUpti_ActivitySynchronization, CUpti_ActivitySynchronization2, f)
Y(type); Y(start); Y(end); Y(correlationId); Y(contextId); Y(streamId);
#define R(f) SAME(CUpti_ActivityMemory3, CUpti_ActivityMemory4, f)
R(memoryOperationType); R(memoryKind); R(correlationId); R(address); R(bytes); R(timestamp); R(deviceId);
#define D(f) SAME(CUpti_ActivityDevice4, CUpti_ActivityDevice5, f)
D(id); D(name); D(globalMemorySize); D(computeCapabilityMajor); D(computeCapabilityMinor); D(maxThreadsPerBlock);
D(maxWarpsPerMultiprocessor); D(numThreadsPerWarp); D(maxRegistersPerBlock); D(maxRegistersPerMultiprocessor);
D(maxSharedMemoryPerBlock); D(maxSharedMemoryPerMultiprocessor); D(numMultiprocessors);
int main(void) { return 0; }
C
if "$CC" -std=c11 -isystem "$inc" -isystem "$CUDA_HOME/include" -c "$tmp/offsets.c" -o "$tmp/offsets.o" 2> "$tmp/err"; then
    ok "CUDA 12 and 13 records: the fields prof.h reads at the same offsets"
else bad "record offsets differ"; cat "$tmp/err"; fi
exit $fail
