#!/usr/bin/env bash
# kce's device call (issue 30, cross_entropy): numerics + bench, ports bench, selection x2, GPU port numerics.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
rm -rf build && ln -s devrun/kce/build build
R=$OUT/r; mkdir -p $R
pack() { tar czf $OUT/results.tgz -C $OUT r; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv | tee $R/gpu.txt
t0=$(date +%s)
python3 scripts/gpu/run_reference.py --op cross_entropy --out $R/ref > $R/ref.log 2>&1; echo "ref rc=$? $(( $(date +%s)-t0 ))s"; tail -30 $R/ref.log; pack
python3 scripts/gpu/bench_selection.py --op cross_entropy --out $R/sel1 > $R/sel1.log 2>&1; echo "sel1 rc=$? $(( $(date +%s)-t0 ))s"; tail -5 $R/sel1.log; pack
python3 scripts/gpu/bench_ports.py --op cross_entropy --budget-s 60 --out $R/ports > $R/ports.log 2>&1; echo "ports rc=$? $(( $(date +%s)-t0 ))s"; tail -8 $R/ports.log; pack
TILEIR_PORTS_RESULTS=$R/ports_results.json timeout 60 python3 -m pytest -q -m gpu tests/rust/test_gpu_ports.py -k cross_entropy > $R/gpu_ports.log 2>&1; echo "gpu ports rc=$? $(( $(date +%s)-t0 ))s"; tail -4 $R/gpu_ports.log; pack
python3 scripts/gpu/bench_selection.py --op cross_entropy --out $R/sel2 > $R/sel2.log 2>&1; echo "sel2 rc=$? $(( $(date +%s)-t0 ))s"; tail -3 $R/sel2.log; pack
python3 - <<'PY'
import json
d=json.load(open("$OUT/r/ref/reference_results.json".replace("$OUT", __import__("os").environ["OUT"])))
print("copy GB/s", d["environment"].get("copy_bandwidth_gbps"), d["environment"].get("gpu"))
for b in d["bench"]:
    print(f'{b["variant"]:22s} {b["kernel_us"]:8.1f} us {b["pct_copy_bw"]:5.1f} % vs torch {b["speedup_vs_baseline"]:.2f}x (torch {b["baseline_us"]:.1f})')
print(d["summary"])
PY
