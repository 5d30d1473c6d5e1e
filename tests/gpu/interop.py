#!/usr/bin/env python3
"""interop.py OUT_DIR - prof.h and torch.profiler in one process, on a GPU.

Builds tests/gpu/interop_lib.cu into OUT_DIR/libinterop.so with nvcc,
loads it into a Python process that has PyTorch with CUDA, and checks that
the two CUPTI clients take turns: a prof.h session alone records its
kernels; one run while torch.profiler holds CUPTI records none and says
why, without harming torch's profile; once torch.profiler is done prof.h
records again, or (PyTorch 2.11, whose Kineto keeps CUPTI to the process's
exit) records the CPU only and names PyTorch's profiler; and after
prof.h's prof_stop torch.profiler sees its kernels. Prints pass/FAIL lines; exit 0 when all passed, 77 without
PyTorch, CUDA or (where run.sh --build made none) nvcc."""
import ctypes
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
failed = 0


def result(ok, what):
    global failed
    print(("pass: " if ok else "FAIL: ") + "[interop] " + what, flush=True)
    failed += 0 if ok else 1


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    try:
        import torch
        from torch.profiler import profile, ProfilerActivity
    except ImportError:
        print("skipped: no PyTorch")
        return 77
    if not torch.cuda.is_available():
        print("skipped: PyTorch sees no GPU")
        return 77
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    nvcc = os.environ.get("NVCC", os.path.join(cuda, "bin", "nvcc"))
    lib = os.path.join(out, "libinterop.so")
    if os.access(nvcc, os.X_OK):
        extra = os.path.join(cuda, "extras", "CUPTI")  # toolkits that keep CUPTI apart
        inc = ["-I" + os.path.join(extra, "include")] if os.path.isfile(os.path.join(extra, "include", "cupti.h")) else []
        libdirs = [os.path.join(cuda, "lib64")] + ([os.path.join(extra, "lib64")] if os.path.isdir(os.path.join(extra, "lib64")) else [])
        cmd = [nvcc, "-std=c++17", "-O2", "-shared", "-Xcompiler", "-fPIC", "-DPROF_CUPTI", "-I" + root, "-I" + os.path.join(cuda, "include")] + inc
        cmd += [os.path.join(here, "interop_lib.cu"), "-o", lib] + ["-L" + d for d in libdirs] + ["-lcupti"]
        cmd += ["-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/lib"]
        for d in libdirs:
            cmd += ["-Xlinker", "-rpath", "-Xlinker", d]
        if subprocess.call(cmd) != 0:
            result(False, "nvcc could not build " + lib)
            return 1
    elif not os.path.isfile(lib):  # (run.sh --build makes it beside gpu_check)
        print("skipped: no nvcc (%s) and no %s built by run.sh --build" % (nvcc, lib))
        return 77
    torch.zeros(1, device="cuda")  # CUDA initialised by PyTorch first, as in a training script
    so = ctypes.CDLL(lib)
    so.interop_session.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    err = ctypes.create_string_buffer(512)
    n = 100

    k = so.interop_session(n, err, 512)
    result(k == n, "prof.h alone: %d of %d kernels recorded" % (k, n))

    def torch_kernels(p, prefix=""):
        return sum(1 for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA and e.name.startswith(prefix))

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        x = torch.ones(1 << 16, device="cuda")
        for _ in range(10):
            x = x * 1.5
        k = so.interop_session(n, err, 512)
        torch.cuda.synchronize()
    msg = err.value.decode("utf-8", "replace")
    result(k == 0 and "CUPTI" in msg, "prof.h while torch.profiler holds CUPTI: %d kernels, the CPU profile went on (%r)" % (k, msg[:160]))
    tk = torch_kernels(p)
    result(tk >= 10, "torch.profiler beside it kept its own: %d CUDA events" % tk)

    # Kineto keeps its CUPTI subscription from its first CUDA profile to the
    # process's exit (PyTorch 2.11): prof.h then records the CPU only and
    # says who holds CUPTI. A PyTorch that gives CUPTI back passes as well.
    k = so.interop_session(n, err, 512)
    msg = err.value.decode("utf-8", "replace")
    result(k == n or (k == 0 and "PyTorch's profiler" in msg),
           "prof.h after torch.profiler: %d of %d kernels recorded%s" % (k, n, " (CUPTI still held by Kineto; the message says so)" if k == 0 else ""))

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        so.interop_launch(n)
        x = torch.ones(1 << 16, device="cuda") * 2
        torch.cuda.synchronize()
    tk = torch_kernels(p, "interop_kernel")
    result(tk == n, "torch.profiler after prof.h's prof_stop: %d of the library's %d kernels" % (tk, n))
    print("interop: %s" % ("all passed" if not failed else "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
