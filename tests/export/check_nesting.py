#!/usr/bin/env python3
"""check_nesting.py TRACE.json TRUTH: the Chrome trace's ts/dur, parsed into
doubles and added the way viewers do (DevTools, speedscope, Perfetto's JSON
importer), nest exactly where the nanosecond values nest.

TRUTH has one line per event of the list: index tid start_ns end_ns parent
(parent -1 = top level). Each "X" event is matched by its "Ev Idx".
Checked for every event:
  - ts is start_ns / 1000 written exactly (three decimals);
  - dur is (end_ns - start_ns) / 1000 exactly in three decimals, unless the
    event touches (ends where its parent ends, or where a later event of
    its thread starts): then shorter by whole ns, at most MAX_SHRINK_NS,
    or, where whole ns may leave no room (an event of at most MAX_SHRINK_NS,
    or one with a descendant that begins that close to its end), by a
    fraction of one in up to six decimals (the manual's equal sub-ns
    steps), and a child ends strictly before its parent; from 2^40 us
    (FAR_NS: where a nanosecond nears an ulp) any event's dur may be off by two ulps either
    way (its end is written as the double its end parses to); a zero-length
    event has a positive dur under 1 ns, in up to six decimals (the
    manual's "dur": 0.0005);
  - as doubles, ts >= the parent's ts and ts + dur <= the parent's ts + dur;
  - as doubles, ts + dur <= the ts of the next event of its thread that
    starts at or after its end (its successor), except between zero-length
    events at the same ns (the manual: the later is shown inside the
    earlier).
Exit status 0 when all hold."""
import json
import math
import sys
from decimal import Decimal

MAX_SHRINK_NS = 8  # deepest chain of events that end together in the test, + 1
FAR_NS = 1099511627776000  # 2^40 us in ns: prof.h's PROF__NEAR_NS, where it writes every end as its bound



def ns_of(text):
    return Decimal(text) * 1000


def got_ns(ev):
    return ns_of(ev["ts"]) + ns_of(ev["dur"])


def main():
    trace_path, truth_path = sys.argv[1], sys.argv[2]
    with open(trace_path, "rb") as f:
        raw = f.read()
    # keep the number texts: json gives floats; the texts show the decimals
    texts = {}

    def keep(s):
        return s

    doc = json.loads(raw, parse_float=keep, parse_int=keep)
    truth = {}
    with open(truth_path) as f:
        for line in f:
            i, tid, s, e, p = line.split()
            truth[int(i)] = (int(tid), int(s), int(e), int(p))
    fails = 0

    def fail(msg):
        nonlocal fails
        fails += 1
        if fails <= 20:
            print("FAIL", msg)

    got = {}
    for ev in doc["traceEvents"]:
        if ev.get("ph") != "X":
            continue
        idx = int(ev["args"]["Ev Idx"])
        got[idx] = ev
    if len(got) != len(truth):
        fail(f"{len(got)} X events, {len(truth)} in the truth")
    # touching: ends with its parent, or a later event of the thread starts at its end
    starts = {}
    for i, (tid, s, e, p) in truth.items():
        starts.setdefault((tid, s), []).append(i)
    # where whole ns may leave no room: an event of at most MAX_SHRINK_NS,
    # and the ancestors of one that begins within MAX_SHRINK_NS of their end
    # (a chain that ends together steps back 1 ns a level from there)
    no_room = set()
    for i, (tid, s, e, p) in truth.items():
        if e - s <= MAX_SHRINK_NS:
            no_room.add(i)
        while p >= 0 and p in truth and truth[p][2] - s <= MAX_SHRINK_NS:
            no_room.add(p)
            p = truth[p][3]
    ev_d = {}
    for i, (tid, s, e, p) in truth.items():
        ev = got.get(i)
        if ev is None:
            fail(f"event {i} missing")
            continue
        if int(ev["tid"]) != tid:
            fail(f"event {i}: tid {ev['tid']}, expected {tid}")
        ts_ns, dur_ns = ns_of(ev["ts"]), ns_of(ev["dur"])
        if ts_ns != s or "." not in ev["ts"] or len(ev["ts"].split(".")[1]) != 3 or "e" in ev["ts"].lower():
            fail(f"event {i}: ts {ev['ts']}, expected {Decimal(s) / 1000:.3f}")
        # touching: ends at or past its parent's written end, or where a
        # later event of its thread starts
        touch = (p >= 0 and p in got and e >= got_ns(got[p])) or any(j != i for j in starts.get((tid, e), []))
        shrink = (e - s) - dur_ns
        # a touching event ends a whole ns (one per level of a chain that
        # ends together) before; from 2^40 us, where a nanosecond nears an
        # ulp, any event's dur may be off by two ulps of its end
        far = max(abs(s), abs(e)) >= FAR_NS
        limit = Decimal(math.ceil(2 * math.ulp(abs(e) / 1000.0) * 1000)) if far else MAX_SHRINK_NS
        exponent = "e" in ev["dur"].lower()
        decimals = len(ev["dur"].split(".")[-1])
        sub_ns_ok = touch and decimals <= 6 and i in no_room
        if s == e and not far:
            if exponent or not 3 < decimals <= 6 or not 0 < dur_ns < 1:
                fail(f"event {i} [{s}, {e}]: zero-length, dur {ev['dur']}: expected a positive dur under 1 ns in up to six decimals")
        elif exponent or (not far and decimals != 3 and not sub_ns_ok):
            fail(f"event {i}: dur {ev['dur']}: three decimals (up to six for a touching event trimmed in sub-ns steps; more only from 2^40 us), no exponent")
        elif far and abs(shrink) > limit:
            fail(f"event {i} [{s}, {e}]: dur {ev['dur']}, expected {Decimal(e - s) / 1000:.3f} within two ulps")
        elif not far and touch and not 0 < shrink <= limit:
            fail(f"event {i} [{s}, {e}] (touching): dur {ev['dur']}, expected {Decimal(e - s) / 1000:.3f} shorter by more than 0 and at most {limit} ns")
        elif not far and not touch and shrink != 0:
            fail(f"event {i} [{s}, {e}] (not touching): dur {ev['dur']}, expected {Decimal(e - s) / 1000:.3f}")
        ev_d[i] = (float(ev["ts"]), float(ev["ts"]) + float(ev["dur"]))
    # parents
    for i, (tid, s, e, p) in truth.items():
        if p < 0 or i not in ev_d or p not in ev_d:
            continue
        (cs, ce), (ps, pe) = ev_d[i], ev_d[p]
        strict = max(abs(truth[p][1]), abs(truth[p][2])) < FAR_NS
        if strict and got_ns(got[i]) >= got_ns(got[p]):
            fail(f"event {i} does not end strictly before its parent {p} (written ends {got_ns(got[i])} and {got_ns(got[p])} ns): speedscope ends events of equal end in the order they began")
        if cs < ps or ce > pe:
            fail(f"event {i} [{got[i]['ts']} + {got[i]['dur']} = {ce!r}] is not inside its parent {p} [{got[p]['ts']} + {got[p]['dur']} = {pe!r}] in doubles")
    # successors: per thread, in (start, -end, depth) order, with a stack
    depth = {}

    def dep(i):
        if i not in depth:
            p = truth[i][3]
            depth[i] = 0 if p < 0 else dep(p) + 1
        return depth[i]

    sys.setrecursionlimit(10000)
    by_tid = {}
    for i, (tid, s, e, p) in truth.items():
        if i in ev_d:
            by_tid.setdefault(tid, []).append((s, -e, dep(i), i))
    pairs = 0
    for tid, lst in by_tid.items():
        lst.sort()
        stack = []
        for s, ne, _, i in lst:
            while stack and truth[stack[-1]][2] <= s:
                j = stack.pop()
                pairs += 1
                if truth[j][1] == truth[j][2] == s == -ne:
                    continue  # zero-length siblings at one ns: documented
                if ev_d[j][1] > ev_d[i][0]:
                    fail(f"event {j} (ends {truth[j][2]} ns: {got[j]['ts']} + {got[j]['dur']} = {ev_d[j][1]!r}) ends after its successor {i} starts ({s} ns: {got[i]['ts']})")
            stack.append(i)
    touching = sum(1 for i, (tid, s, e, p) in truth.items() if starts.get((tid, e)))
    print(f"check_nesting: {len(truth)} events, {touching} touching a successor, {pairs} successor pairs, {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
