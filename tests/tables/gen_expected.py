#!/usr/bin/python3
"""Generate tests/tables/*.expected from tests/tables/*.case with real PyTorch.

Run from the repository root:

    /usr/bin/python3 tests/tables/gen_expected.py

(optional arguments: specific .case paths; default: every tests/tables/*.case)

The case-file and expected-file formats are described in tests/tables/FORMAT.md.

The installed PyTorch is 1.13.  The spec for table text is the NEWEST
torch/autograd/profiler_util.py (the reference text 001 in
/work/shared/reference).  1.13's real classes are used (FunctionEvent,
EventList, its tree building: _build_tree, _populate_cpu_children,
_remove_dup_nodes, _set_backward_stacktraces; _format_time,
_format_time_share, Interval, Kernel), and everything that differs from the
newest code is monkeypatched below with a faithful transcription of it.

Differences between 1.13 and the newest profiler_util.py, and how each is
patched (section "PATCHES" below):

 1. _format_memory: 1.13 prints " b", " Kb", " Mb", " Gb"; newest prints
    " B", " KB", " MB", " GB".  -> replaced with the newest function.
 2. FormattedTimesMixin: 1.13 has cuda_time / cuda_time_str /
    cuda_time_total_str / self_cuda_time_total_str; newest has device_time,
    device_time_str, device_time_total_str, self_device_time_total_str (and
    cuda_time as a deprecated alias of device_time).  -> added the device_*
    members; cuda_time now returns device_time; the cuda_*_str members now
    format the device_* values.
 3. FunctionEvent.__init__: newest takes overload_name, use_device,
    device_memory_usage (1.13: cuda_memory_usage), device_resource_id
    (default: thread), concrete_inputs, kwinputs, is_user_annotation,
    metadata_json, and initialises self_cpu_percent / total_cpu_percent /
    total_device_percent to -1.  -> __init__ wrapped: calls 1.13's __init__
    for the shared arguments, then sets the newest attributes;
    1.13's cuda_memory_usage attribute is removed (newest has none), and
    __repr__ is replaced by the newest one (1.13's reads cuda_memory_usage).
 4. FunctionEvent.device_time_total / self_device_time_total (1.13:
    cuda_time_total / self_cuda_time_total): newest returns 0 when
    `not self.use_device` (1.13 has no use_device and always computes);
    newest accepts device types CUDA, PrivateUse1, MTIA, HPU for non-CPU
    events (1.13: CUDA only).  -> replaced with transcriptions of the newest
    properties (PrivateUse1/MTIA do not exist in 1.13's DeviceType and are
    skipped; only CPU and CUDA events occur in the cases).  cuda_time_total /
    self_cuda_time_total become aliases of the device_* properties as in
    newest.
 5. FunctionEvent.self_device_memory_usage (1.13: self_cuda_memory_usage,
    reading cuda_memory_usage) -> newest property added (reads
    device_memory_usage); self_cuda_memory_usage becomes its alias.
 6. FunctionEventAvg: newest uses device_* attribute names, initialises
    use_device and overload_name, and add() also propagates overload_name,
    use_device and is_user_annotation from the first event.  -> class
    replaced by a transcription of the newest one (module global
    profiler_util.FunctionEventAvg rebound, so 1.13's total_average uses it).
 7. EventList.__init__: 1.13 takes use_cuda (default True); newest takes
    use_device (default None).  -> replaced with the newest __init__.
 8. EventList.table: newest has the time_unit argument and passes it to
    _build_table.  -> replaced.
 9. EventList.key_averages: newest adds group_by_overload_name, puts
    str(is_user_annotation) into the grouping key, appends evt.overload_name
    (note: the closure variable `evt`, which is the same event) when
    grouping by overload name, and resets overload_name to "" when not
    grouping by it; EventList built with use_device.  -> replaced.
10. _build_table: newest
      - takes use_device from events[0].use_device and raises RuntimeError if
        it is unset while there is device time;
      - adds the "Overload Name" column (after Name, width = name column
        width; values truncated like names) when any event has a non-empty
        overload_name;
      - sort_by: maps "cuda"/"xpu"/"privateuse1" in the key to "device";
        the sorted EventList gets use_device (1.13: use_cuda=has_cuda_time);
      - device column headers use use_device.upper() ("Self CUDA", ...; 1.13
        hard-codes CUDA) and the device-memory columns additionally require
        use_device to be set;
      - sum of self device time: legacy CPU events, plus events whose
        device_type is CUDA/PrivateUse1/MTIA and that are not user
        annotations (1.13: CUDA only, user annotations not excluded);
      - time_unit ("s"/"ms"/"us") overrides every time cell and the
        "Self CPU time total"/"Self <DEV> time total" lines;
      - footer "Self <USE_DEVICE.upper()> time total" (1.13: "Self CUDA");
      - Source Location: prints ALL further stack entries, one extra row
        each (1.13 printed only stack[1:5], MAX_STACK_ENTRY = 5);
      - stores self_cpu_percent / total_cpu_percent / total_device_percent
        on each printed event (no effect on the text).
    -> replaced with a transcription of the newest _build_table.
11. Unchanged and used from 1.13 as is: _format_time, _format_time_share
    (1.13 `assert` vs newest `raise AssertionError`: same exception),
    Interval, Kernel, EventList._build_tree, _populate_cpu_children
    (1.13 only has an unused `cur_end` variable), _remove_dup_nodes,
    _set_backward_stacktraces (`fwd_stacks[t] if t in fwd_stacks else []`
    == `fwd_stacks.get(t, [])`), total_average (same code; uses the patched
    FunctionEventAvg), FunctionEvent.append_kernel / append_cpu_child /
    set_cpu_parent / cpu_time_total / self_cpu_time_total /
    self_cpu_memory_usage / key.

Defaults chosen for fields a case does not give follow what the newest
profiler's Kineto parser passes (overload_name "", input_shapes [],
stack [], flops 0, fwd_thread 0); see FORMAT.md.

Cross-check done while writing this: for every table where 1.13 and the
newest code must agree (no overload names, user annotations, time_unit,
stacks longer than 5, device data with use_device unset), pristine 1.13's
EventList.table() gave the same text as the .expected files once the memory
units were spelled the 1.13 way.
"""

import ast
import glob
import math
import os
import re
import sys
from collections import defaultdict

import torch
import torch.autograd.profiler_util as pu
from torch.autograd import DeviceType

# PROF_TABLES_TORCH=native: a newer PyTorch's own classes, unpatched, for
# --check, which compares their tables with the .expected files (FORMAT.md);
# the .expected files themselves are written only by the patched 1.13.
NATIVE = os.environ.get("PROF_TABLES_TORCH") == "native"
if not NATIVE:
    assert torch.__version__.startswith("1.13"), torch.__version__

FunctionEvent = pu.FunctionEvent
EventList = pu.EventList

# Device types the newest code lists; the ones 1.13 lacks are skipped.
_DEV_TYPES_TIME = [
    getattr(DeviceType, n)
    for n in ("CUDA", "PrivateUse1", "MTIA", "HPU")
    if hasattr(DeviceType, n)
]
_DEV_TYPES_SUM = [
    getattr(DeviceType, n)
    for n in ("CUDA", "PrivateUse1", "MTIA")
    if hasattr(DeviceType, n)
]

# ===================================================================== PATCHES


# --- 1. _format_memory ------------------------------------------------------
def _format_memory(nbytes):
    """Return a formatted memory size string."""
    KB = 1024
    MB = 1024 * KB
    GB = 1024 * MB
    if abs(nbytes) >= GB:
        return f"{nbytes * 1.0 / GB:.2f} GB"
    elif abs(nbytes) >= MB:
        return f"{nbytes * 1.0 / MB:.2f} MB"
    elif abs(nbytes) >= KB:
        return f"{nbytes * 1.0 / KB:.2f} KB"
    else:
        return str(nbytes) + " B"


pu._format_memory = _format_memory
_format_time = pu._format_time
_format_time_share = pu._format_time_share
_attr_formatter = pu._attr_formatter

# --- 2. FormattedTimesMixin -------------------------------------------------
_Mixin = pu.FormattedTimesMixin
_Mixin.device_time_str = _attr_formatter("device_time")
_Mixin.device_time_total_str = _attr_formatter("device_time_total")
_Mixin.self_device_time_total_str = _attr_formatter("self_device_time_total")
_Mixin.device_time = property(
    lambda self: 0.0 if self.count == 0 else 1.0 * self.device_time_total / self.count
)
_Mixin.cuda_time = property(lambda self: self.device_time)
_Mixin.cuda_time_str = _attr_formatter("device_time")
_Mixin.cuda_time_total_str = _attr_formatter("device_time_total")
_Mixin.self_cuda_time_total_str = _attr_formatter("self_device_time_total")

# --- 3. FunctionEvent.__init__ ----------------------------------------------
_orig_fe_init = FunctionEvent.__init__


def _fe_init(
    self,
    id,
    name,
    thread,
    start_us,
    end_us,
    overload_name=None,
    fwd_thread=None,
    input_shapes=None,
    stack=None,
    scope=0,
    use_device=None,
    cpu_memory_usage=0,
    device_memory_usage=0,
    is_async=False,
    is_remote=False,
    sequence_nr=-1,
    node_id=-1,
    device_type=DeviceType.CPU,
    device_index=0,
    device_resource_id=None,
    is_legacy=False,
    flops=None,
    trace_name=None,
    concrete_inputs=None,
    kwinputs=None,
    is_user_annotation=False,
    metadata_json=None,
):
    _orig_fe_init(
        self,
        id,
        name,
        thread,
        start_us,
        end_us,
        fwd_thread=fwd_thread,
        input_shapes=input_shapes,
        stack=stack,
        scope=scope,
        cpu_memory_usage=cpu_memory_usage,
        cuda_memory_usage=device_memory_usage,
        is_async=is_async,
        is_remote=is_remote,
        sequence_nr=sequence_nr,
        node_id=node_id,
        device_type=device_type,
        device_index=device_index,
        is_legacy=is_legacy,
        flops=flops,
        trace_name=trace_name,
    )
    del self.cuda_memory_usage  # newest FunctionEvent has no such attribute
    self.overload_name = overload_name
    self.concrete_inputs = concrete_inputs
    self.kwinputs = kwinputs
    self.use_device = use_device
    self.device_memory_usage = device_memory_usage
    self.device_resource_id = thread if device_resource_id is None else device_resource_id
    self.is_user_annotation = is_user_annotation
    self.self_cpu_percent = -1
    self.total_cpu_percent = -1
    self.total_device_percent = -1
    self.metadata_json = metadata_json


FunctionEvent.__init__ = _fe_init


# --- 4./5. FunctionEvent device properties ----------------------------------
def _fe_self_device_memory_usage(self):
    if self.is_async or self.device_type != DeviceType.CPU:
        return 0
    return self.device_memory_usage - sum(
        child.device_memory_usage for child in self.cpu_children
    )


def _fe_device_time_total(self):
    if self.is_async or not self.use_device:
        return 0
    if self.device_type == DeviceType.CPU:
        if not self.is_legacy:
            # account for the kernels in the children ops
            return sum(kinfo.duration for kinfo in self.kernels) + sum(
                ch.device_time_total for ch in self.cpu_children
            )
        else:
            # each legacy cpu events has a single (fake) kernel
            return sum(kinfo.duration for kinfo in self.kernels)
    else:
        if self.device_type not in _DEV_TYPES_TIME:
            raise AssertionError(
                f"Expected device_type to be CUDA, PrivateUse1, MTIA, or HPU, but got {self.device_type}"
            )
        return self.time_range.elapsed_us()


def _fe_self_device_time_total(self):
    if self.is_async or not self.use_device:
        return 0
    if self.device_type == DeviceType.CPU:
        return self.device_time_total - sum(
            child.device_time_total for child in self.cpu_children
        )
    else:
        if self.device_type not in _DEV_TYPES_TIME:
            raise AssertionError(
                f"Expected device_type to be CUDA, PrivateUse1, MTIA, or HPU, but got {self.device_type}"
            )
        return self.device_time_total


FunctionEvent.self_device_memory_usage = property(_fe_self_device_memory_usage)
FunctionEvent.self_cuda_memory_usage = property(lambda self: self.self_device_memory_usage)
FunctionEvent.device_time_total = property(_fe_device_time_total)
FunctionEvent.cuda_time_total = property(lambda self: self.device_time_total)
FunctionEvent.self_device_time_total = property(_fe_self_device_time_total)
FunctionEvent.self_cuda_time_total = property(lambda self: self.self_device_time_total)


def _fe_repr(self):
    device_name = self.use_device
    device_time = self.device_time_str
    device_memory_usage = self.device_memory_usage
    return (
        f"<FunctionEvent id={self.id} name={self.name} overload_name={self.overload_name} "
        f"device_type={self.device_type} node_id={self.node_id} cpu_time={self.cpu_time_str} "
        f"start_us={self.time_range.start} end_us={self.time_range.end} "
        f"cpu_children={str([child.id for child in self.cpu_children])} {device_name}_time={device_time} "
        f"name={self.name} thread={self.thread} input_shapes={str(self.input_shapes)} "
        f"cpu_memory_usage={self.cpu_memory_usage} {device_name}_memory_usage={device_memory_usage} "
        f"is_async={self.is_async} is_remote={self.is_remote} seq_nr={self.sequence_nr} is_legacy={self.is_legacy}>"
    )


FunctionEvent.__repr__ = _fe_repr  # 1.13's reads the removed cuda_memory_usage


# --- 6. FunctionEventAvg ----------------------------------------------------
class FunctionEventAvg(pu.FormattedTimesMixin):
    """Used to average stats over multiple FunctionEvent objects (newest)."""

    def __init__(self) -> None:
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0
        self.device_time_total = 0
        self.self_cpu_time_total = 0
        self.self_device_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.flops = 0

    def add(self, other):
        if self.key is None:
            # First function being recorded as part of FunctionEventAvg, propagate
            # fields.
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children

            self.overload_name = other.overload_name
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
            self.use_device = other.use_device
            self.is_user_annotation = other.is_user_annotation

        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError(
                "Expected other to be a FunctionEvent or FunctionEventAvg"
            )
        if other.key != self.key:
            raise AssertionError(
                f"Expected keys to match, but got {other.key} vs {self.key}"
            )

        self.cpu_time_total += other.cpu_time_total
        self.device_time_total += other.device_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.self_device_time_total += other.self_device_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        self.count += other.count
        if self.flops is None:
            self.flops = other.flops
        elif other.flops is not None:
            self.flops += other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)


pu.FunctionEventAvg = FunctionEventAvg


# --- 7. EventList.__init__ --------------------------------------------------
def _el_init(self, *args, **kwargs):
    use_device = kwargs.pop("use_device", None)
    profile_memory = kwargs.pop("profile_memory", False)
    with_flops = kwargs.pop("with_flops", False)
    list.__init__(self, *args, **kwargs)
    self._use_device = use_device
    self._profile_memory = profile_memory
    self._tree_built = False
    self._with_flops = with_flops


EventList.__init__ = _el_init


# --- 8. EventList.table -----------------------------------------------------
def _el_table(
    self,
    sort_by=None,
    row_limit=100,
    max_src_column_width=75,
    max_name_column_width=55,
    max_shapes_column_width=80,
    header=None,
    top_level_events_only=False,
    time_unit=None,
):
    return _build_table(
        self,
        sort_by=sort_by,
        row_limit=row_limit,
        max_src_column_width=max_src_column_width,
        max_name_column_width=max_name_column_width,
        max_shapes_column_width=max_shapes_column_width,
        header=header,
        profile_memory=self._profile_memory,
        with_flops=self._with_flops,
        top_level_events_only=top_level_events_only,
        time_unit=time_unit,
    )


EventList.table = _el_table


# --- 9. EventList.key_averages ----------------------------------------------
def _el_key_averages(
    self,
    group_by_input_shapes=False,
    group_by_stack_n=0,
    group_by_overload_name=False,
):
    if not self._tree_built:
        raise AssertionError("Expected tree to be built before calling key_averages")
    stats = defaultdict(FunctionEventAvg)

    def get_key(event, group_by_input_shapes, group_by_stack_n, group_by_overload_name):
        key = [
            str(event.key),
            str(event.node_id),
            str(event.device_type),
            str(event.is_legacy),
            str(event.is_user_annotation),
        ]
        if group_by_overload_name:
            key.append(evt.overload_name)  # sic: closure variable, as in newest
        if group_by_input_shapes:
            key.append(str(event.input_shapes))
        if group_by_stack_n > 0:
            key += event.stack[:group_by_stack_n]
        return tuple(key)

    for evt in self:
        stats[
            get_key(evt, group_by_input_shapes, group_by_stack_n, group_by_overload_name)
        ].add(evt)

    avg_list = EventList(
        stats.values(),
        use_device=self._use_device,
        profile_memory=self._profile_memory,
        with_flops=self._with_flops,
    )
    for evt in avg_list:
        evt.stack = evt.stack[:group_by_stack_n]
        if not group_by_input_shapes:
            evt.input_shapes = ""
        if not group_by_overload_name:
            evt.overload_name = ""
    return avg_list


EventList.key_averages = _el_key_averages


# --- 10. _build_table -------------------------------------------------------
def _build_table(
    events,
    sort_by=None,
    header=None,
    row_limit=100,
    max_src_column_width=75,
    max_name_column_width=55,
    max_shapes_column_width=80,
    with_flops=False,
    profile_memory=False,
    top_level_events_only=False,
    time_unit=None,
):
    """Print a summary of events (which can be a list of FunctionEvent or FunctionEventAvg)."""
    if len(events) == 0:
        return ""

    has_device_time = any(event.self_device_time_total > 0 for event in events)
    has_device_mem = any(event.self_device_memory_usage > 0 for event in events)
    use_device = events[0].use_device
    if not use_device and has_device_time:
        raise RuntimeError("use_device is None, but there is device performance data.")

    has_input_shapes = any(
        (event.input_shapes is not None and len(event.input_shapes) > 0)
        for event in events
    )

    has_overload_names = any(
        (event.overload_name is not None and len(event.overload_name) > 0)
        for event in events
    )

    if sort_by is not None:
        events = EventList(
            sorted(
                events,
                key=lambda evt: getattr(
                    evt,
                    sort_by.replace("cuda", "device")
                    .replace("xpu", "device")
                    .replace("privateuse1", "device"),
                ),
                reverse=True,
            ),
            use_device=use_device,
            profile_memory=profile_memory,
            with_flops=with_flops,
        )

    name_column_width = max(len(evt.key) for evt in events) + 4
    if max_name_column_width is not None:
        name_column_width = min(name_column_width, max_name_column_width)

    shapes_column_width = max(len(str(evt.input_shapes)) for evt in events) + 4
    if max_shapes_column_width is not None:
        shapes_column_width = min(shapes_column_width, max_shapes_column_width)

    DEFAULT_COLUMN_WIDTH = 12
    flops_column_width = DEFAULT_COLUMN_WIDTH

    src_column_width = None
    stacks = [
        evt.stack for evt in events if evt.stack is not None and len(evt.stack) > 0
    ]
    has_stack = len(stacks) > 0
    if has_stack:
        src_column_width = (
            max(max(len(entry) for entry in stack) for stack in stacks) + 4
        )
        if max_src_column_width is not None:
            src_column_width = min(src_column_width, max_src_column_width)

    headers = ["Name"]
    if has_overload_names:
        headers.append("Overload Name")
    headers += [
        "Self CPU %",
        "Self CPU",
        "CPU total %",
        "CPU total",
        "CPU time avg",
    ]

    device_name = use_device.upper() if use_device is not None else "None"
    if has_device_time:
        headers.extend(
            [
                f"Self {device_name}",
                f"Self {device_name} %",
                f"{device_name} total",
                f"{device_name} time avg",
            ]
        )
    if profile_memory:
        headers.extend(
            [
                "CPU Mem",
                "Self CPU Mem",
            ]
        )
        if use_device and has_device_mem:
            headers.extend(
                [
                    f"{device_name} Mem",
                    f"Self {device_name} Mem",
                ]
            )
    headers.append("# of Calls")
    # Only append Node ID if any event has a valid (>= 0) Node ID
    append_node_id = any(evt.node_id != -1 for evt in events)
    if append_node_id:
        headers.append("Node ID")

    SPACING_SIZE = 2
    row_format_lst = [""]
    header_sep_lst = [""]
    line_length_lst = [-SPACING_SIZE]

    def add_column(padding, text_dir=">"):
        row_format_lst[0] += (
            "{: " + text_dir + str(padding) + "}" + (" " * SPACING_SIZE)
        )
        header_sep_lst[0] += "-" * padding + (" " * SPACING_SIZE)
        line_length_lst[0] += padding + SPACING_SIZE

    def auto_scale_flops(flops):
        flop_headers = [
            "FLOPs",
            "KFLOPs",
            "MFLOPs",
            "GFLOPs",
            "TFLOPs",
            "PFLOPs",
        ]
        if flops <= 0:
            raise AssertionError(f"Expected flops to be positive, but got {flops}")
        log_flops = max(0, min(math.log10(flops) / 3, float(len(flop_headers) - 1)))
        if not (log_flops >= 0 and log_flops < len(flop_headers)):
            raise AssertionError(
                f"Expected log_flops to be in range [0, {len(flop_headers)}), but got {log_flops}"
            )
        return (pow(10, (math.floor(log_flops) * -3.0)), flop_headers[int(log_flops)])

    add_column(name_column_width)
    if has_overload_names:
        add_column(name_column_width)
    for _ in headers[1 + has_overload_names :]:
        add_column(DEFAULT_COLUMN_WIDTH)

    if has_input_shapes:
        headers.append("Input Shapes")
        add_column(shapes_column_width)

    if has_stack:
        headers.append("Source Location")
        add_column(src_column_width, text_dir="<")

    if with_flops:
        # Auto-scaling of flops header
        raw_flops = [evt.flops for evt in events if evt.flops > 0]
        if len(raw_flops) != 0:
            (flops_scale, flops_header) = auto_scale_flops(min(raw_flops))
            headers.append(f"Total {flops_header}")
            add_column(flops_column_width)
        else:
            with_flops = False  # can't find any valid flops

    row_format = row_format_lst[0]
    header_sep = header_sep_lst[0]
    line_length = line_length_lst[0]
    add_column = None

    result = []

    def append(s):
        result.append(s)
        result.append("\n")  # Yes, newline after the end as well

    sum_self_cpu_time_total = 0
    sum_self_device_time_total = 0
    for evt in events:
        sum_self_cpu_time_total += evt.self_cpu_time_total
        if evt.device_type == DeviceType.CPU and evt.is_legacy:
            # in legacy profiler, kernel info is stored in cpu events
            sum_self_device_time_total += evt.self_device_time_total
        elif evt.device_type in _DEV_TYPES_SUM and not evt.is_user_annotation:
            # in kineto profiler, there're events with the correct device type (e.g. CUDA)
            sum_self_device_time_total += evt.self_device_time_total

    # Actual printing
    if header is not None:
        append("=" * line_length)
        append(header)
    if top_level_events_only:
        append("=" * line_length)
        append("This report only display top-level ops statistics")
    append(header_sep)
    append(row_format.format(*headers))

    append(header_sep)

    def trim_path(path, src_column_width):
        if len(path) > src_column_width:
            offset = len(path) - src_column_width
            path = path[offset:]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    def override_time_unit(time_us, default_str, time_unit):
        US_IN_SECOND = 1000.0 * 1000.0
        US_IN_MS = 1000.0
        if time_unit == "s":
            return f"{time_us / US_IN_SECOND:.3f}s"
        elif time_unit == "ms":
            return f"{time_us / US_IN_MS:.3f}ms"
        elif time_unit == "us":
            return f"{time_us:.3f}us"
        else:
            return default_str

    event_limit = 0
    for evt in events:
        if event_limit == row_limit:
            break
        if top_level_events_only and evt.cpu_parent is not None:
            continue
        else:
            event_limit += 1
        name = evt.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[: (max_name_column_width - 3)] + "..."

        evt.self_cpu_percent = _format_time_share(
            evt.self_cpu_time_total, sum_self_cpu_time_total
        )
        evt.total_cpu_percent = (
            _format_time_share(evt.cpu_time_total, sum_self_cpu_time_total)
            if not evt.is_async
            else 0
        )

        row_values = [name]
        if has_overload_names:
            overload_name = evt.overload_name
            if (
                max_name_column_width is not None
                and len(overload_name) >= max_name_column_width - 3
            ):
                overload_name = overload_name[: (max_name_column_width - 3)] + "..."
            row_values += [overload_name]
        row_values += [
            # Self CPU total %, 0 for async events.
            evt.self_cpu_percent,
            override_time_unit(
                evt.self_cpu_time_total, evt.self_cpu_time_total_str, time_unit
            ),  # Self CPU total
            # CPU total %, 0 for async events.
            evt.total_cpu_percent,
            override_time_unit(
                evt.cpu_time_total, evt.cpu_time_total_str, time_unit
            ),  # CPU total
            override_time_unit(
                evt.cpu_time, evt.cpu_time_str, time_unit
            ),  # CPU time avg
        ]
        if has_device_time:
            evt.total_device_percent = _format_time_share(
                evt.self_device_time_total, sum_self_device_time_total
            )
            row_values.extend(
                [
                    override_time_unit(
                        evt.self_device_time_total,
                        evt.self_device_time_total_str,
                        time_unit,
                    ),
                    # device time total %
                    evt.total_device_percent,
                    override_time_unit(
                        evt.device_time_total, evt.device_time_total_str, time_unit
                    ),
                    override_time_unit(
                        evt.device_time, evt.device_time_str, time_unit
                    ),  # device time avg
                ]
            )
        if profile_memory:
            row_values.extend(
                [
                    # CPU Mem Total
                    _format_memory(evt.cpu_memory_usage),
                    # Self CPU Mem Total
                    _format_memory(evt.self_cpu_memory_usage),
                ]
            )
            if use_device and has_device_mem:
                row_values.extend(
                    [
                        # Device Mem Total
                        _format_memory(evt.device_memory_usage),
                        # Self Device Mem Total
                        _format_memory(evt.self_device_memory_usage),
                    ]
                )
        row_values.append(
            evt.count,  # Number of calls
        )

        if append_node_id:
            row_values.append(evt.node_id)
        if has_input_shapes:
            row_values.append(str(evt.input_shapes)[:shapes_column_width])
        if with_flops:
            if evt.flops <= 0:
                row_values.append("--")
            else:
                row_values.append(f"{evt.flops * flops_scale:8.3f}")
        if has_stack:
            src_field = ""
            if len(evt.stack) > 0:
                src_field = trim_path(evt.stack[0], src_column_width)
            row_values.append(src_field)
        append(row_format.format(*row_values))

        if has_stack:
            empty_headers = [""] * (len(headers) - 1)
            for entry in evt.stack[1:]:
                append(
                    row_format.format(
                        *(empty_headers + [trim_path(entry, src_column_width)])
                    )
                )
            empty_headers.append("")
            append(row_format.format(*empty_headers))

    append(header_sep)
    append(
        f"Self CPU time total: {override_time_unit(sum_self_cpu_time_total, _format_time(sum_self_cpu_time_total), time_unit)}"
    )
    if has_device_time:
        append(
            f"Self {use_device.upper() if use_device is not None else 'None'} "
            f"time total: {override_time_unit(sum_self_device_time_total, _format_time(sum_self_device_time_total), time_unit)}"
        )
    return "".join(result)


pu._build_table = _build_table

if NATIVE:  # undo every patch above: the module's classes afresh
    import importlib

    pu = importlib.reload(pu)
    FunctionEvent = pu.FunctionEvent
    EventList = pu.EventList

# ================================================================ CASE FILES

SEPARATOR = "----8<----\n"


class CaseError(Exception):
    pass


def _parse_bool(v, where):
    if v not in ("0", "1"):
        raise CaseError(f"{where}: expected 0 or 1, got {v!r}")
    return v == "1"


def _parse_int(v, where):
    try:
        return int(v, 10)
    except ValueError:
        raise CaseError(f"{where}: expected an integer, got {v!r}") from None


# `option times=ns` (tests/tables/fuzz.py --fine): times may be any whole
# number of nanoseconds, given as decimal microseconds with up to 3
# decimals; each becomes ns / 1000 as a float, as the newest
# _parse_kineto_results makes start_us from start_ns. PyTorch then computes
# in floats where prof.h computes in exact ns, so the two may differ in a
# last digit or in the order of near-equal rows (fuzz.py's rounding rule).
NS_TIMES = False


def _parse_time(v, where):
    """A decimal number of microseconds that must be a multiple of 1/8 us
    (or, with times=ns, of 1 ns)."""
    if NS_TIMES:
        m = re.fullmatch(r"(-?)(\d+)(?:\.(\d{1,3}))?", v)
        if not m:
            raise CaseError(f"{where}: time {v!r} is not a whole number of ns in us")
        ns = int(m.group(2)) * 1000 + int((m.group(3) or "").ljust(3, "0"))
        return (-ns if m.group(1) else ns) / 1000
    try:
        x = float(v)
    except ValueError:
        raise CaseError(f"{where}: expected a number, got {v!r}") from None
    if not math.isfinite(x) or (x * 8) != int(x * 8):
        raise CaseError(f"{where}: time {v!r} is not a multiple of 0.125 us")
    return x


def _split_fields(parts, where):
    out = []
    for p in parts:
        if "=" not in p:
            raise CaseError(f"{where}: field {p!r} has no '='")
        k, v = p.split("=", 1)
        out.append((k, v))
    return out


def _parse_shapes(v, where):
    try:
        shapes = ast.literal_eval(v)
    except (ValueError, SyntaxError):
        raise CaseError(f"{where}: bad shapes {v!r}") from None
    if not isinstance(shapes, list) or not all(
        isinstance(s, list) and all(type(d) is int for d in s) for s in shapes
    ):
        raise CaseError(f"{where}: shapes must be a list of lists of ints: {v!r}")
    return shapes


_DEVICE_TYPES = {"cpu": DeviceType.CPU, "cuda": DeviceType.CUDA, "hpu": DeviceType.HPU}


def _make_event(index, fields, opts, where):
    kw = dict(
        id=index,
        overload_name="",
        fwd_thread=0,
        input_shapes=[],
        stack=[],
        scope=0,
        use_device=opts["use_device"],
        cpu_memory_usage=0,
        device_memory_usage=0,
        is_async=False,
        sequence_nr=-1,
        node_id=-1,
        device_type=DeviceType.CPU,
        device_index=0,
        device_resource_id=None,
        is_legacy=False,
        flops=0,
        is_user_annotation=False,
    )
    kernels = []
    seen = set()
    for k, v in fields:
        if k in seen and k != "kernel":
            raise CaseError(f"{where}: field {k!r} given twice")
        seen.add(k)
        w = f"{where}: {k}"
        if k == "name":
            kw["name"] = v
        elif k == "thread":
            kw["thread"] = _parse_int(v, w)
        elif k == "start":
            kw["start_us"] = _parse_time(v, w)
        elif k == "end":
            kw["end_us"] = _parse_time(v, w)
        elif k == "node":
            kw["node_id"] = _parse_int(v, w)
        elif k == "async":
            kw["is_async"] = _parse_bool(v, w)
        elif k == "overload":
            kw["overload_name"] = v
        elif k == "shapes":
            kw["input_shapes"] = _parse_shapes(v, w)
        elif k == "stack":
            kw["stack"] = v.split("|") if v != "" else []
        elif k == "flops":
            kw["flops"] = _parse_int(v, w)
        elif k == "cpu_mem":
            kw["cpu_memory_usage"] = _parse_int(v, w)
        elif k == "dev_mem":
            kw["device_memory_usage"] = _parse_int(v, w)
        elif k == "scope":
            kw["scope"] = _parse_int(v, w)
        elif k == "seq":
            kw["sequence_nr"] = _parse_int(v, w)
        elif k == "fwd_thread":
            kw["fwd_thread"] = _parse_int(v, w)
        elif k == "user_annotation":
            kw["is_user_annotation"] = _parse_bool(v, w)
        elif k == "legacy":
            kw["is_legacy"] = _parse_bool(v, w)
        elif k == "device":
            if v not in _DEVICE_TYPES:
                raise CaseError(f"{w}: unknown device {v!r}")
            kw["device_type"] = _DEVICE_TYPES[v]
        elif k == "device_index":
            kw["device_index"] = _parse_int(v, w)
        elif k == "resource":
            kw["device_resource_id"] = _parse_int(v, w)
        elif k == "id":
            kw["id"] = _parse_int(v, w)
        elif k == "kernel":
            parts = v.rsplit(":", 2)
            if len(parts) != 3:
                raise CaseError(f"{w}: expected <name>:<device>:<duration_us>")
            kernels.append(
                (parts[0], _parse_int(parts[1], w), _parse_time(parts[2], w))
            )
        else:
            raise CaseError(f"{where}: unknown event field {k!r}")
    for req in ("name", "thread", "start_us", "end_us"):
        if req not in kw:
            raise CaseError(f"{where}: missing {req.replace('_us', '')}")
    evt = FunctionEvent(**kw)
    for kname, kdev, kdur in kernels:
        evt.append_kernel(kname, kdev, kdur)
    return evt


def _parse_memory(fields, where):
    """A memory record: (thread, ts_us, bytes, device_type)."""
    rec = {"device": DeviceType.CPU}
    seen = set()
    for k, v in fields:
        if k in seen:
            raise CaseError(f"{where}: field {k!r} given twice")
        seen.add(k)
        w = f"{where}: {k}"
        if k == "thread":
            rec["thread"] = _parse_int(v, w)
        elif k == "ts":
            rec["ts"] = _parse_time(v, w)
        elif k == "bytes":
            rec["bytes"] = _parse_int(v, w)
        elif k == "device":
            if v not in ("cpu", "cuda"):  # (a memory record: CPU or CUDA memory)
                raise CaseError(f"{w}: unknown device {v!r}")
            rec["device"] = _DEVICE_TYPES[v]
        else:
            raise CaseError(f"{where}: unknown memory field {k!r}")
    for req in ("thread", "ts", "bytes"):
        if req not in rec:
            raise CaseError(f"{where}: missing {req}")
    return rec


def _charge_memory(events, records, opts):
    """Memory records as 1.13's profile._parse_kineto_results charges them
    (transcribed): every CPU event (async ones too) whose [start, end]
    holds a record's time, on any thread, adds its bytes (cpu or cuda by
    the record's device); a record no CPU event holds becomes a top-level
    "[memory]" FunctionEvent (no duration, trace_name None, stack [],
    input_shapes [], on the record's thread); then the whole list is
    sorted by (start, -end), stably.

    prof.h charges a record only to events of its own thread, so a case
    where another thread's event holds a record is rejected; so is a case
    whose events are not already in (start, -end) order (prof.h keeps a
    hand-built list's order and puts each row before the first event that
    starts after it)."""
    keys = [[e.time_range.start, -e.time_range.end] for e in events]
    if keys != sorted(keys):
        raise CaseError("memory lines need the events in (start, -end) order")
    matched = [False] * len(records)
    for evt in events:
        if evt.device_type != DeviceType.CPU:
            continue
        for i, (where, r) in enumerate(records):
            if evt.time_range.start <= r["ts"] <= evt.time_range.end:
                if evt.thread != r["thread"]:
                    raise CaseError(f"{where}: held by {evt.name!r} of another thread (PyTorch charges by time, prof.h by thread)")
                if r["device"] == DeviceType.CPU:
                    evt.cpu_memory_usage += r["bytes"]
                else:
                    evt.device_memory_usage += r["bytes"]
                matched[i] = True
    next_id = max([e.id for e in events] + [0])
    for i, (where, r) in enumerate(records):
        if matched[i]:
            continue
        next_id += 1
        events.append(
            FunctionEvent(
                id=next_id,
                name="[memory]",
                trace_name=None,
                thread=r["thread"],
                start_us=r["ts"],
                end_us=r["ts"],
                fwd_thread=r["thread"],
                input_shapes=[],
                stack=[],
                scope=0,
                use_device=opts["use_device"],
                # 1.13 leaves these two at None, on which a with_flops
                # table, a sort by flops and an Overload Name column raise
                # TypeError; prof.h's row has no FLOPs and no overload
                overload_name="",
                flops=0,
                cpu_memory_usage=r["bytes"] if r["device"] == DeviceType.CPU else 0,
                device_memory_usage=r["bytes"] if r["device"] != DeviceType.CPU else 0,
                is_async=False,
                sequence_nr=-1,
                device_type=DeviceType.CPU,
                device_index=0,
            )
        )
    events.sort(key=lambda evt: [evt.time_range.start, -evt.time_range.end])
    return events


_GROUP_FIELDS = ("averages", "group_by_input_shapes", "group_by_stack_n", "group_by_overload_name")


def _select(events, fields, where):
    """The event list a table/total_average request works on."""
    averages = False
    group = dict(group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False)
    for k, v in fields:
        w = f"{where}: {k}"
        if k == "averages":
            averages = _parse_bool(v, w)
        elif k == "group_by_input_shapes":
            group[k] = _parse_bool(v, w)
        elif k == "group_by_overload_name":
            group[k] = _parse_bool(v, w)
        elif k == "group_by_stack_n":
            group[k] = _parse_int(v, w)
    if averages:
        return events.key_averages(**group)
    if group != dict(group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        raise CaseError(f"{where}: group_by_* fields need averages=1")
    return events


def _table(events, fields, where):
    kw = {}
    seen = set()
    for k, v in fields:
        if k in seen:
            raise CaseError(f"{where}: field {k!r} given twice")
        seen.add(k)
        w = f"{where}: {k}"
        if k in _GROUP_FIELDS:
            continue
        elif k == "sort_by":
            kw["sort_by"] = v
        elif k in ("row_limit", "max_src_column_width", "max_name_column_width", "max_shapes_column_width"):
            kw[k] = _parse_int(v, w)
        elif k == "header":
            kw["header"] = v
        elif k == "top_level_events_only":
            kw[k] = _parse_bool(v, w)
        elif k == "time_unit":
            if v not in ("s", "ms", "us"):
                raise CaseError(f"{w}: expected s, ms or us")
            kw[k] = v
        else:
            raise CaseError(f"{where}: unknown table field {k!r}")
    return _select(events, fields, where).table(**kw)


def _total_average(events, fields, where):
    for k, v in fields:
        if k not in _GROUP_FIELDS:
            raise CaseError(f"{where}: unknown total_average field {k!r}")
    t = _select(events, fields, where).total_average()
    lines = [
        f"key={t.key}",
        f"count={t.count}",
        f"cpu_time_total={t.cpu_time_total:.3f}",
        f"self_cpu_time_total={t.self_cpu_time_total:.3f}",
        f"cpu_time={t.cpu_time:.3f}",
        f"device_time_total={t.device_time_total:.3f}",
        f"self_device_time_total={t.self_device_time_total:.3f}",
        f"device_time={t.device_time:.3f}",
        f"cpu_memory_usage={t.cpu_memory_usage}",
        f"self_cpu_memory_usage={t.self_cpu_memory_usage}",
        f"device_memory_usage={t.device_memory_usage}",
        f"self_device_memory_usage={t.self_device_memory_usage}",
        f"flops={t.flops}",
    ]
    return "".join(line + "\n" for line in lines)


def run_case(path):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")  # strict: case files must be UTF-8
    global NS_TIMES
    NS_TIMES = False
    opts = {"use_device": None, "profile_memory": False, "with_flops": False}
    raw = []  # (lineno, fields) of events
    memory = []  # (lineno, record) of memory lines
    requests = []  # (lineno, kind, fields)
    for lineno, line in enumerate(text.split("\n"), 1):
        where = f"{path}:{lineno}"
        if line == "" or line.startswith("#"):
            continue
        if "\r" in line:
            raise CaseError(f"{where}: carriage return in line")
        parts = line.split("\t")
        kind, fields = parts[0], _split_fields(parts[1:], where)
        if kind == "option":
            if raw or requests:
                raise CaseError(f"{where}: options must come before events")
            for k, v in fields:
                if k == "use_device":
                    opts["use_device"] = None if v == "none" else v
                elif k in ("profile_memory", "with_flops"):
                    opts[k] = _parse_bool(v, where)
                elif k == "times":
                    if v not in ("ns", "eighths"):
                        raise CaseError(f"{where}: times must be ns or eighths")
                    NS_TIMES = v == "ns"
                else:
                    raise CaseError(f"{where}: unknown option {k!r}")
        elif kind == "event":
            if requests:
                raise CaseError(f"{where}: events must come before tables")
            raw.append((where, fields))
        elif kind == "memory":
            if requests:
                raise CaseError(f"{where}: memory lines must come before tables")
            memory.append((where, _parse_memory(fields, where)))
        elif kind in ("table", "total_average"):
            requests.append((where, kind, fields))
        else:
            raise CaseError(f"{where}: unknown line kind {kind!r}")

    evts = [_make_event(i, fields, opts, where) for i, (where, fields) in enumerate(raw)]
    if memory:
        evts = _charge_memory(evts, memory, opts)
    events = EventList(
        evts,
        use_device=opts["use_device"],
        profile_memory=opts["profile_memory"],
        with_flops=opts["with_flops"],
    )
    events._build_tree()

    out = []
    for where, kind, fields in requests:
        if kind == "table":
            out.append(_table(events, fields, where))
        else:
            out.append(_total_average(events, fields, where))
        out.append(SEPARATOR)
    return "".join(out)


def check_cases(paths):
    """Each case's tables against its .expected; prints a unified diff of
    every one that differs, and one summary line."""
    import difflib

    same = differ = failed = 0
    for path in paths:
        exp = path[: -len(".case")] + ".expected"
        with open(exp, "rb") as f:
            want = f.read().decode("utf-8")
        try:
            got = run_case(path)
        except Exception as e:  # a newer PyTorch may refuse what 1.13 took
            failed += 1
            print(f"ERROR {os.path.basename(path)}: {type(e).__name__}: {e}")
            continue
        if got == want:
            same += 1
            continue
        differ += 1
        print(f"DIFFERS {os.path.basename(path)}")
        sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), got.splitlines(True), exp, "torch " + torch.__version__, n=1))
    print(f"torch {torch.__version__}{' (native)' if NATIVE else ''}: {same} cases equal, {differ} differ, {failed} raised, of {len(paths)}")
    return 0 if differ == 0 and failed == 0 else 1


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    paths = argv[1:] or sorted(glob.glob(os.path.join(here, "*.case")))
    if not paths:
        print("no .case files found", file=sys.stderr)
        return 1
    check = "--check" in paths
    paths = [p for p in paths if p != "--check"] or sorted(glob.glob(os.path.join(here, "*.case")))
    if check:
        return check_cases(paths)
    if NATIVE:
        print("PROF_TABLES_TORCH=native only checks (--check): the .expected files come from the patched 1.13", file=sys.stderr)
        return 2
    for path in paths:
        out = run_case(path)
        exp = path[: -len(".case")] + ".expected"
        with open(exp, "wb") as f:
            f.write(out.encode("utf-8"))
        print(f"wrote {os.path.relpath(exp)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
