//! emit-ir: writes the Tile IR bytecode of the cuTile Rust ports, without a GPU.
//!
//!   emit-ir --all [--out DIR] [--cubin sm_90 --cubin sm_100]
//!   emit-ir --op matmul [--variant f16_nn_128x128x64] [--out DIR]
//!   emit-ir --list [--json]
//!   emit-ir --corpus independent [--out DIR]
//!
//! Output: DIR/<op>/<variant>.tileirbc (DIR defaults to <repo>/build/rust), a sidecar
//! DIR/<op>/<variant>.json (entry symbol, generics, parameters, check counts), and with
//! --cubin ARCH also DIR/<op>/<variant>.<ARCH>.cubin compiled by tileiras, --jobs N (default: the
//! number of cores) tileiras processes at a time.
//! `--corpus independent` writes the independent-style corpus (src/independent/) instead:
//! DIR/<port>.tileirbc and DIR/<port>.json (entry, generics, the reference variant it pairs
//! with), DIR defaulting to <repo>/tests/corpus/independent.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use tileir_kernels::compile::{self, Options};
use tileir_kernels::independent;
use tileir_kernels::ops;
use tileir_kernels::variant::{ParamSpec, Variant};

const USAGE: &str = "usage: emit-ir (--all | --op OP [--variant NAME] | --list [--json] | --corpus independent) [--out DIR] \
[--target sm_90] [--bytecode-version 13.3] [--cubin ARCH]... [--jobs N]";

struct Args {
    all: bool,
    list: bool,
    json: bool,
    op: Option<String>,
    variant: Option<String>,
    corpus: Option<String>,
    out: Option<PathBuf>,
    cubins: Vec<String>,
    jobs: usize,
    options: Options,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        all: false,
        list: false,
        json: false,
        op: None,
        variant: None,
        corpus: None,
        out: None,
        cubins: Vec::new(),
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        options: Options::default(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match flag.as_str() {
            "--all" => args.all = true,
            "--list" => args.list = true,
            "--json" => args.json = true,
            "--op" => args.op = Some(value("--op")?),
            "--variant" => args.variant = Some(value("--variant")?),
            "--out" => args.out = Some(PathBuf::from(value("--out")?)),
            "--corpus" => args.corpus = Some(value("--corpus")?),
            "--target" => args.options.target = value("--target")?,
            "--bytecode-version" => {
                args.options.bytecode_version = compile::parse_bytecode_version(&value("--bytecode-version")?)?
            }
            "--cubin" => args.cubins.push(value("--cubin")?),
            "--jobs" => {
                let v = value("--jobs")?;
                args.jobs = v
                    .parse()
                    .ok()
                    .filter(|&n: &usize| n > 0)
                    .ok_or(format!("--jobs needs a positive integer, not {v:?}"))?
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if let Some(corpus) = &args.corpus {
        if corpus != "independent" {
            return Err(format!("unknown corpus {corpus:?}; known: independent"));
        }
        if args.all || args.list || args.op.is_some() || !args.cubins.is_empty() {
            return Err("--corpus takes only --out, --target and --bytecode-version".into());
        }
        return Ok(args);
    }
    if !args.list && args.all == args.op.is_some() {
        return Err("give exactly one of --all and --op".into());
    }
    if args.variant.is_some() && args.op.is_none() {
        return Err("--variant needs --op".into());
    }
    Ok(args)
}

fn selected(args: &Args) -> Result<Vec<&'static Variant>, String> {
    let all = ops::all_variants();
    if args.all || args.list {
        return Ok(all);
    }
    let op = args.op.as_deref().unwrap();
    let chosen: Vec<_> =
        all.into_iter().filter(|v| v.op == op && args.variant.as_deref().is_none_or(|name| v.name == name)).collect();
    if chosen.is_empty() {
        let known: Vec<String> = ops::all_variants().iter().map(|v| format!("{}/{}", v.op, v.name)).collect();
        return Err(format!(
            "no variant {}/{}; known: {}",
            op,
            args.variant.as_deref().unwrap_or("*"),
            known.join(", ")
        ));
    }
    Ok(chosen)
}

/// tileiras: $TILEIRAS, else $CUDA_TOOLKIT_PATH/bin/tileiras, else PATH.
fn tileiras() -> PathBuf {
    if let Some(p) = std::env::var_os("TILEIRAS") {
        return PathBuf::from(p);
    }
    if let Some(root) = std::env::var_os("CUDA_TOOLKIT_PATH") {
        let p = Path::new(&root).join("bin").join("tileiras");
        if p.exists() {
            return p;
        }
    }
    PathBuf::from("tileiras")
}

fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// JSON description of a variant; `checks` = ((discharged, hoisted, in_place), launch checks)
/// after a compile, None for a listing.
fn sidecar(v: &Variant, opts: &Options, checks: Option<((u32, u32, u32), usize)>, cubins: &[String]) -> String {
    let params: Vec<String> = v
        .params
        .iter()
        .map(|p| match p {
            ParamSpec::Tensor(t) => format!(
                "{{\"name\": {}, \"kind\": \"array\", \"dtype\": {}, \"ndim\": {}, \"index_dtype\": {}, \"stride_constant\": [{}], \
\"base_addr_divisible_by\": {}, \"shape_divisible_by\": {:?}, \"stride_divisible_by\": {:?}, \"role\": {}}}",
                json_str(t.name),
                json_str(t.dtype.torch_name()),
                t.ndim,
                json_str(if t.index64 { "int64" } else { "int32" }),
                (0..t.ndim).map(|i| if t.unit_stride(i) { "1" } else { "null" }).collect::<Vec<_>>().join(", "),
                t.base_align,
                &t.shape_div[..t.ndim],
                &t.stride_div[..t.ndim],
                json_str(if t.output { "output" } else { "input" }),
            ),
            ParamSpec::F32(name) => {
                format!("{{\"name\": {}, \"kind\": \"scalar\", \"dtype\": \"float32\"}}", json_str(name))
            }
            ParamSpec::I32(name) => {
                format!("{{\"name\": {}, \"kind\": \"scalar\", \"dtype\": \"int32\"}}", json_str(name))
            }
        })
        .collect();
    let generics: Vec<String> =
        v.generic_names.iter().zip(v.generics).map(|(n, g)| format!("{}: {}", json_str(n), json_str(g))).collect();
    let cubins: Vec<String> = cubins.iter().map(|a| json_str(a)).collect();
    let checks = match checks {
        Some((c, launch)) => format!(
            "\"check_counts\": {{\"discharged\": {}, \"hoisted\": {}, \"in_place\": {}}},\n  \"launch_checks\": {launch},\n  ",
            c.0, c.1, c.2
        ),
        None => String::new(),
    };
    format!(
        "{{\n  \"op\": {},\n  \"variant\": {},\n  \"frontend\": \"cutile-rs 0.5.0\",\n  \"module\": {},\n  \"entry\": {},\n  \
\"symbol\": {},\n  \"generics\": {{{}}},\n  \"target\": {},\n  \"bytecode_version\": {},\n  \"params\": [\n    {}\n  ],\n  \
{}\"cubins\": [{}]\n}}\n",
        json_str(v.op),
        json_str(v.name),
        json_str(v.module),
        json_str(v.entry),
        json_str(&v.symbol()),
        generics.join(", "),
        json_str(&opts.target),
        json_str(&opts.bytecode_version.to_string()),
        params.join(",\n    "),
        checks,
        cubins.join(", "),
    )
}

fn repo_dir(parts: &[&str]) -> PathBuf {
    parts.iter().fold(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."), |p, part| p.join(part))
}

/// `--corpus independent`: one port's bytecode and its sidecar.
fn emit_port(p: &'static independent::Port, args: &Args, dir: &Path) -> Result<(), String> {
    let artifacts = compile::compile_port(p, &args.options)?;
    let bytes = artifacts.bytecode().map_err(|e| format!("independent/{}: bytecode: {e}", p.name))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let bc = dir.join(format!("{}.tileirbc", p.name));
    std::fs::write(&bc, &bytes).map_err(|e| format!("{}: {e}", bc.display()))?;
    let generics: Vec<String> = p.generics.iter().map(|g| json_str(g)).collect();
    let json = format!(
        "{{\n  \"port\": {},\n  \"frontend\": \"cutile-rs 0.5.0\",\n  \"module\": {},\n  \"entry\": {},\n  \
\"generics\": [{}],\n  \"reference\": {{\"op\": {}, \"variant\": {}}},\n  \"target\": {},\n  \"bytecode_version\": {}\n}}\n",
        json_str(p.name),
        json_str(independent::MODULE),
        json_str(p.entry),
        generics.join(", "),
        json_str(p.reference.0),
        json_str(p.reference.1),
        json_str(&args.options.target),
        json_str(&args.options.bytecode_version.to_string()),
    );
    let side = dir.join(format!("{}.json", p.name));
    std::fs::write(&side, json).map_err(|e| format!("{}: {e}", side.display()))?;
    println!("independent/{}: {} bytes -> {}", p.name, bytes.len(), bc.display());
    Ok(())
}

/// One variant's bytecode, written; its cubins and sidecar come after (`finish`).
struct Emitted {
    v: &'static Variant,
    dir: PathBuf,
    bc: PathBuf,
    size: usize,
    checks: ((u32, u32, u32), usize),
    seconds: f64,
}

fn emit_bytecode(v: &'static Variant, args: &Args) -> Result<Emitted, String> {
    let start = std::time::Instant::now();
    let artifacts = compile::compile(v, &args.options)?;
    let bytes = artifacts.bytecode().map_err(|e| format!("{}/{}: bytecode: {e}", v.op, v.name))?;
    let dir = args.out.clone().unwrap_or_else(|| repo_dir(&["build", "rust"])).join(v.op);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let bc = dir.join(format!("{}.tileirbc", v.name));
    std::fs::write(&bc, &bytes).map_err(|e| format!("{}: {e}", bc.display()))?;
    let c = artifacts.check_counts();
    Ok(Emitted {
        v,
        dir,
        bc,
        size: bytes.len(),
        checks: ((c.discharged, c.hoisted, c.in_place), artifacts.launch_checks().len()),
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// tileiras on one variant for one architecture; the seconds it took.
fn cubin(e: &Emitted, arch: &str) -> Result<f64, String> {
    let start = std::time::Instant::now();
    let cubin = e.dir.join(format!("{}.{arch}.cubin", e.v.name));
    let output =
        Command::new(tileiras()).arg("--gpu-name").arg(arch).arg(&e.bc).arg("-o").arg(&cubin).output().map_err(
            |err| format!("cannot run tileiras ({}): {err}; set TILEIRAS or CUDA_TOOLKIT_PATH", tileiras().display()),
        )?;
    if !output.status.success() {
        return Err(format!(
            "{}/{}: tileiras --gpu-name {arch} failed ({}):\n{}",
            e.v.op,
            e.v.name,
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(start.elapsed().as_secs_f64())
}

/// Every (variant, arch) cubin, `jobs` tileiras processes at a time (tileiras is single-threaded
/// and most of emit-ir's time: ~5x the bytecode's). Results in the order of `work`.
fn cubins(emitted: &[Emitted], arches: &[String], jobs: usize) -> Vec<Vec<Result<f64, String>>> {
    let work: Vec<(usize, usize)> = (0..emitted.len()).flat_map(|i| (0..arches.len()).map(move |a| (i, a))).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<Result<f64, String>>>> =
        work.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1).min(work.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&(i, a)) = work.get(k) else { break };
                    let got = cubin(&emitted[i], &arches[a]);
                    *slots[k].lock().unwrap() = Some(got);
                }
            });
        }
    });
    let mut out: Vec<Vec<Result<f64, String>>> = emitted.iter().map(|_| Vec::new()).collect();
    for (slot, &(i, _)) in slots.into_iter().zip(&work) {
        out[i].push(slot.into_inner().unwrap().expect("every cubin job ran"));
    }
    out
}

/// The sidecar, written once the variant's cubins are (it lists the ones built), and its line.
fn finish(e: &Emitted, args: &Args, built: &[String], cubin_seconds: f64) -> Result<(), String> {
    let json = sidecar(e.v, &args.options, Some(e.checks), built);
    let side = e.dir.join(format!("{}.json", e.v.name));
    std::fs::write(&side, json).map_err(|err| format!("{}: {err}", side.display()))?;
    println!(
        "{}/{}: {} bytes -> {}{} ({:.1}s)",
        e.v.op,
        e.v.name,
        e.size,
        e.bc.display(),
        if built.is_empty() { String::new() } else { format!(" + cubin {}", built.join(", ")) },
        e.seconds + cubin_seconds
    );
    Ok(())
}

/// Bytecode for every variant (in this thread: the compile is fast), then the cubins in parallel,
/// then the sidecars and lines in the variants' order (the output does not depend on `--jobs`).
fn emit_all(variants: Vec<&'static Variant>, args: &Args) -> usize {
    let mut failed = 0;
    let mut emitted = Vec::new();
    for v in variants {
        match emit_bytecode(v, args) {
            Ok(e) => emitted.push(e),
            Err(msg) => {
                eprintln!("emit-ir: {msg}");
                failed += 1;
            }
        }
    }
    let results = cubins(&emitted, &args.cubins, args.jobs);
    for (e, per_arch) in emitted.iter().zip(results) {
        let mut built = Vec::new();
        let mut seconds = 0.0;
        let mut error = None;
        for (arch, got) in args.cubins.iter().zip(per_arch) {
            match got {
                Ok(s) => {
                    built.push(arch.clone());
                    seconds += s;
                }
                Err(msg) => error = error.or(Some(msg)),
            }
        }
        // a variant with a failed cubin gets no sidecar (as before: tests read the sidecar as "built")
        let done = match error {
            Some(msg) => Err(msg),
            None => finish(e, args, &built, seconds),
        };
        if let Err(msg) = done {
            eprintln!("emit-ir: {msg}");
            failed += 1;
        }
    }
    failed
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(msg) => {
            if !msg.is_empty() {
                eprintln!("emit-ir: {msg}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.corpus.is_some() {
        let dir = args.out.clone().unwrap_or_else(|| repo_dir(&["tests", "corpus", "independent"]));
        let failed = independent::PORTS
            .iter()
            .filter(|p| emit_port(p, &args, &dir).map_err(|msg| eprintln!("emit-ir: {msg}")).is_err())
            .count();
        return if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS };
    }
    let variants = match selected(&args) {
        Ok(v) => v,
        Err(msg) => {
            eprintln!("emit-ir: {msg}");
            return ExitCode::from(2);
        }
    };
    if args.list {
        // --json: one sidecar-shaped object per line (no compile, no check counts).
        for v in variants {
            if args.json {
                println!("{}", sidecar(v, &args.options, None, &[]).replace('\n', ""));
            } else {
                println!("{} {}", v.op, v.name);
            }
        }
        return ExitCode::SUCCESS;
    }
    let failed = emit_all(variants, &args);
    if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS }
}
