"""Shared helpers for the corpus kernels: constraint builders and the Case record.

Every kernel module in this package exposes ``CASES: list[Case]``.  Signatures are
built by hand (``KernelSignature.from_kernel_args`` needs a GPU driver).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import cuda.tile as ct
from cuda.tile.compilation import (
    ArrayConstraint,
    CallingConvention,
    ConstantConstraint,
    KernelSignature,
    ListConstraint,
    ScalarConstraint,
    TupleConstraint,
)

__all__ = [
    "Case", "case", "multi_case", "arr", "const", "scalar", "array_list", "tuple_of", "ct",
]

CALLING_CONVENTION = CallingConvention.cutile_python_v2()


def arr(dtype, ndim: int, *, index_dtype=ct.int32, **extra) -> ArrayConstraint:
    """An array parameter; ``extra`` passes through divisibility / constant-shape fields."""
    extra.setdefault("stride_lower_bound_incl", 0)
    extra.setdefault("alias_groups", ())
    extra.setdefault("may_alias_internally", False)
    return ArrayConstraint(dtype, ndim, index_dtype=index_dtype, **extra)


def const(value) -> ConstantConstraint:
    return ConstantConstraint(value)


def scalar(dtype) -> ScalarConstraint:
    return ScalarConstraint(dtype)


def array_list(element: ArrayConstraint) -> ListConstraint:
    return ListConstraint(element, alias_groups=(), elements_may_alias=False)


def tuple_of(*items) -> TupleConstraint:
    return TupleConstraint(items)


@dataclass(frozen=True)
class Case:
    """One corpus file: a kernel plus one or more (symbol, parameters) entry signatures.

    ``gpu_code`` overrides the per-version default target of the generator (see
    generate.py); ``note`` says why the case exists when the name alone does not.
    """
    name: str
    kernel: object
    entries: tuple  # tuple[(symbol, list[constraint]), ...]
    gpu_code: Optional[str] = None
    note: str = ""

    def signatures(self) -> list:
        return [KernelSignature(list(params), CALLING_CONVENTION, symbol=symbol)
                for symbol, params in self.entries]


def case(name: str, kernel, params: Sequence, *, gpu_code: Optional[str] = None,
         note: str = "") -> Case:
    """A single-entry case whose entry symbol is the case name."""
    return Case(name, kernel, ((name, list(params)),), gpu_code=gpu_code, note=note)


def multi_case(name: str, kernel, entries: Sequence, *, gpu_code: Optional[str] = None,
               note: str = "") -> Case:
    """Several entry functions (one per (symbol, params)) specialising one kernel in one file."""
    if len(entries) < 2:
        raise ValueError(f"multi_case {name!r} needs at least two entries")
    return Case(name, kernel, tuple((s, list(p)) for s, p in entries), gpu_code=gpu_code,
                note=note)
