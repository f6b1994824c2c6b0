"""The C ABI through ctypes, without a GPU: every rejection the library can make before a
driver call, the exception each code maps to, and what happens after validation."""
from __future__ import annotations

import ctypes
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tileir_diff import ports
from tileir_diff.ports import Status
from tileir_diff.ports._abi import TileirTensor, descriptor

pytestmark = pytest.mark.cargo

HEADER = Path(__file__).resolve().parents[2] / "rust_kernels" / "include" / "tileir_kernels.h"
BASE = 0x7F00_0000_0000


def addr(i: int) -> int:
    """Distinct fake device addresses, 4 GiB apart and 256-byte aligned; never dereferenced."""
    return BASE + i * (1 << 32)


def t(i, dtype, shape, strides=None, offset=0) -> TileirTensor:
    if strides is None:
        strides, acc = [], 1
        for n in reversed(shape):
            strides.insert(0, acc)
            acc *= max(n, 1)
    return descriptor(addr(i) + offset if i else 0, shape, strides, dtype)


def driver_present() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


# After validation the call needs a driver (absent here) and an embedded cubin.
PAST_VALIDATION = {Status.DRIVER_UNAVAILABLE, Status.KERNEL_IMAGE_MISSING, Status.DRIVER_ERROR,
                   Status.INVALID_DEVICE, Status.DEVICE_MISMATCH, Status.OK}


@pytest.fixture(scope="module")
def lib(ports_library):
    return ports.load_library(ports_library)


def vadd(lib, x, y, out, device=0):
    return Status(lib.cutile_vector_add(x and ctypes.byref(x), y and ctypes.byref(y), out and ctypes.byref(out),
                                        device, 0))


def softmax(lib, x, out, device=0):
    return Status(lib.cutile_softmax(x and ctypes.byref(x), out and ctypes.byref(out), device, 0))


def rms(lib, x, w, out, rstd, eps=1e-6, device=0):
    args = [a and ctypes.byref(a) for a in (x, w, out, rstd)]
    return Status(lib.cutile_rms_norm(*args, eps, device, 0))


def mm(lib, a, b, c, ta=0, tb=0, device=0):
    args = [v and ctypes.byref(v) for v in (a, b, c)]
    return Status(lib.cutile_matmul(*args, ta, tb, device, 0))


def message(lib) -> str:
    return lib.tileir_kernels_last_error().decode()


def test_header_codes_equal_python_status():
    text = HEADER.read_text()
    codes = {m[1]: int(m[2]) for m in re.finditer(r"\bTILEIR_([A-Z_]+) = (-?\d+)", text) if not m[1].startswith("DTYPE_")}
    assert codes == {s.name: int(s) for s in Status}
    dtypes = {m[1].lower(): int(m[2]) for m in re.finditer(r"\bTILEIR_DTYPE_([A-Z0-9_]+) = (\d+)", text)}
    named = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "i32": "int32", "i64": "int64",
             "f8e4m3fn": "float8_e4m3fn", "f8e5m2": "float8_e5m2", "f64": "float64"}
    assert {named[k]: v for k, v in dtypes.items()} == ports.DTYPE_CODES
    assert f"#define TILEIR_KERNELS_ABI_VERSION {ports.ABI_VERSION}" in text


def test_descriptor_layout_is_96_bytes():
    assert ctypes.sizeof(TileirTensor) == 96
    assert TileirTensor.shape.offset == 8 and TileirTensor.strides.offset == 48
    assert TileirTensor.ndim.offset == 88 and TileirTensor.dtype.offset == 92


def test_library_names_every_status(lib):
    assert lib.tileir_kernels_abi_version() == ports.ABI_VERSION
    for s in Status:
        assert lib.tileir_kernels_status_name(int(s)).decode() == s.name
    assert lib.tileir_kernels_status_name(-1).decode() == "UNKNOWN"


def test_vector_add_rejections(lib):
    n = 1000
    x, y, out = t(1, "float16", [n]), t(2, "float16", [n]), t(3, "float16", [n])
    assert vadd(lib, x, y, out) in PAST_VALIDATION, message(lib)
    assert vadd(lib, None, y, out) == Status.NULL_POINTER
    assert "x: descriptor pointer is null" in message(lib)
    assert vadd(lib, x, y, t(0, "float16", [n])) == Status.NULL_POINTER
    assert vadd(lib, x, t(2, "float16", [n + 1]), out) == Status.SHAPE_MISMATCH
    assert vadd(lib, x, t(2, "bfloat16", [n]), out) == Status.UNSUPPORTED_DTYPE
    assert vadd(lib, t(1, "int32", [n]), t(2, "int32", [n]), t(3, "int32", [n])) == Status.UNSUPPORTED_DTYPE
    bogus = t(1, "float16", [n])
    bogus.dtype = 42
    assert vadd(lib, bogus, y, out) == Status.UNSUPPORTED_DTYPE
    assert vadd(lib, t(1, "float16", [10, 100]), y, out) == Status.BAD_RANK
    assert vadd(lib, t(1, "float16", [1] * 6), y, out) == Status.BAD_RANK
    assert vadd(lib, t(1, "float16", [-5]), y, out) == Status.INVALID_SHAPE
    # No strided f16 variant: a stride-2 view must be rejected, never read as contiguous.
    assert vadd(lib, t(1, "float16", [n], [2]), y, out) == Status.BAD_STRIDE
    assert vadd(lib, t(1, "float16", [n], offset=2), y, out) == Status.MISALIGNED
    assert vadd(lib, x, y, out, device=-1) == Status.INVALID_DEVICE
    # Partial overlap of out and x (shifted by 8 elements) vs an exact in-place call.
    assert vadd(lib, x, y, t(1, "float16", [n], offset=16)) == Status.INVALID_ARGUMENT
    assert vadd(lib, x, y, t(1, "float16", [n])) in PAST_VALIDATION
    # Offsets past the kernels' int32 index range.
    assert vadd(lib, t(1, "float32", [3], [2**30]), t(2, "float32", [3]), t(3, "float32", [3])) == Status.UNSUPPORTED_SHAPE


def test_vector_add_f32_takes_strides_but_not_overlapping_outputs(lib):
    x, y, out = t(1, "float32", [4099], [3]), t(2, "float32", [4099]), t(3, "float32", [4099])
    assert vadd(lib, x, y, out) in PAST_VALIDATION, message(lib)
    assert vadd(lib, x, y, t(3, "float32", [4099], [0])) == Status.BAD_STRIDE
    assert vadd(lib, t(1, "float32", [4099], [-1]), y, out) == Status.BAD_STRIDE


def test_empty_tensors_succeed_without_a_driver(lib):
    e = t(0, "float16", [0])
    assert vadd(lib, e, e, e) == Status.OK
    s = t(0, "float32", [0, 64])
    assert softmax(lib, s, s) == Status.OK


def test_softmax_rejections(lib):
    m, n = 37, 515
    x = t(1, "bfloat16", [m, n], [576, 1])  # a column slice of a wider buffer
    out = t(2, "bfloat16", [m, n])
    assert softmax(lib, x, out) in PAST_VALIDATION, message(lib)
    assert softmax(lib, x, None) == Status.NULL_POINTER
    assert softmax(lib, x, t(2, "bfloat16", [m, n + 1])) == Status.SHAPE_MISMATCH
    assert softmax(lib, x, t(2, "float16", [m, n])) == Status.UNSUPPORTED_DTYPE
    assert softmax(lib, t(1, "bfloat16", [m * n]), out) == Status.BAD_RANK
    assert softmax(lib, t(1, "bfloat16", [m, n], [1, m]), out) == Status.BAD_STRIDE  # transposed view
    assert softmax(lib, t(1, "bfloat16", [m, n], [576, 1], offset=8), out) == Status.MISALIGNED
    assert softmax(lib, x, t(2, "bfloat16", [m, n], [0, 1])) == Status.BAD_STRIDE  # rows collide
    assert softmax(lib, t(1, "float32", [3, 50257]), t(2, "float32", [3, 50257])) in PAST_VALIDATION


def test_rms_norm_rejections(lib):
    m, n = 13, 1000
    x, w, out, rstd = t(1, "float16", [m, n]), t(2, "float16", [n]), t(3, "float16", [m, n]), t(4, "float32", [m])
    assert rms(lib, x, w, out, rstd) in PAST_VALIDATION, message(lib)
    assert rms(lib, x, w, out, None) == Status.NULL_POINTER
    assert rms(lib, x, t(2, "float16", [n - 1]), out, rstd) == Status.SHAPE_MISMATCH
    assert rms(lib, x, w, out, t(4, "float32", [m + 1])) == Status.SHAPE_MISMATCH
    assert rms(lib, x, w, out, t(4, "float16", [m])) == Status.UNSUPPORTED_DTYPE  # rstd is float32
    assert rms(lib, x, t(2, "float32", [n]), out, rstd) == Status.UNSUPPORTED_DTYPE
    assert rms(lib, x, t(2, "float16", [n], [2]), out, rstd) == Status.BAD_STRIDE
    for eps in (float("nan"), float("inf"), -1.0):
        assert rms(lib, x, w, out, rstd, eps=eps) == Status.INVALID_ARGUMENT
    assert rms(lib, x, w, out, t(1, "float32", [m], offset=64)) == Status.INVALID_ARGUMENT  # rstd inside x
    assert rms(lib, t(1, "float16", [m, 0]), t(2, "float16", [0]), t(3, "float16", [m, 0]), rstd) \
        == Status.UNSUPPORTED_SHAPE


def test_matmul_rejections(lib):
    m, n, k = 333, 200, 328
    a, b, c = t(1, "float16", [m, k]), t(2, "float16", [k, n]), t(3, "float16", [m, n])
    assert mm(lib, a, b, c) in PAST_VALIDATION, message(lib)
    assert mm(lib, a, t(2, "float16", [k + 1, n]), c) == Status.SHAPE_MISMATCH
    assert mm(lib, a, b, t(3, "float16", [m, n + 1])) == Status.SHAPE_MISMATCH
    assert mm(lib, a, b, c, ta=2) == Status.INVALID_ARGUMENT
    assert mm(lib, a, b, t(1, "float16", [m, n])) == Status.INVALID_ARGUMENT  # c aliases a
    assert mm(lib, t(1, "float16", [k, m]), t(2, "float16", [n, k]), c, ta=1, tb=1) == Status.NO_VARIANT
    assert mm(lib, t(1, "int64", [m, k]), t(2, "int64", [k, n]), t(3, "int64", [m, n])) == Status.UNSUPPORTED_DTYPE
    # a.t() of a stored (K, M) array as a logical (M, K) operand: columns not contiguous. The
    # caller must pass the stored array with trans_a=1 instead; the library never guesses.
    assert mm(lib, t(1, "float16", [m, k], [1, m]), b, c) == Status.BAD_STRIDE
    assert mm(lib, t(1, "float16", [k, 336]), b, t(3, "float16", [336, n]), ta=1) in PAST_VALIDATION
    # bf16 has no unaligned fallback: an odd K is a stride error with the assumed multiple.
    assert mm(lib, t(1, "bfloat16", [127, 131]), t(2, "bfloat16", [131, 129]), t(3, "bfloat16", [127, 129])) \
        == Status.BAD_STRIDE
    assert "multiple of 8" in message(lib)
    assert mm(lib, t(1, "float16", [127, 131]), t(2, "float16", [131, 129]), t(3, "float16", [127, 129])) \
        in PAST_VALIDATION
    assert mm(lib, t(1, "float16", [127, 131], offset=1), t(2, "float16", [131, 129]), t(3, "float16", [127, 129])) \
        == Status.MISALIGNED
    assert mm(lib, t(1, "float16", [m, 0]), t(2, "float16", [0, n]), c) == Status.UNSUPPORTED_SHAPE


def test_rms_norm_bwd_rejections(lib):
    m, n = 77, 1000
    blocks = -(-m // ports.RMS_NORM_BWD_ROWS_PER_BLOCK)
    dy, x, w = t(1, "float16", [m, n]), t(2, "float16", [m, n]), t(3, "float16", [n])
    rstd, dx, dw = t(4, "float32", [m]), t(5, "float16", [m, n]), t(6, "float32", [blocks, n])

    def bwd(*args):
        return Status(lib.cutile_rms_norm_bwd(*[a and ctypes.byref(a) for a in args], 0, 0))

    assert bwd(dy, x, w, rstd, dx, dw) in PAST_VALIDATION, message(lib)
    assert bwd(dy, x, w, rstd, dx, None) == Status.NULL_POINTER
    assert bwd(dy, x, w, rstd, dx, t(6, "float32", [blocks + 1, n])) == Status.SHAPE_MISMATCH
    assert bwd(dy, x, w, rstd, dx, t(6, "float16", [blocks, n])) == Status.UNSUPPORTED_DTYPE
    assert bwd(dy, x, w, rstd, t(1, "float16", [m, n]), dw) == Status.INVALID_ARGUMENT  # dx over dy
    wide = [t(1, "float16", [m, 2000]), t(2, "float16", [m, 2000]), t(3, "float16", [2000]), rstd,
            t(5, "float16", [m, 2000]), t(6, "float32", [blocks, 2000])]
    assert bwd(*wide) == Status.UNSUPPORTED_SHAPE


def test_matmul_fp8_rejections(lib):
    m, n, k = 333, 200, 336
    a, b, c = t(1, "float8_e4m3fn", [m, k]), t(2, "float8_e4m3fn", [n, k]), t(3, "bfloat16", [m, n])

    def fp8(a, b, c, sa=0.5, ta=0, tb=1):
        return Status(lib.cutile_matmul_fp8(*[v and ctypes.byref(v) for v in (a, b, c)], sa, 0.25, ta, tb, 0, 0))

    assert fp8(a, b, c) in PAST_VALIDATION, message(lib)
    assert fp8(a, b, c, sa=float("inf")) == Status.INVALID_ARGUMENT
    assert fp8(a, t(2, "float8_e4m3fn", [k, n]), c, tb=0) == Status.NO_VARIANT
    assert fp8(a, b, t(3, "float32", [m, n])) == Status.UNSUPPORTED_DTYPE
    assert fp8(t(1, "float8_e4m3fn", [m, 328]), t(2, "float8_e4m3fn", [n, 328]), c) == Status.BAD_STRIDE
    assert mm(lib, a, b, t(3, "float8_e4m3fn", [m, n]), tb=1) == Status.UNSUPPORTED_DTYPE
    assert "cutile_matmul_fp8" in message(lib)


def call(lib, name, *args, device=0, stream=0):
    """A cutile_<op> call: descriptors (None = a null pointer) then scalars, as the registry lists them."""
    return Status(getattr(lib, name)(*[ctypes.byref(a) if isinstance(a, TileirTensor) else a for a in args],
                                     device, stream))


def test_silu_and_mul_rejections(lib):
    m, h = 33, 333

    def silu(x, out, **kw):
        return call(lib, "cutile_silu_and_mul", x, out, **kw)

    x, out = t(1, "float16", [m, 2 * h]), t(2, "float16", [m, h])
    assert silu(x, out) in PAST_VALIDATION, message(lib)
    # The (M, 2, H) view itself, with a padded row stride (the reference's non-contiguous x).
    assert silu(t(1, "float16", [m, 2, h], [2 * h + 64, h, 1]), t(2, "float16", [m, h], [h + 64, 1])) \
        in PAST_VALIDATION, message(lib)
    assert silu(None, out) == Status.NULL_POINTER
    assert silu(x, None) == Status.NULL_POINTER
    assert silu(x, t(0, "float16", [m, h])) == Status.NULL_POINTER
    assert silu(t(1, "float16", [m * 2 * h]), out) == Status.BAD_RANK
    assert silu(t(1, "float16", [m, 2, h, 1]), out) == Status.BAD_RANK
    assert silu(x, t(2, "float16", [m * h])) == Status.BAD_RANK
    assert silu(t(1, "float16", [m, 2 * h + 1]), out) == Status.SHAPE_MISMATCH  # 2H odd
    assert "even" in message(lib)
    assert silu(t(1, "float16", [m, 3, h]), out) == Status.SHAPE_MISMATCH  # not (M, 2, H)
    assert silu(x, t(2, "float16", [m, h + 1])) == Status.SHAPE_MISMATCH
    assert silu(x, t(2, "float16", [m + 1, h])) == Status.SHAPE_MISMATCH
    assert silu(x, t(2, "bfloat16", [m, h])) == Status.UNSUPPORTED_DTYPE
    assert silu(t(1, "int32", [m, 2 * h]), t(2, "int32", [m, h])) == Status.UNSUPPORTED_DTYPE
    assert silu(t(1, "float16", [m, 2 * h], [1, m]), out) == Status.BAD_STRIDE  # columns not contiguous
    assert silu(x, t(2, "float16", [m, h], [0, 1])) == Status.BAD_STRIDE  # out rows collide
    assert silu(t(1, "float16", [m, 2 * h], offset=2), out) == Status.MISALIGNED
    assert silu(x, t(1, "float16", [m, h], offset=2 * h * 2)) == Status.INVALID_ARGUMENT  # out inside x
    assert silu(x, out, device=-1) == Status.INVALID_DEVICE
    assert silu(t(1, "float16", [-1, 2 * h]), out) == Status.INVALID_SHAPE
    # grid.y = cdiv(H, TILE_H) must stay within the driver's 65535, also for the widest tiles
    # (the (1, 1024) `_fast` variant, which a single 16-bit row takes).
    big = 65536 * 1024
    assert silu(t(1, "float16", [1, 2 * big]), t(2, "float16", [1, big])) == Status.UNSUPPORTED_SHAPE
    assert silu(t(0, "float16", [0, 2 * h]), t(0, "float16", [0, h])) == Status.OK  # empty: nothing to do


def test_swiglu_rejections(lib):
    m, n = 21, 777
    a, b, c = t(1, "bfloat16", [m, n]), t(2, "bfloat16", [m, n]), t(3, "bfloat16", [m, n])

    def fwd(a, b, c, **kw):
        return call(lib, "cutile_swiglu", a, b, c, **kw)

    assert fwd(a, b, c) in PAST_VALIDATION, message(lib)
    assert fwd(t(1, "bfloat16", [m, n], [n + 64, 1]), b, c) in PAST_VALIDATION  # padded rows
    assert fwd(a, b, t(1, "bfloat16", [m, n])) in PAST_VALIDATION  # c is a: exactly in place
    assert fwd(None, b, c) == Status.NULL_POINTER
    assert fwd(a, b, t(0, "bfloat16", [m, n])) == Status.NULL_POINTER
    assert fwd(t(1, "bfloat16", [m * n]), b, c) == Status.BAD_RANK
    assert fwd(a, t(2, "bfloat16", [m, n + 1]), c) == Status.SHAPE_MISMATCH
    assert fwd(a, b, t(3, "bfloat16", [m + 1, n])) == Status.SHAPE_MISMATCH
    assert fwd(a, t(2, "float16", [m, n]), c) == Status.UNSUPPORTED_DTYPE
    assert fwd(*(t(i, "int64", [m, n]) for i in (1, 2, 3))) == Status.UNSUPPORTED_DTYPE
    assert fwd(a, t(2, "bfloat16", [m, n], [1, m]), c) == Status.BAD_STRIDE
    assert fwd(a, b, t(3, "bfloat16", [m, n], [0, 1])) == Status.BAD_STRIDE
    assert fwd(a, b, t(3, "bfloat16", [m, n], offset=4)) == Status.MISALIGNED
    assert fwd(a, b, t(1, "bfloat16", [m, n], offset=32)) == Status.INVALID_ARGUMENT  # c shifted over a
    assert fwd(a, b, c, device=-2) == Status.INVALID_DEVICE
    wide = 65536 * 1024  # past grid.y's 65535 also for the (1, 1024) `_fast` tiles a single row takes
    assert fwd(*(t(i, "bfloat16", [1, wide]) for i in (1, 2, 3))) == Status.UNSUPPORTED_SHAPE  # grid.y


def test_swiglu_bwd_rejections(lib):
    m, n = 21, 784
    dc, a, b, da, db = (t(i, "float32", [m, n]) for i in range(1, 6))

    def bwd(*args, **kw):
        return call(lib, "cutile_swiglu_bwd", *args, **kw)

    assert bwd(dc, a, b, da, db) in PAST_VALIDATION, message(lib)
    # Outputs exactly over inputs (da over dc, db over a) are fine...
    assert bwd(dc, a, b, t(1, "float32", [m, n]), t(2, "float32", [m, n])) in PAST_VALIDATION, message(lib)
    # ...da and db over each other are not: two values for one address.
    assert bwd(dc, a, b, da, t(4, "float32", [m, n])) == Status.INVALID_ARGUMENT
    assert bwd(dc, a, b, da, t(4, "float32", [m, n], offset=4 * n)) == Status.INVALID_ARGUMENT
    assert bwd(dc, a, b, t(1, "float32", [m, n], offset=16), db) == Status.INVALID_ARGUMENT  # da shifted over dc
    assert bwd(dc, a, b, da, None) == Status.NULL_POINTER
    assert bwd(dc, a, t(3, "float32", [n]), da, db) == Status.BAD_RANK
    assert bwd(dc, a, b, da, t(5, "float32", [m, n - 1])) == Status.SHAPE_MISMATCH
    assert bwd(t(1, "float16", [m, n]), a, b, da, db) == Status.UNSUPPORTED_DTYPE
    assert bwd(dc, a, b, da, t(5, "float32", [m, n], [n, 2])) == Status.BAD_STRIDE
    assert bwd(dc, t(2, "float32", [m, n], offset=8), b, da, db) == Status.MISALIGNED
    assert bwd(dc, a, b, da, db, device=-1) == Status.INVALID_DEVICE


def test_gelu_rejections(lib):
    m, n = 19, 333
    x, out = t(1, "float32", [m, n]), t(2, "float32", [m, n])

    def gelu(x, out, approximate=0, **kw):
        return call(lib, "cutile_gelu", x, out, approximate, **kw)

    assert gelu(x, out) in PAST_VALIDATION, message(lib)
    assert gelu(x, out, 1) in PAST_VALIDATION, message(lib)
    assert gelu(x, t(1, "float32", [m, n])) in PAST_VALIDATION  # in place
    for bad in (2, -1):
        assert gelu(x, out, bad) == Status.INVALID_ARGUMENT
    assert gelu(None, out) == Status.NULL_POINTER
    assert gelu(t(1, "float32", [m, n, 1]), out) == Status.BAD_RANK
    assert gelu(x, t(2, "float32", [m, n + 1])) == Status.SHAPE_MISMATCH
    assert gelu(x, t(2, "float16", [m, n])) == Status.UNSUPPORTED_DTYPE
    assert gelu(t(1, "float64", [m, n]), t(2, "float64", [m, n])) == Status.UNSUPPORTED_DTYPE
    assert gelu(t(1, "float32", [m, n], [1, m]), out) == Status.BAD_STRIDE
    assert gelu(x, t(2, "float32", [m, n], offset=4)) == Status.MISALIGNED
    assert gelu(x, t(1, "float32", [m, n], offset=4 * n)) == Status.INVALID_ARGUMENT  # out one row into x
    assert gelu(x, out, device=-1) == Status.INVALID_DEVICE
    assert gelu(*(t(i, "float32", [1, 65536 * 256 + 1]) for i in (1, 2))) == Status.UNSUPPORTED_SHAPE


def test_gelu_forced_variant_must_compute_the_asked_formula(lib, ports_library):
    x, out = t(1, "float16", [16, 256]), t(2, "float16", [16, 256])
    with ports.force_variant("gelu", "tanh_f16", library=ports_library):
        assert call(lib, "cutile_gelu", x, out, 1) in PAST_VALIDATION, message(lib)
        assert call(lib, "cutile_gelu", x, out, 0) == Status.INVALID_ARGUMENT
        assert "APPROX" in message(lib)
    # The forced aligned variant still checks its own assumptions: N = 250 is not a multiple of 8.
    with ports.force_variant("gelu", "erf_f16_a8", library=ports_library):
        assert call(lib, "cutile_gelu", t(1, "float16", [16, 250]), t(2, "float16", [16, 250]), 0) \
            == Status.UNSUPPORTED_SHAPE


def test_dropout_rejections(lib):
    n = 4097
    x, out = t(1, "float16", [n]), t(2, "float16", [n])

    def drop(x, out, seed=1, p=0.3, **kw):
        return call(lib, "cutile_dropout", x, out, seed, p, **kw)

    assert drop(x, out) in PAST_VALIDATION, message(lib)
    assert drop(x, out, seed=-(2**31), p=0.0) in PAST_VALIDATION
    assert drop(x, out, p=1.0) in PAST_VALIDATION
    assert drop(x, t(1, "float16", [n])) in PAST_VALIDATION  # in place
    for p in (float("nan"), -0.1, 1.5, float("inf")):
        assert drop(x, out, p=p) == Status.INVALID_ARGUMENT, p
    assert drop(None, out) == Status.NULL_POINTER
    assert drop(t(1, "float16", [1, n]), out) == Status.BAD_RANK
    assert drop(x, t(2, "float16", [n + 1])) == Status.SHAPE_MISMATCH
    assert drop(x, t(2, "float32", [n])) == Status.UNSUPPORTED_DTYPE
    assert drop(t(1, "int32", [n]), t(2, "int32", [n])) == Status.UNSUPPORTED_DTYPE
    # Only f32 has a strided variant.
    assert drop(t(1, "float16", [n], [2]), out) == Status.BAD_STRIDE
    assert drop(t(1, "float32", [n], [2]), t(2, "float32", [n])) in PAST_VALIDATION
    assert drop(t(1, "float32", [n]), t(2, "float32", [n], [0])) == Status.BAD_STRIDE  # out collides
    assert drop(t(1, "float16", [n], offset=2), out) == Status.MISALIGNED
    assert drop(x, t(1, "float16", [n], offset=16)) == Status.INVALID_ARGUMENT
    assert drop(x, out, device=-1) == Status.INVALID_DEVICE
    assert drop(t(1, "float32", [3], [2**30]), t(2, "float32", [3])) == Status.UNSUPPORTED_SHAPE  # offsets


def _reference_layout(i, dtype, shape, noncontiguous):
    """A descriptor laid out as tileir_diff.suite.refutil.make_strided lays out ref.py's inputs:
    dense, or rows padded by 64 elements (1-D: every other element)."""
    if not noncontiguous:
        return t(i, dtype, list(shape))
    if len(shape) == 1:
        return t(i, dtype, list(shape), [2])
    strides, acc = [], 1
    for k, n in enumerate(reversed(shape)):
        strides.insert(0, acc)
        acc *= n + 64 if k == 0 else n
    return t(i, dtype, list(shape), strides)


def _reference_args(op, variant, shape):
    """The C arguments ref.make_inputs would give for one analysis.json test shape (no torch)."""
    nc = set(shape.get("noncontiguous", []))
    dt = variant["dtypes"]
    if op == "silu_and_mul":
        m, h = shape["M"], shape["H"]
        x2d = _reference_layout(1, dt["x"], [m, 2 * h], "x" in nc)
        # x2d.view(m, 2, h): (row stride, h, 1)
        x = descriptor(x2d.data, [m, 2, h], [x2d.strides[0], h, 1], dt["x"])
        return [x, _reference_layout(2, dt["out"], [m, h], "out" in nc)]
    f = ports.function_for(op, variant["kernel"])
    dims = [shape["N"]] if op == "dropout" else [shape["M"], shape["N"]]
    args = [_reference_layout(i, dt[a.name], dims, a.name in nc) for i, a in enumerate(f.args, 1) if a.kind == "tensor"]
    if op == "gelu":
        args.append(variant["constants"]["APPROX"])
    if op == "dropout":
        args += [12345 + shape["N"] % 1000, 0.3]
    return args


NEW_OPS = ("silu_and_mul", "swiglu", "gelu", "dropout")


@pytest.mark.parametrize("op", NEW_OPS)
def test_every_reference_test_shape_fits_its_forced_variant(lib, ports_library, op):
    """What the GPU test (test_gpu_ports.py) launches: each variant forced, on each of its
    analysis.json test shapes laid out as ref.make_inputs lays them out. Every one must get past
    validation here, so that on the GPU each cubin runs on every test shape."""
    assert_every_reference_test_shape_fits(lib, ports_library, op, _reference_args)


def assert_every_reference_test_shape_fits(lib, ports_library, op, reference_args, skip=(), unforced=False):
    """Each variant of `op` but those in `skip` forced on each of its analysis.json test shapes
    (`reference_args(op, variant, shape)`: the C arguments as ref.make_inputs lays them out) gets
    past validation; with `unforced`, the library's own choice on each shape does too."""
    analysis = json.loads((HEADER.parents[2] / "reference" / op / "analysis.json").read_text())
    for v in analysis["variants"]:
        if (op, v["name"]) in skip:
            continue
        f = ports.function_for(op, v["kernel"])
        for shape in v["test_shapes"]:
            args = reference_args(op, v, shape)
            with ports.force_variant(op, v["name"], library=ports_library):
                code = call(lib, f.name, *args)
            assert code in PAST_VALIDATION, f"{op}/{v['name']} {shape}: {code.name}: {message(lib)}"
            if unforced:
                code = call(lib, f.name, *args)
                assert code in PAST_VALIDATION, f"{op} unforced {shape}: {code.name}: {message(lib)}"


def test_registry_functions_are_in_the_header_with_their_arguments():
    """tileir_diff.ports.registry is the Python list of ported functions: every one of them,
    and nothing else, is in the header, with the registry's arguments then (device, stream)."""
    text = re.sub(r"/\*.*?\*/", "", HEADER.read_text(), flags=re.S)
    protos = {}
    for m in re.finditer(r"int32_t (cutile_\w+)\(([^)]*)\);", text):
        args = [" ".join(a.split()).replace(" *", "* ") for a in m[2].split(",")]
        protos[m[1]] = [tuple(a.rsplit(" ", 1)) for a in args]
    assert sorted(protos) == sorted(f.name for f in ports.FUNCTIONS)
    ctype = {"tensor": "const tileir_tensor_t*", "f32": "float", "i32": "int32_t", "flag": "int32_t", "int": "int32_t"}
    for f in ports.FUNCTIONS:
        want = [(ctype[a.kind], a.name) for a in f.args] + [("int32_t", "device"), ("uint64_t", "stream")]
        assert protos[f.name] == want, f.name


def test_every_wrapper_takes_the_registry_arguments():
    import inspect
    for f in ports.FUNCTIONS:
        params = list(inspect.signature(getattr(ports, f.wrapper)).parameters)
        assert params[:len(f.args)] == [a.name for a in f.args], f.wrapper
        assert {"stream", "library"} <= set(params), f.wrapper


@pytest.mark.skipif(driver_present(), reason="a CUDA driver is installed here")
def test_valid_calls_stop_at_driver_unavailable(lib):
    assert vadd(lib, t(1, "float32", [10]), t(2, "float32", [10]), t(3, "float32", [10])) == Status.DRIVER_UNAVAILABLE
    assert "libcuda.so.1" in message(lib)


def test_without_cubins_valid_calls_stop_at_kernel_image_missing(library_without_cubins):
    lib = ports.load_library(library_without_cubins)
    assert lib.tileir_kernels_has_kernel_image(b"vector_add", b"f16_t1024") == 0
    assert vadd(lib, t(1, "float16", [10]), t(2, "float16", [10]), t(3, "float16", [10])) \
        == Status.KERNEL_IMAGE_MISSING
    assert "vector_add/f16_t1024" in message(lib)
    # Validation still comes first.
    assert vadd(lib, t(1, "float16", [10]), t(2, "float16", [11]), t(3, "float16", [10])) == Status.SHAPE_MISMATCH


class FakeDevice:
    type = "cpu"
    index = None


def rope(lib, positions, q, k, cos, sin, q_out, k_out, is_neox=1, device=0):
    args = [v and ctypes.byref(v) for v in (positions, q, k, cos, sin, q_out, k_out)]
    return Status(lib.cutile_rope(*args, is_neox, device, 0))


def test_rope_rejections(lib):
    T, Hq, Hkv, D, P = 77, 12, 4, 128, 1000

    def call(positions=None, q=None, k=None, cos=None, sin=None, q_out=None, k_out=None, dtype="bfloat16", **kw):
        arrays = [positions or t(1, "int32", [T]), q or t(2, dtype, [T, Hq, D]), k or t(3, dtype, [T, Hkv, D]),
                  cos or t(4, "float32", [P, D // 2]), sin or t(5, "float32", [P, D // 2]),
                  q_out or t(6, dtype, [T, Hq, D]), k_out or t(7, dtype, [T, Hkv, D])]
        return rope(lib, *arrays, **kw)

    assert call() in PAST_VALIDATION, message(lib)
    assert lib.tileir_kernels_selected_variant().decode() == "bf16_neox_d128_split_bt2_th8_o8"
    assert call(is_neox=0) in PAST_VALIDATION and \
        lib.tileir_kernels_selected_variant().decode() == "bf16_gptj_d128_a8_bt4_th2_o8"
    # q and k as views of a fused (T, Hq + 2 Hkv, D) QKV buffer (the GPU test's noncontiguous case),
    # q_out exactly q (in place) with separate q, k buffers.
    fused = [(Hq + 2 * Hkv) * D, D, 1]
    q_view, k_view = t(2, "bfloat16", [T, Hq, D], fused), t(2, "bfloat16", [T, Hkv, D], fused, offset=Hq * D * 2)
    assert call(q=q_view, k=k_view) in PAST_VALIDATION, message(lib)
    assert call(q_out=t(2, "bfloat16", [T, Hq, D]), k_out=t(3, "bfloat16", [T, Hkv, D])) in PAST_VALIDATION
    # Overlap is judged by byte range: in place on views of one fused buffer is refused (q_out's
    # range spans k's rows), never guessed safe.
    assert call(q=q_view, k=k_view, q_out=t(2, "bfloat16", [T, Hq, D], fused)) == Status.INVALID_ARGUMENT
    assert "q_out overlaps input k" in message(lib)
    assert rope(lib, None, *[t(i, "bfloat16", [T, Hq, D]) for i in (2, 3)], t(4, "float32", [P, 64]),
                t(5, "float32", [P, 64]), t(6, "bfloat16", [T, Hq, D]), t(7, "bfloat16", [T, Hq, D])) \
        == Status.NULL_POINTER
    # dtype
    assert call(positions=t(1, "int64", [T])) == Status.UNSUPPORTED_DTYPE
    assert call(dtype="float32") == Status.UNSUPPORTED_DTYPE
    assert call(k=t(3, "float16", [T, Hkv, D])) == Status.UNSUPPORTED_DTYPE
    assert call(cos=t(4, "bfloat16", [P, 64]), sin=t(5, "bfloat16", [P, 64])) == Status.UNSUPPORTED_DTYPE
    assert call(dtype="float16") == Status.NO_VARIANT  # f16 is built for D = 64 only
    assert "head dim 128" in message(lib)
    # rank and shape
    assert call(q=t(2, "bfloat16", [T, Hq * D])) == Status.BAD_RANK
    assert call(positions=t(1, "int32", [T, 1])) == Status.BAD_RANK
    assert call(k=t(3, "bfloat16", [T + 1, Hkv, D])) == Status.SHAPE_MISMATCH
    assert call(positions=t(1, "int32", [T - 1])) == Status.SHAPE_MISMATCH
    assert call(q_out=t(6, "bfloat16", [T, Hq - 1, D])) == Status.SHAPE_MISMATCH
    assert call(cos=t(4, "float32", [P, 65]), sin=t(5, "float32", [P, 65])) == Status.SHAPE_MISMATCH
    assert call(sin=t(5, "float32", [P + 1, 64])) == Status.SHAPE_MISMATCH
    # strides and alignment
    assert call(q=t(2, "bfloat16", [T, Hq, D], [Hq * 130, 130, 1])) == Status.BAD_STRIDE  # head stride % 8
    assert call(q=t(2, "bfloat16", [T, Hq, D], [Hq * D * 2, D * 2, 2])) == Status.BAD_STRIDE  # non-unit last
    assert call(cos=t(4, "float32", [P, 64], [66, 1])) == Status.BAD_STRIDE  # row stride % 4
    assert call(k_out=t(7, "bfloat16", [T, Hkv, D], [0, D, 1])) == Status.BAD_STRIDE  # tokens collide
    assert call(q=t(2, "bfloat16", [T, Hq, D], offset=2)) == Status.MISALIGNED
    assert call(positions=t(1, "int32", [T], offset=4)) == Status.MISALIGNED
    # overlap: an output over another input or output, or partly over its own input
    assert call(q_out=t(3, "bfloat16", [T, Hq, D])) == Status.INVALID_ARGUMENT  # over k
    assert call(k_out=t(6, "bfloat16", [T, Hkv, D])) == Status.INVALID_ARGUMENT  # over q_out
    assert call(q_out=t(4, "bfloat16", [T, Hq, D])) == Status.INVALID_ARGUMENT  # over cos_table
    assert call(q_out=t(2, "bfloat16", [T, Hq, D], offset=256)) == Status.INVALID_ARGUMENT  # shifted in-place
    # flag and device
    assert call(is_neox=2) == Status.INVALID_ARGUMENT
    assert call(device=-1) == Status.INVALID_DEVICE
    # empty: no driver
    e = [t(0, d, s) for d, s in (("int32", [0]), ("bfloat16", [0, Hq, D]), ("bfloat16", [0, Hkv, D]))]
    tables = [t(4, "float32", [P, 64]), t(5, "float32", [P, 64])]
    assert rope(lib, *e, *tables, t(0, "bfloat16", [0, Hq, D]), t(0, "bfloat16", [0, Hkv, D])) == Status.OK


def test_forced_rope_variant_must_compute_the_pairing_asked_for(lib):
    T, H, D, P = 9, 2, 128, 16
    arrays = [t(1, "int32", [T]), t(2, "bfloat16", [T, H, D]), t(3, "bfloat16", [T, H, D]), t(4, "float32", [P, 64]),
              t(5, "float32", [P, 64]), t(6, "bfloat16", [T, H, D]), t(7, "bfloat16", [T, H, D])]
    assert lib.tileir_kernels_force_variant(b"rope", b"bf16_gptj_d128") == Status.OK
    try:
        assert rope(lib, *arrays, is_neox=1) == Status.INVALID_ARGUMENT
        assert "is_neox = 0" in message(lib)
        assert rope(lib, *arrays, is_neox=0) in PAST_VALIDATION
    finally:
        lib.tileir_kernels_force_variant(b"rope", None)
    # the tuned rotate-half kernel has no IS_NEOX constant: its pairing is rotate-half
    assert lib.tileir_kernels_force_variant(b"rope", b"bf16_neox_d128_split") == Status.OK
    try:
        assert rope(lib, *arrays, is_neox=0) == Status.INVALID_ARGUMENT
        assert "is_neox = 1" in message(lib)
        assert rope(lib, *arrays, is_neox=1) in PAST_VALIDATION
        assert lib.tileir_kernels_selected_variant().decode() == "bf16_neox_d128_split"
    finally:
        lib.tileir_kernels_force_variant(b"rope", None)
    # unforced, the launcher takes the tuned variant (reference/rope/kernel.py select_variant)
    assert rope(lib, *arrays, is_neox=1) in PAST_VALIDATION
    assert lib.tileir_kernels_selected_variant().decode() == "bf16_neox_d128_split_bt2_th8_o8"
    assert rope(lib, *arrays, is_neox=0) in PAST_VALIDATION
    assert lib.tileir_kernels_selected_variant().decode() == "bf16_gptj_d128_a8_bt4_th2_o8"


class FakeTensor:
    """What the wrapper reads from a torch tensor, without torch."""

    def __init__(self, i, dtype, shape, strides=None, offset=0):
        d = t(i, dtype.replace("torch.", ""), list(shape), strides, offset)
        self._ptr, self.shape, self.dtype = d.data, tuple(shape), dtype
        self._strides = tuple(d.strides[: len(shape)]) if len(shape) <= 5 else tuple(strides)
        self.device = FakeDevice()

    def data_ptr(self):
        return self._ptr

    def stride(self):
        return self._strides


@pytest.mark.parametrize("call, error, also", [
    (lambda L: ports.vector_add(FakeTensor(1, "torch.float16", [8]), FakeTensor(2, "torch.float16", [9]),
                                FakeTensor(3, "torch.float16", [8]), library=L), ports.ShapeMismatchError, ValueError),
    (lambda L: ports.vector_add(FakeTensor(1, "torch.float16", [8], [2]), FakeTensor(2, "torch.float16", [8]),
                                FakeTensor(3, "torch.float16", [8]), library=L), ports.BadStrideError, ValueError),
    (lambda L: ports.softmax(FakeTensor(1, "torch.float16", [4, 8]), FakeTensor(2, "torch.float32", [4, 8]),
                             library=L), ports.UnsupportedDtypeError, TypeError),
    (lambda L: ports.softmax(FakeTensor(1, "torch.bool", [4, 8]), FakeTensor(2, "torch.bool", [4, 8]),
                             library=L), ports.UnsupportedDtypeError, TypeError),
    (lambda L: ports.rms_norm(FakeTensor(1, "torch.float16", [4, 8]), FakeTensor(2, "torch.float16", [8]),
                              FakeTensor(3, "torch.float16", [4, 8]), FakeTensor(4, "torch.float32", [4]),
                              eps=float("nan"), library=L), ports.InvalidArgumentError, ValueError),
    (lambda L: ports.matmul(FakeTensor(1, "torch.float16", [64, 64]), FakeTensor(2, "torch.float16", [64, 64]),
                            FakeTensor(3, "torch.float16", [64, 64]), trans_a=True, trans_b=True, library=L),
     ports.NoVariantError, ValueError),
    # offset 8 would take the unaligned f16 fallback; an odd address fits no variant.
    (lambda L: ports.matmul(FakeTensor(1, "torch.float16", [64, 64], offset=1),
                            FakeTensor(2, "torch.float16", [64, 64]), FakeTensor(3, "torch.float16", [64, 64]),
                            library=L), ports.MisalignedError, ValueError),
    (lambda L: ports.vector_add(*(FakeTensor(i, "torch.float32", [1] * 6, [1] * 6) for i in (1, 2, 3)), library=L),
     ports.BadRankError, ValueError),
    (lambda L: ports.matmul_fp8(FakeTensor(1, "torch.float8_e4m3fn", [64, 64]),
                                FakeTensor(2, "torch.float8_e4m3fn", [64, 64]), FakeTensor(3, "torch.float16", [64, 64]),
                                1.0, float("nan"), library=L), ports.InvalidArgumentError, ValueError),
    (lambda L: ports.rms_norm_bwd(*(FakeTensor(i, "torch.float16", [8, 8]) for i in (1, 2)),
                                  FakeTensor(3, "torch.float16", [8]), FakeTensor(4, "torch.float32", [8]),
                                  FakeTensor(5, "torch.float16", [8, 8]), FakeTensor(6, "torch.float32", [2, 8]),
                                  library=L), ports.ShapeMismatchError, ValueError),
    (lambda L: ports.silu_and_mul(FakeTensor(1, "torch.float16", [4, 17]), FakeTensor(2, "torch.float16", [4, 8]),
                                  library=L), ports.ShapeMismatchError, ValueError),
    (lambda L: ports.silu_and_mul(FakeTensor(1, "torch.float16", [4, 16]), FakeTensor(1, "torch.float16", [4, 8]),
                                  library=L), ports.InvalidArgumentError, ValueError),
    (lambda L: ports.swiglu(FakeTensor(1, "torch.float32", [4, 8]), FakeTensor(2, "torch.float32", [4, 8]),
                            FakeTensor(3, "torch.float32", [4, 8], offset=2), library=L), ports.MisalignedError,
     ValueError),
    (lambda L: ports.swiglu_bwd(*(FakeTensor(i, "torch.bfloat16", [4, 8]) for i in (1, 2, 3, 4, 4)), library=L),
     ports.InvalidArgumentError, ValueError),
    (lambda L: ports.gelu(FakeTensor(1, "torch.float16", [4, 8], [1, 4]), FakeTensor(2, "torch.float16", [4, 8]),
                          approximate="tanh", library=L), ports.BadStrideError, ValueError),
    (lambda L: ports.dropout(FakeTensor(1, "torch.float16", [8]), FakeTensor(2, "torch.float16", [8]), 3, 1.5,
                             library=L), ports.InvalidArgumentError, ValueError),
    (lambda L: ports.dropout(FakeTensor(1, "torch.bfloat16", [8]), FakeTensor(2, "torch.float16", [8]), 3, 0.5,
                             library=L), ports.UnsupportedDtypeError, TypeError),
    (lambda L: ports.rope(FakeTensor(1, "torch.int32", [4]), *(FakeTensor(i, "torch.float16", [4, 2, 128]) for i in (2, 3)),
                          *(FakeTensor(i, "torch.float32", [16, 64]) for i in (4, 5)),
                          *(FakeTensor(i, "torch.float16", [4, 2, 128]) for i in (6, 7)), library=L),
     ports.NoVariantError, ValueError),
    (lambda L: ports.flash_attention(*(FakeTensor(i, "torch.float16", [1, 2, 64, 64]) for i in (1, 2, 3, 4)),
                                     float("inf"), library=L), ports.InvalidArgumentError, ValueError),
    (lambda L: ports.flash_attention(*(FakeTensor(i, "torch.bfloat16", [1, 2, 64, 64]) for i in (1, 2, 3, 4)), 0.125,
                                     causal=True, library=L), ports.NoVariantError, ValueError),
    (lambda L: ports.attention_sink(*(FakeTensor(i, "torch.bfloat16", [1, 8, 64, 64]) for i in (1, 2, 3)),
                                    FakeTensor(4, "torch.float16", [8]), FakeTensor(5, "torch.bfloat16", [1, 8, 64, 64]),
                                    0.125, 128, library=L), ports.UnsupportedDtypeError, TypeError),
])
def test_wrapper_raises_the_exception_of_the_code(ports_library, call, error, also):
    with pytest.raises(error) as info:
        call(ports_library)
    assert isinstance(info.value, also) and isinstance(info.value, ports.PortError)
    assert info.value.status == error.status
    assert str(info.value)


@pytest.mark.skipif(driver_present(), reason="a CUDA driver is installed here")
def test_wrapper_maps_driver_unavailable(ports_library):
    with pytest.raises(ports.DriverUnavailableError) as info:
        ports.matmul(*(FakeTensor(i, "torch.float16", [64, 64]) for i in (1, 2, 3)), library=ports_library)
    assert info.value.code == -13 and not isinstance(info.value, ValueError)


def test_gelu_wrapper_takes_torch_spellings(ports_library):
    with pytest.raises(ValueError, match="approximate"):
        ports.gelu(FakeTensor(1, "torch.float16", [4, 8]), FakeTensor(2, "torch.float16", [4, 8]), approximate="erf",
                   library=ports_library)


@pytest.mark.skipif(driver_present(), reason="a CUDA driver is installed here")
@pytest.mark.parametrize("call", [
    lambda L: ports.silu_and_mul(FakeTensor(1, "torch.float16", [4, 16]), FakeTensor(2, "torch.float16", [4, 8]),
                                 library=L),
    lambda L: ports.silu_and_mul(FakeTensor(1, "torch.float32", [4, 2, 8]), FakeTensor(2, "torch.float32", [4, 8]),
                                 library=L),
    lambda L: ports.swiglu(*(FakeTensor(i, "torch.bfloat16", [4, 8]) for i in (1, 2, 3)), library=L),
    lambda L: ports.swiglu_bwd(*(FakeTensor(i, "torch.float32", [4, 8]) for i in (1, 2, 3, 4, 5)), library=L),
    lambda L: ports.gelu(FakeTensor(1, "torch.float16", [4, 8]), FakeTensor(2, "torch.float16", [4, 8]),
                         approximate="none", library=L),
    lambda L: ports.gelu(FakeTensor(1, "torch.float16", [4, 8]), FakeTensor(2, "torch.float16", [4, 8]),
                         approximate=True, library=L),
    # A seed beyond int32 counts by its low 32 bits (as ref.py masks it); a negative one too.
    lambda L: ports.dropout(FakeTensor(1, "torch.float32", [8], [3]), FakeTensor(2, "torch.float32", [8]), 2**40 + 5,
                            0.25, library=L),
    lambda L: ports.dropout(FakeTensor(1, "torch.float16", [8]), FakeTensor(2, "torch.float16", [8]), -7, 0.0,
                            library=L),
    lambda L: ports.rope(FakeTensor(1, "torch.int32", [4]), *(FakeTensor(i, "torch.bfloat16", [4, 2, 128]) for i in (2, 3)),
                         *(FakeTensor(i, "torch.float32", [16, 64]) for i in (4, 5)),
                         *(FakeTensor(i, "torch.bfloat16", [4, 2, 128]) for i in (6, 7)), is_neox=False, library=L),
    lambda L: ports.flash_attention(FakeTensor(1, "torch.bfloat16", [2, 8, 100, 128]),
                                    *(FakeTensor(i, "torch.bfloat16", [2, 1, 300, 128]) for i in (2, 3)),
                                    FakeTensor(4, "torch.bfloat16", [2, 8, 100, 128]), 0.088, library=L),
    lambda L: ports.attention_sink(*(FakeTensor(i, "torch.float16", [1, 2, 200, 128]) for i in (1, 2, 3)),
                                   FakeTensor(4, "torch.float32", [2]), FakeTensor(5, "torch.float16", [1, 2, 200, 128]),
                                   0.088, window=256, library=L),
], ids=["silu_2d", "silu_3d", "swiglu", "swiglu_bwd", "gelu_none", "gelu_true", "dropout_big_seed", "dropout_neg",
        "rope_gptj", "flash_attention_gqa8", "attention_sink_window256"])
def test_new_wrappers_pass_validation_and_stop_at_the_driver(ports_library, call):
    with pytest.raises(ports.DriverUnavailableError):
        call(ports_library)


def test_unknown_code_becomes_port_error(lib):
    with pytest.raises(ports.PortError) as info:
        ports.check(lib, -99)
    assert info.value.code == -99 and info.value.status is None


def test_wrapper_does_not_import_torch_for_host_tensors(ports_library):
    code = f"""
import sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
from tests.rust.test_abi import FakeTensor
from tileir_diff import ports
try:
    ports.vector_add(*(FakeTensor(i, "torch.float32", [4]) for i in (1, 2, 3)), library={str(ports_library)!r})
except ports.PortError:
    pass
assert "torch" not in sys.modules, "torch imported"
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_missing_library_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEIR_KERNELS_LIB", str(tmp_path / "nope.so"))
    with pytest.raises(ports.LibraryNotFoundError, match="nope.so"):
        ports.load_library()


# transpose, fp8_quantize, layer_norm: each tensor's dims from an analysis.json test shape, as
# ref.make_inputs builds them (the args of the registry row, in order).
def _transpose_dims(name, shape, variant):
    dims = ([shape["B"]] if "B" in shape else []) + [shape["M"], shape["N"]]
    return dims if name == "x" else dims[:-2] + [dims[-1], dims[-2]]


def _fp8_quantize_dims(name, shape, variant):
    return [shape["M"]] if name == "scales" else [shape["M"], shape["N"]]


def _layer_norm_dims(name, shape, variant):
    m, n = shape["M"], shape["N"]
    if name in ("w", "b"):
        return [n]
    if name in ("mean", "rstd"):
        return [m]
    if name in ("dw_partial", "db_partial"):
        c = variant["constants"]
        return [-(-m // (c["TILE_M"] * c["ROW_TILES"])), n]
    return [m, n]


def _group_gemm_dims(name, shape, variant):
    T, G, K, N = shape["T"], shape["G"], shape["K"], shape["N"]
    return {"a": [T, K], "w": [G, N, K] if variant["constants"]["TRANS_W"] else [G, K, N], "offsets": [G + 1],
            "c": [T, N]}[name]


def _fused_moe_dims(name, shape, variant):
    T, E, K, N, rows = shape["T"], shape["E"], shape["K"], shape["N"], shape["T"] * variant["constants"]["TOPK"]
    return {"hidden": [T, K], "w": [E, N, K], "sorted_token_ids": [shape["EM"]], "expert_ids": [shape["NB"]],
            "num_tokens_post_padded": [1], "topk_weights": [rows], "out": [rows, N]}[name]


REFERENCE_DIMS = {"transpose": _transpose_dims, "fp8_quantize": _fp8_quantize_dims, "layer_norm": _layer_norm_dims,
                  "group_gemm": _group_gemm_dims, "fused_moe": _fused_moe_dims}


def _reference_args_from_dims(op, variant, shape):
    nc = set(shape.get("noncontiguous", []))
    f = ports.function_for(op, variant["kernel"])
    scalars = {p["name"]: p.get("value") for p in variant["params"] if p["kind"] == "scalar"}
    args = []
    for i, a in enumerate(f.args, 1):
        if a.kind == "tensor":
            dims = REFERENCE_DIMS[op](a.name, shape, variant)
            args.append(_reference_layout(i, variant["dtypes"][a.name], dims, a.name in nc))
        elif a.kind in ("flag", "int"):
            args.append(variant["constants"][a.constant_name])
        else:
            args.append(scalars[a.name])
    return args


@pytest.mark.parametrize("op", sorted(REFERENCE_DIMS))
def test_every_reference_test_shape_fits_its_forced_variant_by_dims(lib, ports_library, op):
    """As test_every_reference_test_shape_fits_its_forced_variant, for the ops whose tensors
    have different shapes (transposed, per row, per block); unforced, the library also takes
    every one of them (which variant it takes: test_fake_driver.py)."""
    assert_every_reference_test_shape_fits(lib, ports_library, op, _reference_args_from_dims, unforced=True)


def test_transpose_rejections(lib):
    m, n = 328, 200
    x, y = t(1, "float16", [m, n]), t(2, "float16", [n, m])

    def tr(x, y, **kw):
        return call(lib, "cutile_transpose", x, y, **kw)

    assert tr(x, y) in PAST_VALIDATION, message(lib)
    assert tr(t(1, "bfloat16", [3, m, n]), t(2, "bfloat16", [3, n, m])) in PAST_VALIDATION, message(lib)
    assert tr(t(1, "float32", [m, n]), t(2, "float32", [n, m])) in PAST_VALIDATION, message(lib)
    assert tr(None, y) == Status.NULL_POINTER
    assert tr(t(1, "float16", [m * n]), y) == Status.BAD_RANK
    assert tr(x, t(2, "float16", [1, n, m])) == Status.BAD_RANK
    assert tr(x, t(2, "float16", [m, n])) == Status.SHAPE_MISMATCH  # not transposed
    assert "last two axes swapped" in message(lib)
    assert tr(x, t(2, "bfloat16", [n, m])) == Status.UNSUPPORTED_DTYPE
    assert tr(t(1, "float16", [2, m, n]), t(2, "float16", [2, n, m])) == Status.UNSUPPORTED_DTYPE  # no f16 batched
    assert tr(t(1, "float16", [m, n], [1, m]), y) == Status.BAD_STRIDE  # column-major x
    assert tr(t(1, "float16", [m, n], [n + 4, 1]), y) == Status.BAD_STRIDE  # row stride not 16-byte
    assert tr(x, t(2, "float16", [n, m], [0, 1])) == Status.BAD_STRIDE  # y overlaps itself
    assert tr(x, t(2, "float16", [n, m], offset=2)) == Status.MISALIGNED
    assert tr(x, t(1, "float16", [n, m])) == Status.INVALID_ARGUMENT  # y on top of x
    assert tr(x, t(1, "float16", [n, m], offset=64 * 2)) == Status.INVALID_ARGUMENT  # y overlaps x
    assert tr(x, y, device=-1) == Status.INVALID_DEVICE
    assert tr(t(1, "bfloat16", [65536, 8, 8]), t(2, "bfloat16", [65536, 8, 8])) == Status.UNSUPPORTED_SHAPE
    assert tr(t(1, "float16", [2**31, 8]), t(2, "float16", [8, 2**31])) == Status.INVALID_SHAPE


def test_fp8_quantize_rejections(lib):
    m, n = 77, 1008
    x, q, s = t(1, "float16", [m, n]), t(2, "float8_e4m3fn", [m, n]), t(3, "float32", [m])

    def quant(x, q, s, **kw):
        return call(lib, "cutile_fp8_quantize", x, q, s, **kw)

    assert quant(x, q, s) in PAST_VALIDATION, message(lib)
    assert quant(t(1, "bfloat16", [3, 14336]), t(2, "float8_e4m3fn", [3, 14336]), t(3, "float32", [3])) \
        in PAST_VALIDATION, message(lib)  # bf16 rows of any length
    assert quant(x, None, s) == Status.NULL_POINTER
    assert quant(x, q, t(3, "float32", [m, 1])) == Status.BAD_RANK
    assert quant(x, q, t(3, "float32", [m + 1])) == Status.SHAPE_MISMATCH
    assert quant(x, t(2, "float8_e5m2", [m, n]), s) == Status.UNSUPPORTED_DTYPE
    assert quant(x, q, t(3, "float16", [m])) == Status.UNSUPPORTED_DTYPE
    assert quant(t(1, "float32", [m, n]), q, s) == Status.UNSUPPORTED_DTYPE
    assert quant(t(1, "float16", [m, 1032]), t(2, "float8_e4m3fn", [m, 1032]), s) == Status.UNSUPPORTED_SHAPE
    assert "1024" in message(lib)
    assert quant(t(1, "float16", [m, 1001], [1008, 1]), t(2, "float8_e4m3fn", [m, 1001]), s) == Status.BAD_STRIDE
    assert quant(t(1, "float16", [m, n], [1, m]), q, s) == Status.BAD_STRIDE
    assert quant(x, q, t(3, "float32", [m], [2])) == Status.BAD_STRIDE
    assert quant(x, t(2, "float8_e4m3fn", [m, n], [0, 1]), s) == Status.BAD_STRIDE  # q overlaps itself
    assert quant(t(1, "float16", [m, n], offset=8), q, s) == Status.MISALIGNED
    assert quant(x, q, t(3, "float32", [m], offset=4)) == Status.MISALIGNED
    assert quant(x, t(1, "float8_e4m3fn", [m, n]), s) == Status.INVALID_ARGUMENT  # q on x
    assert quant(x, q, t(2, "float32", [m], offset=1024)) == Status.INVALID_ARGUMENT  # scales inside q
    assert quant(x, q, s, device=-1) == Status.INVALID_DEVICE
    assert quant(t(1, "float16", [m, 0]), t(2, "float8_e4m3fn", [m, 0]), s) == Status.UNSUPPORTED_SHAPE
    assert quant(t(1, "float16", [m, -1]), q, s) == Status.INVALID_SHAPE


def test_fp8_quantize_forced_single_tile_variant_never_truncates(lib, ports_library):
    args = (t(1, "bfloat16", [8, 4112]), t(2, "float8_e4m3fn", [8, 4112]), t(3, "float32", [8]))
    with ports.force_variant("fp8_quantize", "bf16_rows_m4_n4096", library=ports_library):
        assert call(lib, "cutile_fp8_quantize", *args) == Status.UNSUPPORTED_SHAPE
        assert "exceed its tile of 4096" in message(lib)
    with ports.force_variant("fp8_quantize", "bf16_looped_m1_n2048", library=ports_library):
        assert call(lib, "cutile_fp8_quantize", *args) in PAST_VALIDATION, message(lib)


def test_layer_norm_rejections(lib):
    m, n = 33, 333
    x, w, b = t(1, "float32", [m, n]), t(2, "float32", [n]), t(3, "float32", [n])
    out, mean, rstd = t(4, "float32", [m, n]), t(5, "float32", [m]), t(6, "float32", [m])

    def fwd(*args, eps=1e-5, **kw):
        return call(lib, "cutile_layer_norm", *args, eps, **kw)

    assert fwd(x, w, b, out, mean, rstd) in PAST_VALIDATION, message(lib)
    assert fwd(x, w, b, t(1, "float32", [m, n]), mean, rstd) in PAST_VALIDATION, message(lib)  # in place
    assert fwd(x, w, None, out, mean, rstd) == Status.NULL_POINTER
    assert fwd(x, w, b, out, t(5, "float32", [m, 1]), rstd) == Status.BAD_RANK
    assert fwd(x, w, t(3, "float32", [n - 1]), out, mean, rstd) == Status.SHAPE_MISMATCH
    assert fwd(x, w, b, out, mean, t(6, "float16", [m])) == Status.UNSUPPORTED_DTYPE
    assert fwd(x, t(2, "float16", [n]), b, out, mean, rstd) == Status.UNSUPPORTED_DTYPE
    assert fwd(*(t(i, "float64", [m, n] if i in (1, 4) else [n]) for i in (1, 2, 3, 4)), mean, rstd) \
        == Status.UNSUPPORTED_DTYPE
    for eps in (float("nan"), -1.0, float("inf")):
        assert fwd(x, w, b, out, mean, rstd, eps=eps) == Status.INVALID_ARGUMENT
    assert fwd(t(1, "float32", [m, n], [1, m]), w, b, out, mean, rstd) == Status.BAD_STRIDE
    assert fwd(x, w, b, t(4, "float32", [m, n], [0, 1]), mean, rstd) == Status.BAD_STRIDE  # out overlaps itself
    assert fwd(x, w, b, out, mean, t(6, "float32", [m], offset=4)) == Status.MISALIGNED
    assert fwd(x, w, b, t(1, "float32", [m, n], offset=16), mean, rstd) == Status.INVALID_ARGUMENT
    assert fwd(x, w, b, out, t(2, "float32", [m]), rstd) == Status.INVALID_ARGUMENT  # mean on w
    assert fwd(x, w, b, out, mean, rstd, device=-1) == Status.INVALID_DEVICE
    assert fwd(t(1, "float32", [m, 8200]), t(2, "float32", [8200]), t(3, "float32", [8200]), t(4, "float32", [m, 8200]),
               mean, rstd) == Status.UNSUPPORTED_SHAPE
    assert fwd(t(1, "float32", [m, 0]), t(2, "float32", [0]), t(3, "float32", [0]), t(4, "float32", [m, 0]),
               mean, rstd) == Status.UNSUPPORTED_SHAPE

    dy, dx = t(7, "float32", [m, n]), t(8, "float32", [m, n])
    dw, db = t(9, "float32", [1, n]), t(10, "float32", [1, n])

    def bwd(*args, **kw):
        return call(lib, "cutile_layer_norm_bwd", *args, **kw)

    assert bwd(dy, x, w, mean, rstd, dx, dw, db) in PAST_VALIDATION, message(lib)
    assert bwd(dy, x, w, mean, rstd, dx, None, db) == Status.NULL_POINTER
    assert bwd(dy, x, w, mean, rstd, dx, t(9, "float32", [n]), db) == Status.BAD_RANK
    assert bwd(dy, x, w, mean, rstd, dx, dw, t(10, "float32", [2, n])) == Status.SHAPE_MISMATCH
    assert "ceil(M/64)" in message(lib)
    assert bwd(dy, x, w, mean, rstd, t(8, "float16", [m, n]), dw, db) == Status.UNSUPPORTED_DTYPE
    assert bwd(dy, x, w, mean, rstd, dx, dw, t(10, "float16", [1, n])) == Status.UNSUPPORTED_DTYPE
    assert bwd(t(7, "float32", [m, n], [1, m]), x, w, mean, rstd, dx, dw, db) == Status.BAD_STRIDE
    assert bwd(dy, x, w, mean, rstd, dx, dw, t(10, "float32", [1, n], offset=4)) == Status.MISALIGNED
    assert bwd(dy, x, w, mean, rstd, t(7, "float32", [m, n]), dw, db) == Status.INVALID_ARGUMENT  # dx on dy
    assert bwd(dy, x, w, mean, rstd, dx, dw, t(9, "float32", [1, n])) == Status.INVALID_ARGUMENT  # db on dw
    assert bwd(dy, x, w, mean, rstd, dx, t(6, "float32", [1, n]), db) == Status.INVALID_ARGUMENT  # dw on rstd
    assert bwd(dy, x, w, mean, rstd, dx, dw, db, device=-1) == Status.INVALID_DEVICE
    wide = [t(i, "float32", [m, 1032]) for i in (7, 1)]
    assert bwd(*wide, t(2, "float32", [1032]), mean, rstd, t(8, "float32", [m, 1032]), t(9, "float32", [1, 1032]),
               t(10, "float32", [1, 1032])) == Status.UNSUPPORTED_SHAPE


@pytest.mark.parametrize("call, error, also", [
    (lambda L: ports.transpose(FakeTensor(1, "torch.float16", [64, 32]), FakeTensor(2, "torch.float16", [64, 32]),
                               library=L), ports.ShapeMismatchError, ValueError),
    (lambda L: ports.transpose(FakeTensor(1, "torch.float32", [2, 64, 32]), FakeTensor(2, "torch.float32", [2, 32, 64]),
                               library=L), ports.UnsupportedDtypeError, TypeError),
    (lambda L: ports.fp8_quantize(FakeTensor(1, "torch.bfloat16", [4, 64]), FakeTensor(2, "torch.float8_e4m3fn", [4, 64]),
                                  FakeTensor(3, "torch.float32", [5]), library=L), ports.ShapeMismatchError, ValueError),
    (lambda L: ports.fp8_quantize(FakeTensor(1, "torch.float16", [4, 64]), FakeTensor(2, "torch.float16", [4, 64]),
                                  FakeTensor(3, "torch.float32", [4]), library=L), ports.UnsupportedDtypeError, TypeError),
    (lambda L: ports.layer_norm(FakeTensor(1, "torch.float16", [4, 64]), *(FakeTensor(i, "torch.float16", [64]) for i in (2, 3)),
                                FakeTensor(4, "torch.float16", [4, 64]), *(FakeTensor(i, "torch.float32", [4]) for i in (5, 6)),
                                eps=float("nan"), library=L), ports.InvalidArgumentError, ValueError),
    (lambda L: ports.layer_norm_bwd(*(FakeTensor(i, "torch.float16", [4, 64]) for i in (1, 2)),
                                    FakeTensor(3, "torch.float16", [64]), *(FakeTensor(i, "torch.float32", [4]) for i in (4, 5)),
                                    FakeTensor(6, "torch.float16", [4, 64]),
                                    *(FakeTensor(i, "torch.float32", [2, 64]) for i in (7, 8)), library=L),
     ports.ShapeMismatchError, ValueError),
])
def test_layout_norm_quant_wrappers_raise_the_exception_of_the_code(ports_library, call, error, also):
    test_wrapper_raises_the_exception_of_the_code(ports_library, call, error, also)


@pytest.mark.skipif(driver_present(), reason="a CUDA driver is installed here")
@pytest.mark.parametrize("call", [
    lambda L: ports.transpose(FakeTensor(1, "torch.bfloat16", [64, 32]), FakeTensor(2, "torch.bfloat16", [32, 64]),
                              library=L),
    lambda L: ports.transpose(FakeTensor(1, "torch.bfloat16", [3, 64, 32]), FakeTensor(2, "torch.bfloat16", [3, 32, 64]),
                              library=L),
    lambda L: ports.fp8_quantize(FakeTensor(1, "torch.bfloat16", [4, 64]), FakeTensor(2, "torch.float8_e4m3fn", [4, 64]),
                                 FakeTensor(3, "torch.float32", [4]), library=L),
    lambda L: ports.layer_norm(FakeTensor(1, "torch.bfloat16", [4, 64]), *(FakeTensor(i, "torch.bfloat16", [64]) for i in (2, 3)),
                               FakeTensor(4, "torch.bfloat16", [4, 64]), *(FakeTensor(i, "torch.float32", [4]) for i in (5, 6)),
                               library=L),
    lambda L: ports.layer_norm_bwd(*(FakeTensor(i, "torch.float32", [4, 64]) for i in (1, 2)),
                                   FakeTensor(3, "torch.float32", [64]), *(FakeTensor(i, "torch.float32", [4]) for i in (4, 5)),
                                   FakeTensor(6, "torch.float32", [4, 64]),
                                   *(FakeTensor(i, "torch.float32", [1, 64]) for i in (7, 8)), library=L),
], ids=["transpose_2d", "transpose_3d", "fp8_quantize", "layer_norm", "layer_norm_bwd"])
def test_layout_norm_quant_wrappers_pass_validation_and_stop_at_the_driver(ports_library, call):
    with pytest.raises(ports.DriverUnavailableError):
        call(ports_library)


def _attention_reference_args(op, variant, shape):
    """The C arguments ref.make_inputs gives for one analysis.json test shape: q, k, v
    (B, H, S, D), dense or (noncontiguous) the transpose(1, 2) of a (B, S, H, D) buffer; o
    dense; sinks (Hq,); sm_scale, then the causal flag or the window."""
    c, nc = variant["constants"], set(shape.get("noncontiguous", ()))
    dtype, d = variant["dtypes"]["q"], c["D"]
    sq, sk = (shape["Sq"], shape["Sk"]) if op == "flash_attention" else (shape["S"], shape["S"])

    def heads(i, name, h, s):
        if name in nc:
            return t(i, dtype, [shape["B"], h, s, d], [s * h * d, d, h * d, 1])
        return t(i, dtype, [shape["B"], h, s, d])

    q, k, v = heads(1, "q", shape["Hq"], sq), heads(2, "k", shape["Hkv"], sk), heads(3, "v", shape["Hkv"], sk)
    o = t(5, dtype, [shape["B"], shape["Hq"], sq, d])
    if op == "flash_attention":
        return [q, k, v, o, 1.0 / d ** 0.5, int(c["CAUSAL"])]
    return [q, k, v, t(4, "float32", [shape["Hq"]]), o, 1.0 / d ** 0.5, c["WINDOW"]]


@pytest.mark.parametrize("op", ["flash_attention", "attention_sink"])
def test_every_attention_test_shape_fits_its_forced_variant(lib, ports_library, op):
    """What test_gpu_ports.py launches for the attention ops (each variant forced on each of its
    test shapes, noncontiguous q, k, v included) gets past validation; unforced, the library
    takes every shape too (the tuned twin of the variant's combination)."""
    assert_every_reference_test_shape_fits(lib, ports_library, op, _attention_reference_args, unforced=True)


def test_flash_attention_rejections(lib, ports_library):
    B, Hq, Hkv, Sq, Sk, D = 2, 8, 2, 200, 300, 128

    def fa(q=None, k=None, v=None, o=None, sm_scale=0.088, causal=1, dtype="bfloat16", **kw):
        arrays = [q or t(1, dtype, [B, Hq, Sq, D]), k or t(2, dtype, [B, Hkv, Sk, D]), v or t(3, dtype, [B, Hkv, Sk, D]),
                  o or t(4, dtype, [B, Hq, Sq, D])]
        return call(lib, "cutile_flash_attention", *arrays, sm_scale, causal, **kw)

    def selected():
        return lib.tileir_kernels_selected_variant().decode()

    assert fa() in PAST_VALIDATION, message(lib)
    assert selected() == "bf16_d128_causal_gqa4_w8_bn128"
    assert fa(k=t(2, "bfloat16", [B, 1, Sk, D]), v=t(3, "bfloat16", [B, 1, Sk, D]), causal=0) in PAST_VALIDATION
    assert selected() == "bf16_d128_noncausal_gqa8_w8_bn128"
    f16 = [t(i, "float16", [3, 4, 77, 64]) for i in (1, 2, 3, 4)]
    assert call(lib, "cutile_flash_attention", *f16, 0.125, 1) in PAST_VALIDATION and selected() == "f16_d64_causal_o2"
    # a (B, S, H, D) buffer seen as (B, H, S, D): strides (S H D, D, H D, 1)
    assert fa(q=t(1, "bfloat16", [B, Hq, Sq, D], [Sq * Hq * D, D, Hq * D, 1])) in PAST_VALIDATION, message(lib)
    assert call(lib, "cutile_flash_attention", None, *[t(i, "bfloat16", [B, Hq, Sq, D]) for i in (2, 3, 4)], 0.1, 1) \
        == Status.NULL_POINTER
    # dtype
    assert fa(dtype="float32") == Status.UNSUPPORTED_DTYPE
    assert fa(v=t(3, "float16", [B, Hkv, Sk, D])) == Status.UNSUPPORTED_DTYPE
    assert fa(o=t(4, "float32", [B, Hq, Sq, D])) == Status.UNSUPPORTED_DTYPE
    # a combination no variant is built for: f16 with D = 128, bf16 non-causal MHA, GQA 2
    assert fa(dtype="float16") == Status.NO_VARIANT and "head dim 128" in message(lib)
    assert fa(k=t(2, "bfloat16", [B, Hq, Sk, D]), v=t(3, "bfloat16", [B, Hq, Sk, D]), causal=0) == Status.NO_VARIANT
    assert fa(k=t(2, "bfloat16", [B, 4, Sk, D]), v=t(3, "bfloat16", [B, 4, Sk, D])) == Status.NO_VARIANT
    assert "query group 2" in message(lib)
    # rank and shape
    assert fa(q=t(1, "bfloat16", [B * Hq, Sq, D])) == Status.BAD_RANK
    assert fa(o=t(4, "bfloat16", [1, B, Hq, Sq, D])) == Status.BAD_RANK
    assert fa(k=t(2, "bfloat16", [B + 1, Hkv, Sk, D])) == Status.SHAPE_MISMATCH
    assert fa(k=t(2, "bfloat16", [B, Hkv, Sk, 64])) == Status.SHAPE_MISMATCH
    assert fa(v=t(3, "bfloat16", [B, Hkv, Sk - 1, D])) == Status.SHAPE_MISMATCH
    assert fa(o=t(4, "bfloat16", [B, Hq, Sq + 1, D])) == Status.SHAPE_MISMATCH
    assert fa(k=t(2, "bfloat16", [B, 3, Sk, D]), v=t(3, "bfloat16", [B, 3, Sk, D])) == Status.SHAPE_MISMATCH  # 8 % 3
    assert fa(k=t(2, "bfloat16", [B, 0, Sk, D]), v=t(3, "bfloat16", [B, 0, Sk, D])) == Status.SHAPE_MISMATCH
    assert fa(k=t(2, "bfloat16", [B, Hkv, 0, D]), v=t(3, "bfloat16", [B, Hkv, 0, D])) == Status.UNSUPPORTED_SHAPE
    # strides and alignment
    assert fa(q=t(1, "bfloat16", [B, Hq, Sq, D], [Hq * Sq * 132, Sq * 132, 132, 1])) == Status.BAD_STRIDE  # 132 % 8
    assert fa(k=t(2, "bfloat16", [B, Hkv, Sk, D], [Hkv * Sk * D * 2, Sk * D * 2, D * 2, 2])) == Status.BAD_STRIDE
    assert fa(o=t(4, "bfloat16", [B, Hq, Sq, D], [Hq * Sq * D, Sq * D, 0, 1])) == Status.BAD_STRIDE  # rows collide
    assert fa(q=t(1, "bfloat16", [B, Hq, Sq, D], offset=8)) == Status.MISALIGNED
    assert fa(o=t(4, "bfloat16", [B, Hq, Sq, D], offset=2)) == Status.MISALIGNED
    # overlap: o over any input, also exactly in place over q (every block reads all of k and v)
    assert fa(o=t(1, "bfloat16", [B, Hq, Sq, D])) == Status.INVALID_ARGUMENT and "o overlaps input q" in message(lib)
    assert fa(o=t(2, "bfloat16", [B, Hq, Sq, D])) == Status.INVALID_ARGUMENT
    assert fa(o=t(3, "bfloat16", [B, Hq, Sq, D], offset=1024)) == Status.INVALID_ARGUMENT
    # scalars, flag and device
    assert fa(sm_scale=float("nan")) == Status.INVALID_ARGUMENT and "sm_scale" in message(lib)
    assert fa(sm_scale=float("-inf")) == Status.INVALID_ARGUMENT
    assert fa(causal=2) == Status.INVALID_ARGUMENT and "causal" in message(lib)
    assert fa(device=-1) == Status.INVALID_DEVICE
    # a grid.y (B * Hq) past the driver's 65535
    assert fa(q=t(1, "bfloat16", [1, 65536, 1, D]), k=t(2, "bfloat16", [1, 16384, 1, D]),
              v=t(3, "bfloat16", [1, 16384, 1, D]), o=t(4, "bfloat16", [1, 65536, 1, D])) == Status.UNSUPPORTED_SHAPE
    # a forced variant must compute what was asked: its head dim, query group and causal flag
    for name in ("bf16_d128_causal", "bf16_d128_causal_w8_bn128", "bf16_d128_noncausal_gqa8"):
        with ports.force_variant("flash_attention", name, library=ports_library):
            code, text = fa(), message(lib)
        assert code == Status.INVALID_ARGUMENT and name in text, (name, text)
    with ports.force_variant("flash_attention", "bf16_d128_causal_gqa4", library=ports_library):
        assert fa() in PAST_VALIDATION and selected() == "bf16_d128_causal_gqa4"
    with ports.force_variant("flash_attention", "f16_d64_causal", library=ports_library):
        assert fa() == Status.UNSUPPORTED_DTYPE  # the variant's own TensorSpec: f16
    # empty output: no driver
    e = [t(0, "bfloat16", [0, Hq, Sq, D]), t(0, "bfloat16", [0, Hkv, Sk, D]), t(0, "bfloat16", [0, Hkv, Sk, D]),
         t(0, "bfloat16", [0, Hq, Sq, D])]
    assert call(lib, "cutile_flash_attention", *e, 0.1, 1) == Status.OK
    assert fa(q=t(1, "bfloat16", [B, Hq, 0, D]), o=t(4, "bfloat16", [B, Hq, 0, D])) == Status.OK


def test_attention_sink_rejections(lib, ports_library):
    B, Hq, Hkv, S, D = 2, 16, 2, 333, 64

    def sink(q=None, k=None, v=None, sinks=None, o=None, sm_scale=0.125, window=128, dtype="bfloat16", **kw):
        arrays = [q or t(1, dtype, [B, Hq, S, D]), k or t(2, dtype, [B, Hkv, S, D]), v or t(3, dtype, [B, Hkv, S, D]),
                  sinks or t(4, "float32", [Hq]), o or t(5, dtype, [B, Hq, S, D])]
        return call(lib, "cutile_attention_sink", *arrays, sm_scale, window, **kw)

    def selected():
        return lib.tileir_kernels_selected_variant().decode()

    assert sink() in PAST_VALIDATION, message(lib)
    assert selected() == "bf16_d64_gqa8_window128"
    assert sink(window=0) in PAST_VALIDATION and selected() == "bf16_d64_gqa8_full"
    mha = [t(1, "float16", [1, 2, 200, 128], [200 * 2 * 128, 128, 2 * 128, 1])] + \
        [t(i, "float16", [1, 2, 200, 128]) for i in (2, 3)] + [t(4, "float32", [2]), t(5, "float16", [1, 2, 200, 128])]
    assert call(lib, "cutile_attention_sink", *mha, 0.088, 256) in PAST_VALIDATION, message(lib)
    assert selected() == "f16_d128_mha_window256"
    # dtype
    assert sink(sinks=t(4, "bfloat16", [Hq])) == Status.UNSUPPORTED_DTYPE and "sinks" in message(lib)
    assert sink(dtype="float32") == Status.UNSUPPORTED_DTYPE and "q: attention_sink takes" in message(lib)
    assert sink(k=t(2, "float16", [B, Hkv, S, D])) == Status.UNSUPPORTED_DTYPE
    # no variant: another window, head dim or group
    assert sink(window=64) == Status.NO_VARIANT and "window 64" in message(lib)
    assert sink(dtype="float16") == Status.NO_VARIANT
    assert sink(k=t(2, "bfloat16", [B, 4, S, D]), v=t(3, "bfloat16", [B, 4, S, D])) == Status.NO_VARIANT
    # rank and shape
    assert sink(sinks=t(4, "float32", [1, Hq])) == Status.BAD_RANK
    assert sink(q=t(1, "bfloat16", [Hq, S, D])) == Status.BAD_RANK
    assert sink(sinks=t(4, "float32", [Hq - 1])) == Status.SHAPE_MISMATCH
    assert sink(k=t(2, "bfloat16", [B, Hkv, S + 1, D]), v=t(3, "bfloat16", [B, Hkv, S + 1, D])) == Status.SHAPE_MISMATCH
    assert sink(o=t(5, "bfloat16", [B, Hq, S, D + 8])) == Status.SHAPE_MISMATCH
    # strides and alignment
    assert sink(sinks=t(4, "float32", [Hq], [2])) == Status.BAD_STRIDE
    assert sink(v=t(3, "bfloat16", [B, Hkv, S, D], [Hkv * S * 68, S * 68, 68, 1])) == Status.BAD_STRIDE
    assert sink(sinks=t(4, "float32", [Hq], offset=4)) == Status.MISALIGNED
    assert sink(k=t(2, "bfloat16", [B, Hkv, S, D], offset=2)) == Status.MISALIGNED
    # overlap, scalars, device
    assert sink(o=t(4, "bfloat16", [B, Hq, S, D])) == Status.INVALID_ARGUMENT and "o overlaps input sinks" in message(lib)
    assert sink(o=t(1, "bfloat16", [B, Hq, S, D])) == Status.INVALID_ARGUMENT
    assert sink(window=-1) == Status.INVALID_ARGUMENT and "window" in message(lib)
    assert sink(sm_scale=float("inf")) == Status.INVALID_ARGUMENT
    assert sink(device=-1) == Status.INVALID_DEVICE
    # a forced variant must have the call's window
    with ports.force_variant("attention_sink", "bf16_d64_gqa8_full", library=ports_library):
        code, text = sink(), message(lib)
    assert code == Status.INVALID_ARGUMENT and "WINDOW = 0" in text, text
    with ports.force_variant("attention_sink", "f16_d128_mha_window256", library=ports_library):
        assert sink(window=256) == Status.UNSUPPORTED_DTYPE
    # empty output: no driver
    assert sink(q=t(1, "bfloat16", [B, Hq, 0, D]), k=t(2, "bfloat16", [B, Hkv, 0, D]), v=t(3, "bfloat16", [B, Hkv, 0, D]),
                o=t(5, "bfloat16", [B, Hq, 0, D])) == Status.OK

def _bmm_reference_args(op, variant, shape):
    """The cutile_bmm arguments of reference/bmm/ref.py's make_inputs (no torch): a (B, M, K), or
    non-contiguous a view of an (M, B, K) buffer; b (B, K, N) or (B, N, K) with TRANS_B, or
    non-contiguous every other batch of a 2B buffer; c (B, M, N)."""
    nc = set(shape.get("noncontiguous", []))
    batch, m, n, k = shape["B"], shape["M"], shape["N"], shape["K"]
    trans_b = variant["constants"]["TRANS_B"]
    dt = variant["dtypes"]["a"]
    a = t(1, dt, [batch, m, k], [k, batch * k, 1] if "a" in nc else None)
    b_dims = [batch, n, k] if trans_b else [batch, k, n]
    b = t(2, dt, b_dims, [2 * b_dims[1] * b_dims[2], b_dims[2], 1] if "b" in nc else None)
    return [a, b, t(3, variant["dtypes"]["c"], [batch, m, n]), int(trans_b)]


def _splitk_reference_args(op, variant, shape):
    """The cutile_splitk_matmul arguments of reference/splitk_matmul/port_call.py's call_inputs
    (no torch): a (M, K) (rows padded by 64 when non-contiguous), b (K, N), the (S, M, N) f32 slabs
    (every other slab of a 2S buffer when non-contiguous), c (M, N); K = 128 S + 40 for a reduce
    variant, whose shapes have none."""
    nc = set(shape.get("noncontiguous", []))
    m, n, s = shape["M"], shape["N"], shape["S"]
    dt = variant["dtypes"].get("a") or variant["dtypes"]["c"]
    k = shape["K"] if variant["kernel"] == "splitk_partial" else 128 * s + 40
    a = _reference_layout(1, dt, [m, k], "a" in nc)
    partial = t(3, "float32", [s, m, n], [2 * m * n, n, 1] if "partial" in nc else None)
    return [a, t(2, dt, [k, n]), partial, t(4, dt, [m, n])]


@pytest.mark.parametrize("op, reference_args", [("bmm", _bmm_reference_args), ("splitk_matmul", _splitk_reference_args)])
def test_every_reference_test_shape_fits_its_forced_gemm_variant(lib, ports_library, op, reference_args):
    """bmm and splitk_matmul: each variant forced on each analysis.json test shape, laid out as
    ref.py lays it out for the GPU test, gets past validation (and the library's own choice too).
    A forced splitk variant runs with the partner kernel the library picks."""
    assert_every_reference_test_shape_fits(lib, ports_library, op, reference_args, unforced=True)


def test_bmm_rejections(lib):
    batch, m, n, k = 3, 100, 72, 200
    a, b, c = t(1, "float16", [batch, m, k]), t(2, "float16", [batch, k, n]), t(3, "float16", [batch, m, n])

    def bmm(a, b, c, trans_b=0, **kw):
        return call(lib, "cutile_bmm", a, b, c, trans_b, **kw)

    assert bmm(a, b, c) in PAST_VALIDATION, message(lib)
    assert bmm(t(1, "bfloat16", [batch, m, k]), t(2, "bfloat16", [batch, n, k]), t(3, "bfloat16", [batch, m, n]), 1) \
        in PAST_VALIDATION, message(lib)
    assert bmm(None, b, c) == Status.NULL_POINTER
    assert bmm(t(1, "float16", [m, k]), b, c) == Status.BAD_RANK
    assert bmm(a, t(2, "float16", [batch, k + 8, n]), c) == Status.SHAPE_MISMATCH
    assert bmm(a, b, t(3, "float16", [batch + 1, m, n])) == Status.SHAPE_MISMATCH
    assert bmm(a, b, c, 2) == Status.INVALID_ARGUMENT
    assert bmm(a, t(2, "float16", [batch, n, k]), c, 1) in PAST_VALIDATION, message(lib)  # f16 NT
    assert bmm(*(t(i, "float32", d) for i, d in ((1, [batch, m, k]), (2, [batch, n, k]), (3, [batch, m, n]))), 1) \
        in PAST_VALIDATION, message(lib)  # f32 (tf32) NT
    assert bmm(a, b, t(3, "bfloat16", [batch, m, n])) == Status.UNSUPPORTED_DTYPE
    assert bmm(*(t(i, "float64", d) for i, d in ((1, [batch, m, k]), (2, [batch, k, n]), (3, [batch, m, n])))) \
        == Status.UNSUPPORTED_DTYPE
    assert bmm(t(1, "float16", [batch, m, k], [m * k, 1, m]), b, c) == Status.BAD_STRIDE  # columns not contiguous
    assert bmm(a, t(2, "float16", [batch, k, n], [k * n + 4, n, 1]), c) == Status.BAD_STRIDE  # batch stride
    assert bmm(a, b, t(3, "float16", [batch, m, n], [0, n, 1])) == Status.BAD_STRIDE  # c overlaps itself
    assert bmm(t(1, "float16", [batch, m, k], offset=8), b, c) == Status.MISALIGNED
    assert bmm(a, b, t(2, "float16", [batch, m, n], offset=64)) == Status.INVALID_ARGUMENT  # c inside b
    assert bmm(a, b, c, device=-1) == Status.INVALID_DEVICE
    assert bmm(t(1, "float16", [batch, m, 0]), t(2, "float16", [batch, 0, n]), c) == Status.UNSUPPORTED_SHAPE
    assert bmm(*(t(i, "float16", [65536, 8, 8]) for i in (1, 2, 3))) == Status.UNSUPPORTED_SHAPE  # grid y
    assert bmm(t(0, "float16", [0, m, k]), t(0, "float16", [0, k, n]), t(0, "float16", [0, m, n])) == Status.OK


def test_splitk_matmul_rejections(lib):
    m, n, k, s = 100, 136, 200, 3
    a, b = t(1, "bfloat16", [m, k]), t(2, "bfloat16", [k, n])
    p, c = t(3, "float32", [s, m, n]), t(4, "bfloat16", [m, n])

    def splitk(a, b, p, c, **kw):
        return call(lib, "cutile_splitk_matmul", a, b, p, c, **kw)

    assert splitk(a, b, p, c) in PAST_VALIDATION, message(lib)
    assert lib.tileir_kernels_selected_variant().decode() == "partial_bf16_64x128x64,reduce_bf16_4x256"
    assert splitk(a, b, None, c) == Status.NULL_POINTER
    assert splitk(a, b, t(3, "float32", [m, n]), c) == Status.BAD_RANK
    assert splitk(a, t(2, "bfloat16", [k + 8, n]), p, c) == Status.SHAPE_MISMATCH
    assert splitk(a, b, t(3, "float32", [s, m, n + 8]), c) == Status.SHAPE_MISMATCH
    assert splitk(a, b, p, t(4, "bfloat16", [m + 1, n])) == Status.SHAPE_MISMATCH
    assert splitk(a, b, t(3, "float32", [0, m, n]), c) == Status.UNSUPPORTED_SHAPE  # no split
    assert "S = 0" in message(lib)
    assert splitk(a, b, t(3, "float32", [65536, 8, 8]), t(4, "bfloat16", [8, 8])) == Status.SHAPE_MISMATCH
    assert splitk(t(1, "bfloat16", [8, k]), t(2, "bfloat16", [k, 8]), t(3, "float32", [65536, 8, 8]),
                  t(4, "bfloat16", [8, 8])) == Status.UNSUPPORTED_SHAPE  # S is grid y
    assert splitk(t(1, "bfloat16", [m, 0]), t(2, "bfloat16", [0, n]), p, c) == Status.UNSUPPORTED_SHAPE
    assert splitk(a, b, t(3, "bfloat16", [s, m, n]), c) == Status.UNSUPPORTED_DTYPE  # slabs are f32
    assert splitk(a, b, p, t(4, "float16", [m, n])) == Status.UNSUPPORTED_DTYPE
    assert splitk(t(1, "float32", [m, k]), t(2, "float32", [k, n]), p, t(4, "float32", [m, n])) \
        == Status.UNSUPPORTED_DTYPE
    assert splitk(t(1, "bfloat16", [m, k], [k + 4, 1]), b, p, c) == Status.BAD_STRIDE
    assert splitk(a, b, t(3, "float32", [s, m, n], [m * n + 2, n, 1]), c) == Status.BAD_STRIDE  # slab stride
    assert splitk(a, b, t(3, "float32", [s, m, n], [0, n, 1]), c) == Status.BAD_STRIDE  # slabs overlap
    assert splitk(a, b, p, t(4, "bfloat16", [m, n], [1, m])) == Status.BAD_STRIDE
    assert splitk(a, b, t(3, "float32", [s, m, n], offset=4), c) == Status.MISALIGNED
    assert splitk(a, b, p, t(4, "bfloat16", [m, n], offset=2)) == Status.MISALIGNED
    assert splitk(a, b, t(1, "float32", [s, m, n]), c) == Status.INVALID_ARGUMENT  # slabs on a
    assert splitk(a, b, p, t(2, "bfloat16", [m, n])) == Status.INVALID_ARGUMENT  # c on b
    assert splitk(a, b, p, t(3, "bfloat16", [m, n], offset=4096)) == Status.INVALID_ARGUMENT  # c inside the slabs
    assert splitk(a, b, p, c, device=-1) == Status.INVALID_DEVICE
    assert splitk(t(0, "bfloat16", [0, k]), b, t(0, "float32", [s, 0, n]), t(0, "bfloat16", [0, n])) == Status.OK


def test_forced_splitk_matmul_variant_runs_with_its_partner(lib, ports_library):
    """One call launches both kernels: forcing one of them keeps the library's choice of the other
    (same dtype); a forced kernel of another dtype is refused, not swapped."""
    args = (t(1, "float16", [64, 4096]), t(2, "float16", [4096, 512]), t(3, "float32", [8, 64, 512]),
            t(4, "float16", [64, 512]))
    cases = [("reduce_f16_64x128", "partial_f16_64x128x64,reduce_f16_64x128"),
             ("partial_f16_64x128x64", "partial_f16_64x128x64,reduce_f16_4x256")]
    for forced, launched in cases:
        with ports.force_variant("splitk_matmul", forced, library=ports_library):
            assert call(lib, "cutile_splitk_matmul", *args) in PAST_VALIDATION, message(lib)
            assert lib.tileir_kernels_selected_variant().decode() == launched
    with ports.force_variant("splitk_matmul", "reduce_bf16_4x256", library=ports_library):
        assert call(lib, "cutile_splitk_matmul", *args) == Status.UNSUPPORTED_DTYPE
        assert lib.tileir_kernels_selected_variant().decode() == ""


@pytest.mark.parametrize("call, error, also", [
    (lambda L: ports.bmm(FakeTensor(1, "torch.float16", [2, 64, 64]), FakeTensor(2, "torch.float16", [2, 64, 64]),
                         FakeTensor(3, "torch.float16", [3, 64, 64]), library=L), ports.ShapeMismatchError, ValueError),
    (lambda L: ports.bmm(*(FakeTensor(i, "torch.float64", [2, 64, 64]) for i in (1, 2, 3)), trans_b=True, library=L),
     ports.UnsupportedDtypeError, TypeError),
    (lambda L: ports.splitk_matmul(FakeTensor(1, "torch.float16", [64, 256]), FakeTensor(2, "torch.float16", [256, 64]),
                                   FakeTensor(3, "torch.float16", [4, 64, 64]), FakeTensor(4, "torch.float16", [64, 64]),
                                   library=L), ports.UnsupportedDtypeError, TypeError),
    (lambda L: ports.splitk_matmul(FakeTensor(1, "torch.bfloat16", [64, 256]), FakeTensor(2, "torch.bfloat16", [256, 64]),
                                   FakeTensor(3, "torch.float32", [4, 64, 64], offset=4),
                                   FakeTensor(4, "torch.bfloat16", [64, 64]), library=L), ports.MisalignedError,
     ValueError),
], ids=["bmm_shape", "bmm_f64", "splitk_matmul_f16_slabs", "splitk_matmul_misaligned_slabs"])
def test_gemm_family_wrappers_raise_the_exception_of_the_code(ports_library, call, error, also):
    test_wrapper_raises_the_exception_of_the_code(ports_library, call, error, also)


@pytest.mark.skipif(driver_present(), reason="a CUDA driver is installed here")
@pytest.mark.parametrize("call", [
    lambda L: ports.bmm(*(FakeTensor(i, "torch.bfloat16", [2, 64, 64]) for i in (1, 2, 3)), trans_b=True, library=L),
    lambda L: ports.bmm(*(FakeTensor(i, "torch.float32", [2, 64, 64]) for i in (1, 2, 3)), library=L),
    lambda L: ports.splitk_matmul(FakeTensor(1, "torch.float16", [64, 256]), FakeTensor(2, "torch.float16", [256, 64]),
                                  FakeTensor(3, "torch.float32", [4, 64, 64]), FakeTensor(4, "torch.float16", [64, 64]),
                                  library=L),
], ids=["bmm_nt", "bmm_tf32", "splitk_matmul"])
def test_gemm_family_wrappers_pass_validation_and_stop_at_the_driver(ports_library, call):
    with pytest.raises(ports.DriverUnavailableError):
        call(ports_library)


def group_gemm(lib, a, w, offsets, c, trans_w=0, device=0):
    args = [v and ctypes.byref(v) for v in (a, w, offsets, c)]
    return Status(lib.cutile_group_gemm(*args, trans_w, device, 0))


def test_group_gemm_rejections(lib):
    T, G, K, N = 333, 5, 200, 136

    def call(a=None, w=None, offsets=None, c=None, dtype="bfloat16", trans_w=0, **kw):
        w_shape = [G, N, K] if trans_w else [G, K, N]
        arrays = [a or t(1, dtype, [T, K]), w or t(2, dtype, w_shape), offsets or t(3, "int32", [G + 1]),
                  c or t(4, dtype, [T, N])]
        return group_gemm(lib, *arrays, trans_w=trans_w, **kw)

    assert call() in PAST_VALIDATION, message(lib)
    assert lib.tileir_kernels_selected_variant().decode() == "bf16_kn_sliced_w8_128x256x64"
    assert call(trans_w=1) in PAST_VALIDATION
    assert lib.tileir_kernels_selected_variant().decode() == "bf16_nk_sliced_w8_128x256x64"
    assert call(dtype="float16", trans_w=1) in PAST_VALIDATION
    assert lib.tileir_kernels_selected_variant().decode() == "f16_nk_sliced_64x128x64"
    assert call(a=t(1, "bfloat16", [T, K], [K + 64, 1])) in PAST_VALIDATION, message(lib)  # a padded view
    assert group_gemm(lib, None, t(2, "bfloat16", [G, K, N]), t(3, "int32", [G + 1]), t(4, "bfloat16", [T, N])) \
        == Status.NULL_POINTER
    # dtype
    assert call(offsets=t(3, "int64", [G + 1])) == Status.UNSUPPORTED_DTYPE
    assert call(w=t(2, "float16", [G, K, N])) == Status.UNSUPPORTED_DTYPE
    assert call(dtype="float32") == Status.NO_VARIANT
    assert call(dtype="float16") == Status.NO_VARIANT  # f16 is built for (G, N, K) weights only
    assert "float16 with (G, K, N) weights" in message(lib)
    # rank and shape
    assert call(w=t(2, "bfloat16", [K, N])) == Status.BAD_RANK
    assert call(offsets=t(3, "int32", [G + 1, 1])) == Status.BAD_RANK
    assert call(offsets=t(3, "int32", [G])) == Status.SHAPE_MISMATCH
    assert call(c=t(4, "bfloat16", [T, N + 8])) == Status.SHAPE_MISMATCH
    assert call(c=t(4, "bfloat16", [T - 1, N])) == Status.SHAPE_MISMATCH
    assert call(w=t(2, "bfloat16", [G, N, K])) == Status.SHAPE_MISMATCH  # (G, N, K) without trans_w
    assert call(w=t(2, "bfloat16", [G, K, N]), trans_w=1) == Status.SHAPE_MISMATCH
    assert call(a=t(1, "bfloat16", [T, 128 * 512]), w=t(2, "bfloat16", [G, 128 * 512, N]),
                c=t(4, "bfloat16", [T, N])) in PAST_VALIDATION
    big = 65535 * 128
    assert call(a=t(1, "bfloat16", [big, K]), c=t(4, "bfloat16", [big, N])) == Status.UNSUPPORTED_SHAPE
    assert "grid.y" in message(lib)
    # strides and alignment
    assert call(a=t(1, "bfloat16", [T, K], [K + 4, 1])) == Status.BAD_STRIDE  # row stride % 8
    assert call(w=t(2, "bfloat16", [G, K, N], [K * N, N, 2])) == Status.BAD_STRIDE  # non-unit last
    assert call(offsets=t(3, "int32", [G + 1], [2])) == Status.BAD_STRIDE
    assert call(c=t(4, "bfloat16", [T, N], [0, 1])) == Status.BAD_STRIDE  # rows collide
    assert call(a=t(1, "bfloat16", [T, K], offset=8)) == Status.MISALIGNED
    assert call(offsets=t(3, "int32", [G + 1], offset=4)) == Status.MISALIGNED
    # overlap: c over any input
    assert call(c=t(1, "bfloat16", [T, N])) == Status.INVALID_ARGUMENT
    assert call(c=t(2, "bfloat16", [T, N])) == Status.INVALID_ARGUMENT
    assert call(c=t(3, "bfloat16", [T, N])) == Status.INVALID_ARGUMENT
    # flag and device
    assert call(trans_w=2) == Status.INVALID_ARGUMENT
    assert call(device=-1) == Status.INVALID_DEVICE
    # empty: no driver
    assert call(a=t(0, "bfloat16", [0, K]), c=t(0, "bfloat16", [0, N])) == Status.OK


def test_forced_group_gemm_variant_must_read_the_weight_layout_asked_for(lib):
    T, G, K, N = 64, 2, 64, 128
    kn = [t(1, "bfloat16", [T, K]), t(2, "bfloat16", [G, K, N]), t(3, "int32", [G + 1]), t(4, "bfloat16", [T, N])]
    assert lib.tileir_kernels_force_variant(b"group_gemm", b"bf16_nk_sliced_128x128x64") == Status.OK
    try:
        assert group_gemm(lib, *kn, trans_w=0) == Status.INVALID_ARGUMENT
        assert "TRANS_W = 1" in message(lib)
        nk = [kn[0], t(2, "bfloat16", [G, N, K]), kn[2], kn[3]]
        assert group_gemm(lib, *nk, trans_w=1) in PAST_VALIDATION
        assert lib.tileir_kernels_selected_variant().decode() == "bf16_nk_sliced_128x128x64"
    finally:
        lib.tileir_kernels_force_variant(b"group_gemm", None)


def fused_moe(lib, hidden, w, ids, experts, total, weights, out, mul_routed_weight=1, block_m=64, device=0):
    args = [v and ctypes.byref(v) for v in (hidden, w, ids, experts, total, weights, out)]
    return Status(lib.cutile_fused_moe(*args, mul_routed_weight, block_m, device, 0))


def test_fused_moe_rejections(lib):
    T, E, K, N, TOPK, BM = 33, 6, 200, 136, 2, 64
    EM = T * TOPK + E * (BM - 1)
    NB = -(-EM // BM)

    def call(hidden=None, w=None, ids=None, experts=None, total=None, weights=None, out=None, dtype="bfloat16",
             topk=TOPK, em=EM, nb=NB, **kw):
        arrays = [hidden or t(1, dtype, [T, K]), w or t(2, dtype, [E, N, K]), ids or t(3, "int32", [em]),
                  experts or t(4, "int32", [nb]), total or t(5, "int32", [1]), weights or t(6, "float32", [T * topk]),
                  out or t(7, dtype, [T * topk, N])]
        return fused_moe(lib, *arrays, **kw)

    assert call() in PAST_VALIDATION, message(lib)
    assert lib.tileir_kernels_selected_variant().decode() == "bf16_top2_bm64_mul"
    assert call(mul_routed_weight=0) in PAST_VALIDATION
    assert lib.tileir_kernels_selected_variant().decode() == "bf16_top2_bm64_nomul"
    em16 = T * 8 + E * 15
    assert call(dtype="float16", topk=8, em=em16, nb=-(-em16 // 16), block_m=16) in PAST_VALIDATION, message(lib)
    assert lib.tileir_kernels_selected_variant().decode() == "f16_top8_bm16_mul"
    assert call(hidden=t(1, "bfloat16", [T, K], [K + 64, 1])) in PAST_VALIDATION, message(lib)
    assert fused_moe(lib, t(1, "bfloat16", [T, K]), t(2, "bfloat16", [E, N, K]), None, t(4, "int32", [NB]),
                     t(5, "int32", [1]), t(6, "float32", [T * TOPK]), t(7, "bfloat16", [T * TOPK, N])) \
        == Status.NULL_POINTER
    # dtype
    assert call(ids=t(3, "int64", [EM])) == Status.UNSUPPORTED_DTYPE
    assert call(experts=t(4, "int64", [NB])) == Status.UNSUPPORTED_DTYPE
    assert call(total=t(5, "int64", [1])) == Status.UNSUPPORTED_DTYPE
    assert call(weights=t(6, "bfloat16", [T * TOPK])) == Status.UNSUPPORTED_DTYPE
    assert call(w=t(2, "float16", [E, N, K])) == Status.UNSUPPORTED_DTYPE
    assert call(dtype="float32") == Status.NO_VARIANT
    assert call(dtype="float16") == Status.NO_VARIANT  # f16 is built for block_m 16
    assert call(block_m=16, nb=-(-EM // 16)) == Status.NO_VARIANT  # bf16 for block_m 64
    assert call(dtype="float16", topk=8, em=em16, nb=-(-em16 // 16), block_m=16, mul_routed_weight=0) \
        == Status.NO_VARIANT
    # rank and shape
    assert call(w=t(2, "bfloat16", [N, K])) == Status.BAD_RANK
    assert call(ids=t(3, "int32", [EM, 1])) == Status.BAD_RANK
    assert call(w=t(2, "bfloat16", [E, N, K + 8])) == Status.SHAPE_MISMATCH
    assert call(out=t(7, "bfloat16", [T * TOPK, N + 8])) == Status.SHAPE_MISMATCH
    assert call(nb=NB + 1) == Status.SHAPE_MISMATCH  # expert_ids: one entry per block_m ids
    assert call(total=t(5, "int32", [2])) == Status.SHAPE_MISMATCH
    assert call(weights=t(6, "float32", [T * TOPK + 1])) == Status.SHAPE_MISMATCH
    assert call(topk=3) == Status.NO_VARIANT  # out rows T * 3: no variant has TOPK = 3
    assert call(out=t(7, "bfloat16", [T * TOPK + 1, N]), weights=t(6, "float32", [T * TOPK + 1])) \
        == Status.SHAPE_MISMATCH  # out rows not a multiple of T
    # strides and alignment
    assert call(hidden=t(1, "bfloat16", [T, K], [K + 4, 1])) == Status.BAD_STRIDE
    assert call(w=t(2, "bfloat16", [E, N, K], [N * K, K, 2])) == Status.BAD_STRIDE
    assert call(ids=t(3, "int32", [EM], [2])) == Status.BAD_STRIDE
    assert call(weights=t(6, "float32", [T * TOPK], [2])) == Status.BAD_STRIDE
    assert call(out=t(7, "bfloat16", [T * TOPK, N], [0, 1])) == Status.BAD_STRIDE
    assert call(hidden=t(1, "bfloat16", [T, K], offset=8)) == Status.MISALIGNED
    assert call(ids=t(3, "int32", [EM], offset=4)) == Status.MISALIGNED
    assert call(experts=t(4, "int32", [NB], offset=2)) == Status.MISALIGNED
    # overlap: out over any input
    for i in range(1, 7):
        assert call(out=t(i, "bfloat16", [T * TOPK, N])) == Status.INVALID_ARGUMENT, i
    # flags and device
    assert call(mul_routed_weight=2) == Status.INVALID_ARGUMENT
    assert call(block_m=0) == Status.INVALID_ARGUMENT
    assert call(device=-1) == Status.INVALID_DEVICE
    # empty: no driver
    assert call(hidden=t(0, "bfloat16", [0, K]), weights=t(0, "float32", [0]), out=t(0, "bfloat16", [0, N])) \
        == Status.OK


def test_forced_fused_moe_variant_must_match_the_routing(lib):
    T, E, K, N = 4, 8, 64, 128
    em = T * 2 + E * 63
    arrays = [t(1, "bfloat16", [T, K]), t(2, "bfloat16", [E, N, K]), t(3, "int32", [em]), t(4, "int32", [-(-em // 64)]),
              t(5, "int32", [1]), t(6, "float32", [T * 2]), t(7, "bfloat16", [T * 2, N])]
    assert lib.tileir_kernels_force_variant(b"fused_moe", b"bf16_top2_bm64_nomul") == Status.OK
    try:
        assert fused_moe(lib, *arrays, mul_routed_weight=1) == Status.INVALID_ARGUMENT
        assert "MUL_ROUTED_WEIGHT = 0" in message(lib)
        assert fused_moe(lib, *arrays, mul_routed_weight=0) in PAST_VALIDATION
        top8 = arrays[:5] + [t(6, "float32", [T * 8]), t(7, "bfloat16", [T * 8, N])]
        assert fused_moe(lib, *top8, mul_routed_weight=0) == Status.SHAPE_MISMATCH
        assert "TOPK = 2" in message(lib)
    finally:
        lib.tileir_kernels_force_variant(b"fused_moe", None)


@pytest.mark.parametrize("call, error, also", [
    (lambda L: ports.group_gemm(FakeTensor(1, "torch.bfloat16", [4, 64]), FakeTensor(2, "torch.bfloat16", [2, 64, 64]),
                                FakeTensor(3, "torch.int64", [3]), FakeTensor(4, "torch.bfloat16", [4, 64]), library=L),
     ports.UnsupportedDtypeError, TypeError),
    (lambda L: ports.fused_moe(FakeTensor(1, "torch.bfloat16", [4, 64]), FakeTensor(2, "torch.bfloat16", [8, 64, 64]),
                               FakeTensor(3, "torch.int32", [512]), FakeTensor(4, "torch.int32", [9]),
                               FakeTensor(5, "torch.int32", [1]), FakeTensor(6, "torch.float32", [8]),
                               FakeTensor(7, "torch.bfloat16", [8, 64]), library=L),
     ports.ShapeMismatchError, ValueError),
], ids=["group_gemm", "fused_moe"])
def test_moe_gemm_wrappers_raise_the_exception_of_the_code(ports_library, call, error, also):
    test_wrapper_raises_the_exception_of_the_code(ports_library, call, error, also)


def test_wrapper_kwargs_take_flags_and_constants_from_the_variant():
    """The GPU test calls each wrapper with registry.wrapper_kwargs: tensors and scalars by name
    from ref.make_inputs, flags (bool) and `const` arguments (int) from the variant's constants."""
    analysis = json.loads((HEADER.parents[2] / "reference" / "fused_moe" / "analysis.json").read_text())
    f = ports.function_for("fused_moe", "fused_moe")
    for v in analysis["variants"]:
        inputs = {a.name: object() for a in f.args if a.kind == "tensor"}
        kwargs = ports.wrapper_kwargs(f, v, inputs)
        assert list(kwargs) == [a.name for a in f.args]
        assert all(kwargs[name] is inputs[name] for name in inputs)
        assert kwargs["block_m"] == v["constants"]["BM"] and type(kwargs["block_m"]) is int
        assert kwargs["mul_routed_weight"] is v["constants"]["MUL_ROUTED_WEIGHT"]
    group = ports.function_for("group_gemm", "group_gemm_sliced_w8")
    nk = next(v for v in json.loads((HEADER.parents[2] / "reference" / "group_gemm" / "analysis.json").read_text())
              ["variants"] if v["name"] == "bf16_nk_sliced_w8_128x256x64")
    assert ports.wrapper_kwargs(group, nk, {n: n for n in ("a", "w", "offsets", "c")})["trans_w"] is True
