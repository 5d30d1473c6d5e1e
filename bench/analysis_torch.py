"""bench/analysis_torch.py - the PyTorch side of bench/analysis.c.

Reads a profile written by bench/synth.h (synth_write_file), builds one
torch.autograd.profiler_util.FunctionEvent per event (as the profiler does
when it parses its results; not timed), then times EventList._build_tree(),
key_averages() and table(), and prints `name value unit` lines, plus the
peak RSS of the process (resource.getrusage ru_maxrss) and the RSS before
the events were built, so the C side can form ratios.

Usage: python3 bench/analysis_torch.py PROFILE.bin
"""
import array
import resource
import sys
import time


def rss_mb():
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * resource.getpagesize() / 1048576.0


def read_profile(path):
    with open(path, "rb") as f:
        if f.readline().strip() != b"prof-synth 1":
            raise SystemExit("not a prof-synth file: " + path)
        names = []
        for _ in range(int(f.readline())):
            name, shapes, stack, flops = f.readline().decode().rstrip("\n").split("\t")
            names.append((name, shapes, stack, int(flops)))
        n = int(f.readline())
        recs = array.array("q")
        recs.frombytes(f.read())
        if len(recs) != 5 * n or sys.byteorder != "little":
            raise SystemExit("truncated profile: " + path)
    return names, n, recs


def main():
    from torch.autograd.profiler_util import EventList, FunctionEvent

    rss_before = rss_mb()
    names, n, recs = read_profile(sys.argv[1])
    t0 = time.perf_counter()
    events = []
    append = events.append
    for i in range(n):
        k = 5 * i
        append(FunctionEvent(id=i, name=names[recs[k]][0], thread=recs[k + 1],
                             start_us=recs[k + 2], end_us=recs[k + 3], stack=[]))
    del recs
    evl = EventList(events, use_cuda=False)
    del events
    t1 = time.perf_counter()
    evl._build_tree()
    t2 = time.perf_counter()
    avg = evl.key_averages()
    t3 = time.perf_counter()
    table = avg.table(sort_by="self_cpu_time_total")
    t4 = time.perf_counter()
    assert table
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print("torch_1m_build_events %.3f s" % (t1 - t0))
    print("torch_1m_build_tree %.3f s" % (t2 - t1))
    print("torch_1m_key_averages %.3f s" % (t3 - t2))
    print("torch_1m_table %.4f s" % (t4 - t3))
    print("torch_1m_tree_avg %.3f s" % (t3 - t1))
    print("torch_1m_peak_rss %.1f MB" % peak_mb)
    print("torch_1m_rss_before_events %.1f MB" % rss_before)
    print("torch_1m_rows %d rows" % len(avg))
    print("torch_1m_count_sum %d events" % sum(a.count for a in avg))
    print("torch_1m_self_sum %d us" % sum(a.self_cpu_time_total for a in avg))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
