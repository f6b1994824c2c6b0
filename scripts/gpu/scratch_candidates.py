#!/usr/bin/env python3
"""Candidate variants in a scratch reference root, to be timed on the device before any is adopted.

    python3 scripts/gpu/scratch_candidates.py OUT [--only OP ...] [--no-export]

For each op of ``CANDIDATES``: copies reference/<op> to OUT/reference/<op>, keeps the variants
named as baselines (what the launcher picks today), adds each candidate as a copy of a base
variant with other constants and/or other compiler hints (a twin ``ct.kernel(function, **options)``
of the base kernel with the hints laid over its options, appended to the scratch kernel.py) and/or
other variant fields (e.g. bench_shape, or a kernel of scripts/gpu/candidate_kernels/<op>.py, whose
source is appended to the scratch kernel.py: a candidate with a new body), exports them to bytecode and sm_90
cubins with tileiras, and prints each cubin's registers, shared memory, spills and wgmma count
(cuobjdump). Nothing under reference/ changes. On the device (OUT inside the checkout, e.g.
.carry/candidates, ~3 MB, named in the device tool's carry), every candidate is timed
against its baseline and torch in the same run:

    python3 scripts/gpu/run_reference.py --reference-root OUT/reference \\
        --build-root OUT/build/reference --op OP ... --out "$OUT"

A winner is then made a real variant (kernel.py, analysis.json, the Rust port, the selection
tables) and verified like every other.
"""
from __future__ import annotations

import argparse
import copy
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

#: op -> (baselines kept, candidates: (name, base variant, constants changed, hints[, variant
#: fields laid over the base's, e.g. {"bench_shape": {"S": 8}}])).
#: Sessions 22-24 (issue 30; docs/results/tuning.md, "The candidates measured (session 23)", "The
#: combine: 255 registers" and "Persistent and prefetching grids" (session 24): every one below
#: was timed once: matmul, bmm, layer_norm, split-K on the H100 (session 23), the flash_decode
#: combines on the H100 and gelu and softmax on the H200 (session 24)):
CANDIDATES = {
    # flash_decode (the partials' hints and tiles were timed in session 23): the combine, 26.8 us for
    # 4.5 MB at the f16 D64 bench shape, 2,048 blocks of one 4 KB tile each at 255 registers (no
    # occupancy hint: two blocks an SM), latency-bound: more blocks an SM (occupancy hints: 26-32
    # registers), and/or several heads a block (candidate_kernels/flash_decode.py)
    "flash_decode": (
        ["combine_bf16_d128", "combine_f16_d64"],
        [(f"x_combine_{dt}_h{h}" + (f"_o{o}" if o else ""), f"combine_{dt}", {"HEADS": h}, {"occupancy": o} if o else {},
          {"kernel": "flash_decode_combine_heads", "grid": ["B * cdiv(Hq, HEADS)", 1, 1]})
         for dt in ("f16_d64", "bf16_d128") for h, o in ((2, 0), (4, 0), (8, 0), (2, 8), (4, 8), (4, 4), (8, 4))]
        + [(f"x_combine_{dt}_o{o}", f"combine_{dt}", {}, {"occupancy": o})
           for dt in ("f16_d64", "bf16_d128") for o in (4, 8, 16, 32)]),
    # softmax 16-bit rows of 1024 at 79.5 / 81.9 / 83.9 % of copy bandwidth for 1 / 2 / 4 rows a block
    # (session 23: every rows / occupancy mix timed, none faster). Session 24: a persistent grid of
    # k blocks an SM whose blocks load the next row tile before reducing this one
    # (candidate_kernels/softmax.py), at the launched occupancy 8 and at 4
    "softmax": (
        ["f16_a8_fast_m4_n1024", "bf16_a8_fast_m4_n1024"],
        [(f"x_{dt}_prefetch_m4_p{k}_o{o}", f"{dt}_a8_fast_m4_n1024", {"NUM_BLOCKS": 132 * k}, {"occupancy": o},
          {"kernel": "softmax_row_fast_prefetch", "grid": ["min(NUM_BLOCKS, cdiv(M, TILE_M))", 1, 1]})
         for dt in ("f16", "bf16") for k, o in ((4, 4), (8, 4), (8, 8))]),
    # layer_norm forward 16-bit rows of 8192 at 83.4 / 81.3 % of copy bandwidth (occupancy 4)
    # Session 25: f32 rows of 4096 at 84.2 % (96.9 % of a same-size copy; H200), 8-byte rows at
    # occupancy 4: other hints and 2 rows a block (the f32_ names below)
    "layer_norm": (
        ["fwd_f16_a8_m1_n8192", "fwd_bf16_a8_m1_n8192", "fwd_f32_a2_fast_m1_n4096"],
        [(f"x_{dt}_{name}", base.format(dt=dt), consts, hints)
         for dt in ("f16", "bf16")
         for name, base, consts, hints in (("n8192_o2", "fwd_{dt}_a8_m1_n8192", {}, {"occupancy": 2}),
                                           ("n8192_o1", "fwd_{dt}_a8_m1_n8192", {}, {"occupancy": 1}),
                                           ("m2_n8192_o2", "fwd_{dt}_a8_m1_n8192", {"TILE_M": 2}, {"occupancy": 2}),
                                           ("m2_n8192_o1", "fwd_{dt}_a8_m1_n8192", {"TILE_M": 2}, {"occupancy": 1}),
                                           ("fast2_n8192_o2", "fwd_{dt}_a4_fast_m1_n8192", {}, {"occupancy": 2}))]
        + [(f"x_f32_a2_fast_m{m}_n4096_o{o}", "fwd_f32_a2_fast_m1_n4096", {"TILE_M": m}, {"occupancy": o})
           for m, o in ((1, 2), (1, 3), (1, 6), (1, 8), (2, 2), (2, 4))]),
    # rms_norm forward 16-bit rows of 8192 at 79.5 / 78.7 % (91.8 / 91.0 % of a same-size copy;
    # H200), one row a block at occupancy 4 (session 25): other hints and 2 rows a block
    "rms_norm": (
        ["fwd_f16_a8_o4_m1_n8192"],
        [(f"x_fwd_f16_a8_m{m}_n8192_o{o}", "fwd_f16_a8_o4_m1_n8192", {"TILE_M": m}, {"occupancy": o})
         for m, o in ((1, 2), (1, 3), (1, 6), (1, 8), (2, 2), (2, 4))]),
    # gelu at 0.961x (16-bit, tanh bf16 (1, 1024)) / 0.975x (f32, (1, 2048)) eager PyTorch, whose own
    # gelu runs at a same-size copy's speed. Session 23 timed tile lengths, rows and occupancy (no
    # gain); session 24: a persistent grid of k blocks an SM of 132, each looping over the tiles
    # (candidate_kernels/gelu.py), with and without the next tile's load issued first
    "gelu": (
        ["tanh_bf16_a8_fast_m1_n1024", "erf_f16_a8_fast_m1_n1024", "erf_f32_a4_fast_m1_n2048"],
        [(f"x_{base.split('_fast')[0]}_{form.split('_')[-1][:4]}{k}", base, {"NUM_BLOCKS": 132 * k}, {},
          {"kernel": form, "grid": ["min(NUM_BLOCKS, cdiv(M, TILE_M) * cdiv(N, TILE_N))", 1, 1]})
         for base in ("tanh_bf16_a8_fast_m1_n1024", "erf_f16_a8_fast_m1_n1024", "erf_f32_a4_fast_m1_n2048")
         for form, ks in (("gelu_fast_persistent", (8, 16)), ("gelu_fast_prefetch", (4, 8, 16)))
         for k in ks]),
    # matmul at 0.914x (bf16 tn w8 128x256x64), 0.885x (tf32 nt 128x128x32), 0.797x (fp8 nt w8 128x128x128)
    # cuBLAS: other tile shapes and groupings on two consumer warpgroups
    "matmul": (
        ["bf16_tn_w8_128x256x64", "bf16_nn_w8_128x256x64", "tf32_nt_128x128x32",
         "fp8e4m3_f16_nt_w8_128x128x128", "f16_tn_w8_128x256x64", "fp8e4m3_bf16_nt_w8_128x128x128",
         "tf32_nt_w8_128x256x32"],
        [("x_bf16_tn_w8_256x128x64", "bf16_tn_w8_128x256x64", {"BM": 256, "BN": 128}, {}),
         ("x_bf16_tn_w8_128x256x64_g16", "bf16_tn_w8_128x256x64", {"GROUP_M": 16}, {}),
         ("x_bf16_tn_w8_128x256x64_g4", "bf16_tn_w8_128x256x64", {"GROUP_M": 4}, {}),
         ("x_bf16_nn_w8_256x128x64", "bf16_nn_w8_128x256x64", {"BM": 256, "BN": 128}, {}),
         ("x_bf16_nn_w8_128x256x64_g16", "bf16_nn_w8_128x256x64", {"GROUP_M": 16}, {}),
         ("x_tf32_nt_w8_128x256x32", "tf32_nt_128x128x32", {"BN": 256}, {"num_worker_warps": 8}),
         ("x_tf32_nt_w8_128x128x32", "tf32_nt_128x128x32", {}, {"num_worker_warps": 8}),
         ("x_tf32_nt_w8_256x128x32", "tf32_nt_128x128x32", {"BM": 256}, {"num_worker_warps": 8}),
         ("x_tf32_nt_128x128x64", "tf32_nt_128x128x32", {"BK": 64}, {}),
         ("x_fp8_f16_nt_w8_128x256x128", "fp8e4m3_f16_nt_w8_128x128x128", {"BN": 256}, {}),
         ("x_fp8_f16_nt_w8_256x128x128", "fp8e4m3_f16_nt_w8_128x128x128", {"BM": 256}, {}),
         ("x_fp8_f16_nt_w8_128x256x64", "fp8e4m3_f16_nt_w8_128x128x128", {"BN": 256, "BK": 64}, {}),
         ("x_fp8_f16_nt_w8_128x128x128_g16", "fp8e4m3_f16_nt_w8_128x128x128", {"GROUP_M": 16}, {})]
        # session 25: two-CTA clusters for the 16-bit two-warpgroup kernel (session 16 timed them for
        # fp8 only): a 256-row tile split between the cluster's CTAs (each the launched 128x256, the
        # B tile multicast), and the launched tile split in two
        + [(f"x_bf16_{lay}_w8c2_{bm}x{bn}x64", f"bf16_{lay}_w8_128x256x64", {"BM": bm, "BN": bn}, {"num_ctas": 2})
           for lay in ("tn", "nn") for bm, bn in ((256, 256), (256, 128), (128, 256))]
        # session 27: tf32 NT at 0.835x (H100). bmm's tf32 NT reached 1.000x on w8 128x256x32 once its
        # tiles were cast as loaded and its epilogue stored by TMA; matmul's w8 tiles were last timed
        # (session 23) before the epilogue contract
        + [(f"x27_tf32_nt_w8_{bm}x{bn}x32", "tf32_nt_128x128x32", {"BM": bm, "BN": bn}, {"num_worker_warps": 8})
           for bm, bn in ((128, 256), (256, 128), (128, 128))]
        # session 28: persistent grids, k blocks an SM over 132 SMs, for the launched two-warpgroup
        # kernels (16-bit 0.944x, fp8 0.870x on the H100) and tf32 NT w8; timed on the H100 and adopted
        # (the kernels are reference/matmul's matmul_w8_persistent and matmul_fp8_w8_persistent now;
        # the variants *_w8p_*: tuning.md, session 28)
        + [(f"x28_{base}_p{k}", base, {"NUM_BLOCKS": 132 * k}, {},
            {"kernel": kernel, "grid": ["min(NUM_BLOCKS, cdiv(M, BM) * cdiv(N, BN))", 1, 1]})
           for base, kernel in (("f16_tn_w8_128x256x64", "matmul_w8_persistent"),
                                ("bf16_tn_w8_128x256x64", "matmul_w8_persistent"),
                                ("tf32_nt_w8_128x256x32", "matmul_w8_persistent"),
                                ("fp8e4m3_bf16_nt_w8_128x128x128", "matmul_fp8_w8_persistent"))
           for k in (1,)]),
    # (session 26's epilogue candidates of matmul and bmm are added below the dict: EPILOGUE)
    # split-K at 0.80x cuBLAS (62 + 18 us vs 64 us at M 64, N 4096, K 16384, S 16): B's 128 MB bound it
    # at ~43 us; the 16 MB of f32 slabs cost the rest. Fewer splits (8 MB), other partial tiles, and
    # reduce tiles that put more loads in flight
    "splitk_matmul": (
        ["partial_bf16_64x128x64", "reduce_bf16_4x256"],
        [("x_partial_bf16_64x128x64_s8", "partial_bf16_64x128x64", {}, {}, {"bench_shape": {"S": 8}}),
         ("x_partial_bf16_64x64x64_s8", "partial_bf16_64x128x64", {"BN": 64}, {}, {"bench_shape": {"S": 8}}),
         ("x_partial_bf16_64x128x128", "partial_bf16_64x128x64", {"BK": 128}, {}),
         ("x_partial_bf16_64x256x64_s8", "partial_bf16_64x128x64", {"BN": 256}, {}, {"bench_shape": {"S": 8}}),
         ("x_partial_bf16_64x128x64_s4", "partial_bf16_64x128x64", {}, {}, {"bench_shape": {"S": 4}}),
         ("x_reduce_bf16_4x256_s8", "reduce_bf16_4x256", {}, {}, {"bench_shape": {"S": 8}}),
         ("x_reduce_bf16_4x256_s4", "reduce_bf16_4x256", {}, {}, {"bench_shape": {"S": 4}}),
         ("x_reduce_bf16_8x256", "reduce_bf16_4x256", {"TM": 8}, {}),
         ("x_reduce_bf16_2x512", "reduce_bf16_4x256", {"TM": 2, "TN": 512}, {}),
         ("x_reduce_bf16_4x512", "reduce_bf16_4x256", {"TN": 512}, {}),
         ("x_reduce_bf16_8x256_s8", "reduce_bf16_4x256", {"TM": 8}, {}, {"bench_shape": {"S": 8}})]
        # session 23: S = 4 (one wave, splits_for) measured best of 4 / 8 / 16; its neighbours
        + [(f"x_{kind}_s{s}", f"{kind}_bf16_{tile}", {}, {}, {"bench_shape": {"S": s}})
           for s in (2, 3, 5, 6) for kind, tile in (("partial", "64x128x64"), ("reduce", "4x256"))]),
    # fp8_quantize bf16 rows of 4096 at 84.6 % of copy bandwidth (92.3 % of a same-size copy; H200,
    # session 24): 4 rows a block at occupancy 4 (34 KB of loads in flight a block). Session 25:
    # other rows a block under other occupancy hints (the bytes in flight per SM held or raised)
    "fp8_quantize": (
        ["bf16_rows_a8_fast_m4_n4096"],
        [(f"x_bf16_rows_a8_fast_m{m}_n4096_o{o}", "bf16_rows_a8_fast_m4_n4096", {"TILE_M": m}, {"occupancy": o})
         for m, o in ((1, 8), (1, 16), (2, 4), (2, 8), (4, 2), (4, 8), (8, 2), (2, 2), (2, 3), (2, 6))]),
    # bmm tf32 NN at 0.37x cuBLAS: B (K, N) is transposed through shared memory for the tf32 wgmma
    "bmm": (
        ["tf32_nn_128x128x32", "bf16_nt_128x128x64", "bf16_nn_w8_128x256x64", "tf32_nt_w8_128x256x32",
         "tf32_nn_w8_256x128x32", "tf32_nt_128x128x32", "f16_nn_w8_128x256x64", "bf16_nt_w8_128x256x64"],
        [("x_tf32_w8_128x256x32", "tf32_nn_128x128x32", {"BN": 256}, {"num_worker_warps": 8}),
         ("x_tf32_w8_128x128x32", "tf32_nn_128x128x32", {}, {"num_worker_warps": 8}),
         ("x_tf32_w8_256x128x32", "tf32_nn_128x128x32", {"BM": 256}, {"num_worker_warps": 8}),
         ("x_tf32_128x64x32", "tf32_nn_128x128x32", {"BN": 64}, {}),
         ("x_tf32_64x128x32", "tf32_nn_128x128x32", {"BM": 64}, {}),
         ("x_tf32_128x128x16", "tf32_nn_128x128x32", {"BK": 16}, {}),
         ("x_tf32_128x128x64", "tf32_nn_128x128x32", {"BK": 64}, {}),
         ("x_tf32_o2_128x128x32", "tf32_nn_128x128x32", {}, {"occupancy": 2}),
         # b stored (batch, N, K): what an NN product would run after a transpose pass
         ("x_tf32_nt_128x128x32", "tf32_nn_128x128x32", {"TRANS_B": True}, {}),
         ("x_tf32_nt_w8_128x256x32", "tf32_nn_128x128x32", {"TRANS_B": True, "BN": 256},
          {"num_worker_warps": 8}),
         ("x_tf32_nt_w8_128x128x32", "tf32_nn_128x128x32", {"TRANS_B": True}, {"num_worker_warps": 8}),
         # bf16 NT has 128x128x64 only; NN is 1.1-1.2x faster on two warpgroups at 128x256
         ("x_bf16_nt_w8_128x256x64", "bf16_nt_128x128x64", {"BN": 256}, {"num_worker_warps": 8})]
        # session 25: two-CTA clusters (as for matmul above)
        + [(f"x_bf16_nn_w8c2_{bm}x{bn}x64", "bf16_nn_w8_128x256x64", {"BM": bm, "BN": bn}, {"num_ctas": 2})
           for bm, bn in ((256, 256), (256, 128))]
        # session 28's persistent candidates (x28_*_p1: 0.923-0.936 of the one-tile time) are the
        # reference's bmm_w8_persistent since session 29
        # session 26: bmm tf32 NT ran at 0.515x cuBLAS where matmul's tf32 NT runs at 0.963x: bmm's
        # SASS rounded the f32 tiles to tf32 in registers (48 F2FP.TF32 + 64 STS.64 in w8
        # 128x256x32), matmul's not (the wgmma reads them as tf32). The cast before the reshape,
        # timed as a candidate body on the H100, is now the reference's; around it, the tiles and
        # groupings of the tf32 products
        + [(f"x26_tf32_{lay}_{name}", f"tf32_{lay}_{base}", consts, hints)
           for lay, base in (("nn", "128x128x32"), ("nt", "128x128x32"))
           for name, consts, hints in (("w8_128x128x32", {}, {"num_worker_warps": 8}),
                                       ("128x64x32", {"BN": 64}, {}),
                                       ("128x128x64", {"BK": 64}, {}),
                                       ("128x128x32_g16", {"GROUP_M": 16}, {}),
                                       ("128x128x32_g4", {"GROUP_M": 4}, {}))]
        + [("x26_tf32_nt_w8_256x128x32", "tf32_nt_w8_128x256x32", {"BM": 256, "BN": 128}, {})]),
}


# Session 26: the GEMMs' epilogue. Without a shape contract on c, tileiras stores a 16-bit 128x256 tile
# as 128 two-byte STG per thread (through shared memory: 64 STS + 16 LDS.128 first); with c's last
# dimension declared a multiple of 8 (`shape_divisible_by`, a launch contract the Rust ports can
# state too) it writes the tile with stmatrix (16 STSM) and 4 TMA stores (UTMASTG.2D), as cuBLAS's
# epilogues do. The launched GEMMs with that contract on c (session 26, adopted), and (session 27) the
# other kernels that write an MMA result: split-K's f32 partial slabs and its reduce (which reads them
# and writes c), group_gemm's c, fused_moe's out and flash attention's o (last dimension D):
def _epilogue_candidates(tag: str, bases: list[str], contract: dict[str, list[int]]) -> list:
    return [(f"{tag}_{base}_n8", base, {}, {}, {"param_overrides": {
        name: {"shape_divisible_by": div} for name, div in contract.items()}}) for base in bases]


#: (op, tag, launched variants, {param: shape_divisible_by}); 16 bytes of the last dimension each
#: (an op with two kernels, split-K, has a row per kernel's contract).
#: Session 27 (H100, interleaved): adopted for bf16 group_gemm and bf16 flash attention (1.4-2.8 %
#: faster); f16 kernels, fused_moe and split-K no gain or slower (tuning.md, session 27)
EPILOGUE = [
    ("matmul", "x26", ["bf16_tn_w8_128x256x64", "bf16_nn_w8_128x256x64", "f16_nn_w8_128x256x64", "bf16_tn_128x128x64",
                       "tf32_nt_128x128x32", "fp8e4m3_f16_nt_w8_128x128x128", "fp8e4m3_bf16_nt_w8_128x128x128"],
     {"c": [1, 8]}),
    ("bmm", "x26", ["f16_nn_w8_128x256x64", "bf16_nn_w8_128x256x64", "bf16_nt_w8_128x256x64", "tf32_nt_128x128x32",
                    "tf32_nn_128x128x32"], {"c": [1, 1, 8]}),
    ("splitk_matmul", "x27", ["partial_bf16_64x128x64", "partial_f16_64x128x64"], {"partial": [1, 1, 4]}),
    ("splitk_matmul", "x27", ["reduce_bf16_4x256", "reduce_f16_4x256"], {"partial": [1, 1, 4], "c": [1, 8]}),
    ("group_gemm", "x27", ["bf16_kn_sliced_w8_128x256x64", "bf16_nk_sliced_w8_128x256x64", "f16_nk_sliced_64x128x64"],
     {"c": [1, 8]}),
    ("fused_moe", "x27", ["bf16_top2_bm64_mul", "bf16_top2_bm64_nomul", "f16_top8_bm16_mul"], {"out": [1, 8]}),
    ("flash_attention", "x27", ["f16_d64_noncausal", "f16_d64_causal", "bf16_d128_causal_w8_bn128",
                                "bf16_d128_causal_gqa4_w8_bn128", "bf16_d128_noncausal_gqa8_w8_bn128",
                                "f16_d64_noncausal_o2", "f16_d64_causal_o2"], {"o": [1, 1, 1, 8]}),
]
for _op, _tag, _bases, _contract in EPILOGUE:
    _kept, _cands = CANDIDATES.get(_op, ([], []))
    CANDIDATES[_op] = (_kept + [b for b in _bases if b not in _kept],
                       _cands + _epilogue_candidates(_tag, _bases, _contract))

# Session 30: load latency hints (Tile IR optimization_hints.latency, never tried before) on the
# split-K partial's operand loads and flash attention's K/V loads, and ftz exp2 in flash attention
# (candidate_kernels/<op>.py): split-K 0.901x cuBLAS (H200), flash attention 0.972x SDPA (H100)
S30 = {
    "splitk_matmul": (["partial_bf16_64x128x64", "reduce_bf16_4x256"],
                      [(f"x30_partial_bf16_64x128x{bk}_l{la}_{lb}", "partial_bf16_64x128x64",
                        {"BK": bk, "LAT_A": la, "LAT_B": lb}, {}, {"kernel": "splitk_partial_lat"})
                       for bk, la, lb in ((64, 2, 2), (64, 4, 4), (64, 6, 6), (64, 8, 8), (64, 10, 10),
                                          (64, 2, 8), (128, 4, 4), (128, 8, 8))]
                      # the reduce with its S slabs' loads in flight together (SP slabs a load)
                      + [(f"x30_reduce_bf16_c{sp}_{tm}x{tn}" + ("_tma" if tma else ""), "reduce_bf16_4x256",
                          {"SP": sp, "TM": tm, "TN": tn, "TMA": tma}, {}, {"kernel": "splitk_reduce_chunked"})
                         for sp, tm, tn, tma in ((4, 4, 256, False), (2, 4, 256, False), (4, 2, 256, False),
                                                 (4, 8, 256, False), (4, 4, 128, False), (8, 4, 256, False),
                                                 (4, 4, 256, True))]),
    "flash_attention": (["bf16_d128_noncausal_gqa8_w8_bn128"],
                        [(f"x30_bf16_gqa8_k{lk}_v{lv}" + ("_ftz" if ftz else ""), "bf16_d128_noncausal_gqa8_w8_bn128",
                          {"LAT_K": lk, "LAT_V": lv, "FTZ": ftz}, {}, {"kernel": "flash_attention_hinted_w8"})
                         for lk, lv, ftz in ((0, 0, True), (0, 0, False), (2, 2, False), (2, 4, False),
                                             (4, 4, False), (8, 8, False), (2, 4, True), (4, 4, True))]),
    "flash_decode": (["tp_bf16_d128_g4_bn128"],
                     [(f"x30_tp_bf16_d128_g4_bn128_l{lk}_{lv}" + ("_o2" if o2 else ""), "tp_bf16_d128_g4_bn128",
                       {"LAT_K": lk, "LAT_V": lv}, {},
                       {"kernel": "flash_decode_partial_tp_lat" + ("_o2" if o2 else "")})
                      for lk, lv, o2 in ((2, 2, False), (4, 4, False), (8, 8, False), (2, 2, True), (4, 4, True))]),
}
for _op, (_bases, _cands) in S30.items():
    _kept, _old = CANDIDATES.get(_op, ([], []))
    CANDIDATES[_op] = (_kept + [b for b in _bases if b not in _kept], _old + _cands)


def _kernel_forms(source: str):
    """(source with every ``@ct.kernel``-decorated function turned into the assignment form, and
    kernel name -> (function name, {option: source text})): ``@ct.kernel(o=1) def k(...)``
    becomes ``def _scratch_k(...)`` plus ``k = ct.kernel(_scratch_k, o=1)`` at the end, the one
    form a hinted twin can be written in (``twin = ct.kernel(function, **options)``)."""
    import ast
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    from tileir_diff.suite.catalog import _is_kernel_decorator as is_kernel  # (the catalog's own test)
    forms, tail, drop = {}, [], set()

    def options(call):
        return {k.arg: ast.get_source_segment(source, k.value) for k in call.keywords} if isinstance(call, ast.Call) else {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(is_kernel(d) for d in node.decorator_list):
            d = next(d for d in node.decorator_list if is_kernel(d))
            drop.update(range(d.lineno - 1, d.end_lineno))
            i = node.lineno - 1
            lines[i] = lines[i].replace(f"def {node.name}(", f"def _scratch_{node.name}(", 1)
            forms[node.name] = (f"_scratch_{node.name}", options(d))
            opts = "".join(f", {k}={v}" for k, v in forms[node.name][1].items())
            tail.append(f"{node.name} = ct.kernel(_scratch_{node.name}{opts})")
        elif (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and is_kernel(node.value.func)
              and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and node.value.args
              and isinstance(node.value.args[0], ast.Name)):
            forms[node.targets[0].id] = (node.value.args[0].id, options(node.value))
    text = "".join(line for i, line in enumerate(lines) if i not in drop)
    return text + ("\n\n# the decorated kernels in assignment form (scratch)\n" + "\n".join(tail) + "\n" if tail else ""), forms


def _kernel_docs(source: str) -> dict[str, str]:
    """kernel name -> docstring of each kernel in source (the catalog's own kernel discovery)."""
    import ast
    from tileir_diff.suite.catalog import kernel_functions
    return {name: ast.get_docstring(node) or name for name, node in kernel_functions(ast.parse(source)).items()}


def stage_op(op: str, out: Path, match: str | None = None) -> int:
    baselines, candidates = CANDIDATES[op]
    if match:  # a subset of the op's candidates (by name), e.g. one session's new ones
        candidates = [c for c in candidates if re.search(match, c[0])]
    src, dst = REPO / "reference" / op, out / "reference" / op
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    analysis = json.loads((dst / "analysis.json").read_text())
    by_name = {v["name"]: v for v in analysis["variants"]}
    variants = [by_name[n] for n in baselines]
    extra = REPO / "scripts" / "gpu" / "candidate_kernels" / f"{op}.py"
    source = (dst / "kernel.py").read_text()
    if extra.is_file():  # candidate bodies: their kernels are described by their docstrings
        bodies = extra.read_text()
        source += "\n\n# candidate kernels (scripts/gpu/candidate_kernels)\n" + bodies
        for name, doc in _kernel_docs(bodies).items():
            analysis["kernels"][name] = f"{doc.split(chr(10))[0]} (scratch)"
    source, forms = _kernel_forms(source)
    twins = []
    for name, base, constants, hints, *fields in candidates:
        v = copy.deepcopy(by_name[base])
        v["name"], v["selects_when"] = name, "scratch candidate (scripts/gpu/scratch_candidates.py)"
        v["constants"].update(constants)
        declared = {p["name"] for p in v["params"]}
        v["params"] += [{"name": k, "kind": "constant"}  # a candidate body's own
                        for k in constants if k not in declared]
        for key, value in (fields[0] if fields else {}).items():  # e.g. another bench_shape
            if key == "param_overrides":  # {param name: {field: value}}, e.g. a shape contract
                for param in v["params"]:
                    param.update(value.get(param["name"], {}))
                continue
            v[key] = {**v[key], **value} if isinstance(value, dict) else value
        if hints:
            function, opts = forms[v["kernel"]]
            merged = {**opts, **{k: repr(val) for k, val in hints.items()}}
            twin = f"{v['kernel']}__{name}"
            twins.append(f"{twin} = ct.kernel({function}" + "".join(f", {k}={x}" for k, x in merged.items()) + ")")
            analysis["kernels"][twin] = f"{v['kernel']} with {hints} (scratch)"
            v["kernel"] = twin
        variants.append(v)
    analysis["variants"] = variants
    (dst / "analysis.json").write_text(json.dumps(analysis, indent=2) + "\n")
    if twins:
        source += "\n\n# scratch candidates (scripts/gpu/scratch_candidates.py)\n" + "\n".join(twins) + "\n"
    (dst / "kernel.py").write_text(source)
    return len(candidates)


def resources(cubin: Path) -> str:
    from tileir_diff.tools import find_tool
    tool = find_tool("cuobjdump")
    if tool is None:
        return "(no cuobjdump)"
    res = subprocess.run([tool, "-res-usage", str(cubin)], capture_output=True, text=True).stdout
    m = re.search(r"REG:(\d+) STACK:(\d+) SHARED:(\d+)", res)
    sass = subprocess.run([tool, "-sass", str(cubin)], capture_output=True, text=True).stdout
    spills = sum(int(x) for x in re.findall(r"(\d+) bytes spill", res))
    return (f"regs {m.group(1)}, stack {m.group(2)} B, shared {int(m.group(3)):,} B, spill {spills} B, "
            # wgmma in SASS: HGMMA (16-bit, tf32), QGMMA (fp8), IGMMA (int8)
            f"GMMA {len(re.findall(r'[HQI]GMMA', sass))}" if m else "(no resource line)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--only", action="append", choices=sorted(CANDIDATES), help="these ops only (repeatable)")
    ap.add_argument("--no-export", action="store_true", help="stage the sources only")
    ap.add_argument("--match", metavar="REGEX", help="only the candidates whose name matches (the baselines stay)")
    args = ap.parse_args(argv)
    ops = args.only or sorted(CANDIDATES)
    for op in ops:
        print(f"{op}: {stage_op(op, args.out, args.match)} candidates")
    if args.no_export:
        return 0
    build = args.out / "build" / "reference"
    cmd = [sys.executable, "-m", "tileir_diff.suite.command", "export", "--reference-root", str(args.out / "reference"),
           "--build-root", str(build), "--arch", "sm_90", "--force"] + [a for op in ops for a in ("--op", op)]
    done = subprocess.run(cmd, cwd=REPO)
    if done.returncode:
        return done.returncode
    for op in ops:
        for cubin in sorted((build / op).glob("*.sm_90.cubin")):
            print(f"{op:13s} {cubin.name[:-len('.sm_90.cubin')]:28s} {resources(cubin)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
