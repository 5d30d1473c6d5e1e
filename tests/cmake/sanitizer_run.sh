#!/usr/bin/env bash
# Run a sanitizer-instrumented test program: sanitizer_run.sh PROGRAM [ARGS...]
#
# Older sanitizer runtimes (gcc 12 / clang 14) can fail to start on kernels
# with large mmap ASLR entropy (vm.mmap_rnd_bits > 28): TSan dies with
# "unexpected memory mapping", ASan with an early DEADLYSIGNAL. When the
# runtime fails like that, rerun once with ASLR off (setarch -R). If that is
# not permitted either (container without personality(2)), exit 77 (skip).
set -uo pipefail

log=$(mktemp "${TMPDIR:-/tmp}/prof-san.XXXXXX")
trap 'rm -f "$log"' EXIT

"$@" >"$log" 2>&1
rc=$?
cat "$log"
[[ $rc -eq 0 ]] && exit 0

startup_failure='unexpected memory mapping|failed to allocate|Shadow memory range interleaves|ThreadSanitizer: .*(mmap|CHECK failed)|ASan shadow was supposed to be located|AddressSanitizer:DEADLYSIGNAL'
if ! grep -Eq "$startup_failure" "$log"; then
    exit "$rc"
fi

echo "sanitizer_run.sh: sanitizer runtime failed to start (rc=$rc); retrying with ASLR off" >&2
if ! setarch "$(uname -m)" -R true 2>/dev/null; then
    echo "sanitizer_run.sh: setarch -R not permitted here; skipping" >&2
    exit 77
fi
exec setarch "$(uname -m)" -R "$@"
