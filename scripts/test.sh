#!/usr/bin/env bash
# Runs every test on a fresh machine: installs what is needed, builds the cuTile Rust ports
# (emit-ir bytecode, tileiras cubins, the C ABI library), runs ruff and clippy, cargo test, exports
# the reference suite (bytecode and cubins), then pytest.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
# the linter first (configured in pyproject.toml; a second or two): a finding fails the run
python3 -m ruff check .
# the type checker (configured in pyproject.toml; ~25 s): a module off its to-fix list must check clean
python3 -m mypy
eval "$(scripts/setup_rust.sh)"
# clippy on the host side of the crate (C ABI, driver, launch: no cuTile dependency, ~15 s cold);
# `cargo clippy --release --all-targets -- -D warnings` (the kernels too, ~5 min cold) is clean as well
(cd rust_kernels && cargo clippy --locked --no-default-features --lib --target-dir target/clippy -- -D warnings)
rust_kernels/build_ports.sh
# build_ports.sh has just compiled every variant's cubins: cargo test checks those instead of
# running tileiras on every variant a second time.
export TILEIR_CUBIN_DIR="$PWD/build/rust"
(cd rust_kernels && cargo test --release --locked)
# the reference suite exported and compiled once (bytecode 13.3, sm_90 and sm_100 cubins;
# outputs newer than their kernels are kept): tests/suite/test_export.py (marked slow) checks
# these instead of compiling every variant again, and no test writes into build/.
python3 -m tileir_diff.cli suite export --no-progress | grep -v "^ok "
export TILEIR_REFERENCE_BUILD="$PWD/build/reference"
export TILEIR_FUZZ_EXAMPLES="${TILEIR_FUZZ_EXAMPLES:-1500}"
python3 -m pytest -q "$@"
