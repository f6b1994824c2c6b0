#!/usr/bin/env bash
# Builds everything the Rust ports ship, from a fresh checkout, without a GPU:
#   1. emit-ir (the compile-only cuTile Rust path)
#   2. build/rust/<op>/<variant>.tileirbc (+ .json sidecar) for every variant, and
#      .sm_90.cubin / .sm_100.cubin compiled by tileiras (one process per core: emit-ir --jobs)
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
# The IR below is what the crate's sources give, the cubins what tileiras makes of it: the stamps
# (written only after every variant is emitted) name those sources and that tileiras, so that
# tests/rust reuse this IR, and a second run (scripts/verify_suite.sh then scripts/test.sh) keeps
# it, instead of emitting it again. `rm build/rust/.emit-ir-sources` forces a new emission.
tileiras="${TILEIRAS:-${CUDA_TOOLKIT_PATH:-}/bin/tileiras}"
[ -x "$tileiras" ] || tileiras="$(command -v tileiras || echo tileiras)"
sources="$(bash "$repo/scripts/crate_sources.sh" "$here")"
tool="$(sha256sum < "$tileiras" 2>/dev/null || echo unknown) $tileiras"
if [ "$(cat "$out/.emit-ir-sources" 2>/dev/null)" = "$sources" ] && [ "$(cat "$out/.emit-ir-tileiras" 2>/dev/null)" = "$tool" ]; then
    echo "build_ports: $out is current (same crate sources and tileiras): emit-ir not run again"
    phase emit-ir true
else
    rm -f "$out/.emit-ir-sources" "$out/.emit-ir-tileiras"
    phase emit-ir ./target/release/emit-ir --all --out "$out" --cubin sm_90 --cubin sm_100
    printf '%s\n' "$sources" > "$out/.emit-ir-sources"
    printf '%s\n' "$tool" > "$out/.emit-ir-tileiras"
fi
# Own target dir: a default-feature build (cargo test) would overwrite target/release/*.so.
phase abi-lib cargo build --release --locked --lib --no-default-features --target-dir target/abi
mkdir -p "$out/lib"
cp target/abi/release/libtileir_kernels.so "$out/lib/libtileir_kernels.so"
echo "build_ports: $out/lib/libtileir_kernels.so ($(ls "$out"/*/*.sm_90.cubin | wc -l) sm_90 cubins embedded)"
