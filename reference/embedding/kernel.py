"""Token embedding lookup in cuTile Python: out[t, :] = weight[ids[t], :].

The gather at the front of every LLM forward pass: ids (T,) int32 or int64 token ids into a
(V, H) table, rows copied unchanged (no arithmetic, so the result is bit-exact).

- ``embedding_rows``: one token per block. The block reads its id as a scalar and copies the
  row in TILE_H-wide tiles; the id is the tile-space row index of a (1, TILE_H) load, so every
  load is a plain strided tile load. The last hidden tile of a ragged H is zero padded on load
  and masked on store.
- ``embedding_gather``: BT tokens per block. The block loads BT ids as a tile and gathers the
  (BT, TILE_H) slab with ``load_advanced_indexing`` (sparse dim 0 = the ids, dense dim 1 = a
  hidden slice), then stores it as one 2-D tile. Ids past T (ragged last block) are read as 0,
  i.e. row 0, which always exists; the store masks those rows. The id tile is narrowed to int32
  (see below); the table's own index math is int32 or int64 by its export index_dtype.

Ids must lie in [0, V), as torch.nn.functional.embedding requires; neither kernel checks them
(an id past V reads padding or, for ``embedding_rows``, a tile wholly outside the table, which
cuTile leaves undefined).
"""
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def embedding_rows(ids, weight, out, TILE_H: ConstInt):
    """out[t] = weight[ids[t]] for t = bid(0), TILE_H columns at a time."""
    token = ct.bid(0)
    row = ct.load(ids, index=(token,), shape=())
    for h in range(ct.cdiv(out.shape[1], TILE_H)):
        tile = ct.load(weight, index=(row, h), shape=(1, TILE_H), padding_mode=ct.PaddingMode.ZERO)
        ct.store(out, index=(token, h), tile=tile)


@ct.kernel
def embedding_gather(ids, weight, out, BT: ConstInt, TILE_H: ConstInt):
    """out[BT tokens of block bid(0)] = weight[their ids], (BT, TILE_H) tiles at a time."""
    block = ct.bid(0)
    rows = ct.load(ids, index=(block,), shape=(BT,), padding_mode=ct.PaddingMode.ZERO)
    # cuTile Python 1.7.0 truncates an int64 index tile to a scalar i32 type (invalid IR that
    # tileiras rejects), so narrow the ids here; ids < V < 2**31 always fit. No-op for int32.
    rows = ct.astype(rows, ct.int32)
    for h in range(ct.cdiv(out.shape[1], TILE_H)):
        slab = ct.load_advanced_indexing(weight, (rows, ct.Slice(h * TILE_H, TILE_H)),
                                         padding_mode=ct.PaddingMode.ZERO)
        ct.store(out, index=(block, h), tile=slab)


# Host-side choice: one token per block (the rows kernel) at every T where the dtypes have one,
# 16-bit tables of rows longer than one tile in its `_a8` form (H a multiple of 8: 16-byte accesses).
# The gather kernels (8 tokens per block) are slower at every size measured on the H200: at
# T=16384, H=4096 bf16 gather 119.0 us vs rows 79.2 us, f32 166.7 vs 138.2
# (docs/results/reference_results.json, 2026-12-01), and 1.2-5.2x slower from 64 tokens up in an
# independent harness (issue 30). They stay verified and can be forced (force_variant); only the
# f16 table with int64 ids has no rows kernel, and its i64-indexed gather takes any table size.
INT32_MAX = 2**31 - 1
A8_ABOVE_H = 1024  # rows longer than this many elements (several tiles) take the `_a8` rows form


def select_variant(weight_dtype: str, ids_dtype: str, tokens: int, rows: int, hidden: int,
                   weight_row_stride: int, out_row_stride: int) -> str | None:
    """The launcher's choice for a (rows, hidden) table of `weight_dtype` with row stride
    `weight_row_stride`, `tokens` ids of `ids_dtype` and out's row stride (elements, unit column
    strides): None where no variant takes it (rows not 16-byte multiples, an int32-indexed
    table or an out past the int32 offset range, a dtype pair without a variant). The Rust
    library's cutile_embedding chooses the same (tests/rust/test_selection.py)."""
    row_div = 4 if weight_dtype == "float32" else 8
    if (tokens > 1 and out_row_stride % row_div) or (rows > 1 and weight_row_stride % row_div):
        return None
    if tokens and hidden and (tokens - 1) * out_row_stride + hidden - 1 > INT32_MAX:
        return None
    table_fits_int32 = not (rows and hidden) or (rows - 1) * weight_row_stride + hidden - 1 <= INT32_MAX
    if (weight_dtype, ids_dtype) == ("float16", "int64"):
        return "f16_i64_gather_bt8_h256_idx64"  # int64 table offsets: any table size, every T
    if not table_fits_int32:
        return None
    rows_variants = {("float16", "int32"): "f16_i32_rows_h1024", ("bfloat16", "int32"): "bf16_i32_rows_h1024",
                     ("float32", "int32"): "f32_i32_rows_h1024", ("bfloat16", "int64"): "bf16_i64_rows_h1024"}
    name = rows_variants.get((weight_dtype, ids_dtype))
    if name is not None and row_div == 8 and hidden % 8 == 0 and hidden > A8_ABOVE_H:
        # 16-bit rows of a multiple of 8 elements, longer than one (1, 1024) tile: the `_a8` form
        # moves them 16 bytes at a time (LDG/STG.E.128; the plain form, which also takes a ragged
        # H, one element at a time): 0.75-0.96x the plain form's time at H = 4096, every T, on the
        # H100 grid; at H = 1024 it is 1.12-1.14x the plain form at 16384 tokens (0.92-1.06x
        # below), so one-tile rows keep the plain form (docs/results/selection.json).
        name = name.replace("_rows_", "_rows_a8_")
    return name
