//! Embeds the prebuilt sm_90 cubins (written by `emit-ir --cubin sm_90`) into the library.
//!
//! Looks in $TILEIR_CUBIN_DIR, else <repo>/build/rust, for `<op>/<variant>.sm_90.cubin`.
//! A variant without a cubin is still callable: it validates, then returns
//! KERNEL_IMAGE_MISSING, so the crate builds before any cubin exists.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

const ARCH: &str = "sm_90";

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = match env::var_os("TILEIR_CUBIN_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => manifest.join("..").join("build").join("rust"),
    };
    println!("cargo:rerun-if-env-changed=TILEIR_CUBIN_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    // A directory makes cargo rescan it; a missing one makes the script rerun every build,
    // which is what we want until the cubins exist.
    println!("cargo:rerun-if-changed={}", root.display());

    let suffix = format!(".{ARCH}.cubin");
    let mut found: Vec<(String, String, PathBuf)> = Vec::new();
    if let Ok(ops) = fs::read_dir(&root) {
        for op_dir in ops.flatten().filter(|e| e.path().is_dir()) {
            let op = op_dir.file_name().to_string_lossy().into_owned();
            for file in fs::read_dir(op_dir.path()).into_iter().flatten().flatten() {
                let name = file.file_name().to_string_lossy().into_owned();
                if let Some(variant) = name.strip_suffix(&suffix) {
                    let path = fs::canonicalize(file.path()).unwrap();
                    println!("cargo:rerun-if-changed={}", path.display());
                    found.push((op.clone(), variant.to_string(), path));
                }
            }
        }
    }
    found.sort();

    let mut code = String::new();
    writeln!(code, "/// GPU architecture of the embedded cubins.").unwrap();
    writeln!(code, "pub const CUBIN_ARCH: &str = {ARCH:?};").unwrap();
    writeln!(code, "pub static CUBINS: &[(&str, &str, &[u8])] = &[").unwrap();
    for (op, variant, path) in &found {
        writeln!(code, "    ({op:?}, {variant:?}, include_bytes!({:?})),", path.display().to_string()).unwrap();
    }
    writeln!(code, "];").unwrap();
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("cubins.rs");
    fs::write(out, code).unwrap();
}
