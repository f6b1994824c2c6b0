//! The independent-style ports: the same operators as reference/<op>/kernel.py, written as
//! another team would write them, so that tileir_diff is tried on ports that do not mirror
//! their reference. On purpose, against the style of src/ops/:
//! - raw `*mut E` pointers plus scalar extents and row strides where the API allows, the
//!   output argument first, extra scalars (a runtime `group_m`, a runtime `log2e`);
//! - ceil-div written by hand, `min` written as an `if`, other but equivalent index
//!   arithmetic (`bid - group * span` for `bid % span`), a persistent tile loop;
//! - `WRONG:` entries are deliberately broken ports; the corpus expects `different` with
//!   the cause named (tests/corpus/independent/*.expect.json).

#[cutile::module]
pub mod independent_kernels {
    use cutile::core::*;

    /// A 1-D contiguous array of `len` elements at `ptr`.
    fn flat<E: ElementType>(ptr: *mut E, len: i32) -> Tensor<E, { [-1] }> {
        let extent: Shape<{ [-1] }> = Shape::<{ [-1] }> { dims: &[len] };
        let unit: Array<{ [1] }> = Array::<{ [1] }> { dims: &[] };
        unsafe { make_tensor_view(pointer_to_tile(ptr), extent, unit, new_token_unordered()) }
    }

    /// A row-major (rows, cols) matrix at `ptr` whose rows are `ld` elements apart.
    fn matrix<E: ElementType>(ptr: *mut E, rows: i32, cols: i32, ld: i32) -> Tensor<E, { [-1, -1] }> {
        let extent: Shape<{ [-1, -1] }> = Shape::<{ [-1, -1] }> { dims: &[rows, cols] };
        let steps: Array<{ [-1, 1] }> = Array::<{ [-1, 1] }> { dims: &[ld] };
        unsafe { make_tensor_view(pointer_to_tile(ptr), extent, steps, new_token_unordered()) }
    }

    // ---------------------------------------------------------------- vector_add

    /// z = x + y, one CHUNK per block, raw pointers, output first.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn vadd_ptr<E: ElementType, const CHUNK: i32>(z: *mut E, x: *mut E, y: *mut E, len: i32) {
        let xs: Tensor<E, { [-1] }> = flat(x, len);
        let ys: Tensor<E, { [-1] }> = flat(y, len);
        let mut zs: Tensor<E, { [-1] }> = flat(z, len);
        let chunk: i32 = get_tile_block_id().0;
        let sum: Tile<E, { [CHUNK] }> =
            xs.partition(shape![CHUNK]).load([chunk]) + ys.partition(shape![CHUNK]).load([chunk]);
        zs.partition_mut(shape![CHUNK]).store(sum, [chunk]);
    }

    /// z = x + y as a persistent kernel: each block strides over the chunks.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn vadd_persistent<E: ElementType, const CHUNK: i32>(z: *mut E, x: *mut E, y: *mut E, len: i32) {
        let xs: Tensor<E, { [-1] }> = flat(x, len);
        let ys: Tensor<E, { [-1] }> = flat(y, len);
        let mut zs: Tensor<E, { [-1] }> = flat(z, len);
        let chunks: i32 = (len + CHUNK - 1i32) / CHUNK;
        let first: i32 = get_tile_block_id().0;
        let step: i32 = get_num_tile_blocks().0;
        let mut c: i32 = first;
        while c < chunks {
            let sum: Tile<E, { [CHUNK] }> =
                xs.partition(shape![CHUNK]).load([c]) + ys.partition(shape![CHUNK]).load([c]);
            zs.partition_mut(shape![CHUNK]).store(sum, [c]);
            c = c + step;
        }
    }

    // ---------------------------------------------------------------- matmul

    /// C = A @ B, row-major, raw pointers (C first), extents and leading dimensions as
    /// scalars, the group height a runtime scalar; ceil-div by hand, min as an if.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn gemm_rowmajor<E: ElementType, const TM: i32, const TN: i32, const TK: i32>(
        c: *mut E,
        a: *mut E,
        b: *mut E,
        m: i32,
        n: i32,
        k: i32,
        ldc: i32,
        lda: i32,
        ldb: i32,
        group_m: i32,
    ) {
        let a_mat: Tensor<E, { [-1, -1] }> = matrix(a, m, k, lda);
        let b_mat: Tensor<E, { [-1, -1] }> = matrix(b, k, n, ldb);
        let mut c_mat: Tensor<E, { [-1, -1] }> = matrix(c, m, n, ldc);
        let pid: i32 = get_tile_block_id().0;
        let grid_m: i32 = (m + TM - 1i32) / TM;
        let grid_n: i32 = (n + TN - 1i32) / TN;
        let span: i32 = group_m * grid_n;
        let group: i32 = pid / span;
        let row0: i32 = group * group_m;
        let left: i32 = grid_m - row0;
        let height: i32 = if left < group_m { left } else { group_m };
        let in_group: i32 = pid - group * span;
        let pm: i32 = row0 + in_group % height;
        let pn: i32 = in_group / height;
        let a_tiles: Partition<E, { [TM, TK] }> = a_mat.partition(shape![TM, TK]);
        let b_tiles: Partition<E, { [TK, TN] }> = b_mat.partition(shape![TK, TN]);
        let mut acc: Tile<f32, { [TM, TN] }> = constant(0.0f32, shape![TM, TN]);
        let steps: i32 = (k + TK - 1i32) / TK;
        for s in 0i32..steps {
            acc = mma(a_tiles.load([pm, s]), b_tiles.load([s, pn]), acc);
        }
        let out: Tile<E, { [TM, TN] }> = convert_tile(acc);
        c_mat.partition_mut(shape![TM, TN]).store(out, [pm, pn]);
    }

    /// WRONG: meant as C = A @ B^T (b stored (N, K)); the transposed B tile is loaded but
    /// the mma uses B read untransposed.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn gemm_nt_unused_transpose<E: ElementType, const TM: i32, const TN: i32, const TK: i32>(
        c: *mut E,
        a: *mut E,
        b: *mut E,
        m: i32,
        n: i32,
        k: i32,
        ldc: i32,
        lda: i32,
        ldb: i32,
        group_m: i32,
    ) {
        let a_mat: Tensor<E, { [-1, -1] }> = matrix(a, m, k, lda);
        let b_mat: Tensor<E, { [-1, -1] }> = matrix(b, n, k, ldb);
        let mut c_mat: Tensor<E, { [-1, -1] }> = matrix(c, m, n, ldc);
        let pid: i32 = get_tile_block_id().0;
        let grid_m: i32 = (m + TM - 1i32) / TM;
        let grid_n: i32 = (n + TN - 1i32) / TN;
        let span: i32 = group_m * grid_n;
        let group: i32 = pid / span;
        let row0: i32 = group * group_m;
        let left: i32 = grid_m - row0;
        let height: i32 = if left < group_m { left } else { group_m };
        let in_group: i32 = pid - group * span;
        let pm: i32 = row0 + in_group % height;
        let pn: i32 = in_group / height;
        let a_tiles: Partition<E, { [TM, TK] }> = a_mat.partition(shape![TM, TK]);
        let bt_tiles: Partition<E, { [TK, TN] }> = b_mat.partition_permuted(shape![TK, TN], const_array![1, 0]);
        let b_plain: Partition<E, { [TK, TN] }> = b_mat.partition(shape![TK, TN]);
        let mut acc: Tile<f32, { [TM, TN] }> = constant(0.0f32, shape![TM, TN]);
        let steps: i32 = (k + TK - 1i32) / TK;
        for s in 0i32..steps {
            let _bt: Tile<E, { [TK, TN] }> = bt_tiles.load([s, pn]);
            acc = mma(a_tiles.load([pm, s]), b_plain.load([s, pn]), acc);
        }
        let out: Tile<E, { [TM, TN] }> = convert_tile(acc);
        c_mat.partition_mut(shape![TM, TN]).store(out, [pm, pn]);
    }

    // ---------------------------------------------------------------- bmm

    /// c[z] = a[z] @ b[z], tensors passed output first, batch on grid axis 1, the group
    /// height fixed at 8; ceil-div by hand, min as an if.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn batched_gemm<E: ElementType, const TM: i32, const TN: i32, const TK: i32>(
        c: &Tensor<E, { [-1, -1, -1] }>,
        a: &Tensor<E, { [-1, -1, -1] }>,
        b: &Tensor<E, { [-1, -1, -1] }>,
    ) {
        let ids: (i32, i32, i32) = get_tile_block_id();
        let batch: i32 = ids.1;
        let m: i32 = get_shape_dim(c.shape(), 1i32);
        let n: i32 = get_shape_dim(c.shape(), 2i32);
        let k: i32 = get_shape_dim(a.shape(), 2i32);
        let grid_m: i32 = (m + TM - 1i32) / TM;
        let grid_n: i32 = (n + TN - 1i32) / TN;
        let span: i32 = 8i32 * grid_n;
        let group: i32 = ids.0 / span;
        let row0: i32 = group * 8i32;
        let left: i32 = grid_m - row0;
        let height: i32 = if left < 8i32 { left } else { 8i32 };
        let pm: i32 = row0 + ids.0 % height;
        let pn: i32 = (ids.0 % span) / height;
        let a_tiles: Partition<E, { [1, TM, TK] }> = a.partition(shape![1, TM, TK]);
        let b_tiles: Partition<E, { [1, TK, TN] }> = b.partition(shape![1, TK, TN]);
        let mut acc: Tile<f32, { [TM, TN] }> = constant(0.0f32, shape![TM, TN]);
        let steps: i32 = (k + TK - 1i32) / TK;
        for s in 0i32..steps {
            let ta: Tile<E, { [TM, TK] }> = a_tiles.load([batch, pm, s]).reshape(shape![TM, TK]);
            let tb: Tile<E, { [TK, TN] }> = b_tiles.load([batch, s, pn]).reshape(shape![TK, TN]);
            acc = mma(ta, tb, acc);
        }
        let out: Tile<E, { [TM, TN] }> = convert_tile(acc);
        let mut c_tiles: PartitionMut<E, { [1, TM, TN] }> = unsafe { c.partition_full_mut(shape![1, TM, TN]) };
        unsafe { c_tiles.store_unchecked(out.reshape(shape![1, TM, TN]), [batch, pm, pn]) };
    }

    // ---------------------------------------------------------------- rms_norm

    /// y = x * rstd * w, rstd = 1 / sqrt(mean(x^2) + eps): raw pointers, outputs first,
    /// extents and row strides as scalars.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn rmsnorm_rows<E: ElementType, const ROWS: i32, const COLS: i32>(
        y: *mut E,
        inv_rms: *mut f32,
        x: *mut E,
        w: *mut E,
        rows: i32,
        cols: i32,
        ld_y: i32,
        ld_x: i32,
        eps: f32,
    ) {
        let xs: Tensor<E, { [-1, -1] }> = matrix(x, rows, cols, ld_x);
        let ws: Tensor<E, { [-1] }> = flat(w, cols);
        let mut ys: Tensor<E, { [-1, -1] }> = matrix(y, rows, cols, ld_y);
        let mut rs: Tensor<f32, { [-1] }> = flat(inv_rms, rows);
        let blk: i32 = get_tile_block_id().0;
        let v: Tile<f32, { [ROWS, COLS] }> = convert_tile(xs.partition(shape![ROWS, COLS]).load([blk, 0i32]));
        let ss: Tile<f32, { [ROWS] }> = reduce_sum(v * v, 1);
        let ss: Tile<f32, { [ROWS, 1] }> = ss.reshape(shape![ROWS, 1]);
        let count: Tile<f32, { [ROWS, 1] }> = broadcast_scalar(convert_scalar::<f32>(cols), shape![ROWS, 1]);
        let ms: Tile<f32, { [ROWS, 1] }> = divf(ss, count, rounding::NearestEven, ftz::Disabled);
        let r: Tile<f32, { [ROWS, 1] }> = rsqrt(ms + broadcast_scalar(eps, shape![ROWS, 1]), ftz::Disabled);
        let g: Tile<f32, { [COLS] }> = convert_tile(ws.partition(shape![COLS]).load([0i32]));
        let out: Tile<f32, { [ROWS, COLS] }> =
            v * r.broadcast(shape![ROWS, COLS]) * g.reshape(shape![1, COLS]).broadcast(shape![ROWS, COLS]);
        let out_e: Tile<E, { [ROWS, COLS] }> = convert_tile(out);
        ys.partition_mut(shape![ROWS, COLS]).store(out_e, [blk, 0i32]);
        rs.partition_mut(shape![ROWS]).store(r.reshape(shape![ROWS]), [blk]);
    }

    /// WRONG: rmsnorm_rows without the rstd store.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn rmsnorm_rows_no_rstd<E: ElementType, const ROWS: i32, const COLS: i32>(
        y: *mut E,
        inv_rms: *mut f32,
        x: *mut E,
        w: *mut E,
        rows: i32,
        cols: i32,
        ld_y: i32,
        ld_x: i32,
        eps: f32,
    ) {
        let xs: Tensor<E, { [-1, -1] }> = matrix(x, rows, cols, ld_x);
        let ws: Tensor<E, { [-1] }> = flat(w, cols);
        let mut ys: Tensor<E, { [-1, -1] }> = matrix(y, rows, cols, ld_y);
        let _rs: Tensor<f32, { [-1] }> = flat(inv_rms, rows);
        let blk: i32 = get_tile_block_id().0;
        let v: Tile<f32, { [ROWS, COLS] }> = convert_tile(xs.partition(shape![ROWS, COLS]).load([blk, 0i32]));
        let ss: Tile<f32, { [ROWS] }> = reduce_sum(v * v, 1);
        let ss: Tile<f32, { [ROWS, 1] }> = ss.reshape(shape![ROWS, 1]);
        let count: Tile<f32, { [ROWS, 1] }> = broadcast_scalar(convert_scalar::<f32>(cols), shape![ROWS, 1]);
        let ms: Tile<f32, { [ROWS, 1] }> = divf(ss, count, rounding::NearestEven, ftz::Disabled);
        let r: Tile<f32, { [ROWS, 1] }> = rsqrt(ms + broadcast_scalar(eps, shape![ROWS, 1]), ftz::Disabled);
        let g: Tile<f32, { [COLS] }> = convert_tile(ws.partition(shape![COLS]).load([0i32]));
        let out: Tile<f32, { [ROWS, COLS] }> =
            v * r.broadcast(shape![ROWS, COLS]) * g.reshape(shape![1, COLS]).broadcast(shape![ROWS, COLS]);
        let out_e: Tile<E, { [ROWS, COLS] }> = convert_tile(out);
        ys.partition_mut(shape![ROWS, COLS]).store(out_e, [blk, 0i32]);
    }

    // ---------------------------------------------------------------- silu_and_mul

    /// out = silu(x[:, :H]) * x[:, H:]: raw pointers, output first, x read as (rows, 2, H)
    /// with its middle extent fixed at 2 and its strides passed as scalars.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn silu_mul_ptr<E: ElementType, const BR: i32, const BH: i32>(
        out: *mut E,
        x: *mut E,
        rows: i32,
        hidden: i32,
        ld_out: i32,
        ld_x: i32,
        half_stride: i32,
    ) {
        let extent: Shape<{ [-1, 2, -1] }> = Shape::<{ [-1, 2, -1] }> { dims: &[rows, hidden] };
        let steps: Array<{ [-1, -1, 1] }> = Array::<{ [-1, -1, 1] }> { dims: &[ld_x, half_stride] };
        let xs: Tensor<E, { [-1, 2, -1] }> =
            unsafe { make_tensor_view(pointer_to_tile(x), extent, steps, new_token_unordered()) };
        let mut os: Tensor<E, { [-1, -1] }> = matrix(out, rows, hidden, ld_out);
        let ids: (i32, i32, i32) = get_tile_block_id();
        let halves: Partition<E, { [BR, 1, BH] }> = xs.partition(shape![BR, 1, BH]);
        let g3: Tile<f32, { [BR, 1, BH] }> = convert_tile(halves.load([ids.0, 0i32, ids.1]));
        let u3: Tile<f32, { [BR, 1, BH] }> = convert_tile(halves.load([ids.0, 1i32, ids.1]));
        let g: Tile<f32, { [BR, BH] }> = g3.reshape(shape![BR, BH]);
        let u: Tile<f32, { [BR, BH] }> = u3.reshape(shape![BR, BH]);
        let denom: Tile<f32, { [BR, BH] }> = broadcast_scalar(1.0f32, shape![BR, BH]) + exp(negf(g));
        let r: Tile<f32, { [BR, BH] }> = divf(g, denom, rounding::NearestEven, ftz::Disabled) * u;
        let r_e: Tile<E, { [BR, BH] }> = convert_tile(r);
        os.partition_mut(shape![BR, BH]).store(r_e, [ids.0, ids.1]);
    }

    /// WRONG: silu_mul_ptr with sigmoid as e / (1 + e), e = exp2(g * log2 e): inf / inf =
    /// NaN for g > 88.7 where the reference gives g.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn silu_mul_exp2<E: ElementType, const BR: i32, const BH: i32>(
        out: *mut E,
        x: *mut E,
        rows: i32,
        hidden: i32,
        ld_out: i32,
        ld_x: i32,
        half_stride: i32,
    ) {
        let extent: Shape<{ [-1, 2, -1] }> = Shape::<{ [-1, 2, -1] }> { dims: &[rows, hidden] };
        let steps: Array<{ [-1, -1, 1] }> = Array::<{ [-1, -1, 1] }> { dims: &[ld_x, half_stride] };
        let xs: Tensor<E, { [-1, 2, -1] }> =
            unsafe { make_tensor_view(pointer_to_tile(x), extent, steps, new_token_unordered()) };
        let mut os: Tensor<E, { [-1, -1] }> = matrix(out, rows, hidden, ld_out);
        let ids: (i32, i32, i32) = get_tile_block_id();
        let halves: Partition<E, { [BR, 1, BH] }> = xs.partition(shape![BR, 1, BH]);
        let g3: Tile<f32, { [BR, 1, BH] }> = convert_tile(halves.load([ids.0, 0i32, ids.1]));
        let u3: Tile<f32, { [BR, 1, BH] }> = convert_tile(halves.load([ids.0, 1i32, ids.1]));
        let g: Tile<f32, { [BR, BH] }> = g3.reshape(shape![BR, BH]);
        let u: Tile<f32, { [BR, BH] }> = u3.reshape(shape![BR, BH]);
        let e: Tile<f32, { [BR, BH] }> =
            exp2(g * broadcast_scalar(1.4426950408889634f32, shape![BR, BH]), ftz::Disabled);
        let s: Tile<f32, { [BR, BH] }> =
            divf(e, broadcast_scalar(1.0f32, shape![BR, BH]) + e, rounding::NearestEven, ftz::Disabled);
        let r_e: Tile<E, { [BR, BH] }> = convert_tile(g * s * u);
        os.partition_mut(shape![BR, BH]).store(r_e, [ids.0, ids.1]);
    }

    // ---------------------------------------------------------------- swiglu

    /// c = silu(a) * b with tensors passed output first.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn swiglu_out_first<E: ElementType, const BM: i32, const BN: i32>(
        c: &Tensor<E, { [-1, -1] }>,
        a: &Tensor<E, { [-1, -1] }>,
        b: &Tensor<E, { [-1, -1] }>,
    ) {
        let ids: (i32, i32, i32) = get_tile_block_id();
        let av: Tile<f32, { [BM, BN] }> = convert_tile(a.partition(shape![BM, BN]).load([ids.0, ids.1]));
        let bv: Tile<f32, { [BM, BN] }> = convert_tile(b.partition(shape![BM, BN]).load([ids.0, ids.1]));
        let one: Tile<f32, { [BM, BN] }> = constant(1.0f32, shape![BM, BN]);
        let sig: Tile<f32, { [BM, BN] }> = divf(one, one + exp(negf(av)), rounding::NearestEven, ftz::Disabled);
        let y: Tile<E, { [BM, BN] }> = convert_tile(av * sig * bv);
        let mut c_tiles: PartitionMut<E, { [BM, BN] }> = unsafe { c.partition_full_mut(shape![BM, BN]) };
        unsafe { c_tiles.store_unchecked(y, [ids.0, ids.1]) };
    }

    // ---------------------------------------------------------------- softmax

    /// Row softmax in base 2 with log2(e) a runtime scalar, output first: the output a raw
    /// pointer with scalar extents and row stride, the input a tensor (a -inf padded view of
    /// a pointer-made tensor does not compile in cuTile Rust 0.5.0).
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn softmax_rows_ptr<E: ElementType, const ROWS: i32, const COLS: i32>(
        y: *mut E,
        x: &Tensor<E, { [-1, -1] }>,
        rows: i32,
        cols: i32,
        ld_y: i32,
        log2e: f32,
    ) {
        let mut ys: Tensor<E, { [-1, -1] }> = matrix(y, rows, cols, ld_y);
        let blk: i32 = get_tile_block_id().0;
        let tiles: Partition<E, { [ROWS, COLS] }> =
            unsafe { make_partition_view(x, shape![ROWS, COLS], padding::NegInf, dim_map::Identity, x.token()) };
        let t: Tile<f32, { [ROWS, COLS] }> = convert_tile(tiles.load([blk, 0i32]));
        let t: Tile<f32, { [ROWS, COLS] }> = t * broadcast_scalar(log2e, shape![ROWS, COLS]);
        let mx: Tile<f32, { [ROWS] }> = reduce_max(t, 1);
        let mx: Tile<f32, { [ROWS, 1] }> = mx.reshape(shape![ROWS, 1]);
        let e: Tile<f32, { [ROWS, COLS] }> = exp2(t - mx.broadcast(shape![ROWS, COLS]), ftz::Disabled);
        let sm: Tile<f32, { [ROWS] }> = reduce_sum(e, 1);
        let sm: Tile<f32, { [ROWS, 1] }> = sm.reshape(shape![ROWS, 1]);
        let p: Tile<f32, { [ROWS, COLS] }> =
            divf(e, sm.broadcast(shape![ROWS, COLS]), rounding::NearestEven, ftz::Disabled);
        let p_e: Tile<E, { [ROWS, COLS] }> = convert_tile(p);
        ys.partition_mut(shape![ROWS, COLS]).store(p_e, [blk, 0i32]);
    }

    // ---------------------------------------------------------------- flash_decode

    /// Split-KV decode attention of reference/flash_decode (flash_decode_partial): outputs
    /// first, the split range clamped with ifs, ceil-div by hand, the mask written as
    /// `cmpi less_than` on a broadcast length.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn decode_split<E: ElementType, const KEYS: i32, const HEAD: i32, const GROUP: i32>(
        out_o: &Tensor<f32, { [-1, -1, -1, -1] }>,
        out_lse: &Tensor<f32, { [-1, -1, -1] }>,
        q: &Tensor<E, { [-1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1, -1] }>,
        v: &Tensor<E, { [-1, -1, -1, -1] }>,
        lens: &Tensor<i32, { [-1] }>,
        scale: f32,
    ) {
        let ids: (i32, i32, i32) = get_tile_block_id();
        let split: i32 = ids.0;
        let splits: i32 = get_shape_dim(out_lse.shape(), 2i32);
        let kv_heads: i32 = get_shape_dim(k.shape(), 1i32);
        let b: i32 = ids.1 / kv_heads;
        let h: i32 = ids.1 % kv_heads;
        // no padding on q and seq_lens, as in the reference (their loads are in bounds)
        let lens_view: Partition<i32, { [1] }> =
            unsafe { make_partition_view(lens, shape![1], padding::None, dim_map::Identity, lens.token()) };
        let len_tile: Tile<i32, { [1] }> = lens_view.load([b]);
        let len: i32 = tile_to_scalar(len_tile.reshape(shape![]));
        let n_tiles: i32 = (len + KEYS - 1i32) / KEYS;
        let per: i32 = (n_tiles + splits - 1i32) / splits;
        let lo0: i32 = split * per;
        let lo: i32 = if lo0 < n_tiles { lo0 } else { n_tiles };
        let hi0: i32 = lo + per;
        let hi: i32 = if hi0 < n_tiles { hi0 } else { n_tiles };
        let qk: f32 = scale * 1.4426950408889634f32;
        let q_view: Partition<E, { [1, GROUP, HEAD] }> =
            unsafe { make_partition_view(q, shape![1, GROUP, HEAD], padding::None, dim_map::Identity, q.token()) };
        let q3: Tile<E, { [1, GROUP, HEAD] }> = q_view.load([b, h, 0i32]);
        let qt: Tile<E, { [GROUP, HEAD] }> = q3.reshape(shape![GROUP, HEAD]);
        let mut m_run: Tile<f32, { [GROUP, 1] }> = constant(f32::NEG_INFINITY, shape![GROUP, 1]);
        let mut l_run: Tile<f32, { [GROUP, 1] }> = constant(0.0f32, shape![GROUP, 1]);
        let mut acc: Tile<f32, { [GROUP, HEAD] }> = constant(0.0f32, shape![GROUP, HEAD]);
        let kt_tiles: Partition<E, { [1, 1, HEAD, KEYS] }> =
            k.partition_permuted(shape![1, 1, HEAD, KEYS], const_array![0, 1, 3, 2]);
        let v_tiles: Partition<E, { [1, 1, KEYS, HEAD] }> = v.partition(shape![1, 1, KEYS, HEAD]);
        let lane: Tile<i32, { [KEYS] }> = iota(shape![KEYS]);
        let len_b: Tile<i32, { [KEYS] }> = broadcast_scalar(len, shape![KEYS]);
        let minus_inf: Tile<f32, { [GROUP, KEYS] }> = constant(f32::NEG_INFINITY, shape![GROUP, KEYS]);
        for j in lo..hi {
            let kt4: Tile<E, { [1, 1, HEAD, KEYS] }> = kt_tiles.load([b, h, 0i32, j]);
            let kt: Tile<E, { [HEAD, KEYS] }> = kt4.reshape(shape![HEAD, KEYS]);
            let zero: Tile<f32, { [GROUP, KEYS] }> = constant(0.0f32, shape![GROUP, KEYS]);
            let s: Tile<f32, { [GROUP, KEYS] }> = mma(qt, kt, zero) * broadcast_scalar(qk, shape![GROUP, KEYS]);
            let cols: Tile<i32, { [KEYS] }> = broadcast_scalar(j * KEYS, shape![KEYS]) + lane;
            let live: Tile<bool, { [KEYS] }> = cmpi(cols, len_b, predicate::LessThan);
            let live2: Tile<bool, { [GROUP, KEYS] }> = live.reshape(shape![1, KEYS]).broadcast(shape![GROUP, KEYS]);
            let s: Tile<f32, { [GROUP, KEYS] }> = select(live2, s, minus_inf);
            let row_max: Tile<f32, { [GROUP] }> = reduce_max(s, 1);
            let m_new: Tile<f32, { [GROUP, 1] }> = max_tile(m_run, row_max.reshape(shape![GROUP, 1]));
            let p: Tile<f32, { [GROUP, KEYS] }> = exp2(s - m_new.broadcast(shape![GROUP, KEYS]), ftz::Disabled);
            let alpha: Tile<f32, { [GROUP, 1] }> = exp2(m_run - m_new, ftz::Disabled);
            let p_sum: Tile<f32, { [GROUP] }> = reduce_sum(p, 1);
            // one fma, as cuTile Python contracts `l_i * alpha + sum`
            l_run = fma(l_run, alpha, p_sum.reshape(shape![GROUP, 1]), rounding::NearestEven, ftz::Disabled);
            let v4: Tile<E, { [1, 1, KEYS, HEAD] }> = v_tiles.load([b, h, j, 0i32]);
            let vt: Tile<E, { [KEYS, HEAD] }> = v4.reshape(shape![KEYS, HEAD]);
            let p_e: Tile<E, { [GROUP, KEYS] }> = convert_tile(p);
            acc = mma(p_e, vt, acc * alpha.broadcast(shape![GROUP, HEAD]));
            m_run = m_new;
        }
        let floor: Tile<f32, { [GROUP, 1] }> = constant(1e-30f32, shape![GROUP, 1]);
        let o: Tile<f32, { [GROUP, HEAD] }> =
            divf(acc, max_tile(l_run, floor).broadcast(shape![GROUP, HEAD]), rounding::NearestEven, ftz::Disabled);
        let lse: Tile<f32, { [GROUP, 1] }> = m_run + log2(l_run);
        let mut o_tiles: PartitionMut<f32, { [1, GROUP, 1, HEAD] }> =
            unsafe { out_o.partition_full_mut(shape![1, GROUP, 1, HEAD]) };
        unsafe { o_tiles.store_unchecked(o.reshape(shape![1, GROUP, 1, HEAD]), [b, h, split, 0i32]) };
        let mut lse_tiles: PartitionMut<f32, { [1, GROUP, 1] }> =
            unsafe { out_lse.partition_full_mut(shape![1, GROUP, 1]) };
        unsafe { lse_tiles.store_unchecked(lse.reshape(shape![1, GROUP, 1]), [b, h, split]) };
    }

    /// WRONG: decode_split with the key mask bound off by one (`<=`): the stale key at
    /// index seq_len gets a weight.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn decode_split_mask_le<E: ElementType, const KEYS: i32, const HEAD: i32, const GROUP: i32>(
        out_o: &Tensor<f32, { [-1, -1, -1, -1] }>,
        out_lse: &Tensor<f32, { [-1, -1, -1] }>,
        q: &Tensor<E, { [-1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1, -1] }>,
        v: &Tensor<E, { [-1, -1, -1, -1] }>,
        lens: &Tensor<i32, { [-1] }>,
        scale: f32,
    ) {
        let ids: (i32, i32, i32) = get_tile_block_id();
        let split: i32 = ids.0;
        let splits: i32 = get_shape_dim(out_lse.shape(), 2i32);
        let kv_heads: i32 = get_shape_dim(k.shape(), 1i32);
        let b: i32 = ids.1 / kv_heads;
        let h: i32 = ids.1 % kv_heads;
        // no padding on q and seq_lens, as in the reference (their loads are in bounds)
        let lens_view: Partition<i32, { [1] }> =
            unsafe { make_partition_view(lens, shape![1], padding::None, dim_map::Identity, lens.token()) };
        let len_tile: Tile<i32, { [1] }> = lens_view.load([b]);
        let len: i32 = tile_to_scalar(len_tile.reshape(shape![]));
        let n_tiles: i32 = (len + KEYS - 1i32) / KEYS;
        let per: i32 = (n_tiles + splits - 1i32) / splits;
        let lo0: i32 = split * per;
        let lo: i32 = if lo0 < n_tiles { lo0 } else { n_tiles };
        let hi0: i32 = lo + per;
        let hi: i32 = if hi0 < n_tiles { hi0 } else { n_tiles };
        let qk: f32 = scale * 1.4426950408889634f32;
        let q_view: Partition<E, { [1, GROUP, HEAD] }> =
            unsafe { make_partition_view(q, shape![1, GROUP, HEAD], padding::None, dim_map::Identity, q.token()) };
        let q3: Tile<E, { [1, GROUP, HEAD] }> = q_view.load([b, h, 0i32]);
        let qt: Tile<E, { [GROUP, HEAD] }> = q3.reshape(shape![GROUP, HEAD]);
        let mut m_run: Tile<f32, { [GROUP, 1] }> = constant(f32::NEG_INFINITY, shape![GROUP, 1]);
        let mut l_run: Tile<f32, { [GROUP, 1] }> = constant(0.0f32, shape![GROUP, 1]);
        let mut acc: Tile<f32, { [GROUP, HEAD] }> = constant(0.0f32, shape![GROUP, HEAD]);
        let kt_tiles: Partition<E, { [1, 1, HEAD, KEYS] }> =
            k.partition_permuted(shape![1, 1, HEAD, KEYS], const_array![0, 1, 3, 2]);
        let v_tiles: Partition<E, { [1, 1, KEYS, HEAD] }> = v.partition(shape![1, 1, KEYS, HEAD]);
        let lane: Tile<i32, { [KEYS] }> = iota(shape![KEYS]);
        let len_b: Tile<i32, { [KEYS] }> = broadcast_scalar(len, shape![KEYS]);
        let minus_inf: Tile<f32, { [GROUP, KEYS] }> = constant(f32::NEG_INFINITY, shape![GROUP, KEYS]);
        for j in lo..hi {
            let kt4: Tile<E, { [1, 1, HEAD, KEYS] }> = kt_tiles.load([b, h, 0i32, j]);
            let kt: Tile<E, { [HEAD, KEYS] }> = kt4.reshape(shape![HEAD, KEYS]);
            let zero: Tile<f32, { [GROUP, KEYS] }> = constant(0.0f32, shape![GROUP, KEYS]);
            let s: Tile<f32, { [GROUP, KEYS] }> = mma(qt, kt, zero) * broadcast_scalar(qk, shape![GROUP, KEYS]);
            let cols: Tile<i32, { [KEYS] }> = broadcast_scalar(j * KEYS, shape![KEYS]) + lane;
            let live: Tile<bool, { [KEYS] }> = cmpi(cols, len_b, predicate::LessThanOrEqual);
            let live2: Tile<bool, { [GROUP, KEYS] }> = live.reshape(shape![1, KEYS]).broadcast(shape![GROUP, KEYS]);
            let s: Tile<f32, { [GROUP, KEYS] }> = select(live2, s, minus_inf);
            let row_max: Tile<f32, { [GROUP] }> = reduce_max(s, 1);
            let m_new: Tile<f32, { [GROUP, 1] }> = max_tile(m_run, row_max.reshape(shape![GROUP, 1]));
            let p: Tile<f32, { [GROUP, KEYS] }> = exp2(s - m_new.broadcast(shape![GROUP, KEYS]), ftz::Disabled);
            let alpha: Tile<f32, { [GROUP, 1] }> = exp2(m_run - m_new, ftz::Disabled);
            let p_sum: Tile<f32, { [GROUP] }> = reduce_sum(p, 1);
            // one fma, as cuTile Python contracts `l_i * alpha + sum`
            l_run = fma(l_run, alpha, p_sum.reshape(shape![GROUP, 1]), rounding::NearestEven, ftz::Disabled);
            let v4: Tile<E, { [1, 1, KEYS, HEAD] }> = v_tiles.load([b, h, j, 0i32]);
            let vt: Tile<E, { [KEYS, HEAD] }> = v4.reshape(shape![KEYS, HEAD]);
            let p_e: Tile<E, { [GROUP, KEYS] }> = convert_tile(p);
            acc = mma(p_e, vt, acc * alpha.broadcast(shape![GROUP, HEAD]));
            m_run = m_new;
        }
        let floor: Tile<f32, { [GROUP, 1] }> = constant(1e-30f32, shape![GROUP, 1]);
        let o: Tile<f32, { [GROUP, HEAD] }> =
            divf(acc, max_tile(l_run, floor).broadcast(shape![GROUP, HEAD]), rounding::NearestEven, ftz::Disabled);
        let lse: Tile<f32, { [GROUP, 1] }> = m_run + log2(l_run);
        let mut o_tiles: PartitionMut<f32, { [1, GROUP, 1, HEAD] }> =
            unsafe { out_o.partition_full_mut(shape![1, GROUP, 1, HEAD]) };
        unsafe { o_tiles.store_unchecked(o.reshape(shape![1, GROUP, 1, HEAD]), [b, h, split, 0i32]) };
        let mut lse_tiles: PartitionMut<f32, { [1, GROUP, 1] }> =
            unsafe { out_lse.partition_full_mut(shape![1, GROUP, 1]) };
        unsafe { lse_tiles.store_unchecked(lse.reshape(shape![1, GROUP, 1]), [b, h, split]) };
    }
}
