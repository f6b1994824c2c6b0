#!/usr/bin/env bash
# Installs what the tests and the main job need on a fresh machine (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --disable-pip-version-check -e '.[test]' 2>&1 | grep -v "Running pip as the 'root'" || true
if [ -f scripts/setup_rust.sh ]; then
  bash scripts/setup_rust.sh
fi
