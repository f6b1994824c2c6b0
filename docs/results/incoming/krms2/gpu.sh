#!/bin/bash
# krms2's device call: rms_norm reference numerics + bench (with uncommitted experiments), selection
# grid twice, ports bench, GPU port numerics. Each step's outputs are appended to $OUT/results.tar.
set -u
export PYTHONUNBUFFERED=1
D=devrun/krms2
rm -rf build && ln -s $D/build build
python3 -c "import pytest" 2>/dev/null || { python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site $D/whl/*.whl && export PYTHONPATH=/tmp/site; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
W=/tmp/w; mkdir -p $W/ref $W/ports $W/sel1 $W/sel2
t0=$(date +%s)
step() {  # step NAME: append $W/NAME* to the tar, report
    (cd $W && tar -rf $OUT/results.tar $1 $1.log 2>/dev/null)
}
mkdir -p $W/fixtures && cp tests/interp/fixtures/manifest.json $W/fixtures/ && timeout 30 python3 scripts/make_interp_fixtures.py --ops rms_norm --out $W/fixtures > $W/fixtures.log 2>&1; echo "fixtures rc=$? $(( $(date +%s)-t0 ))s"; tail -1 $W/fixtures.log; step fixtures
timeout 65 python3 scripts/gpu/run_reference.py --op rms_norm --out $W/ref --reference-root $D/xref > $W/ref.log 2>&1; echo "ref rc=$? $(( $(date +%s)-t0 ))s"; tail -3 $W/ref.log; step ref
timeout 35 python3 scripts/gpu/bench_selection.py --op rms_norm --out $W/sel1 > $W/sel1.log 2>&1; echo "sel1 rc=$? $(( $(date +%s)-t0 ))s"; tail -1 $W/sel1.log; step sel1
timeout 55 python3 scripts/gpu/bench_ports.py --op rms_norm --out $W/ports --reps 12 --budget-s 40 > $W/ports.log 2>&1; echo "ports rc=$? $(( $(date +%s)-t0 ))s"; tail -3 $W/ports.log; step ports
timeout 35 python3 scripts/gpu/bench_selection.py --op rms_norm --out $W/sel2 > $W/sel2.log 2>&1; echo "sel2 rc=$? $(( $(date +%s)-t0 ))s"; tail -1 $W/sel2.log; step sel2
mkdir -p $W/pytest; TILEIR_PORTS_RESULTS=$W/pytest/ports_results.json timeout 30 python3 -m pytest -m gpu tests/rust/test_gpu_ports.py -k rms_norm -q -p no:cacheprovider > $W/pytest.log 2>&1; echo "pytest rc=$? $(( $(date +%s)-t0 ))s"; tail -3 $W/pytest.log; step pytest
ls -la $OUT
