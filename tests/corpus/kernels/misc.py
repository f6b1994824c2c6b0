"""Printing, asserts, globals, entry hints, grid-dependency control, assumes, multi-entry files."""
from ._common import arr, case, const, ct, multi_case, scalar, tuple_of

B = 64


@ct.kernel
def printf_and_print(x, BLOCK: ct.Constant[int]):
    # Below 13.2 printing is guarded by a global mutex (global + get_global + cas loop).
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(BLOCK,))
    ct.printf("block %d of %d: first=%f\n", i, ct.num_blocks(0), ct.sum(t))
    ct.print("tile", i, t, sep=" | ", end="\n")
    ct.print(f"sum={ct.sum(t)} max={ct.max(t):.3f}")


@ct.kernel
def assert_runtime(x, n, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(BLOCK,))
    ct.assert_(t >= 0.0, "negative input")
    ct.assert_(i < n)
    ct.static_assert(BLOCK % 16 == 0, "BLOCK must be a multiple of 16")


@ct.kernel(occupancy=2, num_ctas=2)
def hinted_entry(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(z, index=(i,), tile=ct.load(x, index=(i,), shape=(BLOCK,)) + 1.0)


@ct.kernel(occupancy=ct.ByTarget(sm_100=4, default=1), num_ctas=ct.ByTarget(sm_90=4, default=1),
           opt_level=2)
def hinted_by_target(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(z, index=(i,), tile=ct.load(x, index=(i,), shape=(BLOCK,)) * 3.0)


@ct.kernel(num_worker_warps=8)
def hinted_worker_warps(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(z, index=(i,), tile=ct.load(x, index=(i,), shape=(BLOCK,)) - 1.0)


@ct.kernel
def grid_dependency_control(x, z, BLOCK: ct.Constant[int]):
    ct.grid_dependency_control_wait()
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(BLOCK,))
    ct.grid_dependency_control_launch_dependents()
    ct.store(z, index=(i,), tile=t)


@ct.kernel
def assume_scalar_divisibility(x, z, n, stride):
    # Scalar facts for the compiler: assume div_by on runtime scalars.
    n16 = ct.assume_divisible_by(n, 16)
    s8 = ct.assume_divisible_by(stride, 8)
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(64,))
    ct.store(z, index=(i,), tile=t + n16 + s8)


@ct.kernel
def grid_ids_3d(z):
    # bid and num_blocks along all three grid axes.
    v = ct.bid(0) + ct.bid(1) * ct.num_blocks(0) + ct.bid(2) * ct.num_blocks(0) * ct.num_blocks(1)
    ct.store(z, index=(v,), tile=ct.full((1,), ct.num_blocks(2), dtype=ct.int32))


@ct.function
def _gelu_tanh(v):
    c = 0.7978845608028654
    return 0.5 * v * (1.0 + ct.tanh(c * (v + 0.044715 * v * v * v)))


@ct.kernel
def tile_function_call(x, z, BLOCK: ct.Constant[int]):
    # A @ct.function helper is inlined into the entry.
    i = ct.bid(0)
    ct.store(z, index=(i,), tile=_gelu_tanh(ct.load(x, index=(i,), shape=(BLOCK,))))


@ct.kernel
def tuple_param(pair, z, scale, BLOCK: ct.Constant[int]):
    # A tuple parameter flattens into its members' kernel arguments.
    i = ct.bid(0)
    a = ct.load(pair[0], index=(i,), shape=(BLOCK,))
    b = ct.load(pair[1], index=(i,), shape=(BLOCK,))
    ct.store(z, index=(i,), tile=(a + b) * scale)


@ct.kernel
def annotated_int64(big: ct.IndexedWithInt64, small, n: ct.ScalarInt64, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(big, index=(i,), shape=(BLOCK,))
    ct.store(small, index=(i,), tile=t + n)


@ct.kernel
def axpy(x, y, z, alpha, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(y, index=(i,), shape=(BLOCK,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(z, index=(i,), tile=alpha * a + b)


@ct.kernel
def row_softmax(x, z, D: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, D), padding_mode=ct.PaddingMode.NEG_INF)
    t = t.astype(ct.float32)
    e = ct.exp(t - ct.max(t, axis=1, keepdims=True))
    ct.store(z, index=(r, 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(z.dtype))


f32 = arr(ct.float32, 1)
CASES = [
    case("printf_and_print", printf_and_print, [f32, const(B)]),
    case("assert_runtime", assert_runtime, [f32, scalar(ct.int32), const(B)]),
    case("hinted_entry", hinted_entry, [f32, f32, const(B)]),
    case("hinted_by_target", hinted_by_target, [f32, f32, const(B)]),
    case("hinted_worker_warps", hinted_worker_warps, [f32, f32, const(B)]),
    case("grid_dependency_control", grid_dependency_control, [f32, f32, const(B)]),
    case("assume_scalar_divisibility", assume_scalar_divisibility,
         [f32, f32, scalar(ct.int32), scalar(ct.int64)]),
    case("grid_ids_3d", grid_ids_3d, [arr(ct.int32, 1)]),
    case("tile_function_call", tile_function_call, [f32, f32, const(B)]),
    case("tuple_param", tuple_param,
         [tuple_of(f32, f32), f32, scalar(ct.float32), const(B)]),
    case("annotated_int64", annotated_int64,
         [arr(ct.float32, 1, index_dtype=ct.int64), f32, scalar(ct.int64), const(B)]),
    # Several entry functions in one file: one per signature of the same kernel.
    multi_case("multi_entry_axpy_dtypes", axpy, [
        ("axpy_f32", [f32, f32, f32, scalar(ct.float32), const(B)]),
        ("axpy_f16", [arr(ct.float16, 1)] * 3 + [scalar(ct.float16), const(B)]),
        ("axpy_bf16", [arr(ct.bfloat16, 1)] * 3 + [scalar(ct.bfloat16), const(B)]),
    ]),
    multi_case("multi_entry_axpy_blocks", axpy, [
        ("axpy_b64", [f32, f32, f32, scalar(ct.float32), const(64)]),
        ("axpy_b256", [f32, f32, f32, scalar(ct.float32), const(256)]),
        ("axpy_b1024_i64", [arr(ct.float32, 1, index_dtype=ct.int64)] * 3
         + [scalar(ct.float32), const(1024)]),
    ]),
    multi_case("multi_entry_softmax_widths", row_softmax, [
        ("softmax_256", [arr(ct.float16, 2), arr(ct.float16, 2), const(256)]),
        ("softmax_1024", [arr(ct.float16, 2), arr(ct.float16, 2), const(1024)]),
    ]),
    multi_case("multi_entry_layouts", axpy, [
        ("axpy_dyn", [f32, f32, f32, scalar(ct.float32), const(B)]),
        ("axpy_aligned", [arr(ct.float32, 1, base_addr_divisible_by=16, shape_divisible_by=64)] * 3
         + [scalar(ct.float32), const(B)]),
        ("axpy_fixed", [arr(ct.float32, 1, shape_constant=(4096,), stride_constant=(1,))] * 3
         + [scalar(ct.float32), const(B)]),
        ("axpy_int_alpha", [f32, f32, f32, scalar(ct.int32), const(B)]),
    ]),
]
