#!/usr/bin/env python3
"""Run the CLI with --format json (as an agent would) and act on the report.

    python3 examples/read_json_report.py [LEFT RIGHT]

Without arguments it plants a bug (a reduce identity 0.0 -> 1.0) in a text copy of a corpus
kernel, diffs, and prints each root difference with the op text on both sides.
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import tileir_diff

DATA = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "data"

if len(sys.argv) == 3:
    left, right = sys.argv[1:3]
else:
    left = DATA / "reduce_custom.v13_4.tileirbc"
    text = tileir_diff.print_module(tileir_diff.load(left))
    buggy = text.replace("identities=[0.000000e+00 : f32]", "identities=[1.000000e+00 : f32]", 1)
    assert buggy != text, "the example kernel no longer has a 0.0 reduce identity"
    right = Path(tempfile.mkdtemp()) / "buggy.tileir"
    right.write_text(buggy)

proc = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "diff", str(left), str(right), "--format", "json"],
                      capture_output=True, text=True)
if proc.returncode == 2:  # bad input: one line on stderr, no JSON
    sys.exit(proc.stderr.strip())
report = json.loads(proc.stdout)
assert report["schema_version"].startswith("1."), "this reader understands schema 1.x"
print(f"verdict: {report['verdict']} (exit status {proc.returncode})")
for d in report["differences"]:
    print(f"- {d['category']}: {d['message']}")
    for side in ("left", "right"):
        ref = d[side]
        print(f"    {side:5s} {ref['op_id'] + ': ' + ref['text'] if ref else '(absent)'}")
    if d["affected"]:
        print(f"    affected: {', '.join(d['affected'])}")
