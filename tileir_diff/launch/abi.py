"""The cutile_python_v2 calling convention and the packing of kernel arguments (no CUDA needed).

Per array param: the data pointer, then ndim shape values, then ndim stride values (in elements),
all of the param's index_dtype; per scalar: one value of its dtype; constants: nothing. That
order is written once, in ``array_words``; the launcher's packing, the interpreter's argument
flattening (interp/run.py), the launch facts' argument names (suite/launch_facts.py) and the
differential check's reading of an entry (execute/signature.py) all take it from there. The
arrays are checked against the assumptions the export baked into the kernel (dtype, rank,
static strides, divisibility, index range), because violating them is undefined behaviour on
the GPU rather than an error.

A variant is read duck-typed (``params``, ``symbol``, ``constants``: suite/catalog.py's
VariantSpec), so this module imports nothing of the suite and sits below the interpreter.
"""

from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator, Mapping, NamedTuple, Sequence, TypeAlias

# A variant and its params as this module reads them (suite/catalog.py's VariantSpec and ParamSpec,
# duck-typed: the catalog imports this module, not the reverse).
VariantSpec: TypeAlias = Any
ParamSpec: TypeAlias = Any

__all__ = ["ArgumentError", "ArrayArg", "DTYPE_SIZES", "INDEX_DTYPES", "PackedArgs", "argument_words", "array_values", "array_words",
           "as_array_arg", "host_dtype_name", "pack_arguments"]

#: Host (torch) dtype name -> bytes per element: the dtypes a kernel argument may have.
DTYPE_SIZES: dict[str, int] = {
    "bool": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8,
    "uint8": 1, "uint16": 2, "uint32": 4, "uint64": 8,
    "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8,
    "float8_e4m3fn": 1, "float8_e5m2": 1,
}


def host_dtype_name(dtype: Any) -> str:
    """The host dtype name of a torch dtype or a name: ``torch.float16`` and ``float16`` are ``float16``."""
    return str(dtype).removeprefix("torch.")


def array_words(ndim: int) -> tuple[tuple[str, int], ...]:
    """The entry arguments one array of rank ``ndim`` becomes, in order: ``("ptr", 0)``, then
    ``("shape", d)`` per dim, then ``("stride", d)`` per dim."""
    return (("ptr", 0),) + tuple(("shape", d) for d in range(ndim)) + tuple(("stride", d) for d in range(ndim))


def array_values(ptr: int, shape: Sequence[int], strides: Sequence[int]) -> list[int]:
    """The entry argument values of one array, in ``array_words`` order (written out, not looked
    up word by word: the launcher packs on every launch; tests/launch/test_convention.py checks
    that the two orders agree)."""
    return [ptr, *shape, *strides]


@lru_cache(maxsize=None)
def _word_names(name: str, ndim: int) -> tuple[str, ...]:
    """``x.ptr``, ``x.shape[0]``, ..., ``x.stride[0]``, ...: PackedArgs.described's names of an array."""
    return tuple(f"{name}.ptr" if what == "ptr" else f"{name}.{what}[{d}]" for what, d in array_words(ndim))


def argument_words(params: Sequence[ParamSpec]) -> Iterator[tuple[str, str, int]]:
    """``(param, "ptr"|"shape"|"stride"|"scalar", dim)`` per entry argument of a kernel with
    these params, in order (constants are compiled in and take none)."""
    for p in params:
        if p.kind == "array":
            for what, d in array_words(p.ndim):
                yield p.name, what, d
        elif p.kind == "scalar":
            yield p.name, "scalar", 0


class ArgumentError(ValueError):
    """An argument does not fit the variant's exported signature."""


class ArrayArg(NamedTuple):
    """A device array as the launcher sees it: address, shape, strides in elements, dtype name
    (an immutable record of the four values, the fields of ``array_values`` plus the dtype)."""

    ptr: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: str


def as_array_arg(value: Any) -> ArrayArg:
    """ArrayArg from an ArrayArg or a torch-like tensor (data_ptr(), shape, stride(), dtype)."""
    if isinstance(value, ArrayArg):
        return value
    if hasattr(value, "data_ptr") and hasattr(value, "stride"):
        if getattr(value, "is_cuda", True) is False:
            raise ArgumentError(f"tensor is on {getattr(value, 'device', 'the CPU')}, not a CUDA device")
        dtype = host_dtype_name(value.dtype)
        return ArrayArg(int(value.data_ptr()), tuple(int(s) for s in value.shape),
                        tuple(int(s) for s in value.stride()), dtype)
    raise ArgumentError(f"expected a tensor or ArrayArg, got {type(value).__name__}")


#: The types a kernel's sizes and strides may have (a ParamSpec's index_dtype).
INDEX_DTYPES = ("int32", "int64")
_INDEX_CTYPES = {"int32": ctypes.c_int32, "int64": ctypes.c_int64}
_INDEX_RANGE = {"int32": (-(2 ** 31), 2 ** 31 - 1), "int64": (-(2 ** 63), 2 ** 63 - 1)}


def _scalar_ctype(dtype: str, value: Any) -> ctypes._SimpleCData:
    if dtype in ("float32",):
        return ctypes.c_float(float(value))
    if dtype == "float64":
        return ctypes.c_double(float(value))
    if dtype == "float16":
        return ctypes.c_uint16(struct.unpack("<H", struct.pack("<e", float(value)))[0])
    if dtype == "bfloat16":
        bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
        # round to nearest even on the dropped 16 bits
        bits += 0x7FFF + ((bits >> 16) & 1)
        return ctypes.c_uint16((bits >> 16) & 0xFFFF)
    if dtype == "bool":
        return ctypes.c_uint8(1 if value else 0)
    ints = {"int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32, "int64": ctypes.c_int64,
            "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64}
    if dtype in ints:
        if isinstance(value, float) and not value.is_integer():
            raise ArgumentError(f"{dtype} scalar got non-integer {value!r}")
        c = ints[dtype]
        bits = ctypes.sizeof(c) * 8
        lo, hi = (0, 2 ** bits - 1) if dtype.startswith("u") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        if not lo <= int(value) <= hi:
            raise ArgumentError(f"{dtype} scalar {value} out of range [{lo}, {hi}]")
        return c(int(value))
    raise ArgumentError(f"unsupported scalar dtype {dtype!r}")


@dataclass
class PackedArgs:
    """Kernel arguments in order, kept alive together with the pointer array cuLaunchKernel needs."""

    values: list[ctypes._SimpleCData]
    described: list[tuple[str, str, int | float]]  # (what, ctype name, python value): for tests and errors

    def pointer_array(self) -> ctypes.Array:
        array = (ctypes.c_void_p * len(self.values))(*[ctypes.addressof(v) for v in self.values])
        return array


def _check_array(p: ParamSpec, a: ArrayArg) -> tuple[int, ...]:
    """Validate `a` against `p`; returns the strides to pass (size-1 dims normalized)."""
    where = f"param {p.name!r}"
    if a.dtype != p.dtype:
        raise ArgumentError(f"{where}: dtype {a.dtype} but the variant was exported for {p.dtype}")
    if len(a.shape) != p.ndim or len(a.strides) != p.ndim:
        raise ArgumentError(f"{where}: rank {len(a.shape)} but the variant was exported for ndim={p.ndim}")
    if a.ptr == 0 and any(a.shape):
        raise ArgumentError(f"{where}: null data pointer")
    if a.ptr % p.base_addr_divisible_by:
        raise ArgumentError(f"{where}: address {a.ptr:#x} is not a multiple of {p.base_addr_divisible_by} bytes")
    lo, hi = _INDEX_RANGE[p.index_dtype]
    strides = []
    for d, (size, stride) in enumerate(zip(a.shape, a.strides)):
        if size < 0:
            raise ArgumentError(f"{where}: negative size {size} in dim {d}")
        if not lo <= size <= hi or not lo <= stride <= hi:
            raise ArgumentError(f"{where}: dim {d} size {size} / stride {stride} does not fit {p.index_dtype}")
        # The largest element offset must fit the index type too.
        if size > 0 and abs(stride) * (size - 1) > hi:
            raise ArgumentError(f"{where}: dim {d} offsets up to {abs(stride) * (size - 1)} overflow {p.index_dtype}")
        if p.shape_constant is not None and p.shape_constant[d] is not None and size != p.shape_constant[d]:
            raise ArgumentError(f"{where}: dim {d} size {size} but the export fixed it to {p.shape_constant[d]}")
        if size % p.shape_divisible_by[d]:
            raise ArgumentError(f"{where}: dim {d} size {size} is not a multiple of {p.shape_divisible_by[d]}")
        constant = p.stride_constant[d] if p.stride_constant is not None else None
        if size <= 1:
            # A size-1 dimension is never stepped; pass a stride that satisfies every assumption.
            stride = constant if constant is not None else (stride if stride % p.stride_divisible_by[d] == 0 and stride >= 0 else 0)
        else:
            if constant is not None and stride != constant:
                raise ArgumentError(f"{where}: dim {d} stride {stride} but the export fixed it to {constant} "
                                    f"(use a variant without stride_constant, or make the tensor contiguous)")
            if stride % p.stride_divisible_by[d]:
                raise ArgumentError(f"{where}: dim {d} stride {stride} is not a multiple of {p.stride_divisible_by[d]}")
            if p.stride_lower_bound_incl is not None and stride < p.stride_lower_bound_incl:
                raise ArgumentError(f"{where}: dim {d} stride {stride} is below {p.stride_lower_bound_incl}")
        strides.append(stride)
    return tuple(strides)


def pack_arguments(variant: VariantSpec, values: Mapping[str, Any]) -> PackedArgs:
    """Arguments for `variant` from `values` (param name -> tensor/ArrayArg or number).

    Scalars missing from `values` take the `value` given in analysis.json; constants must not be
    passed (they are compiled in).
    """
    known = {p.name for p in variant.params}
    unknown = set(values) - known
    if unknown:
        raise ArgumentError(f"{variant.symbol}: unknown argument(s) {sorted(unknown)}")
    packed: list[ctypes._SimpleCData] = []
    described: list[tuple[str, str, int | float]] = []
    for p in variant.params:
        if p.kind == "constant":
            if p.name in values and values[p.name] != variant.constants[p.name]:
                raise ArgumentError(f"{variant.symbol}: constant {p.name} is compiled as "
                                    f"{variant.constants[p.name]}, got {values[p.name]!r}")
            continue
        if p.kind == "scalar":
            if p.name in values:
                v = values[p.name]
            elif p.value is not None:
                v = p.value
            else:
                raise ArgumentError(f"{variant.symbol}: missing scalar {p.name!r} (no default in analysis.json)")
            c = _scalar_ctype(p.dtype, v)
            packed.append(c)
            described.append((p.name, type(c).__name__, v))
            continue
        if p.name not in values:
            raise ArgumentError(f"{variant.symbol}: missing array {p.name!r}")
        try:
            a = as_array_arg(values[p.name])
        except ArgumentError as exc:
            raise ArgumentError(f"{variant.symbol}: param {p.name!r}: {exc}") from None
        try:
            strides = _check_array(p, a)
        except ArgumentError as exc:
            raise ArgumentError(f"{variant.symbol}: {exc}") from None
        idx = _INDEX_CTYPES[p.index_dtype]
        words = array_values(a.ptr, a.shape, strides)
        packed.append(ctypes.c_uint64(words[0]))  # the pointer, then sizes and strides
        packed.extend(map(idx, words[1:]))
        described.extend(zip(_word_names(p.name, p.ndim), ("c_uint64",) + (idx.__name__,) * (len(words) - 1), words))
    return PackedArgs(packed, described)


def shapes_of(variant: VariantSpec, values: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """Array param -> shape, for evaluating shape_symbols."""
    return {p.name: as_array_arg(values[p.name]).shape for p in variant.arrays if p.name in values}


__all__ += ["shapes_of"]
