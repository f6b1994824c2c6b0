#!/usr/bin/env bash
# The main job: verify the bundled suite and write the report.
#   1. export every cuTile Python reference variant to bytecode 13.3 and sm_90/sm_100 cubins
#   2. build the cuTile Rust ports (emit-ir bytecode, cubins, C ABI library)
#   3. compare every port's IR with its reference IR (tileir-diff), write docs/PORTS.md and one
#      HTML + JSON report per variant under build/report/
# Exit status 0 when every ported variant passes the IR comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
eval "$(scripts/setup_rust.sh)"
python3 -m tileir_diff.suite.command export
rust_kernels/build_ports.sh
mkdir -p build/report
status=0
# also writes build/report/index.html and build/report/status.json
tileir-diff suite status --markdown docs/PORTS.md --report-dir build/report || status=$?
echo
echo "port table: docs/PORTS.md and build/report/index.html; per-variant reports: build/report/<op>/<variant>.html; JSON: build/report/status.json"
echo "GPU results (H200): docs/results/reference_results.md, docs/results/ports_results.md"
exit "$status"
