"""``tileir-diff analyze reference/<op>/kernel.py``: which ``ct.Constant`` parameters change a
kernel's IR structure and which only change values, found by exporting combinations.

For each kernel of the module (a ``ct.kernel`` object) the candidate values of each constant are
those its analysis.json variants use (both values for a ``ct.Constant[bool]``). Starting from each
variant, every constant is set in turn to each other candidate (one factor at a time: the
combinations grow linearly, not as a product), and every combination is exported with the
variant's dtypes and array constraints (the reference has no launch wrapper: analysis.json's
``grid``, ``constants`` and ``selects_when`` are its launch parameters). Each export is reduced
to its *skeleton*: the ops, their nesting and operand wiring, with every number, shape and
element type abstracted away. Combinations with one skeleton are one structural variant (what a
port must declare as a separate kernel); a constant whose change alters the skeleton is
structural (a branch removed at compile time, a shape-specialized fold), the others only change
values.

``check`` compares with the hand-written analysis.json: its variants grouped by skeleton must be
exactly the groups reached from those variants' own constants; a structure reachable only by a
combination no variant lists is reported as undeclared, with the assignment that reaches it.
"""
from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import re
import time
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from tileir_diff.suite.catalog import OpSpec, VariantSpec, load_catalog
from tileir_diff.progress import Eta

SCHEMA_VERSION = "1.0"


class AnalyzeError(ValueError):
    """The kernel file cannot be analyzed (no analysis.json beside it, not a reference kernel)."""


# --- the kernel's parameters ---------------------------------------------------------------------

def kernel_constants(kernel_obj) -> Dict[str, str]:
    """``ct.Constant`` parameters of a ``ct.kernel`` object: name -> ``int`` / ``bool`` / ``float``."""
    fn = getattr(kernel_obj, "_pyfunc", None)
    if fn is None:
        return {}
    out = {}
    for name, p in inspect.signature(fn).parameters.items():
        ann = p.annotation
        if typing.get_origin(ann) is typing.Annotated:
            base, *meta = typing.get_args(ann)
            if any(type(m).__name__ == "ConstantAnnotation" for m in meta):
                out[name] = getattr(base, "__name__", str(base))
    return out


def kernels_of(module) -> Dict[str, Any]:
    return {n: o for n, o in vars(module).items() if hasattr(o, "_pyfunc") and hasattr(o, "_compile")}


# --- skeletons -----------------------------------------------------------------------------------

def _attr_shape(value) -> str:
    """An attribute as structure: enums, strings and integers kept (padding, rounding, predicates,
    axes, permutations), floats, types and dense data replaced by their kind."""
    if isinstance(value, bool) or isinstance(value, str):
        return repr(value)
    if isinstance(value, float):
        return "#"
    if isinstance(value, int):
        return str(value)  # axes, permutations, dim maps: structure (tile sizes live in types)
    name = type(value).__name__
    if name == "EnumValue":
        return str(value)
    if isinstance(value, (tuple, list)):
        return "[" + ",".join(_attr_shape(v) for v in value) + "]"
    return name


_SHAPE = re.compile(r"\b\d+(?:x\d+)*x(?=[a-z?])")
_TILE_ARG = re.compile(r"tile=\(\d+(?:x\d+)*\)")
_ELEMENT = re.compile(r"(?:\b|(?<=x))(?:b?f\d+|tf32|f8\w*|i\d+)\b")


def type_shape(t) -> str:
    """A type's printed form with tile sizes and element types abstracted; layout (dim_map,
    static strides, padding) kept."""
    return _ELEMENT.sub("E", _TILE_ARG.sub("tile=(N)", _SHAPE.sub("Nx", str(t))))


def skeleton(module, entry: Optional[str] = None) -> str:
    """A hash of the entry's structure: op names, operand wiring, regions, attributes without numbers."""
    functions = [f for f in module.functions if f.is_entry and (entry is None or f.name == entry)] or \
        [f for f in module.functions if f.is_entry]
    lines: List[str] = []
    numbering: Dict[int, int] = {}

    def value(v) -> str:
        return f"%{numbering.setdefault(v.vid, len(numbering))}"

    def walk_block(block, depth: int) -> None:
        lines.append(f"{depth}:block({','.join(value(a) for a in block.arguments)})")
        for op in block.operations:
            # a constant's value is a value, whatever its type; every other attribute is structure
            attrs = "" if op.name == "constant" else \
                ",".join(f"{k}={_attr_shape(v)}" for k, v in sorted(op.attributes.items()))
            lines.append(f"{depth}:{op.name}({','.join(value(o) for o in op.operands)})->"
                         f"{','.join(value(r) + ':' + type_shape(r.type) for r in op.results)}[{attrs}]")
            for region in op.regions:
                for b in region.blocks:
                    walk_block(b, depth + 1)

    for f in functions:
        lines.append(f"func/{len(f.arguments)}({','.join(value(a) for a in f.arguments)})")
        walk_block(f.body, 0)
        # non-entry functions are inlined by the frontend or called: include them too
    for f in module.functions:
        if not f.is_entry:
            lines.append(f"callee/{len(f.arguments)}")
            walk_block(f.body, 0)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


# --- combinations --------------------------------------------------------------------------------

@dataclass
class Combination:
    kernel: str
    base: str  # the analysis.json variant it starts from
    constants: Dict[str, Any]
    changed: Optional[Tuple[str, Any]]  # (constant, value) set away from the base; None: the variant itself
    skeleton: str = ""
    error: str = ""
    layout: str = ""  # the base variant's dtypes and array constraints: combinations compare within one


    def to_dict(self) -> Dict[str, Any]:
        return {"kernel": self.kernel, "base": self.base, "constants": self.constants,
                "changed": list(self.changed) if self.changed else None, "skeleton": self.skeleton,
                **({"error": self.error} if self.error else {})}


def candidate_values(kernel: str, kinds: Dict[str, str], variants: List[VariantSpec]) -> Dict[str, List[Any]]:
    values: Dict[str, List[Any]] = {}
    for name, kind in kinds.items():
        seen = []
        for v in variants:
            if v.kernel == kernel and name in v.constants and v.constants[name] not in seen:
                seen.append(v.constants[name])
        if kind == "bool":
            seen = [False, True] if not seen or isinstance(seen[0], bool) else [0, 1]
        values[name] = seen
    return values


def combinations(spec: OpSpec, module) -> Tuple[List[Combination], Dict[str, Dict[str, str]], List[str]]:
    """(combinations, constants per kernel, kernels no variant uses)."""
    kernels = kernels_of(module)
    kinds = {k: kernel_constants(o) for k, o in kernels.items()}
    used = {v.kernel for v in spec.variants}
    out: List[Combination] = []
    seen = set()
    todo_all: List[Tuple[VariantSpec, Dict[str, Any], Optional[Tuple[str, Any]]]] = []
    for v in spec.variants:  # the declared variants first: a variation equal to one is that variant
        if v.kernel in kernels:
            todo_all.append((v, dict(v.constants), None))
    for v in spec.variants:
        if v.kernel not in kernels:
            continue
        for name, vals in candidate_values(v.kernel, kinds[v.kernel], list(spec.variants)).items():
            for val in vals:
                if name in v.constants and val != v.constants[name]:
                    todo_all.append((v, {**v.constants, name: val}, (name, val)))
    for v, constants, changed in todo_all:
        key = (v.kernel, json.dumps(constants, sort_keys=True), json.dumps(v.dtypes, sort_keys=True),
               json.dumps(v.raw.get("params"), sort_keys=True))
        if key not in seen:
            seen.add(key)
            out.append(Combination(v.kernel, v.name, constants, changed, layout=json.dumps(key[2:])))
    return out, kinds, sorted(set(kernels) - used)


def _export(spec: OpSpec, base: VariantSpec, combo: Combination, cache_root: Path) -> Path:
    from tileir_diff.suite.export import export_variant
    produced_by = [spec.kernel_path.read_text(), base.kernel, combo.constants, base.raw.get("params")]
    digest = hashlib.sha256(json.dumps(produced_by, sort_keys=True, default=str).encode()).hexdigest()[:20]
    variant = dataclasses.replace(base, name=f"c{digest}", constants=dict(combo.constants))
    rec = export_variant(spec, variant, archs=(), build_root=cache_root)
    if not rec.ok:
        raise RuntimeError("; ".join(rec.errors))
    return Path(rec.bytecode)


# --- the analysis ------------------------------------------------------------------------------------

@dataclass
class Analysis:
    op: str
    kernel_py: str
    kernels: Dict[str, Dict[str, str]]
    combinations: List[Combination]
    unused_kernels: List[str]
    seconds: float = 0.0
    check: Optional[Dict[str, Any]] = None
    structural_variants: List[Dict[str, Any]] = field(default_factory=list)
    constants: Dict[str, Dict[str, str]] = field(default_factory=dict)  # kernel -> name -> structure|value

    def to_dict(self) -> Dict[str, Any]:
        return {"schema_version": SCHEMA_VERSION, "kind": "analyze_report", "op": self.op, "kernel_py": self.kernel_py,
                "kernels": self.kernels, "constants": self.constants, "structural_variants": self.structural_variants,
                "combinations": [c.to_dict() for c in self.combinations], "unused_kernels": self.unused_kernels,
                "check": self.check, "seconds": round(self.seconds, 3)}


_TOOLS_HINT = "analyze exports every combination with cuda.tile: pip install 'tileir_diff[tools]'"


def _require_frontend() -> None:
    """AnalyzeError naming the extra when cuda.tile (the reference frontend) is not installed."""
    import importlib.util
    try:
        found = importlib.util.find_spec("cuda.tile") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise AnalyzeError(f"cuda.tile is not installed: {_TOOLS_HINT}")


def default_cache_root() -> Path:
    """<checkout>/build/verify/analyze in a checkout; outside one (an installed wheel) the user's
    cache folder, $XDG_CACHE_HOME/tileir_diff/analyze (default ~/.cache)."""
    import os

    from tileir_diff.paths import find_root, is_root
    root = find_root()
    if root is not None and is_root(root):
        return root / "build" / "verify" / "analyze"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tileir_diff" / "analyze"


def analyze(kernel_py: Path, *, cache_root: Optional[Path] = None,
            progress: Callable[[str], None] = lambda s: None) -> Analysis:
    from tileir_diff import load
    from tileir_diff.suite.catalog import CatalogError
    from tileir_diff.suite.export import load_kernel_module
    kernel_py = Path(kernel_py).resolve()
    folder = kernel_py.parent
    if not (folder / "analysis.json").is_file():
        raise AnalyzeError(f"{kernel_py}: no analysis.json beside it (analyze takes the dtypes, array constraints "
                           "and constant values of its variants)")
    try:
        spec = load_catalog(folder.parent, ops=[folder.name])[0]
    except (CatalogError, IndexError) as e:
        raise AnalyzeError(f"{folder / 'analysis.json'}: {e}") from None
    cache_root = cache_root or default_cache_root()
    _require_frontend()
    t0 = time.monotonic()
    try:
        module = load_kernel_module(spec)
    except ImportError as e:
        raise AnalyzeError(f"{kernel_py}: importing it needs {e.name or e}, which is not installed "
                           f"({_TOOLS_HINT})") from None
    combos, kinds, unused = combinations(spec, module)
    by_name = {v.name: v for v in spec.variants}
    eta = Eta()
    for i, c in enumerate(combos, 1):
        progress(f"analyze {spec.op}: {i}/{len(combos)} {c.kernel} {c.changed or 'as declared'}{eta.line(i, len(combos))}")
        try:
            path = _export(spec, by_name[c.base], c, cache_root)
            c.skeleton = skeleton(load(str(path)))
        except Exception as e:  # noqa: BLE001 - a combination the frontend rejects is a finding, not a crash
            c.error = f"{type(e).__name__}: {str(e)[:300]}"
    result = Analysis(spec.op, str(kernel_py), kinds, combos, unused, time.monotonic() - t0)
    result.constants = classify_constants(combos, kinds)
    result.structural_variants = group(combos, spec)
    result.check = check_against(spec, combos)
    return result


def classify_constants(combos: List[Combination], kinds: Dict[str, Dict[str, str]]) -> Dict[str, Dict[str, str]]:
    """A constant is structural when two combinations of one kernel and layout that differ in it
    alone (declared variants included) have different skeletons."""
    out: Dict[str, Dict[str, str]] = {k: {n: "value" for n in names} for k, names in kinds.items()}
    done = [c for c in combos if c.skeleton]
    for i, a in enumerate(done):
        for b in done[i + 1:]:
            if (a.kernel, a.layout) != (b.kernel, b.layout) or a.skeleton == b.skeleton:
                continue
            differing = [n for n in a.constants if a.constants.get(n) != b.constants.get(n)]
            if len(differing) == 1:
                out[a.kernel][differing[0]] = "structure"
    return out


def group(combos: List[Combination], spec: OpSpec) -> List[Dict[str, Any]]:
    declared: Dict[Tuple[str, str], List[str]] = {(c.kernel, c.skeleton): [] for c in combos if c.skeleton}
    for c in combos:
        if c.skeleton and c.changed is None:
            declared[(c.kernel, c.skeleton)].append(c.base)
    groups = []
    for (kernel, skel), variants in declared.items():
        members = [c for c in combos if c.kernel == kernel and c.skeleton == skel]
        dtypes = sorted({dt for c in members for dt in spec.variant(c.base).dtypes.values()})
        groups.append({"kernel": kernel, "skeleton": skel, "declared_variants": sorted(variants),
                       "reached_by": [c.changed and {"from": c.base, "set": {c.changed[0]: c.changed[1]}}
                                      for c in members if c.changed][:8],
                       "dtypes": dtypes, "grid": list(spec.variant(members[0].base).grid),
                       "tolerances": "placeholder: fill from the op's numerics (analysis.json `tolerances`)"})
    return groups


def check_against(spec: OpSpec, combos: List[Combination]) -> Dict[str, Any]:
    """The hand-written analysis.json's structure groups vs the ones the combinations reach."""
    declared: Dict[Tuple[str, str], List[str]] = {}
    for c in combos:
        if c.changed is None and c.skeleton:
            declared.setdefault((c.kernel, c.skeleton), []).append(c.base)
    reached = {(c.kernel, c.skeleton) for c in combos if c.skeleton}
    undeclared = []
    for key in sorted(reached - set(declared)):
        # only a variation reaches an undeclared structure: every declared variant's is declared
        first = next(c for c in combos if (c.kernel, c.skeleton) == key and c.changed is not None)
        assert first.changed is not None
        undeclared.append({"kernel": key[0], "skeleton": key[1], "from": first.base,
                           "set": {first.changed[0]: first.changed[1]},
                           "explanation": f"{first.changed[0]}={first.changed[1]!r} on {first.base} gives a "
                                          f"structure no analysis.json variant declares (a specialization the "
                                          f"op's selection never launches, or a missing variant)"})
    errors = [c.to_dict() for c in combos if c.error]
    return {"declared_groups": len(declared), "reached_groups": len(reached),
            "declared": [{"kernel": k, "skeleton": s, "variants": sorted(v)} for (k, s), v in sorted(declared.items())],
            "undeclared": undeclared, "export_errors": errors,
            "reproduced": not undeclared and not any(c.error and c.changed is None for c in combos)}
