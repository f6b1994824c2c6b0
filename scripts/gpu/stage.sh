#!/usr/bin/env bash
# Stage one device call's carry: the reference suite's sm_90 cubins (part a), the Rust library, the
# ports' records and their sm_90 cubins (part b; the cubins for bench_ports' module check), and the
# wheels the device's Python lacks, under .carry/NAME (gitignored). The working tree travels too
# (~32 MB) and the device tool's limit is 64 MiB in all, so each part is packed with xz (cubins and
# the library shrink 6-10x): a.txz ~1.5 MB, b.txz ~3 MB for the whole suite, plus ~5 MB of wheels;
# scripts/gpu/device_call.sh unpacks them.
#
#   bash scripts/gpu/stage.sh NAME a [OP ...]     # build/reference/<op>/*.sm_90.cubin + wheels
#   bash scripts/gpu/stage.sh NAME b [OP ...]     # build/rust/lib + build/rust/<op>/{*.json,*.sm_90.cubin}
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
     # for the device's Python (3.12: hypothesis ships binary wheels per Python version)
     pip download -q -d .whl --python-version "${DEVICE_PYTHON:-3.12}" --only-binary=:all: \
       --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 pytest pytest-xdist hypothesis networkx tqdm
     cp .whl/*.whl "$d/whl/"
     tar cJf "$d/a.txz" -C "$d" build && rm -rf "$d/build" ;;
  b) [ -f "$d/a.txz" ] || { echo "stage part a into $d first" >&2; exit 1; }
     [ -f build/rust/lib/libtileir_kernels.so ] || { echo "no build/rust/lib/libtileir_kernels.so (build the ABI library)" >&2; exit 1; }
     # the library embeds the sm_90 cubins when it is built (rust_kernels/build.rs): one built before
     # the last emit-ir launches the old kernels through the C ABI while the module check times the
     # new cubin files (session 26: matmul's ports read 1.04-1.23x for that)
     python3 - "$ops" <<'PY' || exit 1
import glob, sys
want = sys.argv[1].split()
lib = open("build/rust/lib/libtileir_kernels.so", "rb").read()
stale = [f for f in sorted(glob.glob("build/rust/*/*.sm_90.cubin"))
         if (not want or f.split("/")[2] in want) and open(f, "rb").read() not in lib]
if stale:
    sys.exit(f"build/rust/lib/libtileir_kernels.so does not embed {len(stale)} cubin(s) of build/rust "
             f"(e.g. {stale[0]}): rebuild the ABI library after emit-ir")
PY
     rm -rf "$d/build"; mkdir -p "$d/build/rust/lib"
     cp build/rust/lib/libtileir_kernels.so "$d/build/rust/lib/"
     for f in build/rust/*/*.json build/rust/*/*.sm_90.cubin; do
       op=$(basename "$(dirname "$f")"); [ "$op" = lib ] && continue; want "$op" || continue
       mkdir -p "$d/build/rust/$op"; cp "$f" "$d/build/rust/$op/"
     done
     tar cJf "$d/b.txz" -C "$d" build && rm -rf "$d/build" ;;
  *) echo "part: a or b" >&2; exit 2 ;;
esac
du -sh "$d"
