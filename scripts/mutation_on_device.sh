#!/usr/bin/env bash
# The full mutation + invariance run on a many-core machine without a package registry (the
# device machine: 16 cores, ~6 min instead of ~1-2 h on 2 cores).
#
#   bash scripts/mutation_on_device.sh pack        # here: stage build/device_tools, refresh the reference cache
#   # there (device tool, carry ["build/device_tools", "build/mutation/reference"], ~45 MiB with the tree):
#   bash scripts/mutation_on_device.sh run "$OUT"  # writes $OUT/full.json.gz and $OUT/log.txt
#   # here again: the tables and, for each false-same key, a verbose repro
#   PYTHONPATH=. python3 scripts/mutation_engine.py --from-json .../full.json.gz
#
# What travels: z3 (the solver's Python package and libz3, xz-compressed), the tileirdisasm
# binary (validity oracle), and the exported reference suite; numpy and networkx are on the
# device image. Extra engine options follow the subcommand (e.g. --budget 2000).
set -euo pipefail
cd "$(dirname "$0")/.."
cmd=${1:-}; shift || true
case "$cmd" in
  pack)
    tools=build/device_tools
    rm -rf "$tools" && mkdir -p "$tools"
    z3dir=$(python3 -c 'import os, z3; print(os.path.dirname(z3.__file__))')
    stage=$(mktemp -d)
    cp -a "$z3dir" "$stage/z3"
    # one copy of the library (z3core loads libz3.so.<ver> or libz3.so), no headers or caches
    find "$stage/z3/lib" -name 'libz3.so.*' -delete
    rm -rf "$stage/z3/include" "$stage/z3/__pycache__"
    tar -C "$stage" -cJf "$tools/z3.tar.xz" z3
    rm -rf "$stage"
    disasm=$(PYTHONPATH=. python3 -c 'from tileir_diff.tools import find_tool; print(find_tool("tileirdisasm") or "")')
    [ -n "$disasm" ] || { echo "tileirdisasm not found (pip install nvidia-cuda-tileiras)" >&2; exit 1; }
    cp "$disasm" "$tools/tileirdisasm"
    # the reference suite as it is now (the engine exports it only into an empty cache)
    rm -rf build/mutation/reference
    PYTHONPATH=. python3 -c 'from tests.mutation.engine import export_reference; print(export_reference(), "reference variants exported")'
    du -sh "$tools" build/mutation/reference
    ;;
  run)
    out=${1:?usage: run OUTDIR [engine options]}; shift
    site=$(mktemp -d)
    tar -C "$site" -xJf build/device_tools/z3.tar.xz
    chmod +x build/device_tools/tileirdisasm
    export PYTHONPATH="$site:$PWD" TILEIRDISASM="$PWD/build/device_tools/tileirdisasm"
    python3 -c 'import z3, networkx, numpy; print("z3", z3.get_version_string(), "networkx", networkx.__version__, "numpy", numpy.__version__)'
    echo "cores: $(nproc)"
    set +e
    # each worker's memory limit: three quarters of the machine's memory shared by the workers (the
    # default 8,000 MB times 16 cores would be all of a 128 GB machine's)
    mem_mb=$(awk -v n="$(nproc)" '/MemTotal/ {print int($2 / 1024 * 3 / 4 / n)}' /proc/meminfo)
    python3 scripts/mutation_engine.py --budget 14000 --inv-budget 5600 --jobs "$(nproc)" --checkpoint 2000 \
        --worker-mem-mb "$mem_mb" --json "$out/full.json" "$@" > "$out/log.txt" 2>&1
    rc=$?
    set -e
    gzip -9f "$out/full.json" || true
    tail -n 20 "$out/log.txt"
    exit $rc
    ;;
  *)
    echo "usage: $0 pack | run OUTDIR [engine options]" >&2; exit 2 ;;
esac
