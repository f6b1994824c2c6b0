#!/usr/bin/env bash
# Installs what the tests and the main job need on a fresh machine (idempotent):
# the package with its tools (cuTile Python, tileiras, tileirdisasm, pytest, hypothesis),
# the Rust build prerequisites (libclang, CUDA header wheels) and, best effort, Debian's
# chromium for the HTML screenshot test.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --disable-pip-version-check -e '.[test]' 2>&1 | grep -v "Running pip as the 'root'" || true
bash scripts/setup_rust.sh >/dev/null
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  (apt-get install -y -qq chromium >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null 2>&1; }) \
    || echo "install: chromium unavailable; the HTML screenshot test will be skipped" >&2
fi
