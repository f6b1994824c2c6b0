//! Every variant compiles to Tile IR without a GPU, and the IR has the structure the port
//! claims: the entry signature the C ABI packs, the assumptions the descriptors are checked
//! against, and per op the operations a wrong kernel would get wrong (mma operand types, tile
//! shapes, padding, stores, loops, exact division).

use std::collections::HashMap;
use std::sync::OnceLock;

use tileir_kernels::compile::{self, Options};
use tileir_kernels::descriptor::{DType, TensorSpec};
use tileir_kernels::ops;
use tileir_kernels::variant::{ParamSpec, Variant};

struct Compiled {
    text: String,
    bytecode: Vec<u8>,
    counts: (u32, u32, u32),
    launch_checks: usize,
}

/// Compiles every variant once per test binary (about 1 s each); with $TILEIR_TEST_OP only that
/// op's variants (`tileir-diff verify` runs one op's `<op>_*` tests without compiling the rest).
fn compiled() -> &'static HashMap<(&'static str, &'static str), Compiled> {
    static ALL: OnceLock<HashMap<(&'static str, &'static str), Compiled>> = OnceLock::new();
    let only = std::env::var("TILEIR_TEST_OP").ok();
    ALL.get_or_init(|| {
        ops::all_variants()
            .into_iter()
            .filter(|v| only.as_deref().is_none_or(|op| v.op == op))
            .map(|v| {
                let a = compile::compile(v, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
                let bytecode = a.bytecode().unwrap_or_else(|e| panic!("{}/{}: {e}", v.op, v.name));
                let c = a.check_counts();
                let entry = Compiled {
                    text: a.ir_text(),
                    bytecode,
                    counts: (c.discharged, c.hoisted, c.in_place),
                    launch_checks: a.launch_checks().len(),
                };
                ((v.op, v.name), entry)
            })
            .collect()
    })
}

fn ir(v: &Variant) -> &'static str {
    &compiled()[&(v.op, v.name)].text
}

fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

/// The entry's argument types, in order, e.g. ["tile<ptr<f16>>", "tile<i32>", ...].
fn entry_arg_types(text: &str, symbol: &str) -> Vec<String> {
    let head = format!("entry @{symbol}(");
    let start = text.find(&head).unwrap_or_else(|| panic!("no `{head}` in IR:\n{text}")) + head.len();
    let end = start + text[start..].find(')').unwrap();
    text[start..end].split(", ").map(|arg| arg.split_once(": ").unwrap().1.to_string()).collect()
}

fn tile_elem(d: DType) -> &'static str {
    d.rust_name()
}

#[test]
fn every_variant_compiles_to_bytecode_13_3() {
    let all = ops::all_variants();
    assert!(all.len() >= 30, "variant table shrank: {}", all.len());
    for v in all {
        let c = &compiled()[&(v.op, v.name)];
        assert_eq!(&c.bytecode[..8], b"\x7fTileIR\0", "{}/{}: not Tile IR bytecode", v.op, v.name);
        // Header: magic, then version major u8, minor u8, tag u16 (as the Python export pins).
        assert_eq!((c.bytecode[8], c.bytecode[9]), (13, 3), "{}/{}: bytecode version", v.op, v.name);
    }
}

#[test]
fn variant_names_are_unique_per_op() {
    let mut seen = std::collections::HashSet::new();
    for v in ops::all_variants() {
        assert!(seen.insert((v.op, v.name)), "duplicate variant {}/{}", v.op, v.name);
        assert_eq!(v.generic_names.len(), v.generics.len(), "{}/{}: generic names vs values", v.op, v.name);
        assert_eq!(ops::find(v.op, v.name).map(|f| f.name), Some(v.name));
    }
}

/// The C ABI validates every descriptor itself and never runs cuTile's launch-time checks,
/// so a kernel must not rely on them: no in-kernel checks, nothing hoisted to launch.
#[test]
fn kernels_carry_no_bounds_checks_the_abi_would_skip() {
    for v in ops::all_variants() {
        let c = &compiled()[&(v.op, v.name)];
        assert_eq!(c.counts.1, 0, "{}/{}: checks hoisted to launch", v.op, v.name);
        assert_eq!(c.counts.2, 0, "{}/{}: in-kernel checks", v.op, v.name);
        assert_eq!(c.launch_checks, 0, "{}/{}: launch checks the C ABI does not run", v.op, v.name);
        assert_eq!(count(&c.text, "assert"), 0, "{}/{}: assert in IR", v.op, v.name);
    }
}

/// The signature in the IR is exactly what launch::pack_args produces.
#[test]
fn entry_signature_matches_the_abi_packing() {
    for v in ops::all_variants() {
        let got = entry_arg_types(ir(v), &v.symbol());
        let mut want = Vec::new();
        for p in v.params {
            match p {
                ParamSpec::Tensor(t) => {
                    want.push(format!("tile<ptr<{}>>", tile_elem(t.dtype)));
                    let word = if t.index64 { "tile<i64>" } else { "tile<i32>" };
                    want.extend(std::iter::repeat_n(word.to_string(), 2 * t.ndim));
                }
                ParamSpec::F32(_) => want.push("tile<f32>".to_string()),
                ParamSpec::I32(_) => want.push("tile<i32>".to_string()),
            }
        }
        assert_eq!(got, want, "{}/{}", v.op, v.name);
        assert_eq!(got.len(), v.kernel_arg_count());
    }
}

fn view_type(t: &TensorSpec) -> String {
    let dims = vec!["?"; t.ndim].join("x");
    let strides: Vec<&str> = (0..t.ndim).map(|i| if t.unit_stride(i) { "1" } else { "?" }).collect();
    format!("tensor_view<{dims}x{}, strides=[{}]>", tile_elem(t.dtype), strides.join(","))
}

/// What the descriptors are validated against is what the IR assumes.
/// Tensor views a kernel derives from its parameters, on top of one per parameter:
/// group_gemm_sliced re-views `a` and `c` as the group's rows (Python's `Array.slice`), each with
/// the parameter's view type and a base pointer assumed 16-byte aligned.
fn derived_views(v: &Variant) -> usize {
    if v.op == "group_gemm" && v.entry.starts_with("group_gemm_sliced") { 2 } else { 0 }
}

/// Kernels whose Python reference asks for approximate math (`ct.truediv(..., rounding_mode=APPROX,
/// flush_to_zero=True)`, `ct.exp2(..., flush_to_zero=True)`), for 16-bit outputs: gelu_fast (also f32),
/// swiglu_fwd_fast, swiglu_bwd_fast, silu_and_mul_fast, layer_norm_fwd_fast (1/n) and softmax's
/// `softmax_row_fast_o*` / `softmax_online_fast_o*` (exp2 and 1/sum, for every dtype; their `_structure`
/// tests count those ops), rms_norm's `rms_norm_fwd_fast_o*` and layer_norm's `layer_norm_fwd_fast2_o*`
/// (1/n, every dtype).
fn approximate_math(v: &Variant) -> bool {
    softmax_fast(v)
        || cross_entropy_fast(v)
        || rms_norm_fast(v)
        || layer_norm_fast2(v)
        || matches!(
            (v.op, v.entry),
            ("gelu", "gelu_fast")
                | ("swiglu", "swiglu_fwd_fast")
                | ("swiglu", "swiglu_bwd_fast")
                | ("silu_and_mul", "silu_and_mul_fast")
                | ("layer_norm", "layer_norm_fwd_fast")
        )
}

/// cross_entropy's `_fast` kernels (reference/cross_entropy/kernel.py `_cross_entropy_fast`).
fn cross_entropy_fast(v: &Variant) -> bool {
    v.op == "cross_entropy" && v.entry.starts_with("cross_entropy_fast")
}

/// layer_norm's 8-byte `_fast` forward kernels (reference/layer_norm/kernel.py `_layer_norm_fwd_fast2`).
fn layer_norm_fast2(v: &Variant) -> bool {
    v.op == "layer_norm" && v.entry.starts_with("layer_norm_fwd_fast2_o")
}

/// rms_norm's `_fast` forward kernels (reference/rms_norm/kernel.py `_rms_norm_fwd_fast`).
fn rms_norm_fast(v: &Variant) -> bool {
    v.op == "rms_norm" && v.entry.starts_with("rms_norm_fwd_fast")
}

/// softmax's `_fast` kernels (reference/softmax/kernel.py `_softmax_row_fast`, `_softmax_online_fast`).
fn softmax_fast(v: &Variant) -> bool {
    v.op == "softmax" && v.entry.contains("_fast")
}

/// silu through the approximate ops only: one exp2 and one approximate division, both
/// flush-to-zero, no exp and no IEEE division (the `_fast` kernels of swiglu and silu_and_mul;
/// `fmas`: the backward's silu'(a) = s * (1 + a * (1 - s)) has one).
fn assert_approximate_silu(text: &str, name: &str, fmas: usize) {
    assert_eq!(count(text, "= exp2 "), 1, "{name}");
    assert_eq!(count(text, "= exp "), 0, "{name}");
    assert_eq!(count(text, "divf"), 1, "{name}: silu = g * rcp.approx(1 + exp2(-g log2 e))");
    assert_eq!(count(text, "rounding<approx> flush_to_zero"), 1, "{name}");
    assert_eq!(count(text, "flush_to_zero"), 2, "{name}");
    assert_eq!(count(text, "= negf "), 0, "{name}: the negation folded into the exp2 argument's constant");
    assert_eq!(count(text, "= fma "), fmas, "{name}");
}

#[test]
fn specialization_assumptions_are_in_the_ir() {
    for v in ops::all_variants() {
        let text = ir(v);
        let specs: Vec<&TensorSpec> = v.tensor_specs().collect();
        let mut views: HashMap<String, usize> = HashMap::new();
        // An i64-indexed tensor is a raw pointer: no view (cuTile Rust builds only i32 ones).
        for t in specs.iter().filter(|t| !t.index64) {
            *views.entry(view_type(t)).or_default() += 1;
        }
        if derived_views(v) > 0 {
            *views.get_mut(&view_type(specs[0])).unwrap() += derived_views(v);
        }
        for (view, n) in &views {
            let made = text
                .lines()
                .filter(|l| l.contains("make_tensor_view") && l.trim_end().ends_with(view.as_str()))
                .count();
            assert_eq!(made, *n, "{}/{}: expected {n} views of type {view}", v.op, v.name);
        }
        for align in [2u64, 4, 8, 16] {
            let want =
                specs.iter().filter(|t| t.base_align == align).count() + if align == 16 { derived_views(v) } else { 0 };
            let got = text
                .lines()
                .filter(|l| l.contains(&format!("assume div_by<{align}>")) && l.contains("tile<ptr<"))
                .count();
            assert_eq!(got, want, "{}/{}: pointers assumed {align}-byte aligned", v.op, v.name);
        }
        // One `assume div_by<k>` per stride and per extent assumed divisible by k > 1.
        let want_div: usize = specs
            .iter()
            .map(|t| {
                (0..t.ndim).filter(|&i| t.stride_div[i] > 1).count()
                    + (0..t.ndim).filter(|&i| t.shape_div[i] > 1).count()
            })
            .sum();
        let got_div = text.lines().filter(|l| l.contains("assume div_by<") && !l.contains("tile<ptr<")).count();
        assert_eq!(got_div, want_div, "{}/{}: stride and shape divisibility assumptions", v.op, v.name);
        // Python's `/` is an IEEE divide; an approximate one would change the numerics (but
        // where the Python kernel asks for it: gelu_structure counts those ops exactly).
        if !approximate_math(v) {
            assert_eq!(count(text, "rounding<approx>"), 0, "{}/{}: approximate math", v.op, v.name);
            assert_eq!(count(text, "flush_to_zero"), 0, "{}/{}: flush-to-zero math", v.op, v.name);
        }
    }
}

/// Partition views created with the given padding value.
fn padded_views(text: &str, padding: &str) -> usize {
    let needle = format!("padding_value = {padding}");
    text.lines().filter(|l| l.contains("= make_partition_view") && l.contains(&needle)).count()
}

fn stores(text: &str) -> usize {
    count(text, "store_view_tko")
}

fn loads(text: &str) -> usize {
    count(text, "load_view_tko")
}

#[test]
fn vector_add_structure() {
    for v in ops::vector_add::VARIANTS {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let tile = format!("tile<{}x{e}>", v.constant("TILE"));
        assert_eq!(loads(text), 2, "{}", v.name);
        assert_eq!(stores(text), 1, "{}", v.name);
        assert_eq!(count(text, "addf"), 1, "{}", v.name);
        assert!(text.contains(&format!("-> {tile}, token")), "{}: loads of {tile}", v.name);
        assert_eq!(padded_views(text, "zero"), 2, "{}: zero padding on both loads", v.name);
        assert_eq!(count(text, "= make_partition_view"), 3, "{}", v.name);
    }
}

#[test]
fn softmax_structure() {
    for v in ops::softmax::VARIANTS {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let online = ops::softmax::ONLINE_ENTRIES.contains(&v.entry);
        let (tm, tn) = if online { (1, v.constant("TILE_N")) } else { (v.constant("TILE_M"), v.constant("TILE_N")) };
        assert!(text.contains(&format!("-> tile<{tm}x{tn}x{e}>, token")), "{}: row tile load", v.name);
        assert_eq!(padded_views(text, "neg_inf"), 1, "{}: -inf padding keeps the max and sum exact", v.name);
        assert_eq!(padded_views(text, "zero"), 0, "{}", v.name);
        assert_eq!(stores(text), 1, "{}", v.name);
        assert_eq!(count(text, "for "), if online { 2 } else { 0 }, "{}: loops", v.name);
        assert_eq!(loads(text), if online { 2 } else { 1 }, "{}", v.name);
        assert_eq!(count(text, "= exp2 "), if online { 3 } else { 1 }, "{}: exp2 ops", v.name);
        assert_eq!(count(text, "divf"), 1, "{}: one division", v.name);
        if softmax_fast(v) {
            // Every exp2 flushes; the one division is 1 / sum, approximate and flushing, and the
            // row is multiplied by it.
            let exp2s = if online { 3 } else { 1 };
            assert_eq!(count(text, "rounding<approx> flush_to_zero"), 1, "{}: 1 / sum", v.name);
            assert_eq!(count(text, "flush_to_zero"), exp2s + 1, "{}", v.name);
            let occupancy = match v.entry {
                "softmax_row_fast_o16" => 16,
                "softmax_row_fast_o8" | "softmax_online_fast_o8" => 8,
                "softmax_row_fast_o4" | "softmax_online_fast_o4" => 4,
                _ => 2,
            };
            assert!(text.contains(&format!("occupancy = {occupancy}}}")), "{}: occupancy {occupancy}", v.name);
        } else {
            assert_eq!(count(text, "rounding<approx>") + count(text, "flush_to_zero"), 0, "{}", v.name);
        }
        assert!(count(text, "maxf") >= 1, "{}: max reduction", v.name);
        if e != "f32" {
            assert!(text.contains(&format!("tile<{tm}x{tn}x{e}> -> tile<{tm}x{tn}xf32>")), "{}: math in f32", v.name);
            assert!(text.contains(&format!("tile<{tm}x{tn}xf32> -> tile<{tm}x{tn}x{e}>")), "{}: cast back", v.name);
        }
    }
}

#[test]
fn rms_norm_structure() {
    for v in ops::rms_norm::VARIANTS.iter().filter(|v| !ops::rms_norm::BWD_ENTRIES.contains(&v.entry)) {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let looped = ops::rms_norm::LOOPED_ENTRIES.contains(&v.entry);
        let (tm, tn) = if looped { (1, v.constant("TILE_N")) } else { (v.constant("TILE_M"), v.constant("TILE_N")) };
        assert!(text.contains(&format!("-> tile<{tm}x{tn}x{e}>, token")), "{}: x tile load", v.name);
        assert!(text.contains(&format!("-> tile<{tn}x{e}>, token")), "{}: w tile load", v.name);
        // out and rstd.
        assert_eq!(stores(text), 2, "{}", v.name);
        assert!(text.contains(&format!("tile<{tm}xf32>, partition_view<tile=({tm})")), "{}: rstd store", v.name);
        assert_eq!(count(text, "= rsqrt "), 1, "{}", v.name);
        assert_eq!(count(text, "itof "), 1, "{}: mean divides by N as f32", v.name);
        assert_eq!(count(text, "for "), if looped { 2 } else { 0 }, "{}: loops", v.name);
        let args = entry_arg_types(text, &v.symbol());
        assert_eq!(args.last().map(String::as_str), Some("tile<f32>"), "{}: eps is the last, runtime f32 arg", v.name);
        if rms_norm_fast(v) {
            // 1/n once, approximate and flushing; mean(x^2) + eps one fma; no IEEE division.
            assert_eq!(count(text, "divf"), 1, "{}: one division, 1 / n", v.name);
            assert_eq!(count(text, "rounding<approx> flush_to_zero"), 1, "{}", v.name);
            assert_eq!(count(text, "= fma "), 1, "{}: sum_sq * (1 / n) + eps", v.name);
            assert_eq!(tm, 1, "{}: one row per block", v.name);
        }
    }
}

#[test]
fn rms_norm_bwd_structure() {
    let bwd: Vec<_> =
        ops::rms_norm::VARIANTS.iter().filter(|v| ops::rms_norm::BWD_ENTRIES.contains(&v.entry)).collect();
    assert_eq!(bwd.len(), 5);
    for v in bwd {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let (tm, tn) = (v.constant("TILE_M"), v.constant("TILE_N"));
        assert_eq!(count(text, "for "), 1, "{}: one loop over the block's row tiles", v.name);
        // w once; x, dy, rstd per row tile.
        assert_eq!(loads(text), 4, "{}", v.name);
        assert!(text.contains(&format!("-> tile<{tm}x{tn}x{e}>, token")), "{}: row tile loads", v.name);
        assert!(text.contains(&format!("-> tile<{tm}xf32>, token")), "{}: rstd load", v.name);
        // dx in the loop, dw_partial after it.
        assert_eq!(stores(text), 2, "{}", v.name);
        assert!(text.contains(&format!("tile<1x{tn}xf32>, partition_view<tile=(1x{tn})")), "{}: dw row store", v.name);
        assert_eq!(count(text, "= fma "), 1, "{}: dw accumulation", v.name);
        assert!(
            text.lines().any(|l| l.contains("= reduce ") && l.contains("dim=0")),
            "{}: dw reduced over rows",
            v.name
        );
        assert_eq!(count(text, "mini "), 1, "{}: the last block owns fewer row tiles", v.name);
        assert_eq!(count(text, "divf"), 1, "{}", v.name);
    }
}

#[test]
fn matmul_structure() {
    for v in ops::matmul::VARIANTS {
        let text = ir(v);
        let specs: Vec<_> = v.tensor_specs().collect();
        let (e_in, e) = (tile_elem(specs[0].dtype), tile_elem(specs[2].dtype));
        let (bm, bn, bk) = (v.constant("BM"), v.constant("BN"), v.constant("BK"));
        let fp8 = ops::matmul::FP8_ENTRIES.contains(&v.entry);
        let tf32 = if fp8 { 0 } else { v.constant("CAST_TF32") };
        let (trans_a, trans_b) = (v.constant("TRANS_A"), v.constant("TRANS_B"));
        let operand = if tf32 == 1 { "tf32" } else { e_in };
        let mma = format!("tile<{bm}x{bk}x{operand}>, tile<{bk}x{bn}x{operand}>, tile<{bm}x{bn}xf32>");
        assert_eq!(count(text, "mmaf "), 1, "{}", v.name);
        assert!(text.contains(&mma), "{}: expected mmaf over {mma}", v.name);
        // One K loop; the persistent kernels (a NUM_BLOCKS generic) nest it in their loop over the
        // output tiles, whose store's token the loop carries (as cuTile Python orders those stores).
        let persistent = v.generic_names.contains(&"NUM_BLOCKS");
        assert_eq!(count(text, "for "), 1 + persistent as usize, "{}: one K loop (in the tile loop)", v.name);
        if persistent {
            let tile_loop = text.lines().find(|l| l.contains("for ")).unwrap_or_default();
            assert!(tile_loop.contains("token"), "{}: the tile loop carries the store's token: {tile_loop}", v.name);
        }
        assert_eq!(loads(text), 2, "{}", v.name);
        assert_eq!(stores(text), 1, "{}", v.name);
        assert!(
            text.contains(&format!("tile<{bm}x{bn}x{e}>, partition_view<tile=({bm}x{bn})")),
            "{}: c tile store",
            v.name
        );
        assert_eq!(count(text, "dim_map=[1,0]") > 0, trans_a + trans_b > 0, "{}: transposed views", v.name);
        // Loads through a transposed view per transposed operand, plus a's unpadded view for
        // the K-tile count in a's order.
        let padded_transposed = text
            .lines()
            .filter(|l| {
                l.contains("= make_partition_view") && l.contains("dim_map=[1,0]") && l.contains("padding_value = zero")
            })
            .count();
        assert_eq!(padded_transposed as i64, trans_a + trans_b, "{}: one dim_map view per transposed operand", v.name);
        let grid_view = text
            .lines()
            .filter(|l| {
                l.contains("= make_partition_view")
                    && !l.contains("padding_value")
                    && l.contains(&format!("tile=({bm}x{bk})"))
                    // c's store view is (BM, BN) too when BN == BK (fp8 128x128x128): a is e_in.
                    && l.contains(&format!("?x?x{e_in}"))
            })
            .count();
        assert_eq!(grid_view, 1, "{}: unpadded view of a for the K-tile count", v.name);
        assert_eq!(padded_views(text, "zero"), 2, "{}: zero-padded operands (a ragged K tile adds 0)", v.name);
        if tf32 == 1 {
            assert!(
                text.contains(&format!("tile<{bm}x{bk}xf32> -> tile<{bm}x{bk}xtf32>")),
                "{}: a rounded to tf32",
                v.name
            );
            assert!(
                text.contains(&format!("tile<{bk}x{bn}xf32> -> tile<{bk}x{bn}xtf32>")),
                "{}: b rounded to tf32",
                v.name
            );
        } else {
            assert_eq!(count(text, "tf32"), 0, "{}: no tf32 outside the f32 variants", v.name);
        }
    }
}

#[test]
fn rope_structure() {
    for v in ops::rope::VARIANTS {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().nth(1).unwrap().dtype);
        let (bt, th, d, half) = (v.constant("BT"), v.constant("TH"), v.constant("D"), v.constant("HALF_D"));
        assert_eq!(half * 2, d, "{}", v.name);
        // positions, then the cos and sin rows gathered by position (sparse dim 0).
        assert_eq!(count(text, "= make_gather_scatter_view"), 2, "{}", v.name);
        assert!(text.contains(&format!("-> tile<{bt}x{half}xf32>, token")), "{}: gathered table rows", v.name);
        assert_eq!(count(text, "for "), 2, "{}: one head loop for q, one for k", v.name);
        // Per head tile: x1 cos - x2 sin and x2 cos + x1 sin as fmas.
        assert_eq!(count(text, "= fma "), 4, "{}", v.name);
        if v.entry.starts_with("rope_neox_split") {
            // the tuned kernels (occupancy 4 and 8): each half of D loaded and stored as its own tile, nothing joined
            assert_eq!(loads(text), 7, "{}: positions, cos, sin, two halves of q and of k", v.name);
            assert_eq!(stores(text), 4, "{}: two halves of q_out and of k_out", v.name);
            assert_eq!(count(text, &format!("-> tile<{bt}x{th}x{half}x{e}>, token")), 4, "{}: half tiles", v.name);
            assert_eq!(count(text, "= cat "), 0, "{}: no cat through shared memory", v.name);
            assert_eq!(count(text, "= extract"), 0, "{}: no extract", v.name);
            continue;
        }
        assert_eq!(loads(text), 5, "{}: positions, cos, sin, q and k tiles", v.name);
        assert_eq!(stores(text), 2, "{}: q_out and k_out tiles", v.name);
        assert!(text.contains(&format!("-> tile<{bt}x{th}x{d}x{e}>, token")), "{}: head tile loads", v.name);
        // the two halves joined by one cat per head tile
        assert_eq!(count(text, "= cat "), 2, "{}", v.name);
        let interleaved = v.constant("IS_NEOX") == 0;
        assert_eq!(
            text.contains(&format!("tile<{bt}x{th}x{d}xf32> -> tile<{bt}x{th}x{half}x2xf32>")),
            interleaved,
            "{}: interleaved pairs split by a (D/2, 2) reshape",
            v.name
        );
    }
}

/// The tuned entries (`<kernel>_o<N>`, `<kernel>_w8`, as in kernel.py) carry exactly their
/// entry hint, and the plain entry they share a body with carries none (the hint changes the
/// schedule, not the IR body) unless it has one of its own, listed in `own_hint` (rope_neox_split:
/// occupancy 4, raised to 8 by its `_o8` twin). Hints of other entries (argmax_rows' occupancy)
/// are compared with the Python kernels by the IR diff.
#[test]
fn tuned_entries_carry_their_optimization_hint() {
    let tuned = |entry: &str| -> Option<(String, String)> {
        if let Some((base, n)) = entry.rsplit_once("_o").filter(|(_, n)| n.parse::<u32>().is_ok()) {
            Some((base.to_string(), format!("occupancy = {n}")))
        } else if let Some(base) = entry.strip_suffix("_c2") {
            // matmul_fp8_w8_c2: two-CTA clusters on top of its twin's two consumer warpgroups
            Some((base.to_string(), "num_cta_in_cga = 2".to_string()))
        } else {
            entry.strip_suffix("_w8").map(|base| (base.to_string(), "num_worker_warps_per_cta = 8".to_string()))
        }
    };
    let own_hint = |op: &str, entry: &str| -> Option<&'static str> {
        match (op, entry) {
            ("rope", "rope_neox_split") => Some("occupancy = 4"),
            _ => None,
        }
    };
    let all = ops::all_variants();
    let twinned: std::collections::HashSet<(&str, String)> =
        all.iter().filter_map(|v| tuned(v.entry).map(|(base, _)| (v.op, base))).collect();
    let mut checked = 0;
    for v in &all {
        let text = ir(v);
        if let Some((base, hint)) = tuned(v.entry) {
            assert_eq!(count(text, &hint), 1, "{}/{}: {hint}", v.op, v.name);
            if let Some((_, twin_hint)) = tuned(&base) {
                assert_eq!(count(text, &twin_hint), 1, "{}/{}: {twin_hint} (its twin's)", v.op, v.name);
            }
            checked += 1;
        } else if twinned.contains(&(v.op, v.entry.to_string())) {
            let own = own_hint(v.op, v.entry);
            assert_eq!(
                count(text, "occupancy") + count(text, "num_worker_warps"),
                usize::from(own.is_some()),
                "{}/{}",
                v.op,
                v.name
            );
            if let Some(hint) = own {
                assert_eq!(count(text, hint), 1, "{}/{}: its own {hint}", v.op, v.name);
            }
            checked += 1;
        }
    }
    assert!(checked >= 50, "{checked} variants checked");
}

#[test]
fn the_registry_files_each_variant_under_its_op_and_module() {
    let mut names = std::collections::HashSet::new();
    for op in ops::OPS {
        assert!(names.insert(op.name), "op {} registered twice", op.name);
        assert!(!op.variants.is_empty(), "{}: no variants", op.name);
        for v in op.variants {
            assert_eq!(v.op, op.name, "{}/{} is in the table of {}", v.op, v.name, op.name);
            assert_eq!(v.module, op.module, "{}/{}: kernel module", v.op, v.name);
        }
    }
}

/// The SSA names defined as `constant <i32: value> : tile<i32>` in the IR.
fn i32_scalar_constants(text: &str) -> HashMap<String, i64> {
    text.lines()
        .filter_map(|l| {
            let (name, rest) = l.trim().split_once(" = constant <i32: ")?;
            let (value, ty) = rest.split_once("> : ")?;
            if ty != "tile<i32>" {
                return None;
            }
            Some((name.to_string(), value.parse().ok()?))
        })
        .collect()
}

/// Per grid axis, the SSA names that are that axis' block id (the get_tile_block_id result and
/// the `assume`s on it).
fn block_id_names(text: &str) -> [Vec<String>; 3] {
    let line = text.lines().find(|l| l.contains("= get_tile_block_id")).expect("no get_tile_block_id");
    let raw: Vec<String> = line.trim().split(" = ").next().unwrap().split(", ").map(str::to_string).collect();
    let mut axes: [Vec<String>; 3] = [vec![raw[0].clone()], vec![raw[1].clone()], vec![raw[2].clone()]];
    for l in text.lines() {
        let Some((name, rest)) = l.trim().split_once(" = assume ") else { continue };
        for axis in axes.iter_mut() {
            if rest.contains(&format!(", {} :", axis[0])) {
                axis.push(name.to_string());
            }
        }
    }
    axes
}

/// The index operands of every load and store, in order.
fn access_indices(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.contains("= load_view_tko") || l.contains("= store_view_tko"))
        .map(|l| l[l.find('[').unwrap() + 1..l.find(']').unwrap()].split(", ").map(str::to_string).collect())
        .collect()
}

/// Whether every load and store indexes (block x, block y): one tile per block of a 2-D grid.
fn indexed_by_2d_block(text: &str) -> bool {
    let ids = block_id_names(text);
    let accesses = access_indices(text);
    !accesses.is_empty()
        && accesses.iter().all(|ix| ix.len() == 2 && ids[0].contains(&ix[0]) && ids[1].contains(&ix[1]))
}

/// The index operands of each load_view_tko, in order.
fn load_indices(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.contains("= load_view_tko"))
        .map(|l| {
            let inside = &l[l.find('[').unwrap() + 1..l.find(']').unwrap()];
            inside.split(", ").map(str::to_string).collect()
        })
        .collect()
}

#[test]
fn silu_and_mul_structure() {
    assert_eq!(ops::silu_and_mul::VARIANTS.len(), 8);
    for v in ops::silu_and_mul::VARIANTS {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let (tm, th) = (v.constant("TILE_M"), v.constant("TILE_H"));
        // The gate and up halves: two (TILE_M, 1, TILE_H) loads of the (M, 2, H) view at middle
        // index 0 and 1, block ids on the outer axes.
        assert_eq!(loads(text), 2, "{}", v.name);
        assert_eq!(count(text, &format!("-> tile<{tm}x1x{th}x{e}>, token")), 2, "{}: half loads", v.name);
        let consts = i32_scalar_constants(text);
        let middles: Vec<Option<i64>> = load_indices(text).iter().map(|ix| consts.get(&ix[1]).copied()).collect();
        assert_eq!(middles, [Some(0), Some(1)], "{}: gate at middle index 0, up at 1", v.name);
        assert_eq!(padded_views(text, "zero"), 1, "{}: one zero-padded view of x", v.name);
        assert_eq!(count(text, &format!("tile<{tm}x1x{th}xf32> -> tile<{tm}x{th}xf32>")), 2, "{}: reshapes", v.name);
        assert_eq!(stores(text), 1, "{}", v.name);
        assert!(
            text.contains(&format!("tile<{tm}x{th}x{e}>, partition_view<tile=({tm}x{th})")),
            "{}: out store",
            v.name
        );
        if v.entry == "silu_and_mul_fast" {
            assert_eq!((tm, th), (1, 1024), "{}: one row segment per block", v.name);
            assert_approximate_silu(text, v.name, 0);
            continue;
        }
        assert_eq!(count(text, "= exp "), 1, "{}", v.name);
        assert_eq!(count(text, "= negf "), 1, "{}", v.name);
        assert_eq!(count(text, "divf"), 1, "{}: silu = g / (1 + exp(-g))", v.name);
        assert_eq!(count(text, "= fma "), 0, "{}", v.name);
    }
}

#[test]
fn swiglu_structure() {
    assert_eq!(ops::swiglu::VARIANTS.len(), 16);

    for v in ops::swiglu::VARIANTS {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let (tm, tn) = (v.constant("TILE_M"), v.constant("TILE_N"));
        let bwd = v.entry.starts_with("swiglu_bwd");
        assert_eq!(loads(text), if bwd { 3 } else { 2 }, "{}", v.name);
        assert_eq!(count(text, &format!("-> tile<{tm}x{tn}x{e}>, token")), loads(text), "{}: tile loads", v.name);
        assert_eq!(stores(text), if bwd { 2 } else { 1 }, "{}", v.name);
        assert_eq!(padded_views(text, "zero"), loads(text), "{}", v.name);
        assert!(indexed_by_2d_block(text), "{}: every access at (block x, block y)", v.name);
        if v.entry.ends_with("_fast") {
            assert_eq!((tm, tn), (1, 1024), "{}: one row segment per block", v.name);
            assert_approximate_silu(text, v.name, if bwd { 1 } else { 0 });
            continue;
        }
        // sigmoid once; silu'(a) = s * (1 + a * (1 - s)) has the one fma.
        assert_eq!(count(text, "= exp "), 1, "{}", v.name);
        assert_eq!(count(text, "divf"), 1, "{}", v.name);
        assert_eq!(count(text, "= fma "), if bwd { 1 } else { 0 }, "{}", v.name);
    }
}

#[test]
fn gelu_structure() {
    assert_eq!(ops::gelu::VARIANTS.len(), 20);
    for v in ops::gelu::VARIANTS {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let (tm, tn) = (v.constant("TILE_M"), v.constant("TILE_N"));
        assert_eq!(loads(text), 1, "{}", v.name);
        assert!(text.contains(&format!("-> tile<{tm}x{tn}x{e}>, token")), "{}", v.name);
        assert_eq!(stores(text), 1, "{}", v.name);
        assert!(indexed_by_2d_block(text), "{}: every access at (block x, block y)", v.name);
        if v.entry == "gelu_fast" {
            // 16-byte rows: 8 elements for 16-bit, 4 for f32 (the `_a4_fast` variants).
            let row = if e == "f32" { 4 } else { 8 };
            for t in v.tensor_specs() {
                assert_eq!(
                    (t.shape_div[1], t.stride_div[0]),
                    (row, row),
                    "{}: rows of {row}-element multiples",
                    v.name
                );
            }
            // Approximate math only: one approximate flush-to-zero division, one exp2, no exp/tanh.
            assert_eq!(count(text, "divf"), 1, "{}", v.name);
            assert_eq!(count(text, "rounding<approx> flush_to_zero"), 1, "{}", v.name);
            assert_eq!(count(text, "= exp2 "), 1, "{}", v.name);
            assert_eq!(count(text, "flush_to_zero"), 2, "{}", v.name);
            assert_eq!(count(text, "= exp "), 0, "{}", v.name);
            assert_eq!(count(text, "= tanh "), 0, "{}", v.name);
            if v.constant("APPROX") == 1 {
                // x / (1 + exp2(x * fma(K1, x^2, K0))).
                assert_eq!(count(text, "= fma "), 1, "{}", v.name);
                assert_eq!(count(text, "= select "), 0, "{}", v.name);
            } else {
                // t = 1 / fma(p, |x|, 1), four fma of the halved polynomial, x * select(x < 0, h, 1 - h).
                assert_eq!(count(text, "= absf "), 1, "{}", v.name);
                assert_eq!(count(text, "= fma "), 5, "{}", v.name);
                assert_eq!(count(text, "cmpf less_than ordered"), 1, "{}", v.name);
                assert_eq!(count(text, "= select "), 1, "{}", v.name);
            }
        } else if v.constant("APPROX") == 1 {
            // x/2 * (1 + tanh(sqrt(2/pi) * fma(0.044715 x^2, x, x))).
            assert_eq!(count(text, "= tanh "), 1, "{}", v.name);
            assert_eq!(count(text, "= fma "), 1, "{}", v.name);
            assert_eq!(count(text, "= exp "), 0, "{}", v.name);
            assert_eq!(count(text, "divf"), 0, "{}", v.name);
            assert_eq!(count(text, "select"), 0, "{}", v.name);
        } else {
            // A&S 7.1.26: t = 1 / fma(p, |z|, 1), four fma of the polynomial, fma(-poly, exp, 1),
            // and erf's sign by a select on z < 0.
            assert_eq!(count(text, "= tanh "), 0, "{}", v.name);
            assert_eq!(count(text, "= absf "), 1, "{}", v.name);
            assert_eq!(count(text, "= fma "), 6, "{}", v.name);
            assert_eq!(count(text, "= exp "), 1, "{}", v.name);
            assert_eq!(count(text, "divf"), 1, "{}", v.name);
            assert_eq!(count(text, "cmpf less_than ordered"), 1, "{}", v.name);
            assert_eq!(count(text, "= select "), 1, "{}", v.name);
        }
    }
}

#[test]
fn dropout_structure() {
    assert_eq!(ops::dropout::VARIANTS.len(), 10);
    for v in ops::dropout::VARIANTS.iter().filter(|v| v.entry == "dropout") {
        let text = ir(v);
        let tile = v.constant("TILE");
        let ints = format!("tile<{tile}xi32>");
        assert_eq!(loads(text), 1, "{}", v.name);
        assert_eq!(stores(text), 1, "{}", v.name);
        assert_eq!(count(text, "= iota "), 1, "{}: flat element index", v.name);
        // The hash constants, with their exact bits (a u32 constant above i32::MAX would be
        // encoded as 0 by cuTile Rust 0.5.0; see kernel.rs).
        for bits in [0x9E3779B1u32 as i32, 0x7FEB352D, 0x846CA68Bu32 as i32] {
            let want = format!("= constant <i32: {bits}> : {ints}");
            assert_eq!(count(text, &want), 1, "{}: constant {bits:#x}", v.name);
        }
        assert!(!text.contains(&format!("<i32: 0> : {ints}")), "{}: a zero hash constant", v.name);
        // The two relabels of the multipliers above i32::MAX are the identity on tile<TILExi32>.
        let bitcasts: Vec<&str> = text.lines().filter(|l| l.contains("= bitcast ")).collect();
        assert_eq!(bitcasts.len(), 2, "{}", v.name);
        for l in bitcasts {
            assert!(l.trim_end().ends_with(&format!(": {ints} -> {ints}")), "{}: {l}", v.name);
        }
        // Logical shifts 16, 15, 16 and the final >> 8, an unsigned int-to-float.
        let shifts: Vec<&str> = text.lines().filter(|l| l.contains("= shri ")).collect();
        assert_eq!(shifts.len(), 4, "{}", v.name);
        assert!(shifts.iter().all(|l| l.contains(" unsigned ")), "{}: arithmetic shift", v.name);
        assert_eq!(count(text, "= xori "), 4, "{}", v.name);
        assert_eq!(count(text, "= itof "), 1, "{}", v.name);
        assert!(text.lines().any(|l| l.contains("= itof ") && l.contains(" unsigned ")), "{}: unsigned itof", v.name);
        assert_eq!(count(text, "cmpf greater_than_or_equal ordered"), 1, "{}: keep iff u >= p", v.name);
        assert_eq!(count(text, "= select "), 1, "{}", v.name);
        // 1 / (1 - p) once, on the scalar.
        assert_eq!(count(text, "divf"), 1, "{}", v.name);
        assert!(text.lines().any(|l| l.contains("divf") && l.trim_end().ends_with(": tile<f32>")), "{}", v.name);
        let args = entry_arg_types(text, &v.symbol());
        assert_eq!(args[args.len() - 2..], ["tile<i32>", "tile<f32>"], "{}: seed, p", v.name);
    }
}

#[test]
fn dropout_fast_structure() {
    let fast: Vec<_> = ops::dropout::VARIANTS.iter().filter(|v| v.entry == "dropout_fast").collect();
    assert_eq!(fast.len(), 4);
    for v in fast {
        let text = ir(v);
        let tile = v.constant("TILE");
        let ints = format!("tile<{tile}xi32>");
        assert_eq!(loads(text), 1, "{}", v.name);
        assert_eq!(stores(text), 1, "{}", v.name);
        assert_eq!(count(text, "= iota "), 1, "{}: flat element index", v.name);
        for bits in [0x9E3779B1u32 as i32, 0x7FEB352D, 0x846CA68Bu32 as i32] {
            let want = format!("= constant <i32: {bits}> : {ints}");
            assert_eq!(count(text, &want), 1, "{}: constant {bits:#x}", v.name);
        }
        // (block * TILE) * GOLDEN on the scalar: the golden constant again, as a scalar (cuTile
        // Rust repeats scalar constants at each use; rule constant-dedup folds them).
        assert!(count(text, &format!("= constant <i32: {}> : tile<i32>", 0x9E3779B1u32 as i32)) >= 1, "{}", v.name);
        // Logical shifts 16 (index, seed), 15, 16; five xors (the seed's folded into one scalar).
        let shifts: Vec<&str> = text.lines().filter(|l| l.contains("= shri ")).collect();
        assert_eq!(shifts.len(), 4, "{}", v.name);
        assert!(shifts.iter().all(|l| l.contains(" unsigned ")), "{}: arithmetic shift", v.name);
        assert_eq!(count(text, "= xori "), 5, "{}", v.name);
        // No float uniform: the threshold ceil(p * 2^24) << 8, an unsigned compare on the hash.
        assert_eq!(count(text, "= itof "), 0, "{}", v.name);
        assert_eq!(count(text, "= ceil "), 1, "{}", v.name);
        assert!(text.lines().any(|l| l.contains("= ftoi ") && l.contains(" unsigned ")), "{}: unsigned ftoi", v.name);
        assert_eq!(count(text, "cmpi greater_than_or_equal"), 1, "{}: keep iff h >= threshold", v.name);
        assert!(text.lines().any(|l| l.contains("cmpi greater_than_or_equal") && l.contains("unsigned")), "{}", v.name);
        assert_eq!(count(text, "cmpf less_than ordered"), 1, "{}: any_kept", v.name);
        assert_eq!(count(text, "= select "), 2, "{}: the scalar clamp and the keep", v.name);
        assert_eq!(count(text, "divf"), 1, "{}", v.name);
        assert!(text.lines().any(|l| l.contains("divf") && l.trim_end().ends_with(": tile<f32>")), "{}", v.name);
        let args = entry_arg_types(text, &v.symbol());
        assert_eq!(args[args.len() - 2..], ["tile<i32>", "tile<f32>"], "{}: seed, p", v.name);
    }
}

/// tileiras (from the nvidia-cuda-tileiras wheel) compiles every variant for sm_90 and
/// sm_100. Set TILEIR_SKIP_TILEIRAS=1 only where the wheel cannot be installed.
///
/// With TILEIR_CUBIN_DIR set (scripts/test.sh: the `emit-ir --cubin` output build_ports.sh has
/// just written), the cubins there are checked instead of compiled a second time: each
/// variant's `.tileirbc` must be the bytecode the current sources give, and both cubins must be
/// ELF files written after it (emit-ir writes the bytecode, then runs tileiras on it).
#[test]
fn tileiras_compiles_every_variant_for_sm90_and_sm100() {
    if std::env::var_os("TILEIR_SKIP_TILEIRAS").is_some() {
        eprintln!("TILEIR_SKIP_TILEIRAS set: not running tileiras");
        return;
    }
    if let Some(dir) = std::env::var_os("TILEIR_CUBIN_DIR") {
        check_prebuilt_cubins(std::path::Path::new(&dir));
        return;
    }
    let tileiras = match std::env::var_os("TILEIRAS") {
        Some(p) => std::path::PathBuf::from(p),
        None => {
            let root = std::env::var_os("CUDA_TOOLKIT_PATH")
                .expect("set CUDA_TOOLKIT_PATH (scripts/setup_rust.sh) or TILEIRAS");
            std::path::Path::new(&root).join("bin").join("tileiras")
        }
    };
    assert!(tileiras.exists(), "{} not found (pip install nvidia-cuda-tileiras)", tileiras.display());
    let dir = std::env::temp_dir().join(format!("tileir_kernels_test_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let jobs: Vec<(&Variant, &str)> =
        ops::all_variants().into_iter().flat_map(|v| ["sm_90", "sm_100"].map(|a| (v, a))).collect();
    // Two at a time: the machine has two cores.
    for pair in jobs.chunks(2) {
        let children: Vec<_> = pair
            .iter()
            .map(|(v, arch)| {
                let bc = dir.join(format!("{}__{}.tileirbc", v.op, v.name));
                std::fs::write(&bc, &compiled()[&(v.op, v.name)].bytecode).unwrap();
                let out = dir.join(format!("{}__{}.{arch}.cubin", v.op, v.name));
                let child = std::process::Command::new(&tileiras)
                    .args(["--gpu-name", arch])
                    .arg(&bc)
                    .arg("-o")
                    .arg(&out)
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("spawn tileiras");
                (v, arch, out, child)
            })
            .collect();
        for (v, arch, out, child) in children {
            let res = child.wait_with_output().unwrap();
            assert!(res.status.success(), "{}/{} {arch}: {}", v.op, v.name, String::from_utf8_lossy(&res.stderr));
            let cubin = std::fs::read(&out).unwrap();
            assert_eq!(&cubin[..4], b"\x7fELF", "{}/{} {arch}: not an ELF cubin", v.op, v.name);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn argmax_structure() {
    assert_eq!(ops::argmax::VARIANTS.len(), 14);
    for v in ops::argmax::VARIANTS {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let (tm, tn) = (v.constant("TILE_M"), v.constant("TILE_N"));
        assert_eq!(count(text, "for "), 1, "{}: one loop over the column tiles", v.name);
        assert_eq!(loads(text), 1, "{}", v.name);
        assert!(text.contains(&format!("-> tile<{tm}x{tn}x{e}>, token")), "{}: row tile load", v.name);
        assert_eq!(padded_views(text, "neg_inf"), 1, "{}: -inf padding never wins the max", v.name);
        assert_eq!(count(text, "= iota "), 1, "{}: column indices", v.name);
        // A max, the first matching column (min over matches, else NO_INDEX), and a
        // strictly-greater merge that keeps the first index on ties across tiles.
        assert_eq!(count(text, "cmpf equal ordered"), 1, "{}", v.name);
        assert_eq!(count(text, "cmpf greater_than ordered"), 1, "{}", v.name);
        assert_eq!(count(text, "mini "), 1, "{}", v.name);
        assert!(text.contains(&format!("<i32: 2147483647> : tile<{tm}x{tn}xi32>")), "{}: NO_INDEX", v.name);
        // The int32 index widened to int64 on store.
        assert_eq!(count(text, "= exti "), 1, "{}: the int32 index widened once", v.name);
        assert_eq!(stores(text), 1, "{}", v.name);
        assert!(text.contains(&format!("tile<{tm}xi64>, partition_view<tile=({tm})")), "{}: int64 store", v.name);
        let body = loop_body(text);
        if argmax_fast(v) {
            // Per position: compare and max in x's own dtype (no conversion), the tile index
            // selected; no reduction inside the loop; after it one max and one min reduction.
            assert_eq!(count(text, "= reduce "), 2, "{}: the row max, then the first column", v.name);
            assert_eq!(count(body, "= reduce "), 0, "{}: no block reduction per tile", v.name);
            assert_eq!(count(body, "= ftof "), 0, "{}: compared in x's dtype", v.name);
            let cmp = format!(": tile<{tm}x{tn}x{e}> -> tile<{tm}x{tn}xi1>");
            assert!(body.lines().any(|l| l.contains("cmpf greater_than ordered") && l.contains(&cmp)), "{}", v.name);
            assert!(
                body.lines().any(|l| l.contains("= maxf ") && l.contains(&format!(": tile<{tm}x{tn}x{e}>"))),
                "{}",
                v.name
            );
            assert_eq!(count(text, "propagate_nan"), 0, "{}: NaN never replaces a value", v.name);
            assert_eq!(count(text, "= select "), 2, "{}", v.name);
            assert_eq!(tm, 1, "{}: one row per block", v.name);
        } else {
            assert_eq!(count(text, "= select "), 3, "{}", v.name);
            assert!(text.contains("occupancy = 8"), "{}: occupancy hint as @ct.kernel(occupancy=8)", v.name);
        }
    }
}

/// argmax's `_fast` kernels (reference/argmax/kernel.py `_argmax_fast`).
fn argmax_fast(v: &Variant) -> bool {
    v.op == "argmax" && v.entry.starts_with("argmax_fast")
}

/// The text between the first `for ` and its closing `continue` line (a single-loop kernel's body).
fn loop_body(text: &str) -> &str {
    let start = text.find("for ").unwrap_or(0);
    let end = text[start..].find("continue ").map_or(text.len(), |i| start + i);
    &text[start..end]
}

#[test]
fn cross_entropy_structure() {
    assert_eq!(ops::cross_entropy::VARIANTS.len(), 13);
    for v in ops::cross_entropy::VARIANTS {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let tv = v.constant("TILE_V");
        assert_eq!(count(text, "for "), 1, "{}: one pass over the vocabulary", v.name);
        assert!(text.contains(&format!("-> tile<1x{tv}x{e}>, token")), "{}: logits tile load", v.name);
        assert_eq!(padded_views(text, "neg_inf"), 1, "{}", v.name);
        assert_eq!(count(text, "trunci "), 1, "{}: the target narrowed to i32", v.name);
        assert_eq!(count(text, "= log2 "), 1, "{}", v.name);
        assert!(text.contains(&format!("<i32: {}>", v.constant("IGNORE_INDEX"))), "{}: IGNORE_INDEX", v.name);
        assert_eq!(stores(text), 2, "{}: loss and lse", v.name);
        assert_eq!(count(text, "tile<1xf32>, partition_view<tile=(1)"), 2, "{}", v.name);
        // exp2 of the rescale and of the tile, then log2.
        assert_eq!(count(text, "= exp2 "), 2, "{}", v.name);
        if cross_entropy_fast(v) {
            // The target id, the target logit as one (1, 1) tile, then the logits tiles; the
            // exponent and the accumulator update as fmas; both exp2 flush, nothing else does;
            // IGNORE_INDEX compared once, after the loop (the occupancy hints:
            // tuned_entries_carry_their_optimization_hint).
            assert_eq!(loads(text), 3, "{}", v.name);
            assert!(text.contains(&format!("-> tile<1x1x{e}>, token")), "{}: target logit load", v.name);
            assert!(text.contains("-> tile<1xi64>, token"), "{}: target load", v.name);
            assert_eq!(count(text, "= fma "), 2, "{}", v.name);
            assert_eq!(count(text, "flush_to_zero"), 2, "{}", v.name);
            assert_eq!(count(text, "rounding<approx>"), 0, "{}", v.name);
            assert_eq!(count(text, "cmpi equal"), 1, "{}", v.name);
        } else {
            // The target id, then the logits tiles; one fma; the target column compare in the
            // loop, IGNORE_INDEX compare after it.
            assert_eq!(loads(text), 2, "{}", v.name);
            assert!(text.contains("-> tile<1xi64>, token"), "{}: target load", v.name);
            assert_eq!(count(text, "= fma "), 1, "{}", v.name);
            assert_eq!(count(text, "cmpi equal"), 2, "{}", v.name);
        }
    }
}

#[test]
fn cumsum_structure() {
    assert_eq!(ops::cumsum::VARIANTS.len(), 21);
    for v in ops::cumsum::VARIANTS {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let (tm, tn) = (v.constant("TILE_M"), v.constant("TILE_N"));
        let looped = v.entry.starts_with("cumsum_looped");
        // The `_fast` entries: the same bodies under Python's `ct.kernel(..., occupancy=K)`.
        match v.entry.rsplit_once("_fast_o") {
            Some((_, k)) => {
                assert!(text.contains(&format!("occupancy = {k}")), "{}: occupancy hint {k}", v.name);
                assert!(v.name.contains("_fast_"), "{}", v.name);
            }
            None => assert_eq!(count(text, "occupancy"), 0, "{}: no hint", v.name),
        }
        assert_eq!(count(text, "for "), usize::from(looped), "{}: loops", v.name);
        assert_eq!(loads(text), 1, "{}", v.name);
        assert_eq!(stores(text), 1, "{}", v.name);
        assert!(text.contains(&format!("-> tile<{tm}x{tn}x{e}>, token")), "{}: x tile load", v.name);
        assert_eq!(padded_views(text, "zero"), 1, "{}: zero padding adds nothing to a row sum", v.name);
        // The row scan as the column scan of the transposed tile (cuTile Rust 0.5.0 always
        // writes scan dim = 0): one scan over (TILE_N, TILE_M), between two permutes.
        let scans: Vec<&str> = text.lines().filter(|l| l.contains("= scan ")).collect();
        assert_eq!(scans.len(), 1, "{}", v.name);
        assert!(scans[0].contains("dim = 0") || scans[0].contains("dim=0"), "{}: {}", v.name, scans[0]);
        assert!(scans[0].contains(&format!("tile<{tn}x{tm}xf32>")), "{}: scan of the transposed tile", v.name);
        assert_eq!(count(text, "= permute "), 2, "{}", v.name);
        // The looped kernel carries each row's total into the next tile.
        assert_eq!(text.lines().filter(|l| l.contains("= reduce ")).count(), usize::from(looped), "{}", v.name);
    }
}

#[test]
fn embedding_structure() {
    assert_eq!(ops::embedding::VARIANTS.len(), 10);
    for v in ops::embedding::VARIANTS {
        let text = ir(v);
        let specs: Vec<_> = v.tensor_specs().collect();
        let (idx, e) = (tile_elem(specs[0].dtype), tile_elem(specs[1].dtype));
        let gather = v.entry == "embedding_gather";
        let wide = specs[1].index64;
        let (bt, th) = (if gather { v.constant("BT") } else { 1 }, v.constant("TILE_H"));
        assert_eq!(count(text, "for "), 1, "{}: one loop over the hidden tiles", v.name);
        assert_eq!(count(text, "divi "), 1, "{}: cdiv(H, TILE_H) hidden tiles", v.name);
        // The ids (as a scalar or a BT tile), then the rows: a pure copy, no arithmetic on them.
        assert_eq!(loads(text), 2 - usize::from(wide), "{}", v.name);
        assert!(text.contains(&format!("-> tile<{bt}x{idx}>, token")), "{}: id load", v.name);
        assert!(text.contains(&format!("-> tile<{bt}x{th}x{e}>, token")), "{}: row load", v.name);
        assert_eq!(stores(text), 1, "{}", v.name);
        assert!(text.contains(&format!("tile<{bt}x{th}x{e}>, partition_view<tile=({bt}x{th})")), "{}", v.name);
        assert_eq!(count(text, "make_gather_scatter_view"), usize::from(gather && !wide), "{}", v.name);
        // The i64-indexed table: one masked pointer gather at i64 offsets, masked lanes zeroed.
        assert_eq!(count(text, "load_ptr_tko weak"), usize::from(wide), "{}", v.name);
        if wide {
            let offsets = format!("tile<{bt}x{th}xptr<{e}>>, tile<{bt}x{th}xi64> -> tile<{bt}x{th}xptr<{e}>>");
            assert!(text.contains(&offsets), "{}: i64 offsets", v.name);
            assert!(text.contains(&format!("tile<{bt}x{th}xptr<{e}>>, tile<{bt}x{th}xi1> -> ")), "{}: mask", v.name);
            assert_eq!(count(text, "cmpi less_than"), 2, "{}: rows < V, columns < H", v.name);
            assert!(text.contains("= select %"), "{}: zero padding", v.name);
        }
        assert_eq!(count(text, "trunci "), usize::from(idx == "i64"), "{}: int64 ids narrowed", v.name);
        // The `_a8` rows: the same kernel, H a multiple of 8 for the table and out (16-byte accesses).
        let h_div = if v.name.contains("_rows_a8_") { 8 } else { 1 };
        assert_eq!((specs[1].shape_div[1], specs[2].shape_div[1]), (h_div, h_div), "{}: H contract", v.name);
        for op in ["addf", "mulf", "ftof"] {
            assert_eq!(count(text, op), 0, "{}: {op} in a row copy", v.name);
        }
    }
}

fn check_prebuilt_cubins(dir: &std::path::Path) {
    for v in ops::all_variants() {
        let stem = dir.join(v.op).join(v.name);
        let bc_path = stem.with_extension("tileirbc");
        let bc = std::fs::read(&bc_path)
            .unwrap_or_else(|e| panic!("{}: {e} (run rust_kernels/build_ports.sh)", bc_path.display()));
        assert!(
            bc == compiled()[&(v.op, v.name)].bytecode,
            "{}: not the bytecode the current sources emit (stale: re-run build_ports.sh)",
            bc_path.display()
        );
        let bc_time = std::fs::metadata(&bc_path).unwrap().modified().unwrap();
        for arch in ["sm_90", "sm_100"] {
            let path = stem.with_extension(format!("{arch}.cubin"));
            let cubin = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(&cubin[..4], b"\x7fELF", "{}: not an ELF cubin", path.display());
            let time = std::fs::metadata(&path).unwrap().modified().unwrap();
            assert!(time >= bc_time, "{}: older than its bytecode", path.display());
        }
    }
}

#[test]
fn transpose_structure() {
    assert_eq!(ops::transpose::VARIANTS.len(), 7);
    for v in ops::transpose::VARIANTS {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let (tm, tn) = (v.constant("TM"), v.constant("TN"));
        assert_eq!((loads(text), stores(text)), (1, 1), "{}", v.name);
        // Python's load has no padding value: no view pads.
        assert_eq!(count(text, "padding_value"), 0, "{}", v.name);
        let ids = block_id_names(text);
        let access = |op: &str| -> Vec<usize> {
            let l = text.lines().find(|l| l.contains(op)).unwrap();
            let inside = &l[l.find('[').unwrap() + 1..l.find(']').unwrap()];
            inside.split(", ").map(|ix| ids.iter().position(|axis| axis.iter().any(|n| n == ix)).unwrap()).collect()
        };
        let permute_line = || text.lines().find(|l| l.contains("= permute ")).unwrap().trim();
        match v.entry {
            "transpose_2d" => {
                // load (TM, TN) at (bid x, bid y), permute [1, 0], store (TN, TM) at (bid y, bid x).
                assert!(text.contains(&format!("-> tile<{tm}x{tn}x{e}>, token")), "{}", v.name);
                assert_eq!(count(text, "= permute "), 1, "{}", v.name);
                assert!(
                    permute_line().ends_with(&format!(" [1, 0] : tile<{tm}x{tn}x{e}> -> tile<{tn}x{tm}x{e}>")),
                    "{}",
                    v.name
                );
                assert_eq!(
                    (access("= load_view_tko"), access("= store_view_tko")),
                    (vec![0, 1], vec![1, 0]),
                    "{}",
                    v.name
                );
            }
            "transpose_2d_order" => {
                // The transposed load (dim_map [1, 0]) at (bid y, bid x), no permute.
                assert_eq!(count(text, "dim_map=[1,0]"), 2, "{}: view and load types", v.name);
                assert_eq!(count(text, "permute"), 0, "{}", v.name);
                assert_eq!(
                    (access("= load_view_tko"), access("= store_view_tko")),
                    (vec![1, 0], vec![1, 0]),
                    "{}",
                    v.name
                );
            }
            "transpose_batched" => {
                assert!(text.contains(&format!("-> tile<1x{tm}x{tn}x{e}>, token")), "{}", v.name);
                assert_eq!(count(text, "= permute "), 1, "{}", v.name);
                assert!(
                    permute_line().ends_with(&format!(" [0, 2, 1] : tile<1x{tm}x{tn}x{e}> -> tile<1x{tn}x{tm}x{e}>")),
                    "{}",
                    v.name
                );
                assert_eq!(
                    (access("= load_view_tko"), access("= store_view_tko")),
                    (vec![2, 0, 1], vec![2, 1, 0]),
                    "{}",
                    v.name
                );
            }
            other => panic!("unknown entry {other}"),
        }
    }
}

/// Number of `for` ops, with or without results.
fn for_loops(text: &str) -> usize {
    text.lines().filter(|l| l.trim_start().starts_with("for ") || l.contains(" = for ")).count()
}

#[test]
fn fp8_quantize_structure() {
    assert_eq!(ops::fp8_quantize::VARIANTS.len(), 10);
    for v in ops::fp8_quantize::VARIANTS {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let (tm, tn) = (v.constant("TILE_M"), v.constant("TILE_N"));
        // abs, a row max, an IEEE scale and quotient, a clamp, the cast to e4m3.
        assert_eq!(count(text, "rounding<approx>"), 0, "{}", v.name);
        assert!(text.contains(&format!("-> tile<{tm}x{tn}x{e}>, token")), "{}", v.name);
        let f8 = tile_elem(DType::F8E4M3FN);
        assert!(text.contains(&format!("tile<{tm}x{tn}xf32> -> tile<{tm}x{tn}x{f8}>")), "{}: e4m3 cast", v.name);
        assert_eq!(count(text, "= absf "), 1, "{}", v.name);
        let fast = v.entry == "fp8_quant_rows_fast";
        // scale = m / 448 and x / scale, or (`_fast`) 448 / m once per row, then x * that, and the scale
        assert_eq!(count(text, "= divf "), 2, "{}: two divisions", v.name);
        assert_eq!(count(text, "= mulf "), usize::from(fast), "{}: a multiply per element in `_fast`", v.name);
        assert_eq!(fast, v.name.contains("_fast_"), "{}", v.name);
        let hinted = text.contains("occupancy = 4");
        if v.entry == "fp8_quant_rows" || fast {
            assert_eq!((loads(text), stores(text), for_loops(text)), (1, 2, 0), "{}", v.name);
            assert!(hinted, "{}: occupancy=4 as in Python", v.name);
        } else {
            // Pass 1 over zero-padded tiles (the absmax), pass 2 over unpadded ones (the quantize).
            assert_eq!((loads(text), stores(text), for_loops(text)), (2, 2, 2), "{}", v.name);
            assert_eq!(padded_views(text, "zero"), 1, "{}", v.name);
            assert!(!hinted, "{}", v.name);
        }
    }
}

#[test]
fn layer_norm_structure() {
    assert_eq!(ops::layer_norm::VARIANTS.len(), 29);
    for v in ops::layer_norm::VARIANTS {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let (tm, tn) = (v.constant("TILE_M"), v.constant("TILE_N"));
        assert!(text.contains(&format!("-> tile<{tm}x{tn}x{e}>, token")), "{}", v.name);
        // The column mask: iota < N, and a select of the masked values.
        assert_eq!(count(text, "= iota "), 1, "{}", v.name);
        assert_eq!(count(text, "= select "), 1, "{}", v.name);
        if v.entry == "layer_norm_fwd_fast" {
            // One row per block; 1/n by one approximate flush-to-zero division, then two multiplies;
            // the sum of squares times 1/n plus eps is one fma, as is centered * r * w + b.
            assert_eq!((tm, tn), (1, 1024), "{}: one row per block", v.name);
            assert_eq!((loads(text), stores(text), for_loops(text)), (3, 3, 0), "{}", v.name);
            assert_eq!(count(text, "= rsqrt "), 1, "{}", v.name);
            assert_eq!(count(text, "= divf "), 1, "{}: 1 / n", v.name);
            assert_eq!(count(text, "rounding<approx> flush_to_zero"), 1, "{}", v.name);
            assert_eq!(count(text, "flush_to_zero"), 1, "{}", v.name);
            assert_eq!(count(text, "= fma "), 2, "{}: var + eps and centered * r * w + b", v.name);
            assert!(text.contains("occupancy = 16"), "{}", v.name);
            continue;
        }
        if layer_norm_fast2(v) {
            // The same body as layer_norm_fwd_fast, one row per block of 1024-8192 columns; the
            // occupancy hint 16 / 8 / 4 / 4 by tile width is in the entry's name.
            let occupancy = match tn {
                1024 => 16,
                2048 => 8,
                _ => 4,
            };
            assert_eq!(tm, 1, "{}: one row per block", v.name);
            assert_eq!(v.entry, format!("layer_norm_fwd_fast2_o{occupancy}"), "{}", v.name);
            assert_eq!((loads(text), stores(text), for_loops(text)), (3, 3, 0), "{}", v.name);
            assert_eq!(count(text, "= rsqrt "), 1, "{}", v.name);
            assert_eq!(count(text, "= divf "), 1, "{}: 1 / n", v.name);
            assert_eq!(count(text, "rounding<approx> flush_to_zero"), 1, "{}", v.name);
            assert_eq!(count(text, "flush_to_zero"), 1, "{}", v.name);
            assert_eq!(count(text, "= fma "), 2, "{}: var + eps and centered * r * w + b", v.name);
            assert!(text.contains(&format!("occupancy = {occupancy}")), "{}", v.name);
            // The 8-byte contract: N and the row strides of x and out multiples of 4 (16-bit) or
            // 2 (f32) elements, never 8 (which would let tileiras use TMA for the rows).
            let multiple = if e == "f32" { 2 } else { 4 };
            assert!(v.name.contains(&format!("_a{multiple}_fast_")), "{}", v.name);
            continue;
        }
        assert_eq!(count(text, "rounding<approx>") + count(text, "flush_to_zero"), 0, "{}", v.name);
        if v.entry == "layer_norm_fwd" {
            // x, w, b; out, mean, rstd; sum and sum of squares; mean and variance by IEEE division.
            assert_eq!((loads(text), stores(text), for_loops(text)), (3, 3, 0), "{}", v.name);
            assert_eq!(count(text, "= rsqrt "), 1, "{}", v.name);
            assert_eq!(count(text, "= divf "), 2, "{}", v.name);
            assert_eq!(count(text, "= fma "), 1, "{}: centered * r * w + b", v.name);
            assert!(text.contains("occupancy = 4"), "{}", v.name);
        } else {
            // w before the loop; x, dy, mean, rstd in it; dx in it, dw and db after it.
            assert_eq!((loads(text), stores(text), for_loops(text)), (5, 3, 1), "{}", v.name);
            assert_eq!(count(text, "= rsqrt "), 0, "{}", v.name);
            assert_eq!(count(text, "= divf "), 2, "{}: mean(g), mean(g * xhat)", v.name);
            assert_eq!(count(text, "= fma "), 2, "{}: the dx fma and the dw accumulation", v.name);
            assert!(text.contains("occupancy = 2"), "{}", v.name);
            assert_eq!(v.constant("TILE_M") * v.constant("ROW_TILES"), ops::layer_norm::BWD_ROWS_PER_BLOCK);
        }
    }
}

/// The attention kernels: one q tile load, then per key-loop phase (`phases`) a K tile read
/// transposed (dim_map [0, 1, 3, 2]) and a V tile, two mmas (QK^T into a (BM, BN) f32 tile, PV
/// into the (BM, D) f32 accumulator), two exp2, one fma for the running sum, three carried
/// values (acc, sum, max); one `select` (the mask) per masked phase (`masked`); one store.
fn check_attention_structure(variants: &[&Variant], phases: usize, masked: usize) {
    for v in variants {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let (bm, bn, d) = (v.constant("BM"), v.constant("BN"), v.constant("D"));
        let sinks = usize::from(v.op == "attention_sink");
        assert_eq!(count(text, " for "), phases, "{}: key loop phases", v.name);
        assert_eq!(count(text, "= mmaf "), 2 * phases, "{}", v.name);
        let qk = format!("tile<{bm}x{d}x{e}>, tile<{d}x{bn}x{e}>, tile<{bm}x{bn}xf32>");
        let pv = format!("tile<{bm}x{bn}x{e}>, tile<{bn}x{d}x{e}>, tile<{bm}x{d}xf32>");
        if qk == pv {
            assert_eq!(count(text, &qk), 2 * phases, "{}: QK^T and PV mmas (D = BN)", v.name);
        } else {
            assert_eq!(count(text, &qk), phases, "{}: QK^T mmas", v.name);
            assert_eq!(count(text, &pv), phases, "{}: PV mmas", v.name);
        }
        assert_eq!(count(text, "= exp2 "), 2 * phases, "{}", v.name);
        assert_eq!(count(text, "= fma "), phases, "{}: l * alpha + sum(p)", v.name);
        assert_eq!(count(text, "= select "), masked, "{}: one mask per masked phase", v.name);
        assert_eq!(loads(text), 1 + sinks + 2 * phases, "{}: q, (sinks), K and V per phase", v.name);
        assert_eq!(stores(text), 1, "{}", v.name);
        let kt = format!("tile=(1x1x{d}x{bn})");
        assert_eq!(
            text.lines()
                .filter(|l| l.contains("= make_partition_view")
                    && l.contains(&kt)
                    && l.contains("padding_value = zero")
                    && l.contains("dim_map=[0,1,3,2]"))
                .count(),
            1,
            "{}: K read transposed through one view",
            v.name
        );
        assert!(!text.contains("rounding<approx>") && !text.contains("flush_to_zero"), "{}", v.name);
    }
}

/// flash_attention: an unmasked and a masked key phase.
#[test]
fn flash_attention_structure() {
    check_attention_structure(ops::flash_attention::VARIANTS, 2, 1);
}

/// attention_sink: window edge (masked), fully visible, diagonal (masked); the sink logit load.
#[test]
fn attention_sink_structure() {
    check_attention_structure(ops::attention_sink::VARIANTS, 3, 2);
}

/// Whether the first index of every load and store is the block id of grid `axis`.
fn first_index_is_block(text: &str, axis: usize) -> bool {
    let ids = block_id_names(text);
    let accesses = access_indices(text);
    !accesses.is_empty() && accesses.iter().all(|ix| ids[axis].contains(&ix[0]))
}

#[test]
fn bmm_structure() {
    assert_eq!(ops::bmm::VARIANTS.len(), 18);
    for v in ops::bmm::VARIANTS {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let (bm, bn, bk) = (v.constant("BM"), v.constant("BN"), v.constant("BK"));
        let (trans_b, tf32) = (v.constant("TRANS_B"), v.constant("CAST_TF32"));
        assert_eq!(tf32 == 1, e == "f32", "{}: tf32 rounding exactly for f32 operands", v.name);
        let operand = if tf32 == 1 { "tf32" } else { e };
        let mma = format!("tile<{bm}x{bk}x{operand}>, tile<{bk}x{bn}x{operand}>, tile<{bm}x{bn}xf32>");
        assert_eq!(count(text, "mmaf "), 1, "{}", v.name);
        assert!(text.contains(&mma), "{}: expected mmaf over {mma}", v.name);
        // One K loop; the persistent kernel (a NUM_BLOCKS generic) nests it in its loop over batch x
        // tiles, whose store's token that loop carries (as cuTile Python orders those stores).
        let persistent = v.generic_names.contains(&"NUM_BLOCKS");
        assert_eq!(
            (loads(text), stores(text), for_loops(text)),
            (2, 1, 1 + persistent as usize),
            "{}: one K loop",
            v.name
        );
        if persistent {
            let tile_loop = text.lines().find(|l| l.contains("for ")).unwrap_or_default();
            assert!(tile_loop.contains("token"), "{}: the tile loop carries the store's token: {tile_loop}", v.name);
            assert!(text.contains("get_num_tile_blocks"), "{}: the loop steps by the grid", v.name);
        }
        // (1, BM, BK) and (1, BK, BN) slabs of the 3-D arrays, reshaped to 2-D; the (1, BM, BN)
        // c tile stored; every access at batch = block y.
        assert!(text.contains(&format!("-> tile<1x{bm}x{bk}x{e}>, token")), "{}: a slab", v.name);
        assert!(text.contains(&format!("-> tile<1x{bk}x{bn}x{e}>, token")), "{}: b slab", v.name);
        assert!(text.contains(&format!("tile<1x{bm}x{bn}x{e}>, partition_view<tile=(1x{bm}x{bn})")), "{}", v.name);
        assert_eq!(count(text, "= reshape "), 3, "{}: a, b to 2-D, c back to 3-D", v.name);
        // the one-tile kernels index the batch by block y; the persistent one by its tile number
        assert_eq!(first_index_is_block(text, 1), !persistent, "{}: batch index is block y", v.name);
        assert_eq!(padded_views(text, "zero"), 2, "{}: zero-padded operands (a ragged K tile adds 0)", v.name);
        assert_eq!(count(text, "dim_map=[0,2,1]") > 0, trans_b == 1, "{}: b read through order (0, 2, 1)", v.name);
        assert_eq!(count(text, "tf32") > 0, tf32 == 1, "{}", v.name);
        // tf32 rounding on the loaded 3-D slabs, before the reshape (after it, tileiras rounds in
        // registers and the kernel runs 1.4x slower)
        let slabs = [format!("tile<1x{bm}x{bk}xtf32>"), format!("tile<1x{bk}x{bn}xtf32>")];
        assert!(slabs.iter().all(|s| text.contains(s.as_str())) == (tf32 == 1), "{}: tf32 slabs", v.name);
        assert_eq!(count(text, "num_worker_warps_per_cta = 8"), usize::from(v.entry != "bmm"), "{}", v.name);
    }
}

#[test]
fn splitk_matmul_structure() {
    assert_eq!(ops::splitk_matmul::VARIANTS.len(), 6);
    for v in ops::splitk_matmul::VARIANTS {
        let text = ir(v);
        let specs: Vec<_> = v.tensor_specs().collect();
        assert_eq!(count(text, "rounding<approx>") + count(text, "flush_to_zero"), 0, "{}", v.name);
        if v.entry == "splitk_partial" {
            let e = tile_elem(specs[0].dtype);
            let (bm, bn, bk) = (v.constant("BM"), v.constant("BN"), v.constant("BK"));
            let mma = format!("tile<{bm}x{bk}x{e}>, tile<{bk}x{bn}x{e}>, tile<{bm}x{bn}xf32>");
            assert!(text.contains(&mma), "{}: expected mmaf over {mma}", v.name);
            assert_eq!((loads(text), stores(text), for_loops(text)), (2, 1, 1), "{}", v.name);
            assert_eq!(padded_views(text, "zero"), 2, "{}", v.name);
            // The f32 accumulator is the slab: stored as (1, BM, BN) f32 at split = block y, never cast.
            assert!(text.contains(&format!("tile<1x{bm}x{bn}xf32>, partition_view<tile=(1x{bm}x{bn})")), "{}", v.name);
            assert_eq!(count(text, "= ftof "), 0, "{}", v.name);
            let store = text.lines().find(|l| l.contains("= store_view_tko")).unwrap();
            let first = &store[store.find('[').unwrap() + 1..];
            let first = first.split(", ").next().unwrap();
            assert!(block_id_names(text)[1].iter().any(|n| n == first), "{}: slab index is block y", v.name);
            // The split's K range: the loop starts at min(split * per_split, k_tiles), not 0.
            let for_line = text.lines().find(|l| l.contains(" = for ")).unwrap();
            let start = for_line.split(" in (").nth(1).unwrap().split(" to ").next().unwrap();
            assert!(!i32_scalar_constants(text).contains_key(start), "{}: loop from {start}", v.name);
        } else {
            let e = tile_elem(specs[1].dtype);
            let (tm, tn) = (v.constant("TM"), v.constant("TN"));
            // One unpadded (1, TM, TN) f32 slab load per split, summed in f32, one cast, one store.
            assert_eq!((loads(text), stores(text), for_loops(text)), (1, 1, 1), "{}", v.name);
            assert_eq!(count(text, "padding_value"), 0, "{}: Python loads the slabs without padding", v.name);
            assert!(text.contains(&format!("-> tile<1x{tm}x{tn}xf32>, token")), "{}", v.name);
            assert_eq!(count(text, "= addf "), 1, "{}", v.name);
            assert!(text.contains(&format!("tile<{tm}x{tn}xf32> -> tile<{tm}x{tn}x{e}>")), "{}: one cast", v.name);
            assert!(text.contains(&format!("tile<{tm}x{tn}x{e}>, partition_view<tile=({tm}x{tn})")), "{}", v.name);
            assert_eq!(count(text, "mmaf"), 0, "{}", v.name);
        }
    }
}

/// group_gemm: the group scan (a loop over G reading two offsets per group) and the K loop of one
/// mma; the gather kernel reads A through a gather view and writes C with one masked pointer
/// scatter, the sliced kernels view a and c as the group's rows (two more tensor views, the base
/// offset by first_row * stride) and store one tile.
#[test]
fn group_gemm_structure() {
    assert_eq!(ops::group_gemm::VARIANTS.len(), 8);
    for v in ops::group_gemm::VARIANTS {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let (bm, bn, bk) = (v.constant("BM"), v.constant("BN"), v.constant("BK"));
        let gather = v.entry == "group_gemm";
        assert_eq!(count(text, "for "), 2, "{}: the group scan and the K loop", v.name);
        assert_eq!(count(text, "mmaf "), 1, "{}", v.name);
        assert!(text.contains(&format!("tile<{bm}x{bk}x{e}>, tile<{bk}x{bn}x{e}>, tile<{bm}x{bn}xf32>")), "{}", v.name);
        assert_eq!(loads(text), 4, "{}: offsets[g], offsets[g + 1], the A rows, the W tile", v.name);
        assert_eq!(count(text, "make_gather_scatter_view"), usize::from(gather), "{}", v.name);
        assert_eq!(count(text, "store_ptr_tko"), usize::from(gather), "{}: the masked row scatter", v.name);
        assert_eq!(stores(text), usize::from(!gather), "{}: the tile store into the group's rows", v.name);
        assert_eq!(count(text, "= make_tensor_view"), if gather { 4 } else { 6 }, "{}", v.name);
        assert_eq!(text.contains("dim_map=[0,2,1]"), v.constant("TRANS_W") == 1, "{}: (G, N, K) weights", v.name);
        // The scatter's bounds are unsigned 64-bit compares (negative indices are out of bounds).
        assert_eq!(count(text, "unsigned"), if gather { 2 } else { 0 }, "{}", v.name);
    }
}

/// fused_moe: the scalar routing loads, the ids tile, one K loop of gathered hidden rows times the
/// expert's transposed weights, the routed-weight gather only with MUL_ROUTED_WEIGHT, and the
/// masked scatter; Python's floor `//` and `%` are kept (rounding<negative_inf> and the sign fix-up).
#[test]
fn fused_moe_structure() {
    assert_eq!(ops::fused_moe::VARIANTS.len(), 3);
    for v in ops::fused_moe::VARIANTS {
        let text = ir(v);
        let mul = v.constant("MUL_ROUTED_WEIGHT") == 1;
        let (bm, bn, bk) = (v.constant("BM"), v.constant("BN"), v.constant("BK"));
        assert_eq!(count(text, "for "), 1, "{}", v.name);
        assert_eq!(count(text, "mmaf "), 1, "{}", v.name);
        assert!(text.contains(&format!("-> tile<{bm}x{bk}x")), "{}: the gathered hidden rows", v.name);
        assert!(text.contains("dim_map=[0,2,1]"), "{}: w[e] read transposed", v.name);
        assert_eq!(loads(text), 5, "{}: total, expert, ids, hidden rows, w tile", v.name);
        assert_eq!(count(text, "load_ptr_tko"), usize::from(mul), "{}: topk_weights gathered", v.name);
        assert_eq!(count(text, "store_ptr_tko"), 1, "{}", v.name);
        assert_eq!(stores(text), 0, "{}", v.name);
        assert_eq!(count(text, "rounding negative_inf"), 2, "{}: tile_m = bid // tiles_n, ids // TOPK", v.name);
        assert_eq!(count(text, "remi "), 1, "{}: tile_n = bid % tiles_n", v.name);
        assert!(text.contains(&format!("tile<{bm}x{bn}xf32>")), "{}", v.name);
    }
}

#[test]
fn flash_decode_structure() {
    for v in ops::flash_decode::VARIANTS {
        let text = ir(v);
        let d = v.constant("D");
        if v.entry == ops::flash_decode::PARTIAL {
            let (bn, g) = (v.constant("BN"), v.constant("QUERY_GROUP"));
            let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
            // One loop over the split's key tiles: Q K^T, then P V into the carried accumulator.
            assert_eq!(count(text, "for "), 1, "{}", v.name);
            assert_eq!(count(text, "= mmaf "), 2, "{}", v.name);
            assert!(text.contains(&format!("tile<{g}x{d}x{e}>, tile<{d}x{bn}x{e}>, tile<{g}x{bn}xf32>")), "{}", v.name);
            assert!(text.contains(&format!("tile<{g}x{bn}x{e}>, tile<{bn}x{d}x{e}>, tile<{g}x{d}xf32>")), "{}", v.name);
            assert!(text.contains("dim_map=[0,1,3,2]"), "{}: K read transposed", v.name);
            assert_eq!(padded_views(text, "zero"), 2, "{}: K and V tiles zero-padded", v.name);
            assert_eq!(loads(text), 4, "{}: seq_len, q, K and V tiles", v.name);
            assert_eq!(stores(text), 2, "{}: partial_o and partial_lse", v.name);
            assert_eq!(count(text, "= exp2 "), 2, "{}", v.name);
            assert_eq!(count(text, "= fma "), 1, "{}: l * alpha + sum(p)", v.name);
        } else if v.entry == ops::flash_decode::PARTIAL_TP || v.entry == ops::flash_decode::PARTIAL_TP_O4 {
            let (bn, g, p) = (v.constant("BN"), v.constant("QUERY_GROUP"), v.constant("QUERY_PAD"));
            let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
            // The products transposed: the key tile and the head dim are the M sides, the query
            // group padded with zero columns to QUERY_PAD, whose results are dropped at the end.
            assert_eq!(p, 2 * g, "{}", v.name);
            assert_eq!(count(text, "for "), 1, "{}", v.name);
            assert_eq!(count(text, "= mmaf "), 2, "{}", v.name);
            assert!(text.contains(&format!("tile<{bn}x{d}x{e}>, tile<{d}x{p}x{e}>, tile<{bn}x{p}xf32>")), "{}", v.name);
            assert!(text.contains(&format!("tile<{d}x{bn}x{e}>, tile<{bn}x{p}x{e}>, tile<{d}x{p}xf32>")), "{}", v.name);
            assert!(
                text.contains(&format!("tile<{d}x{g}x{e}>, tile<{d}x{g}x{e}> -> tile<{d}x{p}x{e}>")),
                "{}: zero columns",
                v.name
            );
            assert!(
                text.contains(&format!("tile<{p}x{d}xf32> -> tile<{g}x{d}xf32>")),
                "{}: padded rows dropped",
                v.name
            );
            assert!(text.contains("dim_map=[0,1,3,2]"), "{}: V read transposed", v.name);
            assert_eq!(padded_views(text, "zero"), 2, "{}: K and V tiles zero-padded", v.name);
            assert_eq!((loads(text), stores(text)), (4, 2), "{}", v.name);
            assert_eq!(count(text, "= exp2 "), 2, "{}", v.name);
            assert_eq!(count(text, "= fma "), 1, "{}: l * alpha + sum(p)", v.name);
        } else if v.entry == ops::flash_decode::PARTIAL_V {
            let bn = v.constant("BN");
            // One query head: no product, row sums of K * q and column sums of p * V in f32.
            assert_eq!(v.constant("QUERY_GROUP"), 1, "{}", v.name);
            assert_eq!(count(text, "for "), 1, "{}", v.name);
            assert_eq!(count(text, "= mmaf "), 0, "{}", v.name);
            assert!(text.contains(&format!("tile<{bn}x{d}xf32> -> tile<{bn}xf32>")), "{}: scores", v.name);
            assert!(text.contains(&format!("tile<{bn}x{d}xf32> -> tile<{d}xf32>")), "{}: p V", v.name);
            assert_eq!(padded_views(text, "zero"), 2, "{}: K and V tiles zero-padded", v.name);
            assert_eq!((loads(text), stores(text)), (4, 2), "{}", v.name);
            assert_eq!(count(text, "= exp2 "), 2, "{}", v.name);
            assert_eq!(count(text, "= fma "), 2, "{}: l and acc rescaled and summed", v.name);
        } else {
            let m = v.constant("MAX_SPLITS");
            assert_eq!(count(text, "for "), 0, "{}", v.name);
            assert_eq!(padded_views(text, "neg_inf"), 1, "{}: lse tile padded with -inf", v.name);
            assert!(text.contains(&format!("tile<1x1x{m}x{d}xf32>")), "{}: all partials in one tile", v.name);
            assert_eq!((loads(text), stores(text)), (2, 1), "{}", v.name);
        }
    }
}

#[test]
fn moe_align_block_size_structure() {
    use ops::moe_align_block_size::{COUNT_SUB, HISTOGRAM, PLACE_SUB, SORT};
    let scatters = |text: &str| count(text, "store_ptr_tko weak");
    let unsigned_compares =
        |text: &str| text.lines().filter(|l| l.contains("= cmpi ") && l.contains(" unsigned")).count();
    for v in ops::moe_align_block_size::VARIANTS {
        let text = ir(v);
        let e_pad = v.constant("E_PAD");
        match v.entry {
            HISTOGRAM | SORT => {
                let tile = v.constant("TILE");
                assert!(text.contains(&format!("tile<{tile}x{e_pad}xi32>")), "{}: the one-hot tile", v.name);
                assert_eq!(count(text, "for "), 2, "{}: over the id tiles, then the blocks / padding slots", v.name);
            }
            _ => {}
        }
        match v.entry {
            HISTOGRAM => {
                assert_eq!(count(text, "= scan "), 1, "{}: cumsum of the padded counts", v.name);
                assert_eq!(stores(text), 4, "{}: counts, offsets, total, expert_ids", v.name);
                assert_eq!(scatters(text), 0, "{}", v.name);
                assert!(text.contains(&format!("constant <i32: {}>", v.constant("BLOCK_M"))), "{}", v.name);
            }
            SORT => {
                assert_eq!(count(text, "= scan "), 1, "{}: in-tile ranks", v.name);
                assert_eq!(stores(text), 0, "{}", v.name);
                // Two masked scatters, bound-checked unsigned against the length, ordered by one token.
                assert_eq!(scatters(text), 2, "{}", v.name);
                assert_eq!(unsigned_compares(text), 2, "{}: the scatters' bound checks", v.name);
                assert!(text.contains("-> (tile<") && text.contains(", token)"), "{}: a loop-carried token", v.name);
            }
            COUNT_SUB => {
                // One row of per-tile counts stored through a (1, E_PAD) view after a loop of SUB-id
                // one-hots (no (TILE, E_PAD) tile: it spilled); no scan, no scatter.
                let (tile, sub) = (v.constant("TILE"), v.constant("SUB"));
                assert!(text.contains(&format!("tile<{sub}x{e_pad}xi32>")), "{}: the one-hot tile", v.name);
                assert!(!text.contains(&format!("tile<{tile}x{e_pad}xi32>")), "{}: no whole-tile one-hot", v.name);
                assert!(text.contains(&format!("tile<1x{e_pad}xi32>")), "{}: the stored row", v.name);
                assert_eq!((stores(text), scatters(text), count(text, "= scan ")), (1, 0, 0), "{}", v.name);
                assert_eq!(count(text, "for "), 1, "{}: the SUB-id steps", v.name);
            }
            PLACE_SUB => {
                // The only scan is the cumsum of the padded counts (ranks come from compares); every
                // write is a bound-checked masked scatter: counts, offsets, total, the ids, expert_ids,
                // the padding inside the segments and past the total. Loops: the count rows, the
                // SUB-id steps, expert_ids, the tail.
                assert_eq!(count(text, "= scan "), 1, "{}", v.name);
                assert_eq!(stores(text), 0, "{}", v.name);
                assert_eq!(scatters(text), 7, "{}", v.name);
                assert_eq!(unsigned_compares(text), 7, "{}: the scatters' bound checks", v.name);
                assert_eq!(count(text, "for "), 4, "{}", v.name);
                assert!(text.contains("get_num_tile_blocks"), "{}: grid-stride loops", v.name);
            }
            other => panic!("{}: unknown kernel {other}", v.name),
        }
    }
}
