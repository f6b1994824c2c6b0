"""Writes the trimmed reference root of kfp8's tuning run (run from the repository root):
devrun/kfp8/tune/matmul/{kernel.py, ref.py, analysis.json} = reference/matmul's kernel.py with the
candidate kernels below appended, its ref.py, and an analysis.json holding the committed fp8 variant
that serves as the baseline plus the candidates (fp8 e4m3, NT, 8192^3 bench shape), in run order. The
candidates are tuning experiments, not reference variants: nothing here is added to reference/."""
import copy
import json
from pathlib import Path

SRC = Path("reference/matmul")
DST = Path("devrun/kfp8/tune/matmul")

CANDIDATES = '''

# ---- kfp8 tuning candidates (devrun only; not part of reference/) ----
def _fp8_body(a, b, c, scale_a, scale_b, BM, BN, BK, GROUP_M, TRANS_A, TRANS_B):
    M = c.shape[0]
    N = c.shape[1]
    tile_m, tile_n = grouped_tile_coords(M, N, BM, BN, GROUP_M)
    acc = gemm_mainloop(a, b, tile_m, tile_n, BM, BN, BK, TRANS_A, TRANS_B)
    acc = acc * (scale_a * scale_b)
    ct.store(c, index=(tile_m, tile_n), tile=ct.astype(acc, c.dtype))


# num_ctas=N: the block is a cluster (CGA) of N CTAs that split the BM x BN tile; tileiras
# multicasts the shared operand tile over the cluster (UTMALDG.2D.MULTICAST in the SASS).
# matmul_fp8_w8_c2 itself is a reference kernel now (reference/matmul/kernel.py).
@ct.kernel(num_ctas=2)
def matmul_fp8_c2(a, b, c, scale_a, scale_b,
                  BM: ConstInt, BN: ConstInt, BK: ConstInt, GROUP_M: ConstInt,
                  TRANS_A: ConstBool, TRANS_B: ConstBool):
    """matmul_fp8 (one consumer warpgroup) in two-CTA clusters."""
    _fp8_body(a, b, c, scale_a, scale_b, BM, BN, BK, GROUP_M, TRANS_A, TRANS_B)


@ct.kernel(num_worker_warps=8, num_ctas=4)
def matmul_fp8_w8_c4(a, b, c, scale_a, scale_b,
                     BM: ConstInt, BN: ConstInt, BK: ConstInt, GROUP_M: ConstInt,
                     TRANS_A: ConstBool, TRANS_B: ConstBool):
    """matmul_fp8_w8 in four-CTA clusters."""
    _fp8_body(a, b, c, scale_a, scale_b, BM, BN, BK, GROUP_M, TRANS_A, TRANS_B)
'''

# (kernel, tag, BM, BN, BK, GROUP_M, output) in run order: the baseline first, the spilling
# candidates last (a timeout then loses the least).
RUNS = [
    ("matmul_fp8_w8", "w8", 128, 128, 128, 8, "f16"),      # committed, the launcher's pick: the baseline
    ("matmul_fp8_w8_c4", "w8c4", 256, 256, 128, 8, "f16"),
    ("matmul_fp8_w8_c4", "w8c4", 256, 256, 128, 8, "bf16"),
    ("matmul_fp8_w8_c2", "w8c2", 128, 256, 64, 8, "f16"),
    ("matmul_fp8_w8_c2", "w8c2", 128, 128, 128, 8, "f16"),
    ("matmul_fp8_w8_c4", "w8c4", 128, 256, 128, 8, "f16"),
    ("matmul_fp8_c2", "c2", 128, 128, 128, 8, "f16"),
    ("matmul_fp8_w8_c2", "w8c2", 128, 256, 128, 16, "f16"),
    ("matmul_fp8_w8_c2", "w8c2", 256, 128, 128, 16, "f16"),
    ("matmul_fp8_w8", "w8", 128, 128, 256, 8, "f16"),
    ("matmul_fp8_w8", "w8", 128, 128, 64, 8, "f16"),
    ("matmul_fp8_w8", "w8", 128, 128, 128, 16, "f16"),
    ("matmul_fp8_w8", "w8", 128, 256, 64, 8, "f16"),       # 216 B stack
    ("matmul_fp8_w8", "w8", 128, 256, 128, 8, "f16"),      # 216 B stack
    ("matmul_fp8_w8", "w8", 256, 128, 64, 8, "f16"),       # 200 B stack
    ("matmul_fp8_c2", "c2", 128, 256, 128, 8, "f16"),      # 40 B stack
    ("matmul_fp8_w8_c2", "w8c2", 256, 256, 64, 8, "f16"),  # 200 B stack
    ("matmul_fp8_w8_c2", "w8c2", 256, 256, 128, 8, "f16"),  # 200 B stack
]
# The reference's fp8 variants (w8 128x128x128 and the four matmul_fp8_w8_c2 ones included) are
# measured by the full matmul run of the same call, so only the baseline is repeated here.
NEW_KERNELS = {"matmul_fp8_c2": "tuning candidate: matmul_fp8 with num_ctas=2",
               "matmul_fp8_w8_c4": "tuning candidate: matmul_fp8_w8 with num_ctas=4"}


def name(tag, bm, bn, bk, group_m, out):
    mid = f"_{tag}" if tag else ""
    return f"fp8e4m3_{out}_nt{mid}_{bm}x{bn}x{bk}" + (f"_g{group_m}" if group_m != 8 else "")


def main():
    DST.mkdir(parents=True, exist_ok=True)
    (DST / "kernel.py").write_text((SRC / "kernel.py").read_text() + CANDIDATES)
    (DST / "ref.py").write_text((SRC / "ref.py").read_text())
    doc = json.loads((SRC / "analysis.json").read_text())
    committed = {v["name"]: v for v in doc["variants"] if v["kernel"].startswith("matmul_fp8")}
    variants = []
    for kernel, tag, bm, bn, bk, group_m, out in RUNS:
        n = name(tag, bm, bn, bk, group_m, out)
        if n in committed:
            variants.append(committed[n])
            continue
        v = copy.deepcopy(committed[f"fp8e4m3_{out}_nt_w8_128x128x128"])
        v.update(name=n, kernel=kernel, structure=f"tuning candidate: {kernel}", selects_when="never (tuning candidate)")
        v["constants"].update(BM=bm, BN=bn, BK=bk, GROUP_M=group_m)
        variants.append(v)
    doc["variants"] = variants
    doc["kernels"].update(NEW_KERNELS)
    (DST / "analysis.json").write_text(json.dumps(doc, indent=1) + "\n")
    print("\n".join(v["name"] for v in variants))


if __name__ == "__main__":
    main()
