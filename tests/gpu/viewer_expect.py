#!/usr/bin/env python3
"""viewer_expect.py TRACE OUT - expectations for tests/js's checkers derived
from a Chrome trace itself: on every lane, each complete ("X") event by
name and count. check_trace.mjs then fails unless Chrome DevTools' trace
engine keeps every one of them in its call tree, and check_speedscope.mjs
unless speedscope imports the lanes and names without a warning."""
import json
import sys


def main():
    with open(sys.argv[1]) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    threads = {}  # keyed "pid:tid": a tid may be in several pids (GPU lanes)
    for e in events:
        if e.get("ph") != "X":
            continue
        key = "%s:%s" % (e["pid"], e["tid"])
        scopes = threads.setdefault(key, {"scopes": {}})["scopes"]
        scopes[e["name"]] = scopes.get(e["name"], 0) + 1
    with open(sys.argv[2], "w") as f:
        json.dump({"threads": threads, "exact_threads": False}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
