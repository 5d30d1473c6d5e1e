#!/usr/bin/env python3
"""check_export.py DIR - validates the files tests/test_export.c exported into DIR.

Python 3 standard library only. Exit status 0 when every check passed, 1 when
one failed, 2 on a usage error.

Every `*.expect.json` in DIR that has a "prof_check" member describes one
exported file (test_export.c writes them next to the outputs):

  {"prof_check": {"kind": "trace" | "stacks" | "timeline", "file": "NAME", ...}}

An expectations file may also carry the members of tests/js/check_trace.mjs /
check_speedscope.mjs (the consumers ignore "prof_check", this script ignores
theirs), so one file serves both.

Byte strings (names, metadata, stack frames) travel as "spec"s, because the
interesting ones are not valid UTF-8: either a hex string of the raw bytes, or
{"rep_hex": HEX, "times": N} for HEX repeated N times (1 MB names).

What prof.h must write for a byte string, and what this script compares with:

  pj(b)     the decoded JSON string: exactly bytes.decode('utf-8',
            errors='replace'). Valid UTF-8 passes through unchanged; each
            maximal invalid subpart becomes ONE U+FFFD (Unicode's practice,
            also the WHATWG TextDecoder's): a sequence cut short ("E2 82"
            before ASCII or at the end) is one, a byte that can never start
            or continue one (80..BF alone, C0, C1, F5..FF) is one, and so is
            the first byte of an overlong or surrogate form (C0 AF is two,
            ED A0 80 three). That is prof.h's rule (prof__utf8_bad).
  frame(b)  one frame of a folded stack: pj(b) with ' ', ';', every control
            character (U+0000..U+001F, U+007F) and the JavaScript line
            terminators U+2028 / U+2029 replaced by '_'; an empty frame is
            written as "_". U+2028/U+2029 are valid UTF-8, but speedscope's
            /^(.*) (\\d+)$/m does not let '.' match them, so a frame holding
            one is silently cut (the frame "a<U+2028>b" is imported as "b").

Checks per kind (each only when its member is present):

trace     strict JSON (UTF-8, no NaN/Infinity, no control characters in
          strings, no duplicate keys); top-level keys and their order; ts and
          dur written as microseconds with exactly three decimals; counts of
          events per "ph"; async ranges as a "b" (where their "X" would be,
          args as an "X"'s) and an "e", cat "blink.user_timing", the same
          "0x..." id, name, pid and tid, e.ts - b.ts == end_ns - start_ns;
          per "X" event (and "b"), in file order: name, cat, pid, tid,
          ts == start_ns / 1000 exactly, dur == (end_ns - start_ns) / 1000
          minus at most MAX_SHRINK_NS (prof.h may shorten a child by a few ns
          so that it still ends inside its parent once parsed into doubles;
          past 2^53 ns, two ulps of the end in microseconds), args (exactly
          the expected keys); nesting: for every event its parent rebuilt
          from ts/dur in doubles (the way a viewer does) equals the expected
          parent, and lies inside it; marks, counters, [memory] instants
          (args, running "Total Allocated" per device), thread_name /
          thread_sort_index for every lane (pid, tid) that has events (CPU
          threads in the process's pid, device streams in the device's),
          process metadata, user metadata values, distributedInfo and
          `"rank": N` literally in the raw text, traceName,
          baseTimeNanoseconds.
stacks    strict UTF-8; every line matches speedscope's ^(.*) (\\d+)$ with
          JavaScript's meaning of '.'; frames non-empty, without ' ', ';',
          control characters or U+2028/U+2029; the lines (frames outermost
          first, value) equal the expected ones in order; merged files: each
          stack's expected nanoseconds summed, then whole microseconds (none
          at 0), and within the unmerged file's sum per stack plus under 1 us
          per call.
timeline  [times, sizes]: len(times) == len(sizes); every sizes entry has
          one value per category; values as expected; times strictly
          increasing and equal to the distinct ts of the trace's [memory]
          instants for that device.

Also: every *.json in DIR parses strictly, every *.json / *.stacks output is
covered by an expectation, and no temporary file (name containing ".tmp") is
left in DIR.

Members of "prof_check" (S = a spec, all optional unless said):

trace     file, kind; keys: [S] top-level keys in order; base_ns, or
          base_ns_min/base_ns_max; trace_name; pid (the process's);
          process_name: S; rank, world_size; metadata: [{key: S, value: S} |
          {key: S, json: TEXT}]; counts: {ph: n}; events: [{ev_idx, name: S,
          cat, tid, pid (device events), start_ns, end_ns, parent (index in
          events, -1 none), async, shapes: TEXT, stack: [S] (innermost
          first), overload: S, args: {key: value} (beyond External id / Ev
          Idx / Input Dims / Call stack / Overload name)}]; marks, counters:
          [{name: S, tid, within: S (a uniquely named event containing it),
          value (counters: float.hex text, null for NaN/inf)}]; memory:
          [{addr, bytes, tid, device_type, device_id, category: S|null,
          within: S}]; threads: [{tid, pid (default: the process's), name:
          S | null ("thread <tid>"), trunc (a bounded prefix is enough),
          any_name}].
stacks    file, kind, lines: [{frames: [S] outermost first, value}];
          merged, unmerged_file.
timeline  file, kind, ncat, sizes, trace (a trace file checked here),
          device_type, device_id.
"""
import json
import math
import os
import re
import sys
from decimal import Decimal

MAX_SHRINK_NS = 16

failures = []
notes = []
passed = 0


def ok():
    global passed
    passed += 1


def fail(where, msg):
    failures.append(f"{where}: {msg}")


def check(cond, where, msg):
    if cond:
        ok()
    else:
        fail(where, msg)
    return cond


def short(s, n=120):
    r = repr(s)
    return r if len(r) <= n else r[: n - 20] + "...(" + str(len(s)) + " chars)..." + r[-12:]


# ----- strict JSON --------------------------------------------------------------

class Num(float):
    """A JSON number with a fraction or exponent, keeping its literal text."""

    def __new__(cls, text):
        o = float.__new__(cls, text)
        o.text = text
        return o


class Int(int):
    """A JSON integer, keeping its literal text (for the sign of -0)."""

    def __new__(cls, text):
        o = int.__new__(cls, text)
        o.text = text
        return o


def _no_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def _pairs(kv):
    d = {}
    for k, v in kv:
        if k in d:
            raise ValueError(f"duplicate key {k!r}")
        d[k] = v
    return d


def load_strict(path):
    """(raw bytes, text, value) or raises ValueError with the reason."""
    with open(path, "rb") as f:
        raw = f.read()
    if b"\x7f" in raw:  # valid JSON, but trace_processor's importer fails the file on it in a top-level value
        raise ValueError("a raw DEL byte at offset %d (prof.h escapes it)" % raw.index(b"\x7f"))
    try:
        text = raw.decode("utf-8")  # strict: invalid UTF-8 (surrogates too) raises
    except UnicodeDecodeError as e:
        raise ValueError(f"not valid UTF-8: {e}")
    try:
        value = json.loads(text, parse_float=Num, parse_int=Int, parse_constant=_no_constant, object_pairs_hook=_pairs)
    except ValueError as e:
        raise ValueError(f"not valid JSON: {e}")
    return raw, text, value


# ----- what prof.h writes for a byte string --------------------------------------

def spec_bytes(s):
    if s is None:
        return None
    if isinstance(s, str):
        return bytes.fromhex(s)
    return bytes.fromhex(s["rep_hex"]) * s["times"]


_pj_cache = {}


def pj(b):
    """The string prof.h's JSON writer must produce for the bytes b."""
    if b is None:
        return None
    s = _pj_cache.get(b)
    if s is not None:
        return s
    s = b.decode("utf-8", errors="replace")
    _pj_cache[b] = s
    return s


# (Unicode's white space past C1 too: flamegraph.pl, reading UTF-8, splits lines at Perl's \s)
_UWS = "\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_FRAME_BAD = re.compile("[\x00-\x1f\x7f-\x9f ;" + _UWS + "]")


def frame(b):
    s = _FRAME_BAD.sub("_", pj(b))
    return s if s else "_"


# ----- helpers ---------------------------------------------------------------------

_US3 = re.compile(r"-?[0-9]+\.[0-9]{3}")


def us_ns(where, v, what):
    """ns from a microsecond value written with three decimals, or None."""
    if not isinstance(v, Num) or not _US3.fullmatch(v.text):
        fail(where, f"{what} is {v!r} ({getattr(v, 'text', type(v).__name__)}), expected microseconds with exactly three decimals")
        return None
    ok()
    return int(Decimal(v.text) * 1000)


_US_FIT = re.compile(r"-?[0-9]+\.[0-9]{3,}")


def dur_ns(where, v, ts_ns):
    """ns (a Decimal) from a dur: three decimals, or, past 2^50 ns from the
    base (where prof.h writes each end as the double it parses to), more."""
    if ts_ns is not None and abs(ts_ns) >= 2**50 and isinstance(v, Num) and _US_FIT.fullmatch(v.text):
        ok()
        return Decimal(v.text) * 1000
    return us_ns(where, v, "dur")


def max_shrink_ns(end_ns):
    """How much prof.h may shorten a child: MAX_SHRINK_NS, or two units in the
    last place of the end time in microseconds as a double when that is more
    (past 2^53 ns a double cannot tell every ns apart)."""
    return max(MAX_SHRINK_NS, math.ceil(2 * math.ulp(abs(end_ns) / 1000.0) * 1000))


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


# ----- trace -----------------------------------------------------------------------

PH_M_NAMES = {"process_name", "process_labels", "process_sort_index", "thread_name", "thread_sort_index"}


def check_trace(d, exp, where):
    path = os.path.join(d, exp["file"])
    where = f"{where} -> {exp['file']}"
    try:
        raw, text, tr = load_strict(path)
    except (OSError, ValueError) as e:
        fail(where, str(e))
        return None
    ok()
    if not check(isinstance(tr, dict), where, "top level is not an object"):
        return None

    # top-level keys, in order
    if "keys" in exp:
        want = [pj(spec_bytes(k)) for k in exp["keys"]]
        check(list(tr.keys()) == want, where, f"top-level keys {short(list(tr.keys()), 400)}, expected {short(want, 400)}")
    check(tr.get("schemaVersion") == 1 and is_int(tr.get("schemaVersion")), where, f"schemaVersion {tr.get('schemaVersion')!r}")
    check(isinstance(tr.get("deviceProperties"), list), where, "deviceProperties is not a list")
    check(tr.get("displayTimeUnit") == "ms", where, f"displayTimeUnit {tr.get('displayTimeUnit')!r}")
    base = tr.get("baseTimeNanoseconds")
    if check(is_int(base), where, f"baseTimeNanoseconds {base!r} is not an integer"):
        if "base_ns" in exp:
            check(base == exp["base_ns"], where, f"baseTimeNanoseconds {base}, expected {exp['base_ns']}")
        if "base_ns_min" in exp:
            check(exp["base_ns_min"] <= base <= exp["base_ns_max"], where,
                  f"baseTimeNanoseconds {base} not within [{exp['base_ns_min']}, {exp['base_ns_max']}] (wall clock around prof_start)")
    if "trace_name" in exp:
        check(tr.get("traceName") == exp["trace_name"], where, f"traceName {tr.get('traceName')!r}, expected {exp['trace_name']!r}")

    # user metadata
    for m in exp.get("metadata", []):
        key = pj(spec_bytes(m["key"]))
        if not check(key in tr, where, f"metadata key {short(key)} missing"):
            continue
        if "json" in m:
            want = json.loads(m["json"])
            check(tr[key] == want, where, f"metadata {short(key)} = {short(tr[key])}, expected {short(want)}")
        else:
            want = pj(spec_bytes(m["value"]))
            check(tr[key] == want, where, f"metadata {short(key)} = {short(tr[key])}, expected {short(want)}")

    # distributedInfo
    if "rank" in exp:
        di = tr.get("distributedInfo")
        if check(isinstance(di, dict), where, "distributedInfo missing"):
            check(di.get("rank") == exp["rank"], where, f"distributedInfo.rank {di.get('rank')!r}, expected {exp['rank']}")
            if "world_size" in exp:
                check(di.get("world_size") == exp["world_size"], where, f"distributedInfo.world_size {di.get('world_size')!r}, expected {exp['world_size']}")
        lit = f'"rank": {exp["rank"]}'
        check(lit in text, where, f"{lit!r} not literally in the raw text")
    elif "keys" in exp:
        check("distributedInfo" not in tr, where, "distributedInfo present without with_node_id")

    evs = tr.get("traceEvents")
    if not check(isinstance(evs, list), where, "traceEvents is not a list"):
        return None

    # structure of every event
    counts = {}
    xs, marks, counters, mems, metas = [], [], [], [], []
    opened = {}  # async ranges begun: (cat, id) -> the "b"
    flows = {}   # (cat, id) -> its "s" and "f"
    for k, e in enumerate(evs):
        w = f"{where} traceEvents[{k}]"
        if not isinstance(e, dict):
            fail(w, f"not an object: {short(e)}")
            continue
        ph = e.get("ph")
        counts[ph] = counts.get(ph, 0) + 1
        bad = False
        for field in ("name",):
            if not isinstance(e.get(field), str):
                fail(w, f"{field} is {short(e.get(field))}")
                bad = True
        for field in ("pid", "tid"):
            if not is_int(e.get(field)):
                fail(w, f"{field} is {e.get(field)!r}, expected an integer")
                bad = True
        if bad:
            continue
        e["_ts_ns"] = us_ns(w, e.get("ts"), "ts")
        if ph == "X":
            e["_dur_ns"] = dur_ns(w, e.get("dur"), e["_ts_ns"])
            check(e.get("cat") in ("user_annotation", "cpu_op", "kernel"), w, f"cat {e.get('cat')!r}")
            check(isinstance(e.get("args"), dict), w, "args is not an object")
            if e["_dur_ns"] is not None:
                check(e["_dur_ns"] >= 0, w, f"negative dur {e['dur'].text}")
            xs.append(e)
        elif ph in ("b", "e"):
            # an async range: a "b" (args as an "X" would have) and an "e"
            # with the same cat and id ("0x..."), name, pid and tid; the
            # "b" stands where the range's "X" was, its dur from the "e"
            check(e.get("cat") == "blink.user_timing", w, f"async cat {e.get('cat')!r}, expected \"blink.user_timing\"")
            aid = e.get("id")
            check(isinstance(aid, str) and re.fullmatch(r"0x[0-9a-f]+", aid) is not None, w, f"async id {aid!r}, expected a \"0x...\" string")
            key = (e.get("cat"), aid if isinstance(aid, str) else repr(aid))
            if ph == "b":
                check(isinstance(e.get("args"), dict), w, "args is not an object")
                check(key not in opened, w, f"async id {aid!r} begun again before its \"e\"")
                opened[key] = e
                e["_async"] = True
                xs.append(e)
            else:
                check("args" not in e and "dur" not in e, w, "an async \"e\" with args or dur")
                b = opened.pop(key, None)
                if check(b is not None, w, f"async \"e\" without its \"b\" (id {aid!r})"):
                    check((b["name"], b["pid"], b["tid"]) == (e["name"], e["pid"], e["tid"]), w,
                          f"async \"e\" {short(e['name'], 60)} pid {e['pid']} tid {e['tid']} does not match its \"b\"")
                    if b["_ts_ns"] is not None and e["_ts_ns"] is not None:
                        b["_dur_ns"] = e["_ts_ns"] - b["_ts_ns"]
        elif ph == "i":
            # Kineto's [memory] instants keep its lowercase "i"
            check(e.get("s") == "t", w, f"instant scope {e.get('s')!r}, expected \"t\"")
            check(e.get("cat") == "cpu_instant_event" and e.get("name") == "[memory]", w,
                  f"ph \"i\" with cat {e.get('cat')!r}: only [memory] instants use it (marks are \"I\")")
            mems.append(e)
        elif ph == "I":
            # marks: "I", the instant DevTools' trace engine keeps
            check(e.get("s") == "t", w, f"instant scope {e.get('s')!r}, expected \"t\"")
            check(e.get("cat") == "user_annotation", w, f"mark cat {e.get('cat')!r}")
            marks.append(e)
        elif ph == "C":
            args = e.get("args")
            check(isinstance(args, dict) and list(args.keys()) == [e["name"]], w,
                  f"counter args {short(args)}, expected one member named after the counter")
            counters.append(e)
        elif ph in ("s", "f"):
            # flows: ac2g (a CUDA launch to its kernel) and fwdbwd (a forward
            # op to its backward op), an "s" and an "f" (bound to the
            # enclosing slice: "bp": "e") per category and id
            check(e.get("cat") in ("ac2g", "fwdbwd") and e.get("name") == e.get("cat"), w, f"flow cat {e.get('cat')!r} name {e.get('name')!r}")
            check(is_int(e.get("id")), w, f"flow id {e.get('id')!r}")
            check(e.get("bp") == ("e" if ph == "f" else None), w, f"flow \"{ph}\" with bp {e.get('bp')!r}")
            flows.setdefault((e.get("cat"), e.get("id")), []).append(e)
        elif ph == "M":
            check(e.get("name") in PH_M_NAMES, w, f"unexpected metadata event {e.get('name')!r}")
            check(e.get("ts") is not None and e["_ts_ns"] == 0, w, "metadata event ts is not 0.000")
            check(isinstance(e.get("args"), dict), w, "args is not an object")
            metas.append(e)
        else:
            fail(w, f"unexpected ph {ph!r}")

    for b in opened.values():
        fail(where, f"async \"b\" {short(b['name'], 60)} (id {b.get('id')!r}) without its \"e\"")
    for (cat, fid), fl in flows.items():
        check(sorted(f["ph"] for f in fl) == ["f", "s"], where, f"{cat} flow {fid!r}: {[f['ph'] for f in fl]}, expected one \"s\" and one \"f\"")
        for f in fl:  # each end at the start of a slice of its lane
            check(any(x["pid"] == f["pid"] and x["tid"] == f["tid"] and x["_ts_ns"] == f["_ts_ns"] for x in xs), where,
                  f"{cat} flow {fid!r}: its \"{f['ph']}\" at ts {f.get('ts')} on pid {f['pid']} tid {f['tid']} starts no slice there")
    if "counts" in exp:
        want = {k: v for k, v in exp["counts"].items() if v}
        check(counts == want, where, f"events per ph {counts}, expected {want}")

    pid = exp.get("pid")

    # complete events
    if "events" in exp:
        want = exp["events"]
        if check(len(xs) == len(want), where, f"{len(xs)} X events, expected {len(want)}"):
            check_x_events(where, xs, want, pid)
            check_nesting(where, xs, want)

    # marks and counters: per thread, in program order
    if "marks" in exp:
        check_instants(where, "mark", marks, exp["marks"], xs, exp.get("events"))
    if "counters" in exp:
        check_instants(where, "counter", counters, exp["counters"], xs, exp.get("events"))
    if "memory" in exp:
        check_memory(where, mems, exp["memory"], xs, exp.get("events"))

    # metadata events: process and threads
    if pid is not None:
        procs = [m for m in metas if m.get("pid") == pid and m.get("tid") == 0]
        for nm in ("process_name", "process_labels", "process_sort_index"):
            got = [m for m in procs if m["name"] == nm]
            check(len(got) == 1, where, f"{len(got)} {nm} events for pid {pid}, expected 1")
        pn = [m for m in procs if m["name"] == "process_name"]
        if pn and "process_name" in exp:
            want = pj(spec_bytes(exp["process_name"]))
            check(pn[0]["args"].get("name") == want, where, f"process_name {pn[0]['args'].get('name')!r}, expected {want!r}")
        pl = [m for m in procs if m["name"] == "process_labels"]
        if pl:
            check(pl[0]["args"].get("labels") == "CPU", where, f"process_labels {pl[0]['args']!r}")
    # thread lanes are (pid, tid): device events live in the device's pid
    # (pid = device index, tid = stream), where a tid may repeat a CPU tid
    tnames = {}
    tsorts = {}
    for m in metas:
        lane = (m["pid"], m["tid"])
        if m["name"] == "thread_name":
            if lane in tnames:
                fail(where, f"two thread_name events for pid {lane[0]} tid {lane[1]}")
            tnames[lane] = m["args"].get("name")
        elif m["name"] == "thread_sort_index":
            tsorts[lane] = m["args"].get("sort_index")
    for e in xs + marks + counters + mems:
        lane = (e["pid"], e["tid"])
        if lane not in tnames:
            fail(where, f"pid {lane[0]} tid {lane[1]} has events ({short(e['name'], 60)}) but no thread_name metadata event")
            tnames[lane] = None
    if "threads" in exp:
        want_lanes = {(t.get("pid", pid), t["tid"]) for t in exp["threads"]}
        check(set(tnames) == want_lanes, where, f"thread_name events for (pid, tid) {sorted(tnames, key=str)}, expected {sorted(want_lanes, key=str)}")
        for t in exp["threads"]:
            tid = t["tid"]
            lane = (t.get("pid", pid), tid)
            got = tnames.get(lane)
            check(is_int(tsorts.get(lane)), where, f"pid {lane[0]} tid {tid}: thread_sort_index {tsorts.get(lane)!r}")
            if t.get("any_name"):
                check(isinstance(got, str), where, f"pid {lane[0]} tid {tid}: thread name {got!r}")
            elif t.get("name") is None:
                want = f"thread {tid}"
                check(got == want, where, f"tid {tid}: thread name {got!r}, expected {want!r}")
            else:
                b = spec_bytes(t["name"])
                if t.get("trunc"):
                    # prof.h keeps a bounded copy of a thread name: any prefix of
                    # 15 to 256 bytes, made valid, is acceptable
                    cands = {pj(b[:k]) for k in range(min(len(b), 15), min(len(b), 256) + 1)}
                    check(got in cands, where, f"tid {tid}: thread name {short(got)} is not a (valid) prefix of {short(pj(b))}")
                else:
                    check(got == pj(b), where, f"tid {tid}: thread name {short(got)}, expected {short(pj(b))}")
    return tr


def touches_next(x, want):
    """Whether another top-level event of x's lane starts exactly where x ends:
    prof.h may then shorten x so that, in doubles, it ends before that one."""
    lane = (x.get("pid"), x["tid"])
    return any(y is not x and y.get("parent", -1) < 0 and (y.get("pid"), y["tid"]) == lane and y["start_ns"] == x["end_ns"]
               for y in want)


def check_x_events(where, xs, want, pid):
    for k, (e, x) in enumerate(zip(xs, want)):
        w = f"{where} X[{k}]"
        name = pj(spec_bytes(x["name"]))
        check(e["name"] == name, w, f"name {short(e['name'])}, expected {short(name)}")
        w = f"{where} X[{k}] {short(name, 60)}"
        want_cat = "blink.user_timing" if x.get("async") else x["cat"]
        check(e.get("cat") == want_cat, w, f"cat {e.get('cat')!r}, expected {want_cat!r}")
        check(bool(e.get("_async")) == bool(x.get("async")), w, "an async range not written as \"b\"/\"e\"" if x.get("async") else "a \"b\"/\"e\" pair for an event that is not async")
        want_pid = x.get("pid", pid)
        if want_pid is not None:
            check(e["pid"] == want_pid, w, f"pid {e['pid']}, expected {want_pid}")
        check(e["tid"] == x["tid"], w, f"tid {e['tid']}, expected {x['tid']}")
        if e["_ts_ns"] is not None:
            check(e["_ts_ns"] == x["start_ns"], w, f"ts {e['ts'].text}, expected start_ns/1000 = {Decimal(x['start_ns']) / 1000:.3f}")
        if e.get("_async"):
            check(e.get("_dur_ns") == x["end_ns"] - x["start_ns"], w, f"async \"e\" - \"b\" = {e.get('_dur_ns')} ns, expected {x['end_ns'] - x['start_ns']}")
        elif e.get("_dur_ns") is not None:
            true_dur = x["end_ns"] - x["start_ns"]
            shrink = true_dur - e["_dur_ns"]
            limit = max_shrink_ns(x["end_ns"])
            far = max(abs(x["start_ns"]), abs(x["end_ns"])) >= 2**50  # ends are the parsed doubles: either way
            check((0 <= shrink <= limit) if not far else abs(shrink) <= limit, w,
                  f"dur {e['dur'].text}, expected (end_ns - start_ns)/1000 = {Decimal(true_dur) / 1000:.3f} (at most {limit} ns less)")
            if x.get("parent", -1) < 0 and shrink != 0 and not far:
                check(touches_next(x, want), w, f"dur {e['dur'].text} of a top-level event shortened (expected {Decimal(true_dur) / 1000:.3f}) though no event of its lane starts at its end")
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        # Kineto: "Ev Idx" on the profiler's own ops only; a GPU record's
        # "External id" is its op's, or (no op, no correlation, as these
        # hand-built ones) its own index + 1
        want_args = {"External id": x["ev_idx"] + 1}
        if x["cat"] in ("user_annotation", "cpu_op"):
            want_args["Ev Idx"] = x["ev_idx"]
        if "shapes" in x and json.loads(x["shapes"]) != []:  # Kineto: only for an op with inputs
            want_args["Input Dims"] = json.loads(x["shapes"])
        if "stack" in x:
            want_args["Call stack"] = "".join(pj(spec_bytes(f)) + ";" for f in x["stack"])
        for key, v in x.get("args", {}).items():
            want_args[key] = v
        if "overload" in x:
            want_args["Overload name"] = pj(spec_bytes(x["overload"]))
        check(list(sorted(args.keys())) == list(sorted(want_args.keys())), w,
              f"args keys {sorted(args.keys())}, expected {sorted(want_args.keys())}")
        for key, v in want_args.items():
            if key in args:
                check(args[key] == v and type(args[key]) is not bool, w, f"args[{key!r}] = {short(args[key])}, expected {short(v)}")


def check_nesting(where, xs, want):
    """Rebuild each CPU event's parent from ts/dur parsed into doubles, the way a
    trace viewer does, and compare with the expected parent."""
    by_thread = {}
    for k, (e, x) in enumerate(zip(xs, want)):
        if x.get("async") or x["cat"] == "kernel" or e["_ts_ns"] is None or e.get("_dur_ns") is None:
            continue
        start = float(e["ts"])
        end = float(e["ts"]) + float(e["dur"])
        by_thread.setdefault((e["pid"], e["tid"]), []).append((start, -end, k, end))
    for key, lst in by_thread.items():
        lst.sort()
        stack = []
        for start, _, k, end in lst:
            parent = -1
            while stack:
                ps, pe, pk = stack[-1]
                if start >= pe or end > pe:
                    stack.pop()
                    continue
                parent = pk
                break
            stack.append((start, end, k))
            x = want[k]
            wp = x.get("parent", -1)
            name = pj(spec_bytes(x["name"]))
            if wp >= 0:
                pname = pj(spec_bytes(want[wp]["name"]))
                p = xs[wp]
                inside = float(p["ts"]) <= start and end <= float(p["ts"]) + float(p["dur"])
                check(inside, where, f"X[{k}] {short(name, 60)} (ts {e_txt(xs[k])}) is not inside its parent X[{wp}] {short(pname, 60)} (ts {e_txt(p)}) once parsed into doubles")
            check(parent == wp, where, f"X[{k}] {short(name, 60)}: parent rebuilt from ts/dur is X[{parent}], expected X[{wp}]")


def e_txt(e):
    return f"{e['ts'].text}, dur {e['dur'].text}"


def find_within(xs, want, spec):
    if spec is None or want is None:
        return None
    name = pj(spec_bytes(spec))
    idx = [k for k, x in enumerate(want) if pj(spec_bytes(x["name"])) == name]
    return want[idx[0]] if len(idx) == 1 else None


def check_instants(where, kind, got, want, xs, events):
    gt, wt = {}, {}
    for e in got:
        gt.setdefault(e["tid"], []).append(e)
    for x in want:
        wt.setdefault(x["tid"], []).append(x)
    check(sorted(gt) == sorted(wt), where, f"{kind}s on tids {sorted(gt)}, expected {sorted(wt)}")
    for tid in wt:
        g = gt.get(tid, [])
        w = wt[tid]
        if not check(len(g) == len(w), where, f"tid {tid}: {len(g)} {kind}s, expected {len(w)}"):
            continue
        for e, x in zip(g, w):
            name = pj(spec_bytes(x["name"]))
            ww = f"{where} {kind} {short(name, 60)}"
            check(e["name"] == name, ww, f"name {short(e['name'])}, expected {short(name)}")
            if kind == "counter":
                v = e.get("args", {}).get(e["name"]) if isinstance(e.get("args"), dict) else None
                if x["value"] is None:
                    check(v is None, ww, f"value {v!r}, expected null (NaN or infinity)")
                else:
                    fv = float.fromhex(x["value"])
                    same = isinstance(v, (Int, Num)) and float(v) == fv and \
                        v.text.startswith("-") == (str(fv)[0] == "-")
                    check(same, ww, f"value {getattr(v, 'text', v)!r}, expected {fv!r}")
            enc = find_within(xs, events, x.get("within"))
            if x.get("within") is not None:
                if check(enc is not None, ww, "enclosing scope for the check not found"):
                    if e["_ts_ns"] is not None:
                        check(enc["start_ns"] <= e["_ts_ns"] <= enc["end_ns"], ww,
                              f"ts {e['ts'].text} outside its enclosing scope [{enc['start_ns']} ns, {enc['end_ns']} ns]")


def check_memory(where, got, want, xs, events):
    check(len(got) == len(want), where, f"{len(got)} [memory] instants, expected {len(want)}")
    by_key = {}
    for e in got:
        a = e.get("args") if isinstance(e.get("args"), dict) else {}
        by_key.setdefault((a.get("Addr"), a.get("Bytes")), []).append(e)
    for x in want:
        ww = f"{where} [memory] addr {x['addr']} bytes {x['bytes']}"
        lst = by_key.get((x["addr"], x["bytes"]), [])
        if not check(len(lst) == 1, ww, f"{len(lst)} matching [memory] instants, expected 1"):
            continue
        e = lst[0]
        a = e["args"]
        check(e["tid"] == x["tid"], ww, f"tid {e['tid']}, expected {x['tid']}")
        check(a.get("Device Type") == x["device_type"], ww, f"Device Type {a.get('Device Type')!r}, expected {x['device_type']}")
        check(a.get("Device Id") == x["device_id"], ww, f"Device Id {a.get('Device Id')!r}, expected {x['device_id']}")
        for key in ("Total Allocated", "Total Reserved", "Bytes", "Addr", "Device Id", "Device Type"):
            check(is_int(a.get(key)), ww, f"{key} is {a.get(key)!r}, expected an integer")
        if x.get("category") is None:
            check("Category" not in a, ww, f"Category {a.get('Category')!r}, expected none")
        else:
            want_c = pj(spec_bytes(x["category"]))
            check(a.get("Category") == want_c, ww, f"Category {a.get('Category')!r}, expected {want_c!r}")
        enc = find_within(xs, events, x.get("within"))
        if x.get("within") is not None and check(enc is not None, ww, "enclosing scope for the check not found"):
            if e["_ts_ns"] is not None:
                check(enc["start_ns"] <= e["_ts_ns"] <= enc["end_ns"], ww,
                      f"ts {e['ts'].text} outside its enclosing scope [{enc['start_ns']} ns, {enc['end_ns']} ns]")
    # Total Allocated: running sum per device in time order
    order = sorted((e for e in got if e["_ts_ns"] is not None and isinstance(e.get("args"), dict)), key=lambda e: e["_ts_ns"])
    ts_list = [e["_ts_ns"] for e in order]
    check(len(set(ts_list)) == len(ts_list), where, "[memory] instants share timestamps (cannot check running totals)")
    totals = {}
    for e in order:
        a = e["args"]
        dev = (a.get("Device Type"), a.get("Device Id"))
        totals[dev] = totals.get(dev, 0) + (a.get("Bytes") or 0)
        check(a.get("Total Allocated") == totals[dev], where,
              f"[memory] at ts {e['ts'].text} (addr {a.get('Addr')}, bytes {a.get('Bytes')}): Total Allocated {a.get('Total Allocated')}, expected {totals[dev]}")
        # PyTorch's CPU allocator reports 0 reserved; a device reserves at least what it holds
        if is_int(a.get("Total Reserved")) and is_int(a.get("Total Allocated")):
            if a.get("Device Type") == 0:
                check(a["Total Reserved"] == 0, where, f"[memory] at ts {e['ts'].text}: CPU Total Reserved {a['Total Reserved']}, expected 0 (PyTorch's)")
            else:
                check(a["Total Reserved"] >= a["Total Allocated"], where, f"[memory] at ts {e['ts'].text}: Total Reserved < Total Allocated")


# ----- folded stacks ---------------------------------------------------------------

# speedscope: for each line, /^(.*) (\d+)$/m.exec(line); JavaScript's '.' does not
# match \n, \r, U+2028, U+2029 and \d is ASCII only.
JS_LINE = re.compile("([^\n\r\u2028\u2029]*) ([0-9]+)")
FRAME_FORBIDDEN = re.compile("[\x00-\x1f\x7f-\x9f ;" + _UWS + "]")


def read_stacks(path, where):
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        fail(where, str(e))
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(where, f"not valid UTF-8: {e}")
        return None
    ok()
    if text and not text.endswith("\n"):
        fail(where, "does not end with a newline")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = []
    for n, line in enumerate(lines, 1):
        w = f"{where}:{n}"
        m = JS_LINE.fullmatch(line)
        if not check(m is not None, w, f"line does not match speedscope's ^(.*) (\\d+)$ (JavaScript '.'): {short(line)}"):
            continue
        frames = m.group(1).split(";")
        for fr in frames:
            check(fr != "" and not FRAME_FORBIDDEN.search(fr), w, f"frame {short(fr)} is empty or holds ' ', ';', a control character or U+2028/U+2029")
        value = int(m.group(2))
        check(value > 0, w, f"value {value} is not positive")
        out.append((m.group(1), value))
    return out


def check_stacks(d, exp, where):
    where = f"{where} -> {exp['file']}"
    got = read_stacks(os.path.join(d, exp["file"]), where)
    if got is None:
        return
    want = [(";".join(frame(spec_bytes(f)) for f in ln["frames"]), ln["value"]) for ln in exp["lines"]]
    if not exp.get("merged"):
        if check(len(got) == len(want), where, f"{len(got)} lines, expected {len(want)}"):
            for k, (g, w) in enumerate(zip(got, want)):
                check(g == w, f"{where}:{k + 1}", f"line {short(g[0] + ' ' + str(g[1]), 300)}, expected {short(w[0] + ' ' + str(w[1]), 300)}")
        return
    stacks = [s for s, _ in got]
    check(len(set(stacks)) == len(stacks), where, "a stack appears on more than one line of the merged file")
    # merged: each stack's nanoseconds summed, then whole microseconds; none at 0
    sums_ns, counts = {}, {}
    for (s, _), ln in zip(want, exp["lines"]):
        sums_ns[s] = sums_ns.get(s, 0) + ln["ns"]
        counts[s] = counts.get(s, 0) + 1
    sums = {s: ns // 1000 for s, ns in sums_ns.items() if ns // 1000 > 0}
    gotd = dict(got)
    if not check(gotd == sums, where, "merged lines differ from the expected lines summed per stack:"):
        for k in sorted(set(gotd) | set(sums))[:20]:
            if gotd.get(k) != sums.get(k):
                failures[-1] += f"\n    {short(k, 160)}: {gotd.get(k)}, expected {sums.get(k)}"
    if exp.get("unmerged_file"):
        un = read_stacks(os.path.join(d, exp["unmerged_file"]), f"{where} (unmerged {exp['unmerged_file']})")
        if un is not None:
            s2 = {}
            for s, v in un:
                s2[s] = s2.get(s, 0) + v
            # each unmerged line lost less than 1 us to int(us); the merged
            # value keeps those fractions, so it lies in [sum, sum + calls)
            bad = [s for s in set(gotd) | set(s2)
                   if not s2.get(s, 0) <= gotd.get(s, 0) < s2.get(s, 0) + max(counts.get(s, 0), 1)]
            check(not bad, where, f"merged file is not {exp['unmerged_file']} summed per stack (plus under 1 us per call): "
                  + ", ".join(short(s, 80) for s in bad[:5]))


# ----- memory timeline -------------------------------------------------------------

def check_timeline(d, exp, where, traces):
    where = f"{where} -> {exp['file']}"
    try:
        _, _, tl = load_strict(os.path.join(d, exp["file"]))
    except (OSError, ValueError) as e:
        fail(where, str(e))
        return
    ok()
    if not check(isinstance(tl, list) and len(tl) == 2 and all(isinstance(x, list) for x in tl), where,
                 f"not [times, sizes]: {short(tl)}"):
        return
    times, sizes = tl
    check(len(times) == len(sizes), where, f"{len(times)} times but {len(sizes)} sizes")
    tns = []
    for k, t in enumerate(times):
        v = us_ns(f"{where} times[{k}]", t, "time")
        tns.append(v)
    if all(v is not None for v in tns):
        check(all(a < b for a, b in zip(tns, tns[1:])), where, "times are not strictly increasing")
    ncat = exp["ncat"]
    for k, row in enumerate(sizes):
        check(isinstance(row, list) and len(row) == ncat and all(is_int(v) for v in row), where,
              f"sizes[{k}] = {short(row)}, expected {ncat} integers (one per category)")
    if "sizes" in exp:
        check(sizes == exp["sizes"], where, f"sizes {short(sizes, 400)}, expected {short(exp['sizes'], 400)}")
    if exp.get("trace"):
        tr = traces.get(exp["trace"])
        if check(tr is not None, where, f"trace {exp['trace']} not checked or not readable"):
            ts = set()
            for e in tr.get("traceEvents", []):
                if isinstance(e, dict) and e.get("name") == "[memory]" and e.get("ph") == "i":
                    a = e.get("args", {})
                    if a.get("Device Type") == exp["device_type"] and (exp["device_type"] == 0 or a.get("Device Id") == exp["device_id"]):
                        ts.add(int(Decimal(e["ts"].text) * 1000))
            check(tns == sorted(ts), where, f"times {[str(Decimal(t) / 1000) for t in tns if t is not None]} differ from the trace's [memory] timestamps for this device {[str(Decimal(t) / 1000) for t in sorted(ts)]}")


# ----- main ------------------------------------------------------------------------

def main():
    if len(sys.argv) != 2:
        print("usage: check_export.py DIR", file=sys.stderr)
        return 2
    d = sys.argv[1]
    try:
        names = sorted(os.listdir(d))
    except OSError as e:
        print(f"check_export: {e}", file=sys.stderr)
        return 2

    for n in names:
        if ".tmp" in n:
            fail(d, f"temporary file left behind: {n}")
    exps = []
    covered = set()
    for n in names:
        if not n.endswith(".json") or not os.path.isfile(os.path.join(d, n)):
            continue
        if n.endswith(".expect.json"):
            try:
                _, _, e = load_strict(os.path.join(d, n))
            except ValueError as err:
                fail(n, f"expectation file: {err}")
                continue
            if isinstance(e, dict) and isinstance(e.get("prof_check"), dict):
                exps.append((n, e["prof_check"]))
                covered.add(e["prof_check"]["file"])
                if e["prof_check"].get("unmerged_file"):
                    covered.add(e["prof_check"]["unmerged_file"])
    for n in names:
        if (n.endswith(".json") and not n.endswith(".expect.json")) or n.endswith(".stacks"):
            check(n in covered, d, f"{n}: no expectation file describes it")

    traces = {}
    # traces first: timelines compare with them
    for n, e in exps:
        if e["kind"] == "trace":
            tr = check_trace(d, e, n)
            if tr is not None:
                traces[e["file"]] = tr
    for n, e in exps:
        if e["kind"] == "stacks":
            check_stacks(d, e, n)
        elif e["kind"] == "timeline":
            check_timeline(d, e, n, traces)
        elif e["kind"] != "trace":
            fail(n, f"unknown kind {e['kind']!r}")
    check(len(exps) > 0, d, "no expectation files found")

    seen = set()
    for n in notes:
        if n not in seen:
            print(f"note: {n}")
            seen.add(n)
    for f in failures[:200]:
        print(f"FAIL {f}")
    if len(failures) > 200:
        print(f"... and {len(failures) - 200} more failures")
    print(f"check_export: {len(exps)} expectation files, {passed} checks passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
