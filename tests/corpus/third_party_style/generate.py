"""Write the third-party-style pairs: each is a reference kernel (tests/corpus/independent/
reference/, printed as text) against that text edited the way another author writes the kernel
(outputs first, raw pointers, constants as arguments, static extents, exp against exp2, rsqrt
against 1/sqrt, tf32 inputs, ...) or gets it wrong (a store index, a grid axis, a dropped
output). The edits are plain text substitutions on the printed IR, so a pair is exactly its two
``.tir`` files; ``<name>.expect.json`` holds the roots judged by hand (see test_third_party_style.py).

``python3 tests/corpus/third_party_style/generate.py`` rewrites the ``.tir`` files;
test_third_party_style.py checks that they are what this script writes.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Callable, Dict, List, Tuple

HERE = Path(__file__).resolve().parent
REFERENCE = HERE.parent / "independent" / "reference"
sys.path.insert(0, str(HERE.parents[2]))


def reference_text(stem: str) -> str:
    from tileir_diff import load
    from tileir_diff.text.printer import print_module
    return print_module(load(str(REFERENCE / f"{stem}.tileirbc")))


def sub(text: str, old: str, new: str) -> str:
    """``text`` with ``old`` replaced once; ``old`` must occur (an edit that no longer applies fails)."""
    if old not in text:
        raise ValueError(f"edit does not apply: {old[:80]!r}")
    return text.replace(old, new, 1)


def reorder_arguments(text: str, order: List[int]) -> str:
    """The entry with its arguments in ``order`` (new position k takes old argument order[k])."""
    head, rest = text.split("\n", 1)
    m = re.match(r"(entry @\w+\()(.*)(\).*)", head)
    assert m is not None
    types = [a.split(": ", 1)[1] for a in re.split(r", (?=%arg\d+:)", m.group(2))]
    new = {old: k for k, old in enumerate(order)}
    head = m.group(1) + ", ".join(f"%arg{k}: {types[old]}" for k, old in enumerate(order)) + m.group(3)
    rest = re.sub(r"%arg(\d+)\b", lambda x: f"%ARG{new[int(x.group(1))]}", rest).replace("%ARG", "%arg")
    return head + "\n" + rest


def drop_arguments(text: str, drop: List[int]) -> str:
    """The entry without the arguments in ``drop`` (the rest renumbered in order); the body must
    no longer name them (drop their uses first)."""
    head, rest = text.split("\n", 1)
    m = re.match(r"(entry @\w+\()(.*)(\).*)", head)
    assert m is not None
    types = [a.split(": ", 1)[1] for a in re.split(r", (?=%arg\d+:)", m.group(2))]
    keep = [k for k in range(len(types)) if k not in drop]
    new = {old: k for k, old in enumerate(keep)}
    for k in drop:
        if re.search(rf"%arg{k}\b", rest):
            raise ValueError(f"argument {k} is still used")
    head = m.group(1) + ", ".join(f"%arg{new[old]}: {types[old]}" for old in keep) + m.group(3)
    rest = re.sub(r"%arg(\d+)\b", lambda x: f"%ARG{new[int(x.group(1))]}", rest).replace("%ARG", "%arg")
    return head + "\n" + rest


def drop_line(text: str, pattern: str) -> str:
    lines = text.split("\n")
    hit = [i for i, line in enumerate(lines) if re.search(pattern, line)]
    if len(hit) != 1:
        raise ValueError(f"{pattern!r} matches {len(hit)} lines")
    del lines[hit[0]]
    return "\n".join(lines)


def _no_rstd(rms: str) -> str:
    t = drop_line(rms, r"%reshape_29 = reshape %6")
    t = drop_line(t, r"%pview_30 = make_partition_view")
    return drop_line(t, r"%12 = store_view_tko")


def _without_rstd(rms: str) -> str:
    """rms_norm as a kernel without the rstd output at all: neither its store nor its arguments
    (pointer, extent, stride)."""
    t = _no_rstd(rms)
    for pattern in (r"%assume_2 = assume div_by<16>, %arg13", r"%assume_15 = assume bounded<0, \?>, %arg14",
                    r"%tview_16 = make_tensor_view"):
        t = drop_line(t, pattern)
    return drop_arguments(t, [13, 14, 15])


def _gather_scatter(va: str) -> str:
    """y read through an unmasked pointer gather, out written through an unmasked scatter (one
    index computation shared by both), as a raw-pointer port writes them."""
    t = sub(va, "  %tile_10, %result_token_11 = load_view_tko weak %pview_9[%blockId_x] token = %0 : "
                "partition_view<tile=(1024), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> "
                "tile<1024xf32>, token\n",
            "  %c1024 = constant <i32: 1024> : tile<i32>\n  %base = muli %blockId_x, %c1024 : tile<i32>\n"
            "  %i = iota : tile<1024xi32>\n  %br = reshape %base : tile<i32> -> tile<1xi32>\n"
            "  %bb = broadcast %br : tile<1xi32> -> tile<1024xi32>\n  %idx = addi %i, %bb : tile<1024xi32>\n"
            "  %yr = reshape %assume_0 : tile<ptr<f32>> -> tile<1xptr<f32>>\n"
            "  %yb = broadcast %yr : tile<1xptr<f32>> -> tile<1024xptr<f32>>\n"
            "  %yp = offset %yb, %idx : tile<1024xptr<f32>>, tile<1024xi32> -> tile<1024xptr<f32>>\n"
            "  %tile_10, %result_token_11 = load_ptr_tko weak %yp token=%0 : tile<1024xptr<f32>> -> "
            "tile<1024xf32>, token\n")
    return sub(t, "  %2 = store_view_tko weak %1, %pview_12[%blockId_x] token = %0 : tile<1024xf32>, "
                  "partition_view<tile=(1024), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token\n",
               "  %or = reshape %assume_1 : tile<ptr<f32>> -> tile<1xptr<f32>>\n"
               "  %ob = broadcast %or : tile<1xptr<f32>> -> tile<1024xptr<f32>>\n"
               "  %op = offset %ob, %idx : tile<1024xptr<f32>>, tile<1024xi32> -> tile<1024xptr<f32>>\n"
               "  %2 = store_ptr_tko weak %op, %1 token=%0 : tile<1024xptr<f32>>, tile<1024xf32> -> token\n")


def _static_out(va: str) -> str:
    t = sub(va, "%tview_8 = make_tensor_view %assume_1, shape = [%assume_7], strides = [1] : tile<i32> -> "
                "tensor_view<?xf32, strides=[1]>",
            "%tview_8 = make_tensor_view %assume_1, shape = [4096], strides = [1] : tile<i32> -> "
            "tensor_view<4096xf32, strides=[1]>")
    return t.replace("partition_view<tile=(1024), tensor_view<?xf32, strides=[1]>>",
                     "partition_view<tile=(1024), tensor_view<4096xf32, strides=[1]>>")


def _static_k(mm: str) -> str:
    t = sub(mm, "shape = [%assume_7, %assume_8], strides = [%assume_assume_assume, 1] : tile<i32> -> "
                "tensor_view<?x?xf16, strides=[?,1]>",
            "shape = [%assume_7, 4096], strides = [%assume_assume_assume, 1] : tile<i32> -> "
            "tensor_view<?x4096xf16, strides=[?,1]>")
    t = t.replace("partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>>",
                  "partition_view<tile=(128x64), tensor_view<?x4096xf16, strides=[?,1]>>")
    return t.replace("partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>",
                     "partition_view<tile=(128x64), padding_value = zero, tensor_view<?x4096xf16, strides=[?,1]>>")


def _static_mnk(mm: str) -> str:
    """M, N and K compile-time constants in the port: A's K and C's M and N fixed in the view
    types, the tile counts cdiv(M, 128), cdiv(N, 128) and the K loop bound written as numbers."""
    t = sub(_static_k(mm), "  %for = for %loopIdx in (%cst_0_i32_21 to %26#1,",
            "  %c64 = constant <i32: 64> : tile<i32>\n  %for = for %loopIdx in (%cst_0_i32_21 to %c64,")
    t = sub(t, "%1 = divi %assume_14, %cst_128_i32 signed rounding<positive_inf> : tile<i32>",
            "%1 = constant <i32: 32> : tile<i32>")
    t = sub(t, "%2 = divi %assume_15, %cst_128_i32_19 signed rounding<positive_inf> : tile<i32>",
            "%2 = constant <i32: 32> : tile<i32>")
    t = sub(t, "shape = [%assume_14, %assume_15], strides = [%assume_assume_assume_17, 1] : tile<i32> -> "
               "tensor_view<?x?xf16, strides=[?,1]>",
            "shape = [4096, 4096], strides = [%assume_assume_assume_17, 1] : tile<i32> -> "
            "tensor_view<4096x4096xf16, strides=[?,1]>")
    return t.replace("partition_view<tile=(128x128), tensor_view<?x?xf16, strides=[?,1]>>",
                     "partition_view<tile=(128x128), tensor_view<4096x4096xf16, strides=[?,1]>>")


def _f32_matmul(mm: str) -> str:
    t = mm.replace("f16", "f32")
    t = drop_line(t, r"%27 = ftof %for")
    return sub(t, "store_view_tko weak %27,", "store_view_tko weak %for,")


def _tf32(mm32: str) -> str:
    return sub(mm32, "%29 = mmaf %tile, %tile_26, %iterArg0 : tile<128x64xf32>, tile<64x128xf32>, tile<128x128xf32>",
               "%ta = ftof %tile : tile<128x64xf32> -> tile<128x64xtf32>\n"
               "    %tb = ftof %tile_26 : tile<64x128xf32> -> tile<64x128xtf32>\n"
               "    %29 = mmaf %ta, %tb, %iterArg0 : tile<128x64xtf32>, tile<64x128xtf32>, tile<128x128xf32>")


_NEG = ("%2 = subf %1, %bcast_10  : tile<4x1024xf32>\n  %3 = exp2 %2",
        "%2 = subf %1, %bcast_10  : tile<4x1024xf32>\n  %n = negf %2 : tile<4x1024xf32>\n  %3 = exp2 %n")
_ZERO_SUB = "%2 = subf %1, %bcast_10  : tile<4x1024xf32>\n  %z = constant <f32: 0.000000e+00> : tile<4x1024xf32>\n" \
            "  %n = subf %z, %2 : tile<4x1024xf32>\n  %3 = exp2 %n"

#: name -> (reference stem, left edit, right edit)
PAIRS: Dict[str, Tuple[str, Callable[[str], str], Callable[[str], str]]] = {
    "rms_norm_no_rstd": ("rms_norm.fwd_f16_m4_n1024", lambda t: t, _no_rstd),
    "rms_norm_extra_output": ("rms_norm.fwd_f16_m4_n1024", _no_rstd, lambda t: t),
    "rms_norm_out_first": ("rms_norm.fwd_f16_m4_n1024", lambda t: t,
                           lambda t: reorder_arguments(t, [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 16])),
    # a port that takes its outputs first and writes rstd, which the reference does not have
    "rms_norm_out_first_extra_output": ("rms_norm.fwd_f16_m4_n1024", _without_rstd,
                                        lambda t: reorder_arguments(t, [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4,
                                                                        5, 6, 7, 16])),
    # the same with rstd before out: position alone would pair the reference's out with rstd
    "rms_norm_rstd_first_extra_output": ("rms_norm.fwd_f16_m4_n1024", _without_rstd,
                                         lambda t: reorder_arguments(t, [13, 14, 15, 8, 9, 10, 11, 12, 0, 1, 2, 3,
                                                                         4, 5, 6, 7, 16])),
    "rms_norm_eps_constant": ("rms_norm.fwd_f16_m4_n1024", lambda t: t, lambda t: sub(sub(
        t, "%reshape_18 = reshape %arg16 : tile<f32> -> tile<1x1xf32>",
        "%cst_eps = constant <f32: 9.99999974E-6> : tile<f32>\n  %reshape_18 = reshape %cst_eps : tile<f32> -> "
        "tile<1x1xf32>"), ", %arg16: tile<f32>)", ")")),
    "rms_norm_rsqrt_as_sqrt": ("rms_norm.fwd_f16_m4_n1024", lambda t: t, lambda t: sub(
        t, "%6 = rsqrt %5 : tile<4x1xf32>", "%sq = sqrt %5 : tile<4x1xf32>\n"
        "  %one = constant <f32: 1.000000e+00> : tile<4x1xf32>\n  %6 = divf %one, %sq : tile<4x1xf32>")),
    "rms_norm_ftof_after_reshape": ("rms_norm.fwd_f16_m4_n1024", lambda t: t, lambda t: sub(sub(
        t, "%7 = ftof %tile_22  : tile<1024xf16> -> tile<1024xf32>",
        "%r16 = reshape %tile_22 : tile<1024xf16> -> tile<1x1024xf16>"),
        "%reshape_25 = reshape %7 : tile<1024xf32> -> tile<1x1024xf32>",
        "%reshape_25 = ftof %r16 : tile<1x1024xf16> -> tile<1x1024xf32>")),
    "vector_add_store_index": ("vector_add.f32_t1024", lambda t: t,
                               lambda t: sub(t, "%pview_12[%blockId_x]", "%pview_12[%blockId_y]")),
    "vector_add_load_axis": ("vector_add.f32_t1024", lambda t: t,
                             lambda t: sub(t, "%pview_9[%blockId_x]", "%pview_9[%blockId_y]")),
    "vector_add_hints": ("vector_add.f32_t1024", lambda t: t, lambda t: sub(
        t, "optimization_hints=<default = {}>", "optimization_hints=<sm_100 = {num_cta_in_cga = 2}>")),
    "vector_add_static_extent": ("vector_add.f32_t1024", lambda t: t, _static_out),
    "vector_add_out_first": ("vector_add.f32_t1024", lambda t: t,
                             lambda t: reorder_arguments(t, [6, 7, 8, 0, 1, 2, 3, 4, 5])),
    "vector_add_gather_scatter": ("vector_add.f32_t1024", lambda t: t, _gather_scatter),
    "softmax_log2e_changed": ("softmax.f32_row_m4_n1024", lambda t: t,
                              lambda t: sub(t, "<f32: 1.44269502>", "<f32: 1.500000e+00>")),
    "softmax_log2e_argument": ("softmax.f32_row_m4_n1024", lambda t: t, lambda t: sub(sub(sub(
        t, "%arg9: tile<i32>)", "%arg9: tile<i32>, %arg10: tile<f32>)"),
        "  %cst_f32 = constant <f32: 1.44269502> : tile<f32>\n", ""), "%reshape = reshape %cst_f32", "%reshape = reshape %arg10")),
    "softmax_exp_not_exp2": ("softmax.f32_row_m4_n1024", lambda t: t, lambda t: sub(sub(
        t, "%3 = exp2 %2 : tile<4x1024xf32>", "%3 = exp %2 : tile<4x1024xf32>"), "<f32: 1.44269502>", "<f32: 1.000000e+00>")),
    "softmax_zero_minus": ("softmax.f32_row_m4_n1024", lambda t: sub(t, *_NEG),
                           lambda t: sub(t, _NEG[0], _ZERO_SUB)),
    "softmax_two_causes": ("softmax.f32_row_m4_n1024", lambda t: t, lambda t: sub(sub(
        t, "<f32: 1.44269502>", "<f32: 1.500000e+00>"), "%pview_15[%blockId_x, %cst_0_i32_13]",
        "%pview_15[%cst_0_i32_13, %blockId_x]")),
    "matmul_grid_axis": ("matmul.f16_nn_128x128x64", lambda t: t, lambda t: t.replace(
        "divi %blockId_x,", "divi %blockId_y,").replace("remi %blockId_x,", "remi %blockId_y,")),
    "matmul_static_k": ("matmul.f16_nn_128x128x64", lambda t: t, _static_k),
    "matmul_static_mnk": ("matmul.f16_nn_128x128x64", lambda t: t, _static_mnk),
    "matmul_tf32": ("matmul.f16_nn_128x128x64", _f32_matmul, lambda t: _tf32(_f32_matmul(t))),
}


# --- held out (session 11): written with their expect.json before the diff was run on them ----------------

_VA_LOADS = ("  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(1024), "
             "padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<1024xf32>, token\n",
             "  %tile_10, %result_token_11 = load_view_tko weak %pview_9[%blockId_x] token = %0 : partition_view<"
             "tile=(1024), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<1024xf32>, token\n")
_VA_STORE = ("  %2 = store_view_tko weak %1, %pview_12[%blockId_x] token = %0 : tile<1024xf32>, "
             "partition_view<tile=(1024), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token\n")


def _masked_ptr_access(name: str, ptr: str, extent: str) -> str:
    """A 64-bit element index ``%idx`` masked by ``extent``: the pointers ``%<name>p`` and mask ``%<name>m``."""
    return (f"  %{name}n = exti {extent} signed : tile<i32> -> tile<i64>\n"
            f"  %{name}nr = reshape %{name}n : tile<i64> -> tile<1xi64>\n"
            f"  %{name}nb = broadcast %{name}nr : tile<1xi64> -> tile<1024xi64>\n"
            f"  %{name}m = cmpi less_than %idx, %{name}nb, signed : tile<1024xi64> -> tile<1024xi1>\n"
            f"  %{name}r = reshape {ptr} : tile<ptr<f32>> -> tile<1xptr<f32>>\n"
            f"  %{name}b = broadcast %{name}r : tile<1xptr<f32>> -> tile<1024xptr<f32>>\n"
            f"  %{name}p = offset %{name}b, %idx : tile<1024xptr<f32>>, tile<1024xi64> -> tile<1024xptr<f32>>\n")


def _masked_ptr(va: str, store_mask: bool = True) -> str:
    """vector_add as a raw-pointer port writes it: 64-bit element indices, every load and the store
    masked by its array's extent (zero padding), as the view accesses are bounds-checked."""
    index = ("  %c1024 = constant <i64: 1024> : tile<i64>\n"
             "  %bid = exti %blockId_x signed : tile<i32> -> tile<i64>\n"
             "  %base = muli %bid, %c1024 : tile<i64>\n  %i = iota : tile<1024xi64>\n"
             "  %br = reshape %base : tile<i64> -> tile<1xi64>\n"
             "  %bb = broadcast %br : tile<1xi64> -> tile<1024xi64>\n  %idx = addi %i, %bb : tile<1024xi64>\n"
             "  %zf = constant <f32: 0.000000e+00> : tile<1024xf32>\n")
    t = sub(va, _VA_LOADS[0], index + _masked_ptr_access("x", "%assume", "%assume_4")
            + "  %tile, %result_token = load_ptr_tko weak %xp, %xm, %zf token=%0 : tile<1024xptr<f32>>, "
              "tile<1024xi1>, tile<1024xf32> -> tile<1024xf32>, token\n")
    t = sub(t, _VA_LOADS[1], _masked_ptr_access("y", "%assume_0", "%assume_5")
            + "  %tile_10, %result_token_11 = load_ptr_tko weak %yp, %ym, %zf token=%0 : tile<1024xptr<f32>>, "
              "tile<1024xi1>, tile<1024xf32> -> tile<1024xf32>, token\n")
    store = ("  %2 = store_ptr_tko weak %op, %1, %om token=%0 : tile<1024xptr<f32>>, tile<1024xf32>, tile<1024xi1> "
             "-> token\n" if store_mask else
             "  %2 = store_ptr_tko weak %op, %1 token=%0 : tile<1024xptr<f32>>, tile<1024xf32> -> token\n")
    t = sub(t, _VA_STORE, _masked_ptr_access("o", "%assume_1", "%assume_7") + store)
    for pattern in (r"%pview = make_partition_view", r"%pview_9 = make_partition_view",
                    r"%pview_12 = make_partition_view", r"%tview = make_tensor_view", r"%tview_6 = make_tensor_view",
                    r"%tview_8 = make_tensor_view"):
        t = drop_line(t, pattern)
    return t


def _va_doubled(by_add: bool) -> Callable[[str], str]:
    def edit(va: str) -> str:
        if by_add:
            return sub(va, "%1 = addf %tile, %tile_10  : tile<1024xf32>\n",
                       "%s = addf %tile, %tile_10  : tile<1024xf32>\n  %1 = addf %s, %s : tile<1024xf32>\n")
        return sub(va, "%1 = addf %tile, %tile_10  : tile<1024xf32>\n",
                   "%s = addf %tile, %tile_10  : tile<1024xf32>\n"
                   "  %two = constant <f32: 2.000000e+00> : tile<1024xf32>\n  %1 = mulf %two, %s : tile<1024xf32>\n")
    return edit


def _rms_scaled_mean(fused: bool) -> Callable[[str], str]:
    """The mean of squares times 1/N plus eps: as mulf then addf, or as one fma."""
    def edit(rms: str) -> str:
        t = sub(rms, "%4 = divf %reshape, %bcast  : tile<4x1xf32>\n",
                "%one = constant <f32: 1.000000e+00> : tile<4x1xf32>\n  %inv = divf %one, %bcast : tile<4x1xf32>\n")
        if fused:
            return sub(t, "%5 = addf %4, %bcast_19  : tile<4x1xf32>",
                       "%5 = fma %reshape, %inv, %bcast_19  : tile<4x1xf32>")
        return sub(t, "%5 = addf %4, %bcast_19  : tile<4x1xf32>",
                   "%4 = mulf %reshape, %inv : tile<4x1xf32>\n  %5 = addf %4, %bcast_19  : tile<4x1xf32>")
    return edit


def _va_tile(va: str) -> str:
    return va.replace("tile=(1024)", "tile=(512)").replace("tile<1024xf32>", "tile<512xf32>")


def _softmax_rowmax_output(sm: str) -> str:
    """softmax that also writes each row's maximum (of x * log2(e)) to a second output."""
    t = sub(sm, "%arg9: tile<i32>)", "%arg9: tile<i32>, %arg10: tile<ptr<f32>>, %arg11: tile<i32>, %arg12: tile<i32>)")
    t = sub(t, "  %assume_0 = assume div_by<16>, %arg5 : tile<ptr<f32>>\n",
            "  %assume_0 = assume div_by<16>, %arg5 : tile<ptr<f32>>\n"
            "  %amx = assume div_by<16>, %arg10 : tile<ptr<f32>>\n  %amxn = assume bounded<0, ?>, %arg11 : tile<i32>\n"
            "  %tmx = make_tensor_view %amx, shape = [%amxn], strides = [1] : tile<i32> -> "
            "tensor_view<?xf32, strides=[1]>\n")
    return sub(t, "  return\n", "  %pmx = make_partition_view %tmx : partition_view<tile=(4), tensor_view<?xf32, "
               "strides=[1]>>\n  %smx = store_view_tko weak %reduce, %pmx[%blockId_x] token = %0 : tile<4xf32>, "
               "partition_view<tile=(4), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token\n  return\n")


def _matmul_k_off_by_one(mm: str) -> str:
    return sub(mm, "  %for = for %loopIdx in (%cst_0_i32_21 to %26#1,",
               "  %kend = subi %26#1, %cst_1_i32_22 : tile<i32>\n  %for = for %loopIdx in (%cst_0_i32_21 to %kend,")


HELD_OUT: Dict[str, Tuple[str, Callable[[str], str], Callable[[str], str]]] = {
    # outputs first and raw pointers with 64-bit indices, every access masked by its extent
    "vector_add_out_first_masked_ptr": ("vector_add.f32_t1024", lambda t: t,
                                        lambda t: reorder_arguments(_masked_ptr(t), [6, 7, 8, 0, 1, 2, 3, 4, 5])),
    "vector_add_ptr_store_unmasked": ("vector_add.f32_t1024", _masked_ptr,
                                      lambda t: _masked_ptr(t, store_mask=False)),
    "vector_add_double_as_add": ("vector_add.f32_t1024", _va_doubled(False), _va_doubled(True)),
    "vector_add_unpadded_loads": ("vector_add.f32_t1024", lambda t: t,
                                  lambda t: t.replace("tile=(1024), padding_value = zero,", "tile=(1024),")),
    "vector_add_extent_div_hint": ("vector_add.f32_t1024", lambda t: t, lambda t: sub(
        t, "  %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>\n",
        "  %assume_4a = assume bounded<0, ?>, %arg1 : tile<i32>\n"
        "  %assume_4 = assume div_by<1024>, %assume_4a : tile<i32>\n")),
    "vector_add_tile_512": ("vector_add.f32_t1024", lambda t: t, _va_tile),
    "swiglu_grid_axes_swapped": ("swiglu.fwd_f16", lambda t: t, lambda t: t.replace(
        "[%blockId_x, %blockId_y_16]", "[%blockId_y_16, %blockId_x]")),
    "swiglu_one_as_argument": ("swiglu.fwd_f16", lambda t: t, lambda t: sub(sub(sub(
        t, "%arg14: tile<i32>)", "%arg14: tile<i32>, %arg15: tile<f32>)"),
        "  %cst_1_f32_21 = constant <f32: 1.000000e+00> : tile<f32>\n", ""),
        "%reshape = reshape %cst_1_f32_21", "%reshape = reshape %arg15")),
    "swiglu_constants_shared": ("swiglu.fwd_f16", lambda t: t, lambda t: sub(sub(
        t, "  %cst_1_f32_21 = constant <f32: 1.000000e+00> : tile<f32>\n", ""),
        "%reshape = reshape %cst_1_f32_21", "%reshape = reshape %cst_1_f32")),
    "rms_norm_fma_mean_eps": ("rms_norm.fwd_f16_m4_n1024", _rms_scaled_mean(False), _rms_scaled_mean(True)),
    "softmax_second_output_rowmax": ("softmax.f32_row_m4_n1024", lambda t: t, _softmax_rowmax_output),
    "softmax_out_stride_changed": ("softmax.f32_row_m4_n1024", lambda t: t, lambda t: sub(
        t, "strides = [%assume_7, 1]", "strides = [%assume_6, 1]")),
    "softmax_max_identity_zero": ("softmax.f32_row_m4_n1024", lambda t: t, lambda t: sub(
        t, "identities=[0xFF800000 : f32]", "identities=[0.000000e+00 : f32]")),
    "matmul_k_loop_off_by_one": ("matmul.f16_nn_128x128x64", lambda t: t, _matmul_k_off_by_one),
    "silu_and_mul_two_bugs": ("silu_and_mul.f16_m8_h512", lambda t: t, lambda t: sub(sub(
        t, "%cst_1_f32 = constant <f32: 1.000000e+00> : tile<f32>", "%cst_1_f32 = constant <f32: 2.000000e+00> : "
        "tile<f32>"), "%pview_20[%blockId_x, %blockId_y_12]", "%pview_20[%blockId_x, %blockId_x_11]")),
}
PAIRS.update(HELD_OUT)


def write(names=None) -> List[Path]:
    texts: Dict[str, str] = {}
    out = []
    for name, (stem, left, right) in sorted(PAIRS.items()):
        if names and name not in names:
            continue
        base = texts.setdefault(stem, reference_text(stem))
        for side, edit in (("left", left), ("right", right)):
            p = HERE / f"{name}.{side}.tir"
            p.write_text(edit(base))
            out.append(p)
    return out


def expected_texts() -> Dict[str, str]:
    """{file name: text} as this script writes them (for the freshness test)."""
    texts: Dict[str, str] = {}
    out = {}
    for name, (stem, left, right) in sorted(PAIRS.items()):
        base = texts.setdefault(stem, reference_text(stem))
        out[f"{name}.left.tir"] = left(base)
        out[f"{name}.right.tir"] = right(base)
    return out


if __name__ == "__main__":
    for p in write(sys.argv[1:] or None):
        print(p.relative_to(HERE))
