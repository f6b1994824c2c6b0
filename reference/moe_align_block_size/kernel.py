"""MoE routing alignment (moe_align_block_size) in cuTile Python, two single-block kernels.

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


def select_variant(block_m: int, num_experts: int) -> str | None:
    """The launcher's choice for BLOCK_M = block_m and E = num_experts: the pair
    "<histogram>,<sort>" it launches in that order (E_PAD = 128 for block_m 64, 256 for 16; E must
    be below E_PAD), None for any other combination. The Rust library's
    cutile_moe_align_block_size chooses the same (tests/rust/test_selection.py)."""
    built = {64: ("hist_bm64_e128", "sort_bm64_e128", 128), 16: ("hist_bm16_e256", "sort_bm16_e256", 256)}
    if block_m not in built or not 1 <= num_experts < built[block_m][2]:
        return None
    return f"{built[block_m][0]},{built[block_m][1]}"
