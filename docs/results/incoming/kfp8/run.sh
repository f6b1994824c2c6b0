#!/usr/bin/env bash
# kfp8's device call (issue 30, fp8 GEMM), from the repository root with carry ["devrun/kfp8"]:
# 1. the ports' GPU numerics of the 10 fp8 matmul variants (the 4 matmul_fp8_w8_c2 ones new),
# 2. run_reference over all of matmul (28 variants, for docs/results),
# 3. the tuning candidates beside the committed w8 baseline (a trimmed reference root, devrun/kfp8/tune),
# 4. the interpreter fixtures of matmul (CPU torch; the 4 new variants have none),
# 5. bench_ports over matmul (budget 40 s).
# Everything lands in $OUT/results.tgz, re-packed after each step.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
rm -rf build && ln -s devrun/kfp8/build build
R=$OUT/r; mkdir -p $R
pack() { tar czf $OUT/results.tgz -C $OUT r; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm --format=csv | tee $R/gpu.txt
t0=$(date +%s)
summ() {  # summ FILE: the run's summary, what did not pass, one line per bench row
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
TILEIR_PORTS_RESULTS=$R/ports_results.json timeout 50 python3 -m pytest -q -m gpu tests/rust/test_gpu_ports.py \
    -k "matmul-fp8e4m3" -p no:cacheprovider > $R/gpu_ports.log 2>&1; echo "gpu ports rc=$? $(( $(date +%s)-t0 ))s"; tail -4 $R/gpu_ports.log; pack
python3 scripts/gpu/run_reference.py --op matmul --op-timeout 70 --out $R/ref > $R/ref.log 2>&1; echo "ref rc=$? $(( $(date +%s)-t0 ))s"; tail -3 $R/ref.log
[ -f $R/ref/reference_results.json ] && summ $R/ref/reference_results.json | tee $R/ref_summary.txt | grep -v "^ *\(f16\|bf16\|tf32\)_"; pack
python3 scripts/gpu/run_reference.py --op matmul --reference-root devrun/kfp8/tune --build-root devrun/kfp8/build/tune \
    --op-timeout 60 --out $R/tune > $R/tune.log 2>&1; echo "tune rc=$? $(( $(date +%s)-t0 ))s"; tail -3 $R/tune.log
[ -f $R/tune/reference_results.json ] && summ $R/tune/reference_results.json | tee $R/tune_summary.txt; pack
FX=$(mktemp -d) && cp -r tests/interp/fixtures/. $FX/ && CUDA_VISIBLE_DEVICES= timeout 40 python3 scripts/make_interp_fixtures.py \
    --ops matmul --out $FX > $R/fixtures.log 2>&1; echo "fixtures rc=$? $(( $(date +%s)-t0 ))s"; tail -2 $R/fixtures.log
mkdir -p $R/fixtures && cp $FX/manifest.json $FX/matmul.* $R/fixtures/; pack
python3 scripts/gpu/bench_ports.py --op matmul --budget-s 40 --out $R/ports > $R/ports.log 2>&1; echo "ports rc=$? $(( $(date +%s)-t0 ))s"; tail -4 $R/ports.log; pack
echo "total $(( $(date +%s)-t0 ))s"
