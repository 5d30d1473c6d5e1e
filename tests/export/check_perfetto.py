#!/usr/bin/env python3
"""check_perfetto.py TRACE.json TRACE.pftrace: prof_export_perfetto's file,
decoded by protoc (--decode=perfetto.protos.Trace with the schema in
tests/export/proto, or PERFETTO_PROTO), holds the same events as
prof_export_chrome_trace's JSON of the same list:

  - every packet decodes; incremental state is used only after a packet
    with SEQ_INCREMENTAL_STATE_CLEARED on its sequence; every iid used was
    interned on the sequence before;
  - slices: per thread (tid) the same (name, category, start ns, end ns)
    as the JSON's "X" events, starts exact to the ns, ends exact (the
    JSON's may be a few ns short where it trims touching events); each
    JSON async range (a "b" and an "e" of cat blink.user_timing with the
    same id, name, pid and tid) is one slice on an "async" lane of its
    thread; every slice's, mark's and counter value's category equals
    the JSON's "cat" for the event (none on a slice reads as
    "user_annotation", prof.h's plain scopes; marks, counters and memory
    values must carry theirs); the
    nesting (each slice's parent) equals the JSON's; slices of a track
    begin and end in order (a well-formed stack); device events on a
    track under their device's, per stream;
  - annotations equal the JSON's args (Input Dims, Sequence number, flops,
    Overload name), call stacks equal "Call stack";
  - thread names (JSON thread_name) and process name;
  - marks ("I") and counters ("C"): name, thread, ts, value; [memory]
    instants: Total Allocated per device as counter values;
  - flows: every JSON flow (s -> f by category and id) is a flow between
    the same two slices: ac2g from the launch slice to the device slice,
    fwdbwd from a forward op to its backward op (id 2^63 | k here).
The file is read as trace_processor's importer reads it: packets sorted by
time (file order for ties) before slices are matched; a name_iid wins over
a name; at most 512 slices open on a track (slice_tracker's kMaxDepth),
    an instant included, and instants at one time stacked on each other;
two slices that carry one flow id are an arrow, in time order; threads
ordered by rank (the root track's thread_ordering), each thread's
descriptor on its own sequence or one without events; one counter track
per counter name; metadata also as trace attributes.
Strings are compared after decoding (the JSON's escapes; protoc's octal
escapes), so hostile names must come out the same in both.
Exit status 0 when all hold."""
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.environ.get("PERFETTO_PROTO", os.path.join(HERE, "proto", "perfetto_trace.proto"))
fails = 0


def fail(msg):
    global fails
    fails += 1
    if fails <= 30:
        print("FAIL", msg)


# ----- protoc's text format -> nested dicts of lists -----
_TOK = re.compile(r'\s*(?:([A-Za-z_][A-Za-z0-9_]*)\s*(\{|:\s*("(?:[^"\\]|\\.)*"|[^\s{}]+))|(\}))')


def unescape(s):
    """A protoc text-format string (str, or the raw bytes of protoc's
    output) -> its bytes."""
    out = bytearray()
    i = 0
    b = s if isinstance(s, bytes) else s.encode("utf-8")
    while i < len(b):
        c = b[i]
        if c != 0x5C:
            out.append(c)
            i += 1
            continue
        n = chr(b[i + 1])
        if n in "01234567":
            j = i + 1
            while j < len(b) and j < i + 4 and chr(b[j]) in "01234567":
                j += 1
            out.append(int(b[i + 1:j], 8))
            i = j
        elif n == "x":
            j = i + 2
            while j < len(b) and j < i + 4 and chr(b[j]) in "0123456789abcdefABCDEF":
                j += 1
            out.append(int(b[i + 2:j], 16))
            i = j
        else:
            out.append({"n": 10, "r": 13, "t": 9, "a": 7, "b": 8, "f": 12, "v": 11}.get(n, ord(n)))
            i += 2
    return bytes(out)


def parse_text(text):
    root = defaultdict(list)
    stack = [root]
    pos = 0
    while True:
        m = _TOK.match(text, pos)
        if not m:
            if text[pos:].strip():
                raise ValueError(f"cannot parse protoc output at {text[pos:pos + 80]!r}")
            break
        pos = m.end()
        if m.group(4):
            stack.pop()
        elif m.group(2) == "{":
            d = defaultdict(list)
            stack[-1][m.group(1)].append(d)
            stack.append(d)
        else:
            v = m.group(3)
            if v.startswith('"'):
                v = unescape(v[1:-1])
            stack[-1][m.group(1)].append(v)
    return root


def i32(v):
    """A thread id as ThreadDescriptor's int32 holds it (the JSON's are
    unsigned 64-bit: a pseudo-thread of CUDA records may be 2^64 - 1)."""
    v = int(v) & 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def one(d, k, default=None):
    v = d.get(k)
    return v[0] if v else default


def s_of(b):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        fail(f"invalid UTF-8 in a string: {b[:60]!r}")
        return b.decode("utf-8", "replace")


# ----- the wire format, where protoc's text hides something -----
def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(field number, wire type, value or bytes) of one message's top level."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wt}")
        yield f, wt, v


def both_names(data):
    """TrackEvents that set both name_iid (10) and name (23): protoc prints
    the last of the oneof, trace_processor uses name_iid."""
    n = 0
    for f, wt, pk in fields(data):
        if f != 1 or wt != 2:
            continue
        for g, wt2, te in fields(pk):
            if g == 11 and wt2 == 2:
                seen = {h for h, _, _ in fields(te)}
                n += 10 in seen and 23 in seen
    return n


def main():
    json_path, pf_path = sys.argv[1], sys.argv[2]
    with open(pf_path, "rb") as f:
        r = subprocess.run(["protoc", "--proto_path=" + os.path.dirname(PROTO), "--decode=perfetto.protos.Trace", os.path.basename(PROTO)],
                           stdin=f, capture_output=True)
    if r.returncode != 0:
        fail(f"protoc --decode failed: {r.stderr.decode(errors='replace')[:400]}")
        return 1
    trace = parse_text(r.stdout.decode("utf-8", "surrogateescape"))
    with open(pf_path, "rb") as f:
        nb = both_names(f.read())
    if nb:
        fail(f"{nb} track events set both name_iid and name: trace_processor shows the interned name, not the event's own")
    with open(json_path, "rb") as f:
        jt = json.loads(f.read(), parse_float=Decimal)

    # ----- tokenize the sequences: interning, clocks, descriptors -----
    seqs = {}
    tracks = {}  # uuid -> descriptor dict
    desc_seq = {}  # thread track uuid -> the sequence its descriptor came on
    seq_has_events = set()
    attributes = {}
    json_args = set()  # annotation names that carried JSON (legacy_json_value)
    events = []  # (ts, file order, sid, track, type, resolved fields)
    for pno, pk in enumerate(trace.get("packet", [])):
        sid = int(one(pk, "trusted_packet_sequence_id", "0"))
        st = seqs.get(sid)
        flags = int(one(pk, "sequence_flags", "0")) if one(pk, "sequence_flags", "0").isdigit() else (1 if "CLEARED" in one(pk, "sequence_flags") else 2)
        if flags & 1:
            st = seqs[sid] = {"names": {}, "cats": {}, "args": {}, "locs": {}, "fn": {}, "frames": {}, "stacks": {}, "clock": None, "track": None, "last": None}
        if st is None:
            fail(f"sequence {sid}: a packet before its state was cleared")
            st = seqs[sid] = {"names": {}, "cats": {}, "args": {}, "locs": {}, "fn": {}, "frames": {}, "stacks": {}, "clock": None, "track": None, "last": None}
        for idata in pk.get("interned_data", []):
            for k, dst, val in (("event_names", "names", "name"), ("event_categories", "cats", "name"), ("debug_annotation_names", "args", "name"),
                                ("function_names", "fn", "str")):
                for x in idata.get(k, []):
                    st[dst][int(one(x, "iid"))] = s_of(one(x, val, b""))
            for x in idata.get("source_locations", []):
                st["locs"][int(one(x, "iid"))] = (s_of(one(x, "file_name", b"")), s_of(one(x, "function_name", b"")), int(one(x, "line_number", "0")))
            for x in idata.get("frames", []):
                st["frames"][int(one(x, "iid"))] = int(one(x, "function_name_id"))
            for x in idata.get("callstacks", []):
                st["stacks"][int(one(x, "iid"))] = [int(v) for v in x.get("frame_ids", [])]
        for cs in pk.get("clock_snapshot", []):
            for c in cs.get("clocks", []):
                if one(c, "clock_id") == "64":
                    st["clock"] = int(one(c, "timestamp"))
        for d in pk.get("trace_packet_defaults", []):
            if one(d, "timestamp_clock_id") == "64":
                st["incremental"] = True
            for ted in d.get("track_event_defaults", []):
                st["track"] = int(one(ted, "track_uuid"))
        for td in pk.get("track_descriptor", []):
            tracks[int(one(td, "uuid"))] = td
            if td.get("thread"):
                desc_seq[int(one(td, "uuid"))] = sid
        for ta in pk.get("trace_attributes", []):
            for a in ta.get("attribute", []):
                attributes[s_of(one(a, "key", b""))] = s_of(one(a, "string_value", b""))
        if "timestamp" not in pk:
            if pk.get("track_event"):
                fail("a track event without a timestamp")
            continue
        ts = int(one(pk, "timestamp"))
        if st.get("incremental") and one(pk, "timestamp_clock_id") is None:
            st["clock"] += ts
            ts = st["clock"]
        if ts >= 1 << 63 and pk.get("track_event"):
            fail(f"sequence {sid}: a track event at {ts} ns: trace_processor reads times as int64 and drops it (track_event_invalid_timestamp)")
        for te in pk.get("track_event", []):
            track = int(one(te, "track_uuid", "0")) or st["track"]
            typ = one(te, "type")
            seq_has_events.add(sid)
            if typ == "TYPE_SLICE_BEGIN" or typ == "TYPE_INSTANT":
                if one(te, "name_iid"):  # the importer's rule: name_iid wins over name
                    iid = int(one(te, "name_iid"))
                    if iid not in st["names"]:
                        fail(f"sequence {sid}: name_iid {iid} not interned")
                    name = st["names"].get(iid, "?")
                else:
                    name = s_of(one(te, "name", b""))
                # no category on a slice is prof.h's plain scope, "user_annotation": it
                # leaves that one out (2 bytes of a ~24-byte scope); every other kind,
                # async pairs included, must name its own
                cat = "user_annotation"
                if te.get("category_iids"):
                    cat = st["cats"].get(int(one(te, "category_iids")), "?")
                args = {}
                for a in te.get("debug_annotations", []):
                    an = st["args"].get(int(one(a, "name_iid", "0"))) if one(a, "name_iid") else s_of(one(a, "name", b""))
                    if one(a, "int_value") is not None:
                        args[an] = int(one(a, "int_value"))
                    elif one(a, "string_value") is not None:
                        args[an] = s_of(one(a, "string_value"))
                    elif one(a, "legacy_json_value") is not None:
                        args[an] = json.loads(s_of(one(a, "legacy_json_value")))
                        json_args.add(an)  # a JSON string value is a str too
                stack = None
                if one(te, "callstack_iid"):
                    cid = int(one(te, "callstack_iid"))
                    if cid not in st["stacks"]:
                        fail(f"sequence {sid}: callstack_iid {cid} not interned")
                    stack = [st["fn"].get(st["frames"].get(f, -1), "?") for f in st["stacks"].get(cid, [])]
                if one(te, "source_location_iid") and int(one(te, "source_location_iid")) not in st["locs"]:
                    fail(f"sequence {sid}: source_location_iid not interned")
                flows = [int(f) for f in te.get("flow_ids", [])] + [int(f) for f in te.get("terminating_flow_ids", [])]
                events.append((ts, pno, sid, track, typ, {"name": name, "cat": cat, "args": args, "stack": stack, "flows": flows}))
            elif typ == "TYPE_SLICE_END":
                events.append((ts, pno, sid, track, typ, None))
            elif typ == "TYPE_COUNTER":
                v = one(te, "double_counter_value")
                v = float(v) if v is not None else int(one(te, "counter_value"))
                cat = st["cats"].get(int(one(te, "category_iids")), "?") if te.get("category_iids") else None
                events.append((ts, pno, sid, track, typ, (v, cat)))

    # ----- replay in the importer's order: by time, file order for ties -----
    slices = []
    open_by_track = defaultdict(list)
    instants, counters = [], []
    flow_slices = defaultdict(list)
    events.sort(key=lambda x: (x[0], x[1]))
    # instants on a track's stack: (ts, count). The importer keeps an instant
    # there until an event at a later time, or a slice begin or end at its
    # own, pops it; instants at one time stack on each other
    # (slice_tracker.cc MaybeCloseStack: "instants stack on top of each other")
    inst_by_track = {}
    for ts, pno, sid, track, typ, f in events:
        if typ in ("TYPE_INSTANT", "TYPE_SLICE_BEGIN", "TYPE_SLICE_END"):
            stacked = inst_by_track.get(track)
            if stacked and (stacked[0] != ts or typ != "TYPE_INSTANT"):
                del inst_by_track[track]
        if typ == "TYPE_INSTANT":
            stacked = inst_by_track.get(track, (ts, 0))[1]
            if len(open_by_track[track]) + stacked >= 512:
                fail(f"track {track}: instant {f['name'][:60]!r} at {ts} is 513 deep ({stacked} instants at its time under it); trace_processor drops it (kMaxDepth 512)")
            inst_by_track[track] = (ts, stacked + 1)
            instants.append((track, f["name"], ts, f["args"], f["cat"]))
        elif typ == "TYPE_SLICE_BEGIN":
            stk = open_by_track[track]
            if len(stk) >= 512:
                fail(f"track {track}: {f['name'][:60]!r} at {ts} begins 513 slices deep; trace_processor drops it (kMaxDepth 512)")
            k = len(slices)
            slices.append({"track": track, "name": f["name"], "cat": f["cat"], "start": ts, "end": None, "args": f["args"], "stack": f["stack"],
                           "parent": stk[-1] if stk else None})
            stk.append(k)
            for fid in f["flows"]:
                flow_slices[fid].append(k)
        elif typ == "TYPE_SLICE_END":
            stk = open_by_track[track]
            if not stk:
                fail(f"track {track}: an end without a begin at {ts}")
                continue
            s = slices[stk.pop()]
            if ts < s["start"]:
                fail(f"track {track}: {s['name']!r} ends at {ts} before it starts at {s['start']}")
            s["end"] = ts
        else:
            counters.append((track, ts, f))
    for t, stk in open_by_track.items():
        if stk:
            fail(f"track {t}: {len(stk)} slices never ended")
    # arrows: two slices per id, the earlier one the launch
    flows_out, flows_in = {}, {}
    for fid, ks in flow_slices.items():
        if len(ks) != 2:
            fail(f"flow id {fid}: on {len(ks)} slices, not 2")
            continue
        a, b = sorted(ks, key=lambda k: slices[k]["start"])
        flows_out[fid], flows_in[fid] = a, b
    # threads: ordered by rank, descriptors on their own sequence
    thread_tracks = [u for u, td in tracks.items() if td.get("thread")]
    if len(thread_tracks) > 1:
        root = tracks.get(0)
        if root is None or one(root, "thread_ordering") not in ("THREAD_ORDERING_EXPLICIT", "1"):
            fail("no root track descriptor (uuid 0) with thread_ordering EXPLICIT: the threads' ranks are ignored")
    # child tracks of a thread or a GPU (lanes "NAME", "NAME (2)", ...,
    # "depth A-B", "stream S"): in the order the UI shows them
    # (viz/summary/track_event.sql: by sibling_order_rank where the parent's
    # child_ordering is EXPLICIT, else by name as text, so "async (10)"
    # before "async (2)"), which must be the lanes' own order
    # (a thread's or GPU's lanes past the first are the first's children)
    def lane_parent(p):
        return p in tracks and (tracks[p].get("thread") or s_of(one(tracks[p], "name", b"")).startswith("GPU "))
    children = defaultdict(list)
    for u, td in tracks.items():
        p = int(one(td, "parent_uuid", "0"))
        if lane_parent(p) or (p in tracks and lane_parent(int(one(tracks[p], "parent_uuid", "0")))):
            children[p].append(u)

    def lane_key(name):
        m = re.fullmatch(r"(.*?)(?: \((\d+)\))?", name, re.S)
        base, lane = m.group(1), int(m.group(2) or 1)
        d = re.fullmatch(r"depth (\d+)-\d+", base)
        if d:
            return (0, int(d.group(1)), "", lane)
        s = re.fullmatch(r"stream (-?\d+)", base)
        if s:
            return (1, int(s.group(1)), "", lane)
        return (2, 0, base, lane)
    for p, kids in children.items():
        # a thread's child tracks are shown beside the thread's own track
        # and ordered by name whatever the thread's child_ordering
        # (track_descriptor.proto: child_ordering is ignored on a thread's
        # or a process's track, whose child tracks become its siblings):
        # there each lane group's tracks must come in their numbers' order
        if tracks[p].get("thread") or tracks[p].get("process"):
            shown = sorted(kids, key=lambda u: one(tracks[u], "name", b""))
            names_shown = [s_of(one(tracks[u], "name", b"")) for u in shown]
            groups = defaultdict(list)
            for nm in names_shown:
                k = lane_key(nm)
                groups[(k[0], k[2])].append(k)
            for ks in groups.values():
                if ks != sorted(ks):
                    fail(f"track {p}: the UI orders the tracks beside it by name, {names_shown[:12]}: a group's not in their numbers' order")
            continue
        explicit = one(tracks[p], "child_ordering") in ("EXPLICIT", "3")
        if not explicit:
            # by name, "depth 10240-10751" would come before "depth 1536-2047"
            fail(f"track {p} ({s_of(one(tracks[p], 'name', b''))!r}): child tracks {[s_of(one(tracks[u], 'name', b'')) for u in kids][:6]} without child_ordering EXPLICIT (the UI orders them by name)")
        if explicit:
            ranks = [int(one(tracks[u], "sibling_order_rank", "0")) for u in kids]
            if len(set(ranks)) != len(ranks):
                fail(f"track {p}: child tracks share a sibling_order_rank (their order is undefined): {sorted(ranks)}")
            shown = sorted(kids, key=lambda u: int(one(tracks[u], "sibling_order_rank", "0")))
        else:
            shown = sorted(kids, key=lambda u: one(tracks[u], "name", b""))
        names_shown = [s_of(one(tracks[u], "name", b"")) for u in shown]
        want = sorted(names_shown, key=lane_key)
        if names_shown != want:
            fail(f"track {p} ({s_of(one(tracks[p], 'name', b''))!r}): the UI orders its child tracks {names_shown[:12]}, not {want[:12]}")

    for u in thread_tracks:
        sq = desc_seq.get(u)
        own = seqs.get(sq, {}).get("track") == u
        if not own and sq in seq_has_events:
            fail(f"thread track {u}: its descriptor is on sequence {sq}, which has events of other tracks (they would get its thread)")

    # ----- the track of a slice -> its thread (tid) or device stream -----
    def thread_of(uuid):
        seen = 0
        while uuid in tracks and seen < 10:
            td = tracks[uuid]
            if td.get("thread"):
                return ("cpu", i32(one(td["thread"][0], "tid")))
            uuid = int(one(td, "parent_uuid", "0"))
            seen += 1
        return None

    def track_name(uuid):
        td = tracks.get(uuid)
        return s_of(one(td, "name", b"")) if td else None

    # ----- the JSON's events -----
    ev = jt["traceEvents"]
    names = {}
    for e in ev:
        if e.get("ph") == "M" and e["name"] == "thread_name":
            names[(int(e["pid"]), i32(e["tid"]))] = e["args"]["name"]
        if e.get("ph") == "M" and e["name"] == "process_name" and e.get("args", {}).get("name", "").startswith("GPU ") is False:
            pname = e["args"]["name"]
    ns = lambda d: int(Decimal(d) * 1000)
    xs = [e for e in ev if e.get("ph") == "X"]
    # async ranges: a "b" and an "e" with the same cat and id (a "0x..."
    # string), name, pid and tid; each pair is compared as one slice
    opened = {}
    for e in ev:
        if e.get("ph") not in ("b", "e"):
            continue
        key = (e.get("cat"), e.get("id"))
        if not (isinstance(e.get("id"), str) and re.fullmatch(r"0x[0-9a-f]+", e["id"])):
            fail(f"async {e.get('name')!r}: id {e.get('id')!r} is not a \"0x...\" string")
        if e.get("cat") != "blink.user_timing":
            fail(f"async {e.get('name')!r}: cat {e.get('cat')!r}, expected \"blink.user_timing\"")
        if e["ph"] == "b":
            if key in opened:
                fail(f"async {e['name'][:60]!r}: id {e['id']} begun twice")
            opened[key] = e
            continue
        b = opened.pop(key, None)
        if b is None:
            fail(f"async {e['name'][:60]!r}: \"e\" without its \"b\" (id {e.get('id')})")
            continue
        if (b["name"], b["pid"], b["tid"]) != (e["name"], e["pid"], e["tid"]) or ns(e["ts"]) < ns(b["ts"]):
            fail(f"async {b['name'][:60]!r}: its \"e\" {e!r} does not match its \"b\" {b!r}")
            continue
        x = dict(b)
        x["dur"] = e["ts"] - b["ts"]
        x["_async"] = True
        xs.append(x)
    for key, b in opened.items():
        fail(f"async {b['name'][:60]!r}: \"b\" without its \"e\" (id {b.get('id')})")
    cpu_pid = None
    for e in ev:
        if e.get("ph") == "M" and e["name"] == "process_labels" and e["args"].get("labels") == "CPU":
            cpu_pid = int(e["pid"])
    # offset: the JSON's ns to Perfetto's, from the first CPU slice both have
    offset = None
    pf_cpu = defaultdict(list)
    pf_dev = []
    for k, s in enumerate(slices):
        th = thread_of(s["track"])
        if th:
            pf_cpu[th[1]].append(k)
        else:
            pf_dev.append(k)
    js_cpu = defaultdict(list)
    js_dev = []
    for e in xs:
        if int(e["pid"]) == cpu_pid:
            js_cpu[i32(e["tid"])].append(e)
        else:
            js_dev.append(e)
    if xs and slices:
        first = min(xs, key=lambda e: ns(e["ts"]))
        offset = min(s["start"] for s in slices) - ns(first["ts"])
    if len(xs) != len(slices):
        fail(f"{len(slices)} slices, the JSON has {len(xs)} X events")
    if offset is None:
        # no slice on either side (a cap that dropped every scope): the two
        # clocks cannot be aligned, so the timed checks below cannot run
        if fails == 0:
            print("check_perfetto: no slices, nothing to align the two traces' times on: counts checked only")
        return 1 if fails else 0
    # match per thread by (start, name), then compare
    matched = {}
    for tid, lst in js_cpu.items():
        pool = defaultdict(list)
        for k in pf_cpu.get(tid, []):
            pool[(slices[k]["start"], slices[k]["name"])].append(k)
        for e in lst:
            key = (ns(e["ts"]) + offset, e["name"])
            if not pool.get(key):
                fail(f"thread {tid}: no slice {e['name'][:60]!r} at {e['ts']} (+offset)")
                continue
            end_js = ns(e["ts"]) + ns(e["dur"]) + offset
            # several slices of one name at one start (a b/e pair and an X
            # inside it; a zero-length event at the start of a longer one):
            # the one that ends where the JSON's does, of its category, the
            # nearest end (the first within 16 ns took a longer event's
            # slice for a zero-length one, and then failed the longer one)
            cands = pool[key]
            best = min(range(len(cands)), key=lambda c: (not (0 <= slices[cands[c]]["end"] - end_js <= 16),
                                                           slices[cands[c]]["cat"] != e["cat"],
                                                           abs(slices[cands[c]]["end"] - end_js), c))
            k = cands.pop(best)
            matched[id(e)] = k
            s = slices[k]
            if not (0 <= s["end"] - end_js <= 16):
                fail(f"{e['name'][:60]!r} at {e['ts']}: ends at {s['end'] - offset} ns, the JSON at {end_js - offset} (dur {e['dur']})")
            if s["cat"] != e["cat"]:  # async pairs too: cat blink.user_timing (DevTools' measures) in both
                fail(f"{e['name'][:60]!r}: category {s['cat']!r}, JSON {e['cat']!r}")
            a = e.get("args", {})
            for key_ in ("Input Dims", "Sequence number", "flops", "Overload name", "cbid"):
                want = a.get(key_)
                if key_ == "Input Dims" and want is not None:
                    want = json.dumps(want).replace(" ", "")
                    got = s["args"].get(key_)
                    got = got.replace(" ", "") if got is not None else None
                elif key_ == "Overload name" and want == "":
                    want = None
                    got = s["args"].get(key_)
                else:
                    got = s["args"].get(key_)
                if got != want:
                    fail(f"{e['name'][:60]!r}: annotation {key_} = {str(got)[:60]!r}, JSON {str(want)[:60]!r}")
            want_stack = a.get("Call stack")
            got_stack = "".join(f + ";" for f in reversed(s["stack"])) if s["stack"] else None
            if want_stack != got_stack:
                fail(f"{e['name'][:60]!r}: call stack {str(got_stack)[:80]!r}, JSON {str(want_stack)[:80]!r}")
    # nesting: the JSON's parent (rebuilt from ns, touching trimmed) vs Perfetto's
    for tid, lst in js_cpu.items():
        st_ = []
        for e in sorted(lst, key=lambda e: (ns(e["ts"]), -ns(e["dur"]))):
            if id(e) not in matched:
                continue
            k = matched[id(e)]
            s = slices[k]
            while st_ and slices[st_[-1]]["end"] <= s["start"] and not (slices[st_[-1]]["end"] >= s["end"] and slices[st_[-1]]["start"] <= s["start"] and s["parent"] == st_[-1]):
                st_.pop()
            # Perfetto's parent must be a slice that contains it
            p = s["parent"]
            if p is not None and not (slices[p]["start"] <= s["start"] and s["end"] <= slices[p]["end"]):
                fail(f"{s['name'][:60]!r}: inside a slice that does not contain it")
            st_.append(k)
    # a thread's events that nest (by the JSON's ns) are slices of its own
    # track (or of its deeper ones), never of an "overlapping" lane
    for tid, lst in js_cpu.items():
        st_ = []
        for e in sorted(lst, key=lambda e: (ns(e["ts"]), -ns(e["dur"]))):
            if e.get("_async"):
                # an async range is on an "async" lane of its thread, and
                # takes no part in the nesting of the thread's scopes
                # (a pair the JSON writes for an event that overlaps its
                # thread's without nesting: on an "overlapping" lane)
                if id(e) in matched and not (track_name(slices[matched[id(e)]]["track"]) or "").startswith(("async", "overlapping")):
                    fail(f"thread {tid}: async {e['name'][:60]!r} at {e['ts']} is not on an async or overlapping lane")
                continue
            b, en = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
            while st_ and st_[-1] <= b:
                st_.pop()
            nests = not st_ or en <= st_[-1]
            if nests:
                st_.append(en)
            if nests and id(e) in matched and (track_name(slices[matched[id(e)]]["track"]) or "").startswith("overlapping"):
                fail(f"thread {tid}: {e['name'][:60]!r} at {e['ts']} nests but is on an overlapping lane")
    # threads' names
    for (pid, tid), nm in names.items():
        if pid != cpu_pid:
            continue
        got = [s_of(one(td["thread"][0], "thread_name", b"")) for td in tracks.values() if td.get("thread") and i32(one(td["thread"][0], "tid")) == tid]
        if got != [nm]:
            fail(f"thread {tid}: name {got!r}, JSON {nm!r}")
    # device slices: by stream track name and count
    if len(js_dev) != len(pf_dev):
        fail(f"{len(pf_dev)} device slices, JSON {len(js_dev)}")
    def js_stream(e):  # a lane written under an id of its own (past int32, or negative) keeps its stream in its name
        nm = names.get((int(e["pid"]), i32(e["tid"])))
        return nm if nm and re.fullmatch(r"stream -?\d+", nm) else f"stream {e['tid']}"
    jd = sorted((ns(e["ts"]) + offset, e["name"], js_stream(e), e["cat"]) for e in js_dev)
    pd = sorted((slices[k]["start"], slices[k]["name"], re.sub(r" \(\d+\)$", "", track_name(slices[k]["track"]) or ""), slices[k]["cat"]) for k in pf_dev)
    if jd != pd:
        fail(f"device slices differ: {pd[:3]} vs JSON {jd[:3]}")
    # marks and counters
    jm = sorted((i32(e["tid"]), e["name"], ns(e["ts"]) + offset, e["cat"]) for e in ev if e.get("ph") == "I")
    pm = sorted((thread_of(t)[1] if thread_of(t) else None, n, ts, c) for t, n, ts, a, c in instants if n != "metadata")
    if jm != pm:
        fail(f"marks differ: {pm[:3]} vs JSON {jm[:3]}")
    # a counter's value as both files can say it: the JSON writes NaN and
    # the infinities as null, the Perfetto file as the double itself
    def cv(v):
        v = None if v is None else float(v)
        return (0, 0.0) if v is None or v != v or v in (float("inf"), float("-inf")) else (1, v)
    jc = sorted((e["name"], ns(e["ts"]) + offset, cv(list(e["args"].values())[0]), e["cat"]) for e in ev if e.get("ph") == "C")
    by_name = defaultdict(set)
    for t, ts, (v, c) in counters:
        by_name[track_name(t)].add(t)
    for nm, ts_ in by_name.items():
        if len(ts_) != 1:
            fail(f"counter {str(nm)[:60]!r}: {len(ts_)} tracks, the JSON one series")
    pc = sorted((track_name(t), ts, cv(v), c) for t, ts, (v, c) in counters if not (track_name(t) or "").startswith("[memory]"))
    if jc != pc:
        fail(f"counters differ: {pc[:3]} vs JSON {jc[:3]}")
    jmem = sorted((ns(e["ts"]) + offset, int(e["args"]["Total Allocated"]), e["cat"]) for e in ev if e.get("ph") == "i" and e["name"] == "[memory]")
    pmem = sorted((ts, int(v), c) for t, ts, (v, c) in counters if (track_name(t) or "").startswith("[memory]"))
    if jmem != pmem:
        fail(f"memory counters differ: {pmem[:3]} vs JSON {jmem[:3]}")
    # flows
    # (ids by category: a fwdbwd arrow's id k is 2^63 | k in the protobuf,
    # apart from ac2g's correlation ids)
    def flow_id(e):
        if e.get("cat") not in ("ac2g", "fwdbwd") or e.get("name") != e.get("cat"):
            fail(f"flow {e!r}: category and name must be ac2g or fwdbwd")
        return int(e["id"]) | (1 << 63 if e["cat"] == "fwdbwd" else 0)
    js_s = {flow_id(e): e for e in ev if e.get("ph") == "s"}
    js_f = {flow_id(e): e for e in ev if e.get("ph") == "f"}
    if len(js_s) != sum(1 for e in ev if e.get("ph") == "s") or len(js_f) != sum(1 for e in ev if e.get("ph") == "f"):
        fail("a flow id used twice in one category")
    if set(js_s) != set(flows_out) or set(js_f) != set(flows_in):
        fail(f"flow ids differ: out {sorted(flows_out)[:5]} in {sorted(flows_in)[:5]}, JSON {sorted(js_s)[:5]} {sorted(js_f)[:5]}")
    for fid, e in js_s.items():
        k = flows_out.get(fid)
        if k is not None and slices[k]["start"] != ns(e["ts"]) + offset:
            fail(f"flow {fid}: starts on a slice at {slices[k]['start']}, JSON {e['ts']}")
    for fid, e in js_f.items():
        k = flows_in.get(fid)
        if k is not None and slices[k]["start"] != ns(e["ts"]) + offset:
            fail(f"flow {fid}: ends on a slice at {slices[k]['start']}, JSON {e['ts']}")
    # metadata: the instant's annotations and the trace attributes agree
    meta = [a for t, n, ts, a, c in instants if n == "metadata"]
    if len(meta) != 1:
        fail(f"{len(meta)} metadata instants")
    else:
        for k, v in meta[0].items():
            if k not in attributes:
                fail(f"metadata {k[:60]!r}: no trace attribute")
            elif k not in json_args and attributes[k] != v:
                fail(f"metadata {k[:60]!r}: attribute {attributes[k][:60]!r}, annotation {v[:60]!r}")
            elif k in json_args and json.loads(attributes[k]) != v:
                fail(f"metadata {k[:60]!r}: attribute {attributes[k][:60]!r} is not the annotation's JSON")
    print(f"check_perfetto: {len(trace.get('packet', []))} packets, {len(slices)} slices, {len(instants)} instants, {len(counters)} counter values, "
          f"{len(flows_out)} flows, {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
