#!/usr/bin/env python3
"""Host time per call of the three launch paths, at small shapes, on the GPU machine.

For each C function of tileir_diff/ports/registry.py (its first ported variant, its first test
shape):

* ``c_abi``: cutile_<op> called through ctypes on descriptors built once (what a C caller pays,
  plus one ctypes call);
* ``ports``: the torch wrapper tileir_diff.ports.<op> (descriptors, current stream, the call);
* ``launch_variant``: the reference launcher tileir_diff.launch.launch_variant on the Python
  cubin (argument checks, packing, grid, stream lookup, cuLaunchKernel);
* ``prepare_launch``: the reference launcher's prepared relaunch (a bare cuLaunchKernel);
* ``wrapper_python``: the wrapper's own work without the C call (library lookup, descriptors,
  device and current stream), to tell the Python cost from the launch.

A C function of several kernels (``kernels_per_call: several``: splitk_matmul, flash_decode,
moe_align_block_size) runs its whole call on the C ABI and wrapper paths, on the arrays of
reference/<op>/<call_module>.py; the two reference paths launch the one forced kernel.

The C ABI and wrapper figures are each the lowest of ROUNDS alternating measurements, so that a
drift of the machine hits both alike.

Each path is called in batches of BATCH calls timed with perf_counter (the device is
synchronized between batches, outside the timed region); the figure is the median over batches
of the time per call. The kernels are short, so the launch queue never fills and the host time
is what is measured. Prints a table; `--out DIR` also writes launch_overhead.json.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ports import SEED, _call_module, _load_ref, c_abi_launcher, configs  # noqa: E402

BATCH = 100
BATCHES = 30
ROUNDS = 3


def per_call_us(torch, fn) -> float:
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(BATCHES):
        start = time.perf_counter()
        for _ in range(BATCH):
            fn()
        samples.append((time.perf_counter() - start) / BATCH * 1e6)
        torch.cuda.synchronize()
    return statistics.median(samples)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--name", default="launch_overhead.json", help="file name under --out")
    args = ap.parse_args(argv)
    import torch

    from tileir_diff import ports
    from tileir_diff.ports import torch_ops
    from tileir_diff.launch import launch_variant, prepare_launch

    rows, done = [], set()
    stream = int(torch.cuda.current_stream().cuda_stream)
    for op, variant, function, shapes in configs():
        if function.name in done:
            continue
        done.add(function.name)
        shape = shapes[0][0]
        ref = _load_ref(op)
        inputs = ref.make_inputs(variant.raw, shape, seed=SEED, device="cuda")
        cubin = REPO / "build" / "reference" / op.op / f"{variant.name}.sm_90.cubin"
        wrapper = getattr(ports, function.wrapper)
        # a C function of several kernels (splitk partial + reduce, ...) takes the whole call's
        # arrays (reference/<op>/<call_module>.py); the reference paths launch the one kernel
        call_inputs = inputs
        if function.call_module is not None:
            call_inputs = _call_module(op, function).call_inputs(variant.raw, shape, seed=SEED, device="cuda")
        kwargs = ports.wrapper_kwargs(function, variant.raw, call_inputs)
        tensors = [kwargs[a.name] for a in function.args if a.kind == "tensor"]

        def wrapper_python():
            ports.load_library()
            if hasattr(torch_ops, "_descriptor_pointers"):
                torch_ops._descriptor_pointers(tensors)  # noqa: B023
            else:  # an older wrapper (run against another checkout's tileir_diff for a before figure)
                [torch_ops._desc(t) for t in tensors]  # noqa: B023
            torch_ops._device_and_stream(tensors, None)  # noqa: B023

        c_abi = c_abi_launcher(function, variant.raw, call_inputs, torch.cuda.current_device(), stream)
        with ports.force_variant(op.op, variant.name):  # the same variant on every path
            c_abi_runs, ports_runs = [], []
            for _ in range(ROUNDS):
                c_abi_runs.append(per_call_us(torch, c_abi))
                ports_runs.append(per_call_us(torch, lambda: wrapper(**kwargs)))  # noqa: B023
            row = {"function": function.name, "op": op.op, "variant": variant.name, "shape": shape,
                   "kernels_per_call": "several" if function.call_module is not None else "one",
                   "c_abi_us": min(c_abi_runs), "ports_us": min(ports_runs),
                   "wrapper_python_us": per_call_us(torch, wrapper_python),
                   "launch_variant_us": per_call_us(torch, lambda: launch_variant(variant, cubin, inputs)),  # noqa: B023
                   "prepare_launch_us": per_call_us(torch, prepare_launch(variant, cubin, inputs))}
        row["ports_minus_c_abi_us"] = row["ports_us"] - row["c_abi_us"]
        rows.append(row)
    print(f"{'function':22} {'variant':26} {'C ABI':>8} {'ports':>8} {'+wrapper':>9} {'py work':>8} "
          f"{'launch_variant':>15} {'prepared':>9}   (µs per call, host)")
    for r in rows:
        print(f"{r['function']:22} {r['variant']:26} {r['c_abi_us']:8.2f} {r['ports_us']:8.2f} "
              f"{r['ports_minus_c_abi_us']:9.2f} {r['wrapper_python_us']:8.2f} {r['launch_variant_us']:15.2f} "
              f"{r['prepare_launch_us']:9.2f}")
    extra = [r["ports_minus_c_abi_us"] for r in rows]
    print(f"wrapper over the C ABI: median {statistics.median(extra):.2f} µs, max {max(extra):.2f} µs")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / args.name).write_text(json.dumps(
            {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0),
             "method": f"median over {BATCHES} batches of {BATCH} calls (perf_counter), device synchronized "
                       f"between batches", "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
