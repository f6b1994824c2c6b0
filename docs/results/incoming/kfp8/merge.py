"""Merge kfp8's device-call outputs into the repository (run from its root):
`python3 docs/results/incoming/kfp8/merge.py <path>/r`.

1. reference results: all of matmul replaced by this run's (run_reference._merge);
2. port numerics: the fp8 matmul cases replaced, each stamped with this run;
3. interpreter fixtures: the matmul variants the manifest lacks (the four matmul_fp8_w8_c2 ones)
   added from the run's manifest and .npz files; the recorded ones are left as they are.
The port bench merges with bench_ports.py --merge (README); the tuning candidates (r/tune) go into
tuning.md by hand."""
import importlib.util
import json
import shutil
import sys
from pathlib import Path

R = Path(sys.argv[1])  # the unpacked r/ folder
D = Path("docs/results")
FIXTURES = Path("tests/interp/fixtures")


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


# 1. reference results: this run covered matmul only
if (R / "ref/reference_results.json").is_file():
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


if (R / "ports_results.json").is_file():
    new = json.loads((R / "ports_results.json").read_text())
    old = json.loads((D / "ports_results.json").read_text())
    stamp = {"date": new["date"], "gpu": new["gpu"], "driver": new["driver"]}
    fresh = [{**c, **stamp} for c in new["cases"] if fp8(c)]
    assert fresh, "no fp8 matmul cases in this run"
    at = next(i for i, c in enumerate(old["cases"]) if fp8(c))
    kept = [c for c in old["cases"] if not fp8(c)]
    old["cases"] = kept[:at] + fresh + kept[at:]
    (D / "ports_results.json").write_text(json.dumps(old, indent=1) + "\n")
    print("port numerics:", len(fresh), "fp8 cases,", sum(c["result"] == "pass" for c in fresh), "pass")

# 3. interpreter fixtures of the matmul variants without one
if (R / "fixtures/manifest.json").is_file():
    new = json.loads((R / "fixtures/manifest.json").read_text())
    old = json.loads((FIXTURES / "manifest.json").read_text())
    added = sorted(k for k in new["fixtures"] if k.startswith("matmul/") and k not in old["fixtures"])
    for key in added:
        entry = new["fixtures"][key]
        shutil.copyfile(R / "fixtures" / entry["file"], FIXTURES / entry["file"])
        old["fixtures"][key] = entry
    old["fixtures"] = dict(sorted(old["fixtures"].items()))
    old["total_bytes"] = sum(e["bytes"] for e in old["fixtures"].values())
    (FIXTURES / "manifest.json").write_text(json.dumps(old, indent=1, sort_keys=True) + "\n")
    print("fixtures added:", added)
