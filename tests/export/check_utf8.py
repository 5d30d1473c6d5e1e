#!/usr/bin/env python3
"""check_utf8.py DIR STEM: the strings of DIR/STEM.json (JSON trace),
STEM.pftrace (Perfetto, decoded by protoc), STEM.stacks (folded stacks) and
STEM.pb (pprof, decoded by protoc) against the raw bytes DIR/raw.txt lists
(one "KIND HEX" a line; test_utf8_export.c).

Each raw string is PREFIX INDEX "[" BODY "]" with a prefix per kind (n name,
f file, fn function and stack entry, o overload name, k metadata key), BODY
any bytes but NUL, '[' and ']'. Every output is valid UTF-8, and every
PREFIX INDEX [ ... ] found in any string of any output must be exactly
raw.decode("utf-8", "replace") (Python's rule, Unicode's maximal subparts,
which the WHATWG TextDecoder of DevTools, Perfetto UI and speedscope
follows), with the folded format's substitutions in the folded stacks.
Each format must hold every name it is expected to hold. Exit status 0
when all hold."""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from check_perfetto import unescape  # noqa: E402  (protoc's string escapes, read once)
fails = 0


def fail(msg):
    global fails
    fails += 1
    if fails <= 30:
        print("FAIL", msg)


PAT = re.compile(r"(fn|f|n|o|k)(\d+)\[([^\[\]]*)\]")
PREFIX = {"name": "n", "file": "f", "func": "fn", "overload": "o", "metakey": "k"}


def fold(s):
    return "".join("_" if ch in " ;" or ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f or ch in "\u2028\u2029" else ch for ch in s)


def strict(b, where):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"{where}: invalid UTF-8 written: {b[max(0, e.start - 20):e.start + 20]!r}")
        return b.decode("utf-8", "replace")


def protoc_strings(path, msg, proto):
    with open(path, "rb") as f:
        r = subprocess.run(["protoc", "--proto_path=" + os.path.join(HERE, "proto"), "--decode=" + msg, proto],
                           stdin=f, capture_output=True)
    if r.returncode != 0:
        fail(f"{path}: protoc --decode failed: {r.stderr.decode(errors='replace')[:300]}")
        return []
    text = r.stdout.decode("latin-1")
    return [strict(unescape(m.group(1).encode("latin-1")), path) for m in re.finditer(r'"((?:[^"\\]|\\.)*)"', text)]


def json_strings(path):
    with open(path, "rb") as f:
        doc = json.loads(strict(f.read(), path))
    out = []

    def walk(v):
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for k, x in v.items():
                out.append(k)
                walk(x)
    walk(doc)
    return out, doc


def main():
    d, stem = sys.argv[1], sys.argv[2]
    want = {}
    with open(os.path.join(d, "raw.txt")) as f:
        for line in f:
            kind, hx = line.split()
            raw = bytes.fromhex(hx)
            m = re.match(rb"(fn|f|n|o|k)(\d+)\[", raw)
            assert m and m.group(1).decode() == PREFIX[kind], line
            body = raw[m.end():raw.rindex(b"]")]
            want[(PREFIX[kind], int(m.group(2)))] = body.decode("utf-8", "replace")
    names = {i for (p, i) in want if p == "n"}

    js, doc = json_strings(os.path.join(d, stem + ".json"))
    with open(os.path.join(d, stem + ".stacks"), "rb") as f:
        stacks = strict(f.read(), stem + ".stacks").split("\n")
    outputs = {
        "json": js,
        "perfetto": protoc_strings(os.path.join(d, stem + ".pftrace"), "perfetto.protos.Trace", "perfetto_trace.proto"),
        "stacks": stacks,
        "pprof": protoc_strings(os.path.join(d, stem + ".pb"), "perftools.profiles.Profile", "profile.proto"),
    }
    # each format holds every name / stack entry
    need = {"json": ["n", "o", "fn", "k"], "perfetto": ["n", "f", "fn", "o", "k"], "stacks": ["fn"], "pprof": ["fn"]}
    for fmt, strs in outputs.items():
        seen = {}
        checked = wrong = 0
        for s in strs:
            for m in PAT.finditer(s):
                key = (m.group(1), int(m.group(2)))
                if key not in want:
                    continue
                exp = fold(want[key]) if fmt == "stacks" else want[key]
                checked += 1
                seen.setdefault(key[0], set()).add(key[1])
                if m.group(3) != exp:
                    wrong += 1
                    fail(f"{fmt}: {key[0]}{key[1]}: wrote {m.group(3)!r}, a decoder reads the raw bytes as {exp!r}")
        for p in need[fmt]:
            all_of = {i for (q, i) in want if q == p}
            missing = all_of - seen.get(p, set())
            if missing:
                fail(f"{fmt}: {len(missing)} of {len(all_of)} strings of prefix {p!r} not found (e.g. {sorted(missing)[:5]})")
        print(f"check_utf8: {fmt}: {checked} strings compared, {wrong} wrong ({', '.join(f'{p} {len(v)}' for p, v in sorted(seen.items()))})")
    # the event names exactly (not only as a part of some string)
    evnames = {e.get("name") for e in doc.get("traceEvents", []) if isinstance(e, dict) and e.get("ph") == "X"}
    for i in names:
        exp = "n%d[%s]" % (i, want[("n", i)])
        if exp not in evnames:
            fail(f"json: no X event named {exp!r}")
    print("check_utf8:", "FAIL" if fails else "ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
