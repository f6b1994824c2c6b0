#!/usr/bin/env python3
"""Checks every reference variant on a GPU against ref.py and benchmarks it against torch.

For every op / variant / test shape in reference/*/analysis.json: make_inputs -> launch the
prebuilt cubin (build/reference/<op>/<variant>.<arch>.cubin, cutile_python_v2 convention, on the
current torch stream) -> compare with ref.reference at the analysis.json tolerances. Every
output element must be written (outputs are poisoned first), inputs must be left unchanged,
and the padding around non-contiguous outputs must stay untouched.

Then, per variant at its bench_shape: device time of the kernel and of ref.torch_baseline,
measured with CUDA events around each launch (one event pair per repetition, L2 flushed before
each repetition by writing a 256 MiB buffer, which also keeps the GPU busy while the host enqueues
the launch, so host overhead stays out of the measurement; median over --reps after --warmup), plus the
device-to-device copy bandwidth (torch copy_ of 1 GiB, bytes read + written) to express
memory-bound kernels as % of copy bandwidth.

Each op runs in its own worker process, so a kernel that corrupts the CUDA context (illegal
address) only costs that variant: the parent restarts the worker after it.

Writes $OUT/reference_results.json and $OUT/reference_results.md (or --out DIR).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tileir_diff.launch.abi import host_dtype_name  # noqa: E402
from tileir_diff.suite.catalog import (CatalogError, MEMORY_BOUND_FAMILIES, default_reference_root,  # noqa: E402
                                      load_catalog, load_op)

SEED = 1234
EXIT_CONTEXT_LOST = 3


def shape_key(shape: dict) -> str:
    return json.dumps(shape, sort_keys=True)


# ------------------------------------------------------------------------------------------
# worker side (imports torch)


def _load_ref(op):
    spec = importlib.util.spec_from_file_location(f"_ref_{op.op}", op.ref_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _is_context_error(exc: BaseException) -> bool:
    text = f"{type(exc).__name__}: {exc}"
    sticky = ("illegal memory access", "ILLEGAL_ADDRESS", "misaligned address", "unspecified launch failure",
              "LAUNCH_FAILED", "ILLEGAL_INSTRUCTION", "illegal instruction", "device-side assert", "CUDA error")
    return any(s in text for s in sticky)


def _clone_inputs(torch, inputs):
    return {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in inputs.items()}


def _compare(torch, name, got, expected, tol, poison_int):
    """Statistics of one output against its expected values; passes iff every element is within tolerance."""
    out = {"numel": got.numel(), "dtype": host_dtype_name(got.dtype)}
    if tuple(expected.shape) != tuple(got.shape):
        out.update(passed=False, error=f"reference shape {tuple(expected.shape)} != output shape {tuple(got.shape)}")
        return out
    if got.dtype.is_floating_point:
        g = got.to(torch.float64)
        e = expected.to(torch.float64).to(got.device)
        unwritten = int((torch.isnan(g) & ~torch.isnan(e)).sum())
        diff = (g - e).abs()
        allowed = tol["atol"] + tol["rtol"] * e.abs()
        both_nan = torch.isnan(g) & torch.isnan(e)
        same_inf = torch.isinf(e) & (g == e)
        ok = (diff <= allowed) | both_nan | same_inf
        finite = ~(both_nan | same_inf)
        diff = torch.where(finite, diff, torch.zeros_like(diff))
        diff = torch.nan_to_num(diff, nan=float("inf"))
        rel = diff / e.abs().clamp_min(1e-30)
        out["max_abs_err"] = float(diff.max()) if diff.numel() else 0.0
        out["max_rel_err"] = float(torch.where(diff > tol["atol"], rel, torch.zeros_like(rel)).max()) if rel.numel() else 0.0
    else:
        e = expected.to(got.device)
        unwritten = int((got == poison_int).sum()) if got.dtype not in (torch.bool, torch.uint8, torch.int8) else 0
        ok = got.to(torch.int64) == e.to(torch.int64)
        out["max_abs_err"] = float((got.to(torch.int64) - e.to(torch.int64)).abs().max()) if got.numel() else 0.0
        out["max_rel_err"] = None
    mismatches = int((~ok).sum())
    out["mismatches"] = mismatches
    out["unwritten"] = unwritten
    if mismatches:
        flat = (~ok).reshape(-1).nonzero()[0].item() if ok.numel() else 0
        idx = []
        for size in reversed(got.shape):
            idx.append(flat % size)
            flat //= size
        idx = tuple(reversed(idx))
        out["first_mismatch"] = {"index": list(idx), "got": float(got[idx]), "expected": float(expected[idx])}
    out["passed"] = mismatches == 0
    return out


def _padding_snapshot(torch, tensor):
    """For a view into a larger buffer: a copy of the buffer with the view's elements zeroed."""
    base = tensor._base
    if base is None or base.numel() == tensor.numel():
        return None
    snap = base.clone()
    view = torch.as_strided(snap, tensor.shape, tensor.stride(), tensor.storage_offset() - base.storage_offset())
    view.zero_()
    return snap


def _padding_untouched(torch, tensor, snap) -> bool:
    base = tensor._base
    now = base.clone()
    view = torch.as_strided(now, tensor.shape, tensor.stride(), tensor.storage_offset() - base.storage_offset())
    view.zero_()
    return bool(torch.equal(torch.nan_to_num(now, nan=12345.0), torch.nan_to_num(snap, nan=12345.0))) \
        if now.dtype.is_floating_point else bool(torch.equal(now, snap))


def check_case(torch, op, variant, ref, shape, cubin, launch_variant, poison_int, device="cuda"):
    inputs = ref.make_inputs(variant.raw, shape, seed=SEED, device=device)
    for name in shape.get("noncontiguous", []):
        if inputs[name].is_contiguous():
            raise AssertionError(f"make_inputs returned {name!r} contiguous but the test shape asks for non-contiguous")
    before = _clone_inputs(torch, inputs)
    expected = ref.reference(variant.raw, _clone_inputs(torch, inputs))
    outputs = [p for p in variant.outputs]
    pads = {p.name: _padding_snapshot(torch, inputs[p.name]) for p in outputs}
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    sync()
    grid = launch_variant(variant, cubin, inputs)
    sync()
    result = {"grid": list(grid), "outputs": {}, "checks": []}
    passed = True
    for p in outputs:
        if p.name not in expected:
            raise AssertionError(f"ref.reference did not return output {p.name!r}")
        tol = variant.tolerances[p.dtype]
        stats = _compare(torch, p.name, inputs[p.name], expected[p.name], tol, poison_int)
        stats["tolerance"] = tol
        result["outputs"][p.name] = stats
        passed &= stats["passed"]
        if pads[p.name] is not None and not _padding_untouched(torch, inputs[p.name], pads[p.name]):
            result["checks"].append(f"{p.name}: wrote outside its (non-contiguous) view")
            passed = False
    for p in variant.arrays:
        if p.role == "input" and not torch.equal(torch.nan_to_num(inputs[p.name].float(), nan=1.5),
                                                 torch.nan_to_num(before[p.name].float(), nan=1.5)):
            result["checks"].append(f"{p.name}: input modified by the kernel")
            passed = False
    result["status"] = "pass" if passed else "fail"
    return result


class _Timer:
    """Per-repetition CUDA event timing with an L2 flush before each repetition."""

    def __init__(self, torch, warmup: int, reps: int):
        self.torch, self.warmup, self.reps = torch, warmup, reps
        self.flush = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device="cuda")

    def median_us(self, fn) -> float:
        torch = self.torch
        for _ in range(self.warmup):
            fn()
        torch.cuda.synchronize()
        pairs = []
        for _ in range(self.reps):
            self.flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            pairs.append((start, end))
        torch.cuda.synchronize()
        times = sorted(s.elapsed_time(e) * 1000.0 for s, e in pairs)
        return times[len(times) // 2]


def copy_bandwidth_gbps(torch, timer) -> float:
    n = 1 << 30
    src = torch.empty(n, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    us = timer.median_us(lambda: dst.copy_(src))
    return 2 * n / (us * 1e-6) / 1e9


#: bytes -> median µs of a device-to-device copy moving that many bytes (read + written), per worker
_SAME_SIZE_COPY_US: dict = {}


def same_size_copy_us(torch, timer, nbytes: int):
    """A ``copy_`` that reads nbytes/2 and writes nbytes/2, timed as the kernels are (events around
    one launch after an L2 flush): what a plain copy of the variant's traffic costs at its size,
    launch and tail included. The 1 GiB copy bandwidth hides those fixed costs; a kernel of tens
    of microseconds pays them in full (the evidence for the % copy BW goal at small bench shapes)."""
    half = int(nbytes) // 2
    if half <= 0:
        return None
    if half not in _SAME_SIZE_COPY_US:
        src = torch.empty(half, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        _SAME_SIZE_COPY_US[half] = timer.median_us(lambda: dst.copy_(src))
        del src, dst
    return _SAME_SIZE_COPY_US[half]


def bench_variant(torch, op, variant, ref, cubin, launch_variant, timer, copy_gbps):
    shape = variant.bench_shape
    inputs = ref.make_inputs(variant.raw, shape, seed=SEED, device="cuda")
    from tileir_diff.launch import prepare_launch

    # Checks and packing happen once; the timed call is a bare cuLaunchKernel.
    kernel_us = timer.median_us(prepare_launch(variant, cubin, inputs))
    row = {"shape": shape, "kernel_us": kernel_us}
    nbytes = variant.bytes_for(shape)
    flops = variant.flops_for(shape)
    row["bytes"] = nbytes
    row["gbps"] = nbytes / (kernel_us * 1e-6) / 1e9
    row["pct_copy_bw"] = 100.0 * row["gbps"] / copy_gbps if copy_gbps else None
    if nbytes and op.family in MEMORY_BOUND_FAMILIES:
        copy_us = same_size_copy_us(torch, timer, nbytes)
        if copy_us:
            row["same_size_copy_us"] = copy_us
            row["pct_same_size_copy"] = 100.0 * copy_us / kernel_us
    row["tflops"] = flops / (kernel_us * 1e-6) / 1e12 if flops else None
    baseline = getattr(ref, "torch_baseline", None)
    if baseline is not None:
        row["baseline_us"] = timer.median_us(lambda: baseline(variant.raw, inputs))
        row["speedup_vs_baseline"] = row["baseline_us"] / kernel_us
        row["baseline_gbps"] = nbytes / (row["baseline_us"] * 1e-6) / 1e9
        row["baseline_tflops"] = flops / (row["baseline_us"] * 1e-6) / 1e12 if flops else None
    return row


def worker(args) -> int:
    import torch

    from tileir_diff.launch import launch_variant
    from tileir_diff.suite.refutil import POISON_INT

    torch.backends.cuda.matmul.allow_tf32 = False  # references must not silently use tf32
    (op,) = load_catalog(args.reference_root, ops=[args.op])
    ref = _load_ref(op)
    done = set(args.skip or [])
    timer = _Timer(torch, args.warmup, args.reps) if not args.no_bench else None
    sink = open(args.results_file, "a")

    def emit(record):
        sink.write(json.dumps(record) + "\n")
        sink.flush()

    for variant in op.variants:
        if variant.name in done:
            continue
        cubin = Path(args.build_root) / op.op / f"{variant.name}.{args.arch}.cubin"
        for shape in variant.test_shapes:
            rec = {"kind": "check", "op": op.op, "variant": variant.name, "shape": shape, "shape_key": shape_key(shape)}
            start = time.monotonic()
            try:
                if not cubin.is_file():
                    raise FileNotFoundError(f"missing cubin {cubin}")
                rec.update(check_case(torch, op, variant, ref, shape, cubin, launch_variant, POISON_INT))
            except Exception as exc:  # one failing case must not stop the rest
                rec.update(status="error", error=f"{type(exc).__name__}: {exc}",
                           traceback=traceback.format_exc(limit=6))
                if _is_context_error(exc):
                    rec["seconds"] = time.monotonic() - start
                    emit(rec)
                    emit({"kind": "variant_done", "op": op.op, "variant": variant.name})
                    return EXIT_CONTEXT_LOST
            rec["seconds"] = time.monotonic() - start
            emit(rec)
        if timer is not None and cubin.is_file():
            rec = {"kind": "bench", "op": op.op, "variant": variant.name}
            try:
                copy_gbps = args.copy_gbps
                rec.update(bench_variant(torch, op, variant, ref, cubin, launch_variant, timer, copy_gbps))
            except Exception as exc:
                rec.update(error=f"{type(exc).__name__}: {exc}")
                if _is_context_error(exc):
                    emit(rec)
                    emit({"kind": "variant_done", "op": op.op, "variant": variant.name})
                    return EXIT_CONTEXT_LOST
            emit(rec)
        emit({"kind": "variant_done", "op": op.op, "variant": variant.name})
    return 0


# ------------------------------------------------------------------------------------------
# parent side


def _environment(args) -> dict:
    import torch

    from tileir_diff.launch.driver import driver

    props = torch.cuda.get_device_properties(0)
    env = {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "gpu": props.name,
        "compute_capability": f"{props.major}.{props.minor}",
        "cuda_driver_api_version": driver().driver_version(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "python": platform.python_version(),
        "arch": args.arch,
        "timing": (f"CUDA events around each launch, L2 flushed (256 MiB memset) before each repetition, "
                   f"median of {args.reps} after {args.warmup} warmup launches"),
    }
    try:
        env["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                       capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
    except Exception:
        env["driver"] = f"CUDA driver API {env['cuda_driver_api_version']}"
    if not args.no_bench:
        timer = _Timer(torch, args.warmup, args.reps)
        env["copy_bandwidth_gbps"] = copy_bandwidth_gbps(torch, timer)
        del timer
        torch.cuda.empty_cache()  # the workers need the memory, not this process
    return env


def _load_specs(args):
    """Valid ops, plus one error per folder whose analysis.json does not validate (the rest still run)."""
    root = Path(args.reference_root) if args.reference_root else default_reference_root()
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".", "__")))
    if args.ops:
        unknown = set(args.ops) - {p.name for p in folders}
        if unknown:
            raise SystemExit(f"no such op(s): {sorted(unknown)}")
        folders = [p for p in folders if p.name in args.ops]
    specs, errors = [], []
    for folder in folders:
        try:
            specs.append(load_op(folder))
        except CatalogError as exc:
            errors.append({"op": folder.name, "error": str(exc)})
    return specs, errors


def _default_arch() -> str:
    import torch

    major, minor = torch.cuda.get_device_capability(0)
    return f"sm_{major}{minor}"


def run_all(args) -> dict:
    specs, catalog_errors = _load_specs(args)
    for e in catalog_errors:
        print(f"[{e['op']}] skipped: {e['error']}", file=sys.stderr)
    env = _environment(args)
    results_file = Path(args.out) / "reference_results.jsonl"
    results_file.unlink(missing_ok=True)
    for op in specs:
        skip: list[str] = []
        attempts = 0
        while True:
            attempts += 1
            cmd = [sys.executable, __file__, "--worker", "--op", op.op, "--arch", args.arch,
                   "--build-root", str(args.build_root), "--results-file", str(results_file),
                   "--warmup", str(args.warmup), "--reps", str(args.reps),
                   "--copy-gbps", str(env.get("copy_bandwidth_gbps", 0.0))]
            if args.reference_root:
                cmd += ["--reference-root", str(args.reference_root)]
            if args.no_bench:
                cmd.append("--no-bench")
            for s in skip:
                cmd += ["--skip", s]
            try:
                proc = subprocess.run(cmd, timeout=args.op_timeout, capture_output=True, text=True)
                rc, tail = proc.returncode, (proc.stderr or "")[-3000:]
            except subprocess.TimeoutExpired:
                rc, tail = -1, f"worker timed out after {args.op_timeout}s"
            done = {r["variant"] for r in _read_jsonl(results_file) if r["kind"] == "variant_done" and r["op"] == op.op}
            if rc == 0:
                break
            remaining = [v.name for v in op.variants if v.name not in done]
            print(f"[{op.op}] worker exited {rc}; {len(remaining)} variants left", file=sys.stderr)
            if rc != EXIT_CONTEXT_LOST:
                # crashed without saying where: charge the first unfinished variant and go on
                if remaining:
                    _append(results_file, {"kind": "worker_crash", "op": op.op, "variant": remaining[0],
                                           "error": f"worker exit {rc}: {tail}"})
                    _append(results_file, {"kind": "variant_done", "op": op.op, "variant": remaining[0]})
                    done.add(remaining[0])
            skip = sorted(done)
            if not [v for v in op.variants if v.name not in done] or attempts > len(op.variants) + 1:
                break
        print(f"[{op.op}] done", file=sys.stderr)
    doc = _assemble(specs, env, _read_jsonl(results_file))
    doc["catalog_errors"] = catalog_errors
    doc["summary"]["catalog_errors"] = len(catalog_errors)
    return doc


def _append(path: Path, record: dict) -> None:
    with open(path, "a") as f:
        f.write(json.dumps(record) + "\n")


def _read_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            pass  # a worker killed mid-line
    return out


def _assemble(specs, env, records) -> dict:
    checks = {(r["op"], r["variant"], r["shape_key"]): r for r in records if r["kind"] == "check"}
    crashes = {(r["op"], r["variant"]): r for r in records if r["kind"] == "worker_crash"}
    benches = {(r["op"], r["variant"]): r for r in records if r["kind"] == "bench"}
    results, bench = [], []
    for op in specs:
        for v in op.variants:
            for s in v.test_shapes:
                key = (op.op, v.name, shape_key(s))
                r = checks.get(key)
                if r is None:
                    crash = crashes.get((op.op, v.name))
                    r = {"kind": "check", "op": op.op, "variant": v.name, "shape": s, "shape_key": shape_key(s),
                         "status": "error", "error": crash["error"] if crash else "not run (worker stopped earlier)"}
                results.append(r)
            if (op.op, v.name) in benches:
                b = dict(benches[(op.op, v.name)])
                b["family"] = op.family
                bench.append(b)
    summary = {s: sum(r["status"] == s for r in results) for s in ("pass", "fail", "error")}
    summary["cases"] = len(results)
    summary["variants"] = sum(len(op.variants) for op in specs)
    summary["variants_all_pass"] = sum(
        all(r["status"] == "pass" for r in results if r["op"] == op.op and r["variant"] == v.name)
        for op in specs for v in op.variants)
    return {"schema_version": 1, "environment": env, "summary": summary, "results": results, "bench": bench}


def _earlier_runs(previous: dict, kept: set) -> list:
    """The environments of the runs that measured the `kept` ops of an earlier results file, each
    with `ops`, the ops whose figures it gave: the earlier file's own run for the ops it ran (all of
    them, when it merged nothing), then its own merged runs (flattened: a file merged twice still
    names each op's run; an entry without `ops`, from before they were recorded, takes the rest)."""
    own = set(previous.get("ops_run", kept)) & kept
    runs = [{**previous["environment"], "ops": sorted(own)}] if own else []
    rest = kept - own
    for earlier in previous.get("merged_from", []):
        ops = set(earlier.get("ops", rest)) & rest
        if ops:
            runs.append({**earlier, "ops": sorted(ops)})
            rest -= ops
    return runs


def _merge(doc: dict, previous: dict) -> None:
    """Adds the results of ops this run did not cover from an earlier run's JSON (for split runs)."""
    ran = {r["op"] for r in doc["results"]} | {e["op"] for e in doc.get("catalog_errors", [])}
    # The environment above is this run's; say which ops it covered, so a merged file never
    # passes the earlier runs' figures (another GPU, another copy bandwidth) off as this run's.
    doc.setdefault("ops_run", sorted(ran))
    kept = {r["op"] for r in previous["results"] if r["op"] not in ran}
    doc["results"] += [r for r in previous["results"] if r["op"] not in ran]
    doc["bench"] += [b for b in previous["bench"] if b["op"] not in ran]
    doc.setdefault("merged_from", []).extend(_earlier_runs(previous, kept))
    results = doc["results"]
    summary = doc["summary"]
    for status in ("pass", "fail", "error"):
        summary[status] = sum(r["status"] == status for r in results)
    summary["cases"] = len(results)
    keys = {(r["op"], r["variant"]) for r in results}
    summary["variants"] = len(keys)
    summary["variants_all_pass"] = sum(all(r["status"] == "pass" for r in results if (r["op"], r["variant"]) == k)
                                       for k in keys)


def _fmt(x, digits=3):
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    return str(x)


def render_markdown(doc: dict) -> str:
    env, summary = doc["environment"], doc["summary"]
    lines = [
        "# Reference suite on the GPU",
        "",
        f"- date: {env['date']}",
        f"- GPU: {env['gpu']} (compute capability {env['compute_capability']}), cubins: {env['arch']}",
        f"- driver: {env['driver']} (CUDA driver API {env['cuda_driver_api_version']}), torch {env['torch']} (CUDA {env['torch_cuda']})",
        f"- timing: {env['timing']}",
    ]
    if "copy_bandwidth_gbps" in env:
        lines.append(f"- measured device-to-device copy bandwidth: {env['copy_bandwidth_gbps']:.0f} GB/s (bytes read + written)")
    if doc.get("merged_from"):
        lines.append(f"- this run covered: {', '.join(doc.get('ops_run', [])) or 'unrecorded'}; the other ops' "
                     "results are merged from earlier runs (their % copy BW against their own run's copy bandwidth):")
        lines += [f"  - {m.get('date')}: {m.get('gpu')}, copy bandwidth {m.get('copy_bandwidth_gbps', 0):.0f} GB/s"
                  + (f" ({', '.join(m['ops'])})" if "ops" in m else "") for m in doc["merged_from"]]
    for e in doc.get("catalog_errors", []):
        lines.append(f"- **{e['op']} not run**: invalid analysis.json: {e['error']}")
    lines += ["", f"**{summary['pass']} of {summary['cases']} cases pass** ({summary['fail']} fail, {summary['error']} error); "
              f"{summary['variants_all_pass']} of {summary['variants']} variants pass every test shape.", "",
              "## Numerics", "", "| op | variant | shape | status | max abs err | max rel err | mismatches | note |",
              "|---|---|---|---|---|---|---|---|"]
    for r in doc["results"]:
        shape = ", ".join(f"{k}={v}" for k, v in r["shape"].items() if k != "noncontiguous")
        if r["shape"].get("noncontiguous"):
            shape += " (non-contig " + ",".join(r["shape"]["noncontiguous"]) + ")"
        outs = r.get("outputs", {})
        max_abs = max((o.get("max_abs_err") or 0.0 for o in outs.values()), default=None)
        rels = [o.get("max_rel_err") for o in outs.values() if o.get("max_rel_err") is not None]
        mism = sum(o.get("mismatches", 0) for o in outs.values()) if outs else None
        note = "; ".join(r.get("checks", []))
        if r.get("error"):
            note = r["error"].splitlines()[0][:160].replace("|", "/")
        unwritten = sum(o.get("unwritten", 0) for o in outs.values())
        if unwritten:
            note = (note + "; " if note else "") + f"{unwritten} unwritten"
        lines.append(f"| {r['op']} | {r['variant']} | {shape} | {r['status']} | {_fmt(max_abs)} | "
                     f"{_fmt(max(rels) if rels else None)} | {_fmt(mism)} | {note} |")
    lines += ["", "## Performance (bench_shape of each variant)", "",
              "| op | variant | shape | kernel µs | GB/s | % copy BW | TFLOP/s | torch µs | torch TFLOP/s | torch/kernel |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for b in doc["bench"]:
        shape = ", ".join(f"{k}={v}" for k, v in b.get("shape", {}).items())
        if b.get("error"):
            lines.append(f"| {b['op']} | {b['variant']} | {shape} | error: {b['error'][:100]} | | | | | | |")
            continue
        lines.append(f"| {b['op']} | {b['variant']} | {shape} | {b['kernel_us']:.1f} | {b['gbps']:.0f} | "
                     f"{_fmt(b.get('pct_copy_bw'))} | {_fmt(b.get('tflops'))} | {_fmt(b.get('baseline_us'))} | "
                     f"{_fmt(b.get('baseline_tflops'))} | {_fmt(b.get('speedup_vs_baseline'))} |")
    lines += ["", "torch/kernel > 1 means the reference kernel is faster than the torch baseline "
              "(ref.torch_baseline: what a user would call instead).", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.environ.get("OUT", str(REPO / "out")), help="output folder (default $OUT)")
    ap.add_argument("--build-root", default=str(REPO / "build" / "reference"))
    ap.add_argument("--reference-root", default=None)
    ap.add_argument("--arch", default=None, help="cubin flavour to launch (default: from the device, e.g. sm_90)")
    ap.add_argument("--op", action="append", dest="ops", help="only this op (repeatable)")
    ap.add_argument("--no-bench", action="store_true")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--op-timeout", type=int, default=240, help="seconds per op worker")
    ap.add_argument("--merge", action="append", metavar="JSON",
                    help="earlier reference_results.json whose other ops are kept (split a long run)")
    # worker-only
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--results-file", help=argparse.SUPPRESS)
    ap.add_argument("--skip", action="append", help=argparse.SUPPRESS)
    ap.add_argument("--copy-gbps", type=float, default=0.0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        args.op = args.ops[0]
        return worker(args)
    args.arch = args.arch or _default_arch()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    doc = run_all(args)
    for previous in args.merge or []:
        _merge(doc, json.loads(Path(previous).read_text()))
    (Path(args.out) / "reference_results.json").write_text(json.dumps(doc, indent=1) + "\n")
    (Path(args.out) / "reference_results.md").write_text(render_markdown(doc))
    s = doc["summary"]
    print(f"{s['pass']} passed, {s['fail']} failed, {s['error']} errors over {s['cases']} cases "
          f"({s['variants_all_pass']}/{s['variants']} variants fully pass); results in {args.out}")
    return 0 if s["fail"] == 0 and s["error"] == 0 and not s.get("catalog_errors") else 1


if __name__ == "__main__":
    sys.exit(main())
