#!/usr/bin/env python3
"""check_hostile.py EXPECT.json: every string field of prof.h's formats
against the raw bytes the program gave (test_export_io's hostile lists).

EXPECT.json (written by the test) holds the raw bytes in hex:
  {"trace": F.json, "stacks": F.stacks (merged, or null),
   "events": [{"name": H, "overload": H, "stack": [H, ...]}],
   "meta": [[KEY H, VALUE H]], "threads": [H, ...], "marks": [H], "counters": [H]}
Each is compared with the rule the manual gives: valid UTF-8 kept, one
U+FFFD per invalid byte; in folded stacks the frame separators (space, ';',
control bytes, C1, U+2028/9 and the other Unicode white space) become '_' and an empty frame "_".
  - the JSON trace parses with Python's strict json (no raw control byte,
    no bad escape) and has, per event, an "X" event named as given whose
    "Overload name" and "Call stack" (each frame followed by ';', innermost
    first) decode to the given bytes; top-level metadata keys and values;
    thread_name metadata; marks ("I") and counters ("C") by name;
  - the folded stacks have each event's stack, outermost first.
Perfetto and pprof are compared with these two files by check_perfetto.py
and check_pprof.py. Exit status 0 when all hold."""
import json
import sys

fails = 0


def fail(msg):
    global fails
    fails += 1
    if fails <= 30:
        print("FAIL", msg[:400])


def clean(b):
    # prof.h writes what a standard decoder reads: one U+FFFD per maximal
    # invalid subpart (prof__utf8_bad)
    return b.decode("utf-8", errors="replace")


def fold(s):
    # ' ', ';', C0, DEL, C1 and Unicode's white space (flamegraph.pl reads UTF-8: Perl's \s)
    return "".join("_" if ch in " ;" or ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f or ch in "\u00a0\u1680\u2028\u2029\u202f\u205f\u3000"
                   or 0x2000 <= ord(ch) <= 0x200a else ch for ch in s) or "_"


def h(x):
    return bytes.fromhex(x)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        ex = json.load(f)
    with open(ex["trace"], "rb") as f:
        raw = f.read()
    try:
        tr = json.loads(raw.decode("utf-8"))  # strict: a raw control byte or bad escape fails
    except (UnicodeDecodeError, ValueError) as e:
        fail(f"{ex['trace']}: not strict JSON: {e}")
        return 1
    evs = tr.get("traceEvents", [])
    by_name = {}
    for e in evs:
        if e.get("ph") == "X":
            by_name.setdefault(e.get("name"), []).append(e)
    checked = 0
    for want in ex["events"]:
        name = clean(h(want["name"]))
        got = by_name.get(name)
        if not got:
            fail(f"no X event named {name[:80]!r}")
            continue
        stack = "".join(clean(h(s)) + ";" for s in want.get("stack", []))
        overload = clean(h(want["overload"])) if want.get("overload") is not None else None
        ok = False
        for e in got:
            a = e.get("args", {})
            if (not stack or a.get("Call stack") == stack) and (overload is None or a.get("Overload name", "") == overload):
                ok = True
        if not ok:
            a = got[0].get("args", {})
            fail(f"event {name[:60]!r}: Call stack {a.get('Call stack', '')[:120]!r} / Overload name {a.get('Overload name')!r}, "
                 f"expected {stack[:120]!r} / {overload!r}")
        checked += 1
    for k, v in ex.get("meta", []):
        key, val = clean(h(k)), clean(h(v))
        if tr.get(key) != val:
            fail(f"metadata {key!r}: {tr.get(key)!r}, expected {val!r}")
        checked += 1
    tnames = {e.get("args", {}).get("name") for e in evs if e.get("ph") == "M" and e.get("name") == "thread_name"}
    for t in ex.get("threads", []):
        if clean(h(t)) not in tnames:
            fail(f"no thread named {clean(h(t))!r} (names: {sorted(x for x in tnames if x)[:8]})")
        checked += 1
    for kind, ph in (("marks", "I"), ("counters", "C")):
        names = {e.get("name") for e in evs if e.get("ph") == ph}
        for m in ex.get(kind, []):
            if clean(h(m)) not in names:
                fail(f"no {ph} event named {clean(h(m))!r}")
            checked += 1
    if ex.get("stacks"):
        with open(ex["stacks"], "rb") as f:
            lines = f.read().decode("utf-8").split("\n")
        got = {ln.rsplit(" ", 1)[0] for ln in lines if ln}
        for want in ex["events"]:
            if not want.get("stack"):
                continue
            s = ";".join(fold(clean(h(x))) for x in reversed(want["stack"]))
            if s not in got:
                fail(f"{ex['stacks']}: no line {s[:160]!r}")
            checked += 1
    print(f"check_hostile: {checked} strings checked, {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
