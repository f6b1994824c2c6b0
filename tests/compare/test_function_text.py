"""FunctionText (compare/describe.py): an op found by its id's path is the op the id list has,
and the names and op lines a report shows (numbered on demand) are the printed module's."""
from __future__ import annotations

import pytest

from tileir_diff import load
from tileir_diff.compare.describe import FunctionText
from tileir_diff.normalize.util import op_ids
from tileir_diff.text import printer
from tests.conftest import corpus_files

FILES = corpus_files()[3::10]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_op_by_id_path_is_the_id_lists_op(path):
    module = load(path)
    for i, func in enumerate(module.functions):
        text = FunctionText(func, i)
        ids = dict(op_ids(func, i))
        for oid, op in ids.items():
            assert text.op(oid) is op
        assert text._ops is None  # found without listing them
        for oid in list(ids)[:3]:
            for wrong in (oid.replace("/o", "/o0", 1), oid + "/r0", oid + "/r9/o0", oid.replace(f"f{i}", f"f{i + 1}", 1),
                          oid.replace("/o", "/x", 1), oid + "/", oid.replace("/o", "/o+", 1), oid.replace("/o", "/o٣", 1)):
                assert text.op(wrong) is ids.get(wrong)
        assert text.op(f"f{i}") is None and text.op(f"f{i}/o{10 ** 9}") is None


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_op_lines_and_names_are_the_printed_modules(path):
    module = load(path)
    lines = dict(printer.print_module_lines(module))
    for i, func in enumerate(module.functions):
        text = FunctionText(func, i)
        eager = printer.Namer(func)
        ids = list(op_ids(func, i))
        printed = [(oid, op) for oid, op in ids if oid in lines]  # (implicit terminators are not)
        for oid, op in printed[::-1][:25]:  # late ops first, as a report's difference may be
            assert text.op_line(op, oid) == lines[oid].strip()
            for v in op.operands:
                assert text.names.get(v.vid) == eager.ref.get(v.vid)
        for a in func.arguments:
            assert text.names.get(a.vid) == eager.ref[a.vid]
