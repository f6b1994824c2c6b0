#!/usr/bin/env bash
# Stages kfp8's device call as real files under devrun/kfp8 (run from the repository root).
# Sources: $KFP8_BUILD/reference/matmul and $KFP8_BUILD/rust/matmul (default build/, the shared
# build, once it has the matmul_fp8_w8_c2 variants: `python3 -m tileir_diff.suite.command export
# --op matmul` and `rust_kernels/target/release/emit-ir --op matmul --out build/rust --cubin sm_90
# --cubin sm_100`), and the ABI library $KFP8_LIB (default build/rust/lib/libtileir_kernels.so,
# built with those cubins embedded: rust_kernels/build_ports.sh). Needs tileiras for the tuning
# candidates (sm_90 only; about 20 s on 2 cores).
set -euo pipefail
here=docs/results/incoming/kfp8
B="${KFP8_BUILD:-build}"
LIB="${KFP8_LIB:-build/rust/lib/libtileir_kernels.so}"
D=devrun/kfp8
python3 - "$B" "$LIB" <<'PY'
import ctypes, json, sys
from pathlib import Path
b, lib = Path(sys.argv[1]), ctypes.CDLL(sys.argv[2])
names = [v["name"] for v in json.loads(Path("reference/matmul/analysis.json").read_text())["variants"]]
missing = [n for n in names if not (b / "reference/matmul" / f"{n}.sm_90.cubin").is_file()
           or not (b / "rust/matmul" / f"{n}.sm_90.cubin").is_file()
           or not lib.tileir_kernels_has_kernel_image(b"matmul", n.encode())]
sys.exit(f"stage.sh: not built for {missing}" if missing else 0)
PY
rm -rf "$D" && mkdir -p "$D/build/reference/matmul" "$D/build/rust/matmul" "$D/build/rust/lib" "$D/build/tune/matmul"
grep -qx '/devrun/' "$(git rev-parse --git-path info/exclude)" || echo '/devrun/' >> "$(git rev-parse --git-path info/exclude)"
cp "$B"/reference/matmul/*.sm_90.cubin "$D/build/reference/matmul/"
cp "$B"/rust/matmul/*.json "$B"/rust/matmul/*.sm_90.cubin "$D/build/rust/matmul/"
cp "$LIB" "$D/build/rust/lib/libtileir_kernels.so"
cp "$here/run.sh" "$here/merge.py" "$here/README.md" "$D/"
python3 "$here/tune_root.py" > /dev/null
args=()
for n in $(python3 -c "import json; print(' '.join(v['name'] for v in json.load(open('$D/tune/matmul/analysis.json'))['variants']))"); do
    if [ -f "$B/reference/matmul/$n.sm_90.cubin" ]; then cp "$B/reference/matmul/$n.sm_90.cubin" "$D/build/tune/matmul/"
    else args+=(--variant "$n"); fi
done
python3 -m tileir_diff.suite.command export --reference-root "$D/tune" --build-root "$D/build/tune" --op matmul \
    --arch sm_90 "${args[@]}"
rm -f "$D"/build/tune/matmul/*.tileirbc
echo "staged $D: $(find "$D" -name '*.cubin' | wc -l) cubins, $(du -sh "$D" | cut -f1)"
