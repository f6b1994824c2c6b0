#!/usr/bin/env python3
"""Device time of every ported variant: the cuTile Python reference cubin against the cuTile Rust port.

For every C function of tileir_diff/ports/registry.py, every analysis.json variant whose sm_90 cubin
the library embeds, and every test shape plus two large shapes (the variant's bench_shape and the
same with its first dimension divided by 4):

* the Python reference cubin (build/reference/<op>/<variant>.sm_90.cubin) is launched through
  tileir_diff.launch (prepare_launch: a bare cuLaunchKernel), the Rust port through its C ABI
  (cutile_<op> with the variant forced), on inputs made twice by ref.make_inputs with one seed
  and checked to be bit-identical; after one launch each, the outputs are compared bit for bit;
* device time comes from CUPTI (torch.profiler kernel events), with CUDA events around each
  launch as a cross-check; the L2 is flushed (256 MiB memset) before every launch;
* a launch that follows a launch of the same kernel runs faster even after a flush, so the sides
  run in cycles of GROUP launches each (A A A B B B ...): each side's first launch of a cycle
  follows the other side, the rest follow itself. The A-vs-A control times the Python cubin
  against a second module load of the same cubin (identical SASS, its own code address) in the
  same cycles; its ratio is the method's noise floor. The two sides are timed on the same buffers
  (the Python side's; the port first runs once on twin buffers of its own, whose outputs are
  compared bit for bit): where data lands moves a kernel of one block by up to ~8 % (the
  module check below showed it), which separate buffers would charge to one side. The placement
  control times the Python cubin on the twin buffers against itself on its own: what separate
  allocations alone would do.

Ratios are Rust time / Python time (the seed's orientation: under 1 means the port is faster).
Run on the GPU machine (carry build/reference and build/rust):

    python3 scripts/gpu/bench_ports.py --out "$OUT"           # all; --op NAME to select
    python3 scripts/gpu/bench_ports.py --render docs/results/ports_bench.json   # here: .md + PNGs

`--render` needs only matplotlib (no torch, no GPU).
"""
from __future__ import annotations

import argparse
import ctypes
import datetime as _dt
import importlib.util
import json
import math
import platform
import statistics
import subprocess
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tileir_diff.suite.catalog import load_op  # noqa: E402

SEED = 20261201
GROUP = 3
FLUSH_BYTES = 256 * 1024 * 1024
RESULTS_NAME = "ports_bench"


# ------------------------------------------------------------------------------------------
# shapes and inputs


def large_shapes(variant) -> list[dict]:
    """The variant's bench_shape and the same with its first dimension divided by 4 (keeps the
    divisibility of the other dimensions that _a8 variants require)."""
    base = dict(variant.bench_shape)
    first = next(iter(base))
    smaller = dict(base, **{first: max(1, base[first] // 4)})
    return [base, smaller]


def _load_ref(op):
    spec = importlib.util.spec_from_file_location(f"_ref_{op.op}", op.ref_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _bits(torch, t):
    """The tensor's elements as bytes (contiguous copy), so that NaN payloads and -0 compare exactly."""
    return t.contiguous().view(torch.uint8) if t.element_size() > 0 else t


def bitwise_equal(torch, a, b) -> bool:
    if tuple(a.shape) != tuple(b.shape) or a.dtype != b.dtype:
        return False
    return bool(torch.equal(_bits(torch, a), _bits(torch, b)))


def c_abi_launcher(function, variant_raw, inputs, device: int, stream: int):
    """cutile_<op> on prebuilt descriptors: the C ABI call alone, as a C caller makes it."""
    from tileir_diff import ports

    lib = ports.load_library()
    kwargs = ports.wrapper_kwargs(function, variant_raw, inputs)
    args, keep = [], []
    for a in function.args:
        value = kwargs[a.name]
        if a.kind == "tensor":
            d = ports.descriptor(value.data_ptr(), tuple(value.shape), tuple(value.stride()), str(value.dtype))
            keep.append(d)
            args.append(ctypes.byref(d))
        elif a.kind == "f32":
            args.append(float(value))
        else:  # i32 / flag: the low 32 bits, signed, as the wrapper passes them
            bits = int(value) & 0xFFFFFFFF
            args.append(bits - (1 << 32) if bits >= 1 << 31 else bits)
    fn = getattr(lib, function.name)

    def call() -> None:
        code = fn(*args, device, stream)
        if code:
            ports.check(lib, code)

    call.keep = keep  # the descriptors live as long as the callable
    return call


# ------------------------------------------------------------------------------------------
# timing


class Timer:
    """Cycles of GROUP launches per side, L2 flushed before each, timed by CUPTI and CUDA events."""

    def __init__(self, torch, reps: int, warmup: int):
        self.torch, self.reps, self.warmup = torch, reps, warmup
        self.flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")

    def _profile(self, body, names: set) -> list:
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            body()
            self.torch.cuda.synchronize()
        return [k for k in kernel_events(prof) if k[0] in names]

    def pair(self, side_a, side_b, names: set, per_launch: int = 1) -> dict:
        """Device times (µs) of two zero-argument launchers whose kernels are named in `names`:
        {"a": stats, "b": stats}. CUPTI records are assigned to launches in start-time order;
        `per_launch` kernels of `names` per launch (a call of several kernels) are summed."""
        torch = self.torch
        for _ in range(self.warmup):
            side_a()
            side_b()
        torch.cuda.synchronize()
        cycles = math.ceil(self.reps / GROUP)
        sequence = []
        for _ in range(cycles):
            sequence += ["a"] * GROUP + ["b"] * GROUP
        fns = {"a": side_a, "b": side_b}
        events = []

        def body():
            for label in sequence:
                self.flush.zero_()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                fns[label]()
                end.record()
                events.append((label, start, end))

        kernels = self._profile(body, names)
        out = {}
        if len(kernels) != len(sequence) * per_launch:
            raise RuntimeError(f"CUPTI reported {len(kernels)} kernels for {len(sequence)} launches of {per_launch} "
                               f"(names {sorted({k[0] for k in kernels})[:4]})")
        kernels.sort(key=lambda k: k[1])
        if per_launch > 1:  # one record per launch: the launch's kernels, their durations summed
            kernels = [(",".join(k[0] for k in group), group[0][1], sum(k[2] for k in group))
                       for group in (kernels[i:i + per_launch] for i in range(0, len(kernels), per_launch))]
        for side in ("a", "b"):
            cupti = [dur for (label, _, _), (_, _, dur) in zip(events, kernels) if label == side]
            ev = [s.elapsed_time(e) * 1000.0 for label, s, e in events if label == side]
            names = sorted({k[0] for (label, _, _), k in zip(events, kernels) if label == side})
            out[side] = {"cupti_median_us": statistics.median(cupti), "cupti_best_us": min(cupti),
                         "events_median_us": statistics.median(ev), "events_best_us": min(ev),
                         "reps": len(cupti), "kernel_names": names}
        return out


def kernel_events(prof) -> list[tuple[str, float, float]]:
    """(name, start µs, duration µs) of every CUDA kernel the profiler saw (CUPTI activity records)."""
    from torch.autograd import DeviceType

    out = []
    for e in prof.profiler.kineto_results.events():
        if e.device_type() != DeviceType.CUDA:
            continue
        if hasattr(e, "start_ns"):
            start, duration = e.start_ns() / 1000.0, e.duration_ns() / 1000.0
        else:  # older torch
            start, duration = float(e.start_us()), float(e.duration_us())
        out.append((e.name(), start, duration))
    return out


def copy_bandwidth_gbps(torch) -> float:
    n = 1 << 30
    src = torch.empty(n, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    torch.cuda.synchronize()
    times = []
    for _ in range(10):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        dst.copy_(src)
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1e-3)
    return 2 * n / statistics.median(times) / 1e9


# ------------------------------------------------------------------------------------------
# one configuration


def rust_symbol_of(op: str, variant: str) -> str:
    """The port's entry symbol, from build/rust/<op>/<variant>.json (written by emit-ir)."""
    return json.loads((REPO / "build" / "rust" / op / f"{variant}.json").read_text())["symbol"]


def twin_inputs(torch, make, variant, shape):
    """Two sets of inputs from one seed, one per side, checked bit-identical."""
    py_inputs = make(variant.raw, shape, seed=SEED, device="cuda")
    rs_inputs = make(variant.raw, shape, seed=SEED, device="cuda")
    for name, value in py_inputs.items():
        if torch.is_tensor(value) and not bitwise_equal(torch, value, rs_inputs[name]):
            raise RuntimeError(f"{make.__name__} gave different {name!r} for one seed")
    return py_inputs, rs_inputs


def bench_config(torch, timer, op, variant, ref, function, shape, kind, cubin, control_kernel, stream) -> dict:
    from tileir_diff import ports
    from tileir_diff.launch import prepare_launch

    rec = {"op": op.op, "variant": variant.name, "kernel": variant.kernel, "function": function.name,
           "shape": shape, "shape_key": json.dumps(shape, sort_keys=True), "kind": kind}
    py_inputs, rs_inputs = twin_inputs(torch, ref.make_inputs, variant, shape)
    device = torch.cuda.current_device()
    rust_symbol = rust_symbol_of(op.op, variant.name)
    python_launch = prepare_launch(variant, cubin, py_inputs, stream=stream)
    control_launch = prepare_launch(variant, control_kernel, py_inputs, stream=stream)
    placement_launch = prepare_launch(variant, cubin, rs_inputs, stream=stream)
    with ports.force_variant(op.op, variant.name):
        rust_launch = c_abi_launcher(function, variant.raw, rs_inputs, device, stream)
        python_launch()
        rust_launch()
        torch.cuda.synchronize()
        outputs = {}
        for p in variant.outputs:
            outputs[p.name] = bitwise_equal(torch, py_inputs[p.name], rs_inputs[p.name])
        rec["bitwise_equal"] = all(outputs.values())
        rec["outputs_equal"] = outputs
        # timed on the same buffers as the Python side (see the module docstring)
        rust_same = c_abi_launcher(function, variant.raw, py_inputs, device, stream)
        timed = timer.pair(python_launch, rust_same, {variant.symbol, rust_symbol})
    control = timer.pair(python_launch, control_launch, {variant.symbol})
    placement = timer.pair(python_launch, placement_launch, {variant.symbol})
    rec["placement_ratio"] = placement["b"]["cupti_median_us"] / placement["a"]["cupti_median_us"]
    rec["python"], rec["rust"] = timed["a"], timed["b"]
    rec["control_python"], rec["control_second_load"] = control["a"], control["b"]
    rec["ratio"] = timed["b"]["cupti_median_us"] / timed["a"]["cupti_median_us"]
    rec["ratio_best"] = timed["b"]["cupti_best_us"] / timed["a"]["cupti_best_us"]
    rec["ratio_events"] = timed["b"]["events_median_us"] / timed["a"]["events_median_us"]
    rec["control_ratio"] = control["b"]["cupti_median_us"] / control["a"]["cupti_median_us"]
    nbytes = variant.bytes_for(shape)
    rec["bytes"] = nbytes
    rec["python_gbps"] = nbytes / (timed["a"]["cupti_median_us"] * 1e-6) / 1e9
    return rec


def _call_module(op, function):
    """reference/<op>/<call_module>.py: the inputs and outputs of a call of several kernels."""
    spec = importlib.util.spec_from_file_location(f"_call_{op.op}", op.ref_path.with_name(f"{function.call_module}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_call_config(torch, timer, op, variant, call, function, shape, kind, stream) -> dict:
    """A C function that launches several kernels (splitk partial + reduce, ...): the one Rust call
    against the Python reference's cubins of the same kernels, launched in the call's order on the
    call's arrays (the partners the library chose, read back from tileir_kernels_selected_variant).
    `ratio` times the forced variant's kernel on each side (as for one-kernel functions),
    `ratio_call` the whole call; every array the call writes is compared bit for bit."""
    from tileir_diff import ports
    from tileir_diff.launch import CubinKernel, prepare_launch

    lib = ports.load_library()
    rec = {"op": op.op, "variant": variant.name, "kernel": variant.kernel, "function": function.name,
           "shape": shape, "shape_key": json.dumps(shape, sort_keys=True), "kind": kind, "multi_kernel": True}
    py_inputs, rs_inputs = twin_inputs(torch, call.call_inputs, variant, shape)
    device = torch.cuda.current_device()
    by_name = {v.name: v for v in op.variants}

    def cubin(v):
        return REPO / "build" / "reference" / op.op / f"{v.name}.sm_90.cubin"

    with ports.force_variant(op.op, variant.name):
        rust_launch = c_abi_launcher(function, variant.raw, rs_inputs, device, stream)
        rust_launch()
        torch.cuda.synchronize()
        chosen = lib.tileir_kernels_selected_variant().decode().split(",")
        if variant.name not in chosen:
            raise RuntimeError(f"the call ran {chosen}, not the forced {variant.name}")
        sequence = [by_name[n] for n in chosen]

        def python_sequence(inputs, replace=None):
            # each kernel takes its own parameters of the call's arrays
            launches = [prepare_launch(v, replace if (replace is not None and v.name == variant.name) else cubin(v),
                                       {k: x for k, x in inputs.items() if k in {q.name for q in v.params}},
                                       stream=stream) for v in sequence]

            def run() -> None:
                for launch in launches:
                    launch()
            run.keep = launches
            return run

        python_launch = python_sequence(py_inputs)
        python_launch()
        torch.cuda.synchronize()
        outputs = {name: bitwise_equal(torch, value, rs_inputs[name])
                   for name, value in py_inputs.items() if torch.is_tensor(value)}
        rec["sequence"], rec["outputs_equal"] = chosen, outputs
        rec["bitwise_equal"] = all(outputs.values())
        forced = {variant.symbol, rust_symbol_of(op.op, variant.name)}
        every = {v.symbol for v in sequence} | {rust_symbol_of(op.op, v.name) for v in sequence}
        # timed on the same buffers as the Python side (see the module docstring)
        rust_same = c_abi_launcher(function, variant.raw, py_inputs, device, stream)
        timed = timer.pair(python_launch, rust_same, forced)
        whole = timer.pair(python_launch, rust_same, every, per_launch=len(sequence))
    control_launch = python_sequence(py_inputs, replace=CubinKernel(cubin(variant), variant.symbol))
    control = timer.pair(python_launch, control_launch, {variant.symbol})
    placement = timer.pair(python_launch, python_sequence(rs_inputs), {variant.symbol})
    rec["placement_ratio"] = placement["b"]["cupti_median_us"] / placement["a"]["cupti_median_us"]
    rec["python"], rec["rust"] = timed["a"], timed["b"]
    rec["python_call"], rec["rust_call"] = whole["a"], whole["b"]
    rec["control_python"], rec["control_second_load"] = control["a"], control["b"]
    rec["ratio"] = timed["b"]["cupti_median_us"] / timed["a"]["cupti_median_us"]
    rec["ratio_best"] = timed["b"]["cupti_best_us"] / timed["a"]["cupti_best_us"]
    rec["ratio_events"] = whole["b"]["events_median_us"] / whole["a"]["events_median_us"]  # events see the call
    rec["ratio_call"] = whole["b"]["cupti_median_us"] / whole["a"]["cupti_median_us"]
    rec["control_ratio"] = control["b"]["cupti_median_us"] / control["a"]["cupti_median_us"]
    nbytes = variant.bytes_for(shape)
    rec["bytes"] = nbytes
    rec["python_gbps"] = nbytes / (timed["a"]["cupti_median_us"] * 1e-6) / 1e9
    return rec


def configs(ops_filter=None):
    """(op spec, variant spec, port function, [(shape, kind)]) of every ported variant."""
    from tileir_diff import ports

    lib = ports.load_library()
    seen = set()
    for function in ports.FUNCTIONS:
        if ops_filter and function.op not in ops_filter:
            continue
        op = load_op(REPO / "reference" / function.op)
        for variant in op.variants:
            if variant.kernel not in function.kernels or (op.op, variant.name) in seen:
                continue
            if not lib.tileir_kernels_has_kernel_image(op.op.encode(), variant.name.encode()):
                continue  # not ported yet
            seen.add((op.op, variant.name))
            shapes = [(s, "test") for s in variant.test_shapes] + [(s, "large") for s in large_shapes(variant)]
            yield op, variant, function, shapes


def environment(torch, args) -> dict:
    props = torch.cuda.get_device_properties(0)
    env = {"date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "gpu": props.name,
           "compute_capability": f"{props.major}.{props.minor}", "torch": torch.__version__,
           "python": platform.python_version(), "arch": "sm_90",
           "method": (f"device time by CUPTI (torch.profiler kernel activity records), CUDA events around each "
                      f"launch as a cross-check; L2 flushed ({FLUSH_BYTES >> 20} MiB memset) before every launch; "
                      f"{args.warmup} warm-up launches per side, then {math.ceil(args.reps / GROUP)} cycles of "
                      f"{GROUP} Python + {GROUP} Rust launches ({math.ceil(args.reps / GROUP) * GROUP} per side); "
                      f"median and best; control: the Python cubin against a second module load of itself in "
                      f"the same cycles; both sides timed on the same buffers (the Python side's; the port's outputs "
                      f"compared bit for bit on twin buffers of its own first); placement control: the Python "
                      f"cubin on the twin buffers against itself on its own. Python side: tileir_diff.launch.prepare_launch (bare cuLaunchKernel); "
                      f"Rust side: cutile_<op> through its C ABI with the variant forced. Second pass: a "
                      f"configuration whose ratio or control is outside 1 +- {args.recheck_band} (either side) is "
                      f"measured again with {args.recheck_reps} launches per side after all others, and that "
                      f"measurement kept (`rechecked`, the first under `first`).")}
    try:
        env["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                       capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
    except Exception as exc:  # the figure is informative only
        env["driver"] = f"unknown ({type(exc).__name__})"
    env["copy_bandwidth_gbps"] = copy_bandwidth_gbps(torch)
    return env


#: Module instances per side in the module check, and the limit of issue 30 it applies to.
MODULE_INSTANCES = 4
PORT_LIMIT = 1.05


def module_check(torch, timer, op, variant, ref, shape, cubin: Path, stream: int, k: int = MODULE_INSTANCES) -> dict:
    """The reference cubin and the port's cubin file, each loaded k times (k modules), both through
    tileir_diff.launch, each pair (reference i, port i) timed on the same buffers, for two buffer
    sets (twin allocations): the medians over the 2k pairs and their ratio. A kernel of one or a
    few blocks runs for microseconds and its time moves with where its module and its buffers lie
    (scripts/gpu/launch_path_check.py: up to ~10 %); the C ABI launch has one module for the
    process and its own buffers, so its ratio alone cannot tell the port's code from placement.
    The port's outputs must be bit-equal to the reference's. For functions of one kernel
    (``call_module_check`` for a call of several) whose port entry takes the reference's
    parameter layout (the ports keep it; a mismatch raises, and the check is left out)."""
    from tileir_diff.launch import CubinKernel, prepare_launch

    port_cubin = REPO / "build" / "rust" / op.op / f"{variant.name}.sm_90.cubin"
    rust_symbol = rust_symbol_of(op.op, variant.name)
    buffers = twin_inputs(torch, ref.make_inputs, variant, shape)
    refs = [CubinKernel(cubin, variant.symbol) for _ in range(k)]
    ports_ = [CubinKernel(port_cubin, rust_symbol) for _ in range(k)]
    launches = [[(prepare_launch(variant, r, inputs, stream=stream), prepare_launch(variant, q, inputs, stream=stream))
                 for r, q in zip(refs, ports_)] for inputs in buffers]
    launches[0][0][0]()  # the reference into the first buffers, the port into the second
    launches[1][0][1]()
    torch.cuda.synchronize()
    equal = all(bitwise_equal(torch, buffers[0][p.name], buffers[1][p.name]) for p in variant.outputs)
    return _timed_instances(timer, launches, {variant.symbol, rust_symbol}, equal)


def _timed_instances(timer, launches, names: set, equal: bool) -> dict:
    """Time each (reference, port) launch pair of ``launches`` (per buffer set, per module
    instance) on the kernels named ``names``: the module check's record."""
    ref_us, port_us = [], []
    for per_buffers in launches:
        for a, b in per_buffers:
            got = timer.pair(a, b, names)
            ref_us.append(got["a"]["cupti_median_us"])
            port_us.append(got["b"]["cupti_median_us"])
    ref_mid, port_mid = statistics.median(ref_us), statistics.median(port_us)
    return {"instances": len(launches[0]), "buffer_sets": len(launches), "reference_us": ref_us, "port_us": port_us,
            "ratio": port_mid / ref_mid, "reference_spread": [min(ref_us) / ref_mid, max(ref_us) / ref_mid],
            "bitwise_equal": equal}


def call_module_check(torch, timer, op, variant, call, sequence: list, shape, stream: int,
                      k: int = MODULE_INSTANCES) -> dict:
    """``module_check`` for a function of several kernels: the call's kernels (``sequence``, the
    variant names the library chose, as ``bench_call_config`` recorded them) launched in the call's
    order, with the forced variant's kernel from the reference cubin on one side and from the
    port's cubin on the other, each loaded k times; the call's other kernels are the reference's,
    one module each, shared by both sides (identical predecessors). Each pair times the forced
    kernel only, on the same buffers, for two buffer sets; every array the call writes must be
    bit-equal between the sides."""
    from tileir_diff.launch import CubinKernel, prepare_launch

    by_name = {v.name: v for v in op.variants}
    kernels = [by_name[n] for n in sequence]

    def cubin(v, side: str = "reference") -> Path:
        return REPO / "build" / side / op.op / f"{v.name}.sm_90.cubin"

    rust_symbol = rust_symbol_of(op.op, variant.name)
    others = {v.name: CubinKernel(cubin(v), v.symbol) for v in kernels if v.name != variant.name}
    buffers = twin_inputs(torch, call.call_inputs, variant, shape)

    def sequence_with(forced, inputs):
        launches = [prepare_launch(v, forced if v.name == variant.name else others[v.name],
                                   {n: x for n, x in inputs.items() if n in {q.name for q in v.params}}, stream=stream)
                    for v in kernels]

        def run() -> None:
            for launch in launches:
                launch()
        run.keep = launches
        return run

    refs = [CubinKernel(cubin(variant), variant.symbol) for _ in range(k)]
    ports_ = [CubinKernel(cubin(variant, "rust"), rust_symbol) for _ in range(k)]
    launches = [[(sequence_with(r, inputs), sequence_with(q, inputs)) for r, q in zip(refs, ports_)]
                for inputs in buffers]
    launches[0][0][0]()  # the reference's call into the first buffers, the port's into the second
    launches[1][0][1]()
    torch.cuda.synchronize()
    equal = all(bitwise_equal(torch, value, buffers[1][name]) for name, value in buffers[0].items()
                if torch.is_tensor(value))
    return {**_timed_instances(timer, launches, {variant.symbol, rust_symbol}, equal), "kernels": list(sequence)}


def above_limit(results) -> list:
    """The configurations whose ratio is above PORT_LIMIT, each with what its module check says
    (`explained`: the port's cubin, measured over module instances, is within the limit and
    bit-equal; the raw ratio stays the table's figure)."""
    out = []
    for r in results:
        if r["ratio"] <= PORT_LIMIT:
            continue
        mc = r.get("module_check")
        explained = bool(mc and "ratio" in mc and mc["ratio"] <= PORT_LIMIT and mc["bitwise_equal"])
        out.append({"config": f"{r['op']}/{r['variant']} {r['shape_key']}", "ratio": r["ratio"],
                    "module_ratio": mc.get("ratio") if mc else None, "explained": explained})
    return out


def _outside(rec: dict, band: float) -> bool:
    """The ratio or the A-vs-A control outside [1 - band, 1 + band]: measure it again."""
    return band > 0 and any(abs(rec[k] - 1.0) > band for k in ("ratio", "control_ratio"))


def run(args) -> dict:
    import torch

    from tileir_diff.launch import CubinKernel
    from tileir_diff.suite.port_table import cubin_digest

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.cuda.init()
    env = environment(torch, args)
    timer = Timer(torch, args.reps, args.warmup)
    stream = int(torch.cuda.current_stream().cuda_stream)
    results, errors = [], []
    deadline = time.monotonic() + args.budget_s
    # what a second pass needs to measure a configuration again
    again: list[tuple[int, tuple]] = []
    configs_done: list = []  # what each entry of results measured (for the module check)

    def measure(timer_, op, variant, function, call, cubin, control_kernel, digests, shape, kind) -> dict:
        if call is not None:
            rec = bench_call_config(torch, timer_, op, variant, call, function, shape, kind, stream)
        else:
            rec = bench_config(torch, timer_, op, variant, ref_of[op.op], function, shape, kind, cubin,
                               control_kernel, stream)
        # the port table shows a timing measured on other builds of the cubins as stale
        rec["reference_cubin_sha256"], rec["cubin_sha256"] = digests
        return rec

    def report(rec, note="") -> None:
        print(f"{rec['op']:14} {rec['variant']:30} {rec['kind']:5} {rec['shape_key']:48} "
              f"py {rec['python']['cupti_median_us']:9.2f} rs {rec['rust']['cupti_median_us']:9.2f} "
              f"ratio {rec['ratio']:.3f} ctl {rec['control_ratio']:.3f} plc {rec['placement_ratio']:.3f} "
              f"{'bits-equal' if rec['bitwise_equal'] else 'BITS DIFFER'}{note}", flush=True)

    ref_of = {}
    for op, variant, function, shapes in configs(set(args.ops) if args.ops else None):
        ref_of[op.op] = _load_ref(op)
        call = _call_module(op, function) if function.call_module is not None else None
        cubin = REPO / "build" / "reference" / op.op / f"{variant.name}.sm_90.cubin"
        control_kernel = CubinKernel(cubin, variant.symbol)  # its own module load
        digests = (cubin_digest(cubin), cubin_digest(REPO / "build" / "rust" / op.op / f"{variant.name}.sm_90.cubin"))
        for shape, kind in shapes:
            if time.monotonic() > deadline:
                errors.append({"op": op.op, "variant": variant.name, "shape": shape, "error": "time budget spent"})
                continue
            what = (op, variant, function, call, cubin, control_kernel, digests, shape, kind)
            try:
                rec = measure(timer, *what)
                results.append(rec)
                configs_done.append(what)
                report(rec)
                if _outside(rec, args.recheck_band):
                    again.append((len(results) - 1, what))
            except Exception as exc:  # one failing config must not stop the rest
                errors.append({"op": op.op, "variant": variant.name, "shape": shape,
                               "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(limit=5)})
                print(f"ERROR {op.op}/{variant.name} {shape}: {type(exc).__name__}: {exc}", flush=True)
            torch.cuda.empty_cache()
    # Second pass: a configuration whose ratio or A-vs-A control left [1 - band, 1 + band] on either
    # side (short kernels scatter, in the control as much as in the ratio) is measured once more
    # with more repetitions, after every other configuration, and that measurement is kept; the
    # first is kept beside it (`first`). Both sides of the band, so the pass does not favour the port.
    if again:
        print(f"\nsecond pass: {len(again)} configurations outside 1 +- {args.recheck_band} "
              f"(ratio or control), {args.recheck_reps} repetitions", flush=True)
        timer_again = Timer(torch, args.recheck_reps, args.warmup)
        for index, what in again:
            first = results[index]
            if time.monotonic() > deadline + args.recheck_budget_s:
                first["recheck"] = "time budget spent"
                continue
            try:
                rec = measure(timer_again, *what)
            except Exception as exc:  # the first measurement stands
                first["recheck"] = f"{type(exc).__name__}: {exc}"
                continue
            rec["first"] = {k: first[k] for k in ("ratio", "ratio_best", "ratio_events", "control_ratio",
                                                  "placement_ratio", "bitwise_equal")}
            rec["first"]["reps"] = args.reps
            rec["rechecked"] = True
            results[index] = rec
            report(rec, f" (first: ratio {first['ratio']:.3f} ctl {first['control_ratio']:.3f})")
            torch.cuda.empty_cache()
    # Third pass: a configuration still above the limit is measured over module instances (see
    # module_check); its ratio stays what the C ABI launch measured, the check is recorded beside it.
    module_timer = None  # (its flush buffer only where a check runs)
    for rec, what in zip(results, configs_done):
        if rec["ratio"] <= args.module_check_above:
            continue
        op, variant, function, call, cubin, _control, _digests, shape, _kind = what
        module_timer = module_timer or Timer(torch, args.recheck_reps, args.warmup)
        try:
            if call is not None:
                rec["module_check"] = call_module_check(torch, module_timer, op, variant, call, rec["sequence"],
                                                        shape, stream)
            else:
                rec["module_check"] = module_check(torch, module_timer, op, variant,
                                                   ref_of[op.op], shape, cubin, stream)
        except Exception as exc:
            rec["module_check"] = {"error": f"{type(exc).__name__}: {exc}"}
        mc = rec["module_check"]
        print(f"module check {op.op}/{variant.name} {rec['shape_key']}: "
              + (f"ratio over {mc['instances']} modules {mc['ratio']:.3f} (reference spread "
                 f"{mc['reference_spread'][0]:.3f}-{mc['reference_spread'][1]:.3f}), bits "
                 f"{'equal' if mc['bitwise_equal'] else 'DIFFER'}" if "ratio" in mc else str(mc)), flush=True)
        torch.cuda.empty_cache()
    return {"schema_version": 1, "environment": env, "results": results, "errors": errors,
            "summary": summarize(results)}


# ------------------------------------------------------------------------------------------
# summary and rendering (no torch)


def _stats(values) -> dict:
    values = [v for v in values if v and v > 0]
    if not values:
        return {"count": 0}
    return {"count": len(values), "geomean": math.exp(sum(math.log(v) for v in values) / len(values)),
            "min": min(values), "max": max(values)}


def summarize(results) -> dict:
    by_op: dict = {}
    for r in results:
        by_op.setdefault(r["op"], []).append(r)

    def block(rows):
        return {"ratio": _stats([r["ratio"] for r in rows]), "ratio_best": _stats([r["ratio_best"] for r in rows]),
                "ratio_events": _stats([r["ratio_events"] for r in rows]),
                "control_ratio": _stats([r["control_ratio"] for r in rows]),
                "placement_ratio": _stats([r.get("placement_ratio") for r in rows]),
                "bitwise_equal": sum(bool(r["bitwise_equal"]) for r in rows), "configs": len(rows),
                "rechecked": sum(bool(r.get("rechecked")) for r in rows),
                "variants": len({(r["op"], r["variant"]) for r in rows})}

    return {"overall": block(results), "ops": {op: block(rows) for op, rows in sorted(by_op.items())},
            "outside_band": [f"{r['op']}/{r['variant']} {r['shape_key']}" for r in results
                             if not 0.97 <= r["ratio"] <= 1.03],
            "above_limit": above_limit(results)}


def _row_run(row: dict, env: dict):
    """The date of the run a row was measured in: its own tag (a merged document's rows carry one),
    else its document's, when that document is one run; None when unknown (a row of a document
    merged before rows were tagged)."""
    if "run" in row:
        return row["run"]
    if "date" in row:  # another card's row, tagged by an earlier merge
        return row["date"]
    runs = env.get("runs", [env.get("date")])
    return runs[0] if len(runs) == 1 else None


def merge_runs(docs: list) -> dict:
    """One document from several runs of the same build: results keyed by (op, variant, shape),
    the last run winning; errors of a configuration some run measured are dropped. Every kept row
    says which run measured it (``run``, its date). The header is the environment of the run most
    of the kept rows come from (a later run that replaced every row makes the header its own),
    listing the runs that kept rows; a row from a run on another GPU than the header's names it."""
    owner = {}
    for i, doc in enumerate(docs):
        for r in doc["results"]:
            owner[(r["op"], r["variant"], r["shape_key"])] = (i, r)
    counts = Counter(i for i, _ in owner.values())
    head = max(range(len(docs)), key=lambda k: (counts[k], k))
    head_gpu = docs[head]["environment"].get("gpu")
    results, runs = {}, []
    for key, (i, r) in owner.items():
        run = docs[i]["environment"]
        # the row's card: its own tag (from an earlier merge), else its run's
        gpu, date = (r["gpu"], r.get("date")) if "gpu" in r else (run.get("gpu"), run.get("date"))
        when = _row_run(r, run)
        # a row whose run is unknown keeps its document's whole list
        runs += [when] if when else run.get("runs", [run.get("date")])
        r = {k: v for k, v in r.items() if k not in ("gpu", "date", "run")}
        if when:
            r["run"] = when
        results[key] = r if gpu == head_gpu else {**r, "gpu": gpu, "date": date}  # another card: say which
    measured = {(op, v) for op, v, _ in results}
    errors = [e for doc in docs for e in doc.get("errors", []) if (e["op"], e["variant"]) not in measured]
    env = dict(docs[head]["environment"])
    # the runs that kept rows, in the order of the documents (each once)
    order = [date for d in docs for date in d["environment"].get("runs", [d["environment"]["date"]])]
    env["runs"] = sorted(set(runs), key=lambda d: order.index(d) if d in order else len(order))
    rows = list(results.values())
    return {"schema_version": docs[0].get("schema_version", 1), "environment": env, "results": rows,
            "errors": errors, "summary": summarize(rows)}


def _f(x, d=3):
    return "–" if x is None else f"{x:.{d}f}"


def render_markdown(doc: dict, plots: list[str]) -> str:
    env, s = doc["environment"], doc["summary"]
    o = s["overall"]
    lines = [f"# Rust ports vs Python references: device time on the {env['gpu']}", "",
             f"Generated by `scripts/gpu/bench_ports.py` on {env['date']}: {env['gpu']} "
             f"(compute capability {env['compute_capability']}), driver {env['driver']}, torch {env['torch']}, "
             f"{env['arch']} cubins; device-to-device copy {env['copy_bandwidth_gbps']:.0f} GB/s.", "",
             f"**Method.** {env['method']}", "",
             "Ratios are **Rust time / Python time** (the seed's orientation; under 1 = the port is faster). "
             "`control` is the Python cubin against a second load of itself (the noise floor of the method); "
             "`placement` is the Python cubin on the twin buffers the port's outputs were checked on, against "
             "itself on its own (what separate allocations alone would do: both sides are timed on the same "
             "buffers).", "",
             f"**Overall:** {o['configs']} configurations of {o['variants']} variants; ratio (CUPTI median) geomean "
             f"{_f(o['ratio'].get('geomean'), 4)}, min {_f(o['ratio'].get('min'))}, max {_f(o['ratio'].get('max'))}; "
             f"best-of ratio geomean {_f(o['ratio_best'].get('geomean'), 4)}; CUDA-events ratio geomean "
             f"{_f(o['ratio_events'].get('geomean'), 4)}; control geomean {_f(o['control_ratio'].get('geomean'), 4)} "
             f"(min {_f(o['control_ratio'].get('min'))}, max {_f(o['control_ratio'].get('max'))}); placement geomean "
             f"{_f(o.get('placement_ratio', {}).get('geomean'), 4)}; outputs "
             f"bit-identical in {o['bitwise_equal']} of {o['configs']}.", ""]
    if doc.get("errors"):
        lines += [f"**Errors:** {len(doc['errors'])} configurations did not run: " + "; ".join(
            f"{e['op']}/{e['variant']} {json.dumps(e['shape'], sort_keys=True)}: {e['error']}"
            for e in doc["errors"][:10]), ""]
    lines += [f"![{p}]({p})" for p in plots] + [""]
    lines += ["## Per operator", "",
              "| op | variants | configs | ratio geomean | min | max | best-of geomean | events geomean | "
              "control geomean | control min–max | placement geomean | bit-identical |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for op, b in s["ops"].items():
        r, c = b["ratio"], b["control_ratio"]
        lines.append(f"| {op} | {b['variants']} | {b['configs']} | {_f(r.get('geomean'), 4)} | {_f(r.get('min'))} | "
                     f"{_f(r.get('max'))} | {_f(b['ratio_best'].get('geomean'), 4)} | "
                     f"{_f(b['ratio_events'].get('geomean'), 4)} | {_f(c.get('geomean'), 4)} | "
                     f"{_f(c.get('min'))}–{_f(c.get('max'))} | {_f(b.get('placement_ratio', {}).get('geomean'), 4)} | "
                     f"{b['bitwise_equal']}/{b['configs']} |")
    lines += outside_band_section(doc)
    lines += above_limit_section(doc)
    lines += ["", "## Per configuration", "",
              "| op | variant | kind | shape | Python µs (median / best) | Rust µs (median / best) | ratio | "
              "best-of | events | control | placement | bits |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["results"]:
        p, q = r["python"], r["rust"]
        lines.append(f"| {r['op']} | {r['variant']} | {r['kind']} | `{r['shape_key']}` | "
                     f"{p['cupti_median_us']:.2f} / {p['cupti_best_us']:.2f} | {q['cupti_median_us']:.2f} / "
                     f"{q['cupti_best_us']:.2f} | {r['ratio']:.3f} | {r['ratio_best']:.3f} | {r['ratio_events']:.3f} | "
                     f"{r['control_ratio']:.3f} | {_f(r.get('placement_ratio'))} | "
                     f"{'equal' if r['bitwise_equal'] else '**differ**'} |")
    return "\n".join(lines) + "\n"


def _instances(values) -> str:
    return ", ".join(f"{x:.2f}" for x in values)


def above_limit_section(doc: dict) -> list[str]:
    """The configurations above issue 30's 1.05, each with its module check (see module_check)."""
    rows = above_limit(doc["results"])
    out = ["", f"## Configurations above {PORT_LIMIT}", ""]
    if not rows:
        return out + ["None."]
    by_config = {f"{r['op']}/{r['variant']} {r['shape_key']}": r for r in doc["results"]}
    out += [f"{len(rows)}, {sum(r['explained'] for r in rows)} of them within {PORT_LIMIT} when the reference's and "
            f"the port's cubins are each timed over {MODULE_INSTANCES} module instances and two buffer sets (module_check: a "
            "kernel of a few blocks moves by up to ~10 % with where its module and buffers lie; for a call of several "
            "kernels, call_module_check: the call's other kernels the reference's, shared by both sides). "
            "The table's ratio stays the C ABI's.", "",
            "| configuration | ratio (C ABI) | over module instances | reference instances (µs) | port instances (µs) | "
            "bits | explained |", "|---|---|---|---|---|---|---|"]
    for a in rows:
        mc = by_config[a["config"]].get("module_check") or {}
        out.append(f"| `{a['config']}` | {a['ratio']:.3f} | {_f(mc.get('ratio'))} | {_instances(mc.get('reference_us', []))} "
                   f"| {_instances(mc.get('port_us', []))} | {'equal' if mc.get('bitwise_equal') else '–'} | "
                   f"{'yes' if a['explained'] else 'no'} |")
    return out


def outside_band_section(doc: dict) -> list[str]:
    """The configurations outside 0.97–1.03 with the evidence that explains them: the SASS verdict
    (docs/results/ports_sass.json), the two controls, best-of and CUDA-event ratios, kernel length."""
    sass_path = REPO / "docs" / "results" / "ports_sass.json"
    sass = {}
    if sass_path.is_file():
        sass = {(r["op"], r["variant"]): r["verdict"] for r in json.loads(sass_path.read_text())["results"]}
    rows = [r for r in doc["results"] if not 0.97 <= r["ratio"] <= 1.03]
    long_rows = [r for r in doc["results"] if r["python"]["cupti_median_us"] >= 10.0]
    worst_long = max(long_rows, key=lambda r: abs(r["ratio"] - 1.0), default=None)
    out = ["", "## Configurations outside 0.97–1.03", "",
           f"{len(rows)} of {len(doc['results'])}; every one runs under "
           f"{max((r['python']['cupti_median_us'] for r in rows), default=0):.1f} µs. Of the "
           f"{len(long_rows)} configurations of 10 µs or more, the farthest from 1 is "
           + (f"{worst_long['op']}/{worst_long['variant']} at {worst_long['ratio']:.3f}." if worst_long else "none.")
           + " See docs/results/README.md for the reading.", "",
           "| op | variant | shape | Python µs | ratio | best-of | events | control | placement | SASS |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['op']} | {r['variant']} | `{r['shape_key']}` | {r['python']['cupti_median_us']:.2f} | "
                   f"{r['ratio']:.3f} | {r['ratio_best']:.3f} | {r['ratio_events']:.3f} | {r['control_ratio']:.3f} | "
                   f"{_f(r.get('placement_ratio'))} | {sass.get((r['op'], r['variant']), '–')} |")
    return out


def render_plots(doc: dict, out_dir: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ops = list(doc["summary"]["ops"])
    fig, ax = plt.subplots(figsize=(12, 5))
    for i, op in enumerate(ops):
        rows = [r for r in doc["results"] if r["op"] == op]
        xs = [i + (j - len(rows) / 2) * 0.6 / max(1, len(rows)) for j in range(len(rows))]
        ax.scatter(xs, [r["ratio"] for r in rows], s=10, label=None, color="tab:blue")
        ax.scatter(xs, [r["control_ratio"] for r in rows], s=6, marker="x", color="tab:gray")
    ax.axhline(1.0, color="black", lw=0.8)
    for y in (0.97, 1.03):
        ax.axhline(y, color="tab:red", lw=0.6, ls="--")
    ax.set_xticks(range(len(ops)), ops, rotation=30, ha="right")
    ax.set_ylabel("Rust time / Python time (CUPTI median)")
    ax.set_title(f"Ports vs references per configuration ({doc['environment']['gpu']}, "
                 f"{doc['environment']['date'][:10]}); x = A-vs-A control")
    fig.tight_layout()
    names = [f"{RESULTS_NAME}_ratio.png", f"{RESULTS_NAME}_ratio_vs_time.png"]
    fig.savefig(out_dir / names[0], dpi=110)
    plt.close(fig)

    # The spread against kernel length: short kernels scatter, in the controls as much as in the ratio.
    fig, ax = plt.subplots(figsize=(9, 5))
    rows = doc["results"]
    times = [r["python"]["cupti_median_us"] for r in rows]
    ax.scatter(times, [r["ratio"] for r in rows], s=10, label="Rust / Python")
    ax.scatter(times, [r["control_ratio"] for r in rows], s=8, marker="x", color="tab:gray",
               label="control (second load of the Python cubin)")
    if all("placement_ratio" in r for r in rows):
        ax.scatter(times, [r["placement_ratio"] for r in rows], s=8, marker="+", color="tab:green",
                   label="placement (Python cubin on the Rust buffers)")
    ax.set_xscale("log")
    ax.axhline(1.0, color="black", lw=0.8)
    for y in (0.97, 1.03):
        ax.axhline(y, color="tab:red", lw=0.6, ls="--")
    ax.set_xlabel("Python reference device time, µs (CUPTI median, log scale)")
    ax.set_ylabel("ratio")
    ax.set_title("Ratio against kernel length")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_dir / names[1], dpi=110)
    plt.close(fig)
    return names


def render(json_path: Path) -> None:
    doc = json.loads(json_path.read_text())
    plots = render_plots(doc, json_path.parent)
    (json_path.parent / f"{RESULTS_NAME}.md").write_text(render_markdown(doc, plots), encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="folder for ports_bench.json (and .md)")
    ap.add_argument("--op", dest="ops", action="append", help="only this op (repeatable)")
    ap.add_argument("--reps", type=int, default=21, help="timed launches per side (rounded up to cycles of 3)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--budget-s", type=float, default=480.0, help="stop starting configurations after this")
    ap.add_argument("--recheck-band", type=float, default=0.05,
                    help="measure a configuration again, with --recheck-reps, when its ratio or control is "
                         "outside 1 +- this (either side; 0: no second pass)")
    ap.add_argument("--recheck-reps", type=int, default=63, help="timed launches per side in the second pass")
    ap.add_argument("--module-check-above", type=float, default=PORT_LIMIT,
                    help="run the module check (module_check) on configurations whose ratio is above this "
                         f"(default {PORT_LIMIT}, issue 30's limit; lower it to exercise the check)")
    ap.add_argument("--recheck-budget-s", type=float, default=60.0,
                    help="seconds past --budget-s the second pass may take")
    ap.add_argument("--render", type=Path, help="render this JSON to .md + PNG beside it (no GPU) and exit")
    ap.add_argument("--merge", type=Path, nargs="+", metavar="JSON",
                    help="merge the results of several runs (e.g. one per device call, split by --op) into "
                         "--out/ports_bench.json and exit (no GPU); a configuration measured twice keeps the last")
    args = ap.parse_args(argv)
    if args.render:
        render(args.render)
        return 0
    if args.merge:
        if args.out is None:
            ap.error("--merge needs --out")
        args.out.mkdir(parents=True, exist_ok=True)
        doc = merge_runs([json.loads(p.read_text()) for p in args.merge])
        (args.out / f"{RESULTS_NAME}.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
        print(f"merged {len(args.merge)} runs: {doc['summary']['overall']['configs']} configs")
        return 0
    if args.out is None:
        ap.error("--out is required")
    args.out.mkdir(parents=True, exist_ok=True)
    doc = run(args)
    path = args.out / f"{RESULTS_NAME}.json"
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    (args.out / f"{RESULTS_NAME}.md").write_text(render_markdown(doc, []), encoding="utf-8")
    o = doc["summary"]["overall"]
    print(f"\n{o['configs']} configs, ratio geomean {_f(o['ratio'].get('geomean'), 4)} "
          f"min {_f(o['ratio'].get('min'))} max {_f(o['ratio'].get('max'))}; control geomean "
          f"{_f(o['control_ratio'].get('geomean'), 4)}; bit-identical {o['bitwise_equal']}/{o['configs']}; "
          f"errors {len(doc['errors'])}")
    for op, b in doc["summary"]["ops"].items():
        print(f"  {op:14} n={b['configs']:3} geomean {_f(b['ratio'].get('geomean'), 4)} "
              f"[{_f(b['ratio'].get('min'))}, {_f(b['ratio'].get('max'))}] ctl {_f(b['control_ratio'].get('geomean'), 4)}")
    return 0 if not doc["errors"] and o["bitwise_equal"] == o["configs"] else 1


if __name__ == "__main__":
    sys.exit(main())
