#!/usr/bin/env python3
"""Measures every applicable variant of an operator over a grid of shapes, so that the launchers'
choice (`select_variant` in reference/<op>/kernel.py and the Rust library's, which agree:
tests/rust/test_selection.py) can be checked against measurements instead of guesses.

Runs on the GPU machine (torch, no cuda-tile needed): for each op in GRIDS and each case of its
grid (dtype, shape, strides), every variant that accepts the case is launched from its prebuilt
cubin (build/reference/<op>/<variant>.<arch>.cubin) on identical inputs. Timing: CUDA events
around each launch, L2 flushed (256 MiB memset) before every launch, and the variants of one case
launched round-robin (A B C A B C ...), so every variant has the same predecessors (a flush, then
another kernel) — a launch that follows a launch of the same kernel runs faster even after a
flush on this GPU. Median of --reps per variant.

The script records measurements only; which variant the launcher picks is evaluated on the CPU
side by tests/suite/test_selection_results.py against the committed
docs/results/selection.json: the pick must be within 1.10x of the fastest applicable variant in the
mean of two passes (selection.json and selection_repeat.json), 1.15x in either.

Writes $OUT/selection.json (or --out DIR). `--list` prints the cases, their candidates, a GPU time
estimate and the missing cubins without torch or a GPU (tests/suite/test_bench_selection_grid.py).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import itertools
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tileir_diff.suite.catalog import load_catalog  # noqa: E402

SEED = 1234
# the tolerance the selection is held to (issue: a pick no more than 1.10x the fastest applicable)
TOLERANCE = 1.10


# ------------------------------------------------------------------------------------------
# grids: per op, the cases (the select function's arguments + the shape make_inputs takes) and
# which variants take each. A case lists `args` exactly as the launcher calls its select
# function and `shape`, the symbols of reference/<op>/ref.py's make_inputs; every input here is
# contiguous and 16-byte aligned (make_inputs' default layout), so `aligned` is True throughout.

MIB = 1 << 20
_PREFIX = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}


@dataclass(frozen=True)
class Grid:
    """One select function of an op: its name in kernel.py, the case generator, the predicate
    `applicable(variant, case)`, and for launchers that run several kernels per call the kernel
    names in launch order (a candidate is then one applicable variant of each, named "a,b" as the
    select function names its pick); a stage that more than one kernel can run is a tuple of
    their names."""
    select: str
    cases: Callable[[], Iterable[dict]]
    applicable: Callable[[Any, dict], bool]
    kernels: tuple[str | tuple[str, ...], ...] = ()


def _dtype_of(variant) -> str:
    return variant.dtypes.get("x") or variant.dtypes.get("weight") or variant.dtypes.get("a") \
        or variant.dtypes.get("q")


_ROW_MULTIPLE = re.compile(r"_a(\d+)_")


def _row_applicable(variant, n: int) -> bool:
    """A row kernel (TILE_M rows of TILE_N columns per tile) takes rows of up to TILE_N columns; an
    online/looped kernel any n; an `_a<k>_` variant only n a multiple of k (`_a8_`, `_a4_`, `_a2_`;
    contiguous rows here)."""
    multiple = _ROW_MULTIPLE.search(variant.name)
    if multiple and n % int(multiple.group(1)):
        return False
    looped = "online" in variant.name or "looped" in variant.name
    return looped or n <= variant.constants.get("TILE_N", 0)


def _row_cases(columns, dtypes=("float16", "bfloat16", "float32"), strides_per_call=1):
    """select(dtype, m, n, row_strides) of a row-wise op: each dtype and row length, 64 rows
    (latency), 256 and 1024 rows (about one and a few waves of 132 SMs: where the few-rows and the
    many-rows choices cross) and 32 MiB worth of rows (bandwidth), contiguous rows.
    n = 1000 (not a multiple of 8) measures the fallbacks the `_a8` variants leave."""
    for dtype in dtypes:
        for n in columns:
            for m in sorted({64, 256, 1024, max(64, (1 << 25) // n)}):
                yield {"args": [dtype, m, n, [n] * strides_per_call], "shape": {"M": m, "N": n},
                       "dtype": dtype, "n": n}


def _softmax_cases():
    return _row_cases((128, 520, 1000, 1024, 2048, 4096, 8192, 32768))


def _softmax_applicable(variant, case) -> bool:
    return _dtype_of(variant) == case["dtype"] and _row_applicable(variant, case["n"])


def _cross_entropy_cases():
    """select_variant(dtype, m, v, row stride), contiguous rows: vocabularies of 1000 (one tile),
    4096, 32000 (Llama 2) and 128256 (Llama 3, the bench shape's), all multiples of 8 (where the
    aligned `_fast` variants and the untuned one compete); 64 rows (latency), 256 and 1024 (one and
    a few waves of 132 SMs) and 128 Mi logits (bandwidth: 256 MiB of 16-bit, 512 MiB of f32)."""
    for dtype in ("float16", "bfloat16", "float32"):
        for v in (1000, 4096, 32000, 128256):
            for m in sorted({64, 256, 1024, max(64, (1 << 27) // v)}):
                yield {"args": [dtype, m, v, v], "shape": {"M": m, "V": v}, "dtype": dtype, "n": v}


def _cross_entropy_applicable(variant, case) -> bool:
    """logits dtype; `_a8` variants need v % 8 == 0, `_a4_` ones v % 4 == 0 (contiguous rows here);
    every kernel streams the row in tiles, so any v."""
    n = case["n"]
    return (variant.dtypes["logits"] == case["dtype"]
            and not ("_a8" in variant.name and n % 8) and not ("_a4_" in variant.name and n % 4))


def _argmax_cases():
    """select_variant(dtype, m, n, row stride), contiguous rows: rows of 1000 (unaligned for 16-bit
    and f32: the unaligned `_fast` kernel against the `_m4` ones), 1024 and 2048 (where the aligned
    1024- and 2048-column tiles meet), 32768 (the bench shape's) and 50264 (a vocabulary); 64 rows
    (latency), 256 and 1024 (one and a few waves of 132 SMs) and 32 MiB worth of rows (bandwidth)."""
    for dtype in ("float16", "bfloat16", "float32"):
        for n in (1000, 1024, 2048, 32768, 50264):
            for m in sorted({64, 256, 1024, max(64, (1 << 25) // n)}):
                yield {"args": [dtype, m, n, n], "shape": {"M": m, "N": n}, "dtype": dtype, "n": n}


def _argmax_applicable(variant, case) -> bool:
    """x's dtype; an `_a<k>_` variant only n a multiple of k (contiguous rows here); every kernel
    streams the row in tiles, so any n."""
    multiple = _ROW_MULTIPLE.search(variant.name)
    return variant.dtypes["x"] == case["dtype"] and not (multiple and case["n"] % int(multiple.group(1)))


def _cumsum_cases():
    """select_variant(dtype, m, n, row stride), contiguous rows: rows of 1004 (a multiple of 4, not
    of 8: the f32 `_a4_` `_fast` variants against the unaligned ones), 1024 (the bench shape's row
    kernel; one tile), 2048 (where the looped kernels start), 8192 (the bench shape's looped
    kernel) and 32768; 64 rows (latency), 256 and 1024 (one and a few waves of 132 SMs) and 32 Mi
    elements (bandwidth)."""
    for case in _row_cases((1004, 1024, 2048, 8192, 32768)):
        dtype, m, n, _ = case["args"]
        yield dict(case, args=[dtype, m, n, n])


def _cumsum_applicable(variant, case) -> bool:
    """x's dtype; a row kernel only rows of up to its TILE_N, a looped one any n; an `_a<k>_`
    variant only n a multiple of k."""
    return _dtype_of(variant) == case["dtype"] and _row_applicable(variant, case["n"])


def _rms_norm_cases():
    return _row_cases((128, 520, 1000, 1024, 2048, 4096, 8192, 16384))


def _rms_norm_applicable(variant, case) -> bool:
    return (variant.name.startswith("fwd_") and _dtype_of(variant) == case["dtype"]
            and _row_applicable(variant, case["n"]))


def _rms_norm_bwd_cases():
    """select_bwd_variant(dtype, m, n, (dy, x, dx, dw_partial row strides)): the backward kernels
    take n <= 1024; 16-bit only (f32 has one variant) and n a multiple of 8 (otherwise only the
    untuned kernel applies)."""
    return _row_cases((128, 512, 1024), dtypes=("float16", "bfloat16"), strides_per_call=4)


def _rms_norm_bwd_applicable(variant, case) -> bool:
    return (variant.name.startswith("bwd_") and _dtype_of(variant) == case["dtype"]
            and _row_applicable(variant, case["n"]))


def _layer_norm_cases():
    return _row_cases((128, 520, 1000, 1024, 2048, 4096, 8192), strides_per_call=2)


def _layer_norm_applicable(variant, case) -> bool:
    return (variant.kernel.startswith("layer_norm_fwd") and _dtype_of(variant) == case["dtype"]
            and _row_applicable(variant, case["n"]))


def _embedding_cases():
    """select_variant(weight dtype, ids dtype, tokens, rows, hidden, weight row, out row): the
    weight/ids dtypes that have a rows and a gather variant, and those with a plain and an `_a8`
    rows variant (16-bit tables), 1 to 16384 tokens around the gather/rows switch, a 32000-row
    table."""
    for weight, ids in (("bfloat16", "int32"), ("float32", "int32"), ("float16", "int32"), ("bfloat16", "int64")):
        for hidden in (1024, 4096):
            for tokens in (1, 8, 32, 64, 128, 512, 2048, 16384):
                vocab = 32000
                yield {"args": [weight, ids, tokens, vocab, hidden, hidden, hidden],
                       "shape": {"T": tokens, "V": vocab, "H": hidden}, "dtypes": (weight, ids), "n": hidden}


def _embedding_applicable(variant, case) -> bool:
    multiple = _ROW_MULTIPLE.search(variant.name)  # `_a8_`: H a multiple of 8
    return (variant.dtypes["weight"], variant.dtypes["ids"]) == case["dtypes"] and \
        not (multiple and case["n"] % int(multiple.group(1)))


def _fp8_quantize_cases():
    """select_variant(dtype, m, n, x row, q row), contiguous rows: 16-bit rows up to the tiles'
    widths (4000: a multiple of 16 but not of the tile; 1000 and 4008: of 8 only, where `_a16`
    does not apply), at _row_cases' row counts (longer bf16 rows have one candidate, the looped kernel).
    bf16 rows of 1024 and 2048 columns (up to SHORT_ROW) also at 4096 and 8192 rows: between
    MANY_SHORT_ROWS and 32 MiB worth of rows, where the 2- and 4-row `_a8_fast` tiles cross."""
    for dtype, columns in (("bfloat16", (1024, 2048, 4000, 4008, 4096)), ("float16", (512, 1000, 1024))):
        for case in _row_cases(columns, dtypes=(dtype,)):
            m, n = case["args"][1], case["args"][2]
            yield {**case, "args": [dtype, m, n, n, n]}
    for n in (1024, 2048):
        for m in (4096, 8192):
            yield {"args": ["bfloat16", m, n, n, n], "shape": {"M": m, "N": n}, "dtype": "bfloat16", "n": n}


def _fp8_quantize_applicable(variant, case) -> bool:
    """As _row_applicable, and q's rows (n bytes here) 16-byte multiples for the kernels without
    the `_a8` contract (which takes 8)."""
    n = case["n"]
    q_row_ok = n % 16 == 0 or ("_a8_" in variant.name and n % 8 == 0)
    return _dtype_of(variant) == case["dtype"] and _row_applicable(variant, n) and q_row_ok


def _vector_add_cases():
    """select_variant(dtype, n, strides), contiguous: 4 Ki elements (one wave, latency), 1 Mi and
    32 Mi (384 MiB of f32 traffic: bandwidth). n = 1000003 leaves the 16-bit `_a8` variants out,
    so only f32 (plain and strided kernel) has two candidates there."""
    for dtype in ("float16", "bfloat16", "float32"):
        for n in (4096, 1 << 20, 1 << 25) + ((1000003,) if dtype == "float32" else ()):
            yield {"args": [dtype, n, [1, 1, 1]], "shape": {"N": n}, "dtype": dtype, "n": n}


def _vector_add_applicable(variant, case) -> bool:
    """dtype; `_a8` needs n % 8 == 0; the strided kernel takes contiguous arrays as well."""
    return _dtype_of(variant) == case["dtype"] and not ("_a8" in variant.name and case["n"] % 8)


def _dropout_cases():
    """select_variant(dtype, n, (x, out strides)), contiguous: 4 Ki elements (a few blocks:
    latency), 1 Mi, 16 Mi and the bench shape's 64 Mi (bandwidth). 16-bit lengths are multiples
    of 8 (the general variant, `_a8` and the `_fast` tiles all take them); f32 has its plain and
    strided kernels, also at n = 1000003."""
    for dtype in ("float16", "bfloat16", "float32"):
        for n in (4096, 1 << 20, 1 << 24, 1 << 26) + ((1000003,) if dtype == "float32" else ()):
            yield {"args": [dtype, n, [1, 1]], "shape": {"N": n}, "dtype": dtype, "n": n}


def _dropout_applicable(variant, case) -> bool:
    """dtype; the `_a8` variants (the `_fast` ones included) need n % 8 == 0; the strided kernel
    takes contiguous arrays as well."""
    return _dtype_of(variant) == case["dtype"] and not ("_a8" in variant.name and case["n"] % 8)


def _gelu_cases():
    """select_variant(approximate, dtype, m, n, (x, out row strides)), contiguous rows: both forms,
    the three dtypes (each with its general, `_a8` and `_fast` variants: f32's `_a4_fast` ones,
    (1, 1024) and (1, 2048), 16-bit's `_a8_fast`), rows of 64 (where a (1, 1024) tile is mostly
    masked) to 4096 columns, 64 rows (latency) and 32 MiB of input (bandwidth)."""
    for approximate in ("none", "tanh"):
        for dtype in ("float16", "bfloat16", "float32"):
            for n in (64, 256, 512, 1024, 4096):
                for m in sorted({64, max(64, (1 << 25) // (n * (4 if dtype == "float32" else 2)))}):
                    yield {"args": [approximate, dtype, m, n, [n, n]], "shape": {"M": m, "N": n},
                           "dtype": dtype, "approx": int(approximate == "tanh"), "n": n}


def _gelu_applicable(variant, case) -> bool:
    """Same dtype and form; the `_a8` variants (the 16-bit `_fast` ones included) need n % 8 == 0,
    the f32 `_a4_fast` ones n % 4 == 0."""
    return (_dtype_of(variant) == case["dtype"] and variant.constants["APPROX"] == case["approx"]
            and not ("_a8" in variant.name and case["n"] % 8) and not ("_a4" in variant.name and case["n"] % 4))



def _swiglu_cases():
    """select_variant(dtype, m, n, (a, b, c row strides)), contiguous rows: the three dtypes (f32
    has one aligned and one general forward variant, 16-bit also the `_fast` one), rows of 64
    (where a (1, 1024) tile is mostly masked) to 4096 columns, 64 rows (latency) and 32 MiB of
    each input (bandwidth)."""
    for dtype in ("float16", "bfloat16", "float32"):
        columns = (64, 256, 512, 1024, 4096) if dtype != "float32" else (256, 4096)
        for n in columns:
            for m in sorted({64, max(64, (1 << 25) // (n * (4 if dtype == "float32" else 2)))}):
                yield {"args": [dtype, m, n, [n, n, n]], "shape": {"M": m, "N": n}, "dtype": dtype, "n": n}


def _swiglu_applicable(variant, case) -> bool:
    """Forward kernels of the same dtype; the `_a8` variants (the `_fast` ones included) need n % 8 == 0."""
    return (variant.kernel.startswith("swiglu_fwd") and _dtype_of(variant) == case["dtype"]
            and not ("_a8" in variant.name and case["n"] % 8))


def _swiglu_bwd_cases():
    """select_bwd_variant(dtype, m, n, (dc, a, b, da, db row strides)): the forward's grid (three
    inputs and two outputs of the same shape, 32 MiB of each input)."""
    for case in _swiglu_cases():
        dtype, m, n, _ = case["args"]
        yield {**case, "args": [dtype, m, n, [n] * 5]}


def _swiglu_bwd_applicable(variant, case) -> bool:
    """Backward kernels of the same dtype; the `_a8` variants (the `_fast` ones included) need n % 8 == 0."""
    return (variant.kernel.startswith("swiglu_bwd") and _dtype_of(variant) == case["dtype"]
            and not ("_a8" in variant.name and case["n"] % 8))


def _silu_and_mul_cases():
    """select_variant(dtype, m, h, (x, out row strides)), contiguous x (m, 2h): as swiglu's grid,
    halves of 64 to 4096 columns, 64 rows and 32 MiB of x."""
    for dtype in ("float16", "bfloat16", "float32"):
        halves = (64, 256, 512, 1024, 4096) if dtype != "float32" else (256, 4096)
        for h in halves:
            for m in sorted({64, max(64, (1 << 25) // (2 * h * (4 if dtype == "float32" else 2)))}):
                yield {"args": [dtype, m, h, [2 * h, h]], "shape": {"M": m, "H": h}, "dtype": dtype, "n": h}


def _silu_and_mul_applicable(variant, case) -> bool:
    """Same dtype; the `_a8` variants (the `_fast` ones included) need h % 8 == 0."""
    return _dtype_of(variant) == case["dtype"] and not ("_a8" in variant.name and case["n"] % 8)

_GEMM_LAYOUTS = {"nn": (False, False), "tn": (True, False), "nt": (False, True), "tt": (True, True)}


def _matmul_cases():
    """select_variant(dtype, m, n, trans_a, trans_b, aligned) for f16/bf16 NN, TN, NT and f32 (tf32)
    NT (the layouts with several variants; TT and tf32 NN have one each): 512^3 (latency: 16
    tiles), 2048^3, and 8192x8192x4096 (compute-bound, far above WIDE_TILE_MIN_MN; 384 MiB, 512 MiB
    in f32)."""
    for dtype, layouts in (("float16", ("nn", "tn", "nt")), ("bfloat16", ("nn", "tn", "nt")), ("float32", ("nt",))):
        for layout in layouts:
            ta, tb = _GEMM_LAYOUTS[layout]
            for m, n, k in ((512, 512, 512), (2048, 2048, 2048), (8192, 8192, 4096)):
                yield {"args": [dtype, m, n, ta, tb, True], "shape": {"M": m, "N": n, "K": k},
                       "dtype": dtype, "trans": (ta, tb)}


def _matmul_applicable(variant, case) -> bool:
    """Same input dtype and stored layout (TRANS_A/TRANS_B); aligned operands are taken by every
    tile shape, the 64x64x32 unaligned fallback included (masked loads)."""
    c = variant.constants
    return (not variant.kernel.startswith("matmul_fp8") and variant.dtypes["a"] == case["dtype"]
            and (c["TRANS_A"], c["TRANS_B"]) == case["trans"])


def _matmul_fp8_cases():
    """select_fp8_variant(out_dtype, m, n, trans_a, trans_b): e4m3 A (M, K), B (N, K) only; 1024^3
    (64 tiles of 128x128: the one-tile grid), 4096^3 and 8192^3 (64 + 64 + 128 MiB at f16 out)."""
    for out_dtype in ("float16", "bfloat16"):
        for size in (1024, 4096, 8192):
            yield {"args": [out_dtype, size, size, False, True], "shape": {"M": size, "N": size, "K": size},
                   "dtype": out_dtype}


def _matmul_fp8_applicable(variant, case) -> bool:
    return variant.kernel.startswith("matmul_fp8") and variant.dtypes["c"] == case["dtype"]


def _bmm_cases():
    """select_variant(dtype, batch, m, n, trans_b, aligned) where a case has several variants: f16 and
    bf16 NN and NT, f32 (tf32) NN and NT: attention-like 64x(128^3), the select rule's small bound
    (256^3, B=256), 512^3 (B=32), one 2048^3 matrix (128 tiles of 128x256: one block each on the
    one-tile or the persistent grid), and 2048^3 (B=16 at 16 bits, 8 at f32: 384 MiB;
    compute-bound)."""
    for dtype, trans_b in (("float16", False), ("float16", True), ("bfloat16", False), ("bfloat16", True),
                           ("float32", False), ("float32", True)):
        for batch, m, n, k in ((64, 128, 128, 128), (256, 256, 256, 256), (32, 512, 512, 512), (1, 2048, 2048, 2048),
                               (16 if dtype != "float32" else 8, 2048, 2048, 2048)):
            yield {"args": [dtype, batch, m, n, trans_b, True], "shape": {"B": batch, "M": m, "N": n, "K": k},
                   "dtype": dtype, "trans_b": trans_b}


def _bmm_applicable(variant, case) -> bool:
    return variant.dtypes["a"] == case["dtype"] and variant.constants["TRANS_B"] == case["trans_b"]


def _group_gemm_cases():
    """select_variant(dtype, trans_w, aligned): bf16 (G, K, N) and (G, N, K) weights, 8 experts
    (Mixtral-like) at 256, 2048 and 16384 tokens; f16 (G, N, K) with 64 small experts (the f16
    variant's use). Weights up to 128 MiB, the largest case 320 MiB."""
    for trans_w in (False, True):
        for tokens in (256, 2048, 16384):
            yield {"args": ["bfloat16", trans_w, True],
                   "shape": {"T": tokens, "G": 8, "K": 4096, "N": 2048, "split": "even"},
                   "dtype": "bfloat16", "trans_w": trans_w}
    for tokens in (256, 4096):
        yield {"args": ["float16", True, True], "shape": {"T": tokens, "G": 64, "K": 2048, "N": 512, "split": "even"},
               "dtype": "float16", "trans_w": True}


def _group_gemm_applicable(variant, case) -> bool:
    """dtype and weight layout; the sliced kernels trust the offsets to lie in [0, T], which
    make_inputs' splits do."""
    return variant.dtypes["a"] == case["dtype"] and variant.constants["TRANS_W"] == case["trans_w"]


def _flash_attention_cases():
    """select_variant(dtype, head_dim, query_group, causal) for each built combination (each has a
    tuned and an untuned variant), Hq = 32, at sequence lengths 512 (B=4, latency), 2048 (B=2)
    and 8192 (B=1; 64 MiB per q/o tensor at D=128)."""
    built = (("float16", 64, 1, False), ("float16", 64, 1, True), ("bfloat16", 128, 1, True),
             ("bfloat16", 128, 4, True), ("bfloat16", 128, 8, False))
    for dtype, d, group, causal in built:
        for batch, seq in ((4, 512), (2, 2048), (1, 8192)):
            yield {"args": [dtype, d, group, causal],
                   "shape": {"B": batch, "Hq": 32, "Sq": seq, "Sk": seq, "Hkv": 32 // group},
                   "key": (dtype, d, group, causal)}


def _flash_attention_applicable(variant, case) -> bool:
    c = variant.constants
    return (variant.dtypes["q"], c["D"], c["QUERY_GROUP"], c["CAUSAL"]) == case["key"]


def _rope_cases():
    """select_variant(dtype, head_dim, is_neox) for each built combination (an untuned and a tuned
    variant each), Hq = 32, Hkv = 8, 32 Ki positions: 1 token (decode), 512 and 16384 tokens
    (bandwidth: 320 MiB of q, k and outputs at D=128)."""
    for dtype, d, neox in (("bfloat16", 128, True), ("float16", 64, True), ("bfloat16", 128, False)):
        for tokens in (1, 512, 16384):
            yield {"args": [dtype, d, neox], "shape": {"T": tokens, "Hq": 32, "Hkv": 8, "P": 32768},
                   "key": (dtype, d, neox)}


def _rope_applicable(variant, case) -> bool:
    """(dtype, D, pairing); the split kernel is rotate-half (neox) by construction."""
    neox = variant.constants.get("IS_NEOX", variant.kernel.startswith("rope_neox_split"))
    return (variant.dtypes["q"], variant.constants["D"], neox) == case["key"]


def _splitk_cases():
    """select_variant(dtype, aligned) -> (partial, reduce): split-K is for small M * N; decode
    (M=16, S=4), the bench shape (M=64, N=4096, K=16384, S=16) and M=128, N=8192 (S=8)."""
    for dtype in ("float16", "bfloat16"):
        for m, n, k, s in ((16, 4096, 4096, 4), (64, 4096, 16384, 16), (128, 8192, 8192, 8)):
            yield {"args": [dtype, True], "shape": {"M": m, "N": n, "K": k, "S": s}, "dtype": dtype}


def _splitk_applicable(variant, case) -> bool:
    return (variant.dtypes.get("a") or variant.dtypes["c"]) == case["dtype"]


def _flash_decode_cases():
    """select_variant(dtype, D, query_group, S) -> "partial,combine": the three built (dtype, D,
    group) combinations (Hq 32, 32, 64) at the bench shapes' cache length (Smax 8192, S 8), a short
    cache (Smax 1024, S 4) and a long one (Smax 32768, S 16); every sequence full; B up to 32, as
    many as keep k and v within 512 MiB."""
    for dtype, d, group, hq in (("bfloat16", 128, 1, 32), ("bfloat16", 128, 4, 32), ("float16", 64, 8, 64)):
        for smax, s in ((8192, 8), (1024, 4), (32768, 16)):
            b = max(1, min(32, (512 << 20) // (4 * (hq // group) * smax * d)))
            yield {"args": [dtype, d, group, s], "key": (dtype, d, group),
                   "shape": {"B": b, "Hq": hq, "Hkv": hq // group, "Smax": smax, "S": s, "lens": "full"}}


def _flash_decode_applicable(variant, case) -> bool:
    """A partial built for (dtype, D, group); the combine for (dtype, D)."""
    dtype, d, group = case["key"]
    if variant.kernel.startswith("flash_decode_combine"):
        return (variant.dtypes["o"], variant.constants["D"]) == (dtype, d)
    return (variant.dtypes["q"], variant.constants["D"], variant.constants["QUERY_GROUP"]) == (dtype, d, group)


# op -> one grid per select function that has a choice to measure (rows carry its name in "select")
GRIDS: dict[str, tuple[Grid, ...]] = {
    "embedding": (Grid("select_variant", _embedding_cases, _embedding_applicable),),
    "fp8_quantize": (Grid("select_variant", _fp8_quantize_cases, _fp8_quantize_applicable),),
    "softmax": (Grid("select_variant", _softmax_cases, _softmax_applicable),),
    "cross_entropy": (Grid("select_variant", _cross_entropy_cases, _cross_entropy_applicable),),
    "argmax": (Grid("select_variant", _argmax_cases, _argmax_applicable),),
    "cumsum": (Grid("select_variant", _cumsum_cases, _cumsum_applicable),),
    "layer_norm": (Grid("select_variant", _layer_norm_cases, _layer_norm_applicable),),
    "rms_norm": (Grid("select_variant", _rms_norm_cases, _rms_norm_applicable),
                 Grid("select_bwd_variant", _rms_norm_bwd_cases, _rms_norm_bwd_applicable)),
    "vector_add": (Grid("select_variant", _vector_add_cases, _vector_add_applicable),),
    "dropout": (Grid("select_variant", _dropout_cases, _dropout_applicable),),
    "gelu": (Grid("select_variant", _gelu_cases, _gelu_applicable),),
    "swiglu": (Grid("select_variant", _swiglu_cases, _swiglu_applicable),
               Grid("select_bwd_variant", _swiglu_bwd_cases, _swiglu_bwd_applicable)),
    "silu_and_mul": (Grid("select_variant", _silu_and_mul_cases, _silu_and_mul_applicable),),
    "matmul": (Grid("select_variant", _matmul_cases, _matmul_applicable),
               Grid("select_fp8_variant", _matmul_fp8_cases, _matmul_fp8_applicable)),
    "bmm": (Grid("select_variant", _bmm_cases, _bmm_applicable),),
    "group_gemm": (Grid("select_variant", _group_gemm_cases, _group_gemm_applicable),),
    "flash_attention": (Grid("select_variant", _flash_attention_cases, _flash_attention_applicable),),
    "rope": (Grid("select_variant", _rope_cases, _rope_applicable),),
    "splitk_matmul": (Grid("select_variant", _splitk_cases, _splitk_applicable,
                           kernels=("splitk_partial", "splitk_reduce")),),
    "flash_decode": (Grid("select_variant", _flash_decode_cases, _flash_decode_applicable,
                          kernels=(("flash_decode_partial", "flash_decode_partial_tp", "flash_decode_partial_tp_o4",
                                    "flash_decode_partial_v"),
                                   ("flash_decode_combine", "flash_decode_combine_o8"))),),
}


def _key(*fields):
    """A variant's selection key: its kernel, then per field (name, "dtype") variant.dtypes[name]
    or (name, "c") variant.constants[name]."""
    def key(variant):
        return (variant.kernel,) + tuple(variant.dtypes.get(f[0]) if f[1] == "dtype" else variant.constants.get(f[0])
                                         for f in fields)
    return key


# Select functions with no grid: each (dtype, shape) has exactly one variant per kernel, so there
# is nothing to measure a choice between. `key` names what select chooses on; the test
# (tests/suite/test_bench_selection_grid.py) checks no two variants share a key, so a second
# variant for some combination makes the op need a grid.
EXCLUDED = {
    ("attention_sink", "select_variant"):
        ("one variant per (dtype, D, query group, window)",
         _key(("q", "dtype"), ("D", "c"), ("QUERY_GROUP", "c"), ("WINDOW", "c"))),
    ("fused_moe", "select_variant"):
        ("one variant per (dtype, BM, topk, routed-weight scale)",
         _key(("hidden", "dtype"), ("BM", "c"), ("TOPK", "c"), ("MUL_ROUTED_WEIGHT", "c"))),
    ("moe_align_block_size", "select_variant"):
        ("one (histogram, sort) pair per BLOCK_M / E_PAD", _key(("BLOCK_M", "c"), ("E_PAD", "c"))),
}


def candidates(grid: Grid, op, case) -> dict[str, tuple]:
    """The applicable candidates of a case: name -> the variants launched in order (one, or one
    per kernel of grid.kernels, every combination)."""
    variants = [v for v in op.variants if grid.applicable(v, case)]
    if not grid.kernels:
        return {v.name: (v,) for v in variants}
    per_kernel = [[v for v in variants if (v.kernel == k if isinstance(k, str) else v.kernel in k)]
                  for k in grid.kernels]
    return {",".join(v.name for v in combo): combo for combo in itertools.product(*per_kernel)}


def estimate_seconds(combo, shape, warmup: int, reps: int) -> float:
    """Rough GPU seconds of one candidate's rounds: each launch at 3 TB/s of its bytes or 400
    TFLOP/s of its flops (at least 5 us), plus 20 ms of input creation and 256 MiB L2 flushes."""
    kernel = sum(max(5e-6, v.bytes_for(shape) / 3e12, (v.flops_for(shape) or 0) / 4e14) for v in combo)
    return (warmup + reps) * (kernel + 256 * MIB / 3e12) + 0.02


# ------------------------------------------------------------------------------------------
# measurement


def _load_ref(op):
    spec = importlib.util.spec_from_file_location(f"_ref_{op.op}", op.ref_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure_case(torch, launches: dict, warmup: int, reps: int, flush) -> dict:
    """Median device time (us) of each launch, round-robin with an L2 flush before every launch."""
    names = sorted(launches)
    for _ in range(warmup):
        for name in names:
            launches[name]()
    torch.cuda.synchronize()
    events = {name: [] for name in names}
    for _ in range(reps):
        for name in names:
            flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            launches[name]()
            end.record()
            events[name].append((start, end))
    torch.cuda.synchronize()
    out = {}
    for name in names:
        times = sorted(s.elapsed_time(e) * 1000.0 for s, e in events[name])
        out[name] = round(times[len(times) // 2], 3)
    return out


def run_grid(torch, op, grid: Grid, ref, build_root: Path, arch: str, warmup: int, reps: int, flush) -> list[dict]:
    from tileir_diff.launch import prepare_launch

    rows = []
    for case in grid.cases():
        combos = candidates(grid, op, case)
        if len(combos) < 2:
            continue  # one candidate: nothing to choose
        launches, keep = {}, []
        for name, combo in combos.items():
            steps = []
            try:
                for v in combo:
                    inputs = ref.make_inputs(v.raw, case["shape"], seed=SEED, device="cuda")
                    keep.append(inputs)
                    steps.append(prepare_launch(v, build_root / op.op / f"{v.name}.{arch}.cubin", inputs))
            except Exception as exc:  # a grid's applicability wrong for one candidate: say so, time the others
                print(f"[{op.op}.{grid.select}] {case['args']}: {name} not launchable, left out: {exc}", flush=True)
                continue
            launches[name] = steps[0] if len(steps) == 1 else (lambda steps=steps: [s() for s in steps])
        if len(launches) < 2:
            continue
        times = measure_case(torch, launches, warmup, reps, flush)
        fastest = min(times, key=times.get)
        rows.append({"op": op.op, "select": grid.select, "args": case["args"], "shape": case["shape"],
                     "times_us": times, "fastest": fastest})
        print(f"[{op.op}.{grid.select}] {case['shape']} {case['args']}: fastest {fastest} "
              + " ".join(f"{k}={v}" for k, v in times.items()), flush=True)
        del keep, launches
        torch.cuda.empty_cache()
    return rows


def run_op(torch, op, build_root: Path, arch: str, warmup: int, reps: int, flush) -> list[dict]:
    ref = _load_ref(op)
    rows = []
    for grid in GRIDS[op.op]:
        rows.extend(run_grid(torch, op, grid, ref, build_root, arch, warmup, reps, flush))
    return rows


def list_grids(ops, build_root: Path, arch: str, warmup: int, reps: int) -> int:
    """--list: each case's applicable candidates, then per op the cases, launches, estimated GPU
    seconds and the cubins missing under build_root (no GPU, no torch)."""
    summary, missing = [], []
    for op in load_catalog(REPO / "reference", ops=ops):
        cases = launches = 0
        seconds = 0.0
        for grid in GRIDS[op.op]:
            for case in grid.cases():
                combos = candidates(grid, op, case)
                print(f"{op.op}.{grid.select} {json.dumps(case['args'])} {json.dumps(case['shape'])}: "
                      + (" ".join(combos) if len(combos) >= 2 else f"(skipped: {len(combos)} candidate)"))
                if len(combos) < 2:
                    continue
                cases += 1
                launches += len(combos) * (warmup + reps)
                seconds += sum(estimate_seconds(c, case["shape"], warmup, reps) for c in combos.values())
                missing.extend(f"{op.op}/{v.name}.{arch}.cubin" for c in combos.values() for v in c
                               if not (build_root / op.op / f"{v.name}.{arch}.cubin").is_file())
        summary.append((op.op, cases, launches, seconds))
    print(f"\n{'op':22s} {'cases':>5s} {'launches':>9s} {'est. GPU s':>10s}")
    for name, cases, launches, seconds in summary:
        print(f"{name:22s} {cases:5d} {launches:9d} {seconds:10.1f}")
    print(f"{'total':22s} {sum(r[1] for r in summary):5d} {sum(r[2] for r in summary):9d} "
          f"{sum(r[3] for r in summary):10.1f}")
    unique = sorted(set(missing))
    print(f"missing cubins under {build_root}: " + (", ".join(unique) if unique else "none"))
    return 1 if unique else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--op", action="append", dest="ops", help="ops to run (default: every op in GRIDS)")
    parser.add_argument("--build-root", default=str(REPO / "build" / "reference"))
    parser.add_argument("--arch", default=None)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--reps", type=int, default=21)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--list", action="store_true",
                        help="print the cases, their candidates and a GPU time estimate; no GPU, no torch")
    args = parser.parse_args(argv)
    ops = args.ops or sorted(GRIDS)
    unknown = set(ops) - set(GRIDS)
    if unknown:
        raise SystemExit(f"no selection grid for: {sorted(unknown)} (have {sorted(GRIDS)})")
    if args.list:
        return list_grids(ops, Path(args.build_root), args.arch or "sm_90", args.warmup, args.reps)

    import torch

    major, minor = torch.cuda.get_device_capability(0)
    arch = args.arch or f"sm_{major}{minor}"
    flush = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device="cuda")
    rows = []
    for op in load_catalog(REPO / "reference", ops=ops):
        rows.extend(run_op(torch, op, Path(args.build_root), arch, args.warmup, args.reps, flush))
    props = torch.cuda.get_device_properties(0)
    doc = {
        "schema_version": 1,
        "environment": {
            "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "gpu": props.name, "arch": arch, "torch": torch.__version__,
            "timing": (f"CUDA events around each launch, L2 flushed (256 MiB memset) before each launch, the "
                       f"variants of a case round-robin, median of {args.reps} after {args.warmup} warmup rounds"),
        },
        "tolerance": TOLERANCE,
        "rows": rows,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "selection.json").write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {out / 'selection.json'}: {len(rows)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
