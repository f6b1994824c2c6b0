#!/usr/bin/env bash
# Copies the cuTile Rust ports' bytecode (rust_kernels/build_ports.sh output) into the decoder
# oracle corpus: tests/corpus/rust/<op>.<variant>.tileirbc.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/../../../build/rust"
rm -f "$here"/*.tileirbc
for f in "$src"/*/*.tileirbc; do
  op="$(basename "$(dirname "$f")")"
  cp "$f" "$here/$op.$(basename "$f")"
done
ls "$here"/*.tileirbc | wc -l
