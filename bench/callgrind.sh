#!/bin/sh
# bench/callgrind.sh - instructions per scope, counted by callgrind, so the
# figures repeat exactly from run to run (unlike times on a shared machine).
# Runs `overhead --callgrind N` (the loops of bench/overhead.c once each;
# the recording session is the process's first, so block growth is in it,
# user-space instructions only) and prints per-iteration instruction counts:
#   callgrind_floor   two rdtsc + one 24-byte store
#   callgrind_on      PROF_SCOPE, recording on
#   callgrind_off     PROF_SCOPE, no session (8 per loop iteration)
#   callgrind_plain   the same loop without the scopes
#   callgrind_dyn     PROF_SCOPE_DYN with an 11-byte name, recording on
#   callgrind_floor_dyn  two rdtsc, strlen and copy of that name behind a
#                     24-byte header, and a 24-byte end record
# Usage: sh bench/callgrind.sh [path/to/overhead] [N]   (from the repo root)
set -u
bin=${1:-build/bench-O2/overhead}
n=${2:-1000000}
if ! command -v valgrind >/dev/null 2>&1 || ! command -v callgrind_annotate >/dev/null 2>&1; then
    echo "# valgrind not installed: callgrind figures skipped"
    exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/prof-callgrind.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
if ! valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" "$bin" --callgrind "$n" > "$dir/stdout" 2> "$dir/stderr"; then
    echo "# callgrind run failed:"
    sed 's/^/#   /' "$dir/stderr" | tail -5
    exit 1
fi
callgrind_annotate --inclusive=yes --threshold=100 "$dir/cg.out" > "$dir/ann" 2>/dev/null
# prof.h falls back to clock_gettime where it does not trust the TSC: say so
awk -v n="$n" '/clock_gettime/ { c = $1; gsub(",", "", c); if (c + 0 >= n) found = 1 } END { exit !found }' "$dir/ann" &&
    echo "# note: prof.h read the clock through clock_gettime under valgrind; counts include it"
ir() { awk -v f="$1" '$0 ~ ":"f" " { gsub(",", "", $1); print $1; exit }' "$dir/ann"; }
floor=$(ir loop_floor); on=$(ir loop_on); off=$(ir loop_off8); plain=$(ir loop_plain8)
dyn=$(ir loop_dyn); floor_dyn=$(ir loop_floor_dyn)
if [ -z "$floor" ] || [ -z "$on" ] || [ -z "$off" ] || [ -z "$plain" ]; then
    echo "# callgrind: loop functions not found in the profile"
    exit 1
fi
awk -v n="$n" -v fl="$floor" -v on="$on" -v off="$off" -v pl="$plain" 'BEGIN {
    printf "# %d scopes each; inclusive instruction counts per scope (per iteration for the floor)\n", n
    printf "callgrind_floor %.2f instr\n", fl / n
    printf "callgrind_on %.2f instr\n", on / n
    printf "callgrind_on_ratio %.3f x\n", on / fl
    printf "callgrind_off %.2f instr\n", off / n
    printf "callgrind_plain %.2f instr\n", pl / n
    printf "callgrind_off_overhead %.2f instr\n", (off - pl) / n
}'
# PROF_SCOPE_DYN against its floor (strlen and copy of the same name, the
# same records): absent from an older overhead binary
if [ -n "$dyn" ] && [ -n "$floor_dyn" ]; then
    awk -v n="$n" -v d="$dyn" -v fd="$floor_dyn" 'BEGIN {
        printf "callgrind_floor_dyn %.2f instr\n", fd / n
        printf "callgrind_dyn %.2f instr\n", d / n
        printf "callgrind_dyn_ratio %.3f x\n", d / fd
    }'
fi
