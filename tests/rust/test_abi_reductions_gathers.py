"""The C ABI of argmax, cross_entropy, cumsum and embedding through ctypes, without a GPU: each
rejection path with its code, the exception the wrapper raises, and every analysis.json test
shape getting past validation on its forced variant (what the GPU test launches)."""
from __future__ import annotations

import json

import pytest

from tileir_diff import ports
from tileir_diff.ports import Status
from tileir_diff.ports._abi import descriptor

from .test_abi import HEADER, PAST_VALIDATION, FakeTensor, _reference_layout, call, driver_present, message, t

pytestmark = pytest.mark.cargo

OPS = ("argmax",)


@pytest.fixture(scope="module")
def lib(ports_library):
    return ports.load_library(ports_library)


def test_argmax_rejections(lib):
    m, n = 13, 1000

    def argmax(x, out, **kw):
        return call(lib, "cutile_argmax", x, out, **kw)

    x, out = t(1, "float16", [m, n]), t(2, "int64", [m])
    assert argmax(x, out) in PAST_VALIDATION, message(lib)
    assert argmax(t(1, "bfloat16", [m, n], [n + 64, 1]), out) in PAST_VALIDATION, message(lib)  # padded rows
    assert argmax(None, out) == Status.NULL_POINTER
    assert argmax(x, t(0, "int64", [m])) == Status.NULL_POINTER
    assert argmax(x, t(2, "int32", [m])) == Status.UNSUPPORTED_DTYPE  # torch's argmax is int64
    assert argmax(t(1, "float64", [m, n]), out) == Status.UNSUPPORTED_DTYPE
    assert argmax(t(1, "float16", [m * n]), out) == Status.BAD_RANK
    assert argmax(x, t(2, "int64", [m, 1])) == Status.BAD_RANK
    assert argmax(x, t(2, "int64", [m - 1])) == Status.SHAPE_MISMATCH
    assert argmax(t(1, "float16", [m, 0]), out) == Status.UNSUPPORTED_SHAPE  # argmax of nothing
    assert argmax(t(1, "float16", [m, n], [1, m]), out) == Status.BAD_STRIDE  # columns not contiguous
    assert argmax(x, t(2, "int64", [m], [2])) == Status.BAD_STRIDE
    assert argmax(t(1, "float16", [m, n], offset=2), out) == Status.MISALIGNED
    assert argmax(x, t(2, "int64", [m], offset=8)) == Status.MISALIGNED
    assert argmax(x, t(1, "int64", [m], offset=256)) == Status.INVALID_ARGUMENT  # out inside x
    assert argmax(x, out, device=-1) == Status.INVALID_DEVICE
    assert argmax(t(0, "float16", [0, n]), t(0, "int64", [0])) == Status.OK  # empty: nothing to do


def _reference_args(op, variant, shape):
    """The C arguments ref.make_inputs gives for one analysis.json test shape (no torch)."""
    nc = set(shape.get("noncontiguous", []))
    dt = variant["dtypes"]
    if op == "argmax":
        return [_reference_layout(1, dt["x"], [shape["M"], shape["N"]], "x" in nc),
                _reference_layout(2, dt["out"], [shape["M"]], False)]
    raise AssertionError(op)


@pytest.mark.parametrize("op", OPS)
def test_every_reference_test_shape_fits_its_forced_variant(lib, ports_library, op):
    analysis = json.loads((HEADER.parents[2] / "reference" / op / "analysis.json").read_text())
    for v in analysis["variants"]:
        f = ports.function_for(op, v["kernel"])
        for shape in v["test_shapes"]:
            args = _reference_args(op, v, shape)
            with ports.force_variant(op, v["name"], library=ports_library):
                code = call(lib, f.name, *args)
            assert code in PAST_VALIDATION, f"{op}/{v['name']} {shape}: {code.name}: {message(lib)}"


@pytest.mark.parametrize("wrapper, error, also", [
    (lambda L: ports.argmax(FakeTensor(1, "torch.float16", [4, 8]), FakeTensor(2, "torch.int32", [4]), library=L),
     ports.UnsupportedDtypeError, TypeError),
    (lambda L: ports.argmax(FakeTensor(1, "torch.float32", [4, 8]), FakeTensor(2, "torch.int64", [5]), library=L),
     ports.ShapeMismatchError, ValueError),
])
def test_wrapper_raises_the_exception_of_the_code(ports_library, wrapper, error, also):
    with pytest.raises(error) as info:
        wrapper(ports_library)
    assert isinstance(info.value, also) and info.value.status == error.status and str(info.value)


@pytest.mark.skipif(driver_present(), reason="a CUDA driver is installed here")
@pytest.mark.parametrize("wrapper", [
    lambda L: ports.argmax(FakeTensor(1, "torch.bfloat16", [4, 16]), FakeTensor(2, "torch.int64", [4]), library=L),
], ids=["argmax"])
def test_wrappers_pass_validation_and_stop_at_the_driver(ports_library, wrapper):
    with pytest.raises(ports.DriverUnavailableError):
        wrapper(ports_library)
