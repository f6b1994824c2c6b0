#!/usr/bin/env python3
"""Merge one device call's outputs, for some ops only, into the committed docs/results files.

A device call made with a subset of ops (run_reference.py --op, bench_selection.py --op,
bench_ports.py --op, test_gpu_ports.py -k, profile_misses.py --op) writes its outputs under one
folder RUN; this script folds them into docs/results, replacing exactly those ops' rows and
keeping every other op's rows (and the run they came from) as they are:

    RUN/ref/reference_results.json   -> reference_results.{json,md}   (run_reference._merge)
    RUN/ports/ports_bench.json       -> ports_bench.json               (bench_ports.merge_runs)
    RUN/sel1/selection.json          -> selection.json                 (the ops' rows, tagged with their run)
    RUN/sel2/selection.json          -> selection_repeat.json          (same)
    RUN/pytest/ports_results.json    -> ports_results.json             (the ops' cases, tagged with their run)
    RUN/prof/profile_misses.json     -> profile_misses.json            (the profiled variants' rows)

A missing part is skipped and said so. Afterwards render what depends on these files:
`bench_ports.py --render docs/results/ports_bench.json`, `scripts/sass_evidence.py --write`,
`python3 -m tileir_diff.cli suite status --markdown docs/PORTS.md --report-dir build/report`.

    python3 scripts/gpu/merge_results.py RUN --op cross_entropy --op rms_norm [--part ref --part sel ...]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _load_script(name: str):
    spec = importlib.util.spec_from_file_location(f"_merge_{name}", REPO / "scripts" / "gpu" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(REPO))
    spec.loader.exec_module(module)
    return module


def _read(path: Path):
    return json.loads(path.read_text()) if path.is_file() else None


def _write(path: Path, doc) -> None:
    path.write_text(json.dumps(doc, indent=1) + "\n")


def _replace_rows(rows: list, new_rows: list, ops: set) -> list:
    """rows with the ops' rows replaced by new_rows, placed where the first of them was (else at the end)."""
    first = next((i for i, r in enumerate(rows) if r["op"] in ops), None)
    rest = [r for r in rows if r["op"] not in ops]
    if first is None:
        return rest + new_rows
    # the position among the kept rows: how many kept rows came before the first replaced one
    at = sum(1 for r in rows[:first] if r["op"] not in ops)
    return rest[:at] + new_rows + rest[at:]


def merge_reference(run: Path, res: Path, ops: set) -> str:
    doc = _read(run / "ref" / "reference_results.json")
    if doc is None:
        return "reference_results: no output in this run"
    rr = _load_script("run_reference")
    doc["results"] = [r for r in doc["results"] if r["op"] in ops]
    doc["bench"] = [b for b in doc["bench"] if b["op"] in ops]
    rr._merge(doc, json.loads((res / "reference_results.json").read_text()))
    _write(res / "reference_results.json", doc)
    (res / "reference_results.md").write_text(rr.render_markdown(doc))
    return f"reference_results: {doc['summary']}"


def merge_ports_bench(run: Path, res: Path, ops: set) -> str:
    new = _read(run / "ports" / "ports_bench.json")
    if new is None:
        return "ports_bench: no output in this run"
    bp = _load_script("bench_ports")
    merged = bp.merge_runs([json.loads((res / "ports_bench.json").read_text()), new])
    _write(res / "ports_bench.json", merged)
    got = {op: merged["summary"]["ops"].get(op) for op in sorted(ops)}
    return f"ports_bench: {merged['summary']['overall']}; {got}"


def merge_selection(run: Path, res: Path, ops: set) -> list[str]:
    said = []
    for name, part in (("selection.json", "sel1"), ("selection_repeat.json", "sel2")):
        new = _read(run / part / "selection.json")
        if new is None:
            said.append(f"{name}: no output in this run")
            continue
        env = new["environment"]
        tag = {k: env[k] for k in ("date", "gpu", "timing")}
        rows = [{**r, "run": tag} for r in new["rows"] if r["op"] in ops]
        old = json.loads((res / name).read_text())
        old["rows"] = _replace_rows(old["rows"], rows, ops)
        _write(res / name, old)
        said.append(f"{name}: {len(rows)} rows of {sorted({r['op'] for r in rows})}")
    return said


def merge_port_numerics(run: Path, res: Path, ops: set) -> str:
    new = _read(run / "pytest" / "ports_results.json")
    if new is None:
        return "ports_results: no output in this run"
    tag = {k: new[k] for k in ("date", "gpu", "driver")}
    cases = [{**c, **tag} for c in new["cases"] if c["op"] in ops]
    old = json.loads((res / "ports_results.json").read_text())
    old["cases"] = _replace_rows(old["cases"], cases, ops)
    _write(res / "ports_results.json", old)
    passed = sum(c["result"] == "pass" for c in cases)
    return f"ports_results: {passed} of {len(cases)} cases pass"


def merge_profiles(run: Path, res: Path, ops: set) -> str:
    new = _read(run / "prof" / "profile_misses.json")
    old = json.loads((res / "profile_misses.json").read_text())
    got = {} if new is None else {p["variant"]: p for p in new["profiles"] if p["variant"].split("/")[0] in ops}
    old["profiles"] = [p for p in old["profiles"] if p["variant"] not in got] + list(got.values())
    old["not_profiled"] = [n for n in old.get("not_profiled", []) if n["variant"] not in got]
    if new is not None:
        record = {"date": new["date"], "gpu": new.get("gpu", ""), "ops": sorted(ops), "seconds": new.get("seconds")}
        if record not in old.setdefault("merged", []):  # merging the same run again changes nothing
            old["merged"].append(record)
        for key in ("failed", "dropped_metrics"):
            extra = [x for x in new.get(key, []) if x not in old.get(key, [])]
            old[key] = old.get(key, []) + extra
    # The committed profiles are those of the committed evidence's unexplained rows, in its order
    # (tests/perf/test_profile_misses.py): a row that has a SASS bound now, or meets its goal in
    # the newer run, loses its profile; one that became a target without a profile is named. Done
    # with no profiles in the run too: a reference merge moves and changes the evidence's rows.
    targets = [f"{op}/{v}" for op, v in _load_script("profile_misses").targets(
        json.loads((res / "sass_evidence.json").read_text()))]
    have = {p["variant"]: p for p in old["profiles"]}
    dropped = sorted(set(have) - set(targets))
    old["profiles"] = [have[t] for t in targets if t in have]
    missing = [t for t in targets if t not in have and t not in {n["variant"] for n in old["not_profiled"]}]
    _write(res / "profile_misses.json", old)
    said = "no output in this run; " if new is None else ""
    return (f"profile_misses: {said}{len(got)} profiles merged, {len(dropped)} dropped (no longer targets: {dropped}), "
            f"{len(old['not_profiled'])} named not profiled, {len(missing)} targets without a profile: {missing}")


PARTS = {"ref": merge_reference, "ports": merge_ports_bench, "sel": merge_selection,
         "pytest": merge_port_numerics, "prof": merge_profiles}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path, help="the unpacked outputs of one device call")
    ap.add_argument("--op", action="append", dest="ops", required=True, help="an op to merge (repeatable)")
    ap.add_argument("--results", type=Path, default=REPO / "docs" / "results")
    ap.add_argument("--part", action="append", dest="parts", choices=PARTS,
                    help="merge only this part (repeatable; default: every part the run has)")
    args = ap.parse_args()
    ops = set(args.ops)
    for part in args.parts or PARTS:
        said = PARTS[part](args.run, args.results, ops)
        print("\n".join(said) if isinstance(said, list) else said)
    return 0


if __name__ == "__main__":
    sys.exit(main())
