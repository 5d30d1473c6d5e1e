#!/usr/bin/env python3
"""perfetto_marks.py TRACE.pftrace: for each mark (TYPE_INSTANT) name and
the track it is on, how many: one line "COUNT<TAB>LABEL<TAB>NAME" per pair,
LABEL "-" for a thread's own track, else the track's name ("depth
512-1023"). Decoded by protoc as check_perfetto.py does."""
import os, subprocess, sys
from collections import Counter
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_perfetto as cp

with open(sys.argv[1], "rb") as f:
    r = subprocess.run(["protoc", "--proto_path=" + os.path.dirname(cp.PROTO), "--decode=perfetto.protos.Trace",
                        os.path.basename(cp.PROTO)], stdin=f, capture_output=True, check=True)
tr = cp.parse_text(r.stdout.decode("utf-8", "surrogateescape"))
labels, names, n = {}, {}, Counter()
for pk in tr.get("packet", []):
    for td in pk.get("track_descriptor", []):
        labels[int(cp.one(td, "uuid"))] = "-" if td.get("thread") else cp.s_of(cp.one(td, "name", b""))
    for idata in pk.get("interned_data", []):
        for x in idata.get("event_names", []):
            names[int(cp.one(x, "iid"))] = cp.s_of(cp.one(x, "name", b""))
    for te in pk.get("track_event", []):
        if cp.one(te, "type") == "TYPE_INSTANT":
            n[(labels.get(int(cp.one(te, "track_uuid", "0")), "?"), names.get(int(cp.one(te, "name_iid", "0")), "?"))] += 1
for (label, name), k in sorted(n.items()):
    print(f"{k}\t{label}\t{name}")
