#!/usr/bin/env bash
# Stage one device call's carry: the reference suite's sm_90 cubins (part a), the Rust library and the
# ports' records (part b), and the wheels the device's Python lacks, as real files under .carry/NAME
# (gitignored). The working tree travels too (~29 MB); the device tool's limit is 64 MiB in all, so the
# parts are staged separately:
#
#   bash scripts/gpu/stage.sh NAME a [OP ...]     # ~17 MB: build/reference/<op>/*.sm_90.cubin + wheels
#   bash scripts/gpu/stage.sh NAME b [OP ...]     # ~15 MB more: build/rust/lib + build/rust/<op>/*.json
#
# then, through the device tool, carry [".carry/NAME"] and run
#   bash scripts/gpu/device_call.sh .carry/NAME a      (or b; see device_call.sh)
# Needs the suite built here (python3 -m tileir_diff.suite.command export; the Rust ports for part b).
set -euo pipefail
name=${1:?NAME}; part=${2:?part a or b}; shift 2; ops="$*"
cd "$(dirname "$0")/../.."
d=.carry/$name
want(){ [ -z "$ops" ] || [[ " $ops " == *" $1 "* ]]; }
case $part in
  a) rm -rf "$d"; mkdir -p "$d/build/reference" "$d/whl"
     n=0
     for f in build/reference/*/*.sm_90.cubin; do
       op=$(basename "$(dirname "$f")"); want "$op" || continue
       mkdir -p "$d/build/reference/$op"; cp "$f" "$d/build/reference/$op/"; n=$((n + 1))
     done
     [ "$n" -gt 0 ] || { echo "no sm_90 cubins under build/reference (export the suite first)" >&2; exit 1; }
     # always resolved (a cache made for an older pytest lacked pygments, which pytest 9 needs, and
     # the device's install failed); what .whl holds already is not fetched again
     pip download -q -d .whl pytest pytest-xdist hypothesis networkx tqdm
     cp .whl/*.whl "$d/whl/" ;;
  b) [ -d "$d/build/reference" ] || { echo "stage part a into $d first" >&2; exit 1; }
     [ -f build/rust/lib/libtileir_kernels.so ] || { echo "no build/rust/lib/libtileir_kernels.so (build the ABI library)" >&2; exit 1; }
     rm -rf "$d/build/rust"; mkdir -p "$d/build/rust/lib"
     cp build/rust/lib/libtileir_kernels.so "$d/build/rust/lib/"
     for f in build/rust/*/*.json; do
       op=$(basename "$(dirname "$f")"); [ "$op" = lib ] && continue; want "$op" || continue
       mkdir -p "$d/build/rust/$op"; cp "$f" "$d/build/rust/$op/"
     done ;;
  *) echo "part: a or b" >&2; exit 2 ;;
esac
du -sh "$d"
