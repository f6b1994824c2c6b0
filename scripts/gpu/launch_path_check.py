#!/usr/bin/env python3
"""Is a port's slower device time its cubin or its launch path? (GPU; a diagnostic, not a benchmark.)

    python3 scripts/gpu/launch_path_check.py OP VARIANT 'SHAPE_JSON' [--reps 63]

bench_ports.py compares the reference cubin launched by tileir_diff.launch (side a) with the
Rust port launched through its C ABI (side b). Where the two cubins have identical SASS and the
port still measures slower, three sides in one process tell the cubin from the launch path:
A the reference cubin, B the port's cubin file launched by tileir_diff.launch on the same
arguments (its entry must take the reference's parameter layout: the ports keep it), C the
port through the C ABI. Each pair is timed both ways round (A/B and B/A, ...) with
bench_ports.Timer (L2 flush before each launch, CUPTI device time), and B's outputs are checked
bit for bit against A's. Prints the medians and ratios.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
_spec = importlib.util.spec_from_file_location("bench_ports", REPO / "scripts" / "gpu" / "bench_ports.py")
bp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bp)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("op")
    ap.add_argument("variant")
    ap.add_argument("shape", help="the configuration, as JSON ({\"T\": 1, ...})")
    ap.add_argument("--reps", type=int, default=63)
    args = ap.parse_args()
    import torch

    from tileir_diff import ports
    from tileir_diff.launch import CubinKernel, prepare_launch

    shape = json.loads(args.shape)
    for op, variant, function, _shapes in bp.configs({args.op}):
        if variant.name != args.variant:
            continue
        ref = bp._load_ref(op)
        stream = int(torch.cuda.current_stream().cuda_stream)
        py_inputs, rs_inputs = bp.twin_inputs(torch, ref.make_inputs, variant, shape)
        b_inputs, _ = bp.twin_inputs(torch, ref.make_inputs, variant, shape)
        rust_symbol = bp.rust_symbol_of(op.op, variant.name)
        ref_cubin = REPO / "build" / "reference" / op.op / f"{variant.name}.sm_90.cubin"
        port_cubin = REPO / "build" / "rust" / op.op / f"{variant.name}.sm_90.cubin"
        a = prepare_launch(variant, ref_cubin, py_inputs, stream=stream)
        b = prepare_launch(variant, CubinKernel(port_cubin, rust_symbol), b_inputs, stream=stream)
        timer = bp.Timer(torch, args.reps, 10)
        with ports.force_variant(op.op, variant.name):
            c = bp.c_abi_launcher(function, variant.raw, rs_inputs, torch.cuda.current_device(), stream)
            a(), b(), c()
            torch.cuda.synchronize()
            same = {p.name: bp.bitwise_equal(torch, py_inputs[p.name], b_inputs[p.name]) for p in variant.outputs}
            print(f"{op.op}/{variant.name} {json.dumps(shape, sort_keys=True)}; B's outputs bit-equal to A's: {same}")
            names = {"A": variant.symbol, "B": rust_symbol, "C": rust_symbol}
            fns = {"A": a, "B": b, "C": c}
            for x, y in (("A", "B"), ("B", "A"), ("A", "C"), ("C", "A"), ("B", "C"), ("A", "A")):
                got = timer.pair(fns[x], fns[y], {names[x], names[y]})
                ta, tb = got["a"]["cupti_median_us"], got["b"]["cupti_median_us"]
                print(f"  {x} then {y}: {x} {ta:8.3f} us  {y} {tb:8.3f} us  {y}/{x} {tb / ta:.3f}")
        return 0
    print(f"no variant {args.op}/{args.variant}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
