"""The port gate (issue 5, Verification): every committed cuTile Rust snapshot
(tests/corpus/rust/<op>.<variant>.tileirbc) against the cuTile Python reference IR of the same
variant. A variant passes when the verdict is identical/equivalent/specialized (the checker
proved the same computation; a specialized one lists what each side assumes) or when every
remaining difference is covered by its op's analysis.json ``accepted_differences``; anything else
fails with the full text report (suite/accept.py ``port_passes``, as the port table decides).

The Python IR is build/reference/<op>/<variant>.tileirbc when present (what `tileir-diff suite
status` compares), else it is exported here into a temporary directory (needs cuda-tile).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tileir_diff
from tileir_diff.compare.specialization import is_specialization
from tileir_diff.suite.catalog import load_catalog
from tileir_diff.suite.port_table import accepted_by, count_unsafe_blocks, render_markdown, render_text, unsafe_blocks

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOTS = ROOT / "tests" / "corpus" / "rust"
REFERENCE_BUILD = ROOT / "build" / "reference"


def _snapshots():
    out = []
    for p in sorted(SNAPSHOTS.glob("*.tileirbc")):
        op, _, variant = p.name[: -len(".tileirbc")].partition(".")
        out.append((op, variant, p))
    return out


SNAPSHOT_LIST = _snapshots()
pytestmark = pytest.mark.skipif(not SNAPSHOT_LIST, reason="no Rust snapshots in tests/corpus/rust")


@pytest.fixture(scope="module")
def specs():
    ops = sorted({op for op, _, _ in SNAPSHOT_LIST})
    return {s.op: s for s in load_catalog(ROOT / "reference", ops=ops)}


@pytest.fixture(scope="module")
def export_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("reference_ir")


def python_ir(spec, variant: str, export_dir: Path) -> Path:
    built = REFERENCE_BUILD / spec.op / f"{variant}.tileirbc"
    if built.is_file():
        return built
    pytest.importorskip("cuda.tile", reason="cuda-tile not installed: cannot export the Python reference IR")
    from tileir_diff.suite.export import export_variant
    v = next(v for v in spec.variants if v.name == variant)
    rec = export_variant(spec, v, archs=(), build_root=export_dir)
    assert rec.ok, f"exporting the Python reference {spec.op}/{variant} failed: {rec.errors}"
    return Path(rec.bytecode)


_RESULTS = {}


def port_diff(spec, variant: str, snapshot: Path, export_dir: Path):
    """The diff of one port (computed once per module run: two tests read it)."""
    key = (spec.op, variant)
    if key not in _RESULTS:
        from tileir_diff.suite.launch_facts import facts_for
        v = next(x for x in spec.variants if x.name == variant)
        # as the suite diffs it: with the operator's launch facts (matmul, bmm)
        _RESULTS[key] = tileir_diff.diff(python_ir(spec, variant, export_dir), snapshot,
                                         launch=facts_for(spec, v, "analysis.json"))
    return _RESULTS[key]


def unaccepted(result, entries, variant: str):
    """The differences of ``result`` that no accepted_differences entry covers."""
    return [d for d in result.to_dict()["differences"] if accepted_by(d, entries, variant) is None]


@pytest.mark.parametrize("op,variant,snapshot", SNAPSHOT_LIST, ids=[f"{o}.{v}" for o, v, _ in SNAPSHOT_LIST])
def test_rust_port_matches_python_reference(op, variant, snapshot, specs, export_dir):
    assert op in specs, f"snapshot {snapshot.name}: no operator {op!r} in reference/"
    spec = specs[op]
    assert variant in {v.name for v in spec.variants}, f"snapshot {snapshot.name}: {op} has no variant {variant!r}"
    result = port_diff(spec, variant, snapshot, export_dir)
    # specialized: the same computation under other assumptions or hints (each listed), which
    # passes as it is: every difference is then an assumption, hint or argument order
    assert result.verdict in ("identical", "equivalent", "specialized", "different"), result.to_text()
    if result.verdict == "specialized":
        assert all(is_specialization(d) for d in result.differences), result.to_text()
        return
    left = unaccepted(result, spec.accepted_differences, variant)
    assert not left, (f"{op}/{variant}: {len(left)} difference(s) not in accepted_differences:\n"
                      + "\n".join(f"  [{d['category']}] {d['message']}" for d in left) + "\n\n" + result.to_text())


def test_every_accepted_difference_is_still_needed(specs, export_dir):
    """An entry that covers nothing any more is stale: it would silently accept a future change."""
    used = set()
    for op, variant, snapshot in SNAPSHOT_LIST:
        spec = specs[op]
        result = port_diff(spec, variant, snapshot, export_dir)
        for d in result.to_dict()["differences"]:
            entry = accepted_by(d, spec.accepted_differences, variant)
            if entry is not None:
                used.add((op, entry["category"], entry["what"]))
    stale = [(s.op, e["category"], e["what"]) for s in specs.values() for e in s.accepted_differences
             if (s.op, e["category"], e["what"]) not in used]
    assert not stale, f"accepted_differences entries that match no difference: {stale}"


def test_gate_fails_without_the_accepted_differences(specs, export_dir):
    """The check can fail: a port with residual differences is rejected once its entries are gone."""
    with_residue = [(op, v, p) for op, v, p in SNAPSHOT_LIST
                    if any(e.get("variants") is None or v in e["variants"] for e in specs[op].accepted_differences)]
    if not with_residue:
        pytest.skip("no variant has accepted differences")
    # the first one that is different (others of the op may pass without any entry)
    op, variant, snapshot = next(((op, v, p) for op, v, p in with_residue
                                  if port_diff(specs[op], v, p, export_dir).verdict == "different"), with_residue[0])
    result = port_diff(specs[op], variant, snapshot, export_dir)
    assert result.verdict == "different"
    assert unaccepted(result, [], variant), "a port with accepted differences must fail without them"
    assert not unaccepted(result, specs[op].accepted_differences, variant)


def test_reference_exported_here_when_not_built(specs, tmp_path, monkeypatch):
    """Without build/reference the Python IR is exported on the fly, and the gate gives the same answer."""
    op, variant, snapshot = next((x for x in SNAPSHOT_LIST if x[0] == "vector_add"), SNAPSHOT_LIST[0])
    monkeypatch.setattr(sys.modules[__name__], "REFERENCE_BUILD", tmp_path / "absent")
    path = python_ir(specs[op], variant, tmp_path / "export")
    assert path.is_relative_to(tmp_path / "export") and path.read_bytes()[:8] == b"\x7fTileIR\x00"
    result = tileir_diff.diff(path, snapshot)
    assert not unaccepted(result, specs[op].accepted_differences, variant), result.to_text()


def test_unsafe_blocks_are_counted_per_port():
    """The port table shows each port's `unsafe` blocks (kernel.rs + the C entry)."""
    src = """
    // unsafe { in a comment }
    /* unsafe {
       also a comment */
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn f() { let a = unsafe { g() }; unsafe{ h() }; }
    """
    assert count_unsafe_blocks(src) == 2
    for op in sorted({op for op, _, _ in SNAPSHOT_LIST}):
        counts = unsafe_blocks(ROOT, op)
        assert counts is not None and counts["kernel"] > 0 and counts["ffi"] > 0, op
    assert unsafe_blocks(ROOT, "no_such_op") is None
    # fused_moe's kernel.rs re-exports group_gemm's module: it counts that module's blocks.
    assert unsafe_blocks(ROOT, "fused_moe")["kernel"] == unsafe_blocks(ROOT, "group_gemm")["kernel"] > 0
    from tileir_diff.suite.port_table import PortRow
    row = PortRow("gelu", "erf_f16", "equivalent", "pass", unsafe_blocks={"kernel": 2, "ffi": 1})
    missing = PortRow("argmax", "f16_m4_n1024", "missing", "missing")
    assert "2+1" in render_text([row]).splitlines()[1] and "unsafe" in render_text([row]).splitlines()[0]
    table = render_markdown([row, missing])
    assert "| unsafe blocks (kernel+ffi) |" in table and "| [2+1](../rust_kernels/src/ops/gelu/kernel.rs) |" in table
    assert "- [argmax](../reference/argmax/analysis.json): f16_m4_n1024" in table  # not ported: below the table
