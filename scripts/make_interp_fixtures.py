#!/usr/bin/env python3
"""Write tests/interp/fixtures/: per reference variant, ref.py's inputs and torch's expected outputs.

tests/interp/test_reference_fixtures.py runs every variant in the NumPy interpreter on these
inputs and compares with these outputs, so CI checks the interpreter against the torch
references without torch. Run with a Python that has torch (the CPU build is enough):

    /work/torch-venv/bin/python scripts/make_interp_fixtures.py            # all variants
    /work/torch-venv/bin/python scripts/make_interp_fixtures.py --ops softmax,matmul

Per variant it takes the smallest ragged test shape (by the bytes the fixture stores; any
test shape when none is ragged). When that fixture would exceed --max-bytes it derives a
smaller shape by shrinking the shape symbols one at a time (see derive_shape: long dimensions
first, not below 33, then counts such as batch and heads; halving while keeping each symbol's
power-of-two factor up to 8 and a remainder mod 16, so the shape stays ragged and keeps the row
alignment the kernels assume). A candidate is accepted only when make_inputs builds arrays whose
shapes give back exactly those symbols and the launcher's argument checks
(tileir_diff.launch.abi.pack_arguments) accept them. The manifest records the test shape each
derived shape came from; a variant no shape fits is recorded under "skipped" with the reason
(and the script exits non-zero).

Storage (compressed .npz, one per variant): inputs in their own element type (bf16 and fp8 as
raw bits with the dtype in the metadata), plus their element strides (non-contiguous views);
expected outputs as float32 for 8/16-bit float outputs (the test widens the tolerance by the
float32 rounding, 2^-24 relative) and exactly (float64 where needed) for float32 and integer
outputs.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import io
import json
import math
import sys
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tileir_diff.launch.abi import ArgumentError, ArrayArg, host_dtype_name, pack_arguments  # noqa: E402
from tileir_diff.suite.catalog import RAGGED_MODULUS, is_ragged, load_catalog  # noqa: E402

GENERATOR_VERSION = 1
SEED = 1234
DEFAULT_OUT = ROOT / "tests" / "interp" / "fixtures"
# Stored bytes (inputs + expected outputs, before compression) above which a smaller shape is derived.
DEFAULT_MAX_BYTES = 80 * 1024
# Derived shapes first shrink only dimensions above this (two 16-wide tiles and a partial one).
LONG_DIM_FLOOR = 33
BITS_DTYPES = {"bfloat16": np.uint16, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8}
NARROW_FLOATS = ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2")
EXPECTED_ROUNDING_REL = 2.0 ** -24  # float64 -> float32 rounding of an expected narrow-float output


def fingerprint(op, variant) -> str:
    """What the fixture depends on: ref.py (inputs and expected values) and the variant fields
    that change the arguments (kernel, constants, dtypes, params, grid). Test shapes, tolerances and
    notes are left out: the fixture records its own shape and the test reads tolerances live."""
    raw = {k: variant.raw.get(k) for k in ("kernel", "constants", "dtypes", "params", "grid")}
    h = hashlib.sha256(op.ref_path.read_bytes())
    h.update(json.dumps(raw, sort_keys=True).encode())
    return h.hexdigest()


def load_ref(op):
    spec = importlib.util.spec_from_file_location(f"_fixture_ref_{op.op}", op.ref_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dtype_name(t) -> str:
    return host_dtype_name(t.dtype)


def host_values(torch, t):
    """(stored NumPy array of the logical values, dtype name): bits for bf16/fp8, else NumPy's type."""
    name = dtype_name(t)
    t = t.detach().cpu().contiguous()
    if name in BITS_DTYPES:
        bits = t.view(torch.int16 if name == "bfloat16" else torch.uint8).numpy()
        return bits.view(BITS_DTYPES[name]).copy(), name
    return t.numpy().copy(), name


def expected_values(torch, t, out_dtype: str):
    """Expected output as stored: float32 for narrow float outputs, else exact."""
    t = t.detach().cpu()
    if t.dtype.is_floating_point:
        if out_dtype in NARROW_FLOATS:
            return t.to(torch.float32).numpy(), True
        wide = t.to(torch.float64).numpy()
        narrow = wide.astype(np.float32)
        same = np.array_equal(narrow.astype(np.float64), wide, equal_nan=True)
        return (narrow if same else wide), False
    return t.to(torch.int64).numpy() if t.dtype != torch.bool else t.numpy(), False


def arrays_of(variant, inputs):
    names = {p.name for p in variant.arrays}
    return {k: v for k, v in inputs.items() if k in names}


def stored_bytes(variant, inputs) -> int:
    """Bytes the fixture stores for these inputs: every array once, outputs twice (initial contents
    and expected values, the latter at float32 or wider)."""
    total = 0
    outs = {p.name for p in variant.outputs}
    for k, t in arrays_of(variant, inputs).items():
        total += t.numel() * t.element_size()
        if k in outs:
            total += t.numel() * max(4, t.element_size())
    return total


def check_inputs(variant, shape, inputs) -> None:
    """Raise ValueError unless ``inputs`` reproduce ``shape``'s symbols and pass the launcher's checks."""
    arrays = arrays_of(variant, inputs)
    missing = [p.name for p in variant.arrays if p.name not in arrays]
    if missing:
        raise ValueError(f"make_inputs gave no array(s) {missing}")
    shapes = {k: tuple(int(s) for s in t.shape) for k, t in arrays.items()}
    derived = variant.symbols_from_shapes(shapes)
    for sym, value in derived.items():
        if sym in shape and shape[sym] != value:
            raise ValueError(f"symbol {sym}: shape says {shape[sym]}, arrays give {value}")
    values = {}
    address = 1 << 20
    for k, t in arrays.items():
        values[k] = ArrayArg(address, shapes[k], tuple(int(s) for s in t.stride()), dtype_name(t))
        address += 1 << 30
    values.update({p.name: inputs[p.name] for p in variant.params if p.kind == "scalar" and p.name in inputs})
    try:
        pack_arguments(variant, values)
    except ArgumentError as exc:
        raise ValueError(str(exc)) from None
    grid = variant.grid_for(dict(shape, **derived))
    if min(grid) < 1:
        raise ValueError(f"empty grid {grid}")


def shrunk(value: int, floor: int) -> list:
    """Smaller values (not below ``floor``) to try for a shape symbol, preferred first: about half,
    keeping the power-of-two factor (up to 8) and a remainder mod 16 so that a tile stays partial;
    then plain half (for small counts such as batch or head numbers)."""
    out = []
    step = math.gcd(value, 8)
    keep = max(step, (value // 2) // step * step)
    if keep % RAGGED_MODULUS == 0 and keep - step > 0:
        keep -= step
    for new in (keep, value // 2):
        if floor <= new < value and new > 0 and new not in out:
            out.append(new)
    return out


def symbols(variant, shape):
    return [k for k in variant.shape_symbols if isinstance(shape.get(k), int) and not isinstance(shape.get(k), bool)]


def _try_shape(variant, ref, shape, changes: dict):
    """(shape, inputs) for ``shape`` with ``changes`` applied, or raise ValueError/any make_inputs error."""
    cand = dict(shape, **changes)
    cand_inputs = ref.make_inputs(variant.raw, cand, seed=SEED, device="cpu")
    # Symbols that make_inputs derives from the others (routing sizes) follow the arrays.
    derived = variant.symbols_from_shapes({k: tuple(t.shape) for k, t in arrays_of(variant, cand_inputs).items()})
    for sym, new in changes.items():
        if derived.get(sym) != new:
            raise ValueError(f"arrays give {sym}={derived.get(sym)}, not {new}")
    cand.update({k: v for k, v in derived.items() if k in cand})
    check_inputs(variant, cand, cand_inputs)
    return cand, cand_inputs


def derive_shape(torch, variant, ref, base: dict, max_bytes: int):
    """Shrink ``base`` until the fixture fits ``max_bytes``; returns (shape, inputs) or raises ValueError.

    First only symbols above LONG_DIM_FLOOR shrink, largest first and not below it, so that long
    dimensions keep spanning several small tiles; then the short ones (largest first), then any,
    down to 1. A symbol that cannot
    shrink alone (tied to another, as Hq == Hkv) is tried together with the symbols of equal value."""
    shape = dict(base)
    inputs = ref.make_inputs(variant.raw, shape, seed=SEED, device="cpu")
    size = stored_bytes(variant, inputs)
    rejected = {}
    floor = LONG_DIM_FLOOR
    while size > max_bytes:
        best = None
        # Phase 2 takes the short dimensions (counts: batch, heads, splits) before the long ones.
        order = (lambda s: -shape[s]) if floor > 1 else (lambda s: (shape[s] >= LONG_DIM_FLOOR, -shape[s]))  # noqa: B023
        for sym in sorted(symbols(variant, shape), key=order):
            tied = [k for k in symbols(variant, shape) if shape[k] == shape[sym]]
            for new in shrunk(shape[sym], floor):
                for group in ([sym], tied) if len(tied) > 1 else ([sym],):
                    changes = {k: new for k in group}
                    key = tuple(sorted(changes.items()))
                    if key in rejected:
                        continue
                    try:
                        best = _try_shape(variant, ref, shape, changes)
                        break
                    except Exception as exc:  # noqa: BLE001 - any failure rejects this candidate only
                        rejected[key] = f"{type(exc).__name__}: {exc}"
                if best:
                    break
            if best:
                break
        if best is None:
            if floor > 1:
                floor = 1
                continue
            raise ValueError(f"cannot shrink {base} below {size} bytes (last shape {shape}; rejected: {rejected})")
        shape, inputs = best
        size = stored_bytes(variant, inputs)
    return shape, inputs


def choose_shape(torch, variant, ref, max_bytes: int):
    """(shape, inputs, info) for one variant; info says where the shape came from."""
    sized = []
    for i, s in enumerate(variant.test_shapes):
        sized.append((variant.bytes_for(s), i, s))
    sized.sort(key=lambda r: (r[0], r[1]))
    ragged = [r for r in sized if is_ragged(r[2])]
    _, index, base = (ragged or sized)[0]
    inputs = ref.make_inputs(variant.raw, dict(base), seed=SEED, device="cpu")
    check_inputs(variant, base, inputs)
    info = {"test_shape_index": index}
    if stored_bytes(variant, inputs) <= max_bytes:
        return dict(base), inputs, info
    shape, inputs = derive_shape(torch, variant, ref, base, max_bytes)
    info["derived_from"] = dict(base)
    return shape, inputs, info


def build_fixture(torch, op, variant, ref, max_bytes: int):
    shape, inputs, info = choose_shape(torch, variant, ref, max_bytes)
    for name in shape.get("noncontiguous", []):
        if inputs[name].is_contiguous():
            raise ValueError(f"make_inputs returned {name!r} contiguous but the shape asks for non-contiguous")
    clones = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in inputs.items()}
    expected = ref.reference(variant.raw, clones)
    meta = {"op": op.op, "variant": variant.name, "shape": shape, "seed": SEED, **info,
            "arrays": {}, "scalars": {}, "outputs": {}}
    payload = {}
    for p in variant.params:
        if p.name not in inputs:
            continue
        value = inputs[p.name]
        if p.kind == "array":
            stored, name = host_values(torch, value)
            payload[f"in.{p.name}"] = stored
            meta["arrays"][p.name] = {"dtype": name, "shape": list(value.shape),
                                      "strides": [int(s) for s in value.stride()],
                                      "stored_as": "bits" if name in BITS_DTYPES else "values"}
        elif p.kind == "scalar":
            meta["scalars"][p.name] = value.item() if hasattr(value, "item") else value
    for p in variant.outputs:
        if p.name not in expected:
            raise ValueError(f"ref.reference did not return output {p.name!r}")
        values, rounded = expected_values(torch, expected[p.name], p.dtype)
        if tuple(values.shape) != tuple(inputs[p.name].shape):
            raise ValueError(f"{p.name}: reference shape {values.shape} != output shape {tuple(inputs[p.name].shape)}")
        payload[f"expected.{p.name}"] = values
        meta["outputs"][p.name] = {"dtype": p.dtype, "tolerance": variant.tolerances[p.dtype],
                                   "expected_rounding_rel": EXPECTED_ROUNDING_REL if rounded else 0.0}
    return meta, payload


def write_npz(path: Path, meta: dict, payload: dict) -> None:
    """A deterministic compressed .npz (fixed zip timestamps, so regenerating unchanged data leaves
    the file byte-identical)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        items = [("meta", np.array(json.dumps(meta, sort_keys=True)))] + sorted(payload.items())
        for key, arr in items:
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(arr), allow_pickle=False)
            z.writestr(info, member.getvalue())
    path.write_bytes(buf.getvalue())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--ops", help="comma-separated ops (default: all); the manifest keeps other ops' entries")
    ap.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                    help="stored bytes per fixture above which a smaller shape is derived")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(2)
    ops = args.ops.split(",") if args.ops else None
    args.out.mkdir(parents=True, exist_ok=True)
    manifest_path = args.out / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() and ops else {"fixtures": {}, "skipped": {}}
    manifest.update({"generator": "scripts/make_interp_fixtures.py", "generator_version": GENERATOR_VERSION,
                     "seed": SEED, "max_bytes": args.max_bytes, "torch": torch.__version__})
    failures = 0
    for op in load_catalog(ops=ops):
        ref = load_ref(op)
        for stale in [k for k in manifest["fixtures"] if k.startswith(f"{op.op}/")]:
            del manifest["fixtures"][stale]
        for stale in [k for k in manifest["skipped"] if k.startswith(f"{op.op}/")]:
            del manifest["skipped"][stale]
        for old in args.out.glob(f"{op.op}.*.npz"):
            old.unlink()
        for v in op.variants:
            key = f"{op.op}/{v.name}"
            try:
                meta, payload = build_fixture(torch, op, v, ref, args.max_bytes)
            except Exception as exc:  # noqa: BLE001 - recorded as a reasoned skip, reported, non-zero exit
                manifest["skipped"][key] = {"reason": f"{type(exc).__name__}: {exc}", "fingerprint": fingerprint(op, v)}
                print(f"SKIP {key}: {exc}", file=sys.stderr)
                failures += 1
                continue
            path = args.out / f"{op.op}.{v.name}.npz"
            write_npz(path, meta, payload)
            data = path.read_bytes()
            manifest["fixtures"][key] = {"file": path.name, "bytes": len(data), "fingerprint": fingerprint(op, v),
                                         "sha256": hashlib.sha256(data).hexdigest(),
                                         "shape": meta["shape"], "test_shape_index": meta["test_shape_index"],
                                         "derived_from": meta.get("derived_from")}
            print(f"{key}: {meta['shape']} {len(data)} bytes{' (derived)' if 'derived_from' in meta else ''}")
    manifest["fixtures"] = dict(sorted(manifest["fixtures"].items()))
    manifest["total_bytes"] = sum(f["bytes"] for f in manifest["fixtures"].values())
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print(f"{len(manifest['fixtures'])} fixtures, {manifest['total_bytes']} bytes, {len(manifest['skipped'])} skipped")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
