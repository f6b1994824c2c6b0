"""Write the equivalent-rewrite corpus: for each pair in ``PAIRS`` a reference kernel and the same
computation written the way another author would (rewrite_kernels.py), exported by cuTile Python with one
signature and printed as text (``<name>.left.tir`` / ``<name>.right.tir``). Where cuTile Python
cannot spell the other author's form (cuTile Rust's truncating ``divi``/``remi``, an unsigned
``itof``), the printed text is edited (``edit``). ``manifest.json`` holds each pair's hand-judged
verdict and a one-line ``why``; pairs marked ``control`` are NOT equivalent and must stay
``different`` (so the measure cannot pass by calling everything the same).

``python3 tests/corpus/rewrites/generate.py`` rewrites the files (needs ``cuda-tile``);
test_rewrites.py checks that they are what this script writes. measure.py prints the figures.
"""
from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Callable, Dict, List, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

Edit = Callable[[str], str]


def sub(text: str, old: str, new: str, count: int = 1) -> str:
    """``text`` with ``old`` replaced ``count`` times (0: all); ``old`` must occur."""
    if old not in text:
        raise ValueError(f"edit does not apply: {old[:80]!r}")
    return text.replace(old, new) if count == 0 else text.replace(old, new, count)


def truncating_division(text: str) -> str:
    """cuTile Rust's ``/`` and ``%`` on signed integers: ``divi`` without a rounding (toward zero)
    and ``remi`` without Python's sign fix-up ``select(..., r + b, r)`` (its uses read ``r``)."""
    text = sub(text, " signed rounding<negative_inf>", " signed", 0)
    rems = set(re.findall(r"^\s*(%\w+) = remi ", text, re.M))
    lines = text.split("\n")
    rename: Dict[str, str] = {}
    kept = []
    for line in lines:
        m = re.match(r"\s*(%\w+) = select %\w+, %\w+, (%\w+) ", line)
        if m and m.group(2) in rems:
            rename[m.group(1)] = m.group(2)
            continue
        kept.append(line)
    if rems and not rename:
        raise ValueError("no floor-modulo fix-up found")
    out = "\n".join(kept)
    for old, new in rename.items():
        out = re.sub(re.escape(old) + r"\b", new, out)
    return out


def unsigned_casts(text: str) -> str:
    """Every signed ``itof``/``exti`` written unsigned (a port that casts through u32)."""
    t = re.sub(r"= itof (%\w+) signed", r"= itof \1 unsigned", text)
    t = re.sub(r"= exti (%\w+) signed : tile<(\d+x)*i32> -> tile<(\d+x)*i64>",
               lambda m: m.group(0).replace(" signed", " unsigned"), t)
    if t == text:
        raise ValueError("no signed cast to edit")
    return t


def _pairs() -> Dict[str, dict]:
    import rewrite_kernels as k
    from kernels._common import arr, const, ct, scalar  # the decoder corpus's helpers

    f1 = arr(ct.float32, 1)
    f2 = arr(ct.float32, 2)
    f3 = arr(ct.float32, 3)
    i32 = scalar(ct.int32)
    t128 = const(128)

    def p(left, right, params, expect, why, *, left_edit: Optional[Edit] = None,
          right_edit: Optional[Edit] = None, control: bool = False) -> dict:
        return {"left": left, "right": right, "params": params, "expect": expect, "why": why,
                "left_edit": left_edit, "right_edit": right_edit, "control": control}

    return {
        # integer index arithmetic (two's complement: every identity here holds modulo 2^32)
        "sub_across_broadcast": p(k.sub_broadcast_ref, k.sub_broadcast_alt, [f1, f1, i32, t128], "equivalent",
                                  "(b*T - off) + iota == (b*T + iota) - off modulo 2^32, the subtraction before or after the broadcast"),
        "reassociated_index": p(k.reassoc_index_ref, k.reassoc_index_alt, [f1, f1, i32, t128], "equivalent",
                                "(r*T + j)*s + 3 == j*s + (3 + r*T*s): distributivity and associativity of wrapping integer arithmetic"),
        "commuted_index": p(k.commuted_index_ref, k.commuted_index_alt, [f1, f1, t128], "equivalent",
                            "integer and float add/mul operands commuted (commutative bit for bit)"),
        "shift_or_for_mul_add": p(k.shift_for_mul_ref, k.shift_for_mul_alt, [f1, f1, t128], "equivalent",
                                  "b*8 + j%8 == (b<<3) | (j&7): j >= 0 so j%8 == j&7, and the low 3 bits of b<<3 are 0"),
        "double_as_add": p(k.double_as_add_ref, k.double_as_add_alt, [f1, f1, t128], "equivalent",
                           "j*2 == j + j modulo 2^32"),
        "reverse_index_not": p(k.reverse_index_ref, k.reverse_index_alt, [f1, f1, i32, t128], "equivalent",
                               "n - 1 - i == n + ~i (two's complement ~i == -i - 1)"),
        "cdiv_by_hand": p(k.cdiv_ref, k.cdiv_alt, [f1, f1, i32, t128], "different",
                          "CONTROL: (n + 127) // 128 wraps for n > 2^31 - 128 where cdiv does not: n is an unbounded runtime int",
                          control=True),
        "pow2_div_as_shift": p(k.pow2_div_ref, k.pow2_div_alt, [f1, f1, t128], "equivalent",
                               "b // 4 == b >> 2 and b % 4 == b & 3 for a block id b >= 0 (arithmetic shift is floor division by 4 anyway)"),
        "bid_floor_vs_trunc": p(k.bid_floordiv_ref, k.bid_floordiv_ref, [f1, f1, i32, t128], "equivalent",
                                "floor // and % of a block id (>= 0) by 3 against Rust's truncating divi/remi",
                                right_edit=truncating_division),
        "iota_floor_vs_trunc": p(k.idx_floordiv_ref, k.idx_floordiv_ref, [f1, f1, t128], "equivalent",
                                 "floor // and % of iota (0..127) by 2 against truncating divi/remi",
                                 right_edit=truncating_division),
        "masked_floor_vs_trunc": p(k.masked_floordiv_ref, k.masked_floordiv_ref, [f1, f1, i32, i32, t128],
                                   "equivalent",
                                   "idx // 2 floor vs truncating differ only for idx < 0, and those rows are masked (idx >= 0 & idx < n): never read or written",
                                   right_edit=truncating_division),
        "max_plus_one_div64": p(k.max_plus_one_ref, k.max_plus_one_alt, [f1, f1, i32, t128], "equivalent",
                                "k div_by 64: max(k+1, 0) // 64 == max(k, 0) // 64 (k+1 never reaches the next multiple; k <= -64 gives 0 both ways)"),
        "max_plus_one_no_divisibility": p(k.max_plus_one_nodiv_ref, k.max_plus_one_nodiv_alt, [f1, f1, i32, t128],
                                          "different", "CONTROL: without div_by<64>, k = 63 gives 1 against 0",
                                          control=True),
        # masks and compares
        "mask_mirrored": p(k.mask_mirror_ref, k.mask_mirror_alt, [f1, f1, i32, t128], "equivalent",
                           "idx < n written n > idx"),
        "mask_negated": p(k.mask_mirror_ref, k.mask_negated_alt, [f1, f1, i32, t128], "equivalent",
                          "idx < n written ~(idx >= n)"),
        "mask_off_by_one": p(k.mask_mirror_ref, k.mask_off_by_one_alt, [f1, f1, i32, t128], "different",
                             "CONTROL: idx <= n reads and writes element n", control=True),
        "mask_two_sided_commuted": p(k.mask_two_sided_ref, k.mask_two_sided_alt, [f1, f1, i32, i32, t128],
                                     "equivalent", "(idx >= 0) & (idx < n) written (idx < n) & (0 <= idx)"),
        "eq_to_ne_swapped_int": p(k.eq_select_int_ref, k.eq_select_int_alt, [f1, f1, t128], "equivalent",
                                  "where(j%2 == 0, a, b) written where(j%2 != 0, b, a)"),
        "eq_to_ne_swapped_float": p(k.eq_select_float_ref, k.eq_select_float_alt, [f1, f1, t128], "equivalent",
                                    "where(t == 0, 1, t) written where(t != 0, t, 1): == is ordered, != unordered, so NaN takes t both ways"),
        "le_vs_lt_zero_int": p(k.le_zero_int_ref, k.le_zero_int_alt, [f1, f1, t128], "equivalent",
                               "where(j <= 0, 0, j) vs where(j < 0, 0, j): at j == 0 both give 0"),
        "le_vs_lt_zero_float_exp": p(k.le_zero_float_exp_ref, k.le_zero_float_exp_alt, [f1, f1, t128], "equivalent",
                                     "where(t <= 0, 0, t) vs where(t < 0, 0, t) differ only at t = -0.0 (+0.0 against -0.0), and exp(+0) == exp(-0) == 1"),
        "le_vs_lt_zero_float_stored": p(k.le_zero_float_store_ref, k.le_zero_float_store_alt, [f1, f1, t128],
                                        "different", "CONTROL: t = -0.0 is stored as +0.0 against -0.0",
                                        control=True),
        "not_less_as_ge": p(k.not_less_ref, k.not_less_alt, [f1, f1, i32, t128], "equivalent",
                            "j >= n written ~(j < n) (integers: no unordered case)"),
        "unsigned_bounds_check": p(k.unsigned_bounds_ref, k.unsigned_bounds_alt, [f1, f1, i32, i32, t128],
                                   "equivalent",
                                   "0 <= idx < n0 with n0 = max(n, 0) >= 0 is one unsigned compare idx <u n0"),
        # select vs min/max
        "select_as_min": p(k.select_min_ref, k.select_min_alt, [f1, f1, i32, t128], "equivalent",
                           "minimum(a, n) written where(a < n, a, n)"),
        "select_as_max_const": p(k.select_max_const_ref, k.select_max_const_alt, [f1, f1, i32, t128], "equivalent",
                                 "maximum(a, 0) written where(a > 0, a, 0)"),
        "if_as_min_reassociated": p(k.scalar_min_ref, k.scalar_min_alt, [f1, f1, i32, t128], "equivalent",
                                    "min(b*T + T, n) written e = (b+1)*T; e if e < n else n"),
        # casts
        "itof_iota_unsigned": p(k.itof_iota_ref, k.itof_iota_ref, [f1, f1, t128], "equivalent",
                                "itof of iota (0..127, non-negative) signed vs unsigned", right_edit=unsigned_casts),
        "itof_bid_unsigned": p(k.itof_bid_ref, k.itof_bid_ref, [f1, f1, t128], "equivalent",
                               "itof of a block id (>= 0) signed vs unsigned", right_edit=unsigned_casts),
        "itof_argument_unsigned": p(k.itof_arg_ref, k.itof_arg_ref, [f1, f1, i32, t128], "different",
                                    "CONTROL: itof of a runtime int of unknown sign: -1 is -1.0 signed, 4294967295.0 unsigned",
                                    right_edit=unsigned_casts, control=True),
        "exti_iota_unsigned": p(k.exti_iota_ref, k.exti_iota_ref, [f1, f1, t128], "equivalent",
                                "exti i32 -> i64 of iota (non-negative): zero- and sign-extension agree",
                                right_edit=unsigned_casts),
        # float
        "half_div_as_mul": p(k.half_div_ref, k.half_div_alt, [f1, f1, t128], "equivalent",
                             "t / 2.0 == t * 0.5 bit for bit (both the correctly rounded t/2)"),
        "twice_as_add": p(k.twice_ref, k.twice_alt, [f1, f1, t128], "equivalent", "t * 2.0 == t + t bit for bit"),
        "sub_as_add_neg": p(k.sub_neg_ref, k.sub_neg_alt, [f1, f1, f1, t128], "equivalent", "a - b == a + (-b) (IEEE)"),
        "neg_of_reversed_sub": p(k.sub_neg_ref, k.neg_sub_alt, [f1, f1, f1, t128], "different",
                                 "CONTROL: -(b - a) is -0.0 where a == b, a - b is +0.0", control=True),
        "float_reassociation": p(k.float_assoc_ref, k.float_assoc_alt, [f1, f1, f1, t128], "different",
                                 "CONTROL: (a + b) + 1 vs a + (b + 1) round differently", control=True),
        "fma_commuted": p(k.fma_commuted_ref, k.fma_commuted_alt, [f1, f1, f1, t128], "equivalent",
                          "a*b + a written a + b*a (the same fma, multiplicands and addends commuted)"),
        "exp_vs_exp2_scaled": p(k.exp_ref, k.exp2_scaled_alt, [f1, f1, t128], "different",
                                "CONTROL: exp2(x * log2 e) is not exp(x) in floating point (x * log2 e is rounded)",
                                control=True),
        "rsqrt_vs_div_sqrt": p(k.rsqrt_ref, k.rsqrt_alt, [f1, f1, t128], "different",
                               "CONTROL: 1/sqrt(x) rounds twice, rsqrt once: not bit-exact", control=True),
        "exp_of_zero_minus": p(k.exp_neg_ref, k.exp_neg_alt, [f1, f1, t128], "equivalent",
                               "exp(-t) written exp(0 - t): only t = +0 differs in sign and exp maps both zeros to 1"),
        # shapes
        "transpose_as_permute": p(k.transpose_ref, k.transpose_alt, [f2, f2, const(64), const(32)], "equivalent",
                                  "transpose(t) written permute(t, (1, 0))"),
        "permute_composed": p(k.permute3_ref, k.permute3_alt, [f3, f3, const(4), const(8), const(16)], "equivalent",
                              "permute (2, 1, 0) written as three transposes (0 1), (0 2), (1 2) that compose to it"),
        "permute_composed_wrong": p(k.permute3_ref, k.permute3_wrong_alt, [f3, f3, const(4), const(8), const(8)],
                                    "different", "CONTROL: two transposes compose to (1, 2, 0), not (2, 1, 0)",
                                    control=True),
        "transpose_twice": p(k.transpose_twice_ref, k.transpose_twice_alt, [f2, f2, const(32)], "equivalent",
                             "transpose(transpose(t) * 2) == t * 2 (elementwise op between two transposes)"),
        # order, hoisting, sharing
        "loads_reordered": p(k.load_order_ref, k.load_order_alt, [f1, f1, f1, t128], "equivalent",
                             "two independent loads in the other order"),
        "loop_invariant_hoisted": p(k.hoist_loop_ref, k.hoist_loop_alt, [f1, f1, i32, t128], "equivalent",
                                    "a loop-invariant i*2 + 1 computed inside the loop vs before it"),
        "recomputed_index": p(k.recompute_ref, k.recompute_alt, [f1, f1, t128], "equivalent",
                              "one index tile shared by gather and scatter vs computed twice"),
        "ssa_order": p(k.ssa_order_ref, k.ssa_order_alt, [f1, f1, f1, t128], "equivalent",
                       "two independent products computed in the other order"),
        "row_offset_distributed": p(k.row_offset_ref, k.row_offset_alt, [f1, f1, i32, const(16), const(32)],
                                    "equivalent",
                                    "(b*BM + r)*n + c written (r*n + b*BM*n) + c: distributivity modulo 2^32, broadcast operands commuted"),
    }


def export_text(kernel, params: list, symbol: str) -> str:
    from cuda.tile.compilation import CallingConvention, KernelSignature, export_kernel
    from tileir_diff import load
    from tileir_diff.text.printer import print_module
    sig = KernelSignature(list(params), CallingConvention.cutile_python_v2(), symbol=symbol)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{symbol}.tileirbc"
        export_kernel(kernel, [sig], str(path), gpu_code=None, output_format="tileir_bytecode",
                      bytecode_version="13.4")
        return print_module(load(str(path)))


def expected_files() -> Dict[str, str]:
    """{file name: text} as this script writes them (the freshness test compares)."""
    out: Dict[str, str] = {}
    manifest = []
    for name, pair in sorted(_pairs().items()):
        for side in ("left", "right"):
            text = export_text(pair[side], pair["params"], name)
            edit = pair[f"{side}_edit"]
            out[f"{name}.{side}.tir"] = edit(text) if edit else text
        manifest.append({"name": name, "expect": pair["expect"], "control": pair["control"], "why": pair["why"]})
    out["manifest.json"] = json.dumps(manifest, indent=1) + "\n"
    return out


def write() -> List[Path]:
    files = expected_files()
    for old in HERE.glob("*.tir"):
        if old.name not in files:
            old.unlink()
    paths = []
    for fname, text in files.items():
        (HERE / fname).write_text(text)
        paths.append(HERE / fname)
    return paths


if __name__ == "__main__":
    for path in write():
        print(path.relative_to(HERE))
