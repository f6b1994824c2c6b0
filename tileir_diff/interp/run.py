"""Convenient entry points: run a kernel on NumPy arrays, or a reference-suite variant by name.

Arguments follow the cutile_python_v2 calling convention, which tileir_diff.launch owns (one
description for the interpreter and the GPU launcher): an array becomes its data pointer, then
its shape, then its strides (in elements); a scalar is passed by value; constants are compiled
in and not passed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from tileir_diff.ir import Module
from tileir_diff.launch.abi import ArrayArg, array_values, pack_arguments
from tileir_diff.launch.launcher import grid_for_inputs

from . import dtypes as dt
from .errors import InterpreterError
from .machine import Interpreter, Options
from .memory import Memory, element_strides


@dataclass
class HostArray:
    """A host array bound to a kernel: ``values`` (NumPy; bf16/fp8 as float32 values) with the
    element type the kernel sees and, optionally, element strides other than its own layout
    (to model a non-contiguous view of a wider buffer)."""
    values: np.ndarray
    dtype: str = ""  # host dtype name (float16, bfloat16, int32, ...); default from values
    strides: Optional[Tuple[int, ...]] = None
    address: int = 0  # set once placed in memory

    def __post_init__(self):
        if not self.dtype:
            self.dtype = str(self.values.dtype)
        if self.dtype not in dt.HOST_TO_ELEMENT:
            raise InterpreterError(f"unsupported array dtype {self.dtype!r}")
        if self.strides is None:
            self.strides = tuple(element_strides(self.values)) if self.values.ndim else ()

    @property
    def strides_in_elements(self) -> Tuple[int, ...]:
        """``strides``, which ``__post_init__`` fills in when not given."""
        assert self.strides is not None
        return self.strides

    @property
    def elem(self) -> str:
        return dt.HOST_TO_ELEMENT[self.dtype]

    def as_arg(self) -> ArrayArg:
        """The array as a launch sees it (placed: ``address`` set), for the launcher's packing."""
        return ArrayArg(self.address, tuple(self.values.shape), tuple(self.strides_in_elements), self.dtype)


@dataclass
class RunResult:
    memory: Memory
    prints: List[str] = field(default_factory=list)
    grid: Tuple[int, int, int] = (1, 1, 1)
    arrays: Dict[str, np.ndarray] = field(default_factory=dict)  # run_variant: param -> contents after


def _host(a) -> HostArray:
    return a if isinstance(a, HostArray) else HostArray(np.asarray(a))


def flatten_args(args: Sequence[Any], memory: Memory, index_dtypes: Optional[Sequence[str]] = None) -> Tuple[list, list]:
    """Expand arrays to (pointer, shape..., strides...) and place them in ``memory``.

    Returns (flat values, [(position in args, HostArray)]). ``args`` items: NumPy arrays or
    HostArray (expanded), Python/NumPy numbers (one argument each)."""
    flat: list = []
    placed: List[Tuple[int, HostArray]] = []
    for i, a in enumerate(args):
        if isinstance(a, (HostArray, np.ndarray)) and not (isinstance(a, np.ndarray) and a.ndim == 0):
            h = _host(a)
            h.address = memory.put_array(h.values, h.elem, h.strides, label=f"arg{i}")
            flat.extend(array_values(h.address, tuple(map(int, h.values.shape)), tuple(map(int, h.strides_in_elements))))
            placed.append((i, h))
        else:
            flat.append(a.item() if isinstance(a, np.ndarray) else a)
    return flat, placed


def read_back(memory: Memory, h: HostArray) -> np.ndarray:
    return memory.get_array(h.address, h.values.shape, h.strides_in_elements, h.elem)


def run_kernel(module: Module, args: Sequence[Any], grid: Sequence[int], *, entry: Optional[str] = None,
               memory: Optional[Memory] = None, options: Optional[Options] = None,
               flat: bool = False) -> RunResult:
    """Run ``entry`` (default: the module's only entry) over ``grid``.

    ``args``: NumPy arrays / HostArray (each expanded to pointer, shape, strides and copied into
    memory; after the run their contents are copied back into the NumPy arrays in place, so
    outputs appear there) and numbers; with ``flat=True`` exactly one value per entry argument
    (pointers as addresses from ``memory.put_array``).
    """
    memory = memory if memory is not None else Memory()
    interp = Interpreter(module, memory, options)
    placed: List[Tuple[int, HostArray]]
    if flat:
        values, placed = list(args), []
    else:
        values, placed = flatten_args(args, memory)
    interp.run(entry, values, grid)
    for _, h in placed:
        out = read_back(memory, h)
        if isinstance(h.values, np.ndarray) and h.values.flags.writeable:
            h.values[...] = out.astype(h.values.dtype) if h.values.dtype != out.dtype else out
    return RunResult(memory, interp.prints, interp.grid)


# --- reference-suite variants ----------------------------------------------------------------------

def variant_args(variant, arrays: Mapping[str, Any], memory: Memory) -> Tuple[list, Dict[str, HostArray]]:
    """Flat entry arguments for an analysis.json ``variant`` from named arrays and scalars, checked
    and ordered by the launcher's own packing (``tileir_diff.launch.abi.pack_arguments``)."""
    values: Dict[str, Any] = {}
    hosts: Dict[str, HostArray] = {}
    for p in variant.params:
        if p.name not in arrays:
            continue
        if p.kind == "array":
            a = arrays[p.name]
            h = a if isinstance(a, HostArray) else HostArray(np.asarray(a), dtype=p.dtype)
            if h.dtype != p.dtype:
                h = HostArray(h.values, p.dtype, h.strides)
            h.address = memory.put_array(h.values, h.elem, h.strides, label=p.name)
            hosts[p.name] = h
            values[p.name] = h.as_arg()
        else:
            values[p.name] = arrays[p.name]
    packed = pack_arguments(variant, values)
    return [v for (_, _, v) in packed.described], hosts


def run_variant(variant, module: Module, arrays: Mapping[str, Any], *, shape: Optional[Mapping[str, int]] = None,
                grid: Optional[Sequence[int]] = None, options: Optional[Options] = None) -> RunResult:
    """Run a reference variant's exported module on named arrays (``arrays``: param -> NumPy
    array or HostArray, scalars -> numbers). The grid comes from analysis.json unless given.
    ``RunResult.arrays`` holds every array param's contents after the run."""
    memory = Memory()
    flat, hosts = variant_args(variant, arrays, memory)
    if grid is None:
        grid = grid_for_inputs(variant, {n: h.as_arg() for n, h in hosts.items()}, shape)
    interp = Interpreter(module, memory, options)
    interp.run(variant.symbol if _has(module, variant.symbol) else None, flat, grid)
    result = RunResult(memory, interp.prints, interp.grid)
    result.arrays = {n: read_back(memory, h) for n, h in hosts.items()}
    return result


def _has(module: Module, name: str) -> bool:
    return any(f.name == name for f in module.functions)
