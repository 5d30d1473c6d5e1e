#!/usr/bin/python3
"""Differential fuzz of prof.h's tables against PyTorch.

Run from anywhere, after `make build`, with the Python that has PyTorch 1.13:

    /usr/bin/python3 tests/tables/fuzz.py [--cases N] [--seed S] [--keep DIR]
                                          [--extreme] [--bin PATH] [--jobs J]
                                          [--minimize]

It writes N random, valid case files (FORMAT.md) into a scratch directory,
computes each NAME.expected with gen_expected.py's patched PyTorch (imported
from this directory, so the expected text is exactly what gen_expected.py
would write), runs the already built test_tables binary on that directory
(PROF_TABLES_DIR; it leaves NAME.got beside each case whose output differs)
and compares request by request. It builds nothing itself.

 * A request on which PyTorch raises (e.g. the AssertionError of
   _format_time_share when a device-time total is 0, where prof.h prints
   NaN) is reported as skipped, never as a mismatch; its place in
   NAME.expected holds the line "<<PyTorch raised TYPE: message>>".
 * Cases stay inside prof.h's documented API: positive column widths,
   sort keys prof.h accepts, end >= start, use_device NULL/"" or an ASCII
   identifier of up to 23 characters, times exact as PyTorch's floats
   (|t| < 2^50 us), and no sum (totals, self memory, key_averages,
   total_average) that leaves int64, which prof.h saturates where Python's
   integers keep growing. A draft that breaks the last two is redrawn (the
   summary counts them).
 * --extreme also uses int64 extremes (INT64_MIN / INT64_MAX cells, values
   around 2^53) for memory and FLOPs, and times past 2^53 ns.
 * --fine draws times in whole nanoseconds that are not multiples of 125 ns
   (`option times=ns`, FORMAT.md). PyTorch then holds times as float
   microseconds (ns / 1000, as its Kineto parser does) and sums and
   subtracts them in floats, where prof.h computes in exact integer ns and
   rounds once, when printing. The comparison then applies this ROUNDING
   RULE and nothing looser: (1) every printed number (times with their
   unit, percentages, averages) may differ from PyTorch's by at most one
   unit in its last printed digit, compared in one unit (so "999.999us"
   against "1.000ms" is one such step) with the text around the numbers
   identical; (2) in a table sorted by a TIME key (sort_by of a CPU or
   device time, total, self or average), rows may come in another order
   only where, position by position, the two tables' sort-key cells agree
   under (1), and the same rows (under (1)) must appear, except rows whose
   key agrees with the last row's, which the row_limit cut may keep in one
   table and not the other (equal keys in exact ns can differ by an ulp in
   floats, and the reverse); integer keys (memory, count, FLOPs, node id)
   allow no change of order; (3) a percentage may also differ by a
   millionth of itself (a large share of a small total carries the
   total's float error). Everything else must match byte for byte. To
   keep PyTorch's float error below these bounds, --fine draws times below
   about 10 s (the float of a timestamp near t is off by up to t * 2^-53,
   which a 1 ns duration taken from two such floats turns into a relative
   error) and redraws a case whose CPU or device time total cancels to
   under 1/1024 of its terms' magnitude (--extreme then changes memory and
   FLOPs only). Matches under the rule are counted apart.
 * --seed S makes the run reproducible (default: a random seed, printed).
   Case I of seed S is drawn from random.Random("S:I:ATTEMPT").
 * --keep DIR writes the cases into DIR (which must hold no .case files yet)
   and keeps them; without it a temporary directory is used and removed
   unless something mismatched.
 * --minimize shrinks each mismatching case (requests, events, then fields)
   while it still mismatches and writes NAME.min.case (and its
   NAME.min.expected) beside it.
 * --bin: the test_tables binary; default: what
   `ctest --test-dir build -N -V -R '^test_tables$'` names.

Exit status: 0 when nothing mismatched, 1 when something did, 2 on usage or
setup errors.
"""

import argparse
import collections
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import gen_expected as G  # noqa: E402  (imports torch 1.13 and patches it)

SEP = G.SEPARATOR
RAISED = "<<PyTorch raised "
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
US_EXACT = 2**50  # |t| below this (in us), multiples of 1/8 us are exact floats


class OutOfRange(Exception):
    """The draft leaves prof.h's documented range: draw another one."""


# ============================================================ PyTorch side


def _guard(request):
    """A request that raises in PyTorch gives a marker line instead of text."""

    def run(events, fields, where):
        try:
            return request(events, fields, where)
        except (G.CaseError, OutOfRange):
            raise
        except Exception as e:  # noqa: BLE001 (any exception PyTorch raises)
            msg = " ".join(str(e).split())[:200]
            return f"{RAISED}{type(e).__name__}: {msg}>>\n"

    return run


G._table = _guard(G._table)
G._total_average = _guard(G._total_average)

_INT_FIELDS = (
    "cpu_memory_usage",
    "self_cpu_memory_usage",
    "device_memory_usage",
    "self_device_memory_usage",
    "flops",
)
_TIME_FIELDS = (
    "cpu_time_total",
    "self_cpu_time_total",
    "device_time_total",
    "self_device_time_total",
)


def _fits_int64(values):
    """Every partial sum of values, in any order, stays in int64."""
    pos = sum(v for v in values if v > 0)
    neg = sum(v for v in values if v < 0)
    return pos <= INT64_MAX and neg >= INT64_MIN


def _check_ranges(events):
    """Raise OutOfRange when some sum over the events could leave int64 (or
    the exact float range of times). Sums over the whole list bound every
    key_averages group, the total_average, and their partial sums."""
    for evt in events:
        for attr in ("cpu_memory_usage", "device_memory_usage"):
            if evt.cpu_children and not _fits_int64(
                [getattr(evt, attr)] + [-getattr(c, attr) for c in evt.cpu_children]
            ):
                raise OutOfRange(f"self {attr} of {evt.name!r}")
    for attr in _INT_FIELDS:
        if not _fits_int64([getattr(e, attr) or 0 for e in events]):
            raise OutOfRange(f"sum of {attr}")
    for attr in _TIME_FIELDS:
        if sum(abs(getattr(e, attr)) for e in events) >= US_EXACT:
            raise OutOfRange(f"sum of {attr}")
    for e in events:
        if sum(k.duration for k in e.kernels) >= US_EXACT:
            raise OutOfRange("kernel durations")
    if FINE:
        # The tables' percentages divide by these sums; where they cancel
        # (or come to a float 0 where prof.h's exact one is not, or the
        # reverse) PyTorch's float error grows past any last digit: such
        # drafts are outside what --fine compares.
        dev = [e.self_device_time_total for e in events
               if e.is_legacy or (e.device_type != G.DeviceType.CPU and not e.is_user_annotation)]
        for name, vals in (("self CPU", [e.self_cpu_time_total for e in events]), ("self device", dev)):
            mag = sum(abs(v) for v in vals)
            if mag > 0 and abs(sum(vals)) * 1024 < mag:
                raise OutOfRange(f"{name} total cancels")


_build_tree = G.EventList._build_tree


def _build_tree_checked(self):
    _build_tree(self)
    _check_ranges(self)


G.EventList._build_tree = _build_tree_checked


def _requests(text):
    return [line for line in text.split("\n") if line.startswith(("table", "total_average"))]


def expected_text(path):
    """(NAME.expected text, whether the events themselves made PyTorch
    raise). Raises OutOfRange for drafts outside the range and CaseError for
    a case gen_expected.py rejects (a bug of this generator)."""
    try:
        return G.run_case(path), False
    except (G.CaseError, OutOfRange):
        raise
    except Exception as e:  # noqa: BLE001 (building the events raised)
        with open(path, encoding="utf-8") as f:
            n = len(_requests(f.read()))
        msg = " ".join(str(e).split())[:200]
        return f"{RAISED}{type(e).__name__}: {msg}>>\n{SEP}" * n, True


# ============================================================== generator

NAME_POOL = [
    "aten::mm", "aten::add", "aten::addmm", "aten::relu", "aten::empty", "aten::copy_",
    "aten::to", "aten::linear", "ProfilerStep#1", "op", "x", "", "a b", "k=v", "c:d",
    "名前", "ñame", "🔥op", "e\u0301", "naïve_kernel", "aten::convolution_backward_overrideable",
    "{}", "{0}", "%s%d", "a|b", "#not_comment", " lead", "trail ",
]
LONG_NAMES = [
    "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>",
    "x" * 51, "y" * 52, "z" * 53, "w" * 54, "v" * 55, "u" * 56, "t" * 57,
    "ü" * 52, "🔥" * 53, "名" * 60, "a" * 200,
]
OVERLOADS = ["", "", "", "Tensor", "out", "Scalar", "self_out", "ü" * 10, "o" * 60, "int_Tensor"]
STACK_ENTRIES = [
    "model.py(10): forward", "train.py(42): step", "x.py(1): f", "a", "ab", "abc", "abcd",
    "/very/long/path/to/some/deeply/nested/python/package/directory/structure/module_file.py(1234): some_function_name",
    "torch/nn/modules/module.py(1501): _call_impl", "ünïcödé.py(7): ƒ", "🔥.py(1): g",
    "p" * 71, "q" * 72, "r" * 75, "s" * 76, "t" * 80, "",
]
# use_device: "none" (None), "" (also no device in both), or an ASCII
# identifier of up to 23 characters (prof_events_set_device's range).
DEVICES_USE = ["cuda"] * 8 + ["none"] * 4 + [
    "", "xpu", "mps", "hpu", "mtia", "privateuse1", "Cuda_2", "d", "x" * 23, "_0",
]
SORT_KEYS = [
    "cpu_time", "cuda_time", "xpu_time", "device_time", "privateuse1_time",
    "cpu_time_total", "cuda_time_total", "xpu_time_total", "device_time_total",
    "self_cpu_time_total", "self_cuda_time_total", "self_device_time_total", "self_xpu_time_total",
    "cpu_memory_usage", "cuda_memory_usage", "xpu_memory_usage", "device_memory_usage",
    "self_cpu_memory_usage", "self_cuda_memory_usage", "self_xpu_memory_usage",
    "self_device_memory_usage", "self_privateuse1_memory_usage", "count", "flops", "node_id",
]
_EIGHTHS = ["", ".125", ".25", ".375", ".5", ".625", ".75", ".875"]


FINE = False  # --fine: whole ns, not multiples of 125 ns


def us(x):
    """x microseconds rounded to a multiple of 1/8 (--fine: of 1 ns), as an
    exact decimal (no exponent: test_tables reads digits)."""
    if FINE:
        n = round(x * 1000)
        if abs(n) >= US_EXACT * 8:
            raise OutOfRange(f"time {x}")
        sign, n = ("-", -n) if n < 0 else ("", n)
        return f"{sign}{n // 1000}.{n % 1000:03d}"
    n8 = round(x * 8)
    if abs(n8) >= US_EXACT * 8:
        raise OutOfRange(f"time {x}")
    sign, n8 = ("-", -n8) if n8 < 0 else ("", n8)
    return f"{sign}{n8 // 8}{_EIGHTHS[n8 % 8]}"


def r8(x):
    if FINE:  # a whole ns, and mostly not a multiple of 125 ns
        return round(x * 1000 + 0.001 * (x != int(x))) / 1000
    return round(x * 8) / 8


class Gen:
    def __init__(self, rnd, extreme):
        self.r = rnd
        self.extreme = extreme

    def time_scale(self):
        if FINE:  # see --fine: times stay below about 10 s
            return self.r.choice([0.001, 0.01, 0.125, 0.3, 1, 10, 100, 1000, 1e4])
        scales = [0.125, 1, 10, 100, 1000, 1e4, 1e5, 1e6, 1e7, 1e9, 1e10]
        if self.extreme and self.r.random() < 0.4:
            # past 2^53 ns (9.007e12 us), still exact as PyTorch's floats
            scales = [1e12, 1e13, 2**43, 1e14]
        return self.r.choice(scales)

    def mem(self):
        r = self.r
        c = r.random()
        if c < 0.3:
            return 0
        vals = [1, 1023, 1024, 1025, 1048575, 1048576, 1048577, 2**30 - 1, 2**30, 2**30 + 1,
                5 * 2**30 + 12345, 2**40, 1536, 10**6, 10**9]
        if self.extreme and r.random() < 0.3:
            vals = [INT64_MAX, INT64_MIN, INT64_MIN + 1, 2**62 + 2**61, 2**60, 2**62,
                    2**52 + 1, 2**53 - 1, 2**53, 2**53 + 1, 2**63 - 2**10, 2**64 // 3]
        if c < 0.7:
            v = r.choice(vals)
        else:
            v = int(10 ** r.uniform(0, 12))
        if r.random() < 0.3 and v != INT64_MIN:
            v = -v
        return v

    def flops(self):
        r = self.r
        c = r.random()
        if c < 0.35:
            return 0
        vals = [1, 2, 999, 1000, 1001, 999999, 10**6, 10**9 - 1, 10**9, 10**12 - 1, 10**12,
                10**15 - 2, 10**15 - 1, 10**15, 999999999999998, 999999999999997, 10**18, 12345678,
                3 * 10**17]
        if self.extreme and r.random() < 0.3:
            vals = [INT64_MAX, 2**62, 2**53 - 1, 2**53, 2**53 + 1, 2**53 + 2, 10**18 + 1]
        if c < 0.7:
            v = r.choice(vals)
        else:
            v = int(10 ** r.uniform(0, 18))
        if r.random() < 0.1:
            v = -v
        return v

    def shapes(self):
        r = self.r
        c = r.random()
        if c < 0.2:
            return "[]"
        if c < 0.25:
            return "[[]]"
        out = []
        for _ in range(r.randint(1, 4)):
            dims = [r.choice([1, 2, 3, 16, 128, 1024, 0, -1, 2**40]) for _ in range(r.randint(0, 4))]
            out.append("[" + ", ".join(str(d) for d in dims) + "]")
        if r.random() < 0.05:
            out = out * 10  # a long shapes string (test_tables: <= 64 inputs, 256 dims)
        return "[" + ", ".join(out) + "]"

    def stack(self):
        r = self.r
        n = r.choice([0, 1, 1, 2, 3, 5, 7])
        ents = [r.choice(STACK_ENTRIES) for _ in range(n)]
        if n == 1 and ents[0] == "" and r.random() < 0.5:
            ents = ["x"]
        return "|".join(ents)

    def name(self, pool):
        if self.r.random() < 0.08:
            return self.r.choice(LONG_NAMES)
        return self.r.choice(pool)

    def group_fields(self):
        r = self.r
        f = []
        if r.random() < 0.3:
            f.append("group_by_input_shapes=1")
        if r.random() < 0.3:
            f.append("group_by_stack_n=%d" % r.choice([0, 1, 2, 3, 5, -1, -2]))
        if r.random() < 0.3:
            f.append("group_by_overload_name=1")
        return f

    def case(self):
        r = self.r
        lines = ["option\ttimes=ns"] if FINE else []
        use_device = r.choice(DEVICES_USE)
        has_device = use_device not in ("none", "")
        profile_memory = r.random() < 0.4
        with_flops = r.random() < 0.4
        opts = []
        if use_device != "none" or r.random() < 0.3:
            opts.append("use_device=" + use_device)
        if profile_memory or r.random() < 0.2:
            opts.append("profile_memory=%d" % profile_memory)
        if with_flops or r.random() < 0.2:
            opts.append("with_flops=%d" % with_flops)
        if opts:  # one or several option lines
            if r.random() < 0.5:
                lines.append("option\t" + "\t".join(opts))
            else:
                lines += ["option\t" + o for o in opts]

        pool = r.sample(NAME_POOL, r.randint(2, 8))
        scale = self.time_scale()
        use_mem = profile_memory or r.random() < 0.2
        use_flops = with_flops or r.random() < 0.2
        use_shapes = r.random() < 0.3
        use_stack = r.random() < 0.3
        use_overload = r.random() < 0.25
        use_node = r.random() < 0.2
        use_bw = r.random() < 0.25
        events = []
        ncpu_target = r.choice([1, 2, 3, 5, 8, 12, 20, 40, 100, 300])
        stack_p = r.choice([0.6, 0.6, 0.05, 0.01])
        max_depth = r.choice([5, 12])
        kernels = []  # (name, start, duration) for matching device events

        def ev_fields(name, thread, start, end, cpu=True):
            f = [("name", name), ("thread", str(thread)), ("start", us(start)), ("end", us(end))]
            if use_node and r.random() < 0.6:
                f.append(("node", str(r.choice([-1, 0, 1, 2, 5]))))
            if use_mem and r.random() < 0.7:
                f.append(("cpu_mem", str(self.mem())))
                if r.random() < 0.7:
                    f.append(("dev_mem", str(self.mem())))
            if use_flops and r.random() < 0.6:
                f.append(("flops", str(self.flops())))
            if use_shapes and r.random() < 0.7:
                f.append(("shapes", self.shapes()))
            if use_stack and r.random() < stack_p:
                f.append(("stack", self.stack()))
            if use_overload and r.random() < 0.6:
                f.append(("overload", r.choice(OVERLOADS)))
            if use_bw and r.random() < 0.5:
                if r.random() < 0.3:
                    f.append(("scope", r.choice(["1", "1", "0", "2"])))
                f.append(("seq", str(r.choice([-1, 0, 1, 2, 3]))))
                if r.random() < 0.5:
                    f.append(("fwd_thread", str(r.choice([0, 1, 2, 3]))))
            if cpu and r.random() < 0.05:
                f.append(("user_annotation", "1"))
            if cpu and r.random() < 0.07:
                f.append(("legacy", "1"))
            if r.random() < 0.1:
                f.append(("id", str(r.randint(-5, 1000))))
            if cpu and has_device and r.random() < 0.3:
                for _ in range(r.choice([1, 1, 2, 3])):
                    kn = r.choice(["gemm", "add_k", "k:with:colons", "relu_k"])
                    dur = r8(r.choice([0, 0.125, 1, 2.5, 999.875, 1000, 1e6, r.uniform(0, scale * 2)] + ([0.001, 0.999, 999.999, 0.0005] if FINE else [])))
                    f.append(("kernel", "%s:%d:%s" % (kn, r.choice([0, 0, 1]), us(dur))))
                    kernels.append((kn, start, dur))
            return f

        def gen_tree(thread, t0, t1, depth, parent_name):
            """events nested in [t0, t1]"""
            if len(events) >= ncpu_target or depth > max_depth:
                return
            cur = t0
            for _ in range(r.choice([0, 1, 1, 2, 3])):
                if len(events) >= ncpu_target:
                    return
                span = t1 - cur
                if span < 0:
                    break
                kind = r.random()
                if kind < 0.1:
                    s = e = cur  # zero length
                elif kind < 0.2:
                    s, e = cur, t1  # ends with the parent
                else:
                    s = cur + r.uniform(0, span / 2)
                    e = s + r.uniform(0, t1 - s)
                s, e = r8(s), r8(e)
                e = min(e, t1)
                s = max(s, t0)
                e = max(e, s)
                nm = parent_name if (parent_name is not None and r.random() < 0.25) else self.name(pool)
                events.append(ev_fields(nm, thread, s, e))
                if r.random() < 0.06:  # a duplicate of the same range
                    events.append(ev_fields(self.name(pool), thread, s, e))
                gen_tree(thread, s, e, depth + 1, nm)
                cur = e if r.random() < 0.7 else s

        threads = r.sample([1, 2, 3, 7, 140000000000], r.choice([1, 1, 2, 3]))
        if r.random() < 0.35:
            # intervals on a small grid: equal starts, identical ranges, zero
            # lengths, partial overlaps, repeated names
            step = r.choice([0.001, 0.003, 0.007, 0.125, 0.333, 1, 1000] if FINE else [0.125, 1, 1000, 1e6] + ([1e13] if self.extreme else []))
            gpool = pool[: r.randint(1, 3)]
            for _ in range(r.choice([r.randint(1, 25), r.randint(1, 200)])):
                a, b = sorted((r.randint(0, 10), r.randint(0, 10)))
                if r.random() < 0.2:
                    b = a
                events.append(ev_fields(r.choice(gpool), r.choice(threads), a * step, b * step))
        else:
            for th in threads:
                t = r.choice([0, 0, 5, 1000]) * scale / 10
                for _ in range(r.choice([1, 2, 3, 30])):
                    d = 0 if r.random() < 0.05 else r.uniform(0, scale * 10)
                    s, e = r8(t), r8(t + d)
                    nm = self.name(pool)
                    events.append(ev_fields(nm, th, s, e))
                    gen_tree(th, s, e, 1, nm)
                    t = e + r.choice([0, 0, 1, scale])
                if r.random() < 0.3:  # partly overlapping the others
                    s = r8(r.uniform(0, t))
                    events.append(ev_fields(self.name(pool), th, s, r8(s + r.uniform(0, scale * 5))))
        for _ in range(r.choice([0, 0, 0, 1, 2])):  # async events
            s = r8(r.uniform(0, scale * 10))
            f = ev_fields(self.name(pool + ["rpc_async"]), r.choice(threads), s, r8(s + r.uniform(0, scale * 10)))
            f.append(("async", "1"))
            events.append(f)
        if has_device or r.random() < 0.2:  # device events
            for kn, s, dur in kernels:
                if r.random() < 0.8:
                    f = [("name", kn), ("thread", str(r.choice([9, 10]))), ("start", us(s + 1)),
                         ("end", us(s + 1 + dur)), ("device", "cuda")]
                    if r.random() < 0.5:
                        f.append(("resource", str(r.choice([7, 8]))))
                    if r.random() < 0.2:
                        f.append(("device_index", "1"))
                    if r.random() < 0.1:
                        f.append(("user_annotation", "1"))
                    if use_mem and r.random() < 0.3:
                        f.append(("dev_mem", str(self.mem())))
                    if use_node and r.random() < 0.3:
                        f.append(("node", "1"))
                    events.append(f)
            for _ in range(r.choice([0, 0, 1, 2])):
                s = r8(r.uniform(0, scale))
                f = [("name", r.choice(["gpu_user_ann", "memcpy", "gemm"])), ("thread", "9"),
                     ("start", us(s)), ("end", us(s + r.uniform(0, scale))), ("device", "cuda")]
                if r.random() < 0.5:
                    f.append(("user_annotation", "1"))
                events.append(f)
        memory = []
        if events and r.random() < 0.3:
            # memory records (FORMAT.md: memory lines): the events in
            # (start, -end) order, each record at a time that no CPU event
            # of another thread holds, often exactly at an event's start or
            # end (PyTorch's interval includes both)
            def span(f):
                d = dict(f)
                return float(d["start"]), float(d["end"]), d["thread"], d.get("device") == "cuda"

            events.sort(key=lambda f: (span(f)[0], -span(f)[1]))
            spans = [span(f) for f in events]
            for _ in range(r.choice([1, 2, 5, 20])):
                th = str(r.choice(threads))
                s0, e0, _, _ = r.choice(spans)
                ts = r.choice([s0, e0, r8(s0 - r.choice([0.125, 0.001])), r8(e0 + r.choice([0.125, 0.001])),
                               r8(r.uniform(min(sp[0] for sp in spans) - scale, max(sp[1] for sp in spans) + scale))])
                if any(a <= ts <= b and t != th and not dev for a, b, t, dev in spans):
                    continue
                f = [("thread", th), ("ts", us(ts)), ("bytes", str(self.mem() or 1))]
                if r.random() < 0.3:
                    f.append(("device", "cuda"))
                memory.append(f)
        elif r.random() < 0.15:
            r.shuffle(events)
        if r.random() < 0.05:
            events, memory = [], []
        for f in events:
            lines.append("event\t" + "\t".join("%s=%s" % kv for kv in f))
        for f in memory:
            lines.append("memory\t" + "\t".join("%s=%s" % kv for kv in f))

        for _ in range(r.randint(1, 6)):  # requests
            f = []
            if r.random() < 0.2:
                if r.random() < 0.5:
                    f = ["averages=1"] + self.group_fields()
                lines.append("\t".join(["total_average"] + f))
                continue
            if r.random() < 0.5:
                f = ["averages=1"] + self.group_fields()
            if r.random() < 0.6:
                f.append("sort_by=" + r.choice(SORT_KEYS))
            if r.random() < 0.3:
                f.append("row_limit=%d" % r.choice([0, 1, 2, 3, -1, -5, 5, 100]))
            # widths: positive only (prof.h reads 0 as the default, < 0 as none)
            if r.random() < 0.25:
                f.append("max_name_column_width=%d" % r.choice([1, 2, 3, 4, 5, 6, 8, 10, 20, 54, 55, 56, 100]))
            if r.random() < 0.15:
                f.append("max_shapes_column_width=%d" % r.choice([1, 2, 3, 5, 10, 20, 80, 200]))
            if r.random() < 0.15:
                f.append("max_src_column_width=%d" % r.choice([1, 2, 3, 4, 5, 10, 30, 75, 200]))
            if r.random() < 0.2:
                f.append("header=" + r.choice(["", "My header", "x = 1", "ünï 🔥", " "]))
            if r.random() < 0.2:
                f.append("top_level_events_only=" + r.choice(["1", "1", "0"]))
            if r.random() < 0.25:
                f.append("time_unit=" + r.choice(["s", "ms", "us"]))
            r.shuffle(f)
            lines.append("\t".join(["table"] + f))
        return "\n".join(lines) + "\n"


MAX_ATTEMPTS = 200


def make_case(job):
    """Write case `index` of `seed` and its expected text into `directory`.
    Returns (file name without .case, drafts redrawn, [(request index,
    exception name)] for the requests PyTorch raised on)."""
    directory, seed, index, extreme = job
    name = "s%s_%06d" % (seed, index)
    path = os.path.join(directory, name + ".case")
    for attempt in range(MAX_ATTEMPTS):
        try:
            text = Gen(random.Random(f"{seed}:{index}:{attempt}"), extreme).case()
        except OutOfRange:
            continue
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            exp, _ = expected_text(path)
        except OutOfRange:
            continue
        except G.CaseError as e:
            raise RuntimeError(f"fuzz.py wrote a case gen_expected.py rejects: {e}") from None
        with open(path[: -len(".case")] + ".expected", "w", encoding="utf-8", newline="\n") as f:
            f.write(exp)
        parts = exp.split(SEP)[:-1]
        raised = [(i, p[len(RAISED):].split(":", 1)[0]) for i, p in enumerate(parts) if p.startswith(RAISED)]
        return name, attempt, raised
    raise RuntimeError(f"case {index} of seed {seed}: no draft in range after {MAX_ATTEMPTS} attempts")


# ============================================================== prof.h side


def find_bin():
    build = os.path.join(ROOT, "build")
    try:
        out = subprocess.run(
            ["ctest", "--test-dir", build, "-N", "-V", "-R", "^test_tables$"],
            capture_output=True, text=True, timeout=120,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    m = re.search(r"Test command: (\S+)", out)
    if m and os.access(m.group(1), os.X_OK):
        return m.group(1)
    guess = os.path.join(build, "tests", "test_tables")
    return guess if os.access(guess, os.X_OK) else None


def run_bin(binary, directory):
    """Run test_tables on directory: (exit status, stdout, stderr)."""
    env = dict(os.environ, PROF_TABLES_DIR=directory)
    try:
        r = subprocess.run([binary], cwd=ROOT, env=env, capture_output=True, timeout=3600)
    except subprocess.TimeoutExpired:
        return None, "", "timed out"
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def _summary_counts(stdout):
    m = re.search(r"test_tables: (\d+) passed, (\d+) failed", stdout)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


# ------------------------------------------------ --fine: the rounding rule

_NUM = re.compile(r" *(-?\d+\.\d+)(us|ms|s|%)?")
_SCALE = {"us": 1, "ms": 1000, "s": 1000000, "%": 1}
_TIME_KEYS = ("cpu_time_total=", "self_cpu_time_total=", "cpu_time=", "device_time_total=",
              "self_device_time_total=", "device_time=")
ROUNDED = set()  # cases that matched only under the rounding rule


def _num_close(x, ux, y, uy, times):
    """Rule (1): one unit in the last printed digit, in one unit."""
    if x == y and ux == uy:
        return True
    if not (times or (ux and uy)) or (ux == "%") != (uy == "%"):
        return False
    sx, sy = _SCALE.get(ux, 1), _SCALE.get(uy, 1)
    step = max(Decimal(1).scaleb(-len(x.split(".")[1])) * sx, Decimal(1).scaleb(-len(y.split(".")[1])) * sy)
    if ux == "%":  # (3): a huge share of a small total carries the total's float error
        step = max(step, abs(Decimal(x)) * Decimal("1e-6"))
    return abs(Decimal(x) * sx - Decimal(y) * sy) <= step


def _line_close(a, b):
    if a == b:
        return True
    if _NUM.sub("\0", a) != _NUM.sub("\0", b):
        return False
    times = a.startswith(_TIME_KEYS)
    return all(_num_close(m.group(1), m.group(2), n.group(1), n.group(2), times)
               for m, n in zip(_NUM.finditer(a), _NUM.finditer(b)))


# Sort keys that are times: the index of their cell among a row's time and
# percentage cells (Self CPU %, Self CPU, CPU total %, CPU total, CPU time
# avg, Self DEV, Self DEV %, DEV total, DEV time avg). Other keys are
# integers, exact in both: their rows never change places.
_TIME_SORT = {"self_cpu_time_total": 1, "cpu_time_total": 3, "cpu_time": 4,
              "self_device_time_total": 5, "device_time_total": 7, "device_time": 8}


def _sort_cell(line, key):
    """The printed value of a row's sort key (None: not a time key)."""
    key = key.replace("cuda", "device").replace("xpu", "device").replace("privateuse1", "device")
    k = _TIME_SORT.get(key)
    if k is None:
        return None
    cells = [m.group(0).strip() for m in _NUM.finditer(line) if m.group(2)]
    if len(cells) in (4, 8) and k > 2:
        k -= 1  # an async row prints CPU total % as the int 0
    return cells[k] if k < len(cells) else ""


def _request_close(exp, got, request):
    """exp and got (one request's text) agree under the rounding rule."""
    el, gl = exp.split("\n"), got.split("\n")

    def seps(lines):
        return [i for i, ln in enumerate(lines) if "-" in ln and set(ln) <= {"-", " "}]

    se, sg = seps(el), seps(gl)
    if len(se) < 3 or len(sg) != len(se) or el[se[0]] != gl[sg[0]]:
        return len(el) == len(gl) and all(_line_close(a, b) for a, b in zip(el, gl))
    if se[1] != sg[1] or len(el) - se[2] != len(gl) - sg[2]:
        return False
    outside = list(zip(el[: se[1] + 1], gl[: sg[1] + 1])) + list(zip(el[se[2]:], gl[sg[2]:]))
    if not all(_line_close(a, b) for a, b in outside):
        return False
    sort_by = next((f.split("=", 1)[1] for f in request.split("\t") if f.startswith("sort_by=")), None)

    def groups(lines):
        """A row and the Source Location lines under it (no numbers)."""
        out = []
        for ln in lines:
            if out and not _NUM.search(ln):
                out[-1].append(ln)
            else:
                out.append([ln])
        return out

    def close(x, y):
        return len(x) == len(y) and all(_line_close(p, q) for p, q in zip(x, y))

    er, gr = groups(el[se[1] + 1: se[2]]), groups(gl[sg[1] + 1: sg[2]])
    if len(er) != len(gr):
        return False
    if all(close(x, y) for x, y in zip(er, gr)):
        return True
    if sort_by is None or _sort_cell(er[0][0], sort_by) is None:
        return False

    def key(x):
        return _sort_cell(x[0], sort_by)

    if not all(_line_close(key(x), key(y)) for x, y in zip(er, gr)):  # rule (2)
        return False
    left, extra = list(gr), []
    for x in er:  # the same rows, each within rule (1)
        j = next((k for k, y in enumerate(left) if close(x, y)), None)
        if j is None:
            extra.append(x)
        else:
            left.pop(j)
    # rows that only one table kept: a near-equal key at the row_limit cut
    return all(_line_close(key(x), key(er[-1])) for x in extra + left)


def compare(directory, name, got):
    """Differences between NAME.expected and prof.h's output `got` (None:
    test_tables found them equal), skipping the requests PyTorch raised on:
    [(request index, request line, first differing expected line, got
    line)], empty when they match."""
    if got is None:
        return []
    case = _read(os.path.join(directory, name + ".case"))
    exp = _read(os.path.join(directory, name + ".expected")).split(SEP)
    parts = got.split(SEP)
    reqs = _requests(case)
    diffs = []
    fine = "\ttimes=ns" in case
    for i, e in enumerate(exp[:-1]):
        if e.startswith(RAISED):
            continue
        g = parts[i] if i < len(parts) - 1 else None
        if g == e:
            continue
        if fine and g is not None and i < len(reqs) and _request_close(e, g, reqs[i]):
            ROUNDED.add(name)
            continue
        el = e.split("\n")
        gl = (g or "").split("\n")
        k = next((j for j in range(min(len(el), len(gl))) if el[j] != gl[j]), min(len(el), len(gl)))
        diffs.append((i, reqs[i] if i < len(reqs) else "?",
                      el[k] if k < len(el) else None,
                      (gl[k] if k < len(gl) else None) if g is not None else "<missing>"))
    if len(parts) != len(exp) and not diffs:
        diffs.append((len(exp) - 1, "?", "(%d requests)" % (len(exp) - 1), "(%d outputs)" % (len(parts) - 1)))
    return diffs


def verdicts(binary, directory, names):
    """name -> list of differences ([] = matched) or a crash description."""
    rc, out, err = run_bin(binary, directory)
    counts = _summary_counts(out)
    got = {n: os.path.join(directory, n + ".got") for n in names}
    ngot = sum(os.path.exists(p) for p in got.values())
    other_err = [ln for ln in err.splitlines() if ln and not ln.startswith("FAIL ")]
    if rc in (0, 1) and counts and counts[0] + ngot == len(names) and counts[1] == ngot and not other_err:
        return {n: compare(directory, n, _read(p) if os.path.exists(p) else None) for n, p in got.items()}
    # Something else failed (a crash, a case prof.h rejected): run each case
    # alone to tell which.
    result = {}
    with tempfile.TemporaryDirectory(prefix="prof-fuzz-one-") as one:
        for n in names:
            for f in os.listdir(one):
                os.unlink(os.path.join(one, f))
            for ext in (".case", ".expected"):
                shutil.copy(os.path.join(directory, n + ext), one)
            rc, out, err = run_bin(binary, one)
            counts = _summary_counts(out)
            g = os.path.join(one, n + ".got")
            has_got = os.path.exists(g)
            if has_got:
                shutil.copy(g, directory)
            other_err = [ln for ln in err.splitlines() if ln and not ln.startswith("FAIL ")]
            if rc not in (0, 1) or not counts:
                how = "was killed by signal %d" % -rc if rc is not None and rc < 0 else "exited with status %s" % rc
                result[n] = "test_tables %s %s" % (how, (err.strip().splitlines() or [""])[-1][:300])
            elif other_err:
                result[n] = "test_tables: " + " / ".join(other_err)[:300]
            else:
                result[n] = compare(directory, n, _read(g) if has_got else None)
    return result


def still_fails(binary, lines):
    """For --minimize: does this case (a list of lines) still mismatch?"""
    with tempfile.TemporaryDirectory(prefix="prof-fuzz-min-") as d:
        path = os.path.join(d, "m.case")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        if not _requests("\n".join(lines)):
            return False
        try:
            exp, whole_raised = expected_text(path)
        except (G.CaseError, OutOfRange):
            return False
        if whole_raised:
            return False
        with open(os.path.join(d, "m.expected"), "w", encoding="utf-8", newline="\n") as f:
            f.write(exp)
        return bool(verdicts(binary, d, ["m"])["m"])


def minimize(binary, path):
    with open(path, encoding="utf-8") as f:
        lines = [ln for ln in f.read().split("\n") if ln and not ln.startswith("#")]
    if not still_fails(binary, lines):
        return None

    def drop_lines(kinds):
        chunk = len(lines)
        while chunk >= 1:
            idx = [j for j, ln in enumerate(lines) if ln.startswith(kinds)]
            removed = False
            for s in range(0, len(idx), chunk):
                gone = set(idx[s:s + chunk])
                cand = [ln for j, ln in enumerate(lines) if j not in gone]
                if still_fails(binary, cand):
                    lines[:] = cand
                    removed = True
                    break
            if not removed:
                chunk //= 2

    def drop_fields():
        for j in range(len(lines)):
            k = len(lines[j].split("\t")) - 1
            while k >= 1:
                parts = lines[j].split("\t")
                if k < len(parts) and not (parts[0] == "event" and parts[k].split("=", 1)[0] in ("name", "thread", "start", "end")):
                    cand = lines[:j] + ["\t".join(parts[:k] + parts[k + 1:])] + lines[j + 1:]
                    if still_fails(binary, cand):
                        lines[:] = cand
                k -= 1

    drop_lines(("table", "total_average"))
    drop_lines(("event",))
    drop_lines(("option",))
    drop_fields()
    drop_lines(("event",))
    out = path[: -len(".case")] + ".min.case"
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    with open(out[: -len(".case")] + ".expected", "w", encoding="utf-8", newline="\n") as f:
        f.write(expected_text(out)[0])
    return out


# ==================================================================== main


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=2000, help="number of random cases (default 2000, about 30 s)")
    ap.add_argument("--seed", type=int, default=None, help="seed (default: random, printed)")
    ap.add_argument("--keep", metavar="DIR", help="write and keep the cases in DIR")
    ap.add_argument("--extreme", action="store_true", help="int64 extremes and times past 2^53 ns")
    ap.add_argument("--bin", help="the test_tables binary (default: from ctest in build/)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="PyTorch processes (default: CPUs)")
    ap.add_argument("--minimize", action="store_true", help="shrink each mismatching case to NAME.min.case")
    ap.add_argument("--fine", action="store_true", help="times in whole ns, not multiples of 125 ns (the rounding rule applies)")
    args = ap.parse_args(argv[1:])
    if args.cases < 1 or args.jobs < 1:
        ap.error("--cases and --jobs must be positive")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**9)
    global FINE
    FINE = args.fine
    binary = os.path.abspath(args.bin) if args.bin else find_bin()
    if not binary or not os.access(binary, os.X_OK):
        print("fuzz.py: no test_tables binary; run `make build` first or give --bin", file=sys.stderr)
        return 2

    if args.keep:
        directory = os.path.abspath(args.keep)
        os.makedirs(directory, exist_ok=True)
        if any(f.endswith(".case") for f in os.listdir(directory)):
            print(f"fuzz.py: {directory} already holds .case files; give an empty directory", file=sys.stderr)
            return 2
    else:
        directory = tempfile.mkdtemp(prefix="prof-fuzz-")

    t0 = time.time()
    jobs = [(directory, seed, i, args.extreme) for i in range(args.cases)]
    print(f"fuzz.py: seed {seed}{' --extreme' if args.extreme else ''}{' --fine' if args.fine else ''}: {args.cases} cases in {directory}, "
          f"expected text from PyTorch {G.torch.__version__} ({args.jobs} process{'es' if args.jobs > 1 else ''})", flush=True)
    try:
        if args.jobs > 1:
            with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
                made = list(pool.imap_unordered(make_case, jobs, chunksize=4))
        else:
            made = [make_case(j) for j in jobs]
    except RuntimeError as e:
        print(f"fuzz.py: {e}", file=sys.stderr)
        return 2
    made.sort()
    t1 = time.time()
    names = [m[0] for m in made]
    result = verdicts(binary, directory, names)
    t2 = time.time()

    matched, skipped, mismatched = [], [], []
    exc_names = collections.Counter()
    nreq = nraised = 0
    for name, _, raised in made:
        with open(os.path.join(directory, name + ".case"), encoding="utf-8") as f:
            nreq += len(_requests(f.read()))
        nraised += len(raised)
        exc_names.update(e for _, e in raised)
        v = result[name]
        if v:
            mismatched.append(name)
        elif raised:
            skipped.append(name)
        else:
            matched.append(name)
    redrawn = sum(m[1] for m in made)

    print(f"cases run:   {len(names)} ({nreq} requests; {redrawn} drafts outside prof.h's range redrawn; "
          f"PyTorch {t1 - t0:.1f}s, {os.path.basename(binary)} {t2 - t1:.1f}s)")
    print(f"matched:     {len(matched)}" + (f" ({len(ROUNDED & set(matched))} of them under the rounding rule)" if args.fine else ""))
    print(f"skipped:     {len(skipped)} (PyTorch raised on {nraised} requests"
          + (": " + ", ".join(f"{n} {e}" for e, n in sorted(exc_names.items())) if nraised else "")
          + "; the other requests of these cases matched)")
    print(f"mismatched:  {len(mismatched)}")
    for name in mismatched:
        path = os.path.join(directory, name + ".case")
        v = result[name]
        print(f"  {path}")
        if isinstance(v, str):
            print(f"    {v}")
            continue
        for i, req, e, g in v[:5]:
            print(f"    request {i} {req!r}:")
            print(f"      expected: {e!r}"[:400])
            print(f"      got:      {g!r}"[:400])
        if len(v) > 5:
            print(f"    ... {len(v) - 5} more requests differ")
        if args.minimize:
            m = minimize(binary, path)
            print(f"    minimized: {m}" if m else "    (no longer fails on its own)")
    if mismatched:
        print(f"kept: {directory} (NAME.case, NAME.expected, NAME.got)")
    elif args.keep:
        print(f"kept: {directory}")
    else:
        shutil.rmtree(directory)
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
