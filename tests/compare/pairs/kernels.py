"""cuTile Python kernels written two ways: pairs that must be equivalent and pairs that must differ.

Each ``PAIRS`` entry: (name, kernel_a, kernel_b, expected verdict class, expected categories).
``export(kernel, params)`` writes bytecode 13.3 into memory (no GPU, no tileiras needed).
"""
from __future__ import annotations

import io

import cuda.tile as ct
from cuda.tile.compilation import (ArrayConstraint, CallingConvention, ConstantConstraint, KernelSignature,
                                   export_kernel)

B = 256


@ct.kernel
def add_xy(x, y, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    b = ct.load(y, index=(i,), shape=(BLOCK,))
    ct.store(z, index=(i,), tile=a + b)


@ct.kernel
def add_yx_reordered(x, y, z, BLOCK: ct.Constant[int]):
    pid = ct.bid(0)
    second = ct.load(y, index=(pid,), shape=(BLOCK,))   # loads written in the other order
    first = ct.load(x, index=(ct.bid(0),), shape=(BLOCK,))  # and a second bid(0)
    ct.store(z, index=(pid,), tile=second + first)      # operands commuted


@ct.kernel
def sub_xy(x, y, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    b = ct.load(y, index=(i,), shape=(BLOCK,))
    ct.store(z, index=(i,), tile=a - b)


@ct.kernel
def sub_yx(x, y, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    b = ct.load(y, index=(i,), shape=(BLOCK,))
    ct.store(z, index=(i,), tile=b - a)


@ct.kernel
def rms_eps5(x, out, D: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, D)).astype(ct.float32)
    ms = ct.sum(t * t, axis=1, keepdims=True) / D
    ct.store(out, index=(r, 0), tile=(t * ct.rsqrt(ms + 1e-5)).astype(out.dtype))


@ct.kernel
def rms_eps5_rewritten(x, out, D: ct.Constant[int]):
    row = ct.bid(0)
    v = ct.load(x, index=(row, 0), shape=(1, D)).astype(ct.float32)
    sq = v * v
    mean_sq = ct.sum(sq, axis=1, keepdims=True) / D
    inv = ct.rsqrt(1e-5 + mean_sq)                      # commuted add
    y = inv * v                                         # commuted mul
    ct.store(out, index=(row, 0), tile=y.astype(out.dtype))


@ct.kernel
def rms_eps6(x, out, D: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, D)).astype(ct.float32)
    ms = ct.sum(t * t, axis=1, keepdims=True) / D
    ct.store(out, index=(r, 0), tile=(t * ct.rsqrt(ms + 1e-6)).astype(out.dtype))


@ct.kernel
def rowmax(x, out, D: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, D))
    ct.store(out, index=(r, 0), tile=ct.broadcast_to(ct.max(t, axis=1, keepdims=True), (1, D)))


@ct.kernel
def rowmin(x, out, D: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, D))
    ct.store(out, index=(r, 0), tile=ct.broadcast_to(ct.min(t, axis=1, keepdims=True), (1, D)))


@ct.kernel
def copy_bid0(x, z, BLOCK: ct.Constant[int]):
    ct.store(z, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(BLOCK,)))


@ct.kernel
def copy_bid1(x, z, BLOCK: ct.Constant[int]):
    ct.store(z, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(1),), shape=(BLOCK,)))


@ct.kernel
def copy_padded(x, z, BLOCK: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(BLOCK,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(z, index=(ct.bid(0),), tile=t)


def _arr(dt, nd):
    return ArrayConstraint(dt, nd, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
                           may_alias_internally=False, stride_constant=(None,) * (nd - 1) + (1,),
                           base_addr_divisible_by=16)


VEC3 = [_arr(ct.float32, 1)] * 3 + [ConstantConstraint(B)]
VEC2 = [_arr(ct.float32, 1)] * 2 + [ConstantConstraint(B)]
ROW2 = [_arr(ct.float16, 2)] * 2 + [ConstantConstraint(1024)]


def export(kernel, params, symbol="k", version="13.3") -> bytes:
    buf = io.BytesIO()
    export_kernel(kernel, [KernelSignature(params, CallingConvention.cutile_python_v2(), symbol=symbol)], buf,
                  output_format="tileir_bytecode", bytecode_version=version)
    return buf.getvalue()


# name, a, b, params(a), params(b), expected verdict set, expected categories (for different)
PAIRS = [
    ("add-reordered", add_xy, add_yx_reordered, VEC3, VEC3, {"identical", "equivalent"}, []),
    ("rms-rewritten", rms_eps5, rms_eps5_rewritten, ROW2, ROW2, {"identical", "equivalent"}, []),
    ("rms-block-256-vs-same", rms_eps5, rms_eps5, ROW2, ROW2, {"identical"}, []),
    ("sub-swapped", sub_xy, sub_yx, VEC3, VEC3, {"different"}, ["arith"]),
    ("rms-eps", rms_eps5, rms_eps6, ROW2, ROW2, {"different"}, ["constant"]),
    ("rowmax-vs-rowmin", rowmax, rowmin, ROW2, ROW2, {"different"}, ["reduction"]),
    ("copy-index", copy_bid0, copy_bid1, VEC2, VEC2, {"different"}, ["memory"]),
    ("copy-padding", copy_bid0, copy_padded, VEC2, VEC2, {"different"}, ["memory"]),
    ("copy-block", copy_bid0, copy_bid0, VEC2, [_arr(ct.float32, 1)] * 2 + [ConstantConstraint(128)],
     # one cause: the load view's and the store view's tile, one root naming both (uniform-change)
     {"different"}, ["tile_shape"]),
]
