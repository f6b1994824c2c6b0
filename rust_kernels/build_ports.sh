#!/usr/bin/env bash
# Builds everything the Rust ports ship, from a fresh checkout, without a GPU:
#   1. emit-ir (the compile-only cuTile Rust path)
#   2. build/rust/<op>/<variant>.tileirbc (+ .json sidecar) for every variant, and
#      .sm_90.cubin / .sm_100.cubin compiled by tileiras
#   3. the C ABI library with the sm_90 cubins embedded, built without the compiler
#      (--no-default-features), copied to build/rust/lib/libtileir_kernels.so
# Usage: rust_kernels/build_ports.sh   (takes ~7 min cold on 2 cores, ~1.5 min warm; prints
#        `phase NAME: N s` per step: cargo-build, emit-ir, abi-lib)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
eval "$("$repo/scripts/setup_rust.sh")"
# `phase NAME COMMAND...`: prints each step's seconds (and logs them for scripts/ci_budget.py)
source "$repo/scripts/phase_times.sh"
cd "$here"
out="$repo/build/rust"
# build.rs embeds the cubins of $TILEIR_CUBIN_DIR and reruns when its value changes: the value
# scripts/test.sh exports for cargo test and pytest, so that their cargo builds reuse these.
export TILEIR_CUBIN_DIR="$out"
phase cargo-build cargo build --release --locked --bin emit-ir
# The IR below is what the crate's sources give; the stamp (written only after every variant is
# emitted) names those sources, so that tests/rust reuse this IR instead of emitting it again.
rm -f "$out/.emit-ir-sources"
phase emit-ir ./target/release/emit-ir --all --out "$out" --cubin sm_90 --cubin sm_100
bash "$repo/scripts/crate_sources.sh" "$here" > "$out/.emit-ir-sources"
# Own target dir: a default-feature build (cargo test) would overwrite target/release/*.so.
phase abi-lib cargo build --release --locked --lib --no-default-features --target-dir target/abi
mkdir -p "$out/lib"
cp target/abi/release/libtileir_kernels.so "$out/lib/libtileir_kernels.so"
echo "build_ports: $out/lib/libtileir_kernels.so ($(ls "$out"/*/*.sm_90.cubin | wc -l) sm_90 cubins embedded)"
