"""bench/export_torch.py - the PyTorch side of bench/export.c.

Reads a profile written by bench/synth.h (synth_write_file), builds the
FunctionEvents with what bench/export.c gives prof.h (input shapes, stack,
sequence_nr, flops; trace_name = name as the profiler sets it, without it
EventList.export_chrome_trace skips the event), then times
EventList.export_chrome_trace REPS times and prints `name value unit` lines.

Usage: python3 bench/export_torch.py PROFILE.bin OUT.json [REPS]
"""
import array
import json
import os
import statistics
import sys
import time


def main():
    from torch.autograd.profiler_util import EventList, FunctionEvent

    path, out = sys.argv[1], sys.argv[2]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    with open(path, "rb") as f:
        if f.readline().strip() != b"prof-synth 1":
            raise SystemExit("not a prof-synth file: " + path)
        names = []
        for _ in range(int(f.readline())):
            name, shapes, stack, flops = f.readline().decode().rstrip("\n").split("\t")
            names.append((name, None if shapes == "-" else json.loads(shapes),
                          [] if stack == "-" else stack.split("|"), int(flops)))
        n = int(f.readline())
        recs = array.array("q")
        recs.frombytes(f.read())
        if len(recs) != 5 * n or sys.byteorder != "little":
            raise SystemExit("truncated profile: " + path)

    events = []
    for i in range(n):
        k = 5 * i
        name, shapes, stack, flops = names[recs[k]]
        events.append(FunctionEvent(id=i, name=name, thread=recs[k + 1], start_us=recs[k + 2],
                                    end_us=recs[k + 3], input_shapes=shapes, stack=stack,
                                    sequence_nr=recs[k + 4], flops=flops or None, trace_name=name))
    evl = EventList(events, use_cuda=False)
    secs = []
    for _ in range(reps):
        if os.path.exists(out):
            os.unlink(out)
        t0 = time.perf_counter()
        evl.export_chrome_trace(out)
        secs.append(time.perf_counter() - t0)
    size = os.path.getsize(out)
    os.unlink(out)
    med = statistics.median(secs)
    print("torch_export_file_size %.1f MB" % (size / 1e6))
    print("torch_export_time_best %.4f s" % min(secs))
    print("torch_export_time_median %.4f s" % med)
    print("torch_export_events_per_s_median %.3f Mevents/s" % (n / med / 1e6))
    print("torch_export_mb_per_s_median %.0f MB/s" % (size / med / 1e6))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
