#!/usr/bin/env bash
# One device call of the whole-suite run (docs/results' "one run per claim"), in two parts that each fit
# the device tool's 10 minutes, over a carry staged by scripts/gpu/stage.sh:
#
#   part a: run_reference.py (numerics + time against torch/cuBLAS/SDPA) and bench_selection.py (pass 1)
#   part b: the ports' numerics through the C ABI (tests/rust/test_gpu_ports.py -m gpu), bench_ports.py,
#           bench_selection.py (pass 2, selection_repeat.json)
#
#   bash scripts/gpu/device_call.sh .carry/NAME a|b|ab|prof [OP ...]  (ab: both parts, for a few ops;
#                                                                    prof: profile_misses.py, any card)
#
# REQUIRE_CARD=H200: run nothing (exit 0, saying so) unless nvidia-smi names that card: a claim is one
# card's run, and the device tool may lend an H100 for an H200 request. TAG=x: the archive is
# results$TAG.tgz, so two invocations in one device call (e.g. a prof on any card, then the claims under
# REQUIRE_CARD) keep both.
#
# Everything lands in ONE archive, $OUT/results$TAG.tgz (the device tool returns at most 8 files of $OUT),
# laid out as scripts/gpu/merge_results.py reads a RUN folder (ref/, sel1/, sel2/, ports/, pytest/),
# with each step's log beside it, rewritten after each step. Here afterwards:
#   mkdir -p RUN && tar xzf <files_at>/results.tgz -C RUN && python3 scripts/gpu/merge_results.py RUN --op ...
# Each step has its own timeout (environment: REF_TIMEOUT, SEL_TIMEOUT, PYTEST_TIMEOUT, PORTS_TIMEOUT), so a
# slow step costs its own results only; phase times are printed.
set -uo pipefail
carry=${1:?carry folder}; part=${2:?part a, b or ab}; shift 2
t0=$(date +%s); ph(){ echo "== $1 at +$(( $(date +%s) - t0 ))s"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader
if [ -n "${REQUIRE_CARD:-}" ] && ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q "$REQUIRE_CARD"; then
  echo "not an $REQUIRE_CARD (REQUIRE_CARD): nothing run"; exit 0
fi
archive="${OUT:?}/results${TAG:-}.tgz"
# stage.sh packs each part (a.txz: the reference cubins; b.txz: the Rust library, records and cubins)
mkdir -p build && for t in "$carry"/[ab].txz; do [ -f "$t" ] && tar xJf "$t"; done
pip install -q --no-index --find-links "$carry/whl" pytest pytest-xdist hypothesis networkx tqdm 2>&1 | tail -1
# outside $OUT: only the archive goes back (the tool returns at most 8 files of $OUT)
R=$(mktemp -d)/run; mkdir -p "$R" "${OUT:?}"
ops=(); for o in "$@"; do ops+=(--op "$o"); done
k=""; [ $# -gt 0 ] && k=$(IFS='|'; echo "$*" | sed 's/|/ or /g')
# step NAME SECONDS CMD...: one timed step, its output in $R/NAME.log, its status and log tail printed
step(){
  local name=$1 limit=$2; shift 2
  ph "$name"; timeout "$limit" "$@" > "$R/$name.log" 2>&1
  echo "rc=$?"; tail -3 "$R/$name.log" | cut -c1-300
  # the archive after every step: a call the tool kills at its limit still returns the steps that finished
  tar czf "$archive" -C "$R" .
}
part_a(){
  step ref "${REF_TIMEOUT:-330}" python3 scripts/gpu/run_reference.py "${ops[@]}" --out "$R/ref"
  step sel1 "${SEL_TIMEOUT:-200}" python3 scripts/gpu/bench_selection.py "${ops[@]}" --out "$R/sel1"
}
part_b(){
  [ -d build/rust/lib ] || { echo "no build/rust in $carry: stage part b"; exit 2; }
  mkdir -p "$R/pytest"
  step pytest "${PYTEST_TIMEOUT:-150}" env TILEIR_PORTS_RESULTS="$R/pytest/ports_results.json" \
    python3 -m pytest -q -p no:cacheprovider tests/rust/test_gpu_ports.py -m gpu ${k:+-k "$k"}
  step ports "${PORTS_TIMEOUT:-270}" python3 scripts/gpu/bench_ports.py "${ops[@]}" --out "$R/ports"
  step sel2 "${SEL_TIMEOUT:-150}" python3 scripts/gpu/bench_selection.py "${ops[@]}" --out "$R/sel2"
}
case $part in
  a) part_a ;;
  b) part_b ;;
  # both in one call: for a few ops (a whole-suite part a and b take ~10 min each)
  ab) part_a; part_b ;;
  # Nsight Compute profiles of the ops' misses the SASS does not explain (merge_results --part prof)
  prof) step prof "${PROF_TIMEOUT:-150}" python3 scripts/gpu/profile_misses.py "${ops[@]}" --out "$R/prof" ;;
  *) echo "part: a, b, ab or prof" >&2; exit 2 ;;
esac
ph done
tar czf "$archive" -C "$R" . && ls -la "$OUT"
