"""The corpus generator regenerates cases consistently, and the committed corpus is well formed."""
from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("cuda.tile", reason="cuTile Python (cuda-tile) is not installed")

CORPUS_DIR = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("corpus_generate", CORPUS_DIR / "generate.py")
generate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generate)

# Cheap cases with distinct features: a version-gated op (atan2 needs 13.2), several entries in
# one file, the 13.1 print mutex (globals), and a 13.4-only op (insert).
SAMPLE = ["float_pow_atan2", "multi_entry_axpy_blocks", "printf_and_print", "insert_subtile"]


@pytest.fixture(scope="module")
def tool():
    try:
        return generate.find_tileirdisasm()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory, tool):
    out = tmp_path_factory.mktemp("corpus")
    entries = generate.generate(out, only=SAMPLE, log=lambda *_: None)
    return out, entries


def _check_manifest_against_dir(out: Path, entries: list, tool: str):
    on_disk = json.loads((out / "manifest.json").read_text())
    assert on_disk == entries
    files = {e["file"] for e in entries if e["file"]}
    assert files == {p.name for p in out.glob("*.tileirbc")}, "manifest and files disagree"
    for e in entries:
        assert e["version"] in generate.VERSIONS
        if e["status"] != "ok":
            assert e["file"] is None and e["error"], e
            continue
        path = out / e["file"]
        data = path.read_bytes()
        assert e["file"] == generate.file_name(e["name"], e["version"])
        assert len(data) == e["bytes"]
        assert data.startswith(generate.TILEIR_MAGIC)
        text = subprocess.run([tool, str(path)], capture_output=True, text=True, check=True).stdout
        assert generate.op_names(text) == e["ops"]
        assert text.count("entry @") == len(e["symbols"])
    ops_txt = (out / "ops.txt").read_text().split()
    assert ops_txt == generate.all_ops(entries)


def test_regenerated_manifest_matches_files(regenerated, tool):
    out, entries = regenerated
    assert sorted({e["name"] for e in entries}) == sorted(SAMPLE)
    # Every sample case is attempted at every version, failures included.
    assert len(entries) == len(SAMPLE) * len(generate.VERSIONS)
    _check_manifest_against_dir(out, entries, tool)


def test_version_gates_are_recorded_not_hidden(regenerated):
    _, entries = regenerated
    by_key = {(e["name"], e["version"]): e for e in entries}
    assert by_key[("float_pow_atan2", "13.1")]["status"] == "export_failed"
    assert "atan2" in by_key[("float_pow_atan2", "13.2")]["ops"]
    assert [by_key[("insert_subtile", v)]["status"] for v in generate.VERSIONS] == \
        ["export_failed"] * 3 + ["ok"]
    assert "insert" in by_key[("insert_subtile", "13.4")]["ops"]
    # Below 13.2 printing takes a global mutex: the only way cuTile emits globals.
    assert {"global", "get_global", "print_tko"} <= set(by_key[("printf_and_print", "13.1")]["ops"])
    assert "global" not in by_key[("printf_and_print", "13.3")]["ops"]
    assert by_key[("multi_entry_axpy_blocks", "13.3")]["symbols"] == \
        ["axpy_b64", "axpy_b256", "axpy_b1024_i64"]


def test_only_merges_into_existing_manifest(tmp_path, tool):
    generate.generate(tmp_path, only=["float_arith"], log=lambda *_: None)
    merged = generate.generate(tmp_path, only=["bitcasts"], versions=("13.3",),
                               log=lambda *_: None)
    names = {(e["name"], e["version"]) for e in merged}
    assert {("float_arith", v) for v in generate.VERSIONS} <= names
    assert ("bitcasts", "13.3") in names and ("bitcasts", "13.1") not in names


def test_unknown_case_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="unknown case name"):
        generate.generate(tmp_path, only=["no_such_case"])


def test_op_names_parser():
    text = "\n".join([
        "global  @m <i32: 1> : tile<1xi32>",
        "entry @k(%arg0: tile<i32>) optimization_hints=<default = {}> {",
        "  %1:2 = loop iter_values(%a = %b) : tile<i32> -> tile<i32> {",
        "    %r, %t = load_view_tko weak %p[%x] : x",
        "    (%lhs: tile<f32>, %rhs: tile<f32>) {",
        "    break",
        "  } else {",
        "  }",
        "  return",
    ])
    assert generate.op_names(text) == ["break", "entry", "global", "load_view_tko", "loop",
                                       "return"]


def test_committed_corpus_is_consistent(tool):
    data_dir = CORPUS_DIR / "data"
    manifest = data_dir / "manifest.json"
    if not manifest.exists():
        pytest.skip("no committed corpus")
    entries = json.loads(manifest.read_text())
    assert len({e["name"] for e in entries}) >= 64
    for e in entries:
        if e["status"] == "ok":
            data = (data_dir / e["file"]).read_bytes()
            assert data.startswith(generate.TILEIR_MAGIC) and len(data) == e["bytes"]
    assert {p.name for p in data_dir.glob("*.tileirbc")} == \
        {e["file"] for e in entries if e["file"]}
