"""cutile_python_v2 argument packing, checked on the CPU (no CUDA needed)."""
from __future__ import annotations

import ctypes
import struct
from pathlib import Path

import pytest

from tileir_diff.launch.abi import ArgumentError, ArrayArg, as_array_arg, pack_arguments
from tileir_diff.launch.launcher import grid_for_inputs
from tileir_diff.suite.catalog import load_op

REFERENCE = Path(__file__).resolve().parents[2] / "reference"


@pytest.fixture(scope="module")
def rms():
    return load_op(REFERENCE / "rms_norm")


def rows(m, n, dtype, ptr=0x7F0000000000, row_stride=None):
    return ArrayArg(ptr, (m, n), (row_stride or n, 1), dtype)


def vec(n, dtype, ptr=0x7F0000100000, stride=1):
    return ArrayArg(ptr, (n,), (stride,), dtype)


def fwd_args(v, m=13, n=1000, **over):
    dt = v.dtypes["x"]
    args = {"x": rows(m, n, dt), "w": vec(n, dt), "out": rows(m, n, dt, ptr=0x7F0000200000),
            "rstd": vec(m, "float32", ptr=0x7F0000300000)}
    args.update(over)
    return args


def test_layout_pointer_shapes_strides_then_scalar(rms):
    v = rms.variant("fwd_f16_m4_n1024")
    packed = pack_arguments(v, fwd_args(v, x=rows(13, 1000, "float16", row_stride=1064)))
    names = [d[0] for d in packed.described]
    assert names == ["x.ptr", "x.shape[0]", "x.shape[1]", "x.stride[0]", "x.stride[1]",
                     "w.ptr", "w.shape[0]", "w.stride[0]",
                     "out.ptr", "out.shape[0]", "out.shape[1]", "out.stride[0]", "out.stride[1]",
                     "rstd.ptr", "rstd.shape[0]", "rstd.stride[0]", "eps"]
    vals = [v_.value for v_ in packed.values]
    assert vals[:5] == [0x7F0000000000, 13, 1000, 1064, 1]
    # int32 index dtype -> 4-byte shapes/strides, 8-byte pointers, f32 eps (default from analysis.json)
    assert [ctypes.sizeof(c) for c in packed.values[:5]] == [8, 4, 4, 4, 4]
    assert isinstance(packed.values[-1], ctypes.c_float)
    assert packed.values[-1].value == pytest.approx(1e-6)
    ptrs = packed.pointer_array()
    assert len(ptrs) == 17
    assert ptrs[0] == ctypes.addressof(packed.values[0])


def test_scalar_override_and_int64_index(rms):
    v = rms.variant("fwd_f32_m4_n1024")
    packed = pack_arguments(v, {**fwd_args(v), "eps": 0.5})
    assert packed.values[-1].value == 0.5


def test_dtype_and_rank_mismatch(rms):
    v = rms.variant("fwd_f16_m4_n1024")
    with pytest.raises(ArgumentError, match="'x'.*dtype float32.*float16"):
        pack_arguments(v, fwd_args(v, x=rows(13, 1000, "float32")))
    with pytest.raises(ArgumentError, match="'w'.*rank 2"):
        pack_arguments(v, fwd_args(v, w=rows(1, 1000, "float16")))


def test_static_stride_enforced(rms):
    v = rms.variant("fwd_f16_m4_n1024")
    with pytest.raises(ArgumentError, match="stride 2 but the export fixed it to 1"):
        pack_arguments(v, fwd_args(v, x=ArrayArg(0x7F0000000000, (13, 1000), (2000, 2), "float16")))


def test_alignment_enforced(rms):
    v = rms.variant("fwd_f16_m4_n1024")
    with pytest.raises(ArgumentError, match="not a multiple of 16 bytes"):
        pack_arguments(v, fwd_args(v, x=rows(13, 1000, "float16", ptr=0x7F0000000002)))


def test_int32_overflow_rejected(rms):
    v = rms.variant("fwd_f16_m4_n1024")
    with pytest.raises(ArgumentError, match="overflow int32|does not fit int32"):
        pack_arguments(v, fwd_args(v, x=rows(70000, 40000, "float16")))


def test_size_one_dims_get_a_valid_stride(rms):
    v = rms.variant("fwd_f16_m4_n1024")
    # torch may report any stride for a size-1 dim; the static stride 1 is passed instead
    packed = pack_arguments(v, fwd_args(v, m=1, x=ArrayArg(0x7F0000000000, (1, 1), (1, 7), "float16")))
    d = dict((n, val) for n, _, val in packed.described)
    assert d["x.stride[1]"] == 1


def test_missing_and_unknown_arguments(rms):
    v = rms.variant("fwd_f16_m4_n1024")
    args = fwd_args(v)
    del args["rstd"]
    with pytest.raises(ArgumentError, match="missing array 'rstd'"):
        pack_arguments(v, args)
    with pytest.raises(ArgumentError, match="unknown argument"):
        pack_arguments(v, {**fwd_args(v), "bogus": 1})
    with pytest.raises(ArgumentError, match="compiled as 4"):
        pack_arguments(v, {**fwd_args(v), "TILE_M": 8})


def test_half_scalars_are_bit_patterns():
    from tileir_diff.launch.abi import _scalar_ctype

    assert _scalar_ctype("float16", 1.0).value == 0x3C00
    assert _scalar_ctype("bfloat16", 1.0).value == 0x3F80
    assert _scalar_ctype("bfloat16", -2.5).value == struct.unpack("<I", struct.pack("<f", -2.5))[0] >> 16
    assert _scalar_ctype("int32", -3).value == -3
    with pytest.raises(ArgumentError):
        _scalar_ctype("uint32", -1)
    with pytest.raises(ArgumentError):
        _scalar_ctype("int32", 0.5)


def test_grid_from_tensor_shapes(rms):
    v = rms.variant("bwd_f16_m4_n1024")
    args = {"dy": rows(77, 1000, "float16"), "x": rows(77, 1000, "float16"), "w": vec(1000, "float16"),
            "rstd": vec(77, "float32"), "dx": rows(77, 1000, "float16"), "dw_partial": rows(2, 1000, "float32")}
    assert grid_for_inputs(v, args) == (2, 1, 1)  # cdiv(77, 4 * 16)
    assert grid_for_inputs(v, args, {"M": 1000, "N": 5}) == (16, 1, 1)


class FakeTensor:
    """Duck-typed torch tensor: what as_array_arg reads."""

    def __init__(self, ptr, shape, stride, dtype, is_cuda=True):
        self._p, self.shape, self._s, self.dtype, self.is_cuda = ptr, shape, stride, dtype, is_cuda

    def data_ptr(self):
        return self._p

    def stride(self):
        return self._s


def test_tensor_like_inputs():
    a = as_array_arg(FakeTensor(4096, (3, 4), (8, 1), "torch.bfloat16"))
    assert a == ArrayArg(4096, (3, 4), (8, 1), "bfloat16")
    with pytest.raises(ArgumentError, match="not a CUDA device"):
        as_array_arg(FakeTensor(4096, (3,), (1,), "torch.float32", is_cuda=False))
    with pytest.raises(ArgumentError, match="expected a tensor"):
        as_array_arg([1, 2, 3])
