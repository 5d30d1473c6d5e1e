#!/usr/bin/env bash
# Checks that real consumers load prof.h's exports: Chrome DevTools' trace engine and
# speedscope's importers (see check_trace.mjs / check_speedscope.mjs for the
# expectation formats).
#
# usage: tests/js/run.sh [TRACE.json TRACE.expect.json [STACKS STACKS.expect.json]]
#
#   TRACE.json    Chrome trace (Kineto layout), checked with the trace engine against
#                 TRACE.expect.json, and with speedscope's trace importer against that
#                 file's "speedscope" member (or frame names derived from its threads).
#   STACKS        folded stacks, checked with speedscope's collapsed-stack importer.
# Without arguments it checks the hand-written samples in samples/ and also makes
# sure that known-bad inputs in samples/bad/ are rejected.
#
# Needs node >= 18 and npm (Debian 12: apt-get install nodejs npm). Installs the
# pinned packages with `npm ci` when node_modules is missing or stale.
# Exit status 0 when every check passed, 1 otherwise.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "tests/js: node and npm are required (Debian: apt-get install -y nodejs npm)" >&2
  exit 1
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 18 ]; then
  echo "tests/js: node >= 18 required, found $(node --version)" >&2
  exit 1
fi

# (Re)install when a pinned package is missing or at another version.
installed_ok() {
  (cd "$here" && node -e '
    const fs = require("fs");
    const want = JSON.parse(fs.readFileSync("package.json", "utf8")).dependencies;
    for (const [name, version] of Object.entries(want)) {
      const p = `node_modules/${name}/package.json`;
      if (!fs.existsSync(p) || JSON.parse(fs.readFileSync(p, "utf8")).version !== version) process.exit(1);
    }') 2>/dev/null
}
if ! installed_ok; then
  echo "tests/js: npm ci"
  if ! (cd "$here" && npm ci --no-audit --no-fund --prefer-offline); then
    echo "tests/js: npm ci failed" >&2
    exit 1
  fi
fi

passed=0
failed=0
# expect_rc RC CHECK ARGS...: run a checker, count it as passed when it exits with RC.
expect_rc() {
  local want=$1
  shift
  local rc=0
  echo "--- node $*"
  (cd "$here" && node "$@") || rc=$?
  if [ "$rc" -eq "$want" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "tests/js: FAILED (exit $rc, wanted $want): node $*"
  fi
}

abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }

if [ $# -eq 0 ]; then
  trace=$here/samples/trace.json
  trace_expect=$here/samples/trace.expect.json
  stacks=$here/samples/profile.stacks
  stacks_expect=$here/samples/profile.stacks.expect.json
elif [ $# -eq 2 ] || [ $# -eq 4 ]; then
  trace=$(abs "$1")
  trace_expect=$(abs "$2")
  stacks=${3:+$(abs "$3")}
  stacks_expect=${4:+$(abs "$4")}
else
  echo "usage: $0 [TRACE.json TRACE.expect.json [STACKS STACKS.expect.json]]" >&2
  exit 1
fi

expect_rc 0 check_trace.mjs "$trace" "$trace_expect"
expect_rc 0 check_speedscope.mjs "$trace" "$trace_expect"
if [ -n "$stacks" ]; then
  expect_rc 0 check_speedscope.mjs "$stacks" "$stacks_expect"
fi

if [ $# -eq 0 ]; then
  # Negative controls: each must be rejected (exit 1, not a crash or usage error).
  bad=$here/samples/bad
  echo "--- negative controls: the checks below must each report a mismatch (exit 1)"
  expect_rc 1 check_trace.mjs "$here/samples/trace.json" "$bad/trace.wrong.expect.json"
  expect_rc 1 check_trace.mjs "$bad/child-overruns-parent.json" "$trace_expect"
  expect_rc 1 check_speedscope.mjs "$bad/child-overruns-parent.json" "$trace_expect"
  expect_rc 1 check_speedscope.mjs "$stacks" "$bad/profile.stacks.wrong.expect.json"
fi

echo "tests/js: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
