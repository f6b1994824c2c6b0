"""The Rust library's variant selection against the reference launchers (`select_variant` in
reference/<op>/kernel.py) over a grid of shapes, dtypes, strides and alignments.

No GPU: each call passes validation with fake device addresses and stops at the driver, and
`tileir_kernels_selected_variant` names the variant it chose. A combination the launcher has
no variant for must be refused before selection.
"""
from __future__ import annotations

import ctypes
import itertools
from pathlib import Path

import pytest

from tileir_diff import ports
from tileir_diff.ports import Status

from ..launchers import launcher
from .test_abi import PAST_VALIDATION, t

pytestmark = pytest.mark.cargo

REFERENCE = Path(__file__).resolve().parents[2] / "reference"
DTYPES = ("float16", "bfloat16", "float32")


_launcher = launcher


@pytest.fixture(scope="module")
def lib(ports_library):
    lib = ports.load_library(ports_library)
    for op in ports.PORTED_OPS:  # a variant another test forced on this thread would bypass selection
        lib.tileir_kernels_force_variant(op.encode(), None)
    return lib


def _call(lib, symbol, *args):
    """(status, selected variant name or None) of one cutile_<op> call."""
    refs = [ctypes.byref(a) if isinstance(a, ports._abi.TileirTensor) else a for a in args]
    status = Status(getattr(lib, symbol)(*refs, 0, 0))
    return status, (lib.tileir_kernels_selected_variant().decode() or None)


def _agree(lib, expected, symbol, *args, case=""):
    status, selected = _call(lib, symbol, *args)
    message = lib.tileir_kernels_last_error().decode()
    assert selected == expected, f"{symbol} {case}: Rust chose {selected}, the launcher {expected} ({message})"
    if expected is None:
        assert status not in PAST_VALIDATION, f"{symbol} {case}: accepted without a variant"
    else:
        assert status in PAST_VALIDATION, f"{symbol} {case}: {status.name} {message}"
    return expected


def test_selected_variant_is_reset_by_each_call(lib):
    x = t(1, "float16", [1000])
    assert _call(lib, "cutile_vector_add", x, t(2, "float16", [1000]), t(3, "float16", [1000]))[1] == "f16_a8_t1024"
    assert _call(lib, "cutile_vector_add", x, t(2, "float16", [1001]), t(3, "float16", [1000])) \
        == (Status.SHAPE_MISMATCH, None)


def test_vector_add_selection(lib):
    launcher = _launcher("vector_add")
    seen = set()
    for dtype, n, x_stride in itertools.product(DTYPES + ("int32",), (1, 7, 8, 1000, 1000003, 1048576), (1, 2)):
        strides = (x_stride, 1, 1)
        expected = launcher.select_variant(dtype, n, strides)
        args = [t(i + 1, dtype, [n], [s]) for i, s in enumerate(strides)]
        seen.add(_agree(lib, expected, "cutile_vector_add", *args, case=f"{dtype} n={n} strides={strides}"))
    assert {"f16_a8_t1024", "bf16_t1024", "f32_t1024", "f32_strided_t1024", None} <= seen


def test_dropout_selection(lib):
    launcher = _launcher("dropout")
    seen = set()
    for dtype, n, x_stride in itertools.product(DTYPES + ("int32",), (1, 7, 8, 40, 1000, 1000003, 1048576), (1, 2)):
        strides = (x_stride, 1)
        expected = launcher.select_variant(dtype, n, strides)
        x, out = t(1, dtype, [n], [x_stride]), t(2, dtype, [n])
        seen.add(_agree(lib, expected, "cutile_dropout", x, out, ctypes.c_int32(7), ctypes.c_float(0.5),
                        case=f"{dtype} n={n} strides={strides}"))
    # aligned 16-bit lengths take the (1024,) dropout_fast tiles; the (2048,) ones and the `_a8`
    # dropout variants are only ever forced
    assert seen == {"f16_a8_fast_t1024", "bf16_a8_fast_t1024", "f16_t1024", "bf16_t1024", "f32_t1024",
                    "f32_strided_t1024", None}, seen


def test_gelu_selection(lib):
    launcher = _launcher("gelu")
    seen = set()
    # 4-element multiples that are not 8-element ones (100, 516, 1004) and a pad of 4: the f32 16-byte rows
    columns = (1, 8, 64, 100, 504, 511, 512, 516, 520, 1000, 1004, 1024, 4096, 8200)
    for (approximate, flag), dtype, m, n, pad in itertools.product(
            (("none", 0), ("tanh", 1)), DTYPES + ("int32",), (1, 3, 300, 2048, 2049, 70000), columns, (0, 3, 4, 8)):
        stride = n + pad  # an (m, n) view into rows of n + pad elements
        expected = launcher.select_variant(approximate, dtype, m, n, (stride, n))
        x, out = t(1, dtype, [m, n], [stride, 1]), t(2, dtype, [m, n])
        seen.add(_agree(lib, expected, "cutile_gelu", x, out, flag,
                        case=f"{approximate} {dtype} ({m}, {n}) row stride {stride}"))
    # Every variant: the `_fast` ones (long rows or few rows; f32 from 16-byte rows), `_a8` for many short
    # rows, the general ones unaligned; the (1, 2048) f32 `_fast` tiles are only ever forced.
    forms = [(form, prefix) for form in ("erf", "tanh") for prefix in ("f16", "bf16", "f32")]
    expected_all = ({f"{form}_{prefix}" for form, prefix in forms} | {f"{form}_{prefix}_a8" for form, prefix in forms}
                    | {f"{form}_{prefix}_a8_fast_m1_n1024" for form, prefix in forms if prefix != "f32"}
                    | {f"{form}_f32_a4_fast_m1_n1024" for form in ("erf", "tanh")} | {None})
    assert seen == expected_all, sorted(map(str, seen ^ expected_all))



def test_swiglu_forward_selection(lib):
    launcher = _launcher("swiglu")
    seen = set()
    columns = (1, 8, 64, 504, 511, 512, 520, 1000, 1024, 4096, 8200)
    for dtype, m, n, pad in itertools.product(DTYPES + ("int32",), (1, 3, 300, 2048, 2049, 70000), columns, (0, 3, 8)):
        stride = n + pad  # a is an (m, n) view into rows of n + pad elements
        expected = launcher.select_variant(dtype, m, n, (stride, n, n))
        a, b, c = t(1, dtype, [m, n], [stride, 1]), t(2, dtype, [m, n]), t(3, dtype, [m, n])
        seen.add(_agree(lib, expected, "cutile_swiglu", a, b, c, case=f"{dtype} ({m}, {n}) row stride {stride}"))
    # Every forward variant: `_fast` (long rows or few rows), `_a8` for many short rows, the general ones unaligned.
    prefixes = ("f16", "bf16", "f32")
    expected_all = ({f"fwd_{p}" for p in prefixes} | {f"fwd_{p}_a8" for p in prefixes}
                    | {f"fwd_{p}_a8_fast_m1_n1024" for p in ("f16", "bf16")} | {None})
    assert seen == expected_all, sorted(map(str, seen ^ expected_all))


def test_swiglu_backward_selection(lib):
    launcher = _launcher("swiglu")
    seen = set()
    columns = (1, 8, 64, 248, 255, 256, 264, 1000, 1024, 4096)
    for dtype, m, n, pad in itertools.product(DTYPES + ("int32",), (1, 3, 300, 2048, 2049, 70000), columns, (0, 3, 8)):
        stride = n + pad  # a is an (m, n) view into rows of n + pad elements
        expected = launcher.select_bwd_variant(dtype, m, n, (n, stride, n, n, n))
        dc, a, b, da = t(1, dtype, [m, n]), t(2, dtype, [m, n], [stride, 1]), t(3, dtype, [m, n]), t(4, dtype, [m, n])
        db = t(5, dtype, [m, n])
        seen.add(_agree(lib, expected, "cutile_swiglu_bwd", dc, a, b, da, db, case=f"{dtype} ({m}, {n}) row stride {stride}"))
    # 16-bit: `_fast` (long rows or few rows), else the general kernel (its `_a8` is never picked); f32: `_a8` aligned.
    prefixes = ("f16", "bf16", "f32")
    expected_all = ({f"bwd_{p}" for p in prefixes} | {"bwd_f32_a8"}
                    | {f"bwd_{p}_a8_fast_m1_n1024" for p in ("f16", "bf16")} | {None})
    assert seen == expected_all, sorted(map(str, seen ^ expected_all))


def test_silu_and_mul_selection(lib):
    launcher = _launcher("silu_and_mul")
    seen = set()
    halves = (1, 8, 64, 504, 511, 512, 520, 1000, 1024, 4096, 8200)
    for dtype, m, h, pad in itertools.product(DTYPES + ("int32",), (1, 3, 300, 2048, 2049, 70000), halves, (0, 3, 8)):
        stride = 2 * h + pad  # x is an (m, 2h) view into rows of 2h + pad elements
        expected = launcher.select_variant(dtype, m, h, (stride, h))
        # x spans up to 4.6 GB here: out 8 GiB away (fake addresses are 4 GiB apart)
        x, out = t(1, dtype, [m, 2 * h], [stride, 1]), t(3, dtype, [m, h])
        seen.add(_agree(lib, expected, "cutile_silu_and_mul", x, out, case=f"{dtype} ({m}, 2 x {h}) row stride {stride}"))
    # 16-bit aligned arrays always take `_fast` (it won every measured shape): `_a8` only for f32.
    expected_all = ({f"{p}_m8_h512" for p in ("f16", "bf16", "f32")} | {"f32_a8_m8_h512"}
                    | {f"{p}_a8_fast_m1_h1024" for p in ("f16", "bf16")} | {None})
    assert seen == expected_all, sorted(map(str, seen ^ expected_all))

ROW_COUNTS = (1, 3, 37, 64, 256, 257, 1024, 1025, 5000)  # the launchers' FEW_ROWS = 256 and SOME_ROWS = 1024


def test_softmax_selection(lib):
    launcher = _launcher("softmax")
    seen = set()
    columns = (1, 8, 128, 129, 515, 1000, 1024, 1025, 2048, 2049, 4095, 4096, 4104, 8192, 16384, 50257)
    for dtype, m, n, pad in itertools.product(DTYPES, ROW_COUNTS, columns, (0, 3, 8)):
        stride = n + pad  # an (m, n) view into rows of n + pad elements
        expected = launcher.select_variant(dtype, m, n, (stride, n))
        x, out = t(1, dtype, [m, n], [stride, 1]), t(2, dtype, [m, n])
        seen.add(_agree(lib, expected, "cutile_softmax", x, out, case=f"{dtype} ({m}, {n}) row stride {stride}"))
    # Every variant the launcher picks: the `_fast` ones of aligned rows (and f32 rows of any layout)
    # and the untuned fallbacks of odd strides; the 16-bit `_a8` o4/o8 variants and f32_row_m4 run
    # only when forced.
    fast = {f"{p}_{v}" for p in ("f16_a8", "bf16_a8")
            for v in ("fast_m1_n1024", "fast_m4_n1024", "fast_m1_n4096", "online_fast_n2048", "online_fast_n8192")}
    fast |= {"f32_fast_m1_n1024"} | {f"f32_a4_{v}" for v in (
        "fast_m1_n1024", "fast_m2_n1024", "fast_m1_n2048", "fast_m1_n4096", "online_fast_n1024", "online_fast_n2048",
        "online_fast_n4096", "online_fast_n8192")}
    untuned = {"f16_row_m4_n1024", "bf16_row_m4_n1024", "f16_row_m1_n4096", "bf16_row_m1_n4096", "f16_online_n1024",
               "bf16_online_n1024", "f32_row_o8_m4_n1024", "f32_row_m1_n4096", "f32_online_n1024"}
    assert seen == fast | untuned, sorted(seen ^ (fast | untuned))


def test_rms_norm_selection(lib):
    launcher = _launcher("rms_norm")
    seen = set()
    # 1020, 2044, 4092, 8188: 8-byte rows that are not 16-byte ones in 16-bit (the `_a4` contract
    # only); 1022, 8190: the f32 `_a2` contract only; pads 2 and 4 make such row strides.
    columns = (8, 128, 129, 1000, 1020, 1022, 1024, 1025, 1032, 2044, 2048, 4092, 4096, 4097, 4104, 8188, 8190, 8192,
               8200, 16384)
    # each side of the launchers' row thresholds (FEW_ROWS / 2, FEW_ROWS, 2 FEW_ROWS, 1024, MANY_ROWS)
    row_counts = (1, 3, 37, 64, 128, 129, 256, 257, 512, 513, 1024, 1025, 4096, 4097, 5000)
    for dtype, m, n, pad in itertools.product(DTYPES, row_counts, columns, (0, 2, 3, 4, 8)):
        stride = n + pad  # an (m, n) view into rows of n + pad elements
        expected = launcher.select_variant(dtype, m, n, (stride, n))
        args = (t(1, dtype, [m, n], [stride, 1]), t(2, dtype, [n]), t(3, dtype, [m, n]), t(4, "float32", [m]))
        seen.add(_agree(lib, expected, "cutile_rms_norm", *args, ctypes.c_float(1e-6),
                        case=f"{dtype} ({m}, {n}) row stride {stride}"))
    # The `_fast` one-row tiles take most 8-byte aligned rows of up to 8192 columns; the 16-bit `_a8`
    # kernels of many short rows (8 rows per block) and of 4097-8192 columns (one row) come before them.
    fast = {f"fwd_{prefix}_fast_m1_n{tile}" for prefix in ("f16_a4", "bf16_a4", "f32_a2") for tile in (1024, 2048, 4096, 8192)}
    a8 = {f"fwd_{prefix}_a8_o4_{shape}" for prefix in ("f16", "bf16") for shape in ("m8_n1024", "m1_n8192")}
    tuned = fast | a8 | {"fwd_looped_f16_a8_o4_n2048", "fwd_looped_bf16_a8_o4_n2048", "fwd_f32_o4_m4_n1024",
                         "fwd_f32_o2_m1_n8192"}
    untuned = {"fwd_f16_m4_n1024", "fwd_bf16_m4_n1024", "fwd_f16_m1_n8192", "fwd_bf16_m1_n8192", "fwd_looped_f16_n2048",
               "fwd_looped_bf16_n2048", "fwd_f32_m4_n1024", "fwd_looped_f32_n2048"}
    assert seen == tuned | untuned, sorted(seen ^ (tuned | untuned))


def test_rms_norm_bwd_selection(lib):
    launcher = _launcher("rms_norm")
    seen = set()
    for dtype, m, n, pad in itertools.product(DTYPES, (1, 13, 200), (8, 100, 512, 1024), (0, 3, 8)):
        stride = n + pad  # an (m, n) view into rows of n + pad elements
        blocks = -(-m // 64)
        expected = launcher.select_bwd_variant(dtype, m, n, (stride, n, n, n))
        args = (t(1, dtype, [m, n], [stride, 1]), t(2, dtype, [m, n]), t(3, dtype, [n]), t(4, "float32", [m]),
                t(5, dtype, [m, n]), t(6, "float32", [blocks, n]))
        seen.add(_agree(lib, expected, "cutile_rms_norm_bwd", *args, case=f"{dtype} ({m}, {n}) row stride {stride}"))
    assert {"bwd_f16_a8_o2_m4_n1024", "bwd_bf16_m4_n1024", "bwd_f32_m4_n1024"} <= seen


def _gemm_operands(dtype, out_dtype, m, n, k, trans_a, trans_b, pad, offset):
    """Stored a, b, c (rows padded by `pad` elements, a's base moved by `offset` bytes)."""
    a_shape = [k, m] if trans_a else [m, k]
    b_shape = [n, k] if trans_b else [k, n]
    a = t(1, dtype, a_shape, [a_shape[1] + pad, 1], offset=offset)
    b = t(2, dtype, b_shape, [b_shape[1] + pad, 1])
    c = t(3, out_dtype, [m, n], [n + pad, 1])
    return a, b, c


_SIZE = {0: 4, 1: 2, 2: 2, 5: 1}


def _aligned(arrays, offset):
    """Every base 16-byte aligned and every row stride (of an array with more than one row) a
    multiple of 16 bytes: the launcher's `aligned`."""
    return offset % 16 == 0 and all(x.shape[0] <= 1 or x.strides[0] * _SIZE[x.dtype] % 16 == 0 for x in arrays)


def _gemm_aligned(arrays, offset):
    """matmul's and bmm's `aligned`: `_aligned`, and c's rows (its last dimension) a multiple of 16
    bytes (the contract that gives their epilogue TMA stores)."""
    c = arrays[2]
    return _aligned(arrays, offset) and c.shape[c.ndim - 1] * _SIZE[c.dtype] % 16 == 0


def test_matmul_selection(lib):
    launcher = _launcher("matmul")
    seen = set()
    # M*N below, at and above WIDE_TILE_MIN_MN = 2048 * 2048 (2048x2047 is one column short); N 196
    # padded by 4: 16-byte row strides whose 16-bit rows are not a multiple of 16 bytes
    shapes = ((333, 200, 328), (127, 129, 131), (512, 512, 64), (2048, 2047, 64), (2048, 2048, 64),
              (1024, 4096, 72), (4096, 4096, 64), (8192, 2048, 72), (4095, 4097, 64), (300, 196, 64))
    for dtype, (m, n, k), ta, tb, pad, offset in itertools.product(DTYPES, shapes, (0, 1), (0, 1), (0, 4, 8), (0, 2)):
        arrays = _gemm_operands(dtype, dtype, m, n, k, ta, tb, pad, offset)
        expected = launcher.select_variant(dtype, m, n, bool(ta), bool(tb), _gemm_aligned(arrays, offset))
        case = f"{dtype} {m}x{n}x{k} trans=({ta},{tb}) pad={pad} offset={offset}"
        seen.add(_agree(lib, expected, "cutile_matmul", *arrays, ta, tb, case=case))
    # Every variant the launcher picks: w8 128x256x64 for large NN, TN and NT outputs (w8p, its
    # persistent form, past 132 tiles: 4096^2), 128x128x64 below; never the one-warpgroup
    # 128x256x64 (it spills its accumulator); tf32 NT w8 / w8p 128x256x32 for large outputs.
    picked = {f"{p}_{layout}_{tile}" for p in ("f16", "bf16") for layout in ("nn", "tn", "nt")
              for tile in ("128x128x64", "w8_128x256x64", "w8p_128x256x64")}
    picked |= {"bf16_tt_128x128x64", "f16_nn_unaligned_64x64x32", "tf32_nn_128x128x32", "tf32_nt_128x128x32",
               "tf32_nt_w8_128x256x32", "tf32_nt_w8p_128x256x32", None}
    assert seen == picked, sorted(map(str, seen ^ picked))


def test_matmul_fp8_selection(lib):
    launcher = _launcher("matmul")
    seen = set()
    # outputs of 64, 132, 133 and 1,024 tiles of 128x128: the persistent grid past 132 (PERSISTENT_GRID)
    for (m, n), out_dtype, ta, tb in itertools.product(((1024, 1024), (1408, 1536), (1408, 1544), (4096, 4096)),
                                                       ("float16", "bfloat16", "float32"), (0, 1), (0, 1)):
        arrays = _gemm_operands("float8_e4m3fn", out_dtype, m, n, 512, ta, tb, 0, 0)
        expected = launcher.select_fp8_variant(out_dtype, m, n, bool(ta), bool(tb))
        seen.add(_agree(lib, expected, "cutile_matmul_fp8", *arrays, ctypes.c_float(1.0), ctypes.c_float(1.0), ta, tb,
                        case=f"{out_dtype} {m}x{n} trans=({ta},{tb})"))
    assert seen == {"fp8e4m3_f16_nt_w8p_128x128x128", "fp8e4m3_bf16_nt_w8p_128x128x128", "fp8e4m3_f16_nt_w8_128x128x128",
                    "fp8e4m3_bf16_nt_w8_128x128x128", None}, sorted(map(str, seen))


def test_rope_selection(lib):
    launcher = _launcher("rope")
    seen = set()
    for dtype, d, neox in itertools.product(DTYPES, (64, 128, 256), (0, 1)):
        tokens, heads, rows = 9, 2, 16
        arrays = [t(1, "int32", [tokens]), t(2, dtype, [tokens, heads, d]), t(3, dtype, [tokens, heads, d]),
                  t(4, "float32", [rows, d // 2]), t(5, "float32", [rows, d // 2]), t(6, dtype, [tokens, heads, d]),
                  t(7, dtype, [tokens, heads, d])]
        expected = launcher.select_variant(dtype, d, bool(neox))
        seen.add(_agree(lib, expected, "cutile_rope", *arrays, neox, case=f"{dtype} D={d} is_neox={neox}"))
    assert {"bf16_neox_d128_split_bt2_th8_o8", "f16_neox_d64_split_bt4_th8_o8", "bf16_gptj_d128_a8_bt4_th2_o8",
            None} == seen


def test_flash_attention_selection(lib):
    launcher = _launcher("flash_attention")
    seen = set()
    for dtype, d, group, causal in itertools.product(DTYPES, (64, 128), (1, 2, 4, 8), (0, 1)):
        b, kv_heads, sq, sk = 2, 2, 100, 300
        q_heads = kv_heads * group
        arrays = [t(1, dtype, [b, q_heads, sq, d]), t(2, dtype, [b, kv_heads, sk, d]), t(3, dtype, [b, kv_heads, sk, d]),
                  t(4, dtype, [b, q_heads, sq, d])]
        expected = launcher.select_variant(dtype, d, group, bool(causal))
        seen.add(_agree(lib, expected, "cutile_flash_attention", *arrays, 0.1, causal,
                        case=f"{dtype} D={d} group={group} causal={causal}"))
    assert {"f16_d64_noncausal_o2", "f16_d64_causal_o2", "bf16_d128_causal_w8_bn128", "bf16_d128_causal_gqa4_w8_bn128",
            "bf16_d128_noncausal_gqa8_w8_bn128", None} == seen


def test_attention_sink_selection(lib):
    launcher = _launcher("attention_sink")
    seen = set()
    for dtype, d, group, window in itertools.product(DTYPES, (64, 128), (1, 8), (0, 128, 256)):
        b, kv_heads, s = 1, 2, 200
        q_heads = kv_heads * group
        arrays = [t(1, dtype, [b, q_heads, s, d]), t(2, dtype, [b, kv_heads, s, d]), t(3, dtype, [b, kv_heads, s, d]),
                  t(4, "float32", [q_heads]), t(5, dtype, [b, q_heads, s, d])]
        expected = launcher.select_variant(dtype, d, group, window)
        seen.add(_agree(lib, expected, "cutile_attention_sink", *arrays, 0.1, window,
                        case=f"{dtype} D={d} group={group} window={window}"))
    assert {"bf16_d64_gqa8_window128", "bf16_d64_gqa8_full", "f16_d128_mha_window256", None} == seen
def test_bmm_selection(lib):
    launcher = _launcher("bmm")
    seen = set()
    # small (M, N <= SMALL_MN = 128) and large matrices, each side of the bound; N 516 (padded by 4:
    # 16-byte row strides, 16-bit rows not a multiple of 16 bytes); batches of 128x256 tiles on each
    # side of PERSISTENT_GRID = 132 (2048^2: 128 tiles a matrix; 132 and 133 one-tile matrices)
    shapes = ((4, 100, 72, 200), (2, 128, 128, 64), (2, 100, 129, 64), (2, 256, 256, 64), (3, 257, 128, 64), (2, 256, 264, 64),
              (2, 1000, 520, 136), (1, 129, 136, 264), (2, 2048, 2048, 64), (1, 2048, 2048, 64), (1, 512, 512, 64),
              (1, 512, 516, 64), (132, 128, 256, 64), (133, 128, 256, 64), (133, 64, 64, 64))
    size = {"float16": 2, "bfloat16": 2, "float32": 4}
    for dtype, (batch, m, n, k), tb, pad, offset in itertools.product(DTYPES, shapes, (0, 1), (0, 4, 8), (0, 8)):
        b_dims = [batch, n, k] if tb else [batch, k, n]
        # rows padded by `pad` elements; a's base moved by `offset` bytes
        a = t(1, dtype, [batch, m, k], [m * (k + pad), k + pad, 1], offset=offset)
        b = t(2, dtype, b_dims, [b_dims[1] * (b_dims[2] + pad), b_dims[2] + pad, 1])
        c = t(3, dtype, [batch, m, n], [m * (n + pad), n + pad, 1])
        aligned = offset % 16 == 0 and all(x.strides[i] * size[dtype] % 16 == 0 for x in (a, b, c) for i in (0, 1)) \
            and n * size[dtype] % 16 == 0
        expected = launcher.select_variant(dtype, batch, m, n, bool(tb), aligned)
        case = f"{dtype} {batch}x{m}x{n}x{k} trans_b={tb} pad={pad} offset={offset}"
        seen.add(_agree(lib, expected, "cutile_bmm", a, b, c, tb, case=case))
    # bf16 takes w8 128x256x64 above 128x128 matrices, 128x128x64 at or below; tf32 NN 128x128x32 and
    # NT w8 128x256x32 at every size (w8 256x128x32 and NT 128x128x32 forced only).
    # The 128x256 choices on their persistent grid (w8p) once the batch has more than 132 such tiles.
    assert seen == {"f16_nn_w8_128x128x64", "f16_nn_w8_128x256x64", "bf16_nn_w8_128x256x64", "bf16_nt_w8_128x256x64",
                    "bf16_nn_128x128x64", "bf16_nt_128x128x64",
                    "f16_nt_w8_128x256x64", "tf32_nn_128x128x32", "tf32_nt_w8_128x256x32", "f16_nn_w8p_128x256x64",
                    "bf16_nn_w8p_128x256x64", "bf16_nt_w8p_128x256x64", "f16_nt_w8p_128x256x64", "tf32_nt_w8p_128x256x32",
                    None}, sorted(map(str, seen))


def test_splitk_matmul_selection(lib):
    """The library's two launches are the launcher's (partial, reduce) pair, named in launch order."""
    launcher = _launcher("splitk_matmul")
    seen = set()
    # N 516 padded by 4: 16-byte row and slab strides whose rows are not a multiple of 16 bytes
    # (split-K takes them: its kernels declare no contract on N)
    grid = itertools.product(DTYPES + ("float8_e4m3fn",), ((64, 512, 4096, 8), (33, 264, 1000, 5), (100, 136, 200, 1),
                                                           (64, 516, 512, 4)), (0, 4, 8), (0, 4))
    size = {"float16": 2, "bfloat16": 2, "float32": 4, "float8_e4m3fn": 1}
    for dtype, (m, n, k, s), pad, offset in grid:
        a = t(1, dtype, [m, k], [k + pad, 1], offset=offset)
        b = t(2, dtype, [k, n], [n + pad, 1])
        partial = t(3, "float32", [s, m, n], [m * (n + pad), n + pad, 1])
        c = t(4, dtype, [m, n], [n + pad, 1])
        aligned = offset % 16 == 0 and all(x.strides[0] * size[dtype] % 16 == 0 for x in (a, b, c)) \
            and all(partial.strides[i] * 4 % 16 == 0 for i in (0, 1))
        pair = launcher.select_variant(dtype, aligned)
        expected = ",".join(pair) if pair else None
        case = f"{dtype} {m}x{n}x{k} S={s} pad={pad} offset={offset}"
        seen.add(_agree(lib, expected, "cutile_splitk_matmul", a, b, partial, c, case=case))
    assert {"partial_f16_64x128x64,reduce_f16_4x256", "partial_bf16_64x128x64,reduce_bf16_4x256", None} <= seen


def test_group_gemm_selection(lib):
    launcher = _launcher("group_gemm")
    seen = set()
    # N 100 (trans_w, c padded by 4): 16-byte strides whose rows of c are not a multiple of 16 bytes
    # (bf16 declares c's rows a multiple of 16 bytes, f16 does not)
    for (T, G, K, N), dtype, trans_w, pad, offset in itertools.product(
            ((300, 6, 136, 72), (8192, 8, 4096, 4096), (1, 1, 8, 8), (300, 6, 136, 100)), DTYPES, (0, 1), (0, 4, 8),
            (0, 8)):
        w_shape = [G, N, K] if trans_w else [G, K, N]
        arrays = [t(1, dtype, [T, K], [K + pad, 1], offset=offset), t(2, dtype, w_shape), t(3, "int32", [G + 1]),
                  t(4, dtype, [T, N], [N + pad, 1])]
        # the launcher's aligned: a's and c's rows as stored, w's (contiguous) rows, bf16 c's N
        aligned = _aligned([arrays[0], arrays[3]], offset) and w_shape[2] % 8 == 0 \
            and (N % 8 == 0 or dtype == "float16")
        expected = launcher.select_variant(dtype, bool(trans_w), aligned)
        seen.add(_agree(lib, expected, "cutile_group_gemm", *arrays, trans_w,
                        case=f"{dtype} T={T} G={G} K={K} N={N} trans_w={trans_w} row strides +{pad} offset {offset}"))
    # The sliced kernels at every size and both layouts; the gather kernels only when forced.
    assert seen == {"bf16_kn_sliced_w8_128x256x64", "bf16_nk_sliced_w8_128x256x64", "f16_nk_sliced_64x128x64", None}, \
        sorted(map(str, seen))


def test_fused_moe_selection(lib):
    launcher = _launcher("fused_moe")
    seen = set()
    T, E, K = 33, 8, 200
    # N 100 with out padded by 4: 16-byte row strides whose rows of out are not a multiple of 16
    # bytes (fused_moe declares no contract on N)
    for dtype, block_m, topk, mul, pad, N in itertools.product(DTYPES, (16, 64), (2, 8), (0, 1), (0, 4), (136, 100)):
        em = T * topk + E * (block_m - 1)
        arrays = [t(1, dtype, [T, K], [K + pad, 1]), t(2, dtype, [E, N, K]), t(3, "int32", [em]),
                  t(4, "int32", [-(-em // block_m)]), t(5, "int32", [1]), t(6, "float32", [T * topk]),
                  t(7, dtype, [T * topk, N], [N + pad, 1])]
        aligned = _aligned([arrays[0], arrays[6]], 0)
        expected = launcher.select_variant(dtype, block_m, topk, bool(mul), aligned)
        seen.add(_agree(lib, expected, "cutile_fused_moe", *arrays, mul, block_m,
                        case=f"{dtype} block_m={block_m} topk={topk} mul={mul} N={N} row strides +{pad}"))
    assert {"bf16_top2_bm64_mul", "bf16_top2_bm64_nomul", "f16_top8_bm16_mul", None} <= seen
def test_flash_decode_selection(lib):
    """One call launches two kernels: the library names both (partial, combine) as the launcher does."""
    launcher = _launcher("flash_decode")
    seen = set()
    for dtype, d, group, splits in itertools.product(DTYPES, (64, 128), (1, 2, 4, 8), (1, 7, 16, 17)):
        b, hkv, smax = 2, 2, 300
        hq = hkv * group
        arrays = [t(1, dtype, [b, hq, d]), t(2, dtype, [b, hkv, smax, d]), t(3, dtype, [b, hkv, smax, d]),
                  t(4, "int32", [b]), t(5, "float32", [b, hq, splits, d]), t(6, "float32", [b, hq, splits]),
                  t(7, dtype, [b, hq, d])]
        expected = launcher.select_variant(dtype, d, group, splits)
        seen.add(_agree(lib, expected, "cutile_flash_decode", *arrays, ctypes.c_float(0.1),
                        case=f"{dtype} D={d} group={group} S={splits}"))
    assert {"v_bf16_d128_g1_bn64,combine_bf16_d128_o8", "tp_bf16_d128_g4_bn128,combine_bf16_d128_o8",
            "tp_f16_d64_g8_bn64_o4,combine_f16_d64_o8", None} <= seen


def test_moe_align_block_size_selection(lib):
    """One call launches two kernels: the library names both (histogram, sort) as the launcher does."""
    launcher = _launcher("moe_align_block_size")
    seen = set()
    for block_m, experts in itertools.product((8, 16, 32, 64, 128), (1, 8, 64, 127, 128, 200, 255, 256)):
        n = 512
        em = n + experts * (block_m - 1)
        arrays = [t(1, "int32", [n]), t(2, "int32", [experts]), t(3, "int32", [experts + 1]),
                  t(4, "int32", [-(-em // block_m)]), t(5, "int32", [1]), t(6, "int32", [em])]
        expected = launcher.select_variant(block_m, experts)
        seen.add(_agree(lib, expected, "cutile_moe_align_block_size", *arrays, block_m,
                        case=f"block_m={block_m} E={experts}"))
    assert {"hist_bm64_e128,sort_bm64_e128", "hist_bm16_e256,sort_bm16_e256", None} <= seen


def test_moe_align_block_size_tiled_selection(lib):
    """With a tile_counts scratch: the parallel (count, place) pair, as select_variant(..., tile_counts=True)."""
    launcher = _launcher("moe_align_block_size")
    seen = set()
    for block_m, experts in itertools.product((8, 16, 32, 64, 128), (1, 8, 64, 127, 128, 200, 255, 256)):
        n = 700
        em = n + experts * (block_m - 1)
        arrays = [t(1, "int32", [n]), t(2, "int32", [experts]), t(3, "int32", [experts + 1]),
                  t(4, "int32", [-(-em // block_m)]), t(5, "int32", [1]), t(6, "int32", [em]),
                  t(7, "int32", [-(-n // 256) * experts])]
        expected = launcher.select_variant(block_m, experts, tile_counts=True)
        seen.add(_agree(lib, expected, "cutile_moe_align_block_size_tiled", *arrays, block_m,
                        case=f"block_m={block_m} E={experts}"))
    assert {"count_t256_e128_s64,place_bm64_e128_s64", "count_t256_e256_s32,place_bm16_e256_s32", None} <= seen


def test_embedding_selection(lib):
    launcher = _launcher("embedding")
    seen = set()
    shapes = [(1000, 72), (1000, 1000), (37, 1004), (1000, 4096), (37, 4100), (131072, 16400)]
    for dtype, ids_dtype, tokens, (rows, hidden), pad in itertools.product(
            DTYPES, ("int32", "int64"), (1, 63, 64, 300), shapes, (0, 4, 64)):
        row = hidden + pad
        expected = launcher.select_variant(dtype, ids_dtype, tokens, rows, hidden, row, row)
        # out 8 GiB past the table's start (the huge table is 4.3 GB of f16)
        args = [t(1, ids_dtype, [tokens]), t(2, dtype, [rows, hidden], [row, 1]), t(4, dtype, [tokens, hidden], [row, 1])]
        seen.add(_agree(lib, expected, "cutile_embedding", *args,
                        case=f"{dtype} {ids_dtype} T={tokens} V={rows} H={hidden} row={row}"))
    assert {"f16_i64_gather_bt8_h256_idx64", "bf16_i32_rows_h1024", "f32_i32_rows_h1024", "bf16_i64_rows_h1024",
            None} <= seen
    # 16-bit rows of a multiple of 8 elements take the `_a8` form (16-byte accesses), others the plain one
    assert {"f16_i32_rows_a8_h1024", "bf16_i32_rows_a8_h1024", "bf16_i64_rows_a8_h1024", "f16_i32_rows_h1024"} <= seen
    # the gather kernels (slower at every measured size) are never picked, only forced
    assert not {"bf16_i32_gather_bt8_h256", "f32_i32_gather_bt8_h256"} & seen


def test_fp8_quantize_selection(lib):
    launcher = _launcher("fp8_quantize")
    seen = set()
    for dtype, m, n, (x_pad, q_pad) in itertools.product(
            DTYPES, (1, 3, 256, 4096, 4097), (64, 1000, 1001, 1008, 1024, 1030, 2048, 2056, 4000, 4096, 5008),
            ((0, 0), (8, 8), (8, 16), (4, 0))):
        xs, qs = n + x_pad, n + q_pad
        expected = launcher.select_variant(dtype, m, n, xs, qs)
        args = [t(1, dtype, [m, n], [xs, 1]), t(2, "float8_e4m3fn", [m, n], [qs, 1]), t(3, "float32", [m])]
        seen.add(_agree(lib, expected, "cutile_fp8_quantize", *args, case=f"{dtype} m={m} n={n} x_row={xs} q_row={qs}"))
    # (rows each side of MANY_SHORT_ROWS = 4096, columns each side of SHORT_ROW = 2048)
    assert {"bf16_rows_a8_fast_m2_n4096", "bf16_rows_a8_fast_m4_n4096", "bf16_rows_m4_n4096", "bf16_looped_m1_n2048",
            "f16_rows_a16_fast_m8_n1024", "f16_rows_a8_fast_m8_n1024", "f16_rows_m8_n1024", None} <= seen
    assert "bf16_rows_a16_fast_m4_n4096" not in seen  # spills; forced only


def test_layer_norm_forward_selection(lib):
    launcher = _launcher("layer_norm")
    seen = set()
    # rows each side of the launcher's bounds: FEW_ROWS (512), FAST_MAX_ELEMENTS (2^19 16-bit,
    # 2^22 f32: 4097 x 1000 is under, 70000 rows of 64 or more over), BF16_GENERAL_MAX_N (256)
    columns = (1, 8, 64, 256, 264, 520, 1000, 1001, 1016, 1024, 1025, 2048, 2052, 4096, 8188, 8192, 8200)
    for dtype, m, n, pad in itertools.product(DTYPES + ("int32",), (1, 3, 256, 257, 512, 513, 2048, 4097, 70000),
                                              columns, (0, 3, 4, 8)):
        stride = n + pad  # x is an (m, n) view into rows of n + pad elements
        expected = launcher.select_variant(dtype, m, n, (stride, n))
        x, out = t(1, dtype, [m, n], [stride, 1]), t(2, dtype, [m, n])
        w, b = t(3, dtype, [n]), t(4, dtype, [n])
        mean, rstd = t(5, "float32", [m]), t(6, "float32", [m])
        seen.add(_agree(lib, expected, "cutile_layer_norm", x, w, b, out, mean, rstd, ctypes.c_float(1e-5),
                        case=f"{dtype} ({m}, {n}) row stride {stride}"))
    # Every forward variant but the 16-byte `_a8_fast` ones (forced only): the 8-byte `_fast` ones
    # (one row to a tile of 1024-8192 columns), `_a8` four rows to a tile for many shorter 16-bit
    # rows and one row up to 8192, the general ones for other layouts (and many short f32 and bf16 rows).
    prefixes = ("f16", "bf16", "f32")
    fast = {f"fwd_{p}_{a}_fast_m1_n{w}" for p, a in (("f16", "a4"), ("bf16", "a4"), ("f32", "a2"))
            for w in (1024, 2048, 4096, 8192)}
    expected_all = ({f"fwd_{p}_m4_n1024" for p in prefixes} | {f"fwd_{p}_m1_n8192" for p in prefixes} | fast
                    | {f"fwd_{p}_{kind}" for p in ("f16", "bf16") for kind in ("a8_m4_n1024", "a8_m1_n8192")}
                    | {None})
    assert seen == expected_all, sorted(map(str, seen ^ expected_all))


def test_layer_norm_forward_rule():
    """The launcher's forward rule at the measured grid's shapes (docs/results/tuning.md, layer_norm):
    the 8-byte `_fast` tile by row length, one row per block for small arrays and full 1024-column
    rows, four per block for many shorter rows."""
    select = _launcher("layer_norm").select_variant

    def pick(dtype, m, n, pad=0):
        return select(dtype, m, n, (n + pad, n + pad))
    assert pick("float16", 256, 1000) == "fwd_f16_a4_fast_m1_n1024"
    assert pick("bfloat16", 1024, 128) == "fwd_bf16_a4_fast_m1_n1024"  # 2^17 elements
    assert pick("float16", 1024, 1000) == "fwd_f16_a8_m4_n1024"  # past 2^19 elements
    assert pick("float16", 1024, 1002) == "fwd_f16_m4_n1024"  # no 8-byte rows
    assert pick("float16", 1024, 1004) == "fwd_f16_a4_fast_m1_n1024"  # 8-byte, not 16-byte rows
    assert pick("float16", 262144, 128) == "fwd_f16_a8_m4_n1024"
    assert pick("bfloat16", 262144, 128) == "fwd_bf16_m4_n1024"  # short bf16 rows: the general kernel
    assert pick("bfloat16", 32768, 1024) == "fwd_bf16_a4_fast_m1_n1024"  # full rows: one per block
    assert pick("float32", 4096, 1000) == "fwd_f32_a2_fast_m1_n1024"  # under 2^22 elements
    assert pick("float32", 33554, 1000) == "fwd_f32_m4_n1024"
    assert pick("float32", 1024, 1001) == "fwd_f32_m4_n1024"
    assert [pick("float16", m, 2048) for m in (512, 513)] == ["fwd_f16_a4_fast_m1_n4096", "fwd_f16_a4_fast_m1_n2048"]
    assert pick("float32", 64, 2048) == "fwd_f32_a2_fast_m1_n2048"
    assert pick("bfloat16", 8192, 4096) == "fwd_bf16_a4_fast_m1_n4096"
    assert pick("bfloat16", 4096, 8192) == "fwd_bf16_a8_m1_n8192"
    assert pick("bfloat16", 4096, 8192, pad=4) == "fwd_bf16_a4_fast_m1_n8192"
    assert pick("float32", 4096, 8192) == "fwd_f32_a2_fast_m1_n8192"
    assert pick("float32", 4096, 8192, pad=1) == "fwd_f32_m1_n8192"
    assert pick("float16", 1, 1002) == "fwd_f16_m4_n1024" and select("float16", 1, 1004, (3, 3)) \
        == "fwd_f16_a4_fast_m1_n1024"  # one row: its stride does not matter
    assert pick("float16", 4, 8200) is None and pick("int32", 4, 64) is None


def test_cross_entropy_selection(lib):
    launcher = _launcher("cross_entropy")
    seen = set()
    columns = (1, 8, 100, 1000, 1001, 2048, 2052, 4096, 8192, 8196, 32000, 50257, 50264, 128256)
    # rows each side of the launchers' few-rows bound (512)
    for dtype, m, v, pad in itertools.product(DTYPES + ("int32",), (1, 3, 64, 256, 512, 513, 1024, 5000), columns,
                                              (0, 3, 8)):
        stride = v + pad  # logits is an (m, v) view into rows of v + pad elements
        expected = launcher.select_variant(dtype, m, v, stride)
        logits = t(1, dtype, [m, v], [stride, 1])
        target, loss, lse = t(2, "int64", [m]), t(3, "float32", [m]), t(4, "float32", [m])
        seen.add(_agree(lib, expected, "cutile_cross_entropy", logits, target, loss, lse,
                        case=f"{dtype} ({m}, {v}) row stride {stride}"))
    # Every variant but bf16_a8_v2048 (forced only): the `_fast` ones of aligned rows, the untuned
    # ones of the rest; int32 logits have none.
    fast = {f"{p}_fast_v{w}" for p in ("f16_a8", "bf16_a8") for w in (2048, 4096, 8192)}
    fast |= {f"f32_a4_fast_v{w}" for w in (1024, 2048, 4096)}
    assert seen == fast | {"f16_v2048", "bf16_v2048", "f32_v2048", None}, sorted(map(str, seen))


def test_argmax_selection(lib):
    launcher = _launcher("argmax")
    seen = set()
    # 1020, 1028: multiples of 4 (f32's 16-byte rows), not of 8; 1032, 50264: of 8; pads 4 and 8
    # keep or break those row strides.
    columns = (1, 5, 8, 1000, 1020, 1024, 1025, 1028, 1032, 2048, 4100, 32768, 50257, 50264)
    for dtype, m, n, pad in itertools.product(DTYPES + ("int32",), (1, 3, 64, 4096), columns, (0, 3, 4, 8)):
        stride = n + pad  # x is an (m, n) view into rows of n + pad elements
        expected = launcher.select_variant(dtype, m, n, stride)
        x, out = t(1, dtype, [m, n], [stride, 1]), t(2, "int64", [m])
        seen.add(_agree(lib, expected, "cutile_argmax", x, out, case=f"{dtype} ({m}, {n}) row stride {stride}"))
    # Every `_fast` variant and f32_m4_n1024 (4096 rows of <= 1024 columns); the other `_m4`
    # variants run only when forced; int32 has none.
    fast = {f"{p}_fast_m1_n{w}" for p in ("f16_a8", "bf16_a8", "f32_a4") for w in (1024, 2048)}
    fast |= {f"{p}_fast_m1_n1024" for p in ("f16", "bf16", "f32")}
    assert seen == fast | {"f32_m4_n1024", None}, sorted(map(str, seen))


def test_cumsum_selection(lib):
    launcher = _launcher("cumsum")
    seen = set()
    # 1020: a multiple of 4, not of 8; 1000, 1024, 2048, 8192: of 8; 1025, 5001: neither; pads 4 and 8
    # keep or break those row strides. Rows each side of the launchers' bounds (FEW_ROWS = 256, 1024,
    # 4096 rows; 1024 and 2048 columns).
    columns = (1, 8, 1000, 1020, 1024, 1025, 2048, 2056, 5001, 8192)
    for dtype, m, n, pad in itertools.product(DTYPES + ("int32",), (1, 3, 64, 256, 257, 1024, 1025, 4096, 4097),
                                              columns, (0, 3, 4, 8)):
        stride = n + pad  # x and out are (m, n) views into rows of n + pad elements
        expected = launcher.select_variant(dtype, m, n, stride)
        x, out = t(1, dtype, [m, n], [stride, 1]), t(2, dtype, [m, n], [stride, 1])
        seen.add(_agree(lib, expected, "cutile_cumsum", x, out, case=f"{dtype} ({m}, {n}) row stride {stride}"))
    # The measured rule: the one-row `_fast` kernels of 16-byte rows, f32's 4-rows-a-block `_a8`
    # row kernel at some row counts, the untuned ones of other rows; the `_fast_m4` ones, the 16-bit
    # `_a8_m4` ones and f32's looped `_a8_m4` one (the `_fast` kernels take the same rows) only
    # when forced.
    fast = {f"{kind}_{p}_fast_m1_n1024" for kind in ("row", "looped") for p in ("f16_a8", "bf16_a8", "f32_a4")}
    untuned = {f"{kind}_{p}_m4_n1024" for kind in ("row", "looped") for p in ("f16", "bf16", "f32")} | {"row_f32_a8_m4_n1024"}
    assert seen == fast | untuned | {None}, sorted(map(str, seen ^ (fast | untuned | {None})))
