#!/usr/bin/env bash
# scripts/test.sh with the full sets instead of CI's seeded samples (README "Set-up commands"):
#   fuzzing           TILEIR_FUZZ_EXAMPLES 1500 per property (CI: 300 for tests/fuzz, 1500 for tests/bytecode),
#                     TILEIR_FUZZ_CLI_CASES 40 (CI: 10), hypothesis seeded at random (CI: seed 0; printed)
#   mutation sample   TILEIR_MUTATION_SAMPLE 96 mutants per kind (CI: 24, invariances 20 per kind)
#   catalog mutations TILEIR_CATALOG_SEEDS 10 (CI: 3)
#   interpreter       TILEIR_INTERP_ALL_SHAPES=1: every test shape of analysis.json (CI: the smallest of each variant)
# Each can be set beforehand to another size. The time budget is reported, not enforced.
# Longer still: scripts/mutation_engine.py (every kernel and variant), scripts/fuzz_consumers.py (hours).
set -euo pipefail
cd "$(dirname "$0")/.."
export TILEIR_FUZZ_EXAMPLES="${TILEIR_FUZZ_EXAMPLES:-1500}"
export TILEIR_FUZZ_CLI_CASES="${TILEIR_FUZZ_CLI_CASES:-40}"
export TILEIR_MUTATION_SAMPLE="${TILEIR_MUTATION_SAMPLE:-96}"
export TILEIR_CATALOG_SEEDS="${TILEIR_CATALOG_SEEDS:-10}"
export TILEIR_INTERP_ALL_SHAPES="${TILEIR_INTERP_ALL_SHAPES:-1}"
export TILEIR_HYPOTHESIS_SEED="${TILEIR_HYPOTHESIS_SEED:-$RANDOM$RANDOM}"
echo "test_full: hypothesis seed $TILEIR_HYPOTHESIS_SEED (TILEIR_HYPOTHESIS_SEED=$TILEIR_HYPOTHESIS_SEED reruns it)"
unset TILEIR_CI_BUDGET
exec bash scripts/test.sh "$@"
