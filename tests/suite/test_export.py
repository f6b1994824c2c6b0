"""Every reference variant exports to bytecode 13.3 and compiles to sm_90 and sm_100 cubins.

Uses the real cuda.tile and tileiras (skipped only when they are not installed). Outputs go to
the repo's build/reference (idempotent: later runs only redo what changed).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tileir_diff.suite.catalog import load_catalog
from tileir_diff.suite.export import ToolNotFound, export_all, find_tileiras

REFERENCE = Path(__file__).resolve().parents[2] / "reference"


@pytest.fixture(scope="module")
def exported():
    pytest.importorskip("cuda.tile", reason="cuda-tile not installed")
    try:
        find_tileiras()
    except ToolNotFound as exc:
        pytest.skip(str(exc))
    specs = load_catalog(REFERENCE)
    return specs, export_all(specs, archs=("sm_90", "sm_100"), jobs=2)


def test_every_variant_exports_and_compiles(exported):
    specs, records = exported
    assert len(records) == sum(len(s.variants) for s in specs)
    failed = [f"{r.symbol}: {r.errors}" for r in records if not r.ok]
    assert not failed, "\n".join(failed)
    for r in records:
        bc = Path(r.bytecode).read_bytes()
        assert bc[:8] == b"\x7fTileIR\x00" and bc[8:10] == b"\x0d\x03", f"{r.symbol}: not bytecode 13.3"
        assert r.symbol.encode() in bc
        for arch in ("sm_90", "sm_100"):
            cubin = Path(r.cubins[arch]).read_bytes()
            assert cubin[:4] == b"\x7fELF", f"{r.symbol} {arch}: not an ELF cubin"
            assert r.symbol.encode() in cubin, f"{r.symbol} {arch}: entry symbol missing"


def test_second_export_is_up_to_date(exported):
    specs, _ = exported
    again = export_all(specs[:1], archs=("sm_90",), jobs=1)
    assert all(r.bytecode_status == "up_to_date" and r.cubin_status["sm_90"] == "up_to_date" for r in again)


def test_broken_kernel_is_reported_not_raised(tmp_path):
    pytest.importorskip("cuda.tile", reason="cuda-tile not installed")
    import shutil

    from tileir_diff.suite.catalog import load_op

    dst = tmp_path / "vector_add"
    shutil.copytree(REFERENCE / "vector_add", dst, ignore=shutil.ignore_patterns("__pycache__"))
    # a type error the cuTile compiler must reject: adding a tile to a tuple
    src = (dst / "kernel.py").read_text().replace("tile=a + b", "tile=a + (b, b)")
    (dst / "kernel.py").write_text(src)
    spec = load_op(dst)
    records = export_all([spec], archs=(), build_root=tmp_path / "build", jobs=1)
    assert all(r.bytecode_status == "failed" and r.errors for r in records)
    assert "export:" in records[0].errors[0]
