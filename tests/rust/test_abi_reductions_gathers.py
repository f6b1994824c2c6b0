"""The C ABI of argmax, cross_entropy, cumsum and embedding through ctypes, without a GPU: each
rejection path with its code, the exception the wrapper raises, and every analysis.json test
shape getting past validation on its forced variant (what the GPU test launches)."""
from __future__ import annotations

import pytest

from tileir_diff import ports
from tileir_diff.ports import Status

from .test_abi import (
    PAST_VALIDATION, FakeTensor, _reference_layout, assert_every_reference_test_shape_fits, call, driver_present, message, t,
)
from .test_variant_table import NOT_YET_PORTED

pytestmark = pytest.mark.cargo

OPS = ("argmax", "cross_entropy", "cumsum", "embedding")


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


def test_cross_entropy_rejections(lib, ports_library):
    m, v = 37, 1000

    def ce(logits, target, loss, lse, **kw):
        return call(lib, "cutile_cross_entropy", logits, target, loss, lse, **kw)

    logits, target = t(1, "bfloat16", [m, v]), t(2, "int64", [m])
    loss, lse = t(3, "float32", [m]), t(4, "float32", [m])
    assert ce(logits, target, loss, lse) in PAST_VALIDATION, message(lib)
    assert ce(t(1, "float32", [m, v], [v + 64, 1]), target, loss, lse) in PAST_VALIDATION, message(lib)
    assert ce(logits, None, loss, lse) == Status.NULL_POINTER
    assert ce(logits, target, loss, t(0, "float32", [m])) == Status.NULL_POINTER
    assert ce(logits, t(2, "int32", [m]), loss, lse) == Status.UNSUPPORTED_DTYPE  # int64 targets only
    assert ce(logits, target, t(3, "bfloat16", [m]), lse) == Status.UNSUPPORTED_DTYPE
    assert ce(t(1, "int64", [m, v]), target, loss, lse) == Status.UNSUPPORTED_DTYPE
    assert ce(t(1, "bfloat16", [m * v]), target, loss, lse) == Status.BAD_RANK
    assert ce(logits, t(2, "int64", [m, 1]), loss, lse) == Status.BAD_RANK
    assert ce(logits, t(2, "int64", [m + 1]), loss, lse) == Status.SHAPE_MISMATCH
    assert ce(logits, target, loss, t(4, "float32", [m - 1])) == Status.SHAPE_MISMATCH
    assert ce(t(1, "bfloat16", [m, 0]), target, loss, lse) == Status.UNSUPPORTED_SHAPE
    assert ce(t(1, "bfloat16", [m, v], [1, m]), target, loss, lse) == Status.BAD_STRIDE
    assert ce(logits, t(2, "int64", [m], [2]), loss, lse) == Status.BAD_STRIDE
    assert ce(logits, target, t(3, "float32", [m], [0]), lse) == Status.BAD_STRIDE
    assert ce(t(1, "bfloat16", [m, v], offset=2), target, loss, lse) == Status.MISALIGNED
    assert ce(logits, target, loss, t(4, "float32", [m], offset=4)) == Status.MISALIGNED
    assert ce(logits, target, t(1, "float32", [m], offset=64), lse) == Status.INVALID_ARGUMENT  # loss in logits
    assert ce(logits, target, t(2, "float32", [m]), lse) == Status.INVALID_ARGUMENT  # loss over target
    assert ce(logits, target, loss, t(3, "float32", [m])) == Status.INVALID_ARGUMENT  # lse is loss
    assert ce(logits, target, loss, lse, device=-1) == Status.INVALID_DEVICE
    # bf16 with V and the row stride multiples of 8 takes the aligned variant; forced, it checks them.
    with ports.force_variant("cross_entropy", "bf16_a8_v2048", library=ports_library):
        assert ce(logits, target, loss, lse) in PAST_VALIDATION, message(lib)
        assert ce(t(1, "bfloat16", [m, v + 1]), target, loss, lse) == Status.UNSUPPORTED_SHAPE


def test_cumsum_rejections(lib, ports_library):
    m, n = 30, 77

    def cumsum(x, out, **kw):
        return call(lib, "cutile_cumsum", x, out, **kw)

    x, out = t(1, "float16", [m, n], [n + 64, 1]), t(2, "float16", [m, n], [n + 64, 1])
    assert cumsum(x, out) in PAST_VALIDATION, message(lib)
    assert cumsum(t(1, "float32", [m, 5000]), t(2, "float32", [m, 5000])) in PAST_VALIDATION, message(lib)
    assert cumsum(x, t(1, "float16", [m, n], [n + 64, 1])) in PAST_VALIDATION  # exactly in place
    assert cumsum(None, out) == Status.NULL_POINTER
    assert cumsum(x, t(2, "bfloat16", [m, n])) == Status.UNSUPPORTED_DTYPE
    assert cumsum(t(1, "int32", [m, n]), t(2, "int32", [m, n])) == Status.UNSUPPORTED_DTYPE
    assert cumsum(t(1, "float16", [m * n]), out) == Status.BAD_RANK
    assert cumsum(x, t(2, "float16", [m, n + 1])) == Status.SHAPE_MISMATCH
    assert cumsum(t(1, "float16", [m, n], [1, m]), out) == Status.BAD_STRIDE
    assert cumsum(x, t(2, "float16", [m, n], [0, 1])) == Status.BAD_STRIDE  # out rows collide
    assert cumsum(x, t(2, "float16", [m, n], offset=2)) == Status.MISALIGNED
    assert cumsum(x, t(1, "float16", [m, n], [n + 64, 1], offset=2 * (n + 64))) == Status.INVALID_ARGUMENT
    assert cumsum(x, out, device=-1) == Status.INVALID_DEVICE
    assert cumsum(t(0, "float16", [0, n]), t(0, "float16", [0, n])) == Status.OK
    # A forced whole-row variant never truncates a longer row; a forced aligned one checks its multiples.
    with ports.force_variant("cumsum", "row_f32_m4_n1024", library=ports_library):
        assert cumsum(t(1, "float32", [m, 1025]), t(2, "float32", [m, 1025])) == Status.UNSUPPORTED_SHAPE
    with ports.force_variant("cumsum", "looped_f16_a8_m4_n1024", library=ports_library):
        assert cumsum(t(1, "float16", [m, 80]), t(2, "float16", [m, 80])) in PAST_VALIDATION, message(lib)
        assert cumsum(x, out) == Status.UNSUPPORTED_SHAPE  # N = 77


def test_embedding_rejections(lib, ports_library):
    tokens, v, h = 77, 1000, 1000

    def emb(ids, weight, out, **kw):
        return call(lib, "cutile_embedding", ids, weight, out, **kw)

    ids, weight, out = t(1, "int32", [tokens]), t(2, "bfloat16", [v, h]), t(3, "bfloat16", [tokens, h])
    assert emb(ids, weight, out) in PAST_VALIDATION, message(lib)
    assert emb(t(1, "int64", [tokens]), weight, out) in PAST_VALIDATION, message(lib)
    assert emb(ids, t(2, "float32", [v, h], [h + 4, 1]), t(3, "float32", [tokens, h], [h + 64, 1])) \
        in PAST_VALIDATION, message(lib)
    assert emb(None, weight, out) == Status.NULL_POINTER
    assert emb(ids, weight, t(0, "bfloat16", [tokens, h])) == Status.NULL_POINTER
    for bad in ("float32", "float16"):  # ids must be int32 / int64
        assert emb(t(1, bad, [tokens]), weight, out) == Status.UNSUPPORTED_DTYPE
        assert "ids" in message(lib)
    assert emb(ids, weight, t(3, "float16", [tokens, h])) == Status.UNSUPPORTED_DTYPE
    assert emb(ids, t(2, "float64", [v, h]), t(3, "float64", [tokens, h])) == Status.UNSUPPORTED_DTYPE
    # f16 with int64 ids: the int64-indexed gather, at every T.
    for n in (1, tokens):
        assert emb(t(1, "int64", [n]), t(2, "float16", [v, h]), t(3, "float16", [n, h])) in PAST_VALIDATION
        assert lib.tileir_kernels_selected_variant().decode() == "f16_i64_gather_bt8_h256_idx64"
    assert emb(t(1, "int64", [tokens]), t(2, "float32", [v, h]), t(3, "float32", [tokens, h])) == Status.NO_VARIANT
    assert emb(t(1, "int32", [tokens, 1]), weight, out) == Status.BAD_RANK
    assert emb(ids, t(2, "bfloat16", [v * h]), out) == Status.BAD_RANK
    assert emb(ids, weight, t(3, "bfloat16", [tokens + 1, h])) == Status.SHAPE_MISMATCH
    assert emb(ids, weight, t(3, "bfloat16", [tokens, h - 8])) == Status.SHAPE_MISMATCH
    assert emb(ids, t(2, "bfloat16", [0, h]), out) == Status.UNSUPPORTED_SHAPE  # no valid id
    assert emb(t(1, "int32", [tokens], [2]), weight, out) == Status.BAD_STRIDE
    assert emb(ids, t(2, "bfloat16", [v, h], [1, v]), out) == Status.BAD_STRIDE  # transposed table
    assert emb(ids, t(2, "bfloat16", [v, h - 4], [h, 1]), t(3, "bfloat16", [tokens, h - 4])) == Status.BAD_STRIDE
    assert emb(ids, weight, t(3, "bfloat16", [tokens, h], [0, 1])) == Status.BAD_STRIDE  # out rows collide
    assert emb(t(1, "int32", [tokens], offset=4), weight, out) == Status.MISALIGNED
    assert emb(ids, t(2, "bfloat16", [v, h], offset=2), out) == Status.MISALIGNED
    assert emb(ids, weight, t(2, "bfloat16", [tokens, h], offset=4096)) == Status.INVALID_ARGUMENT  # out in weight
    assert emb(ids, weight, t(1, "bfloat16", [tokens, h])) == Status.INVALID_ARGUMENT  # out over ids
    assert emb(ids, weight, out, device=-1) == Status.INVALID_DEVICE
    assert emb(t(0, "int32", [0]), weight, t(0, "bfloat16", [0, h])) == Status.OK
    # Offsets past the i32 index range of the table: only the int64-indexed (f16, int64 ids)
    # variant takes them; out (at 8 GiB past the table's start) stays i32-indexed.
    huge = t(2, "float16", [131072, 16400])  # 4.3 GB: byte extent and largest offset past 2^31
    assert emb(ids, t(2, "bfloat16", [131072, 16400]), t(4, "bfloat16", [tokens, 16400])) == Status.UNSUPPORTED_SHAPE
    assert "i32 index range" in message(lib)
    with ports.force_variant("embedding", "bf16_i32_gather_bt8_h256", library=ports_library):
        assert emb(ids, t(2, "bfloat16", [131072, 16400]), t(4, "bfloat16", [tokens, 16400])) \
            == Status.UNSUPPORTED_SHAPE
    assert emb(t(1, "int64", [64]), huge, t(4, "float16", [64, 16400])) in PAST_VALIDATION, message(lib)
    assert lib.tileir_kernels_selected_variant().decode() == "f16_i64_gather_bt8_h256_idx64"
    # A row stride past INT32_MAX is an i64 argument of that variant, not truncated.
    wide_rows = t(2, "float16", [3, 16], [(1 << 31) + 8, 1])
    assert emb(t(1, "int64", [4]), wide_rows, t(9, "float16", [4, 16])) in PAST_VALIDATION, message(lib)
    assert emb(t(1, "int32", [4]), t(2, "bfloat16", [3, 16], [(1 << 31) + 8, 1]), t(9, "bfloat16", [4, 16])) \
        == Status.UNSUPPORTED_SHAPE
    # A largest offset that overflows i64 is rejected, never wrapped; so is a negative stride.
    assert emb(t(1, "int64", [4]), t(2, "float16", [4, 16], [1 << 62, 1]), t(9, "float16", [4, 16])) \
        == Status.INVALID_SHAPE
    assert "overflows i64" in message(lib)
    assert emb(t(1, "int64", [4]), t(2, "float16", [4, 16], [-16, 1]), t(9, "float16", [4, 16])) == Status.BAD_STRIDE
    # Its out is indexed in i32: an out past that range is rejected.
    assert emb(t(1, "int64", [1 << 17]), t(2, "float16", [v, 16400]), t(4, "float16", [1 << 17, 16400])) \
        == Status.UNSUPPORTED_SHAPE
    assert "out" in message(lib)
    # A forced variant still checks its own dtypes.
    with ports.force_variant("embedding", "bf16_i64_rows_h1024", library=ports_library):
        assert emb(ids, weight, out) == Status.UNSUPPORTED_DTYPE


def _reference_args(op, variant, shape):
    """The C arguments ref.make_inputs gives for one analysis.json test shape (no torch)."""
    nc = set(shape.get("noncontiguous", []))
    dt = variant["dtypes"]
    if op == "argmax":
        return [_reference_layout(1, dt["x"], [shape["M"], shape["N"]], "x" in nc),
                _reference_layout(2, dt["out"], [shape["M"]], False)]
    if op == "cross_entropy":
        m = shape["M"]
        return [_reference_layout(1, dt["logits"], [m, shape["V"]], "logits" in nc),
                *(_reference_layout(i, dt[name], [m], False) for i, name in ((2, "target"), (3, "loss"), (4, "lse")))]
    if op == "cumsum":
        dims = [shape["M"], shape["N"]]
        return [_reference_layout(1, dt["x"], dims, "x" in nc), _reference_layout(2, dt["out"], dims, "out" in nc)]
    if op == "embedding":
        tokens, h = shape["T"], shape["H"]
        # out 8 GiB past the table's start: the _idx64 test table is 4.3 GB
        return [_reference_layout(1, dt["ids"], [tokens], False),
                _reference_layout(2, dt["weight"], [shape["V"], h], "weight" in nc),
                _reference_layout(4, dt["out"], [tokens, h], "out" in nc)]
    raise AssertionError(op)


@pytest.mark.parametrize("op", OPS)
def test_every_reference_test_shape_fits_its_forced_variant(lib, ports_library, op):
    assert_every_reference_test_shape_fits(lib, ports_library, op, _reference_args, skip=NOT_YET_PORTED)


@pytest.mark.parametrize("wrapper, error, also", [
    (lambda L: ports.argmax(FakeTensor(1, "torch.float16", [4, 8]), FakeTensor(2, "torch.int32", [4]), library=L),
     ports.UnsupportedDtypeError, TypeError),
    (lambda L: ports.argmax(FakeTensor(1, "torch.float32", [4, 8]), FakeTensor(2, "torch.int64", [5]), library=L),
     ports.ShapeMismatchError, ValueError),
    (lambda L: ports.cross_entropy(FakeTensor(1, "torch.float16", [4, 8]), FakeTensor(2, "torch.int64", [4]),
                                   FakeTensor(3, "torch.float32", [4]), FakeTensor(3, "torch.float32", [4]), library=L),
     ports.InvalidArgumentError, ValueError),
    (lambda L: ports.cumsum(FakeTensor(1, "torch.float16", [4, 8], [1, 4]), FakeTensor(2, "torch.float16", [4, 8]),
                            library=L), ports.BadStrideError, ValueError),
])
def test_wrapper_raises_the_exception_of_the_code(ports_library, wrapper, error, also):
    with pytest.raises(error) as info:
        wrapper(ports_library)
    assert isinstance(info.value, also) and info.value.status == error.status and str(info.value)


@pytest.mark.skipif(driver_present(), reason="a CUDA driver is installed here")
@pytest.mark.parametrize("wrapper", [
    lambda L: ports.argmax(FakeTensor(1, "torch.bfloat16", [4, 16]), FakeTensor(2, "torch.int64", [4]), library=L),
    lambda L: ports.cross_entropy(FakeTensor(1, "torch.float32", [4, 100]), FakeTensor(2, "torch.int64", [4]),
                                  FakeTensor(3, "torch.float32", [4]), FakeTensor(4, "torch.float32", [4]), library=L),
    lambda L: ports.cumsum(FakeTensor(1, "torch.bfloat16", [4, 2000]), FakeTensor(1, "torch.bfloat16", [4, 2000]),
                           library=L),
    lambda L: ports.embedding(FakeTensor(1, "torch.int64", [100]), FakeTensor(2, "torch.bfloat16", [10, 16]),
                              FakeTensor(3, "torch.bfloat16", [100, 16]), library=L),
], ids=["argmax", "cross_entropy", "cumsum_in_place", "embedding"])
def test_wrappers_pass_validation_and_stop_at_the_driver(ports_library, wrapper):
    with pytest.raises(ports.DriverUnavailableError):
        wrapper(ports_library)
