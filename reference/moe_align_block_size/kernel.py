"""MoE routing alignment (moe_align_block_size) in cuTile Python: two single-block kernels, and a
parallel pair (one block per 256 ids) for callers that give a small scratch.

Input: the flattened top-k expert choice of every token, topk_ids[i] for
i = token * top_k + k. Output, for a grouped expert GEMM with BLOCK_M-row tiles:
the flat ids sorted by expert (stable: ascending i within an expert), each
expert's segment padded to a multiple of BLOCK_M with the sentinel N = len(topk_ids),
the expert of every BLOCK_M block (-1 past the end), and the padded total.

``moe_align_histogram``: per-expert counts via one-hot sums over tiles of ids,
padded exclusive prefix sums (expert_offsets), total, and expert_ids per block.
``moe_align_sort``: stable placement. For each tile of ids, the position of id i
is offsets[e] + (ids of expert e in earlier tiles) + (rank of i among the tile's
ids of expert e, from a cumsum of the one-hot over the tile); the padding slots
get the sentinel. Every slot of sorted_token_ids is written exactly once, so no
ordering between the two kinds of stores is needed.

Both run as one block: the work is O(N * E_PAD) element ops on small tiles and
keeps the result deterministic without atomics. E_PAD is a power of two > E.

The parallel pair computes the same outputs, deterministically and without atomics, with one
block per TILE ids. ``moe_align_count_sub`` writes each tile's per-expert counts into the
caller's scratch tile_counts (cdiv(N, TILE), E). In ``moe_align_place_sub`` every block sums
those rows (all of them: the counts and padded segment starts; the rows before its own: where
its ids of each expert begin), places its ids (rank in the tile from a compare of the ids), and
writes a grid-stride share of expert_ids and of the padding slots; block 0 writes the
per-expert outputs. Both work in sub-tiles of SUB ids ("_sub") that fit in registers. Every block reads the whole scratch, T * E ints for T = cdiv(N, TILE): fine
for T in the hundreds (N = 32768: 128 rows), quadratic in N beyond.
"""
import cuda.tile as ct

ConstInt = ct.Constant[int]


def expert_one_hot(topk_ids, tile, TILE, E_PAD):
    """(TILE, E_PAD) int32 one-hot of the experts in tile `tile` of topk_ids (rows past the end are all zero)."""
    flat = tile * TILE + ct.arange(TILE, dtype=ct.int32)
    ids = ct.load(topk_ids, index=(tile,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    valid = ct.expand_dims(flat < topk_ids.shape[0], 1)
    experts = ct.expand_dims(ct.arange(E_PAD, dtype=ct.int32), 0)
    hit = (ct.expand_dims(ids, 1) == experts) & valid
    return ct.astype(hit, ct.int32), flat


@ct.kernel
def moe_align_histogram(topk_ids, expert_counts, expert_offsets, expert_ids, num_tokens_post_padded,
                        BLOCK_M: ConstInt, TILE: ConstInt, E_PAD: ConstInt, NB_TILE: ConstInt):
    """Counts, padded offsets (length E+1), per-block experts and the padded total; grid (1,)."""
    counts = ct.zeros((E_PAD,), dtype=ct.int32)
    for t in range(ct.cdiv(topk_ids.shape[0], TILE)):
        one_hot, flat = expert_one_hot(topk_ids, t, TILE, E_PAD)
        counts = counts + ct.sum(one_hot, axis=0)
    padded = ct.cdiv(counts, BLOCK_M) * BLOCK_M
    ends = ct.cumsum(padded, axis=0)
    starts = ends - padded
    total = ct.sum(padded, axis=0)
    ct.store(expert_counts, index=(0,), tile=counts)
    # lanes >= E have zero padded count, so starts[E] = total: storing E_PAD (> E) lanes
    # into the E+1 offsets (the rest is out of bounds and dropped) writes offsets[E] too
    ct.store(expert_offsets, index=(0,), tile=starts)
    ct.store(num_tokens_post_padded, index=(0,), tile=total)
    ends_row = ct.expand_dims(ends, 0)
    for bt in range(ct.cdiv(expert_ids.shape[0], NB_TILE)):
        block_start = (bt * NB_TILE + ct.arange(NB_TILE, dtype=ct.int32)) * BLOCK_M
        # expert of a block = number of experts whose padded segment ends at or before it
        owner = ct.sum(ct.astype(ends_row <= ct.expand_dims(block_start, 1), ct.int32), axis=1)
        ct.store(expert_ids, index=(bt,), tile=ct.where(block_start < total, owner, -1))


@ct.kernel
def moe_align_sort(topk_ids, expert_counts, expert_offsets, sorted_token_ids,
                   TILE: ConstInt, E_PAD: ConstInt, PAD_TILE: ConstInt):
    """sorted_token_ids: flat ids grouped by expert in ascending order, padding slots = len(topk_ids); grid (1,)."""
    num_ids = topk_ids.shape[0]
    starts = ct.load(expert_offsets, index=(0,), shape=(E_PAD,), padding_mode=ct.PaddingMode.ZERO)
    counts = ct.load(expert_counts, index=(0,), shape=(E_PAD,), padding_mode=ct.PaddingMode.ZERO)
    placed = ct.zeros((E_PAD,), dtype=ct.int32)
    for t in range(ct.cdiv(num_ids, TILE)):
        one_hot, flat = expert_one_hot(topk_ids, t, TILE, E_PAD)
        rank = ct.sum(one_hot * ct.cumsum(one_hot, axis=0), axis=1) - 1
        base = ct.sum(one_hot * ct.expand_dims(starts + placed, 0), axis=1)
        ct.scatter(sorted_token_ids, base + rank, flat, mask=flat < num_ids)
        placed = placed + ct.sum(one_hot, axis=0)

    # padding slots: past the expert's count inside its segment, or past the padded total
    lane = ct.expand_dims(ct.arange(E_PAD, dtype=ct.int32), 0)
    num_experts = expert_counts.shape[0]
    seg_start = ct.expand_dims(starts, 0)
    seg_fill = ct.expand_dims(starts + counts, 0)
    for pt in range(ct.cdiv(sorted_token_ids.shape[0], PAD_TILE)):
        slot = ct.expand_dims(pt * PAD_TILE + ct.arange(PAD_TILE, dtype=ct.int32), 1)
        owner = ct.sum(ct.astype((seg_start <= slot) & (lane < num_experts), ct.int32), axis=1) - 1
        owner_one_hot = ct.expand_dims(owner, 1) == lane
        filled_end = ct.sum(ct.where(owner_one_hot, seg_fill, 0), axis=1)
        slot_1d = ct.reshape(slot, (PAD_TILE,))
        ct.scatter(sorted_token_ids, slot_1d, num_ids, mask=slot_1d >= filled_end)


@ct.kernel
def moe_align_count_sub(topk_ids, tile_counts, TILE: ConstInt, SUB: ConstInt, E_PAD: ConstInt):
    """tile_counts[t, e] = the ids of expert e in tile t of topk_ids (TILE ids), summed SUB ids at
    a time: (SUB, E_PAD) one-hots stay in registers where a (TILE, E_PAD) one spills; grid
    (cdiv(N, TILE),). Lanes >= E fall past tile_counts' (T, E) extent and are dropped."""
    t = ct.bid(0)
    counts = ct.zeros((E_PAD,), dtype=ct.int32)
    for s in range(TILE // SUB):
        one_hot, flat = expert_one_hot(topk_ids, t * (TILE // SUB) + s, SUB, E_PAD)
        counts = counts + ct.sum(one_hot, axis=0)
    ct.store(tile_counts, index=(t, 0), tile=ct.reshape(counts, (1, E_PAD)))


@ct.kernel
def moe_align_place_sub(topk_ids, tile_counts, expert_counts, expert_offsets, expert_ids, num_tokens_post_padded,
                        sorted_token_ids, BLOCK_M: ConstInt, TILE: ConstInt, E_PAD: ConstInt, CH: ConstInt,
                        SUB: ConstInt, PAD_TILE: ConstInt, NB_TILE: ConstInt):
    """Every output of the alignment from the per-tile counts; grid (cdiv(N, TILE),).

    Block t places the ids of tile t: each block sums the per-tile counts (all tiles: the
    segment starts; tiles before t: where its ids of each expert begin), so no block waits for
    another. Every tile is at most (64, E_PAD) or (SUB, TILE) elements, so nothing spills (the
    (TILE, E_PAD) one-hot and (TILE, TILE) rank tiles of a first version spilled 2.7-3.9 KB a
    thread and took 2.5-5x as long): the block's ids SUB at a time, expert_ids NB_TILE blocks at
    a time (grid-stride), the padding per expert (the slots [start + count, end) of each
    segment, one (E_PAD, BLOCK_M) tile in block 0) and past the total (grid-stride). Block 0
    writes the per-expert outputs."""
    t = ct.bid(0)
    blocks = ct.num_blocks(0)
    num_ids = topk_ids.shape[0]
    num_experts = expert_counts.shape[0]
    counts = ct.zeros((E_PAD,), dtype=ct.int32)
    before = ct.zeros((E_PAD,), dtype=ct.int32)
    for c in range(ct.cdiv(tile_counts.shape[0], CH)):
        rows = ct.load(tile_counts, index=(c, 0), shape=(CH, E_PAD), padding_mode=ct.PaddingMode.ZERO)
        row = ct.expand_dims(c * CH + ct.arange(CH, dtype=ct.int32), 1)
        counts = counts + ct.sum(rows, axis=0)
        before = before + ct.sum(ct.where(row < t, rows, 0), axis=0)
    padded = ct.cdiv(counts, BLOCK_M) * BLOCK_M
    ends = ct.cumsum(padded, axis=0)
    starts = ends - padded
    total = ct.sum(padded, axis=0)

    lane = ct.arange(E_PAD, dtype=ct.int32)
    first_block = t == 0
    ct.scatter(expert_counts, lane, counts, mask=(lane < num_experts) & first_block)
    ct.scatter(expert_offsets, lane, starts, mask=(lane <= num_experts) & first_block)
    ct.scatter(num_tokens_post_padded, lane, ct.broadcast_to(total, (E_PAD,)), mask=(lane < 1) & first_block)

    # this block's ids, SUB at a time: segment start + ids of the expert in earlier tiles + the
    # ids of the expert before it in this tile
    tile_ids = ct.load(topk_ids, index=(t,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    tile_pos = ct.expand_dims(ct.arange(TILE, dtype=ct.int32), 0)
    next_free = ct.expand_dims(starts + before, 0)
    experts = ct.expand_dims(ct.arange(E_PAD, dtype=ct.int32), 0)
    for s in range(TILE // SUB):
        ids = ct.load(topk_ids, index=(t * (TILE // SUB) + s,), shape=(SUB,), padding_mode=ct.PaddingMode.ZERO)
        pos = s * SUB + ct.arange(SUB, dtype=ct.int32)
        flat = t * TILE + pos
        valid = flat < num_ids
        hit = (ct.expand_dims(ids, 1) == experts) & ct.expand_dims(valid, 1)
        base = ct.sum(ct.where(hit, next_free, 0), axis=1)
        earlier = (ct.expand_dims(ids, 1) == ct.expand_dims(tile_ids, 0)) & (tile_pos < ct.expand_dims(pos, 1))
        rank = ct.sum(ct.astype(earlier, ct.int32), axis=1)
        ct.scatter(sorted_token_ids, base + rank, flat, mask=valid)

    # expert_ids, NB_TILE blocks at a time, grid-stride (indices past NB are dropped)
    ends_row = ct.expand_dims(ends, 0)
    for k in range(ct.cdiv(ct.cdiv(expert_ids.shape[0], NB_TILE), blocks)):
        block = (k * blocks + t) * NB_TILE + ct.arange(NB_TILE, dtype=ct.int32)
        block_start = block * BLOCK_M
        owner = ct.sum(ct.astype(ends_row <= ct.expand_dims(block_start, 1), ct.int32), axis=1)
        ct.scatter(expert_ids, block, ct.where(block_start < total, owner, -1))

    # padding inside the segments: [start + count, end) of each expert, fewer than BLOCK_M slots
    # (lanes >= E have start = end = total: none), written by block 0
    slot = ct.expand_dims(starts + counts, 1) + ct.expand_dims(ct.arange(BLOCK_M, dtype=ct.int32), 0)
    in_padding = (slot < ct.expand_dims(ends, 1)) & first_block
    ct.scatter(sorted_token_ids, slot, num_ids, mask=in_padding)
    # and past the padded total, PAD_TILE slots at a time, grid-stride (slots past EM are dropped)
    for k in range(ct.cdiv(ct.cdiv(sorted_token_ids.shape[0], PAD_TILE), blocks)):
        tail = (k * blocks + t) * PAD_TILE + ct.arange(PAD_TILE, dtype=ct.int32)
        ct.scatter(sorted_token_ids, tail, num_ids, mask=tail >= total)


def select_variant(block_m: int, num_experts: int, tile_counts: bool = False) -> str | None:
    """The launcher's choice for BLOCK_M = block_m and E = num_experts: the pair of kernels it
    launches in that order, "<first>,<second>" (E_PAD = 128 for block_m 64, 256 for 16; E must be
    below E_PAD), None for any other combination. With ``tile_counts`` (the caller gives the
    (cdiv(N, 256), E) int32 scratch) the parallel pair moe_align_count_sub, moe_align_place_sub
    (one block per 256 ids; docs/results/tuning.md has its times against the single-block pair
    and torch), else the single-block pair moe_align_histogram, moe_align_sort. The Rust library chooses
    the same: cutile_moe_align_block_size_tiled and cutile_moe_align_block_size
    (tests/rust/test_selection.py)."""
    built = {64: ("hist_bm64_e128", "sort_bm64_e128", "count_t256_e128_s64", "place_bm64_e128_s64", 128),
             16: ("hist_bm16_e256", "sort_bm16_e256", "count_t256_e256_s32", "place_bm16_e256_s32", 256)}
    if block_m not in built or not 1 <= num_experts < built[block_m][4]:
        return None
    hist, sort, count, place, _ = built[block_m]
    return f"{count},{place}" if tile_counts else f"{hist},{sort}"
