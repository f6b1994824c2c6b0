"""The JSON an agent acts on: structured locations (repo-relative files, inlined-at chains),
details for swaps and operand groups, --no-lines, the schema checked by jsonschema."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tileir_diff
from tileir_diff.paths import repo_relative
from tileir_diff.report import json_schema

ROOT = Path(__file__).resolve().parents[2]
MMA = ROOT / "tests" / "corpus" / "data" / "mma_f16_f32acc.v13_4.tileirbc"
RMS_BWD = ROOT / "tests" / "corpus" / "rust" / "rms_norm.bwd_f16_m4_n1024.tileirbc"


def _swapped_store():
    text = tileir_diff.print_module(tileir_diff.load(MMA))
    return text.replace("[%blockId_x, %blockId_y_14] token", "[%blockId_y_14, %blockId_x] token")


def _two_iter_values():
    """The Rust rms_norm backward with a second (unused) loop-carried value: the for's and the
    continue's operand groups grow from 1 to 2."""
    text = tileir_diff.print_module(tileir_diff.load(RMS_BWD))
    edits = [("iter_values(%iterArg0 = %cst_0_f32) -> (tile<4x1024xf32>) {",
              "iter_values(%iterArg0 = %cst_0_f32, %iterArg1 = %cst_0_f32) -> (tile<4x1024xf32>, tile<4x1024xf32>) {"),
             ("    continue %27 : tile<4x1024xf32>", "    continue %27, %iterArg1 : tile<4x1024xf32>, tile<4x1024xf32>"),
             ("  %for = for", "  %for:2 = for")]
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    return re.sub(r"%for\b(?!:2|#)", "%for#0", text)


def test_swap_detail_says_swapped():
    doc = tileir_diff.diff(MMA, _swapped_store()).to_dict()
    (d,) = doc["differences"]
    assert d["detail"]["swapped"] == ["index[0]", "index[1]"]
    assert [(o["role"], o["swapped_with"]) for o in d["detail"]["operands"]] == \
        [("index[0]", "index[1]"), ("index[1]", "index[0]")]
    assert json_schema.validate(doc) == []


def test_a_changed_operand_is_not_called_swapped(tmp_path):
    text = tileir_diff.print_module(tileir_diff.load(MMA))
    # both indices the x block id: one slot changed, nothing crossed
    mutant = text.replace("[%blockId_x, %blockId_y_14] token", "[%blockId_x, %blockId_x] token")
    doc = tileir_diff.diff(MMA, mutant).to_dict()
    details = [d["detail"] for d in doc["differences"]]
    assert details and all("swapped" not in x for x in details)
    assert all("swapped_with" not in o for x in details for o in x.get("operands", ()))


def test_operand_group_detail_gives_the_sizes():
    doc = tileir_diff.diff(RMS_BWD, _two_iter_values()).to_dict()
    groups = {d["detail"]["left_op"]: d["detail"].get("operand_groups") for d in doc["differences"]
              if d["detail"].get("kind") == "changed"}
    assert groups["for"] == [{"group": "initValues", "left": 1, "right": 2}]
    assert groups["continue"] == [{"group": "operands", "left": 1, "right": 2}]
    assert json_schema.validate(doc) == []


def test_locations_are_structured_and_repo_relative():
    doc = tileir_diff.diff(MMA, _swapped_store()).to_dict()
    left = doc["differences"][0]["left"]
    loc = left["source_location"]
    # the corpus was built in another checkout: its tail names this repository's file
    assert loc["file"] == "tests/corpus/kernels/mma.py" and (ROOT / loc["file"]).is_file()
    assert (loc["line"], loc["col"], loc["inlined_at"]) == (17, 4, [])
    assert left["location"] == "tests/corpus/kernels/mma.py:17:4"


def test_rust_locations_and_inlined_at_chain():
    # Rust writes paths relative to its crate and inlines helpers: both show up structured
    text = tileir_diff.print_module(tileir_diff.load(RMS_BWD))
    mutant = text.replace("continue %27 : tile<4x1024xf32>", "continue %iterArg0 : tile<4x1024xf32>")
    assert mutant != text
    doc = tileir_diff.diff(RMS_BWD, mutant).to_dict()
    locs = [d[side]["source_location"] for d in doc["differences"] for side in ("left", "right")
            if d[side] and d[side].get("source_location")]
    inlined = [x for x in locs if x["inlined_at"]]
    assert inlined, locs
    site = inlined[0]
    assert site["file"].startswith("rust_kernels/src/ops/rms_norm/") and (ROOT / site["file"]).is_file()
    assert site["written"] == site["file"][len("rust_kernels/"):]
    assert all((ROOT / s["file"]).is_file() and s["line"] > 0 for s in site["inlined_at"])
    assert json_schema.validate(doc) == []


def test_repo_relative(tmp_path):
    (tmp_path / "rust_kernels" / "src").mkdir(parents=True)
    (tmp_path / "rust_kernels" / "src" / "k.rs").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "k.py").write_text("")
    assert repo_relative(str(tmp_path / "pkg" / "k.py"), tmp_path) == "pkg/k.py"
    assert repo_relative("/other/checkout/pkg/k.py", tmp_path) == "pkg/k.py"
    assert repo_relative("src/k.rs", tmp_path) == "rust_kernels/src/k.rs"
    # not files of the repository: as written (a bare name never matches by its tail)
    assert repo_relative("/usr/lib/python3/site-packages/cuda/tile/x.py", tmp_path) == \
        "/usr/lib/python3/site-packages/cuda/tile/x.py"
    assert repo_relative("/elsewhere/k.py", tmp_path) == "/elsewhere/k.py"
    assert repo_relative("<unknown>", tmp_path) == "<unknown>"
    assert repo_relative("pkg/k.py", None) == "pkg/k.py"


@pytest.mark.parametrize("no_lines", [False, True])
def test_no_lines_leaves_out_the_printed_modules(tmp_path, no_lines):
    mutant = tmp_path / "swapped.tileir"
    mutant.write_text(_swapped_store())
    args = [sys.executable, "-m", "tileir_diff.cli", "diff", str(MMA), str(mutant), "-f", "json"]
    r = subprocess.run(args + (["--no-lines"] if no_lines else []), capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    assert json_schema.validate(doc) == []
    assert ("left_lines" in doc) is not no_lines and ("right_lines" in doc) is not no_lines
    assert doc["differences"][0]["detail"]["swapped"] == ["index[0]", "index[1]"]
