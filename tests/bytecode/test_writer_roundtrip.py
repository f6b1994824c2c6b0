"""The table-driven writer and reader agree, and NVIDIA's disassembler agrees with both:
re-encoding a decoded corpus file at its own version gives identical tileirdisasm text."""
import pytest

from tileir_diff import load
from tileir_diff.bytecode.writer import EncodeError, write_bytecode
from tileir_diff.ir.compare import module_mismatches

from tests.conftest import corpus_files, disassemble

FILES = corpus_files()


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_reencode_same_version_is_identical_to_nvidia(path, tileirdisasm, tmp_path):
    module = load(path)
    data = write_bytecode(module)
    assert module_mismatches(module, load(data)) == []
    out = tmp_path / "re.tileirbc"
    out.write_bytes(data)
    assert disassemble(tileirdisasm, out) == disassemble(tileirdisasm, path)


def test_reencode_at_older_version_refuses_newer_ops():
    newer = [p for p in FILES if p.stem.endswith("v13_4")]
    refused = 0
    for path in newer:
        m = load(path)
        try:
            write_bytecode(m, (13, 1))
        except EncodeError as e:
            refused += 1
            assert any(s in str(e) for s in ("needs bytecode", "cannot be written", "cannot express"))
    assert refused > 0, "some 13.4 corpus kernels use ops/fields 13.1 lacks"


def test_view_types_are_written_from_the_version_that_has_them():
    """One layout table (bytecode/container.VIEW_LAYOUTS) for reader and writer: a gather/scatter
    view reads back at 13.3 and later, and the writer refuses it before 13.3 instead of writing a
    tag the reader would reject."""
    from pathlib import Path
    from tileir_diff.ir import types as T
    src = Path(__file__).resolve().parents[1] / "corpus" / "data" / "advanced_indexing.v13_3.tileirbc"
    m = load(src)
    def views(module):
        return [v.type for f in module.functions for op in f.walk() for v in op.results
                if isinstance(v.type, T.GatherScatterViewType)]
    assert views(m)
    for version in ((13, 3), (13, 4), (13, 5)):
        assert views(load(write_bytecode(m, version))) == views(m)
    with pytest.raises(EncodeError, match="gather_scatter_view needs bytecode 13.3"):
        write_bytecode(m, (13, 2))
