#!/usr/bin/env bash
# The README's first command, `make demo`, as a newcomer runs it: in a copy
# of the repository's Makefile, prof.h and examples/ (the demo writes its
# files into the working directory), with the default BUILD and with an
# absolute one (`make demo BUILD=/abs/dir` ran ./$(BUILD)/demo, which is
# ".//abs/dir/demo": no such file). Each run must print the table and
# write the three files it names, each of them parsed.
set -uo pipefail
for t in make python3 "${CC:-cc}"; do
    command -v "$t" >/dev/null 2>&1 || { echo "$t not found: skipping"; exit 77; }
done
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/prof-make-demo.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if "$@"; then :; else echo "FAILED: $*"; fail=1; fi; }

# the demo's output and files in directory $1
demo_ok() {
    local d=$1 out=$1/out.txt
    grep -q '^Self CPU time total: ' "$out" || { echo "no table in $out"; return 1; }
    grep -q '^wrote trace.json (' "$out" || { echo "no 'wrote' line in $out"; return 1; }
    python3 - "$d" <<'PY' || return 1
import json, sys
d = sys.argv[1]
t = json.load(open(d + "/trace.json"))
xs = [e for e in t["traceEvents"] if e.get("ph") == "X"]
assert len(xs) > 100, len(xs)
assert {"fill", "train_step", "matmul"} <= {e["name"] for e in xs}
pf = open(d + "/trace.pftrace", "rb").read()
assert len(pf) > 1000 and pf[0] == 0x0a, "not a Trace of packets"
st = open(d + "/profile.stacks").read().splitlines()
assert st and all(l.rsplit(" ", 1)[1].isdigit() for l in st), "folded stacks"
assert any(l.startswith("train_step_(demo.c:") and ";forward_(demo.c:" in l for l in st)
PY
}

for case in default absolute; do
    w=$tmp/$case
    mkdir -p "$w"
    cp "$root/Makefile" "$root/prof.h" "$w/" && cp -r "$root/examples" "$w/" || exit 1
    if [[ $case == default ]]; then
        args=()
    else
        args=(BUILD="$tmp/abs-build")
    fi
    if (cd "$w" && make demo CC="${CC:-cc}" "${args[@]}" >out.txt 2>&1); then
        check demo_ok "$w"
    else
        echo "FAILED: make demo ${args[*]}"; tail -n 5 "$w/out.txt"; fail=1
    fi
done
[[ -x $tmp/abs-build/demo ]] || { echo "FAILED: no demo in the absolute BUILD"; fail=1; }
[[ -x $tmp/default/build/demo ]] || { echo "FAILED: no demo in build/"; fail=1; }
[[ $fail == 0 ]] && echo "make demo: default and absolute BUILD ok"
exit $fail
