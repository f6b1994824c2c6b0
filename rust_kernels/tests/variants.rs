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

/// Compiles every variant once per test binary (about 1 s each).
fn compiled() -> &'static HashMap<(&'static str, &'static str), Compiled> {
    static ALL: OnceLock<HashMap<(&'static str, &'static str), Compiled>> = OnceLock::new();
    ALL.get_or_init(|| {
        ops::all_variants()
            .into_iter()
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
                    want.extend(std::iter::repeat_n("tile<i32>".to_string(), 2 * t.ndim));
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
#[test]
fn specialization_assumptions_are_in_the_ir() {
    for v in ops::all_variants() {
        let text = ir(v);
        let specs: Vec<&TensorSpec> = v.tensor_specs().collect();
        let mut views: HashMap<String, usize> = HashMap::new();
        for t in &specs {
            *views.entry(view_type(t)).or_default() += 1;
        }
        for (view, n) in &views {
            let made = text
                .lines()
                .filter(|l| l.contains("make_tensor_view") && l.trim_end().ends_with(view.as_str()))
                .count();
            assert_eq!(made, *n, "{}/{}: expected {n} views of type {view}", v.op, v.name);
        }
        for align in [2u64, 4, 8, 16] {
            let want = specs.iter().filter(|t| t.base_align == align).count();
            let got = text
                .lines()
                .filter(|l| l.contains(&format!("assume div_by<{align}>")) && l.contains("tile<ptr<"))
                .count();
            assert_eq!(got, want, "{}/{}: pointers assumed {align}-byte aligned", v.op, v.name);
        }
        let want_stride_div: usize = specs.iter().map(|t| (0..t.ndim).filter(|&i| t.stride_div[i] > 1).count()).sum();
        let got_stride_div = text.lines().filter(|l| l.contains("assume div_by<") && !l.contains("tile<ptr<")).count();
        assert_eq!(got_stride_div, want_stride_div, "{}/{}: stride divisibility assumptions", v.op, v.name);
        // Python's `/` is an IEEE divide; an approximate one would change the numerics.
        assert_eq!(count(text, "rounding<approx>"), 0, "{}/{}: approximate math", v.op, v.name);
        assert_eq!(count(text, "flush_to_zero"), 0, "{}/{}: flush-to-zero math", v.op, v.name);
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
        let online = v.entry == "softmax_online";
        let (tm, tn) = if online { (1, v.constant("TILE_N")) } else { (v.constant("TILE_M"), v.constant("TILE_N")) };
        assert!(text.contains(&format!("-> tile<{tm}x{tn}x{e}>, token")), "{}: row tile load", v.name);
        assert_eq!(padded_views(text, "neg_inf"), 1, "{}: -inf padding keeps the max and sum exact", v.name);
        assert_eq!(padded_views(text, "zero"), 0, "{}", v.name);
        assert_eq!(stores(text), 1, "{}", v.name);
        assert_eq!(count(text, "for "), if online { 2 } else { 0 }, "{}: loops", v.name);
        assert_eq!(loads(text), if online { 2 } else { 1 }, "{}", v.name);
        assert_eq!(count(text, "= exp2 "), if online { 3 } else { 1 }, "{}: exp2 ops", v.name);
        assert_eq!(count(text, "divf"), 1, "{}: one division", v.name);
        assert!(count(text, "maxf") >= 1, "{}: max reduction", v.name);
        if e != "f32" {
            assert!(text.contains(&format!("tile<{tm}x{tn}x{e}> -> tile<{tm}x{tn}xf32>")), "{}: math in f32", v.name);
            assert!(text.contains(&format!("tile<{tm}x{tn}xf32> -> tile<{tm}x{tn}x{e}>")), "{}: cast back", v.name);
        }
    }
}

#[test]
fn rms_norm_structure() {
    for v in ops::rms_norm::VARIANTS.iter().filter(|v| v.entry != "rms_norm_bwd") {
        let text = ir(v);
        let e = tile_elem(v.tensor_specs().next().unwrap().dtype);
        let looped = v.entry == "rms_norm_fwd_looped";
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
    }
}

#[test]
fn rms_norm_bwd_structure() {
    let bwd: Vec<_> = ops::rms_norm::VARIANTS.iter().filter(|v| v.entry == "rms_norm_bwd").collect();
    assert_eq!(bwd.len(), 3);
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
        let fp8 = v.entry == "matmul_fp8";
        let tf32 = if fp8 { 0 } else { v.constant("CAST_TF32") };
        let (trans_a, trans_b) = (v.constant("TRANS_A"), v.constant("TRANS_B"));
        let operand = if tf32 == 1 { "tf32" } else { e_in };
        let mma = format!("tile<{bm}x{bk}x{operand}>, tile<{bk}x{bn}x{operand}>, tile<{bm}x{bn}xf32>");
        assert_eq!(count(text, "mmaf "), 1, "{}", v.name);
        assert!(text.contains(&mma), "{}: expected mmaf over {mma}", v.name);
        assert_eq!(count(text, "for "), 1, "{}: one K loop", v.name);
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

/// tileiras (from the nvidia-cuda-tileiras wheel) compiles every variant for sm_90 and
/// sm_100. Set TILEIR_SKIP_TILEIRAS=1 only where the wheel cannot be installed.
#[test]
fn tileiras_compiles_every_variant_for_sm90_and_sm100() {
    if std::env::var_os("TILEIR_SKIP_TILEIRAS").is_some() {
        eprintln!("TILEIR_SKIP_TILEIRAS set: not running tileiras");
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
