#!/usr/bin/env bash
# Render an HTML diff report in headless Chromium and save a PNG screenshot.
#
#   scripts/screenshot_report.sh REPORT.html OUT.png [WIDTHxHEIGHT]
#   scripts/screenshot_report.sh --demo OUT.png      # diff two corpus kernels, then shoot
#
# Installs Debian's `chromium` when it is missing (needs root and apt). Network-free flags: the
# report is standalone (inline CSS/JS), so Chromium must not fetch anything.
set -euo pipefail

usage() { echo "usage: $0 REPORT.html|--demo OUT.png [WIDTHxHEIGHT]" >&2; exit 2; }
[ $# -ge 2 ] || usage
report=$1; out=$2; size=${3:-1400x1000}
width=${size%x*}; height=${size#*x}
here=$(cd "$(dirname "$0")/.." && pwd)

find_chromium() { command -v chromium || command -v chromium-browser || command -v google-chrome || true; }
browser=$(find_chromium)
if [ -z "$browser" ]; then
    echo "chromium not found; installing it with apt-get" >&2
    apt-get install -y chromium >/dev/null || { apt-get update >/dev/null && apt-get install -y chromium >/dev/null; }
    browser=$(find_chromium)
fi
[ -n "$browser" ] || { echo "could not install chromium" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$report" = "--demo" ]; then
    report="$tmp/demo.html"
    (cd "$here" && python3 scripts/demo_report.py "$report")
fi
[ -f "$report" ] || { echo "$report: no such file" >&2; exit 2; }
abs=$(cd "$(dirname "$report")" && pwd)/$(basename "$report")

"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
    --user-data-dir="$tmp/profile" --window-size="$width,$height" \
    --screenshot="$out" "file://$abs" >"$tmp/chromium.log" 2>&1 || {
        cat "$tmp/chromium.log" >&2; exit 1; }
[ -s "$out" ] || { echo "chromium wrote no screenshot" >&2; cat "$tmp/chromium.log" >&2; exit 1; }
echo "$out"
