#!/usr/bin/env python3
"""Export the text-format fixtures in tests/text/data: our own small kernels for syntax the
corpus may lack (print_tko with escapes, assert, cat, extract, gdc ops, NaN / -0.0 / 1e38 /
denormal constants, several entries in one file).  Needs cuda-tile 1.7.0; no GPU.

    python3 tests/text/make_fixtures.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import cuda.tile as ct
from cuda.tile.compilation import export_kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "corpus"))
from kernels._common import arr, case, const, multi_case, scalar  # noqa: E402

OUT = Path(__file__).resolve().parent / "data"


@ct.kernel
def text_print_assert(x, z, n, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    ct.printf("v %d and %f\n", i, a)
    ct.print(a)
    ct.assert_(n > 0, "n must be \"positive\"")
    b = ct.cat((a, a), axis=0)
    c = ct.extract(b, index=(1,), shape=(BLOCK,))
    ct.store(z, index=(i,), tile=c + 0.1 + 1e-30 + 3.14159)


@ct.kernel
def text_special_floats(x, z, BLOCK: ct.Constant[int]):
    ct.grid_dependency_control_wait()
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    nan = ct.full((BLOCK,), float("nan"), dtype=ct.float32)
    neg_zero = ct.full((BLOCK,), -0.0, dtype=ct.float32)
    big = ct.full((BLOCK,), 1e38, dtype=ct.float32)
    half_max = ct.full((BLOCK,), 65504.0, dtype=ct.float16).astype(ct.float32)
    tiny = ct.full((BLOCK,), 2.0 ** -149, dtype=ct.float32)
    a = ct.where(a > 0, nan, neg_zero) + big + half_max + tiny
    ct.store(z, index=(i,), tile=a)
    ct.grid_dependency_control_launch_dependents()


@ct.kernel
def text_multi_entry(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(z, index=(i,), tile=ct.load(x, index=(i,), shape=(BLOCK,)))


CASES = [
    (case("text_print_assert", text_print_assert,
          [arr(ct.float32, 1), arr(ct.float32, 1), scalar(ct.int32), const(16)]), ("13.3", "13.4")),
    (case("text_special_floats", text_special_floats, [arr(ct.float32, 1), arr(ct.float32, 1), const(16)]),
     ("13.4",)),
    (multi_case("text_multi_entry", text_multi_entry,
                [("text_multi_entry_f32", [arr(ct.float32, 1), arr(ct.float32, 1), const(16)]),
                 ("text_multi_entry_f16", [arr(ct.float16, 1), arr(ct.float16, 1), const(32)])]), ("13.3",)),
]


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for c, versions in CASES:
        for v in versions:
            out = OUT / f"{c.name}.v{v.replace('.', '_')}.tileirbc"
            export_kernel(c.kernel, c.signatures(), str(out), output_format="tileir_bytecode",
                          bytecode_version=v)
            print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
