#!/usr/bin/env bash
# Runs every test: installs the Python package with its tools (cuTile Python, tileiras,
# tileirdisasm), the Rust toolchain pieces, builds the Rust crate, then pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
if [ -f rust_kernels/Cargo.toml ] && [ -f scripts/rust_env.sh ]; then
  # shellcheck disable=SC1091
  source scripts/rust_env.sh
  (cd rust_kernels && cargo test --release --locked -j 2)
fi
export TILEIR_FUZZ_EXAMPLES="${TILEIR_FUZZ_EXAMPLES:-1500}"
python3 -m pytest -q "$@"
