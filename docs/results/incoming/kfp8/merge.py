"""Merge kfp8's device-call outputs into docs/results/ (run from the repository root):
`python3 devrun/kfp8/merge.py <path>/r`. Reference results: all of matmul replaced by this run's
(run_reference._merge); port numerics: the fp8 matmul cases replaced, each stamped with this run.
The tuning candidates (r/tune) are not merged: they go into tuning.md's fp8 log by hand."""
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


# 1. reference results: this run covered matmul only
rr = load("rr", "scripts/gpu/run_reference.py")
doc = json.loads((R / "ref/reference_results.json").read_text())
assert {r["op"] for r in doc["results"]} == {"matmul"}, "expected a matmul-only run"
rr._merge(doc, json.loads((D / "reference_results.json").read_text()))
(D / "reference_results.json").write_text(json.dumps(doc, indent=1) + "\n")
(D / "reference_results.md").write_text(rr.render_markdown(doc))
print("reference results:", doc["summary"])

# 2. GPU numerics of the ports: the fp8 matmul cases replaced, each with its run
def fp8(c):
    return c["op"] == "matmul" and c["variant"].startswith("fp8e4m3_")


new = json.loads((R / "ports_results.json").read_text())
old = json.loads((D / "ports_results.json").read_text())
stamp = {"date": new["date"], "gpu": new["gpu"], "driver": new["driver"]}
fresh = [{**c, **stamp} for c in new["cases"] if fp8(c)]
assert fresh, "no fp8 matmul cases in this run"
at = next(i for i, c in enumerate(old["cases"]) if fp8(c))
kept = [c for c in old["cases"] if not fp8(c)]
old["cases"] = kept[:at] + fresh + kept[at:]
(D / "ports_results.json").write_text(json.dumps(old, indent=1) + "\n")
print("merged", len(fresh), "port cases;", sum(c["result"] == "pass" for c in fresh), "pass")
