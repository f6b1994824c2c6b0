#!/usr/bin/env python3
"""Print what a kernel does: memory accesses per view, mma shapes, loops.

    python3 examples/summarize_kernel.py [FILE]
"""
import sys
from pathlib import Path

import tileir_diff

DATA = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "data"
path = sys.argv[1] if len(sys.argv) > 1 else DATA / "mma_f16_f32acc.v13_4.tileirbc"

summary = tileir_diff.summarize(path)
for fn in summary["functions"]:
    print(f"{fn['name']}: {fn['num_ops']} ops, tile shapes {', '.join(fn['tile_shapes'])}")
    for view in fn["memory"]:
        print(f"  {view['text']}")
        for access in view["accesses"]:
            print(f"    {access['kind']:5s} {access['index']}  (op {access['op_id']})")
    for mma in fn["mma"]:
        print(f"  mma: {mma['m']}x{mma['k']} @ {mma['k']}x{mma['n']}, {mma['lhs_dtype']} -> {mma['acc_dtype']}")
    for loop in fn["loops"]:
        print(f"  loop: {loop['text']}")
