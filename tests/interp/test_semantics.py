"""Op semantics of the interpreter on small hand-written kernels (text form) and corpus kernels."""
from __future__ import annotations

import numpy as np
import pytest

from tileir_diff import load, parse_text
from tileir_diff.ir import Module
from tileir_diff.interp import (HostArray, InterpreterError, KernelAssertionError, Memory, MemoryAccessError, Options,
                                UnsupportedOpError, run_kernel)
from tileir_diff.interp import dtypes as dt
from tileir_diff.suite.catalog import repo_root

CORPUS = repo_root() / "tests" / "corpus" / "data"


def elementwise(elem: str, body: str, n: int = 8, out_elem: str | None = None, padding: str = "") -> "Module":
    """entry @k(x: ptr<elem>, n, stride, z: ptr<out>, n, stride): z[:n] = body(%x) over one tile of n."""
    out_elem = out_elem or elem
    pad = f"padding_value = {padding}, " if padding else ""
    tv = f"tensor_view<?x{elem}, strides=[?]>"
    tvo = f"tensor_view<?x{out_elem}, strides=[?]>"
    return parse_text(f"""
entry @k(%a0: tile<ptr<{elem}>>, %a1: tile<i32>, %a2: tile<i32>, %a3: tile<ptr<{out_elem}>>, %a4: tile<i32>, %a5: tile<i32>) {{
  %tv = make_tensor_view %a0, shape = [%a1], strides = [%a2] : tile<i32> -> {tv}
  %pv = make_partition_view %tv : partition_view<tile=({n}), {pad}{tv}>
  %tvo = make_tensor_view %a3, shape = [%a4], strides = [%a5] : tile<i32> -> {tvo}
  %pvo = make_partition_view %tvo : partition_view<tile=({n}), {tvo}>
  %bid, %by, %bz = get_tile_block_id : tile<i32>
  %tok = make_token : token
  %x, %t1 = load_view_tko weak %pv[%bid] token = %tok : partition_view<tile=({n}), {pad}{tv}>, tile<i32> -> tile<{n}x{elem}>, token
{body}
  %t2 = store_view_tko weak %y, %pvo[%bid] token = %tok : tile<{n}x{out_elem}>, partition_view<tile=({n}), {tvo}>, tile<i32> -> token
  return
}}
""")


def run1(module, x, out_dtype=None, grid=(1, 1, 1)):
    z = np.zeros(x.shape, dtype=out_dtype or x.dtype)
    run_kernel(module, [x, z], grid)
    return z


@pytest.mark.parametrize("mode,ref", [("zero", lambda a, b: int(a / b)),
                                      ("negative_inf", lambda a, b: a // b),
                                      ("positive_inf", lambda a, b: -((-a) // b))])
def test_divi_signed_rounding(mode, ref):
    m = elementwise("i32", f"""  %c = constant <i32: -3> : tile<8xi32>
  %y = divi %x, %c signed rounding<{mode}> : tile<8xi32>""")
    x = np.array([-7, -6, -5, -1, 0, 1, 5, 7], np.int32)
    assert run1(m, x).tolist() == [ref(int(a), -3) for a in x]


def test_divi_unsigned_and_by_zero():
    m = elementwise("i32", """  %y = divi %x, %x unsigned : tile<8xi32>""")
    x = np.array([-1, 0, 2, 3, 5, 7, 9, 11], np.int32)
    # x / x is 1, and division by zero gives all ones (documented choice)
    assert run1(m, x).tolist() == [1, -1, 1, 1, 1, 1, 1, 1]


def test_integer_overflow_wraps_and_shifts():
    m = elementwise("i32", """  %c = constant <i32: 1> : tile<8xi32>
  %s = addi %x, %c : tile<8xi32>
  %k = constant <i32: 28> : tile<8xi32>
  %y = shri %s, %k unsigned : tile<8xi32>""")
    x = np.array([2 ** 31 - 1, -1, -2, 0, 15, 2 ** 28, -(2 ** 31), 7], np.int32)
    s = (x.astype(np.int64) + 1) & 0xFFFFFFFF
    assert run1(m, x).tolist() == (s >> 28).tolist()
    m = elementwise("i32", """  %k = constant <i32: 4> : tile<8xi32>
  %y = shri %x, %k signed : tile<8xi32>""")
    assert run1(m, x).tolist() == (x >> 4).tolist()


@pytest.mark.parametrize("ordering,expect_nan", [("ordered", False), ("unordered", True)])
def test_cmpf_ordering(ordering, expect_nan):
    m = elementwise("f32", f"""  %c = constant <f32: 1.0> : tile<8xf32>
  %b = cmpf less_than {ordering} %x, %c : tile<8xf32> -> tile<8xi1>
  %y = exti %b unsigned : tile<8xi1> -> tile<8xi32>""", out_elem="i32")
    x = np.array([0.0, 2.0, np.nan, -1.0, 1.0, np.inf, -np.inf, 0.5], np.float32)
    got = run1(m, x, np.int32)
    want = ((x < 1.0) | (np.isnan(x) & expect_nan)).astype(np.int32)
    assert got.tolist() == want.tolist()


def test_ftof_to_bf16_rounds_to_nearest_even():
    m = elementwise("f32", """  %y = ftof %x : tile<8xf32> -> tile<8xbf16>""", out_elem="bf16")
    one = 1.0
    x = np.array([one + 2 ** -8, one + 3 * 2 ** -8, one + 2 ** -9, -(one + 2 ** -8), 3.0e38, np.nan, 0.0, -0.0],
                 np.float32)
    z = HostArray(np.zeros(8, np.float32), "bfloat16")
    run_kernel(m, [x, z], (1, 1, 1))
    got = z.values
    assert got[:4].tolist() == [1.0, one + 2 ** -6, 1.0, -1.0]
    assert got[4] == np.float32(dt.round_bf16(np.float32(3.0e38)))
    assert np.isnan(got[5]) and np.signbit(got[7]) and not np.signbit(got[6])


def test_ftoi_saturates_and_maps_nan_to_zero():
    m = elementwise("f32", """  %y = ftoi %x signed : tile<8xf32> -> tile<8xi8>""", out_elem="i8")
    x = np.array([1.9, -1.9, 300.0, -300.0, np.nan, 127.0, -128.0, 0.5], np.float32)
    assert run1(m, x, np.int8).tolist() == [1, -1, 127, -128, 0, 127, -128, 0]


def test_padding_and_masked_store():
    m = elementwise("f32", """  %y = addf %x, %x : tile<8xf32>""", padding="nan")
    memory = Memory()
    x = memory.put_array(np.arange(8, dtype=np.float32), "f32")
    z = memory.put_array(np.full(8, 7.0, np.float32), "f32")
    # both views see 5 elements of the 8 in memory
    run_kernel(m, [x, 5, 1, z, 5, 1], (1, 1, 1), memory=memory, flat=True)
    out = memory.get_array(z, (8,), (1,), "f32")
    assert out.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 7.0, 7.0, 7.0]  # elements 5.. never written


def test_padded_values_reach_a_reduction():
    m = elementwise("f32", """  %r = reduce %x dim=0 identities=[0.000000e+00 : f32] : tile<8xf32> -> tile<f32>
  (%l: tile<f32>, %rr: tile<f32>) {
    %s = addf %l, %rr : tile<f32>
    yield %s : tile<f32>
  }
  %r1 = reshape %r : tile<f32> -> tile<1xf32>
  %y = broadcast %r1 : tile<1xf32> -> tile<8xf32>""", padding="nan")
    x = np.arange(5, dtype=np.float32)
    assert np.isnan(run1(m, x)).all()  # the padded NaNs are summed in


@pytest.mark.parametrize("order", ["tree", "sequential"])
def test_reduce_orders_agree_on_exact_sums(order):
    m = elementwise("f32", """  %r = reduce %x dim=0 identities=[0.000000e+00 : f32] : tile<8xf32> -> tile<f32>
  (%l: tile<f32>, %rr: tile<f32>) {
    %s = addf %l, %rr : tile<f32>
    yield %s : tile<f32>
  }
  %r1 = reshape %r : tile<f32> -> tile<1xf32>
  %y = broadcast %r1 : tile<1xf32> -> tile<8xf32>""")
    x = np.arange(8, dtype=np.float32)
    z = np.zeros(8, np.float32)
    run_kernel(m, [x, z], (1, 1, 1), options=Options(reduce_order=order))
    assert z.tolist() == [28.0] * 8


def test_grid_blocks_share_memory_and_see_their_ids():
    m = elementwise("f32", """  %y = negf %x : tile<4xf32>""", n=4)
    x = np.arange(10, dtype=np.float32)
    assert run1(m, x, grid=(3, 1, 1)).tolist() == (-x).tolist()


def test_multi_operand_reduce_and_scan_pair_arguments_per_operand():
    m = load(str(CORPUS / "argmax_argmin.v13_4.tileirbc"))
    x = np.random.default_rng(0).standard_normal((16, 16)).astype(np.float32)
    z = np.zeros(16, np.int32)
    run_kernel(m, [x, z], (1, 1, 1))
    assert z.tolist() == (x.argmax(1) * 2 + x.argmin(1) + x.argmin(0)).tolist()
    m = load(str(CORPUS / "scan_multi_operand.v13_4.tileirbc"))
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0.5, 1.5, 128).astype(np.float32), rng.standard_normal(128).astype(np.float32)
    h = np.zeros(128, np.float32)
    run_kernel(m, [a, b, h], (1, 1, 1))
    want, acc = [], np.float32(0)
    for i in range(128):
        acc = np.float32(np.float64(acc) * np.float64(a[i]) + np.float64(b[i]))  # the combiner's fma: one rounding
        want.append(acc)
    np.testing.assert_allclose(h, want, rtol=1e-5)


def test_unsupported_op_is_named_with_its_location():
    m = load(str(CORPUS / "pack_unpack_bytes.v13_4.tileirbc"))
    with pytest.raises(UnsupportedOpError, match=r"unsupported op pack at f0/o\d+"):
        run_kernel(m, [np.zeros(64, np.float32), np.zeros(64, np.float32)], (1, 1, 1))


def test_assert_raises_and_print_is_captured():
    m = load(str(CORPUS / "assert_runtime.v13_4.tileirbc"))
    x = np.arange(-2, 126, dtype=np.float32)
    with pytest.raises(KernelAssertionError, match="negative input"):
        run_kernel(m, [x, 4], (1, 1, 1))
    m = load(str(CORPUS / "printf_and_print.v13_4.tileirbc"))
    r = run_kernel(m, [np.ones(64, np.float32)], (2, 1, 1))
    assert any("block 1 of 2" in line for line in r.prints), r.prints


def test_pointer_out_of_bounds_is_an_error_not_garbage():
    memory = Memory()
    base = memory.put_array(np.zeros(4, np.float32), "f32")
    with pytest.raises(MemoryAccessError):
        memory.load(np.array([base + 16]), "f32")
    with pytest.raises(MemoryAccessError):
        memory.load(np.array([base + 2]), "f32")  # misaligned


def test_wrong_argument_count_names_the_signature():
    m = elementwise("f32", """  %y = negf %x : tile<8xf32>""")
    with pytest.raises(InterpreterError, match="takes 6 arguments"):
        run_kernel(m, [np.zeros(8, np.float32)], (1, 1, 1))


def test_minifloat_rounding():
    assert dt.round_to(np.array([448.0, 464.0, 500.0, -0.0]), "f8E4M3FN").tolist()[:2] == [448.0, 448.0]
    assert np.isnan(dt.round_to(np.array([500.0]), "f8E4M3FN"))[0]  # no infinity in e4m3fn
    assert np.isinf(dt.round_to(np.array([1e6]), "f8E5M2"))[0]
    assert dt.round_to(np.array([1.0 + 2 ** -4]), "f8E4M3FN")[0] == 1.0  # tie to even
