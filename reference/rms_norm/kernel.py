"""RMSNorm forward and backward over the last axis of a 2-D array.

y = x * rstd * w with rstd = 1 / sqrt(mean(x^2) + eps), statistics in float32.

rms_norm_fwd: TILE_M whole rows per block (TILE_N >= N); also writes rstd for the backward.
rms_norm_fwd_looped: one row per block, the row streamed in TILE_N tiles (sum of squares, then
normalize), for rows longer than one tile.
rms_norm_bwd: dx for TILE_M whole rows per block, looping over up to ROW_TILES row tiles per
block, and one row of dw partial sums per block (dw = dw_partial.sum(0) on the host).
"""

import cuda.tile as ct


def _rms_norm_fwd(x, w, out, rstd, eps, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    n = x.shape[1]
    t = ct.astype(ct.load(x, index=(block, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    mean_sq = ct.sum(t * t, axis=1, keepdims=True) / n
    r = ct.rsqrt(mean_sq + eps)
    g = ct.astype(ct.load(w, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    y = t * r * ct.reshape(g, (1, TILE_N))
    ct.store(out, index=(block, 0), tile=ct.astype(y, out.dtype))
    ct.store(rstd, index=(block,), tile=ct.reshape(r, (TILE_M,)))


rms_norm_fwd = ct.kernel(_rms_norm_fwd)


def _rms_norm_fwd_looped(x, w, out, rstd, eps, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    n = x.shape[1]
    num_col_tiles = ct.num_tiles(x, axis=1, shape=(1, TILE_N))
    acc = ct.zeros((1, TILE_N), dtype=ct.float32)
    for j in range(num_col_tiles):
        t = ct.astype(ct.load(x, index=(row, j), shape=(1, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
        acc = acc + t * t  # elementwise accumulation; one reduction after the loop
    r = ct.rsqrt(ct.sum(acc, axis=1, keepdims=True) / n + eps)
    for j in range(num_col_tiles):
        t = ct.astype(ct.load(x, index=(row, j), shape=(1, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
        g = ct.astype(ct.load(w, index=(j,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO), ct.float32)
        ct.store(out, index=(row, j), tile=ct.astype(t * r * ct.reshape(g, (1, TILE_N)), out.dtype))
    ct.store(rstd, index=(row,), tile=ct.reshape(r, (1,)))


rms_norm_fwd_looped = ct.kernel(_rms_norm_fwd_looped)


def _rms_norm_bwd(dy, x, w, rstd, dx, dw_partial,
                  TILE_M: ct.Constant[int], TILE_N: ct.Constant[int], ROW_TILES: ct.Constant[int]):
    block = ct.bid(0)
    n = x.shape[1]
    num_row_tiles = ct.cdiv(x.shape[0], TILE_M)
    first = block * ROW_TILES
    count = min(ROW_TILES, num_row_tiles - first)  # the last block may own fewer row tiles
    g_w = ct.reshape(ct.astype(ct.load(w, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO),
                               ct.float32), (1, TILE_N))
    dw_acc = ct.zeros((TILE_M, TILE_N), dtype=ct.float32)
    for k in range(count):
        i = first + k
        t = ct.astype(ct.load(x, index=(i, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
        d = ct.astype(ct.load(dy, index=(i, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
        # Padded rows get rstd 0, so they add nothing to dw.
        r = ct.reshape(ct.load(rstd, index=(i,), shape=(TILE_M,), padding_mode=ct.PaddingMode.ZERO), (TILE_M, 1))
        g = d * g_w
        c = ct.sum(g * t, axis=1, keepdims=True) / n
        ct.store(dx, index=(i, 0), tile=ct.astype(r * (g - t * (r * r) * c), dx.dtype))
        dw_acc = dw_acc + d * t * r
    ct.store(dw_partial, index=(block, 0), tile=ct.sum(dw_acc, axis=0, keepdims=True))


rms_norm_bwd = ct.kernel(_rms_norm_bwd)


# The same bodies under occupancy=K: K blocks share an SM (registers capped), hiding the
# load -> reduce -> store latency of one block (H200 measurements in docs/results/tuning.md).
rms_norm_fwd_o4 = ct.kernel(_rms_norm_fwd, occupancy=4)
rms_norm_fwd_o2 = ct.kernel(_rms_norm_fwd, occupancy=2)
rms_norm_fwd_looped_o4 = ct.kernel(_rms_norm_fwd_looped, occupancy=4)
rms_norm_bwd_o2 = ct.kernel(_rms_norm_bwd, occupancy=2)


# ---- rms_norm_fwd_fast: one row per block, 1/n through MUFU.RCP -------------------------------
# The forward with both loads issued before any conversion and mean(x^2) as the sum of squares
# times rcp.approx(n) (flush-to-zero: within one f32 ulp of 1/n, so rstd stays within a few f32
# ulps; the f32 tolerances are 1e-4), which drops the IEEE division's refinement and slow path.
# rsqrt stays precise (one per row). The `_fast` variants pair it with an 8-byte row contract
# (`_a4` 16-bit, `_a2` f32: n and the row strides multiples of 4 or 2 elements): rows that are
# not provably 16-byte multiples cannot go through TMA, so tileiras moves them with 64-bit
# LDG/STG instead of TMA + shared memory (docs/results/tuning.md, "rms_norm forward").
def approx_div(num, den):
    """num / den as num * rcp.approx(den), subnormals flushed (MUFU.RCP + one multiply)."""
    return ct.truediv(num, den, rounding_mode=ct.RoundingMode.APPROX, flush_to_zero=True)


def _rms_norm_fwd_fast(x, w, out, rstd, eps, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    n = x.shape[1]
    x_raw = ct.load(x, index=(block, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    w_raw = ct.load(w, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO)
    t = ct.astype(x_raw, ct.float32)
    inv_n = approx_div(1.0, ct.astype(n, ct.float32))
    r = ct.rsqrt(ct.sum(t * t, axis=1, keepdims=True) * inv_n + eps)
    g = ct.reshape(ct.astype(w_raw, ct.float32), (1, TILE_N))
    ct.store(out, index=(block, 0), tile=ct.astype(t * r * g, out.dtype))
    ct.store(rstd, index=(block,), tile=ct.reshape(r, (TILE_M,)))


# One row per block, many blocks per SM: occupancy 16 for 1024-column rows, 8 for 2048, 4 for
# 4096 and 8192 (registers capped to fit without spilling: 31-32 registers, 64 for both long
# rows, whose x loads tileiras issues back to back; at occupancy 2 the 8192-column tile takes 128).
rms_norm_fwd_fast_o16 = ct.kernel(_rms_norm_fwd_fast, occupancy=16)
rms_norm_fwd_fast_o8 = ct.kernel(_rms_norm_fwd_fast, occupancy=8)
rms_norm_fwd_fast_o4 = ct.kernel(_rms_norm_fwd_fast, occupancy=4)


_PREFIX = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}


# Up to this many rows the forward launch is latency-bound (a wave or two of blocks) and one row
# per block wins; measured in docs/results/selection.json.
FEW_ROWS = 256

# Beyond this many rows of up to 1024 columns, several rows per block (16-bit: the `_a8_o4_m8`
# kernel; f32 rows of up to F32_SHORT_ROW columns: `_o4_m4`) beat one row per block: measured at
# 1024 rows (one row per block wins) and at 32768-262144 (several rows win by 1.2-1.5x); the
# threshold lies in that gap (H200, 2026-12-06).
MANY_ROWS = 4096
F32_SHORT_ROW = 768

# The `_fast` row tiles (one row per block) and the element multiple of their 8-byte contract.
FAST_TILES = (1024, 2048, 4096, 8192)
FAST_MULTIPLE = {"f16": 4, "bf16": 4, "f32": 2}


def _aligned(m: int, n: int, row_strides, multiple: int) -> bool:
    """n and every row stride multiples of `multiple` elements; one row has no stride that matters."""
    return n % multiple == 0 and (m <= 1 or all(s % multiple == 0 for s in row_strides))


def _fast_tile(prefix: str, m: int, n: int) -> int | None:
    """The `_fast` one-row tile for m rows of n columns (None beyond 8192 columns). f32: the
    smallest tile that holds the row. 16-bit rows of up to 2048 columns take a wider tile than they
    need at some row counts (its occupancy hint is lower): measured, every choice within 1.10x of
    the fastest in both passes of bench_selection.py (H200, 2026-12-06)."""
    if n > FAST_TILES[-1]:
        return None
    if prefix != "f32":
        if n <= 1024:
            return 1024 if FEW_ROWS // 2 < m <= 2 * FEW_ROWS else 2048
        if n <= 2048:
            return 4096 if m <= 1024 else 2048
    return next(t for t in FAST_TILES if n <= t)


def _candidates(prefix: str, m: int, n: int) -> list[tuple[str, int]]:
    """The forward variants for m rows of n columns, most preferred first, each with the element
    multiple its contract needs of n and the row strides (1: any layout); the launcher takes the
    first whose contract the tensors meet. The Rust library's `candidates` lists the same."""
    multiple = FAST_MULTIPLE[prefix]
    tile = _fast_tile(prefix, m, n)
    fast = [(f"fwd_{prefix}_a{multiple}_fast_m1_n{tile}", multiple)] if tile else []
    if prefix == "f32":
        if m > MANY_ROWS and n <= F32_SHORT_ROW:
            return [("fwd_f32_o4_m4_n1024", 1)]
        if n <= 1024:
            return fast + [("fwd_f32_m4_n1024" if m <= FEW_ROWS else "fwd_f32_o4_m4_n1024", 1)]
        return fast + [("fwd_f32_o2_m1_n8192" if n <= 8192 else "fwd_looped_f32_n2048", 1)]
    rows = [(f"fwd_{prefix}_a8_o4_m8_n1024", 8), (f"fwd_{prefix}_m4_n1024", 1)]
    row = [(f"fwd_{prefix}_a8_o4_m1_n8192", 8), (f"fwd_{prefix}_m1_n8192", 1)]
    looped = [(f"fwd_looped_{prefix}_a8_o4_n2048", 8), (f"fwd_looped_{prefix}_n2048", 1)]
    if n <= 1024 and m > MANY_ROWS:
        return rows[:1] + fast + rows[1:]
    if 4096 < n <= 8192:
        return row[:1] + fast + row[1:]
    if n <= 1024 and m > FEW_ROWS:
        return fast + rows
    return fast + looped


def select_variant(dtype: str, m: int, n: int, row_strides) -> str | None:
    """The launcher's forward choice for x, out of `dtype` (a torch dtype name) with m rows of n
    columns and the given row strides (elements; a single row has none that matters); None for a
    dtype no variant takes. Measured, not guessed: every applicable variant timed over a grid of m
    and n (scripts/gpu/bench_selection.py, docs/results/selection.json), and this choice is held
    within 1.10x of the fastest at every measured point (tests/suite/test_selection_results.py).
    Rows of 8-byte multiples (`_fast` contract) of up to 8192 columns take one row per block
    (`_fast_tile`), except many rows of up to 1024 columns (16-bit `_a8`: 8 rows per block; f32
    rows of up to 768: 4 rows per block) and 16-bit `_a8` rows of 4097-8192 columns (the
    `_a8_o4_m1_n8192` kernel). Other layouts: as before the `_fast` kernels (16-bit: several rows
    per block for more than FEW_ROWS rows of up to 1024 columns, one row for 4097-8192, the looped
    kernel otherwise; f32: 4 rows per block up to 1024 columns, one row up to 8192, looped beyond),
    the `_a8` variants where n and the row strides are multiples of 8. The Rust library's
    cutile_rms_norm chooses the same (tests/rust/test_selection.py)."""
    prefix = _PREFIX.get(dtype)
    if prefix is None:
        return None
    for name, multiple in _candidates(prefix, m, n):
        if _aligned(m, n, row_strides, multiple):
            return name
    raise AssertionError(f"rms_norm: no forward variant for {dtype} ({m}, {n})")  # the last takes any layout


def select_bwd_variant(dtype: str, m: int, n: int, row_strides) -> str | None:
    """The launcher's backward choice (n <= 1024; row_strides of dy, x, dx and dw_partial): the
    tuned `_a8_o2` kernel for 16-bit rows whose n and row strides are multiples of 8, else the
    untuned one."""
    prefix = _PREFIX.get(dtype)
    if prefix is None:
        return None
    a8 = dtype != "float32" and n % 8 == 0 and (m <= 1 or all(s % 8 == 0 for s in row_strides))
    return f"bwd_{prefix}_a8_o2_m4_n1024" if a8 else f"bwd_{prefix}_m4_n1024"
