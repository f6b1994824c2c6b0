"""The Rust C ABI launches grids that satisfy the launch facts analysis.json declares (the other
half of tests/suite/test_launch_facts.py): each call goes through the fake driver, which logs the
variant's image, the grid and every argument word; the fact, resolved for that variant, must
hold for them. Marker cargo (the library is built with placeholder cubins)."""
from __future__ import annotations

import pytest

from tileir_diff.suite import launch_facts as lf
from tileir_diff.suite.catalog import load_op

from ..suite.test_launch_facts import SHAPES, array_shapes, padded_rows
from .test_fake_driver import X, Y, Z, fake_driver, library_with_fake_cubins, launches, params, run  # noqa: F401

pytestmark = pytest.mark.cargo

#: the C entry per op and what follows the three descriptors (flags, device, stream)
CALLS = {"matmul": ("cutile_matmul", "{ta}, {tb}, 0, 0", 15), "bmm": ("cutile_bmm", "{tb}, 0, 0", 21)}
#: (trans_a, trans_b, dtype) of calls some variant takes
LAYOUTS = {"matmul": [(False, False, "float16"), (True, False, "float16"), (False, True, "bfloat16")],
           "bmm": [(False, False, "float16"), (False, True, "bfloat16")]}


class _Flags:
    def __init__(self, ta, tb):
        self.constants = {"TRANS_A": ta, "TRANS_B": tb}


@pytest.mark.parametrize("op", sorted(CALLS))
def test_the_rust_launcher_launches_the_declared_grid(op, fake_driver, library_with_fake_cubins, tmp_path):  # noqa: F811
    spec = load_op(f"reference/{op}")
    variants = {v.name: v for v in spec.variants}
    fn, tail, nparams = CALLS[op]
    checked = set()
    for ta, tb, dtype in LAYOUTS[op]:
        for shape in SHAPES:
            m, n, k, batch = shape
            dims = array_shapes(op, _Flags(ta, tb), m, n, k, batch)
            args = ", ".join(f'T({base}, {list(dims[name])}, "{dtype}", {list(padded_rows(dims[name]))})'
                             for base, name in ((X, "a"), (Y, "b"), (Z, "c")))
            codes, log = run(fake_driver, library_with_fake_cubins,
                             f"call({fn!r}, {args}, {tail.format(ta=int(ta), tb=int(tb))}, nparams={nparams})\n",
                             tmp_path)
            assert codes == [0], (shape, ta, tb, log[-3:])
            (line,) = launches(log)
            name = next(x.split(" ", 1)[1] for x in log if x.startswith("image "))
            grid = tuple(int(g) for g in line.split("grid=")[1].split()[0].split(","))
            words = params(line)
            v = variants[name]
            assert len(words) == len(lf.argument_layout(v)), "the Rust entry's arguments follow another layout"
            for e in spec.launch_facts:
                if not lf.applies(e, v):
                    continue
                text = lf.resolve(e["fact"], v)
                assert lf.holds(text, words, grid), (name, shape, text, grid, words)
            checked.add(name)
    assert len(checked) >= 2, checked
