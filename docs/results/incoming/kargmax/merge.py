"""Merge kargmax's device-call outputs (argmax only) into docs/results/ and tests/interp/fixtures/.

    python3 docs/results/incoming/kargmax/merge.py <path>/r      # r/: the unpacked results.tgz

Each step merges what the call produced and says so; a step whose input is missing (a timed-out
step of the call) is skipped with a message, and the others still run.
"""
import importlib.util
import json
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]  # the repository root
R = Path(sys.argv[1])
D = REPO / "docs" / "results"
OP = "argmax"


def load_script(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(REPO))
    spec.loader.exec_module(m)
    return m


def replace_rows(rows, new_rows):
    """`rows` with the op's rows replaced by `new_rows` at the place of the first old one (appended
    when there was none)."""
    at = next((i for i, r in enumerate(rows) if r["op"] == OP), None)
    rest = [r for r in rows if r["op"] != OP]
    if at is None:
        return rest + new_rows
    return rest[:at] + new_rows + rest[at:]


def missing(path):
    if path.is_file():
        return False
    print(f"skipped: {path} is missing (that step did not finish)")
    return True


# 1. reference results: run_reference._merge (this run covered argmax only)
src = R / "ref" / "reference_results.json"
if not missing(src):
    rr = load_script(REPO / "scripts/gpu/run_reference.py", "rr")
    doc = json.loads(src.read_text())
    assert {r["op"] for r in doc["results"]} == {OP}, {r["op"] for r in doc["results"]}
    rr._merge(doc, json.loads((D / "reference_results.json").read_text()))
    (D / "reference_results.json").write_text(json.dumps(doc, indent=1) + "\n")
    (D / "reference_results.md").write_text(rr.render_markdown(doc))
    print("reference_results", doc["summary"])

# 2. selection passes: argmax rows replaced (or added), each row with its run
for sel, dst in (("sel1", "selection.json"), ("sel2", "selection_repeat.json")):
    src = R / sel / "selection.json"
    if missing(src):
        continue
    new = json.loads(src.read_text())
    env = new["environment"]
    run = {k: env[k] for k in ("date", "gpu", "timing")}
    old = json.loads((D / dst).read_text())
    fresh = [{**r, "run": run} for r in new["rows"] if r["op"] == OP]
    old["rows"] = replace_rows(old["rows"], fresh)
    (D / dst).write_text(json.dumps(old, indent=1) + "\n")
    print(dst, len(fresh), "argmax rows")

# 3. ports bench: bench_ports.merge_runs([committed, this run]) (this run's argmax configurations win)
src = R / "ports" / "ports_bench.json"
if not missing(src):
    bp = load_script(REPO / "scripts/gpu/bench_ports.py", "bp")
    merged = bp.merge_runs([json.loads((D / "ports_bench.json").read_text()), json.loads(src.read_text())])
    (D / "ports_bench.json").write_text(json.dumps(merged, indent=1))
    print("ports_bench", merged["summary"]["overall"]["configs"], merged["summary"]["ops"].get(OP))

# 4. GPU numerics of the ports: argmax cases replaced, each with its run
src = R / "pytest" / "ports_results.json"
if not missing(src):
    new = json.loads(src.read_text())
    stamp = {k: new[k] for k in ("date", "gpu", "driver")}
    fresh = [{**c, **stamp} for c in new["cases"] if c["op"] == OP]
    old = json.loads((D / "ports_results.json").read_text())
    old["cases"] = replace_rows(old["cases"], fresh)
    (D / "ports_results.json").write_text(json.dumps(old, indent=1) + "\n")
    print("ports_results", len(fresh), "cases,", sum(c["result"] == "pass" for c in fresh), "pass")

# 5. interpreter fixtures (torch CPU on the device machine): the argmax .npz files and their
#    manifest entries
src = R / "fixtures" / "manifest.json"
if not missing(src):
    fix = REPO / "tests" / "interp" / "fixtures"
    new = json.loads(src.read_text())
    man = json.loads((fix / "manifest.json").read_text())
    entries = {k: v for k, v in new["fixtures"].items() if k.startswith(OP + "/")}
    for v in entries.values():
        shutil.copyfile(R / "fixtures" / v["file"], fix / v["file"])
    man["fixtures"] = {**{k: v for k, v in man["fixtures"].items() if not k.startswith(OP + "/")}, **entries}
    man["skipped"] = {**{k: v for k, v in man.get("skipped", {}).items() if not k.startswith(OP + "/")},
                      **{k: v for k, v in new.get("skipped", {}).items() if k.startswith(OP + "/")}}
    man.update({k: new[k] for k in ("generator", "generator_version", "seed", "max_bytes", "torch") if k in new})
    man["total_bytes"] = sum(f["bytes"] for f in man["fixtures"].values())
    # as scripts/make_interp_fixtures.py writes it
    (fix / "manifest.json").write_text(json.dumps(man, indent=1, sort_keys=True) + "\n")
    print("fixtures", len(entries), "argmax entries")
