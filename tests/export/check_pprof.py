#!/usr/bin/env python3
"""check_pprof.py PROFILE.pb STACKS: prof_export_pprof's profile against
prof_export_stacks_merged's folded stacks of the same list and metric.

  - protoc --decode=perftools.profiles.Profile (tests/export/proto/
    profile.proto, or PPROF_PROTO) decodes it; every location, function and
    string index resolves; one sample per unique stack; duration_nanos is
    set where there are samples;
  - each sample's stack, leaf last, written as a folded line (frames
    "name (file:line)" with the folded format's substitutions) and its value
    in whole us equals the folded stacks' line (stacks under 1 us are not
    in the folded file);
  - go tool pprof -raw (GOCACHE and HOME in a temporary directory, no
    network) reads it, with the same sample values in total.
Exit status 0 when all hold."""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from check_perfetto import parse_text, one  # noqa: E402

PROTO = os.environ.get("PPROF_PROTO", os.path.join(HERE, "proto", "profile.proto"))
fails = 0


def fail(msg):
    global fails
    fails += 1
    if fails <= 30:
        print("FAIL", msg)


def fold(frame):
    out = []
    for ch in frame:
        if ch in " ;" or ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f or ch in "\u00a0\u1680\u2028\u2029\u202f\u205f\u3000" or 0x2000 <= ord(ch) <= 0x200a:
            out.append("_")
        else:
            out.append(ch)
    return "".join(out) or "_"


def main():
    pb, stacks = sys.argv[1], sys.argv[2]
    with open(pb, "rb") as f:
        r = subprocess.run(["protoc", "--proto_path=" + os.path.dirname(PROTO), "--decode=perftools.profiles.Profile", os.path.basename(PROTO)],
                           stdin=f, capture_output=True)
    if r.returncode != 0:
        fail(f"protoc --decode failed: {r.stderr.decode(errors='replace')[:300]}")
        return 1
    p = parse_text(r.stdout.decode("utf-8", "surrogateescape"))
    strs = [b.decode("utf-8") for b in p.get("string_table", [])]
    if not strs or strs[0] != "":
        fail("string_table[0] is not \"\"")
    if p.get("sample") and int(one(p, "duration_nanos", "0")) <= 0:
        fail("no duration_nanos (the span of the events) in a profile with samples")
    fns = {int(one(f, "id")): f for f in p.get("function", [])}
    locs = {int(one(l, "id")): l for l in p.get("location", [])}

    def frame(lid):
        l = locs.get(lid)
        if l is None:
            fail(f"location {lid} missing")
            return "?"
        ln = l["line"][0]
        fn = fns.get(int(one(ln, "function_id")))
        if fn is None:
            fail("function missing")
            return "?"
        name = strs[int(one(fn, "name", "0"))]
        file = strs[int(one(fn, "filename", "0"))]
        line = int(one(ln, "line", "0"))
        return f"{name} ({file}:{line})" if file else name

    got = {}
    total = 0
    for s in p.get("sample", []):
        ids = [int(x) for x in s.get("location_id", [])]
        v = int(one(s, "value"))
        total += v
        key = ";".join(fold(frame(i)) for i in reversed(ids))
        if key in got:
            fail(f"two samples for one stack: {key[:80]!r}")
        got[key] = got.get(key, 0) + v
    want = {}
    with open(stacks, encoding="utf-8") as f:
        for line in f:
            k, _, v = line.rstrip("\n").rpartition(" ")
            want[k] = int(v)
    for k, v in want.items():
        if got.get(k, 0) // 1000 != v:
            fail(f"stack {k[:80]!r}: {got.get(k)} ns in the profile, {v} us in the folded stacks")
    for k, v in got.items():
        if v >= 1000 and k not in want:
            fail(f"stack {k[:80]!r} ({v} ns) is not in the folded stacks")
    # go tool pprof reads it
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GOCACHE=os.path.join(tmp, "cache"), HOME=tmp, GOFLAGS="-mod=mod", GOPROXY="off", GOTOOLCHAIN="local")
        r = subprocess.run(["go", "tool", "pprof", "-raw", pb], capture_output=True, env=env, timeout=300)
        if r.returncode != 0:
            fail(f"go tool pprof -raw failed: {r.stderr.decode(errors='replace')[:300]}")
        else:
            out = r.stdout.decode("utf-8", "replace")
            m = re.search(r"^Samples:\n[^\n]*\n(.*?)^Locations", out, re.S | re.M)
            vals = [int(x.split(":")[0]) for x in m.group(1).strip().splitlines() if re.match(r"\s*\d+:", x)] if m else []
            if sum(vals) != total:
                fail(f"go tool pprof -raw: samples sum to {sum(vals)}, the profile's to {total}")
    print(f"check_pprof: {len(got)} samples, {len(locs)} locations, {len(fns)} functions, total {total} ns, {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
