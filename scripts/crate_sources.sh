#!/usr/bin/env bash
# Prints what the IR emit-ir writes depends on: the crate's folder (the IR names its source
# files) and the sha256 of every source, manifest and lock file, one `HASH  PATH` line each in
# byte order. rust_kernels/build_ports.sh stores it beside the IR it emits (build/rust/.emit-ir-sources);
# tests/rust/conftest.py computes the same text and reuses that IR only when the two agree.
# Usage: scripts/crate_sources.sh CRATE_DIR
set -euo pipefail
cd "$1"
echo "crate $(pwd -P)"
find src build.rs Cargo.toml Cargo.lock -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
