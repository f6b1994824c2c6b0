#!/usr/bin/env bash
# Runs every test on a fresh machine: installs what is needed, runs ruff, mypy, rustfmt and clippy, builds the
# cuTile Rust ports (emit-ir bytecode, tileiras cubins, the C ABI library) while the reference suite
# is exported (bytecode and cubins) beside it, then cargo test and pytest (pytest-xdist, one worker
# per core). Everything is built once: cargo test, the pytest fixtures and the tests read these
# builds (README "Set-up commands").
#
# Where the time goes: each phase prints `phase NAME: N s (cpu M s)`, pytest the 30 slowest tests
# and the test seconds per tests/ folder; at the end scripts/ci_budget.py prints the phase table and
# checks it against .ci/budget.tsv: a phase past its budget fails the run when
# TILEIR_CI_BUDGET=enforce (.ci/run sets it), and is reported otherwise. The figures are kept in
# $TILEIR_CI_TIMES (default build/ci/: phases.tsv, tests.json).
#
# The sampled tests (mutation, fuzzing) run the samples stated in README; scripts/test_full.sh
# runs the full sets. Extra arguments go to pytest (`-n 0`: no worker processes).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
source scripts/phase_times.sh
times_dir="${TILEIR_CI_TIMES:-$repo/build/ci}"
mkdir -p "$times_dir"
export TILEIR_PHASE_LOG="$times_dir/phases.tsv" TILEIR_TEST_TIMES="$times_dir/tests.json"
: > "$TILEIR_PHASE_LOG"
rm -f "$TILEIR_TEST_TIMES"
run_start=$EPOCHREALTIME
budget_checked=0
# on a failure too: the phases so far, as a table
export_pid=""
# (a failed run stops the export beside it: the exporter, a child of the phase's subshell, first)
trap '[ -z "$export_pid" ] || kill $(cat /proc/"$export_pid"/task/*/children 2>/dev/null) "$export_pid" 2>/dev/null || true
      [ "$budget_checked" = 1 ] || python3 scripts/ci_budget.py --report-only "$TILEIR_PHASE_LOG" || true' EXIT

phase install bash scripts/install.sh
# the linter first (configured in pyproject.toml; a second or two): a finding fails the run
phase ruff python3 -m ruff check .
# the type checker (configured in pyproject.toml; ~25 s): a module off its to-fix list must check clean
phase mypy python3 -m mypy
eval "$(scripts/setup_rust.sh)"
# build.rs embeds the cubins of $TILEIR_CUBIN_DIR and reruns when its value changes: one value for
# build_ports.sh, cargo test and the pytest fixtures, so that none of them rebuilds the crate.
export TILEIR_CUBIN_DIR="$repo/build/rust"
# rustfmt over the whole crate (rust_kernels/rustfmt.toml; under a second): a diff fails the run
phase rustfmt cargo fmt --manifest-path rust_kernels/Cargo.toml --check
# clippy on the host side of the crate (C ABI, driver, launch: no cuTile dependency, ~15 s cold);
# `cargo clippy --release --all-targets -- -D warnings` (the kernels too, ~5 min cold) is clean as well.
# Its own target dir: check metadata is not a build's artifact, so nothing could be shared.
phase clippy cargo clippy --locked --manifest-path rust_kernels/Cargo.toml --no-default-features --lib \
    --target-dir rust_kernels/target/clippy -- -D warnings
# The reference suite exported and compiled once (bytecode 13.3, sm_90 and sm_100 cubins; outputs
# newer than their kernels are kept), beside the Rust build: cargo's last crates build alone, so the
# export takes the idle core; emit-ir, after it, runs one tileiras per core (--jobs). tests/suite/test_export.py
# (marked slow) checks these instead of compiling every variant again, and no test writes into build/.
export_log="$times_dir/export.log"
phase export bash -c 'exec python3 -m tileir_diff.cli suite export --no-progress > "$1" 2>&1' _ "$export_log" &
export_pid=$!
# cargo-build, emit-ir (every port's bytecode and cubins) and abi-lib, each a phase
rust_kernels/build_ports.sh
# build_ports.sh has just compiled every variant's cubins: cargo test checks those instead of
# running tileiras on every variant a second time (same features, profile and $TILEIR_CUBIN_DIR:
# only the crate's test targets and the library with the cubins now embedded are compiled).
phase cargo-test cargo test --release --locked --manifest-path rust_kernels/Cargo.toml
export_status=0
wait "$export_pid" || export_status=$?
export_pid=""
grep -v "^ok " "$export_log" || true
[ "$export_status" = 0 ] || { echo "test.sh: the reference export failed (status $export_status)" >&2; exit "$export_status"; }
export TILEIR_REFERENCE_BUILD="$repo/build/reference"
# Parallel: one worker per core (TILEIR_TEST_WORKERS); --dist loadfile keeps a test file on one
# worker, so a module fixture is built once; the files with slow tests go first (tests/conftest.py).
# The property tests' examples are seeded (TILEIR_HYPOTHESIS_SEED): a CI run is reproducible.
phase pytest python3 -m pytest -q -n "${TILEIR_TEST_WORKERS:-auto}" --dist loadfile --durations=30 \
    --hypothesis-seed="${TILEIR_HYPOTHESIS_SEED:-0}" "$@"
printf 'total\t%s\t\t0\n' "$(awk -v a="$run_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')" >> "$TILEIR_PHASE_LOG"
budget_checked=1
python3 scripts/ci_budget.py "$TILEIR_PHASE_LOG"
