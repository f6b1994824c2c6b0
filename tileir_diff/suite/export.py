"""Exports every reference variant to Tile IR bytecode 13.3 and compiles it to cubins with tileiras.

Library API only (no printing): `export_all()` returns one `ExportRecord` per variant. Work is
skipped when the outputs are newer than their inputs (kernel.py, analysis.json for bytecode; the
bytecode for cubins). cuda.tile is imported lazily, so listing works where it is not installed.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Callable, Iterable, Sequence

from tileir_diff.suite.catalog import OpSpec, ParamSpec, VariantSpec, repo_root

__all__ = [
    "BYTECODE_VERSION",
    "DEFAULT_ARCHS",
    "ExportError",
    "ExportRecord",
    "ToolNotFound",
    "artifact_paths",
    "build_signature",
    "compile_cubin",
    "default_build_root",
    "export_all",
    "export_variant",
    "find_tileiras",
    "load_kernel_module",
]

BYTECODE_VERSION = "13.3"  # what cutile-rs writes; see shared notes frontends.md §1.2
DEFAULT_ARCHS = ("sm_90", "sm_100")
TILEIRAS_ENV = "TILEIR_DIFF_TILEIRAS"
TILEIRAS_TIMEOUT_S = 300


class ExportError(RuntimeError):
    """Export or compile of one variant failed."""


class ToolNotFound(ExportError):
    """cuda.tile or tileiras is not installed."""


@dataclass
class ExportRecord:
    op: str
    variant: str
    kernel: str
    symbol: str
    bytecode: str
    cubins: dict[str, str]
    bytecode_status: str = "pending"  # exported | up_to_date | failed | skipped
    cubin_status: dict[str, str] = field(default_factory=dict)  # arch -> compiled | up_to_date | failed | skipped
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ok"] = self.ok
        return d


def default_build_root() -> Path:
    return repo_root() / "build" / "reference"


def artifact_paths(variant: VariantSpec, build_root: Path | None = None,
                   archs: Sequence[str] = DEFAULT_ARCHS) -> tuple[Path, dict[str, Path]]:
    """(bytecode path, {arch: cubin path}) for a variant; the files may not exist yet."""
    base = (build_root or default_build_root()) / variant.op
    return base / f"{variant.name}.tileirbc", {a: base / f"{variant.name}.{a}.cubin" for a in archs}


def find_tileiras() -> Path:
    """tileiras: $TILEIR_DIFF_TILEIRAS, else next to the nvidia-cuda-tileiras wheel, else PATH."""
    override = os.environ.get(TILEIRAS_ENV)
    if override:
        path = Path(override)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ToolNotFound(f"${TILEIRAS_ENV}={override} is not an executable file")
        return path
    candidates = []
    spec = importlib.util.find_spec("nvidia")
    if spec is not None and spec.submodule_search_locations:
        candidates += [Path(p) / "cu13" / "bin" / "tileiras" for p in spec.submodule_search_locations]
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return c
    found = shutil.which("tileiras")
    if found:
        return Path(found)
    raise ToolNotFound(f"tileiras not found (looked in {[str(c) for c in candidates]} and PATH; "
                       f"install nvidia-cuda-tileiras or set ${TILEIRAS_ENV})")


_module_lock = threading.Lock()
_loaded: dict[Path, ModuleType] = {}


def load_kernel_module(op: OpSpec) -> ModuleType:
    """Import reference/<op>/kernel.py under a private module name (cached per path)."""
    path = op.kernel_path.resolve()
    with _module_lock:
        if path in _loaded:
            return _loaded[path]
        name = f"_tileir_diff_reference_{op.op}_kernel"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ExportError(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            sys.modules.pop(name, None)
            raise ExportError(f"importing {path} failed: {type(exc).__name__}: {exc}") from exc
        _loaded[path] = module
        return module


def _ct():
    try:
        import cuda.tile as ct
        import cuda.tile.compilation as ctc
    except ImportError as exc:
        raise ToolNotFound(f"cuda.tile is not installed ({exc}); pip install cuda-tile==1.7.0") from exc
    return ct, ctc


def _dtype(ct, name: str):
    dt = getattr(ct, name, None)
    if dt is None:
        raise ExportError(f"cuda.tile has no dtype {name!r}")
    return dt


def _array_constraint(ct, ctc, p: ParamSpec):
    return ctc.ArrayConstraint(
        _dtype(ct, p.dtype), p.ndim,
        index_dtype=_dtype(ct, p.index_dtype),
        stride_lower_bound_incl=p.stride_lower_bound_incl,
        alias_groups=tuple(p.alias_groups),
        may_alias_internally=p.may_alias_internally,
        stride_constant=p.stride_constant,
        shape_constant=p.shape_constant,
        stride_divisible_by=p.stride_divisible_by,
        shape_divisible_by=p.shape_divisible_by,
        base_addr_divisible_by=p.base_addr_divisible_by,
    )


def build_signature(variant: VariantSpec):
    """The `KernelSignature` (cutile_python_v2, symbol `<op>__<variant>`) described by analysis.json."""
    ct, ctc = _ct()
    constraints = []
    for p in variant.params:
        if p.kind == "array":
            constraints.append(_array_constraint(ct, ctc, p))
        elif p.kind == "scalar":
            constraints.append(ctc.ScalarConstraint(_dtype(ct, p.dtype)))
        else:
            constraints.append(ctc.ConstantConstraint(variant.constants[p.name]))
    return ctc.KernelSignature(constraints, ctc.CallingConvention.cutile_python_v2(), symbol=variant.symbol)


def _newer(output: Path, inputs: Iterable[Path]) -> bool:
    if not output.is_file():
        return False
    mtime = output.stat().st_mtime
    return all(mtime > i.stat().st_mtime for i in inputs if i.exists())


# cuTile's compiler is not documented as thread-safe; exports run one at a time, tileiras runs in parallel.
_export_lock = threading.Lock()


def _export_bytecode(op: OpSpec, variant: VariantSpec, out: Path) -> None:
    _, ctc = _ct()
    module = load_kernel_module(op)
    kernel = getattr(module, variant.kernel, None)
    if kernel is None:
        raise ExportError(f"{op.kernel_path} has no kernel {variant.kernel!r}")
    signature = build_signature(variant)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + f".tmp{os.getpid()}.{threading.get_ident()}")
    try:
        with _export_lock:
            ctc.export_kernel(kernel, [signature], str(tmp), output_format="tileir_bytecode",
                              bytecode_version=BYTECODE_VERSION, gpu_code=None)
        os.replace(tmp, out)  # atomic: an interrupted export never leaves a "fresh" broken file
    finally:
        tmp.unlink(missing_ok=True)


def compile_cubin(tileiras: Path, bytecode: Path, arch: str, out: Path) -> None:
    tmp = out.with_name(out.name + f".tmp{os.getpid()}.{threading.get_ident()}")
    try:
        proc = subprocess.run([str(tileiras), f"--gpu-name={arch}", str(bytecode), "-o", str(tmp)],
                              capture_output=True, text=True, timeout=TILEIRAS_TIMEOUT_S)
        if proc.returncode != 0 or not tmp.is_file():
            msg = (proc.stderr or proc.stdout).strip()[-2000:]
            raise ExportError(f"tileiras --gpu-name={arch} {bytecode.name} exited {proc.returncode}: {msg}")
        os.replace(tmp, out)
    except subprocess.TimeoutExpired:
        raise ExportError(f"tileiras --gpu-name={arch} {bytecode.name} timed out after {TILEIRAS_TIMEOUT_S}s") from None
    finally:
        tmp.unlink(missing_ok=True)


def export_variant(op: OpSpec, variant: VariantSpec, *, archs: Sequence[str] = DEFAULT_ARCHS,
                   build_root: Path | None = None, force: bool = False,
                   tileiras: Path | None = None) -> ExportRecord:
    """Export one variant and compile its cubins; errors are recorded, not raised (except missing tools)."""
    start = time.monotonic()
    bytecode, cubins = artifact_paths(variant, build_root, archs)
    rec = ExportRecord(op=op.op, variant=variant.name, kernel=variant.kernel, symbol=variant.symbol,
                       bytecode=str(bytecode), cubins={a: str(p) for a, p in cubins.items()})
    sources = [op.kernel_path, op.analysis_path]
    try:
        if not force and _newer(bytecode, sources):
            rec.bytecode_status = "up_to_date"
        else:
            _export_bytecode(op, variant, bytecode)
            rec.bytecode_status = "exported"
    except ToolNotFound:
        raise
    except Exception as exc:  # any cuTile compile error belongs to this variant only
        rec.bytecode_status = "failed"
        rec.errors.append(f"export: {type(exc).__name__}: {exc}")
        rec.cubin_status = {a: "skipped" for a in archs}
        rec.seconds = time.monotonic() - start
        return rec
    if archs:
        tileiras = tileiras or find_tileiras()
    for arch, cubin in cubins.items():
        try:
            if not force and _newer(cubin, [bytecode]):
                rec.cubin_status[arch] = "up_to_date"
            else:
                compile_cubin(tileiras, bytecode, arch, cubin)  # type: ignore[arg-type]
                rec.cubin_status[arch] = "compiled"
        except Exception as exc:
            rec.cubin_status[arch] = "failed"
            rec.errors.append(f"{arch}: {exc}")
    rec.seconds = time.monotonic() - start
    return rec


def export_all(specs: Sequence[OpSpec], *, archs: Sequence[str] = DEFAULT_ARCHS, build_root: Path | None = None,
               force: bool = False, jobs: int = 2, variants: Iterable[str] | None = None,
               on_done: Callable[[ExportRecord], None] | None = None,
               on_start: Callable[[int], None] | None = None) -> list[ExportRecord]:
    """Export every variant of `specs` (optionally only those named in `variants`), at most `jobs` at
    once; `on_start(n)` is told how many variants there are, `on_done(record)` is called as each
    finishes (progress). The records come back in catalog order."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    _ct()  # fail early and clearly when cuda.tile is missing
    tileiras = find_tileiras() if archs else None
    wanted = set(variants) if variants is not None else None
    work = [(op, v) for op in specs for v in op.variants if wanted is None or v.name in wanted]
    if on_start is not None:
        on_start(len(work))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(export_variant, op, v, archs=archs, build_root=build_root, force=force,
                               tileiras=tileiras) for op, v in work]
        if on_done is not None:
            for f in as_completed(futures):
                on_done(f.result())
        return [f.result() for f in futures]
