"""View and pointer memory access: padding modes, hints, orderings, gather/scatter, views."""
from ._common import arr, array_list, case, const, ct, scalar

B = 64
P = ct.PaddingMode


@ct.kernel
def load_every_padding_mode(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    r = ct.load(x, index=(i,), shape=(BLOCK,))                                   # undetermined
    r = r + ct.load(x, index=(i + 1,), shape=(BLOCK,), padding_mode=P.ZERO)
    r = r + ct.load(x, index=(i + 2,), shape=(BLOCK,), padding_mode=P.NEG_ZERO)
    r = r + ct.load(x, index=(i + 3,), shape=(BLOCK,), padding_mode=P.NAN)
    r = r + ct.load(x, index=(i + 4,), shape=(BLOCK,), padding_mode=P.POS_INF)
    r = ct.maximum(r, ct.load(x, index=(i + 5,), shape=(BLOCK,), padding_mode=P.NEG_INF))
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def load_store_hints(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,), latency=3)
    b = ct.load(x, index=(i + 1,), shape=(BLOCK,), allow_tma=False)
    c = ct.load(x, index=(i + 2,), shape=(BLOCK,), latency=10, allow_tma=True)
    ct.store(z, index=(i,), tile=a + b + c, latency=1, allow_tma=False)
    ct.store(z, index=(i + 1,), tile=a, latency=7)


@ct.kernel
def load_store_memory_order(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,), memory_order=ct.MemoryOrder.ACQUIRE,
                memory_scope=ct.MemoryScope.DEVICE)
    b = ct.load(x, index=(i + 1,), shape=(BLOCK,), memory_order=ct.MemoryOrder.RELAXED,
                memory_scope=ct.MemoryScope.BLOCK)
    c = ct.load(x, index=(i + 2,), shape=(BLOCK,), memory_order=ct.MemoryOrder.ACQUIRE,
                memory_scope=ct.MemoryScope.SYS)
    ct.store(z, index=(i,), tile=a + b + c, memory_order=ct.MemoryOrder.RELEASE,
             memory_scope=ct.MemoryScope.SYS)
    ct.store(z, index=(i + 1,), tile=a, memory_order=ct.MemoryOrder.RELAXED,
             memory_scope=ct.MemoryScope.DEVICE)


@ct.kernel
def load_store_unchecked(x, z, BLOCK: ct.Constant[int]):
    # check_bounds=False needs 13.4.
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,), check_bounds=False)
    ct.store(z, index=(i,), tile=a * 2.0, check_bounds=False)


@ct.kernel
def load_axis_order(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.bid(1)
    a = ct.load(x, index=(j, i), shape=(BN, BM), order="F", padding_mode=P.ZERO)
    b = ct.load(x, index=(j, i), shape=(BN, BM), order=(1, 0))
    ct.store(z, index=(i, j), tile=ct.transpose(a + b), order="C")


@ct.kernel
def load_3d(x, z, B0: ct.Constant[int], B1: ct.Constant[int], B2: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.bid(1)
    k = ct.bid(2)
    a = ct.load(x, index=(i, j, k), shape=(B0, B1, B2), padding_mode=P.ZERO)
    ct.store(z, index=(i, j, k), tile=a + 1.0)


@ct.kernel
def tiled_view_load_store(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    tv = x.tiled_view((BM, BN), padding_mode=P.ZERO)
    out = z.tiled_view((BM, BN))
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for j in range(tv.num_tiles(1)):
        acc = acc + tv.load((i, j), latency=2)
    out.store((i, 0), acc, allow_tma=False)


@ct.kernel
def tiled_view_traversal_steps(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    # Overlapping tiles (traversal step < tile shape) use a strided view; needs 13.3.
    i = ct.bid(0)
    tv = x.tiled_view((BM, BN), traversal_steps=(1, BN), padding_mode=P.ZERO)
    a = tv.load((i, 0))
    ct.store(z, index=(i, 0), tile=a)


@ct.kernel
def array_slice(x, z, start, length, BLOCK: ct.Constant[int]):
    sub = x.slice(axis=0, start=start, stop=start + length)
    i = ct.bid(0)
    a = ct.load(sub, index=(i,), shape=(BLOCK,), padding_mode=P.ZERO)
    ct.store(z, index=(i,), tile=a)


@ct.kernel
def advanced_indexing(x, rows, z, col_start, R: ct.Constant[int], C: ct.Constant[int]):
    idx = ct.load(rows, index=(0,), shape=(R,))
    t = ct.load_advanced_indexing(x, (idx, ct.Slice(col_start, C)), padding_mode=P.ZERO,
                                  latency=4)
    ct.store_advanced_indexing(z, (idx, ct.Slice(col_start, C)), t * 2.0, allow_tma=False)


@ct.kernel
def gather_scatter_masked(x, idx, z, n, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    ind = ct.load(idx, index=(i,), shape=(BLOCK,))
    mask = ind < n
    a = ct.gather(x, ind, mask=mask, padding_value=-1.0, latency=5)
    b = ct.gather(x, ind + 1)
    c = ct.gather(x, (ind,), check_bounds=False)
    ct.scatter(z, ind, a + b + c, mask=mask, latency=2)
    ct.scatter(z, ind + 1, a, check_bounds=False)


@ct.kernel
def gather_2d(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    rows = ct.arange(BM, dtype=ct.int32)
    cols = ct.arange(BN, dtype=ct.int32)
    t = ct.gather(x, (ct.expand_dims(rows, 1), ct.expand_dims(cols, 0)), padding_value=0.0)
    ct.scatter(z, (ct.expand_dims(cols, 1), ct.expand_dims(rows, 0)), ct.transpose(t))


@ct.kernel
def raw_memory_offsets(x, z, BLOCK: ct.Constant[int]):
    off = ct.arange(BLOCK, dtype=ct.int32) * 2
    src = x.get_raw_memory()
    dst = z.get_raw_memory()
    a = src.load_offset(off, mask=off < 100, padding_value=0.0, latency=3)
    dst.store_offset(off, a + 1.0, mask=off < 50)
    dst.store_offset(off + 1, a, latency=9)


@ct.kernel
def num_tiles_and_shape(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    n0 = ct.num_tiles(x, axis=0, shape=(BM, BN))
    n1 = ct.num_tiles(x, axis=1, shape=(BM, BN))
    total = ct.full((1, 1), n0 * n1 + x.shape[0] + x.shape[1] + x.strides[0], dtype=ct.int32)
    ct.store(z, index=(0, 0), tile=total)


@ct.kernel
def array_list_param(xs, z, BLOCK: ct.Constant[int]):
    # A list of arrays arrives as one packed i64 tile (pointer, shapes, strides per element).
    i = ct.bid(0)
    acc = ct.zeros((BLOCK,), dtype=ct.float32)
    for k in range(len(xs)):
        acc = acc + ct.load(xs[k], index=(i,), shape=(BLOCK,), padding_mode=P.ZERO)
    ct.store(z, index=(i,), tile=acc)


@ct.kernel
def foreign_pointer_view(x, z, BLOCK: ct.Constant[int]):
    view = ct.Array.from_foreign(x.foreign_pointer, x.shape, x.strides)
    i = ct.bid(0)
    ct.store(z, index=(i,), tile=ct.load(view, index=(i,), shape=(BLOCK,)))


@ct.kernel
def copy_2d(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.bid(1)
    ct.store(z, index=(i, j), tile=ct.load(x, index=(i, j), shape=(BM, BN), padding_mode=P.ZERO))


f32 = arr(ct.float32, 1)
f32_2d = arr(ct.float32, 2)
i64_idx = dict(index_dtype=ct.int64)
CASES = [
    case("load_every_padding_mode", load_every_padding_mode, [f32, f32, const(B)]),
    case("load_store_hints", load_store_hints, [f32, f32, const(B)]),
    case("load_store_memory_order", load_store_memory_order, [f32, f32, const(B)]),
    case("load_store_unchecked", load_store_unchecked, [f32, f32, const(B)]),
    case("load_axis_order", load_axis_order, [f32_2d, f32_2d, const(32), const(16)]),
    case("load_3d_int64_index", load_3d,
         [arr(ct.float16, 3, **i64_idx), arr(ct.float16, 3, **i64_idx), const(2), const(8),
          const(16)]),
    case("tiled_view_load_store", tiled_view_load_store, [f32_2d, f32_2d, const(16), const(32)]),
    case("tiled_view_traversal_steps", tiled_view_traversal_steps,
         [f32_2d, f32_2d, const(8), const(32)]),
    case("array_slice", array_slice,
         [f32, f32, scalar(ct.int32), scalar(ct.int32), const(B)]),
    case("advanced_indexing", advanced_indexing,
         [f32_2d, arr(ct.int32, 1), f32_2d, scalar(ct.int32), const(8), const(16)]),
    case("gather_scatter_masked", gather_scatter_masked,
         [f32, arr(ct.int32, 1), f32, scalar(ct.int32), const(B)]),
    case("gather_scatter_int64_index", gather_scatter_masked,
         [arr(ct.float32, 1, **i64_idx), arr(ct.int64, 1, **i64_idx),
          arr(ct.float32, 1, **i64_idx), scalar(ct.int64), const(B)]),
    case("gather_2d", gather_2d, [f32_2d, f32_2d, const(8), const(16)]),
    case("raw_memory_offsets", raw_memory_offsets, [f32, f32, const(B)]),
    case("num_tiles_and_shape", num_tiles_and_shape,
         [f32_2d, arr(ct.int32, 2), const(16), const(32)]),
    case("array_list_param", array_list_param, [array_list(f32), f32, const(B)]),
    case("foreign_pointer_view", foreign_pointer_view, [f32, f32, const(B)]),
    # ArrayConstraint specialisations: divisibility assumes, constant strides / shapes.
    case("copy_divisibility", copy_2d,
         [arr(ct.float32, 2, base_addr_divisible_by=16, shape_divisible_by=(16, 8),
              stride_divisible_by=(8, 1)),
          arr(ct.float32, 2, base_addr_divisible_by=128, shape_divisible_by=16,
              stride_divisible_by=16), const(16), const(32)]),
    case("copy_stride_constant", copy_2d,
         [arr(ct.float32, 2, stride_constant=(None, 1)),
          arr(ct.float32, 2, stride_constant=(4096, 1)), const(16), const(32)]),
    case("copy_shape_constant", copy_2d,
         [arr(ct.float32, 2, shape_constant=(None, 4096), stride_constant=(4096, 1)),
          arr(ct.float32, 2, shape_constant=(1024, 4096)), const(16), const(32)]),
    case("copy_int64_index_stride_lower_bound", copy_2d,
         [arr(ct.bfloat16, 2, index_dtype=ct.int64, stride_lower_bound_incl=(1, 1)),
          arr(ct.bfloat16, 2, index_dtype=ct.int64), const(16), const(32)]),
]
