//! cuTile Rust port of reference/rope/kernel.py: rotary position embedding of q and k, out of
//! place. Each block takes BT tokens, gathers their cos/sin rows by position (a gather view
//! on the (P, D/2) tables, like Python's `load_advanced_indexing`), then rotates all query
//! heads and all key heads in (BT, TH, D) tiles, in f32. `IS_NEOX` (a `ct.Constant[bool]`,
//! here an i32 0/1 the compiler folds) selects rotate-half pairs (x[i], x[i + D/2]) or
//! interleaved pairs (x[2i], x[2i+1]), the latter by reshaping the last axis to (D/2, 2).
//! `HALF_D` = D / 2 is a generic of its own: a cuTile Rust shape cannot compute it from `D`
//! (the variant table sets both; tests/rust/test_variant_table.py checks HALF_D = D / 2).
//! `rope_neox_split` is Python's tuned rotate-half kernel: each half of D is loaded, rotated and
//! stored as a (BT, TH, D/2) tile of its own (no extract/cat), under `occupancy = 4`.
//! `rope_o8` and `rope_neox_split_o8` are the same bodies under `occupancy = 8` (Python's
//! `ct.kernel(_rope, occupancy=8)` twins).
//! The head loops iterate a `Dim` (`for h in n.into_dim()`), not `0i32..n`: cuTile Rust follows a
//! range with a constant start by `assume bounded<0, ?>` on the loop index, which cuTile Python
//! does not emit, and with it tileiras moves the tile address arithmetic off the uniform
//! datapath (bf16_gptj_d128_a8_bt4_th2_o8: 2336 SASS instructions against Python's 2232). A `Dim`
//! of runtime size emits the same `for` from 0 with step 1 and no assumption: the SASS of every
//! rope variant is then the reference's.

#[cutile::module]
pub mod rope_kernel {
    use cutile::core::*;
    use cutile::tileir::*;

    /// Rotates a (BT, TH, D) f32 tile by the angle tables cos/sin broadcast to (BT, TH, D/2).
    /// `a * c - b * s` and `b * c + a * s` are single fmas, as cuTile Python contracts them.
    fn rotate<const BT: i32, const TH: i32, const D: i32, const HALF_D: i32, const IS_NEOX: i32>(
        x: Tile<f32, { [BT, TH, D] }>,
        cos: Tile<f32, { [BT, TH, HALF_D] }>,
        sin: Tile<f32, { [BT, TH, HALF_D] }>,
    ) -> Tile<f32, { [BT, TH, D] }> {
        let zero: Tile<i32, { [] }> = scalar_to_tile(0i32);
        let one: Tile<i32, { [] }> = scalar_to_tile(1i32);
        if IS_NEOX == 1i32 {
            let x1: Tile<f32, { [BT, TH, HALF_D] }> = extract(x, [zero, zero, zero]);
            let x2: Tile<f32, { [BT, TH, HALF_D] }> = extract(x, [zero, zero, one]);
            let y1: Tile<f32, { [BT, TH, HALF_D] }> =
                fma(x1, cos, negf(x2 * sin), rounding::NearestEven, ftz::Disabled);
            let y2: Tile<f32, { [BT, TH, HALF_D] }> = fma(x2, cos, x1 * sin, rounding::NearestEven, ftz::Disabled);
            cat(y1, y2, 2i32)
        } else {
            let pairs: Tile<f32, { [BT, TH, HALF_D, 2] }> = x.reshape(shape![BT, TH, HALF_D, 2]);
            let x1: Tile<f32, { [BT, TH, HALF_D, 1] }> = extract(pairs, [zero, zero, zero, zero]);
            let x1: Tile<f32, { [BT, TH, HALF_D] }> = x1.reshape(shape![BT, TH, HALF_D]);
            let x2: Tile<f32, { [BT, TH, HALF_D, 1] }> = extract(pairs, [zero, zero, zero, one]);
            let x2: Tile<f32, { [BT, TH, HALF_D] }> = x2.reshape(shape![BT, TH, HALF_D]);
            let y1: Tile<f32, { [BT, TH, HALF_D] }> =
                fma(x1, cos, negf(x2 * sin), rounding::NearestEven, ftz::Disabled);
            let y2: Tile<f32, { [BT, TH, HALF_D] }> = fma(x2, cos, x1 * sin, rounding::NearestEven, ftz::Disabled);
            let y1: Tile<f32, { [BT, TH, HALF_D, 1] }> = y1.reshape(shape![BT, TH, HALF_D, 1]);
            let y2: Tile<f32, { [BT, TH, HALF_D, 1] }> = y2.reshape(shape![BT, TH, HALF_D, 1]);
            let y: Tile<f32, { [BT, TH, HALF_D, 2] }> = cat(y1, y2, 3i32);
            y.reshape(shape![BT, TH, D])
        }
    }

    /// dst[tokens of tile_t, all heads] = rotate(src[...]) over head tiles of TH.
    #[allow(unused_assignments)] // the one-pass loop below overwrites its zero iter value
    fn rotate_heads<
        E: ElementType,
        const BT: i32,
        const TH: i32,
        const D: i32,
        const HALF_D: i32,
        const IS_NEOX: i32,
    >(
        src: &Tensor<E, { [-1, -1, -1] }>,
        dst: &Tensor<E, { [-1, -1, -1] }>,
        tile_t: i32,
        cos: Tile<f32, { [BT, TH, HALF_D] }>,
        sin: Tile<f32, { [BT, TH, HALF_D] }>,
    ) {
        // No padding, as Python's ct.load default: the ragged token and head tiles are masked.
        let src_tiles: Partition<E, { [BT, TH, D] }> =
            unsafe { make_partition_view(src, shape![BT, TH, D], padding::None, dim_map::Identity, src.token()) };
        let mut dst_tiles: PartitionMut<E, { [BT, TH, D] }> = unsafe { dst.partition_full_mut(shape![BT, TH, D]) };
        // A `Dim`, not `0i32..head_tiles`: no `assume` on the loop index (module doc).
        let head_tiles: Dim = ceil_div(get_shape_dim(src.shape(), 1i32), TH).into_dim();
        for h in head_tiles {
            let raw: Tile<E, { [BT, TH, D] }> = src_tiles.load([tile_t, h, 0i32]);
            let x: Tile<f32, { [BT, TH, D] }> = convert_tile(raw);
            let rotated: Tile<f32, { [BT, TH, D] }> = rotate::<BT, TH, D, HALF_D, IS_NEOX>(x, cos, sin);
            // cuTile Python lowers rotate()'s `return` from inside `if IS_NEOX:` to a one-pass
            // `loop` (a zero tile as its iter value) that breaks with the result; the port
            // writes the same loop so the two IRs keep one structure.
            let mut y: Tile<f32, { [BT, TH, D] }> = constant(0.0f32, shape![BT, TH, D]);
            loop {
                y = rotated;
                break;
            }
            let y_out: Tile<E, { [BT, TH, D] }> = convert_tile(y);
            unsafe { dst_tiles.store_unchecked(y_out, [tile_t, h, 0i32]) };
        }
    }

    /// The cos/sin rows of the block's BT tokens, broadcast over TH heads.
    fn angles<const BT: i32, const TH: i32, const HALF_D: i32>(
        positions: &Tensor<i32, { [-1] }>,
        cos_table: &Tensor<f32, { [-1, -1] }>,
        sin_table: &Tensor<f32, { [-1, -1] }>,
        tile_t: i32,
    ) -> (Tile<f32, { [BT, TH, HALF_D] }>, Tile<f32, { [BT, TH, HALF_D] }>) {
        // Tokens past T read position 0 (zero padding); their results are not stored. The rows
        // are gathered weakly ordered, like Python's load_advanced_indexing.
        let pos: Tile<i32, { [BT] }> = positions.partition(shape![BT]).load([tile_t]);
        let cos_rows: GatherScatterView<f32, { [BT, HALF_D] }, 0> =
            unsafe { make_gather_scatter_view(cos_table, shape![BT, HALF_D], padding::None) };
        let sin_rows: GatherScatterView<f32, { [BT, HALF_D] }, 0> =
            unsafe { make_gather_scatter_view(sin_table, shape![BT, HALF_D], padding::None) };
        let (cos, _): (Tile<f32, { [BT, HALF_D] }>, Token) = unsafe {
            load_view_raw(
                &cos_rows,
                (pos, 0i32),
                Some(cos_table.token()),
                ordering::Weak,
                scope::TileBlock,
                tma::Enabled,
                None,
                [false, false],
                shape![BT, HALF_D],
            )
        };
        let (sin, _): (Tile<f32, { [BT, HALF_D] }>, Token) = unsafe {
            load_view_raw(
                &sin_rows,
                (pos, 0i32),
                Some(sin_table.token()),
                ordering::Weak,
                scope::TileBlock,
                tma::Enabled,
                None,
                [false, false],
                shape![BT, HALF_D],
            )
        };
        let cos: Tile<f32, { [BT, 1, HALF_D] }> = cos.reshape(shape![BT, 1, HALF_D]);
        let sin: Tile<f32, { [BT, 1, HALF_D] }> = sin.reshape(shape![BT, 1, HALF_D]);
        let cos: Tile<f32, { [BT, TH, HALF_D] }> = cos.broadcast(shape![BT, TH, HALF_D]);
        let sin: Tile<f32, { [BT, TH, HALF_D] }> = sin.broadcast(shape![BT, TH, HALF_D]);
        (cos, sin)
    }

    /// rotate_heads for rotate-half pairs, each half of D its own tile: tile index 0 / 1 on the
    /// last axis is elements [0, D/2) / [D/2, D).
    fn rotate_halves<E: ElementType, const BT: i32, const TH: i32, const HALF_D: i32>(
        src: &Tensor<E, { [-1, -1, -1] }>,
        dst: &Tensor<E, { [-1, -1, -1] }>,
        tile_t: i32,
        cos: Tile<f32, { [BT, TH, HALF_D] }>,
        sin: Tile<f32, { [BT, TH, HALF_D] }>,
    ) {
        let src_tiles: Partition<E, { [BT, TH, HALF_D] }> = unsafe {
            make_partition_view(src, shape![BT, TH, HALF_D], padding::None, dim_map::Identity, src.token())
        };
        // Python threads one token through the loop: each iteration's two stores to dst are
        // ordered after the previous ones (store_view_raw with the carried token).
        let dst_tiles: Partition<E, { [BT, TH, HALF_D] }> = unsafe {
            make_partition_view(dst, shape![BT, TH, HALF_D], padding::None, dim_map::Identity, dst.token())
        };
        let mut token: Token = dst.token();
        // A `Dim`, as in rotate_heads: no `assume` on the loop index.
        let head_tiles: Dim = ceil_div(get_shape_dim(src.shape(), 1i32), TH).into_dim();
        for h in head_tiles {
            let raw1: Tile<E, { [BT, TH, HALF_D] }> = src_tiles.load([tile_t, h, 0i32]);
            let x1: Tile<f32, { [BT, TH, HALF_D] }> = convert_tile(raw1);
            let raw2: Tile<E, { [BT, TH, HALF_D] }> = src_tiles.load([tile_t, h, 1i32]);
            let x2: Tile<f32, { [BT, TH, HALF_D] }> = convert_tile(raw2);
            let y1: Tile<f32, { [BT, TH, HALF_D] }> =
                fma(x1, cos, negf(x2 * sin), rounding::NearestEven, ftz::Disabled);
            let y1_out: Tile<E, { [BT, TH, HALF_D] }> = convert_tile(y1);
            token = unsafe { store_half::<E, BT, TH, HALF_D>(&dst_tiles, y1_out, tile_t, h, 0i32, token) };
            let y2: Tile<f32, { [BT, TH, HALF_D] }> = fma(x2, cos, x1 * sin, rounding::NearestEven, ftz::Disabled);
            let y2_out: Tile<E, { [BT, TH, HALF_D] }> = convert_tile(y2);
            token = unsafe { store_half::<E, BT, TH, HALF_D>(&dst_tiles, y2_out, tile_t, h, 1i32, token) };
        }
    }

    /// One (BT, TH, D/2) store of rotate_halves, ordered after `token`.
    unsafe fn store_half<E: ElementType, const BT: i32, const TH: i32, const HALF_D: i32>(
        dst_tiles: &Partition<E, { [BT, TH, HALF_D] }>,
        y: Tile<E, { [BT, TH, HALF_D] }>,
        tile_t: i32,
        h: i32,
        half: i32,
        token: Token,
    ) -> Token {
        unsafe {
            store_view_raw(
                dst_tiles,
                y,
                (tile_t, h, half),
                Some(token),
                ordering::Weak,
                scope::TileBlock,
                tma::Enabled,
                None,
                [false, false, false],
            )
        }
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn rope<
        E: ElementType,
        const BT: i32,
        const TH: i32,
        const D: i32,
        const HALF_D: i32,
        const IS_NEOX: i32,
    >(
        positions: &Tensor<i32, { [-1] }>,
        q: &Tensor<E, { [-1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1] }>,
        cos_table: &Tensor<f32, { [-1, -1] }>,
        sin_table: &Tensor<f32, { [-1, -1] }>,
        q_out: &Tensor<E, { [-1, -1, -1] }>,
        k_out: &Tensor<E, { [-1, -1, -1] }>,
    ) {
        let tile_t: i32 = get_tile_block_id().0;
        let (cos, sin) = angles::<BT, TH, HALF_D>(positions, cos_table, sin_table, tile_t);
        rotate_heads::<E, BT, TH, D, HALF_D, IS_NEOX>(q, q_out, tile_t, cos, sin);
        rotate_heads::<E, BT, TH, D, HALF_D, IS_NEOX>(k, k_out, tile_t, cos, sin);
    }

    /// `rope` under `ct.kernel(occupancy=8)` (kernel.py `rope_o8`): 8 blocks per SM, registers
    /// capped at 64.
    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 8,),))]
    unsafe fn rope_o8<
        E: ElementType,
        const BT: i32,
        const TH: i32,
        const D: i32,
        const HALF_D: i32,
        const IS_NEOX: i32,
    >(
        positions: &Tensor<i32, { [-1] }>,
        q: &Tensor<E, { [-1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1] }>,
        cos_table: &Tensor<f32, { [-1, -1] }>,
        sin_table: &Tensor<f32, { [-1, -1] }>,
        q_out: &Tensor<E, { [-1, -1, -1] }>,
        k_out: &Tensor<E, { [-1, -1, -1] }>,
    ) {
        let tile_t: i32 = get_tile_block_id().0;
        let (cos, sin) = angles::<BT, TH, HALF_D>(positions, cos_table, sin_table, tile_t);
        rotate_heads::<E, BT, TH, D, HALF_D, IS_NEOX>(q, q_out, tile_t, cos, sin);
        rotate_heads::<E, BT, TH, D, HALF_D, IS_NEOX>(k, k_out, tile_t, cos, sin);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 4,),))]
    unsafe fn rope_neox_split<E: ElementType, const BT: i32, const TH: i32, const D: i32, const HALF_D: i32>(
        positions: &Tensor<i32, { [-1] }>,
        q: &Tensor<E, { [-1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1] }>,
        cos_table: &Tensor<f32, { [-1, -1] }>,
        sin_table: &Tensor<f32, { [-1, -1] }>,
        q_out: &Tensor<E, { [-1, -1, -1] }>,
        k_out: &Tensor<E, { [-1, -1, -1] }>,
    ) {
        let tile_t: i32 = get_tile_block_id().0;
        let (cos, sin) = angles::<BT, TH, HALF_D>(positions, cos_table, sin_table, tile_t);
        rotate_halves::<E, BT, TH, HALF_D>(q, q_out, tile_t, cos, sin);
        rotate_halves::<E, BT, TH, HALF_D>(k, k_out, tile_t, cos, sin);
    }

    /// `rope_neox_split` under `ct.kernel(occupancy=8)` (kernel.py `rope_neox_split_o8`).
    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 8,),))]
    unsafe fn rope_neox_split_o8<E: ElementType, const BT: i32, const TH: i32, const D: i32, const HALF_D: i32>(
        positions: &Tensor<i32, { [-1] }>,
        q: &Tensor<E, { [-1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1] }>,
        cos_table: &Tensor<f32, { [-1, -1] }>,
        sin_table: &Tensor<f32, { [-1, -1] }>,
        q_out: &Tensor<E, { [-1, -1, -1] }>,
        k_out: &Tensor<E, { [-1, -1, -1] }>,
    ) {
        let tile_t: i32 = get_tile_block_id().0;
        let (cos, sin) = angles::<BT, TH, HALF_D>(positions, cos_table, sin_table, tile_t);
        rotate_halves::<E, BT, TH, HALF_D>(q, q_out, tile_t, cos, sin);
        rotate_halves::<E, BT, TH, HALF_D>(k, k_out, tile_t, cos, sin);
    }
}
