#!/usr/bin/env bash
# kfp8's device call (issue 30, fp8 GEMM): 1. the ports' GPU numerics of the fp8 matmul variants,
# 2. tuning candidates beside the committed fp8 variants (a trimmed reference root, devrun/kfp8/tune:
# 23 fp8 variants, cluster/tile candidates), 3. run_reference over all of matmul (for docs/results),
# 4. bench_ports over matmul (budget 30 s).
# Run from the repository root with carry ["devrun/kfp8"]; everything lands in $OUT/results.tgz,
# re-packed after each step.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
rm -rf build && ln -s devrun/kfp8/build build
R=$OUT/r; mkdir -p $R
pack() { tar czf $OUT/results.tgz -C $OUT r; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm --format=csv | tee $R/gpu.txt
t0=$(date +%s)
summ() {  # summ FILE: one line per bench row
python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("GPU", d["environment"].get("gpu"), "summary", d["summary"])
bad = [(r["variant"], r["shape_key"], r["status"]) for r in d["results"] if r["status"] != "pass"]
print("not passing:", bad[:20])
for b in d["bench"]:
    if "kernel_us" not in b:
        print(f'{b["variant"]:36s} bench error {b.get("error", "")[:120]}')
        continue
    print(f'{b["variant"]:36s} {b["kernel_us"]:9.1f} us {b.get("tflops") or 0:7.1f} TF/s  '
          f'vs torch {b.get("speedup_vs_baseline") or 0:.3f}x (torch {b.get("baseline_us") or 0:.1f} us)')
PY
}
TILEIR_PORTS_RESULTS=$R/ports_results.json timeout 60 python3 -m pytest -q -m gpu tests/rust/test_gpu_ports.py \
    -k "matmul-fp8e4m3" -p no:cacheprovider > $R/gpu_ports.log 2>&1; echo "gpu ports rc=$? $(( $(date +%s)-t0 ))s"; tail -4 $R/gpu_ports.log; pack
python3 scripts/gpu/run_reference.py --op matmul --reference-root devrun/kfp8/tune --build-root devrun/kfp8/build/tune \
    --op-timeout 80 --out $R/tune > $R/tune.log 2>&1; echo "tune rc=$? $(( $(date +%s)-t0 ))s"; tail -5 $R/tune.log
[ -f $R/tune/reference_results.json ] && summ $R/tune/reference_results.json | tee $R/tune_summary.txt; pack
python3 scripts/gpu/run_reference.py --op matmul --op-timeout 60 --out $R/ref > $R/ref.log 2>&1; echo "ref rc=$? $(( $(date +%s)-t0 ))s"; tail -5 $R/ref.log
[ -f $R/ref/reference_results.json ] && summ $R/ref/reference_results.json | tee $R/ref_summary.txt; pack
python3 scripts/gpu/bench_ports.py --op matmul --budget-s 30 --out $R/ports > $R/ports.log 2>&1; echo "ports rc=$? $(( $(date +%s)-t0 ))s"; tail -8 $R/ports.log; pack
echo "total $(( $(date +%s)-t0 ))s"
