"""Loads and validates every `reference/<op>/analysis.json` into typed records.

The schema is documented in docs/analysis-json.md. Validation errors name the file and the
field path so that a broken reference is fixed in one look. Nothing here imports cuda.tile or
torch: the kernel signature is read from kernel.py with `ast`, so the catalog works on the GPU
machine (no cuTile) and on the CPU machine (no torch) alike.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from tileir_diff.launch.abi import DTYPE_SIZES, INDEX_DTYPES
from tileir_diff.suite.expr import ExprError, evaluate, names_in

__all__ = [
    "CatalogError",
    "FAMILIES",
    "OpSpec",
    "ParamSpec",
    "VariantSpec",
    "default_reference_root",
    "is_ragged",
    "load_catalog",
    "load_op",
    "repo_root",
]

FAMILIES = ("elementwise", "normalization", "reduction", "gemm", "attention", "moe",
            "quantization", "layout", "positional")
#: The families whose kernels move memory rather than compute: their goal is a share of the copy
#: bandwidth (issue 30), measured against a copy of the same bytes as well (run_reference.py).
MEMORY_BOUND_FAMILIES = frozenset({"elementwise", "normalization", "reduction", "layout", "quantization",
                                   "positional"})
ROLES = ("input", "output", "inout")
# A shape is "ragged" when some symbol is not a multiple of this: every tile size in the suite is a
# power of two >= 16 or splits a dimension one element per block, so such a shape leaves a partial tile.
RAGGED_MODULUS = 16
_NAME_RE = re.compile(r"^[a-z0-9_]+$")
_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class CatalogError(ValueError):
    """analysis.json (or its kernel.py/ref.py) does not follow docs/analysis-json.md."""

    def __init__(self, file: Path | str, field_path: str, message: str):
        self.file = str(file)
        self.field_path = field_path
        self.message = message
        from ..errors import printable  # one line, whatever the path or the JSON holds
        where = f"{file}: " if str(file) else ""
        super().__init__(printable(f"{where}{field_path}: {message}" if field_path else f"{where}{message}"))


@dataclass(frozen=True)
class ParamSpec:
    name: str
    kind: str  # "array" | "scalar" | "constant"
    dtype: str | None = None
    ndim: int = 0
    index_dtype: str | None = None
    role: str | None = None
    stride_constant: tuple[int | None, ...] | None = None
    shape_constant: tuple[int | None, ...] | None = None
    base_addr_divisible_by: int = 1
    shape_divisible_by: tuple[int, ...] = ()
    stride_divisible_by: tuple[int, ...] = ()
    stride_lower_bound_incl: int | None = 0
    alias_groups: tuple[str, ...] = ()
    may_alias_internally: bool = False
    aliases: str | None = None
    value: int | float | bool | None = None  # scalar default

    @property
    def is_output(self) -> bool:
        return self.role in ("output", "inout")


@dataclass(frozen=True)
class VariantSpec:
    op: str
    name: str
    kernel: str
    structure: str
    selects_when: str
    constants: dict[str, Any]
    dtypes: dict[str, str]
    params: tuple[ParamSpec, ...]
    grid: tuple[int | str, int | str, int | str]
    shape_symbols: dict[str, str]
    test_shapes: tuple[dict[str, Any], ...]
    bench_shape: dict[str, Any]
    flops: int | str | None
    bytes: int | str
    tolerances: dict[str, dict[str, float]]  # merged: op level, then variant overrides
    launch_notes: str = ""
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def symbol(self) -> str:
        return f"{self.op}__{self.name}"

    @property
    def arrays(self) -> tuple[ParamSpec, ...]:
        return tuple(p for p in self.params if p.kind == "array")

    @property
    def outputs(self) -> tuple[ParamSpec, ...]:
        return tuple(p for p in self.params if p.kind == "array" and p.is_output)

    def param(self, name: str) -> ParamSpec:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"{self.symbol} has no param {name!r}")

    def grid_for(self, shape: dict[str, Any]) -> tuple[int, int, int]:
        """Launch grid for a shape assignment (symbols) plus this variant's constants."""
        env = _expr_env(self, shape)
        g = tuple(evaluate(e, env) for e in self.grid)
        return g  # type: ignore[return-value]

    def bytes_for(self, shape: dict[str, Any]) -> int:
        sizes = {p.name: DTYPE_SIZES[p.dtype] for p in self.arrays}  # type: ignore[index]
        return evaluate(self.bytes, _expr_env(self, shape), element_sizes=sizes)

    def flops_for(self, shape: dict[str, Any]) -> int | None:
        return None if self.flops is None else evaluate(self.flops, _expr_env(self, shape))

    def symbols_from_shapes(self, shapes: dict[str, tuple[int, ...]]) -> dict[str, int]:
        """Shape symbols derived from actual array shapes (`shape_symbols`)."""
        env = {k: v for k, v in self.constants.items()}
        return {s: evaluate(e, env, shapes=shapes) for s, e in self.shape_symbols.items()}


def is_ragged(shape: dict[str, Any]) -> bool:
    """True when some symbol of `shape` is not a multiple of RAGGED_MODULUS (see docs/analysis-json.md)."""
    return any(isinstance(v, int) and not isinstance(v, bool) and v % RAGGED_MODULUS for k, v in shape.items())


def _expr_env(variant: VariantSpec, shape: dict[str, Any]) -> dict[str, Any]:
    env = {k: v for k, v in shape.items() if isinstance(v, int) and not isinstance(v, bool)}
    env.update({k: v for k, v in variant.constants.items() if isinstance(v, int) and not isinstance(v, bool)})
    return env


@dataclass(frozen=True)
class OpSpec:
    op: str
    family: str
    summary: str
    kernels: dict[str, str]
    variants: tuple[VariantSpec, ...]
    tolerances: dict[str, dict[str, float]]
    accepted_differences: tuple[dict[str, Any], ...]
    directory: Path
    #: what both launchers guarantee about the grid (suite/launch_facts.py): facts for the proof step
    launch_facts: tuple[dict[str, str], ...] = ()
    #: assumptions the Rust port makes beyond the reference that its C ABI checks (suite/accept.py)
    abi_checked_preconditions: tuple[dict[str, Any], ...] = ()

    @property
    def analysis_path(self) -> Path:
        return self.directory / "analysis.json"

    @property
    def kernel_path(self) -> Path:
        return self.directory / "kernel.py"

    @property
    def ref_path(self) -> Path:
        return self.directory / "ref.py"

    def variant(self, name: str) -> VariantSpec:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(f"op {self.op!r} has no variant {name!r} (has: {[v.name for v in self.variants]})")


def unknown_ops_message(missing: list[str], known: list[str]) -> str:
    """``no such op(s): x (did you mean y?)``: each unknown name with the close known names
    (difflib), else the list of known ones when it is short."""
    import difflib
    parts = []
    for name in missing:
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
        parts.append(f"{name!r} (did you mean {' or '.join(repr(c) for c in close)}?)" if close else repr(name))
    message = f"no such op(s): {', '.join(parts)}"
    if not any("did you mean" in p for p in parts) and len(known) <= 30:
        message += f"; known ops: {', '.join(known)}"
    return message


def repo_root(explicit: Path | str | None = None) -> Path:
    """The repository the suite lives in (tileir_diff.paths: --root, $TILEIR_DIFF_ROOT, the
    checkout, the working directory's); CatalogError with a hint when there is none."""
    from ..paths import RootNotFound, require_root
    try:
        return require_root(explicit)
    except RootNotFound as e:
        raise CatalogError("", "", str(e)) from None


def default_reference_root(root: Path | str | None = None) -> Path:
    return repo_root(root) / "reference"


# ---------------------------------------------------------------------------------------------
# validation helpers


class _Checker:
    def __init__(self, file: Path):
        self.file = file

    def fail(self, path: str, message: str) -> None:
        raise CatalogError(self.file, path, message)

    def get(self, obj: dict, key: str, path: str, types: type | tuple, *, required: bool = True, default=None):
        if key not in obj:
            if required:
                self.fail(f"{path}.{key}" if path else key, "missing required field")
            return default
        value = obj[key]
        if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
            self.fail(f"{path}.{key}" if path else key, f"expected {_tname(types)}, got bool")
        if not isinstance(value, types):
            self.fail(f"{path}.{key}" if path else key, f"expected {_tname(types)}, got {type(value).__name__}")
        return value

    def unknown_keys(self, obj: dict, allowed: Iterable[str], path: str) -> None:
        # Free-text annotations are allowed anywhere as `notes` or `<anything>_note(s)`, strings only.
        notes = {k for k in obj if k == "notes" or k.endswith(("_note", "_notes"))}
        for k in notes:
            if not isinstance(obj[k], str):
                self.fail(f"{path}.{k}" if path else k, f"notes must be strings, got {type(obj[k]).__name__}")
        extra = set(obj) - set(allowed) - notes
        if extra:
            self.fail(path or "<top>", f"unknown field(s) {sorted(extra)}; allowed: {sorted(allowed)}")


def _tname(types) -> str:
    if isinstance(types, tuple):
        return " or ".join(t.__name__ if t is not type(None) else "null" for t in types)
    return types.__name__


def _per_dim(ck: _Checker, value, ndim: int, path: str, *, allow_none_items: bool) -> tuple | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != ndim:
        ck.fail(path, f"expected a list of length ndim={ndim}, got {value!r}")
    for i, item in enumerate(value):
        ok = (item is None and allow_none_items) or (isinstance(item, int) and not isinstance(item, bool) and item >= 0)
        if not ok:
            ck.fail(f"{path}[{i}]", f"expected a non-negative int{' or null' if allow_none_items else ''}, got {item!r}")
    return tuple(value)


def _divisors(ck: _Checker, value, ndim: int, path: str) -> tuple[int, ...]:
    if value is None:
        return (1,) * ndim
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value] * ndim
    items = _per_dim(ck, value, ndim, path, allow_none_items=False)
    assert items is not None
    for i, d in enumerate(items):
        if d < 1:
            ck.fail(f"{path}[{i}]", f"divisor must be >= 1, got {d}")
    return items  # type: ignore[return-value]


_ARRAY_KEYS = {"name", "kind", "dtype", "ndim", "index_dtype", "role", "stride_constant", "shape_constant",
               "base_addr_divisible_by", "shape_divisible_by", "stride_divisible_by", "stride_lower_bound_incl",
               "contiguous_last_dim", "alias_groups", "may_alias_internally", "aliases"}


def _parse_param(ck: _Checker, raw: Any, path: str) -> ParamSpec:
    if not isinstance(raw, dict):
        ck.fail(path, f"expected an object, got {type(raw).__name__}")
    name = ck.get(raw, "name", path, str)
    if not _IDENT_RE.match(name):
        ck.fail(f"{path}.name", f"not a Python identifier: {name!r}")
    kind = ck.get(raw, "kind", path, str)
    if kind == "constant":
        ck.unknown_keys(raw, {"name", "kind"}, path)
        return ParamSpec(name=name, kind=kind)
    if kind == "scalar":
        ck.unknown_keys(raw, {"name", "kind", "dtype", "value"}, path)
        dtype = ck.get(raw, "dtype", path, str)
        if dtype not in DTYPE_SIZES:
            ck.fail(f"{path}.dtype", f"unknown dtype {dtype!r}; known: {sorted(DTYPE_SIZES)}")
        value = ck.get(raw, "value", path, (int, float, bool), required=False)
        return ParamSpec(name=name, kind=kind, dtype=dtype, value=value)
    if kind != "array":
        ck.fail(f"{path}.kind", f"expected 'array', 'scalar' or 'constant', got {kind!r}")
    ck.unknown_keys(raw, _ARRAY_KEYS, path)
    dtype = ck.get(raw, "dtype", path, str)
    if dtype not in DTYPE_SIZES:
        ck.fail(f"{path}.dtype", f"unknown dtype {dtype!r}; known: {sorted(DTYPE_SIZES)}")
    ndim = ck.get(raw, "ndim", path, int)
    if not 1 <= ndim <= 8:
        ck.fail(f"{path}.ndim", f"expected 1..8, got {ndim}")
    index_dtype = ck.get(raw, "index_dtype", path, str)
    if index_dtype not in INDEX_DTYPES:
        ck.fail(f"{path}.index_dtype", f"expected one of {INDEX_DTYPES}, got {index_dtype!r}")
    role = ck.get(raw, "role", path, str)
    if role not in ROLES:
        ck.fail(f"{path}.role", f"expected one of {ROLES}, got {role!r}")
    stride_constant = _per_dim(ck, raw.get("stride_constant"), ndim, f"{path}.stride_constant", allow_none_items=True)
    shape_constant = _per_dim(ck, raw.get("shape_constant"), ndim, f"{path}.shape_constant", allow_none_items=True)
    base = ck.get(raw, "base_addr_divisible_by", path, int, required=False, default=1)
    if base < 1 or base & (base - 1):
        ck.fail(f"{path}.base_addr_divisible_by", f"expected a power of two >= 1, got {base}")
    shape_div = _divisors(ck, raw.get("shape_divisible_by"), ndim, f"{path}.shape_divisible_by")
    stride_div = _divisors(ck, raw.get("stride_divisible_by"), ndim, f"{path}.stride_divisible_by")
    lower = raw.get("stride_lower_bound_incl", 0)
    if lower is not None and (not isinstance(lower, int) or isinstance(lower, bool)):
        ck.fail(f"{path}.stride_lower_bound_incl", f"expected int or null, got {lower!r}")
    last_contig = ck.get(raw, "contiguous_last_dim", path, bool, required=False, default=None)
    if last_contig is not None:
        really = stride_constant is not None and stride_constant[-1] == 1
        if last_contig != really:
            ck.fail(f"{path}.contiguous_last_dim",
                    f"is {last_contig} but stride_constant is {list(stride_constant) if stride_constant else None}")
    groups = ck.get(raw, "alias_groups", path, list, required=False, default=[])
    if not all(isinstance(g, str) for g in groups):
        ck.fail(f"{path}.alias_groups", "expected a list of strings")
    may_alias = ck.get(raw, "may_alias_internally", path, bool, required=False, default=False)
    aliases = ck.get(raw, "aliases", path, (str, type(None)), required=False, default=None)
    return ParamSpec(
        name=name, kind=kind, dtype=dtype, ndim=ndim, index_dtype=index_dtype, role=role,
        stride_constant=stride_constant, shape_constant=shape_constant, base_addr_divisible_by=base,
        shape_divisible_by=shape_div, stride_divisible_by=stride_div, stride_lower_bound_incl=lower,
        alias_groups=tuple(groups), may_alias_internally=may_alias, aliases=aliases,
    )


def _parse_tolerances(ck: _Checker, raw: Any, path: str) -> dict[str, dict[str, float]]:
    if not isinstance(raw, dict):
        ck.fail(path, "expected an object dtype -> {rtol, atol}")
    out = {}
    for dtype, tol in raw.items():
        if dtype not in DTYPE_SIZES:
            ck.fail(f"{path}.{dtype}", f"unknown dtype; known: {sorted(DTYPE_SIZES)}")
        if not isinstance(tol, dict) or set(tol) != {"rtol", "atol"}:
            ck.fail(f"{path}.{dtype}", f"expected {{'rtol': x, 'atol': y}}, got {tol!r}")
        for k in ("rtol", "atol"):
            v = tol[k]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                ck.fail(f"{path}.{dtype}.{k}", f"expected a non-negative number, got {v!r}")
        out[dtype] = {"rtol": float(tol["rtol"]), "atol": float(tol["atol"])}
    return out


_VARIANT_KEYS = {"name", "kernel", "structure", "selects_when", "constants", "dtypes", "params", "grid",
                 "shape_symbols", "test_shapes", "bench_shape", "flops", "bytes", "tolerances", "launch_notes"}


def _check_expr(ck: _Checker, expr: Any, path: str, known: set[str], *, allow_none: bool = False) -> None:
    if expr is None and allow_none:
        return
    if isinstance(expr, bool) or not isinstance(expr, (int, str)):
        ck.fail(path, f"expected an int or an expression string, got {expr!r}")
    try:
        free = names_in(expr)
    except ExprError as exc:
        ck.fail(path, str(exc))
    unknown = free - known
    if unknown:
        ck.fail(path, f"unknown name(s) {sorted(unknown)}; known symbols/constants: {sorted(known)}")
    # Trial evaluation (names bound to an arbitrary prime) rejects unsupported syntax at this field.
    try:
        evaluate(expr, {n: 97 for n in known}, element_sizes=_AnySize(), shapes=_AnyShape())
    except ExprError as exc:
        if "division by zero" not in str(exc):
            ck.fail(path, str(exc))


class _AnySize(dict):
    def __contains__(self, key) -> bool:
        return True

    def __getitem__(self, key) -> int:
        return 2


class _AnyShape(dict):
    def __contains__(self, key) -> bool:
        return True

    def __getitem__(self, key) -> tuple[int, ...]:
        return (97,) * 8


def _parse_variant(ck: _Checker, raw: Any, path: str, op: str, kernels: dict, op_tols: dict) -> VariantSpec:
    if not isinstance(raw, dict):
        ck.fail(path, "expected an object")
    ck.unknown_keys(raw, _VARIANT_KEYS, path)
    name = ck.get(raw, "name", path, str)
    if not _NAME_RE.match(name):
        ck.fail(f"{path}.name", f"must match [a-z0-9_]+, got {name!r}")
    kernel = ck.get(raw, "kernel", path, str)
    if kernel not in kernels:
        ck.fail(f"{path}.kernel", f"{kernel!r} is not listed in top-level 'kernels' {sorted(kernels)}")
    structure = ck.get(raw, "structure", path, str)
    selects_when = ck.get(raw, "selects_when", path, str)
    constants = ck.get(raw, "constants", path, dict)
    dtypes = ck.get(raw, "dtypes", path, dict)
    raw_params = ck.get(raw, "params", path, list)
    if not raw_params:
        ck.fail(f"{path}.params", "must not be empty")
    params = tuple(_parse_param(ck, p, f"{path}.params[{i}]") for i, p in enumerate(raw_params))
    seen: set[str] = set()
    for i, p in enumerate(params):
        if p.name in seen:
            ck.fail(f"{path}.params[{i}].name", f"duplicate param {p.name!r}")
        seen.add(p.name)
    const_names = {p.name for p in params if p.kind == "constant"}
    if set(constants) != const_names:
        ck.fail(f"{path}.constants", f"keys {sorted(constants)} must equal the constant params {sorted(const_names)}")
    for k, v in constants.items():
        if not isinstance(v, (int, float, bool)):
            ck.fail(f"{path}.constants.{k}", f"expected int, float or bool, got {v!r}")
    arrays = {p.name: p for p in params if p.kind == "array"}
    if not any(p.is_output for p in arrays.values()):
        ck.fail(f"{path}.params", "no array has role 'output' or 'inout'")
    for k, v in dtypes.items():
        p = next((q for q in params if q.name == k), None)
        if p is None or p.kind == "constant":
            ck.fail(f"{path}.dtypes.{k}", "not an array or scalar param")
        if v != p.dtype:
            ck.fail(f"{path}.dtypes.{k}", f"{v!r} disagrees with params dtype {p.dtype!r}")
    missing = set(arrays) - set(dtypes)
    if missing:
        ck.fail(f"{path}.dtypes", f"missing array param(s) {sorted(missing)}")
    for i, p in enumerate(params):
        if p.aliases is not None and p.aliases not in arrays:
            ck.fail(f"{path}.params[{i}].aliases", f"{p.aliases!r} is not an array param")

    shape_symbols = ck.get(raw, "shape_symbols", path, dict)
    if not shape_symbols:
        ck.fail(f"{path}.shape_symbols", "must not be empty")
    for s, e in shape_symbols.items():
        if not _IDENT_RE.match(s):
            ck.fail(f"{path}.shape_symbols", f"not an identifier: {s!r}")
        if s in constants:
            ck.fail(f"{path}.shape_symbols.{s}", "shadows a constant")
        if not isinstance(e, str):
            ck.fail(f"{path}.shape_symbols.{s}", f"expected an expression string, got {e!r}")
        _check_expr(ck, e, f"{path}.shape_symbols.{s}", set(constants) | set(arrays))
    known = set(shape_symbols) | {k for k, v in constants.items() if isinstance(v, int) and not isinstance(v, bool)}

    grid = ck.get(raw, "grid", path, list)
    if len(grid) != 3:
        ck.fail(f"{path}.grid", f"expected 3 entries, got {len(grid)}")
    for i, g in enumerate(grid):
        _check_expr(ck, g, f"{path}.grid[{i}]", known)
    flops = raw.get("flops")
    _check_expr(ck, flops, f"{path}.flops", known, allow_none=True)
    nbytes = ck.get(raw, "bytes", path, (int, str))
    _check_expr(ck, nbytes, f"{path}.bytes", known)

    def check_shape(shape: Any, spath: str, *, test: bool) -> dict:
        if not isinstance(shape, dict):
            ck.fail(spath, "expected an object symbol -> int")
        extra_keys = {"noncontiguous"} if test else set()
        for k, v in shape.items():
            if k in extra_keys:
                continue
            if k not in shape_symbols and (isinstance(v, bool) or not isinstance(v, int)):
                continue  # extra data for make_inputs (e.g. per-batch lengths); ints must be symbols
            if k not in shape_symbols:
                ck.fail(f"{spath}.{k}", f"not a shape symbol (symbols: {sorted(shape_symbols)})")
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                ck.fail(f"{spath}.{k}", f"expected a positive int, got {v!r}")
        missing_syms = set(shape_symbols) - set(shape)
        if missing_syms:
            ck.fail(spath, f"missing symbol(s) {sorted(missing_syms)}")
        nc = shape.get("noncontiguous", [])
        if not isinstance(nc, list) or any(n not in arrays for n in nc):
            ck.fail(f"{spath}.noncontiguous", f"expected a list of array param names, got {nc!r}")
        for n in nc:
            if arrays[n].stride_constant is not None and all(s is not None for s in arrays[n].stride_constant):
                ck.fail(f"{spath}.noncontiguous", f"{n!r} has all strides constant; it cannot be non-contiguous")
        return shape

    raw_tests = ck.get(raw, "test_shapes", path, list)
    if not raw_tests:
        ck.fail(f"{path}.test_shapes", "must not be empty")
    test_shapes = tuple(check_shape(s, f"{path}.test_shapes[{i}]", test=True) for i, s in enumerate(raw_tests))
    if not any(is_ragged(s) for s in test_shapes):
        ck.fail(f"{path}.test_shapes", f"needs a ragged shape (some symbol not a multiple of {RAGGED_MODULUS})")
    bench_shape = check_shape(ck.get(raw, "bench_shape", path, dict), f"{path}.bench_shape", test=False)

    tolerances = dict(op_tols)
    if "tolerances" in raw:
        tolerances.update(_parse_tolerances(ck, raw["tolerances"], f"{path}.tolerances"))
    for p in arrays.values():
        if p.is_output and p.dtype not in tolerances:
            ck.fail("tolerances", f"no tolerance for output dtype {p.dtype!r} (param {p.name!r} of variant {name!r})")
    launch_notes = ck.get(raw, "launch_notes", path, str, required=False, default="")

    variant = VariantSpec(
        op=op, name=name, kernel=kernel, structure=structure, selects_when=selects_when,
        constants=dict(constants), dtypes=dict(dtypes), params=params, grid=tuple(grid),  # type: ignore[arg-type]
        shape_symbols=dict(shape_symbols), test_shapes=test_shapes, bench_shape=dict(bench_shape),
        flops=flops, bytes=nbytes, tolerances=tolerances, launch_notes=launch_notes, raw=raw,
    )
    # Evaluate every expression on every shape now, so a bad expression fails at load time.
    for i, s in enumerate(test_shapes + (bench_shape,)):
        spath = f"{path}.test_shapes[{i}]" if i < len(test_shapes) else f"{path}.bench_shape"
        try:
            grid_values = variant.grid_for(s)
            variant.bytes_for(s)
            variant.flops_for(s)
        except ExprError as exc:
            ck.fail(spath, f"expression evaluation failed: {exc}")
        if any(g < 1 for g in grid_values):
            ck.fail(spath, f"grid {grid_values} has an empty dimension")
    return variant


_TOP_KEYS = {"op", "family", "summary", "kernels", "variants", "tolerances", "accepted_differences", "launch_facts",
             "abi_checked_preconditions"}


#: analysis.json files are small; anything larger than this is refused rather than read.
MAX_ANALYSIS_BYTES = 16 * 1024 * 1024


def read_json(file: Path) -> Any:
    """The JSON document in ``file``, or a one-line CatalogError naming the file: unreadable, not
    a regular file, too large, not UTF-8, not JSON, nested too deeply or holding an integer too
    long to convert (``loader.read_json_file``, the one bounded JSON reader)."""
    from ..loader import JSONFileError, read_json_file
    try:
        return read_json_file(str(file), limit=MAX_ANALYSIS_BYTES)
    except JSONFileError as exc:
        raise CatalogError(file, "", exc.message) from None


def load_op(directory: Path | str) -> OpSpec:
    """Parse and validate one `reference/<op>/` folder (analysis.json + kernel.py signatures)."""
    directory = Path(directory)
    file = directory / "analysis.json"
    if not file.is_file():
        raise CatalogError(file, "", "missing analysis.json")
    data = read_json(file)
    ck = _Checker(file)
    if not isinstance(data, dict):
        ck.fail("", "top level must be an object")
    ck.unknown_keys(data, _TOP_KEYS, "")
    op = ck.get(data, "op", "", str)
    if op != directory.name:
        ck.fail("op", f"{op!r} differs from the folder name {directory.name!r}")
    family = ck.get(data, "family", "", str)
    if family not in FAMILIES:
        ck.fail("family", f"expected one of {FAMILIES}, got {family!r}")
    summary = ck.get(data, "summary", "", str)
    kernels = ck.get(data, "kernels", "", dict)
    if not kernels:
        ck.fail("kernels", "must not be empty")
    tolerances = _parse_tolerances(ck, ck.get(data, "tolerances", "", dict), "tolerances")
    raw_variants = ck.get(data, "variants", "", list)
    if not raw_variants:
        ck.fail("variants", "must not be empty")
    variants = tuple(_parse_variant(ck, v, f"variants[{i}]", op, kernels, tolerances) for i, v in enumerate(raw_variants))
    names = [v.name for v in variants]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        ck.fail("variants", f"duplicate variant name(s) {sorted(dup)}")
    accepted = ck.get(data, "accepted_differences", "", list, required=False, default=[])
    from .accept import entry_problem
    for i, a in enumerate(accepted):
        problem = entry_problem(a)
        if problem:
            ck.fail(f"accepted_differences[{i}]", problem)

    checked = ck.get(data, "abi_checked_preconditions", "", list, required=False, default=[])
    from .accept import precondition_problem
    for i, a in enumerate(checked):
        problem = precondition_problem(a)
        if problem:
            ck.fail(f"abi_checked_preconditions[{i}]", problem)
    facts = ck.get(data, "launch_facts", "", list, required=False, default=[])
    from . import launch_facts as lf
    for i, e in enumerate(facts):
        problem = lf.entry_problem(e, sorted(kernels))
        if problem:
            ck.fail(f"launch_facts[{i}]", problem)
        for v in variants:
            if not lf.applies(e, v):
                continue
            try:
                lf.check_against([e], v)
            except lf.LaunchFactError as exc:
                ck.fail(f"launch_facts[{i}]", str(exc))
    spec = OpSpec(op=op, family=family, summary=summary, kernels=dict(kernels), variants=variants,
                  tolerances=tolerances, accepted_differences=tuple(accepted), directory=directory,
                  launch_facts=tuple(facts), abi_checked_preconditions=tuple(checked))
    _check_sources(spec)
    return spec


def kernel_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """Kernel name -> the function it compiles: `@ct.kernel`-decorated functions, and module-level
    `name = ct.kernel(function, **options)` assignments (one body under several option sets)."""
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    out: dict[str, ast.FunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(_is_kernel_decorator(d) for d in node.decorator_list):
            out[node.name] = node
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
              and isinstance(node.value, ast.Call) and _is_kernel_decorator(node.value.func)
              and len(node.value.args) == 1 and isinstance(node.value.args[0], ast.Name)
              and node.value.args[0].id in functions):
            out[node.targets[0].id] = functions[node.value.args[0].id]
    return out


def kernel_signatures(kernel_path: Path) -> dict[str, list[str]]:
    """Kernel name -> parameter names, read with `ast` (no import)."""
    tree = ast.parse(kernel_path.read_text(), filename=str(kernel_path))
    out: dict[str, list[str]] = {}
    for name, node in kernel_functions(tree).items():
        a = node.args
        if a.vararg or a.kwarg or a.kwonlyargs:
            raise CatalogError(kernel_path, name, "kernels must take positional parameters only")
        out[name] = [p.arg for p in a.posonlyargs + a.args]
    return out


def constant_params(kernel_path: Path) -> dict[str, set[str]]:
    """Kernel name -> names of params annotated `ct.Constant[...]`, `Constant`, or a module-level alias of them."""
    tree = ast.parse(kernel_path.read_text(), filename=str(kernel_path))

    def is_constant_annotation(ann: ast.expr | None, aliases: set[str]) -> bool:
        if ann is None:
            return False
        if isinstance(ann, ast.Subscript):
            ann = ann.value
        if isinstance(ann, ast.Attribute):
            return ann.attr == "Constant"
        return isinstance(ann, ast.Name) and (ann.id == "Constant" or ann.id in aliases)

    aliases: set[str] = set()
    for node in tree.body:  # e.g. `ConstInt = ct.Constant[int]`
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if is_constant_annotation(node.value, aliases):
                aliases.add(node.targets[0].id)
    return {name: {p.arg for p in node.args.posonlyargs + node.args.args
                   if is_constant_annotation(p.annotation, aliases)}
            for name, node in kernel_functions(tree).items()}


def _is_kernel_decorator(dec: ast.expr) -> bool:
    """`ct.kernel`, `kernel`, or either called with options."""
    target = dec.func if isinstance(dec, ast.Call) else dec
    return (isinstance(target, ast.Attribute) and target.attr == "kernel") or (
        isinstance(target, ast.Name) and target.id == "kernel")


def _check_sources(spec: OpSpec) -> None:
    for needed in (spec.kernel_path, spec.ref_path):
        if not needed.is_file():
            raise CatalogError(needed, "", f"missing {needed.name} for op {spec.op!r}")
    try:
        sigs = kernel_signatures(spec.kernel_path)
        consts = constant_params(spec.kernel_path)
    except SyntaxError as exc:
        raise CatalogError(spec.kernel_path, "", f"syntax error line {exc.lineno}: {exc.msg}") from None
    for k in spec.kernels:
        if k not in sigs:
            raise CatalogError(spec.analysis_path, f"kernels.{k}",
                               f"no @ct.kernel function {k!r} in kernel.py (found: {sorted(sigs)})")
    for i, v in enumerate(spec.variants):
        names = [p.name for p in v.params]
        if names != sigs[v.kernel]:
            raise CatalogError(spec.analysis_path, f"variants[{i}].params",
                               f"names {names} differ from {v.kernel}{tuple(sigs[v.kernel])} in kernel.py")
        declared = {p.name for p in v.params if p.kind == "constant"}
        if declared != consts[v.kernel]:
            raise CatalogError(spec.analysis_path, f"variants[{i}].params",
                               f"constant params {sorted(declared)} differ from the ct.Constant-annotated "
                               f"params {sorted(consts[v.kernel])} of {v.kernel}")
    ref_tree = ast.parse(spec.ref_path.read_text(), filename=str(spec.ref_path))
    defined = {n.name for n in ref_tree.body if isinstance(n, ast.FunctionDef)}
    for fn in ("make_inputs", "reference"):
        if fn not in defined:
            raise CatalogError(spec.ref_path, fn, "required function is not defined")


def load_catalog(root: Path | str | None = None, *, ops: Iterable[str] | None = None,
                 repo: Path | str | None = None) -> list[OpSpec]:
    """Every `reference/<op>/` folder that has an analysis.json, sorted by op name; `root` is the
    reference folder (default: `<repo>/reference`, `repo` found by tileir_diff.paths).

    Folders without analysis.json are errors too (a half-written operator must not be skipped
    silently); folders whose name starts with `_` or `.` are ignored.
    """
    root = Path(root) if root is not None else default_reference_root(repo)
    if not root.is_dir():
        raise CatalogError(root, "", "reference root is not a directory")
    wanted = set(ops) if ops is not None else None
    specs = []
    for d in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")) and p.name != "__pycache__"):
        if wanted is not None and d.name not in wanted:
            continue
        specs.append(load_op(d))
    if wanted is not None:
        missing = wanted - {s.op for s in specs}
        if missing:
            known = sorted(p.name for p in root.iterdir() if p.is_dir() and (p / "analysis.json").is_file())
            raise CatalogError(root, "", unknown_ops_message(sorted(missing), known))
    return specs
