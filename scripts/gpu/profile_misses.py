#!/usr/bin/env python3
"""Nsight Compute profiles of the reference variants that miss their goal where the SASS shows
no bound (docs/results/sass_evidence.json rows with no `bounds`): issue 17's evidence beyond
static SASS. One kernel launch per variant at its bench_shape, between cudaProfilerStart and
cudaProfilerStop, under `ncu --profile-from-start off` (on the device image): DRAM and SM throughput against peak, achieved occupancy, waves,
and the warp stall reasons; each row gets the bound the counters show.

    python3 scripts/gpu/profile_misses.py --out "$OUT"          # on the GPU machine (runs ncu itself)
    python3 scripts/gpu/profile_misses.py --render FILE.json    # here: the Markdown table

Carry build/reference's sm_90 cubins of the profiled ops. Metric names that this ncu does not
know are dropped (and listed in the JSON) rather than failing the run.
"""
from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

EVIDENCE = ROOT / "docs" / "results" / "sass_evidence.json"
SEED = 1234

#: (metric, short name); stall ratios are warps stalled per issued instruction
METRICS = [
    ("gpu__time_duration.sum", "us"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram_pct"),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm_pct"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy_pct"),
    ("sm__maximum_warps_per_active_cycle_pct", "theoretical_occupancy_pct"),
    ("launch__waves_per_multiprocessor", "waves"),
    ("lts__t_sector_hit_rate.pct", "l2_hit_pct"),
    ("smsp__issue_active.avg.pct_of_peak_sustained_active", "issue_pct"),
]
STALLS = ["long_scoreboard", "barrier", "mio_throttle", "lg_throttle", "math_pipe_throttle", "wait",
          "short_scoreboard", "not_selected", "membar", "drain", "imc_miss", "no_instruction", "dispatch_stall",
          "tex_throttle", "branch_resolving", "sleeping", "misc"]
METRICS += [(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio", f"stall_{s}") for s in STALLS]


def targets(evidence: dict, ops=None, all_rows: bool = False):
    """(op, variant) of the rows to profile: those whose SASS shows no bound (or every miss)."""
    out = []
    for r in evidence["rows"]:
        if r.get("error") or (r.get("bounds") and not all_rows):
            continue
        if ops and r["op"] not in ops:
            continue
        out.append((r["op"], r["variant"]))
    return out


# ---------------------------------------------------------------------------------------------
# the launching process (under ncu)

def launch_all(pairs, arch: str) -> int:
    import torch

    from tileir_diff.launch import prepare_launch
    from tileir_diff.suite.catalog import load_op
    specs = {}
    failed = 0
    for op, name in pairs:
        try:
            spec = specs.get(op) or specs.setdefault(op, load_op(ROOT / "reference" / op))
            variant = spec.variant(name)
            ref_spec = importlib.util.spec_from_file_location(f"_ref_{op}", spec.ref_path)
            ref = importlib.util.module_from_spec(ref_spec)
            ref_spec.loader.exec_module(ref)
            cubin = ROOT / "build" / "reference" / op / f"{name}.{arch}.cubin"
            inputs = ref.make_inputs(variant.raw, variant.bench_shape, seed=SEED, device="cuda")
            fn = prepare_launch(variant, cubin, inputs)
            fn()  # module load and first-launch costs outside the profiled range
            torch.cuda.synchronize()
            torch.cuda.cudart().cudaProfilerStart()
            fn()
            torch.cuda.synchronize()
            torch.cuda.cudart().cudaProfilerStop()
            del fn, inputs
            torch.cuda.empty_cache()
            print(f"launched {op}/{name}", flush=True)
        except Exception as exc:  # one variant's failure must not lose the others' profiles
            failed += 1
            print(f"FAILED {op}/{name}: {type(exc).__name__}: {exc}", flush=True)
    return 1 if failed else 0


# ---------------------------------------------------------------------------------------------
# the driver (runs ncu)

def run_ncu(pairs, arch: str, out: Path, timeout_s: float) -> dict:
    metrics = [m for m, _ in METRICS]
    dropped = []
    list_file = out / "profile_targets.json"
    list_file.write_text(json.dumps(pairs))
    t0 = time.time()
    for _attempt in range(8):
        cmd = ["ncu", "--csv", "--page", "raw", "--profile-from-start", "off",
               "--target-processes", "all", "--metrics", ",".join(metrics),
               sys.executable, str(Path(__file__).resolve()), "--launch", str(list_file), "--arch", arch]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, cwd=ROOT)
        (out / "ncu_stderr.txt").write_text(p.stderr)
        bad = re.findall(r"Failed to find metric (?:regex:)?([\w.]+)", p.stdout + p.stderr)
        if bad:
            dropped += bad
            metrics = [m for m in metrics if m not in bad]
            continue
        break
    (out / "ncu_stdout.txt").write_text(p.stdout)
    rows, units = parse_csv(p.stdout)
    launched = [ln.split(" ", 1)[1] for ln in p.stdout.splitlines() if ln.startswith("launched ")]
    return {"date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "arch": arch, "ncu_rc": p.returncode,
            "seconds": round(time.time() - t0, 1), "metrics": metrics, "dropped_metrics": dropped,
            "launched": launched, "failed": [ln for ln in p.stdout.splitlines() if ln.startswith("FAILED ")],
            "profiles": attach(rows, units, launched)}


def parse_csv(text: str):
    """(kernel rows, units) of ``ncu --csv --page raw``: a line of names, a line of units, then
    one line per profiled kernel; program output interleaves, so only quoted lines count."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    if len(lines) < 2:
        return [], {}
    reader = list(csv.reader(io.StringIO("\n".join(lines))))
    header, body = reader[0], reader[1:]
    rows, units = [], {}
    for rec in body:
        if len(rec) != len(header) or rec == header:
            continue
        row = dict(zip(header, rec))
        if row.get("ID", "").strip().isdigit():
            rows.append(row)
        elif not units:
            units = row
    return rows, units


_TIME_SCALE = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}


def attach(rows: list, units: dict, launched: list) -> list:
    """One profile per launched variant, in launch order (one profiled kernel per NVTX range)."""
    out = []
    names = dict(METRICS)
    for label, row in zip(launched, rows):
        prof = {"variant": label, "kernel": row.get("Kernel Name", "")}
        for metric, short in names.items():
            v = row.get(metric)
            if v in (None, "", "n/a"):
                continue
            try:
                prof[short] = float(v.replace(",", ""))
            except ValueError:
                pass
        if "us" in prof:
            prof["us"] *= _TIME_SCALE.get(units.get("gpu__time_duration.sum", "nsecond"), 1e-3)
        prof["bound"] = classify(prof)
        out.append(prof)
    if len(rows) != len(launched):
        out.append({"variant": "(mismatch)", "bound": f"{len(rows)} profiled kernels for {len(launched)} launches"})
    return out


def classify(p: dict) -> str:
    """One sentence: what the counters say bounds the kernel."""
    stalls = sorted(((v, k[len("stall_"):]) for k, v in p.items() if k.startswith("stall_")), reverse=True)
    total = sum(v for v, _ in stalls) or 0.0
    top = ", ".join(f"{name} {v / total:.0%}" for v, name in stalls[:3] if total) if total else "–"
    parts = []
    dram, sm, occ = p.get("dram_pct"), p.get("sm_pct"), p.get("occupancy_pct")
    if dram is not None and dram >= 70:
        parts.append(f"DRAM at {dram:.0f} % of peak")
    elif sm is not None and sm >= 60 and (dram is None or sm > dram):
        parts.append(f"SM pipes at {sm:.0f} % of peak (compute)")
    else:
        parts.append(f"latency: DRAM {dram if dram is not None else float('nan'):.0f} %, SM "
                     f"{sm if sm is not None else float('nan'):.0f} % of peak")
    if occ is not None:
        parts.append(f"achieved occupancy {occ:.0f} %")
    waves = p.get("waves")
    if waves is not None and waves < 2:
        parts.append(f"{waves:.2f} waves (tail)")
    parts.append(f"top stalls: {top}")
    return "; ".join(parts)


def render(doc: dict) -> str:
    lines = [f"Nsight Compute (`scripts/gpu/profile_misses.py`, {doc['date']}, {doc['arch']} cubins, one launch "
             "per variant at its bench_shape):", "",
             "| variant | µs (profiled) | DRAM % peak | SM % peak | occupancy % (theoretical) | waves | L2 hit % | bound |",
             "|---|---|---|---|---|---|---|---|"]

    def f(p, k, fmt="{:.0f}"):
        return fmt.format(p[k]) if k in p else "–"
    for p in doc["profiles"]:
        lines.append(f"| {p['variant']} | {f(p, 'us', '{:.1f}')} | {f(p, 'dram_pct')} | {f(p, 'sm_pct')} | "
                     f"{f(p, 'occupancy_pct')} ({f(p, 'theoretical_occupancy_pct')}) | {f(p, 'waves', '{:.2f}')} | "
                     f"{f(p, 'l2_hit_pct')} | {p['bound']} |")
    if doc.get("failed"):
        lines += ["", "Not profiled: " + "; ".join(doc["failed"])]
    if doc.get("not_profiled"):
        lines += ["", "Not yet profiled (rows the evidence asks a profile for): " + "; ".join(
            f"{n['variant']} ({n['reason']})" for n in doc["not_profiled"])]
    if doc.get("dropped_metrics"):
        lines += ["", "Metrics this ncu does not know (dropped): " + ", ".join(doc["dropped_metrics"])]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "build/profile")))
    ap.add_argument("--op", action="append", help="only this op (repeatable)")
    ap.add_argument("--all", action="store_true", help="every miss, not only those the SASS does not explain")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--timeout", type=float, default=540.0)
    ap.add_argument("--launch", type=Path, help=argparse.SUPPRESS)   # the process ncu profiles
    ap.add_argument("--render", type=Path, help="print the Markdown of a saved profile JSON")
    args = ap.parse_args(argv)
    if args.launch:
        return launch_all([tuple(x) for x in json.loads(args.launch.read_text())], args.arch)
    if args.render:
        print(render(json.loads(args.render.read_text())), end="")
        return 0
    pairs = targets(json.loads(EVIDENCE.read_text()), args.op, args.all)
    args.out.mkdir(parents=True, exist_ok=True)
    doc = run_ncu(pairs, args.arch, args.out, args.timeout)
    (args.out / "profile_misses.json").write_text(json.dumps(doc, indent=1) + "\n")
    print(render(doc), end="")
    return 0 if doc["profiles"] and not doc["failed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
