#!/usr/bin/env bash
# tests/suite.sh's step 1 (the tools) where the archive lacks one package:
# apt-get cannot install the list at once, so suite.sh installs the others
# one at a time and names what is still missing (ALLOW_MISSING=1 runs
# without it; otherwise the command to run). It used to stop at once with
# "apt-get failed", ALLOW_MISSING or not (clang-19 on Debian 11 or Ubuntu
# 22.04). Simulated: a PATH of this machine's commands without tcc, an
# `id` that says root and an apt-get that knows no tcc and installs nothing.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/prof-suite-deps.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
for d in /usr/local/bin /usr/bin /bin; do # (one ln a folder: a name met before stays)
    [[ -d $d ]] && ln -s -t "$tmp/bin" "$d"/* 2>/dev/null
done
rm -f "$tmp/bin/tcc" "$tmp/bin/apt-get" "$tmp/bin/id"
printf '#!/bin/sh\necho 0\n' >"$tmp/bin/id"
cat >"$tmp/bin/apt-get" <<'SH'
#!/bin/sh
echo "apt-get $*" >>"$APT_CALLS"
[ "$1" = update ] && exit 0
for a in "$@"; do
    [ "$a" = tcc ] && { echo "E: Unable to locate package tcc" >&2; exit 100; }
done
exit 0
SH
chmod +x "$tmp/bin/id" "$tmp/bin/apt-get"
fail=0
check() { if "$@"; then :; else echo "FAILED: $*"; fail=1; fi; }

APT_CALLS=$tmp/calls1 PATH=$tmp/bin ALLOW_MISSING=1 BUILD=$tmp/b1 bash "$root/tests/suite.sh" --deps >"$tmp/out1" 2>&1
rc=$?
cat "$tmp/out1"
check test "$rc" = 0
check grep -q "one at a time" "$tmp/out1"
check grep -q "could not install tcc" "$tmp/out1"
check grep -q "running without .*tcc" "$tmp/out1"
check grep -qx "apt-get install -y -q --no-install-recommends tcc" "$tmp/calls1"
check grep -qx "apt-get install -y -q --no-install-recommends ca-certificates" "$tmp/calls1"

APT_CALLS=$tmp/calls2 PATH=$tmp/bin BUILD=$tmp/b2 bash "$root/tests/suite.sh" --deps >"$tmp/out2" 2>&1
rc=$?
cat "$tmp/out2"
check test "$rc" = 1
check grep -q "make test needs: .*tcc" "$tmp/out2"
check grep -q "ALLOW_MISSING=1" "$tmp/out2"
if ((fail)); then echo "suite_deps: FAILED"; exit 1; fi
echo "suite_deps: passed"
