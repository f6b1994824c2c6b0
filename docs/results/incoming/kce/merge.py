"""Merge kce's device-call outputs (cross_entropy only) into docs/results/ (run from the worktree root)."""
import importlib.util
import json
import sys
from pathlib import Path
R = Path(sys.argv[1])  # the unpacked r/ folder
D = Path("docs/results")

def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m

# 1. reference results: run_reference._merge (this run covered cross_entropy only)
rr = load("rr", "scripts/gpu/run_reference.py")
doc = json.loads((R / "ref/reference_results.json").read_text())
assert {r["op"] for r in doc["results"]} == {"cross_entropy"}
rr._merge(doc, json.loads((D / "reference_results.json").read_text()))
(D / "reference_results.json").write_text(json.dumps(doc, indent=1) + "\n")
(D / "reference_results.md").write_text(rr.render_markdown(doc))

# 2. selection passes: cross_entropy rows replaced, each with its run
for src, dst in (("sel1", "selection.json"), ("sel2", "selection_repeat.json")):
    new = json.loads((R / src / "selection.json").read_text())
    env = new["environment"]
    run = {"date": env["date"], "gpu": env["gpu"], "timing": env["timing"]}
    old = json.loads((D / dst).read_text())
    rows = [r for r in old["rows"] if r["op"] != "cross_entropy"]
    rows += [{**r, "run": run} for r in new["rows"] if r["op"] == "cross_entropy"]
    old["rows"] = rows
    (D / dst).write_text(json.dumps(old, indent=1) + "\n")

# 3. GPU numerics of the ports: cross_entropy cases replaced, each with its run
new = json.loads((R / "ports_results.json").read_text())
old = json.loads((D / "ports_results.json").read_text())
stamp = {"date": new["date"], "gpu": new["gpu"], "driver": new["driver"]}
fresh = [{**c, **stamp} for c in new["cases"] if c["op"] == "cross_entropy"]
at = next(i for i, c in enumerate(old["cases"]) if c["op"] == "cross_entropy")
kept = [c for c in old["cases"] if c["op"] != "cross_entropy"]
old["cases"] = kept[:at] + fresh + kept[at:]
(D / "ports_results.json").write_text(json.dumps(old, indent=1) + "\n")
print("merged", len(fresh), "port cases")
