#!/usr/bin/env bash
# Builds everything the Rust ports ship, from a fresh checkout, without a GPU:
#   1. emit-ir (the compile-only cuTile Rust path)
#   2. build/rust/<op>/<variant>.tileirbc (+ .json sidecar) for every variant, and
#      .sm_90.cubin / .sm_100.cubin compiled by tileiras
#   3. the C ABI library with the sm_90 cubins embedded, built without the compiler
#      (--no-default-features), copied to build/rust/lib/libtileir_kernels.so
# Usage: rust_kernels/build_ports.sh   (takes ~7 min cold on 2 cores, ~1.5 min warm)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
eval "$("$repo/scripts/setup_rust.sh")"
cd "$here"
out="$repo/build/rust"
cargo build --release --locked --bin emit-ir
./target/release/emit-ir --all --out "$out" --cubin sm_90 --cubin sm_100
# Own target dir: a default-feature build (cargo test) would overwrite target/release/*.so.
cargo build --release --locked --lib --no-default-features --target-dir target/abi
mkdir -p "$out/lib"
cp target/abi/release/libtileir_kernels.so "$out/lib/libtileir_kernels.so"
echo "build_ports: $out/lib/libtileir_kernels.so ($(ls "$out"/*/*.sm_90.cubin | wc -l) sm_90 cubins embedded)"
