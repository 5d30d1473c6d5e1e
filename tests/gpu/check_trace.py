#!/usr/bin/env python3
"""check_trace.py TRACE EXPECT - the trace checks of tests/gpu/run.sh, the
same with a GPU and with the fake CUPTI.

TRACE is a session's Chrome trace (prof_export_chrome_trace), EXPECT the
gc_write_expect file of that session. Checked, one line each with its
figure: the file is JSON; every flow start has exactly one end and the
reverse; every kernel, copy and set has the arrow of its launch (an "f" at
its pid, tid and ts); the copies and sets of EXPECT appear once each with
their bytes and direction. Exit 0 when all passed."""
import json
import sys
from collections import Counter

def main():
    trace_path, expect_path = sys.argv[1], sys.argv[2]
    failed = 0
    def result(ok, what):
        nonlocal failed
        print(("pass: " if ok else "FAIL: ") + what)
        failed += 0 if ok else 1
    try:
        with open(trace_path) as f:
            trace = json.load(f)
        with open(expect_path) as f:
            expect = json.load(f)
    except (OSError, ValueError) as e:
        result(False, "%s: not readable JSON: %s" % (trace_path, e))
        return 1
    tag = "[session %d] " % expect["session"]
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    result(isinstance(events, list) and len(events) > 0, tag + "trace %s: %d events" % (trace_path, len(events)))
    starts = Counter(e["id"] for e in events if e.get("ph") == "s")
    ends = Counter(e["id"] for e in events if e.get("ph") == "f")
    unpaired = [i for i in set(starts) | set(ends) if starts[i] != 1 or ends[i] != 1]
    result(not unpaired, tag + "flows: %d starts, %d ends, %d ids not paired one to one" % (sum(starts.values()), sum(ends.values()), len(unpaired)))
    arrows = set((e["pid"], e["tid"], e["ts"]) for e in events if e.get("ph") == "f")
    gpu = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    missing = [e["name"] for e in gpu if (e["pid"], e["tid"], e["ts"]) not in arrows]
    result(gpu and not missing, tag + "launch -> GPU arrows: %d GPU events, %d without their launch's arrow%s" %
           (len(gpu), len(missing), (" (" + ", ".join(sorted(set(missing))[:5]) + ")") if missing else ""))
    bad_time = [e["name"] for e in gpu if e["ts"] < 0 or e.get("dur", 0) < 0]
    result(not bad_time, tag + "GPU events with negative times: %d" % len(bad_time))
    for c in expect["copies"]:
        if c["kind"] == "Memset":
            hits = [e for e in gpu if e["cat"] == "gpu_memset" and e["args"].get("bytes") == c["bytes"]]
        else:
            hits = [e for e in gpu if e["cat"] == "gpu_memcpy" and e["name"].startswith("Memcpy %s " % c["kind"]) and e["args"].get("bytes") == c["bytes"]]
        result(len(hits) == 1, tag + "%s of %d bytes (scope %s): %d in the trace" % (c["kind"], c["bytes"], c["scope"], len(hits)))
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
