#!/usr/bin/env bash
# Stages kfp8's device call as real files under devrun/kfp8 (run from the repository root, after the
# shared build: build/reference/matmul and build/rust with its lib). Needs tileiras (the tuning
# candidates are compiled here, sm_90 only; about 20 s on 2 cores).
set -euo pipefail
here=docs/results/incoming/kfp8
D=devrun/kfp8
rm -rf "$D" && mkdir -p "$D/build/reference/matmul" "$D/build/rust/matmul" "$D/build/rust/lib" "$D/build/tune/matmul"
grep -qx '/devrun/' "$(git rev-parse --git-path info/exclude)" || echo '/devrun/' >> "$(git rev-parse --git-path info/exclude)"
cp build/reference/matmul/*.sm_90.cubin "$D/build/reference/matmul/"
cp build/rust/matmul/*.json build/rust/matmul/*.sm_90.cubin "$D/build/rust/matmul/"
cp build/rust/lib/libtileir_kernels.so "$D/build/rust/lib/"
cp "$here/run.sh" "$here/merge.py" "$here/README.md" "$D/"
python3 "$here/tune_root.py" > /dev/null
args=()
for n in $(python3 -c "import json; print(' '.join(v['name'] for v in json.load(open('$D/tune/matmul/analysis.json'))['variants']))"); do
    if [ -f "build/reference/matmul/$n.sm_90.cubin" ]; then cp "build/reference/matmul/$n.sm_90.cubin" "$D/build/tune/matmul/"
    else args+=(--variant "$n"); fi
done
python3 -m tileir_diff.suite.command export --reference-root "$D/tune" --build-root "$D/build/tune" --op matmul \
    --arch sm_90 "${args[@]}"
rm -f "$D"/build/tune/matmul/*.tileirbc
echo "staged $D: $(find "$D" -name '*.cubin' | wc -l) cubins, $(du -sh "$D" | cut -f1)"
