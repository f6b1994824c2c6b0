"""Grouped GEMM over G problems that share K and N (MoE expert layout) in cuTile Python.

Rows of ``a`` are sorted by group: group g owns rows [offsets[g], offsets[g+1])
and multiplies them by its own weight ``w[g]``. The group boundaries live in a
device array, so the host launches an upper bound of row tiles,
cdiv(T, BM) + G per column tile, without reading the offsets back; each block
finds its (group, row tile) by scanning the offsets and idles if it has none.

Group row ranges start anywhere, so A rows are read with
``load_advanced_indexing`` (row index tile + K slice) and C rows are written
with a masked ``scatter`` that never touches the next group's rows.
"""
import cuda.tile as ct

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]


def find_group_tile(offsets, row_tile, BM):
    """Return (group, first_row, end_row) of the row tile ``row_tile`` in group order, group = -1 if none."""
    num_groups = offsets.shape[0] - 1
    tiles_before = 0
    group = -1
    first_row = 0
    end_row = 0
    for g in range(num_groups):
        start = ct.load(offsets, index=(g,), shape=())
        end = ct.load(offsets, index=(g + 1,), shape=())
        tiles = ct.cdiv(end - start, BM)
        if row_tile >= tiles_before and row_tile < tiles_before + tiles:
            group = g
            first_row = start + (row_tile - tiles_before) * BM
            end_row = end
        tiles_before = tiles_before + tiles
    return group, first_row, end_row


@ct.kernel
def group_gemm(a, w, offsets, c,
               BM: ConstInt, BN: ConstInt, BK: ConstInt, TRANS_W: ConstBool):
    """c[rows of g] = a[rows of g] @ op(w[g]); w is (G, K, N), or (G, N, K) when TRANS_W."""
    tile_n = ct.bid(0)
    group, first_row, end_row = find_group_tile(offsets, ct.bid(1), BM)
    if group >= 0:
        rows = first_row + ct.arange(BM, dtype=ct.int32)
        w_order = ct.static_eval((0, 2, 1) if TRANS_W else (0, 1, 2))
        acc = ct.zeros((BM, BN), dtype=ct.float32)
        for kk in range(ct.cdiv(a.shape[1], BK)):
            # rows past end_row belong to the next group (or are past T: zero padded);
            # their results are masked out at the store
            ta = ct.load_advanced_indexing(a, (rows, ct.Slice(kk * BK, BK)),
                                           padding_mode=ct.PaddingMode.ZERO)
            tw = ct.load(w, index=(group, kk, tile_n), shape=(1, BK, BN), order=w_order,
                         padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(ta, ct.reshape(tw, (BK, BN)), acc)
        cols = tile_n * BN + ct.arange(BN, dtype=ct.int32)
        keep = ct.expand_dims(rows < end_row, 1)
        ct.scatter(c, (ct.expand_dims(rows, 1), ct.expand_dims(cols, 0)),
                   ct.astype(acc, c.dtype), mask=keep)


def _group_gemm_sliced(a, w, offsets, c,
                       BM: ConstInt, BN: ConstInt, BK: ConstInt, TRANS_W: ConstBool):
    """group_gemm with a and c viewed as the group's row range (Array.slice), so A tiles and C
    tiles are plain tiled loads/stores (TMA) bounded at the group's end instead of gather/scatter."""
    tile_n = ct.bid(0)
    group, first_row, end_row = find_group_tile(offsets, ct.bid(1), BM)
    if group >= 0:
        a_rows = a.slice(axis=0, start=first_row, stop=end_row)
        c_rows = c.slice(axis=0, start=first_row, stop=end_row)
        w_order = ct.static_eval((0, 2, 1) if TRANS_W else (0, 1, 2))
        acc = ct.zeros((BM, BN), dtype=ct.float32)
        for kk in range(ct.cdiv(a.shape[1], BK)):
            ta = ct.load(a_rows, index=(0, kk), shape=(BM, BK), padding_mode=ct.PaddingMode.ZERO)
            tw = ct.load(w, index=(group, kk, tile_n), shape=(1, BK, BN), order=w_order,
                         padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(ta, ct.reshape(tw, (BK, BN)), acc)
        ct.store(c_rows, index=(0, tile_n), tile=ct.astype(acc, c.dtype))


group_gemm_sliced = ct.kernel(_group_gemm_sliced)
# num_worker_warps=8: two consumer warpgroups, for BN=256 tiles
group_gemm_sliced_w8 = ct.kernel(_group_gemm_sliced, num_worker_warps=8)


def select_variant(dtype: str, trans_w: bool, aligned: bool) -> str | None:
    """The launcher's choice for a grouped GEMM of `dtype` (a torch dtype name) with weights stored
    (G, N, K) when `trans_w`, else (G, K, N); `aligned`: every base 16-byte aligned, every
    leading stride a multiple of 8 elements, and for bf16 c's rows (N) a multiple of 8 elements
    (with that contract, `shape_divisible_by` on c, tileiras stores the tile with stmatrix and TMA:
    1.4-1.9 % faster on the H100; f16's 64x128 kernel ran 2.4 % slower with it and does not
    declare it; docs/results/tuning.md, session 27). None when no variant takes it (f16 with (G, K, N)
    weights, other dtypes, unaligned operands). Measured (scripts/gpu/bench_selection.py,
    docs/results/selection.json, held within 1.10x of the fastest by
    tests/suite/test_selection_results.py): the sliced kernels (plain tiled loads of the group's
    row range) beat the gather kernel at every size, 2.1-5.0x for bf16: bf16 takes the sliced
    128x256x64 on two consumer warpgroups, f16 the sliced 64x128x64. They trust the offsets:
    offsets[0] = 0 <= offsets[g] <= offsets[g + 1] <= offsets[G] <= T is the caller's contract
    (out-of-range offsets read and write outside a and c). The Rust library's cutile_group_gemm
    chooses the same (tests/rust/test_selection.py)."""
    if not aligned:
        return None
    if dtype == "bfloat16":
        return "bf16_nk_sliced_w8_128x256x64" if trans_w else "bf16_kn_sliced_w8_128x256x64"
    if dtype == "float16" and trans_w:
        return "f16_nk_sliced_64x128x64"
    return None
