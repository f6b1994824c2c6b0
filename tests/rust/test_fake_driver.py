"""The launch path of libtileir_kernels against a stand-in libcuda.so.1 (fake_libcuda.c): what
reaches cuLaunchKernel (symbol, grid, block, stream, every argument word), the context and module
handling, and how driver failures map to return codes. No GPU: each scenario runs in a fresh
process with LD_LIBRARY_PATH pointing at the fake driver, and reads the calls it logged."""
from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tileir_diff import ports
from tileir_diff.ports import Status

from .conftest import CRATE, REPO, _cargo

pytestmark = pytest.mark.cargo

PORTED_OPS = ports.PORTED_OPS  # tileir_diff/ports/registry.py
X, Y, Z = 0x7F0000000000, 0x7F0100000000, 0x7F0200000000  # fake device addresses
STREAM = 0x1234
OPTIN_SHARED, STATIC_SHARED = 232448, 1024  # what the fake driver reports


@pytest.fixture(scope="module")
def fake_driver(tmp_path_factory) -> Path:
    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("fake_cuda")
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(out / "libcuda.so.1"),
                    str(Path(__file__).with_name("fake_libcuda.c"))], check=True, timeout=120)
    return out


@pytest.fixture(scope="module")
def library_with_fake_cubins() -> Path:
    """The library with an ELF-magic placeholder as every variant's cubin (the fake driver
    checks the magic and logs the variant name, NUL-terminated, as `image <name>`)."""
    # A stable folder, files rewritten only when they change: build.rs reruns (and the library
    # rebuilds) only when a placeholder does, not in every session.
    cubins = CRATE / "target" / "fake-cubins"
    for op in PORTED_OPS:
        (cubins / op).mkdir(parents=True, exist_ok=True)
        for v in json.loads((REPO / "reference" / op / "analysis.json").read_text())["variants"]:
            path = cubins / op / f"{v['name']}.sm_90.cubin"
            data = b"\x7fELF fake cubin " + v["name"].encode() + b"\0"
            if not path.is_file() or path.read_bytes() != data:
                path.write_bytes(data)
    _cargo(["build", "--release", "--locked", "--lib", "--no-default-features", "--target-dir", "target/abi-fake"],
           env={"TILEIR_CUBIN_DIR": str(cubins)})
    return CRATE / "target" / "abi-fake" / "release" / "libtileir_kernels.so"


PRELUDE = """
import ctypes, json, os, sys
from tileir_diff.ports import descriptor, load_library
lib = load_library(sys.argv[1])
codes, errors = [], []
def T(ptr, shape, dtype, strides=None):
    if strides is None:
        strides, acc = [], 1
        for n in reversed(shape):
            strides.insert(0, acc)
            acc *= max(n, 1)
    return ctypes.byref(descriptor(ptr, shape, strides, dtype))
def call(fn, *args, nparams=0):
    os.environ["FAKE_CUDA_NPARAMS"] = str(nparams)
    codes.append(getattr(lib, fn)(*args))
    errors.append(lib.tileir_kernels_last_error().decode())
"""


def run(driver_dir, library, body, tmp_path, **env):
    """Runs `body` (calls through `call(...)`) in a fresh process; returns (codes, log lines)."""
    log = tmp_path / "cuda.log"
    log.unlink(missing_ok=True)
    script = PRELUDE + textwrap.dedent(body) + "\nprint(json.dumps(codes))\n"
    full_env = {**os.environ, "LD_LIBRARY_PATH": str(driver_dir), "FAKE_CUDA_LOG": str(log),
                "PYTHONPATH": str(REPO), **{k: str(v) for k, v in env.items()}}
    r = subprocess.run([sys.executable, "-c", script, str(library)], capture_output=True, text=True, env=full_env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    lines = log.read_text().splitlines() if log.exists() else []
    return json.loads(r.stdout), lines


def launches(lines):
    return [line for line in lines if line.startswith("launch ")]


def params(line):
    return [int(w, 16) for w in line.split("params=")[1].split(",") if w]


def test_vector_add_launch(fake_driver, library_with_fake_cubins, tmp_path):
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        n = 5000
        for _ in range(2):
            call("cutile_vector_add", T({X}, [n], "float16"), T({Y}, [n], "float16"), T({Z}, [n], "float16"), 0, {STREAM},
                 nparams=9)
    """, tmp_path)
    assert codes == [0, 0]
    assert log[0] == "cuInit 0"
    # The module is loaded once; the kernel gets all opt-in shared memory beyond its static part.
    assert sum(line.startswith("load ") for line in log) == 1 and "load elf=1 rc=0" in log
    assert log.count("function vector_add_entry") == 1
    assert f"set_attribute 8 {OPTIN_SHARED - STATIC_SHARED}" in log
    first, second = launches(log)
    assert first == second
    assert f"grid=5,1,1 block=1,1,1 shared=0 stream=0x{STREAM:x}" in first
    # Per tensor: address, extent, stride (all as i32 except the address).
    assert params(first) == [X, 5000, 1, Y, 5000, 1, Z, 5000, 1]
    pushes = [line for line in log if line.startswith("push")]
    assert pushes and len(pushes) == log.count("pop"), "context push/pop unbalanced"


def test_matmul_transposed_operand_and_extent_one(fake_driver, library_with_fake_cubins, tmp_path):
    n, k = 200, 328  # M = 333
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        # a stored (K, M) with trans_a; M padded to a 16-byte row.
        call("cutile_matmul", T({X}, [{k}, 336], "bfloat16"), T({Y}, [{k}, {n}], "bfloat16"),
             T({Z}, [336, {n}], "bfloat16"), 1, 0, 0, 0, nparams=15)
        # M = 1: c's row stride never moves the address and is passed as 0 (divisible by 8).
        call("cutile_matmul", T({X}, [1, {k}], "float16"), T({Y}, [{k}, {n}], "float16"),
             T({Z}, [1, {n}], "float16"), 0, 0, 0, 0, nparams=15)
    """, tmp_path)
    assert codes == [0, 0]
    assert "function matmul_entry" in log
    tn, one = launches(log)
    assert "grid=6,1,1" in tn  # ceil(336/128) * ceil(200/128) = 3 * 2
    assert params(tn) == [X, k, 336, 336, 1, Y, k, n, n, 1, Z, 336, n, n, 1]
    assert "grid=2,1,1" in one and "stream=0x0" in one
    assert params(one)[10:] == [Z, 1, n, 0, 1]


def test_scalar_arguments_are_f32_bits(fake_driver, library_with_fake_cubins, tmp_path):
    m, n = 13, 1000
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        call("cutile_rms_norm", T({X}, [{m}, {n}], "float32"), T({Y}, [{n}], "float32"), T({Z}, [{m}, {n}], "float32"),
             T({Z} + (1 << 32), [{m}], "float32"), ctypes.c_float(1e-6), 0, 0, nparams=17)
        call("cutile_matmul_fp8", T({X}, [256, 512], "float8_e4m3fn"), T({Y}, [384, 512], "float8_e4m3fn"),
             T({Z}, [256, 384], "bfloat16"), ctypes.c_float(0.5), ctypes.c_float(0.25), 0, 1, 0, 0, nparams=17)
        call("cutile_matmul_fp8", T({X}, [2048, 512], "float8_e4m3fn"), T({Y}, [2048, 512], "float8_e4m3fn"),
             T({Z}, [2048, 2048], "bfloat16"), ctypes.c_float(0.5), ctypes.c_float(0.25), 0, 1, 0, 0, nparams=17)
    """, tmp_path)
    assert codes == [0, 0, 0]
    rms, fp8, big = launches(log)
    bits = struct.unpack("<I", struct.pack("<f", 1e-6))[0]
    assert params(rms)[-1] == bits and "grid=13,1,1" in rms  # 13 rows, one per block
    assert params(fp8)[-2:] == [struct.unpack("<I", struct.pack("<f", v))[0] for v in (0.5, 0.25)]
    assert "grid=6,1,1" in fp8  # ceil(256/128) * ceil(384/128): fp8 runs on 128x128 tiles
    # 16 x 16 tiles: the persistent kernel's grid stops at NUM_BLOCKS = 132 blocks (each loops)
    assert "grid=132,1,1" in big
    # The launcher's picks here: f32 rows of an even length one per block (`_a2_fast_m1_n1024`, the
    # occupancy-16 `_fast` kernel), matmul_fp8_w8 for 6 tiles and on its persistent grid for 256.
    assert "function rms_norm_fwd_fast_o16_entry" in log and "function matmul_fp8_w8_persistent_entry" in log
    assert "function matmul_fp8_w8_entry" in log
    assert "function rms_norm_fwd_entry" not in log


def test_forced_variant_launches_that_cubin(fake_driver, library_with_fake_cubins, tmp_path):
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        lib.tileir_kernels_force_variant(b"softmax", b"f32_online_n1024")
        call("cutile_softmax", T({X}, [7, 100], "float32"), T({Y}, [7, 100], "float32"), 0, 0, nparams=10)
    """, tmp_path)
    assert codes == [0]
    assert "function softmax_online_entry" in log
    assert "grid=7,1,1" in launches(log)[0]  # one row per block


def images(lines):
    return [line.split(" ", 1)[1] for line in lines if line.startswith("image ")]


def test_softmax_fast_launches(fake_driver, library_with_fake_cubins, tmp_path):
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        # bf16, 3000 rows of 1024 (multiples of 8, many rows): four rows per (4, 1024) block.
        call("cutile_softmax", T({X}, [3000, 1024], "bfloat16"), T({Y}, [3000, 1024], "bfloat16"), 0, 0, nparams=10)
        # f32, few rows of 1000 (a multiple of 4): the online `_fast` kernel, one row per block.
        call("cutile_softmax", T({X}, [13, 1000], "float32"), T({Y}, [13, 1000], "float32"), 0, 0, nparams=10)
        # f32 rows of 1002 (not a multiple of 4): the any-layout (1, 1024) `_fast` kernel.
        call("cutile_softmax", T({X}, [13, 1002], "float32"), T({Y}, [13, 1002], "float32"), 0, 0, nparams=10)
        # f16 rows of 1000 in rows of 1003 (a stride not a multiple of 8): the untuned online kernel.
        call("cutile_softmax", T({X}, [13, 1000], "float16", [1003, 1]), T({Y}, [13, 1000], "float16"), 0, 0,
             nparams=10)
    """, tmp_path)
    assert codes == [0, 0, 0, 0]
    assert images(log) == ["bf16_a8_fast_m4_n1024", "f32_a4_online_fast_n1024", "f32_fast_m1_n1024", "f16_online_n1024"]
    for entry in ("softmax_row_fast_o8", "softmax_online_fast_o8", "softmax_row_fast_o16", "softmax_online"):
        assert log.count(f"function {entry}_entry") == 1, entry
    four_rows, online, row, untuned = launches(log)
    assert "grid=750,1,1" in four_rows  # cdiv(3000, 4)
    assert "grid=13,1,1" in online and "grid=13,1,1" in row and "grid=13,1,1" in untuned
    assert params(four_rows) == [X, 3000, 1024, 1024, 1, Y, 3000, 1024, 1024, 1]


def test_cumsum_fast_variants_launch_when_forced(fake_driver, library_with_fake_cubins, tmp_path):
    """The cumsum `_fast` variants (forced only): the entry each names, one row per block for the
    `_m1` ones, cdiv(M, 4) for the `_m4` one; a row longer than the row kernel's tile is refused."""
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        lib.tileir_kernels_force_variant(b"cumsum", b"row_f16_a8_fast_m1_n1024")
        call("cutile_cumsum", T({X}, [13, 1000], "float16"), T({Y}, [13, 1000], "float16"), 0, 0, nparams=10)
        call("cutile_cumsum", T({X}, [13, 1032], "float16"), T({Y}, [13, 1032], "float16"), 0, 0, nparams=10)
        lib.tileir_kernels_force_variant(b"cumsum", b"looped_bf16_a8_fast_m1_n1024")
        call("cutile_cumsum", T({X}, [6, 3008], "bfloat16"), T({Y}, [6, 3008], "bfloat16"), 0, 0, nparams=10)
        lib.tileir_kernels_force_variant(b"cumsum", b"looped_f32_a4_fast_m4_n1024")
        call("cutile_cumsum", T({X}, [13, 5004], "float32"), T({Y}, [13, 5004], "float32"), 0, 0, nparams=10)
        lib.tileir_kernels_force_variant(b"cumsum", None)
    """, tmp_path)
    assert codes[0] == 0 and codes[2:] == [0, 0]
    assert codes[1] != 0  # 1032 columns do not fit the (1, 1024) row tile
    assert images(log) == ["row_f16_a8_fast_m1_n1024", "looped_bf16_a8_fast_m1_n1024", "looped_f32_a4_fast_m4_n1024"]
    for entry in ("cumsum_row_fast_o16", "cumsum_looped_fast_o8", "cumsum_looped_fast_o4"):
        assert log.count(f"function {entry}_entry") == 1, entry
    row, looped_m1, looped_m4 = launches(log)
    assert "grid=13,1,1" in row and "grid=6,1,1" in looped_m1  # one row per block
    assert "grid=4,1,1" in looped_m4  # cdiv(13, 4)
    assert params(looped_m1) == [X, 6, 3008, 3008, 1, Y, 6, 3008, 3008, 1]


def f32_bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def test_silu_and_mul_reads_x_as_its_halves_view(fake_driver, library_with_fake_cubins, tmp_path):
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        # x (M, 2H) = (13, 2000): H = 1000 and the row stride 2000 are multiples of 8 (16-bit, aligned:
        # the `_fast` variant's (1, 1024) tiles).
        call("cutile_silu_and_mul", T({X}, [13, 2000], "float16"), T({Z}, [13, 1000], "float16"), 0, 0, nparams=12)
        # The same as a (M, 2, H) view with a padded row stride; odd H: the general variant.
        call("cutile_silu_and_mul", T({X}, [5, 2, 333], "bfloat16", [700, 333, 1]), T({Z}, [5, 333], "bfloat16"), 0, 0,
             nparams=12)
    """, tmp_path)
    assert codes == [0, 0]
    assert images(log) == ["f16_a8_fast_m1_h1024", "bf16_m8_h512"]
    assert log.count("function silu_and_mul_fast_entry") == 1 and log.count("function silu_and_mul_entry") == 1
    aligned, general = launches(log)
    assert "grid=13,1,1" in aligned  # cdiv(13, 1), cdiv(1000, 1024)
    # x as (M, 2, H) with strides (2H, H, 1); out (M, H).
    assert params(aligned) == [X, 13, 2, 1000, 2000, 1000, 1, Z, 13, 1000, 1000, 1]
    assert "grid=1,1,1" in general
    assert params(general) == [X, 5, 2, 333, 700, 333, 1, Z, 5, 333, 333, 1]


def test_swiglu_and_gelu_launch_on_a_2d_grid(fake_driver, library_with_fake_cubins, tmp_path):
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        call("cutile_swiglu", T({X}, [21, 777], "bfloat16"), T({Y}, [21, 777], "bfloat16"), T({Z}, [21, 777], "bfloat16"),
             0, 0, nparams=15)
        W = {Z} + (1 << 32)
        V = {Z} + (2 << 32)
        call("cutile_swiglu_bwd", *[T(p, [21, 784], "float32") for p in ({X}, {Y}, {Z}, W, V)], 0, 0, nparams=25)
        # 16-bit, aligned, few rows: the backward's `_fast` variant, (1, 1024) tiles.
        call("cutile_swiglu_bwd", *[T(p, [21, 784], "bfloat16") for p in ({X}, {Y}, {Z}, W, V)], 0, 0, nparams=25)
        call("cutile_gelu", T({X}, [37, 1000], "float32"), T({Z}, [37, 1000], "float32"), 1, 0, 0, nparams=10)
        call("cutile_gelu", T({X}, [19, 333], "float16"), T({X}, [19, 333], "float16"), 0, 0, 0, nparams=10)
    """, tmp_path)
    assert codes == [0, 0, 0, 0, 0]
    assert images(log) == ["fwd_bf16", "bwd_f32_a8", "bwd_bf16_a8_fast_m1_n1024", "tanh_f32_a4_fast_m1_n1024", "erf_f16"]
    fwd, bwd, bwd_fast, tanh, erf = launches(log)
    assert "grid=21,1,1" in bwd_fast  # cdiv(21, 1), cdiv(784, 1024)
    assert params(bwd_fast)[:5] == [X, 21, 784, 784, 1] and params(bwd_fast)[-5:] == [Z + (2 << 32), 21, 784, 784, 1]
    assert "grid=2,4,1" in fwd  # cdiv(21, 16), cdiv(777, 256)
    assert params(fwd) == [X, 21, 777, 777, 1, Y, 21, 777, 777, 1, Z, 21, 777, 777, 1]
    assert "grid=2,4,1" in bwd and params(bwd)[-5:] == [Z + (2 << 32), 21, 784, 784, 1]
    assert "grid=37,1,1" in tanh and "grid=2,2,1" in erf  # f32, 16-byte rows, few rows: (1, 1024) `_fast` tiles
    # gelu in place: out is x.
    assert params(erf) == [X, 19, 333, 333, 1, X, 19, 333, 333, 1]
    assert "function swiglu_fwd_entry" in log and "function swiglu_bwd_entry" in log
    assert "function swiglu_bwd_fast_entry" in log
    assert "function gelu_entry" in log and "function gelu_fast_entry" in log


def test_gelu_f32_fast_variants_launch_when_forced(fake_driver, library_with_fake_cubins, tmp_path):
    """The f32 `_a4_fast` gelu variants (forced only): the `gelu_fast` entry, one row segment per
    block; rows of 4-element multiples (not 8) with a padded row stride pass, a row of 1002 does not."""
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        lib.tileir_kernels_force_variant(b"gelu", b"erf_f32_a4_fast_m1_n1024")
        call("cutile_gelu", T({X}, [37, 1004], "float32"), T({Z}, [37, 1004], "float32"), 0, 0, 0, nparams=10)
        call("cutile_gelu", T({X}, [37, 1002], "float32"), T({Z}, [37, 1002], "float32"), 0, 0, 0, nparams=10)
        lib.tileir_kernels_force_variant(b"gelu", b"tanh_f32_a4_fast_m1_n2048")
        call("cutile_gelu", T({X}, [5, 4100], "float32", [4104, 1]), T({Z}, [5, 4100], "float32"), 1, 0, 0, nparams=10)
        lib.tileir_kernels_force_variant(b"gelu", None)
    """, tmp_path)
    assert codes[0] == 0 and codes[2] == 0
    assert codes[1] != 0  # 1002 columns are not a multiple of 4
    assert images(log) == ["erf_f32_a4_fast_m1_n1024", "tanh_f32_a4_fast_m1_n2048"]
    assert log.count("function gelu_fast_entry") == 2
    n1024, n2048 = launches(log)
    assert "grid=37,1,1" in n1024  # cdiv(37, 1), cdiv(1004, 1024)
    assert "grid=5,3,1" in n2048  # cdiv(5, 1), cdiv(4100, 2048)
    assert params(n2048) == [X, 5, 4100, 4104, 1, Z, 5, 4100, 4100, 1]


def test_dropout_passes_seed_bits_and_p(fake_driver, library_with_fake_cubins, tmp_path):
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        call("cutile_dropout", T({X}, [4097], "float32", [2]), T({Z}, [4097], "float32"), -5, ctypes.c_float(0.3), 0, 0,
             nparams=8)
        call("cutile_dropout", T({X}, [40], "bfloat16"), T({Z}, [40], "bfloat16"), 12345, ctypes.c_float(0.0), 0, 0,
             nparams=8)
        call("cutile_dropout", T({X}, [4100], "float16"), T({Z}, [4100], "float16"), 9, ctypes.c_float(1.0), 0, 0,
             nparams=8)
    """, tmp_path)
    assert codes == [0, 0, 0]
    # aligned 16-bit arrays take the dropout_fast kernel, other lengths the general one
    assert images(log) == ["f32_strided_t1024", "bf16_a8_fast_t1024", "f16_t1024"]
    strided, aligned, ragged = launches(log)
    assert "grid=5,1,1" in strided and "grid=5,1,1" in ragged  # cdiv(4097, 1024), cdiv(4100, 1024)
    # The int32 seed's bits in a 4-byte slot, then p's f32 bits.
    assert params(strided) == [X, 4097, 2, Z, 4097, 1, 0xFFFFFFFB, f32_bits(0.3)]
    assert "grid=1,1,1" in aligned and params(aligned)[-2:] == [12345, 0]
    assert params(ragged)[-2:] == [9, f32_bits(1.0)]
    assert "function dropout_entry" in log and "function dropout_fast_entry" in log


def test_rope_launch(fake_driver, library_with_fake_cubins, tmp_path):
    t, hq, hkv, p = 20, 3, 2, 50
    a = [X + (i << 32) for i in range(7)]
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        A = {a}
        heads = lambda i, h: T(A[i], [{t}, h, 128], "bfloat16")
        for neox in (1, 0):
            call("cutile_rope", T(A[0], [{t}], "int32"), heads(1, {hq}), heads(2, {hkv}), T(A[3], [{p}, 64], "float32"),
                 T(A[4], [{p}, 64], "float32"), heads(5, {hq}), heads(6, {hkv}), neox, 0, 0, nparams=41)
    """, tmp_path)
    assert codes == [0, 0]
    # the launcher's tuned choices (occupancy 8)
    assert images(log) == ["bf16_neox_d128_split_bt2_th8_o8", "bf16_gptj_d128_a8_bt4_th2_o8"]
    neox, gptj = launches(log)
    assert "grid=10,1,1" in neox and "grid=5,1,1" in gptj  # cdiv(20 tokens, BT = 2 and 4)
    q = lambda i, h: [a[i], t, h, 128, h * 128, 128, 1]  # noqa: E731
    table = lambda i: [a[i], p, 64, 64, 1]  # noqa: E731
    assert params(neox) == [a[0], t, 1] + q(1, hq) + q(2, hkv) + table(3) + table(4) + q(5, hq) + q(6, hkv)
    assert params(gptj) == params(neox)
    assert "function rope_o8_entry" in log and "function rope_neox_split_o8_entry" in log


def test_flash_attention_and_attention_sink_launches(fake_driver, library_with_fake_cubins, tmp_path):
    """flash_attention and attention_sink: the tuned variant of (dtype, D, query group, causal /
    window), grid (cdiv(Sq, BM), B * Hq), four (B, H, S, D) tensors then sm_scale's f32 bits."""
    a = [X + (i << 32) for i in range(5)]
    bshd = lambda b, h, s, d: [s * h * d, d, h * d, 1]  # noqa: E731  a (B, S, H, D) buffer seen as (B, H, S, D)
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        A = {a}
        call("cutile_flash_attention", T(A[0], [2, 8, 200, 128], "bfloat16"), T(A[1], [2, 2, 300, 128], "bfloat16"),
             T(A[2], [2, 2, 300, 128], "bfloat16"), T(A[3], [2, 8, 200, 128], "bfloat16"), ctypes.c_float(0.125), 1,
             0, 0, nparams=37)
        call("cutile_flash_attention", T(A[0], [1, 8, 64, 128], "bfloat16", {bshd(1, 8, 64, 128)}),
             T(A[1], [1, 1, 64, 128], "bfloat16"), T(A[2], [1, 1, 64, 128], "bfloat16"),
             T(A[3], [1, 8, 64, 128], "bfloat16"), ctypes.c_float(0.5), 0, 0, 0, nparams=37)
        call("cutile_flash_attention", *[T(A[i], [3, 4, 77, 64], "float16") for i in range(4)], ctypes.c_float(0.125),
             0, 0, 0, nparams=37)
        call("cutile_attention_sink", T(A[0], [1, 16, 333, 64], "bfloat16"), T(A[1], [1, 2, 333, 64], "bfloat16"),
             T(A[2], [1, 2, 333, 64], "bfloat16"), T(A[3], [16], "float32"), T(A[4], [1, 16, 333, 64], "bfloat16"),
             ctypes.c_float(0.125), 128, 0, 0, nparams=40)
        call("cutile_attention_sink", T(A[0], [1, 16, 333, 64], "bfloat16"), T(A[1], [1, 2, 333, 64], "bfloat16"),
             T(A[2], [1, 2, 333, 64], "bfloat16"), T(A[3], [16], "float32"), T(A[4], [1, 16, 333, 64], "bfloat16"),
             ctypes.c_float(0.125), 0, 0, 0, nparams=40)
    """, tmp_path)
    assert codes == [0, 0, 0, 0, 0]
    assert images(log) == ["bf16_d128_causal_gqa4_w8_bn128", "bf16_d128_noncausal_gqa8_w8_bn128",
                           "f16_d64_noncausal_o2", "bf16_d64_gqa8_window128", "bf16_d64_gqa8_full"]
    gqa4, gqa8, mha, window, full = launches(log)
    dense = lambda ptr, dims: [ptr, *dims, *_dense(dims)]  # noqa: E731
    assert "grid=2,16,1" in gqa4  # cdiv(200, 128), B * Hq
    assert params(gqa4) == (dense(a[0], [2, 8, 200, 128]) + dense(a[1], [2, 2, 300, 128])
                            + dense(a[2], [2, 2, 300, 128]) + dense(a[3], [2, 8, 200, 128]) + [f32_bits(0.125)])
    assert "grid=1,8,1" in gqa8
    # the batch stride of B = 1 reaches the kernel as 0 (an extent-1 dimension's stride never moves the address)
    assert params(gqa8)[:9] == [a[0], 1, 8, 64, 128, 0, *bshd(1, 8, 64, 128)[1:]] and params(gqa8)[-1] == f32_bits(0.5)
    assert "grid=1,12,1" in mha
    assert "grid=3,16,1" in window and "grid=3,16,1" in full
    sink_params = (dense(a[0], [1, 16, 333, 64]) + dense(a[1], [1, 2, 333, 64]) + dense(a[2], [1, 2, 333, 64])
                   + [a[3], 16, 1] + dense(a[4], [1, 16, 333, 64]) + [f32_bits(0.125)])
    assert params(window) == sink_params and params(full) == sink_params
    assert "function flash_attention_w8_entry" in log and "function flash_attention_o2_entry" in log
    assert "function attention_sink_entry" in log


def _dense(dims):
    """Row-major strides of `dims` in elements, as the kernel gets them: 0 for an extent-1 dimension."""
    strides, acc = [], 1
    for n in reversed(dims):
        strides.insert(0, acc if n != 1 else 0)
        acc *= n
    return strides


def test_group_gemm_and_fused_moe_launch(fake_driver, library_with_fake_cubins, tmp_path):
    """The upper bound of row tiles on grid.y (group_gemm), the (block, column tile) 1-D grid
    (fused_moe), and every argument word of the seven routing and data tensors."""
    a = [X + (i << 32) for i in range(7)]
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        A = {a}
        call("cutile_group_gemm", T(A[0], [300, 136], "bfloat16"), T(A[1], [6, 136, 72], "bfloat16"),
             T(A[2], [7], "int32"), T(A[3], [300, 72], "bfloat16"), 0, 0, 0, nparams=20)
        call("cutile_group_gemm", T(A[0], [257, 264], "float16", [328, 1]), T(A[1], [3, 128, 264], "float16"),
             T(A[2], [4], "int32"), T(A[3], [257, 128], "float16"), 1, 0, 0, nparams=20)
        call("cutile_fused_moe", T(A[0], [33, 200], "bfloat16"), T(A[1], [6, 136, 200], "bfloat16"),
             T(A[2], [444], "int32"), T(A[3], [7], "int32"), T(A[4], [1], "int32"), T(A[5], [66], "float32"),
             T(A[6], [66, 136], "bfloat16"), 1, 64, 0, 0, nparams=29)
        call("cutile_fused_moe", T(A[0], [1, 512], "float16"), T(A[1], [16, 128, 512], "float16"),
             T(A[2], [248], "int32"), T(A[3], [16], "int32"), T(A[4], [1], "int32"), T(A[5], [8], "float32"),
             T(A[6], [8, 128], "float16"), 1, 16, 0, 0, nparams=29)
    """, tmp_path)
    assert codes == [0, 0, 0, 0]
    assert images(log) == ["bf16_kn_sliced_w8_128x256x64", "f16_nk_sliced_64x128x64", "bf16_top2_bm64_mul",
                           "f16_top8_bm16_mul"]
    kn, nk, moe, moe16 = launches(log)
    assert "grid=1,9,1" in kn  # cdiv(72, 256), cdiv(300, 128) + 6 groups
    assert params(kn) == [a[0], 300, 136, 136, 1, a[1], 6, 136, 72, 136 * 72, 72, 1, a[2], 7, 1,
                          a[3], 300, 72, 72, 1]
    assert "grid=1,8,1" in nk  # cdiv(128, 128), cdiv(257, 64) + 3 groups
    assert params(nk)[:5] == [a[0], 257, 264, 328, 1]
    assert "grid=14,1,1" in moe  # 7 blocks of 64 ids x cdiv(136, 128) column tiles
    assert params(moe) == [a[0], 33, 200, 200, 1, a[1], 6, 136, 200, 136 * 200, 200, 1, a[2], 444, 1, a[3], 7, 1,
                           a[4], 1, 1, a[5], 66, 1, a[6], 66, 136, 136, 1]
    assert "grid=16,1,1" in moe16  # 16 blocks of 16 ids x 1 column tile
    # the launcher's group_gemm picks are the sliced kernels (f16 on one warpgroup, bf16 on two)
    assert log.count("function group_gemm_sliced_w8_entry") == 1 and log.count("function group_gemm_sliced_entry") == 1
    assert log.count("function group_gemm_entry") == 0 and log.count("function fused_moe_entry") == 2


@pytest.mark.parametrize("scenario, env, status", [
    ("host_pointer", {}, Status.DEVICE_MISMATCH),
    ("foreign_stream", {}, Status.DEVICE_MISMATCH),
    ("missing_device", {}, Status.INVALID_DEVICE),
    ("ok", {"FAKE_CUDA_CC_MAJOR": 8}, Status.INVALID_DEVICE),
    ("ok", {"FAKE_CUDA_LOAD_RC": 200}, Status.DRIVER_ERROR),
    ("ok", {"FAKE_CUDA_LAUNCH_RC": 700}, Status.LAUNCH_FAILED),
])
def test_driver_side_rejections(fake_driver, library_with_fake_cubins, tmp_path, scenario, env, status):
    x = 0x1000 if scenario == "host_pointer" else X
    stream = 0xBAD if scenario == "foreign_stream" else 0
    device = 1 if scenario == "missing_device" else 0
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        call("cutile_vector_add", T({x}, [64], "float32"), T({Y}, [64], "float32"), T({Z}, [64], "float32"),
             {device}, {stream}, nparams=9)
        msg = lib.tileir_kernels_last_error().decode()
        assert "CUDA_ERROR_FAKE" in msg or "device" in msg or "stream" in msg, msg
    """, tmp_path, **env)
    assert codes == [status]
    assert not launches(log) or status == Status.LAUNCH_FAILED
    assert sum(line.startswith("push") for line in log) == log.count("pop")


# One valid call per C function of the registry; `{x}` is the first tensor's address.
VALID_CALLS = {
    "cutile_vector_add": 'T({x}, [64], "float32"), T(A[1], [64], "float32"), T(A[2], [64], "float32")',
    "cutile_softmax": 'T({x}, [4, 64], "float32"), T(A[1], [4, 64], "float32")',
    "cutile_rms_norm": 'T({x}, [4, 64], "float32"), T(A[1], [64], "float32"), T(A[2], [4, 64], "float32"), '
                       'T(A[3], [4], "float32"), ctypes.c_float(1e-6)',
    "cutile_rms_norm_bwd": 'T({x}, [4, 64], "float32"), T(A[1], [4, 64], "float32"), T(A[2], [64], "float32"), '
                           'T(A[3], [4], "float32"), T(A[4], [4, 64], "float32"), T(A[5], [1, 64], "float32")',
    "cutile_matmul": 'T({x}, [64, 64], "float16"), T(A[1], [64, 64], "float16"), T(A[2], [64, 64], "float16"), 0, 0',
    "cutile_matmul_fp8": 'T({x}, [128, 128], "float8_e4m3fn"), T(A[1], [128, 128], "float8_e4m3fn"), '
                         'T(A[2], [128, 128], "bfloat16"), ctypes.c_float(1.0), ctypes.c_float(1.0), 0, 1',
    "cutile_silu_and_mul": 'T({x}, [4, 128], "float32"), T(A[1], [4, 64], "float32")',
    "cutile_swiglu": 'T({x}, [4, 64], "float16"), T(A[1], [4, 64], "float16"), T(A[2], [4, 64], "float16")',
    "cutile_swiglu_bwd": 'T({x}, [4, 64], "float16"), *[T(A[i], [4, 64], "float16") for i in range(1, 5)]',
    "cutile_gelu": 'T({x}, [4, 64], "bfloat16"), T(A[1], [4, 64], "bfloat16"), 1',
    "cutile_dropout": 'T({x}, [64], "float16"), T(A[1], [64], "float16"), 7, ctypes.c_float(0.5)',
    "cutile_argmax": 'T({x}, [4, 64], "float32"), T(A[1], [4], "int64")',
    "cutile_cross_entropy": 'T({x}, [4, 64], "bfloat16"), T(A[1], [4], "int64"), T(A[2], [4], "float32"), '
                            'T(A[3], [4], "float32")',
    "cutile_cumsum": 'T({x}, [4, 64], "float16"), T(A[1], [4, 64], "float16")',
    "cutile_embedding": 'T({x}, [4], "int32"), T(A[1], [10, 64], "float32"), T(A[2], [4, 64], "float32")',
    "cutile_transpose": 'T({x}, [64, 32], "float32"), T(A[1], [32, 64], "float32")',
    "cutile_fp8_quantize": 'T({x}, [4, 64], "bfloat16"), T(A[1], [4, 64], "float8_e4m3fn"), T(A[2], [4], "float32")',
    "cutile_layer_norm": 'T({x}, [4, 64], "float16"), T(A[1], [64], "float16"), T(A[2], [64], "float16"), '
                         'T(A[3], [4, 64], "float16"), T(A[4], [4], "float32"), T(A[5], [4], "float32"), '
                         'ctypes.c_float(1e-5)',
    "cutile_layer_norm_bwd": 'T({x}, [4, 64], "float32"), T(A[1], [4, 64], "float32"), T(A[2], [64], "float32"), '
                             'T(A[3], [4], "float32"), T(A[4], [4], "float32"), T(A[5], [4, 64], "float32"), '
                             'T(A[6], [1, 64], "float32"), T(A[7], [1, 64], "float32")',
    "cutile_rope": 'T({x}, [4], "int32"), T(A[1], [4, 2, 64], "float16"), T(A[2], [4, 1, 64], "float16"), '
                   'T(A[3], [16, 32], "float32"), T(A[4], [16, 32], "float32"), T(A[5], [4, 2, 64], "float16"), '
                   'T(A[6], [4, 1, 64], "float16"), 1',
    "cutile_flash_attention": 'T({x}, [1, 2, 64, 64], "float16"), T(A[1], [1, 2, 64, 64], "float16"), '
                              'T(A[2], [1, 2, 64, 64], "float16"), T(A[3], [1, 2, 64, 64], "float16"), '
                              'ctypes.c_float(0.125), 1',
    "cutile_attention_sink": 'T({x}, [1, 8, 64, 64], "bfloat16"), T(A[1], [1, 1, 64, 64], "bfloat16"), '
                             'T(A[2], [1, 1, 64, 64], "bfloat16"), T(A[3], [8], "float32"), '
                             'T(A[4], [1, 8, 64, 64], "bfloat16"), ctypes.c_float(0.125), 128',
    "cutile_bmm": 'T({x}, [2, 64, 64], "bfloat16"), T(A[1], [2, 64, 64], "bfloat16"), T(A[2], [2, 64, 64], "bfloat16"), 1',
    "cutile_splitk_matmul": 'T({x}, [64, 64], "float16"), T(A[1], [64, 64], "float16"), T(A[2], [2, 64, 64], "float32"), '
                            'T(A[3], [64, 64], "float16")',
    "cutile_group_gemm": 'T({x}, [4, 64], "bfloat16"), T(A[1], [2, 64, 64], "bfloat16"), T(A[2], [3], "int32"), '
                         'T(A[3], [4, 64], "bfloat16"), 0',
    "cutile_fused_moe": 'T({x}, [4, 64], "bfloat16"), T(A[1], [8, 64, 64], "bfloat16"), T(A[2], [512], "int32"), '
                        'T(A[3], [8], "int32"), T(A[4], [1], "int32"), T(A[5], [8], "float32"), '
                        'T(A[6], [8, 64], "bfloat16"), 1, 64',
    "cutile_flash_decode": 'T({x}, [2, 4, 128], "bfloat16"), T(A[1], [2, 1, 64, 128], "bfloat16"), '
                           'T(A[2], [2, 1, 64, 128], "bfloat16"), T(A[3], [2], "int32"), '
                           'T(A[4], [2, 4, 3, 128], "float32"), T(A[5], [2, 4, 3], "float32"), '
                           'T(A[6], [2, 4, 128], "bfloat16"), ctypes.c_float(0.1)',
    "cutile_moe_align_block_size": 'T({x}, [10], "int32"), T(A[1], [4], "int32"), T(A[2], [5], "int32"), '
                                   'T(A[3], [5], "int32"), T(A[4], [1], "int32"), T(A[5], [262], "int32"), 64',
    "cutile_moe_align_block_size_tiled": 'T({x}, [10], "int32"), T(A[1], [4], "int32"), T(A[2], [5], "int32"), '
                                         'T(A[3], [5], "int32"), T(A[4], [1], "int32"), T(A[5], [262], "int32"), '
                                         'T(A[6], [4], "int32"), 64',
}
# Kernels one valid call launches in order (1 where not listed); a failed launch stops the call.
KERNELS_PER_CALL = {"cutile_splitk_matmul": 2, "cutile_flash_decode": 2, "cutile_moe_align_block_size": 2,
                    "cutile_moe_align_block_size_tiled": 2}


def test_valid_calls_cover_every_function():
    assert sorted(VALID_CALLS) == sorted(f.name for f in ports.FUNCTIONS)


@pytest.mark.parametrize("scenario, env, status", [
    ("ok", {}, Status.OK),
    ("host_pointer", {}, Status.DEVICE_MISMATCH),
    ("foreign_stream", {}, Status.DEVICE_MISMATCH),
    ("missing_device", {}, Status.INVALID_DEVICE),
    ("ok", {"FAKE_CUDA_CC_MAJOR": 10}, Status.INVALID_DEVICE),
    ("ok", {"FAKE_CUDA_LOAD_RC": 200}, Status.DRIVER_ERROR),
    ("ok", {"FAKE_CUDA_LAUNCH_RC": 700}, Status.LAUNCH_FAILED),
    ("ok", {"FAKE_CUDA_ALLOC_SIZE": 1}, Status.OUT_OF_BOUNDS),
    ("ok", {"FAKE_CUDA_ALLOC_SIZE": 1, "FAKE_CUDA_RANGE_RC": 500}, Status.OK),
])
def test_driver_side_checks_of_every_function(fake_driver, library_with_fake_cubins, tmp_path, scenario, env, status):
    """Each C function, called validly, goes through the same driver checks: tensors on the
    device, the stream of its context, an sm_9x device, the module load and the launch."""
    x = 0x1000 if scenario == "host_pointer" else X
    stream = 0xBAD if scenario == "foreign_stream" else 0
    device = 1 if scenario == "missing_device" else 0
    calls = "\n".join(f'call("{name}", {args.format(x=x)}, {device}, {stream})' for name, args in VALID_CALLS.items())
    codes, log = run(fake_driver, library_with_fake_cubins, f"A = [{X} + (i << 32) for i in range(8)]\n{calls}\n",
                     tmp_path, **env)
    assert dict(zip(VALID_CALLS, codes)) == {name: status for name in VALID_CALLS}
    launched = {Status.OK: sum(KERNELS_PER_CALL.get(name, 1) for name in VALID_CALLS),
                Status.LAUNCH_FAILED: len(VALID_CALLS)}
    assert len(launches(log)) == launched.get(status, 0)
    assert sum(line.startswith("push") for line in log) == log.count("pop")


def test_invalid_calls_and_empty_outputs_never_touch_the_driver(fake_driver, library_with_fake_cubins, tmp_path):
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        call("cutile_vector_add", T({X}, [10], "float32"), T({Y}, [11], "float32"), T({Z}, [10], "float32"), 0, 0)
        call("cutile_vector_add", T(0, [0], "float32"), T(0, [0], "float32"), T(0, [0], "float32"), 0, 0)
    """, tmp_path)
    assert codes == [Status.SHAPE_MISMATCH, Status.OK]
    assert log == []


def run_with_errors(driver_dir, library, body, tmp_path, **env):
    """Like `run`, also returning each call's tileir_kernels_last_error()."""
    log = tmp_path / "cuda.log"
    log.unlink(missing_ok=True)
    script = PRELUDE + textwrap.dedent(body) + "\nprint(json.dumps(errors))\nprint(json.dumps(codes))\n"
    full_env = {**os.environ, "LD_LIBRARY_PATH": str(driver_dir), "FAKE_CUDA_LOG": str(log),
                "PYTHONPATH": str(REPO), **{k: str(v) for k, v in env.items()}}
    r = subprocess.run([sys.executable, "-c", script, str(library)], capture_output=True, text=True, env=full_env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    errors, codes = (json.loads(line) for line in r.stdout.splitlines()[-2:])
    return codes, errors, (log.read_text().splitlines() if log.exists() else [])


def test_vector_add_extent_must_fit_its_allocation(fake_driver, library_with_fake_cubins, tmp_path):
    # Every fake allocation is 256 bytes: 64 f32.
    codes, errors, log = run_with_errors(fake_driver, library_with_fake_cubins, f"""
        call("cutile_vector_add", T({X}, [64], "float32"), T({Y}, [64], "float32"), T({Z}, [64], "float32"), 0, 0)
        call("cutile_vector_add", T({X}, [65], "float32"), T({Y}, [65], "float32"), T({Z}, [65], "float32"), 0, 0)
        call("cutile_vector_add", T({X}, [61], "float32"), T({Y} + 16, [61], "float32"), T({Z}, [61], "float32"), 0, 0)
        call("cutile_vector_add", T({X}, [60], "float32"), T({Y} + 16, [60], "float32"), T({Z}, [60], "float32"), 0, 0)
    """, tmp_path, FAKE_CUDA_ALLOC_SIZE=256)
    assert codes == [Status.OK, Status.OUT_OF_BOUNDS, Status.OUT_OF_BOUNDS, Status.OK]
    assert errors[1] == (f"OUT_OF_BOUNDS: x: bytes [{X:#x}, {X + 260:#x}) run past its allocation "
                         f"[{X:#x}, {X + 256:#x}) (256 bytes): the shape and strides claim 4 bytes more than it holds")
    assert errors[2].startswith(f"OUT_OF_BOUNDS: y: bytes [{Y + 16:#x}, {Y + 260:#x})"), errors[2]
    assert len(launches(log)) == 2
    assert f"range 0x{Y + 16:x} rc=0" in log
    assert sum(line.startswith("push") for line in log) == log.count("pop")


def test_matmul_extent_must_fit_its_allocation(fake_driver, library_with_fake_cubins, tmp_path):
    # (64, 64) f16 is 8192 bytes.
    body = f"""
        call("cutile_matmul", T({X}, [64, 64], "float16"), T({Y}, [64, 64], "float16"), T({Z}, [64, 64], "float16"),
             0, 0, 0, 0)
        # c with a padded row stride (72, a multiple of 8) reaches 9200 bytes.
        call("cutile_matmul", T({X}, [64, 64], "float16"), T({Y}, [64, 64], "float16"),
             T({Z}, [64, 64], "float16", [72, 1]), 0, 0, 0, 0)
    """
    codes, errors, log = run_with_errors(fake_driver, library_with_fake_cubins, body, tmp_path,
                                         FAKE_CUDA_ALLOC_SIZE=8192)
    assert codes == [Status.OK, Status.OUT_OF_BOUNDS]
    assert errors[1].startswith("OUT_OF_BOUNDS: c: ") and "1008 bytes more" in errors[1], errors[1]
    assert len(launches(log)) == 1
    # One f16 element short: the first tensor checked, a, is named.
    codes, errors, log = run_with_errors(fake_driver, library_with_fake_cubins, body, tmp_path,
                                         FAKE_CUDA_ALLOC_SIZE=8190)
    assert codes == [Status.OUT_OF_BOUNDS, Status.OUT_OF_BOUNDS]
    assert errors[0].startswith("OUT_OF_BOUNDS: a: ") and "2 bytes more" in errors[0], errors[0]
    assert not launches(log)


@pytest.mark.parametrize("range_rc, status", [(1, Status.OK), (500, Status.OK), (2, Status.DRIVER_ERROR)])
def test_allocation_unknown_to_the_driver(fake_driver, library_with_fake_cubins, tmp_path, range_rc, status):
    """INVALID_VALUE / NOT_FOUND from cuMemGetAddressRange (memory the device check accepted, but
    no allocation the driver can size): the device check alone stands. Other errors: DRIVER_ERROR."""
    codes, errors, log = run_with_errors(fake_driver, library_with_fake_cubins, f"""
        call("cutile_vector_add", T({X}, [64], "float32"), T({Y}, [64], "float32"), T({Z}, [64], "float32"), 0, 0)
    """, tmp_path, FAKE_CUDA_ALLOC_SIZE=4, FAKE_CUDA_RANGE_RC=range_rc)
    assert codes == [status]
    assert len(launches(log)) == (status == Status.OK)
    if status == Status.DRIVER_ERROR:
        assert errors[0] == "DRIVER_ERROR: cuMemGetAddressRange(x) failed: CUDA_ERROR_FAKE", errors[0]


def test_extent_overflowing_u64_is_rejected_before_the_driver(fake_driver, library_with_fake_cubins, tmp_path):
    top = (1 << 64) - 1024
    codes, errors, log = run_with_errors(fake_driver, library_with_fake_cubins, f"""
        call("cutile_vector_add", T({top}, [1000], "float16"), T({Y}, [1000], "float16"), T({Z}, [1000], "float16"), 0, 0)
        call("cutile_matmul", T({X}, [64, 64], "float16"), T({top}, [64, 64], "float16", [1 << 14, 1]),
             T({Z}, [64, 64], "float16"), 0, 0, 0, 0)
    """, tmp_path)
    assert codes == [Status.INVALID_SHAPE, Status.INVALID_SHAPE]
    assert errors[0].startswith("INVALID_SHAPE: x: byte extent") and "overflows" in errors[0], errors[0]
    assert errors[1].startswith("INVALID_SHAPE: b: byte extent"), errors[1]
    assert log == []


def test_extent_may_span_contiguously_mapped_chunks(fake_driver, library_with_fake_cubins, tmp_path):
    """cuMemMap'ed memory (torch expandable_segments) is reported one chunk per query: a tensor over
    several adjacent chunks is accepted, one element past the last mapped byte is not."""
    codes, errors, log = run_with_errors(fake_driver, library_with_fake_cubins, f"""
        call("cutile_vector_add", T({X}, [60], "float32"), T({Y}, [60], "float32"), T({Z} + 16, [60], "float32"), 0, 0)
        call("cutile_vector_add", T({X}, [65], "float32"), T({Y}, [65], "float32"), T({Z}, [65], "float32"), 0, 0)
    """, tmp_path, FAKE_CUDA_ALLOC_SIZE=256, FAKE_CUDA_CHUNK=32)
    assert codes == [Status.OK, Status.OUT_OF_BOUNDS]
    assert errors[1].startswith(f"OUT_OF_BOUNDS: x: bytes [{X:#x}, {X + 260:#x}) run past its allocation "
                                f"[{X:#x}, {X + 256:#x}) (256 bytes)"), errors[1]
    assert f"range 0x{X + 224:x} rc=0" in log and f"range 0x{X + 256:x} rc=0" in log


def test_reductions_and_gathers_launch(fake_driver, library_with_fake_cubins, tmp_path):
    """argmax, cross_entropy, cumsum, embedding: the variant each shape selects, its grid and
    every argument word."""
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        W = {Z} + (1 << 32)
        call("cutile_argmax", T({X}, [13, 1000], "float16", [1008, 1]), T({Z}, [13], "int64"), 0, 0, nparams=8)
        call("cutile_cross_entropy", T({X}, [37, 50257], "float32"), T({Y}, [37], "int64"), T({Z}, [37], "float32"),
             T(W, [37], "float32"), 0, 0, nparams=14)
        call("cutile_cumsum", T({X}, [6, 3001], "bfloat16"), T({Z}, [6, 3001], "bfloat16"), 0, 0, nparams=10)
        call("cutile_cumsum", T({X}, [30, 80], "float32"), T({X}, [30, 80], "float32"), 0, 0, nparams=10)
        call("cutile_embedding", T({X}, [1], "int64"), T({Y}, [50, 72], "bfloat16"), T({Z}, [1, 72], "bfloat16"), 0, 0,
             nparams=13)
        call("cutile_embedding", T({X}, [300], "int32"), T({Y}, [37, 2056], "float32"), T({Z}, [300, 2056], "float32"),
             0, 0, nparams=13)
    """, tmp_path)
    assert codes == [0] * 6
    assert images(log) == ["f16_a8_fast_m1_n1024", "f32_v2048", "looped_bf16_m4_n1024", "row_f32_a4_fast_m1_n1024",
                           "bf16_i64_rows_h1024", "f32_i32_rows_h1024"]  # one-tile rows (H <= 1024): the plain rows
    argmax, ce, looped, row, decode, prefill = launches(log)
    assert "grid=13,1,1" in argmax and params(argmax) == [X, 13, 1000, 1008, 1, Z, 13, 1]  # one row per block
    assert "grid=37,1,1" in ce  # one row per block
    assert params(ce) == [X, 37, 50257, 50257, 1, Y, 37, 1, Z, 37, 1, Z + (1 << 32), 37, 1]
    assert "grid=2,1,1" in looped and params(looped) == [X, 6, 3001, 3001, 1, Z, 6, 3001, 3001, 1]
    assert "grid=30,1,1" in row and params(row)[:5] == params(row)[5:]  # one row per block; in place: out is x
    # One token: out's row stride never moves the address (passed as 0, divisible by 8).
    assert "grid=1,1,1" in decode and params(decode) == [X, 1, 1, Y, 50, 72, 72, 1, Z, 1, 72, 0, 1]
    assert "grid=300,1,1" in prefill  # one token per block at every T
    assert params(prefill) == [X, 300, 1, Y, 37, 2056, 2056, 1, Z, 300, 2056, 2056, 1]
    for entry in ("argmax_fast_o16", "cross_entropy_fwd", "cumsum_looped", "cumsum_row_fast_o16", "embedding_rows"):
        assert f"function {entry}_entry" in log, entry
def test_embedding_idx64_passes_the_table_extents_and_strides_as_i64(fake_driver, library_with_fake_cubins, tmp_path):
    """The analysis.json huge-table shape (V * H >= 2^31 elements, 4.3 GB): int64 ids on an f16
    table launch the i64-indexed gather with V, H, the row stride and 1 as 8-byte words; a
    row stride past INT32_MAX travels untruncated; the table must fit its allocation (16 GiB
    here: the second table spans 8.6 GB)."""
    body = f"""
        OUT = {Y} + (3 << 32)
        call("cutile_embedding", T({X}, [64], "int64"), T({Y}, [131072, 16400], "float16"),
             T(OUT, [64, 16400], "float16"), 0, 0, nparams=13)
        call("cutile_embedding", T({X}, [5], "int64"), T({Y}, [3, 16], "float16", [(1 << 31) + 8, 1]),
             T(OUT, [5, 16], "float16"), 0, 0, nparams=13)
    """
    codes, log = run(fake_driver, library_with_fake_cubins, body, tmp_path, FAKE_CUDA_ALLOC_SIZE=1 << 34)
    assert codes == [0, 0]
    assert images(log) == ["f16_i64_gather_bt8_h256_idx64"]  # loaded once
    assert "function embedding_gather_idx64_entry" in log
    huge, wide = launches(log)
    out = Y + (3 << 32)
    assert "grid=8,1,1" in huge  # cdiv(64, 8)
    assert params(huge) == [X, 64, 1, Y, 131072, 16400, 16400, 1, out, 64, 16400, 16400, 1]
    assert "grid=1,1,1" in wide and params(wide)[3:8] == [Y, 3, 16, (1 << 31) + 8, 1]
    # 131072 * 16400 * 2 bytes = 4.3 GB, and (2 * ((1 << 31) + 8) + 16) * 2 bytes, run past a
    # 3.75 GiB allocation: the extents are not truncated to i32 in the bound check either.
    codes, log = run(fake_driver, library_with_fake_cubins, body, tmp_path, FAKE_CUDA_ALLOC_SIZE=0xF000_0000)
    assert codes == [Status.OUT_OF_BOUNDS] * 2 and not launches(log)


def test_transpose_selects_per_dtype_rank_and_alignment(fake_driver, library_with_fake_cubins, tmp_path):
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        call("cutile_transpose", T({X}, [328, 200], "float16"), T({Z}, [200, 328], "float16"), 0, 0, nparams=10)
        call("cutile_transpose", T({X}, [328, 202], "float16", [208, 1]), T({Z}, [202, 328], "float16"), 0, 0,
             nparams=10)
        call("cutile_transpose", T({X}, [136, 264], "bfloat16", [328, 1]), T({Z}, [264, 136], "bfloat16"), 0, 0,
             nparams=10)
        call("cutile_transpose", T({X}, [4, 1000], "float32"), T({Z}, [1000, 4], "float32"), 0, 0, nparams=10)
        call("cutile_transpose", T({X}, [3, 104, 70], "bfloat16", [104 * 72, 72, 1]), T({Z}, [3, 70, 104], "bfloat16"),
             0, 0, nparams=14)
        call("cutile_transpose", T({X}, [3, 104, 72], "bfloat16"), T({Z}, [3, 72, 104], "bfloat16"), 0, 0, nparams=14)
    """, tmp_path)
    assert codes == [0] * 6
    assert images(log) == ["f16_tile_a8_64x64", "f16_tile_64x64", "bf16_order_a8_64x64", "f32_tile_32x64",
                           "bf16_batched_64x64", "bf16_batched_a8_64x64"]
    a8, ragged, order, f32, batched, batched_a8 = launches(log)
    assert "grid=6,4,1" in a8 and "grid=6,4,1" in ragged  # cdiv(328, 64), cdiv(200 or 202, 64)
    assert params(a8) == [X, 328, 200, 200, 1, Z, 200, 328, 328, 1]
    assert "grid=3,5,1" in order and params(order) == [X, 136, 264, 328, 1, Z, 264, 136, 136, 1]
    assert "grid=1,16,1" in f32  # cdiv(4, 32), cdiv(1000, 64)
    assert "grid=2,2,3" in batched  # batch on grid z
    assert params(batched_a8) == [X, 3, 104, 72, 104 * 72, 72, 1, Z, 3, 72, 104, 72 * 104, 104, 1]
    for entry in ("transpose_2d", "transpose_2d_order", "transpose_batched"):
        assert f"function {entry}_entry" in log


def test_fp8_quantize_selects_by_dtype_row_length_and_alignment(fake_driver, library_with_fake_cubins, tmp_path):
    S = Z + (1 << 32)
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        call("cutile_fp8_quantize", T({X}, [333, 4000], "bfloat16"), T({Z}, [333, 4000], "float8_e4m3fn"),
             T({S}, [333], "float32"), 0, 0, nparams=13)
        call("cutile_fp8_quantize", T({X}, [33, 5008], "bfloat16"), T({Z}, [33, 5008], "float8_e4m3fn"),
             T({S}, [33], "float32"), 0, 0, nparams=13)
        call("cutile_fp8_quantize", T({X}, [77, 1001], "float16", [1008, 1]), T({Z}, [77, 1001], "float8_e4m3fn", [1008, 1]),
             T({S}, [77], "float32"), 0, 0, nparams=13)
        call("cutile_fp8_quantize", T({X}, [9, 512], "float16"), T({Z}, [9, 512], "float8_e4m3fn"),
             T({S}, [9], "float32"), 0, 0, nparams=13)
        call("cutile_fp8_quantize", T({X}, [5, 1000], "float16"), T({Z}, [5, 1000], "float8_e4m3fn"),
             T({S}, [5], "float32"), 0, 0, nparams=13)
    """, tmp_path)
    assert codes == [0] * 5
    # f16 N a multiple of 16: `_a16_fast`; bf16 (and f16 N of 8s only): `_a8_fast`; ragged: the general kernel
    assert images(log) == ["bf16_rows_a8_fast_m2_n4096", "bf16_looped_m1_n2048", "f16_rows_m8_n1024",
                           "f16_rows_a16_fast_m8_n1024", "f16_rows_a8_fast_m8_n1024"]
    rows, looped, ragged, a8, _ = launches(log)
    assert "grid=167,1,1" in rows  # cdiv(333, 2)
    assert "grid=33,1,1" in looped  # one row per block
    assert "grid=10,1,1" in ragged and "grid=2,1,1" in a8
    assert params(ragged) == [X, 77, 1001, 1008, 1, Z, 77, 1001, 1008, 1, S, 77, 1]
    assert "function fp8_quant_rows_entry" in log and "function fp8_quant_rows_looped_entry" in log
    assert "function fp8_quant_rows_fast_entry" in log


def test_layer_norm_selects_by_row_length_and_launches_one_block_per_64_backward_rows(fake_driver,
                                                                                   library_with_fake_cubins, tmp_path):
    """Rows up to 1024 columns: small arrays one row per block (the 8-byte `_fast` kernel), many
    aligned 16-bit rows four per block (`_a8_m4`), other layouts the general kernel; longer rows one
    per block, the `_fast` tile by row length and row count; the backward one block per 64 rows."""
    A = [X + (i << 32) for i in range(10)]
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        A = {A}
        def fwd(m, n, dtype, stride=None):
            call("cutile_layer_norm", T(A[0], [m, n], dtype, stride), T(A[1], [n], dtype), T(A[2], [n], dtype),
                 T(A[3], [m, n], dtype, stride), T(A[4], [m], "float32"), T(A[5], [m], "float32"), ctypes.c_float(1e-5),
                 0, 0, nparams=23)
        fwd(13, 1000, "float16")
        fwd(600, 1000, "float16")
        fwd(33, 333, "float16", [397, 1])
        fwd(13, 8168, "bfloat16")
        fwd(128, 8191, "float32")
        fwd(100, 2000, "bfloat16")
        fwd(700, 2000, "float32")
        p = (130 + 63) // 64
        call("cutile_layer_norm_bwd", T(A[0], [130, 304], "bfloat16", [368, 1]), T(A[1], [130, 304], "bfloat16"),
             T(A[2], [304], "bfloat16"), T(A[3], [130], "float32"), T(A[4], [130], "float32"),
             T(A[5], [130, 304], "bfloat16"), T(A[6], [p, 304], "float32"), T(A[7], [p, 304], "float32"), 0, 0, nparams=34)
    """, tmp_path)
    assert codes == [0] * 8
    assert images(log) == ["fwd_f16_a4_fast_m1_n1024", "fwd_f16_a8_m4_n1024", "fwd_f16_m4_n1024",
                           "fwd_bf16_a8_m1_n8192", "fwd_f32_m1_n8192", "fwd_bf16_a4_fast_m1_n4096",
                           "fwd_f32_a2_fast_m1_n2048", "bwd_bf16_a8_m4_n1024"]
    fast, a8, ragged, long_bf16, long_f32, few_bf16, many_f32, bwd = launches(log)
    assert "grid=13,1,1" in fast  # one row per block
    assert "grid=150,1,1" in a8 and "grid=9,1,1" in ragged  # cdiv(600, 4), cdiv(33, 4)
    assert "grid=13,1,1" in long_bf16 and "grid=128,1,1" in long_f32  # one row per block
    assert "grid=100,1,1" in few_bf16 and "grid=700,1,1" in many_f32
    assert params(ragged)[:5] == [A[0], 33, 333, 397, 1] and params(ragged)[-1] == f32_bits(1e-5)
    assert "grid=3,1,1" in bwd  # cdiv(130, 64)
    assert params(bwd)[-10:] == [A[6], 3, 304, 304, 1, A[7], 3, 304, 304, 1]
    for entry in ("layer_norm_fwd", "layer_norm_fwd_fast2_o16", "layer_norm_fwd_fast2_o8", "layer_norm_fwd_fast2_o4",
                  "layer_norm_bwd"):
        assert f"function {entry}_entry" in log, entry


def test_layer_norm_forced_fast2_variants_launch_their_kernels(fake_driver, library_with_fake_cubins, tmp_path):
    """The 8-byte `_fast` variants (`layer_norm_fwd_fast2_o*`), forced: cutile_layer_norm launches them (one row per block, their occupancy's kernel), and their row
    contract still applies: an f32 row stride of 1001 elements (not a multiple of 2) is refused."""
    A = [X + (i << 32) for i in range(10)]
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        A = {A}
        def fwd(m, n, dtype, stride=None):
            call("cutile_layer_norm", T(A[0], [m, n], dtype, stride), T(A[1], [n], dtype), T(A[2], [n], dtype),
                 T(A[3], [m, n], dtype, stride), T(A[4], [m], "float32"), T(A[5], [m], "float32"), ctypes.c_float(1e-5),
                 0, 0, nparams=23)
        lib.tileir_kernels_force_variant(b"layer_norm", b"fwd_f32_a2_fast_m1_n8192")
        fwd(13, 8190, "float32")
        fwd(13, 1000, "float32", [1001, 1])
        lib.tileir_kernels_force_variant(b"layer_norm", b"fwd_bf16_a4_fast_m1_n1024")
        fwd(7, 1020, "bfloat16")
    """, tmp_path)
    assert codes[0] == 0 and codes[1] != 0 and codes[2] == 0
    assert images(log) == ["fwd_f32_a2_fast_m1_n8192", "fwd_bf16_a4_fast_m1_n1024"]
    f32, bf16 = launches(log)
    assert "grid=13,1,1" in f32 and "grid=7,1,1" in bf16  # one row per block
    assert "function layer_norm_fwd_fast2_o4_entry" in log and "function layer_norm_fwd_fast2_o16_entry" in log


def test_bmm_launches_the_batch_on_grid_y(fake_driver, library_with_fake_cubins, tmp_path):
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        # 3 batches of 1000 x 520 x 64 f16: w8 128x256x64; a batch-interleaved a (batch stride K).
        call("cutile_bmm", T({X}, [3, 1000, 64], "float16", [64, 192, 1]), T({Y}, [3, 64, 520], "float16"),
             T({Z}, [3, 1000, 520], "float16"), 0, 0, {STREAM}, nparams=21)
        # bf16 with b stored (B, N, K), a small matrix (M, N <= 128): one warpgroup, 128x128x64.
        call("cutile_bmm", T({X}, [2, 100, 200], "bfloat16"), T({Y}, [2, 72, 200], "bfloat16"),
             T({Z}, [2, 100, 72], "bfloat16"), 1, 0, 0, nparams=21)
        # small f32 matrices (tf32): one warpgroup, 128x128x32.
        call("cutile_bmm", T({X}, [2, 100, 200], "float32"), T({Y}, [2, 200, 72], "float32"),
             T({Z}, [2, 100, 72], "float32"), 0, 0, 0, nparams=21)
    """, tmp_path)
    assert codes == [0, 0, 0]
    assert images(log) == ["f16_nn_w8_128x256x64", "bf16_nt_128x128x64", "tf32_nn_128x128x32"]
    wide, nt, small = launches(log)
    assert f"grid=24,3,1 block=1,1,1 shared=0 stream=0x{STREAM:x}" in wide  # cdiv(1000, 128) * cdiv(520, 256), B
    assert params(wide) == [X, 3, 1000, 64, 64, 192, 1, Y, 3, 64, 520, 64 * 520, 520, 1,
                            Z, 3, 1000, 520, 1000 * 520, 520, 1]
    assert "grid=1,2,1" in nt
    assert params(nt)[7:14] == [Y, 2, 72, 200, 72 * 200, 200, 1]
    assert "grid=1,2,1" in small and params(small)[7:14] == [Y, 2, 200, 72, 200 * 72, 72, 1]
    assert "function bmm_w8_entry" in log and "function bmm_entry" in log


def test_bmm_persistent_runs_at_most_132_blocks_on_grid_x(fake_driver, library_with_fake_cubins, tmp_path):
    """A batch of more than 132 output tiles of 128x256 takes the persistent kernel on a 1-D grid of
    min(132, B * tiles) blocks (each loops over batch x tiles); at 132 tiles, the one-tile kernel."""
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        # 4 batches of 2048 x 2048 bf16 NN (128 tiles each, 512 in all): persistent, 132 blocks.
        call("cutile_bmm", T({X}, [4, 2048, 64], "bfloat16"), T({Y}, [4, 64, 2048], "bfloat16"),
             T({Z}, [4, 2048, 2048], "bfloat16"), 0, 0, 0, nparams=21)
        # 133 one-tile f16 NT matrices: 133 blocks of work on a grid of 132.
        call("cutile_bmm", T({X}, [133, 128, 64], "float16"), T({Y}, [133, 256, 64], "float16"),
             T({Z}, [133, 128, 256], "float16"), 1, 0, 0, nparams=21)
        # 132 of them: the one-tile kernel, one block row per matrix.
        call("cutile_bmm", T({X}, [132, 128, 64], "float16"), T({Y}, [132, 256, 64], "float16"),
             T({Z}, [132, 128, 256], "float16"), 1, 0, 0, nparams=21)
    """, tmp_path)
    assert codes == [0, 0, 0]
    assert images(log) == ["bf16_nn_w8p_128x256x64", "f16_nt_w8p_128x256x64", "f16_nt_w8_128x256x64"]
    wide, just_over, one_wave = launches(log)
    assert "grid=132,1,1" in wide and "grid=132,1,1" in just_over
    assert params(wide) == [X, 4, 2048, 64, 2048 * 64, 64, 1, Y, 4, 64, 2048, 64 * 2048, 2048, 1,
                            Z, 4, 2048, 2048, 2048 * 2048, 2048, 1]
    assert "grid=1,132,1" in one_wave
    assert "function bmm_w8_persistent_entry" in log and "function bmm_w8_entry" in log


def test_splitk_matmul_launches_partial_then_reduce_on_the_callers_stream(fake_driver, library_with_fake_cubins, tmp_path):
    """One call, two launches in order on the stream: the partial kernel over (tiles, S), then the
    reduce over c's 4x256 tiles, both on the caller's slabs; a forced reduce keeps the partial."""
    m, n, k, s = 100, 520, 4096, 5
    P = Z + (1 << 32)
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        args = (T({X}, [{m}, {k}], "bfloat16"), T({Y}, [{k}, {n}], "bfloat16"),
                T({P}, [{s}, {m}, {n}], "float32", [2 * {m} * {n}, {n}, 1]), T({Z}, [{m}, {n}], "bfloat16"))
        # 12 words: all of the reduce's, the first 12 of the partial's 17
        call("cutile_splitk_matmul", *args, 0, {STREAM}, nparams=12)
        lib.tileir_kernels_force_variant(b"splitk_matmul", b"reduce_bf16_64x128")
        call("cutile_splitk_matmul", *args, 0, {STREAM}, nparams=12)
    """, tmp_path)
    assert codes == [0, 0]
    assert images(log) == ["partial_bf16_64x128x64", "reduce_bf16_4x256", "reduce_bf16_64x128"]
    partial, reduce, partial_again, forced = launches(log)
    assert f"grid=10,{s},1 block=1,1,1 shared=0 stream=0x{STREAM:x}" in partial  # cdiv(100, 64) * cdiv(520, 128), S
    slabs = [P, s, m, n, 2 * m * n, n, 1]
    assert params(partial) == [X, m, k, k, 1, Y, k, n, n, 1] + slabs[:2]
    assert f"grid=25,3,1 block=1,1,1 shared=0 stream=0x{STREAM:x}" in reduce  # cdiv(100, 4), cdiv(520, 256)
    assert params(reduce) == slabs + [Z, m, n, n, 1]
    assert partial_again == partial
    assert "grid=2,5,1" in forced  # cdiv(100, 64), cdiv(520, 128)
    assert "function splitk_partial_entry" in log and "function splitk_reduce_entry" in log


def test_fused_moe_routing_arrays_must_fit_their_allocation(fake_driver, library_with_fake_cubins, tmp_path):
    """The routing arrays are bound-checked like the data: with 16 KiB allocations (w fills one),
    64 int32 ids fit and 8192 do not."""
    a = [X + (i << 32) for i in range(7)]
    body = f"""
        A = {a}
        for em in (64, 8192):
            call("cutile_fused_moe", T(A[0], [1, 64], "float16"), T(A[1], [1, 128, 64], "float16"),
                 T(A[2], [em], "int32"), T(A[3], [em // 16], "int32"), T(A[4], [1], "int32"),
                 T(A[5], [8], "float32"), T(A[6], [8, 128], "float16"), 1, 16, 0, 0)
    """
    codes, errors, log = run_with_errors(fake_driver, library_with_fake_cubins, body, tmp_path,
                                         FAKE_CUDA_ALLOC_SIZE=16384)
    assert codes == [Status.OK, Status.OUT_OF_BOUNDS], errors
    assert errors[1].startswith("OUT_OF_BOUNDS: sorted_token_ids: ") and "16384 bytes more" in errors[1], errors[1]
    assert len(launches(log)) == 1
def test_flash_decode_launches_partial_then_combine_on_the_callers_stream(fake_driver, library_with_fake_cubins,
                                                                          tmp_path):
    b, hq, hkv, smax, s, d = 3, 8, 2, 300, 5, 128
    a = [X + (i << 32) for i in range(7)]
    body = f"""
        A = {a}
        args = (T(A[0], [{b}, {hq}, {d}], "bfloat16"), T(A[1], [{b}, {hkv}, {smax}, {d}], "bfloat16"),
                T(A[2], [{b}, {hkv}, {smax}, {d}], "bfloat16"), T(A[3], [{b}], "int32"),
                T(A[4], [{b}, {hq}, {s}, {d}], "float32"), T(A[5], [{b}, {hq}, {s}], "float32"),
                T(A[6], [{b}, {hq}, {d}], "bfloat16"), ctypes.c_float(0.25), 0, {STREAM})
        call("cutile_flash_decode", *args, nparams={{nparams}})
    """
    codes, log = run(fake_driver, library_with_fake_cubins, body.format(nparams=23), tmp_path)
    assert codes == [0]
    assert images(log) == ["tp_bf16_d128_g4_bn128", "combine_bf16_d128_o8"]
    partial, combine = launches(log)
    assert log.index(partial) < log.index(combine)
    assert f"grid={s},{b * hkv},1 block=1,1,1 shared=0 stream=0x{STREAM:x}" in partial
    assert f"grid={b * hq},1,1 block=1,1,1 shared=0 stream=0x{STREAM:x}" in combine
    assert "function flash_decode_partial_tp_entry" in log and "function flash_decode_combine_o8_entry" in log
    q = [a[0], b, hq, d, hq * d, d, 1]
    kv = lambda i: [a[i], b, hkv, smax, d, hkv * smax * d, smax * d, d, 1]  # noqa: E731
    partial_o = [a[4], b, hq, s, d, hq * s * d, s * d, d, 1]
    partial_lse = [a[5], b, hq, s, hq * s, s, 1]
    o = [a[6], b, hq, d, hq * d, d, 1]
    assert params(combine) == partial_o + partial_lse + o
    assert params(partial) == (q + kv(1) + kv(2))[:23]
    # Every word of the partial kernel's 45: its launch fails, so the combine never launches.
    codes, log = run(fake_driver, library_with_fake_cubins, body.format(nparams=45), tmp_path, FAKE_CUDA_LAUNCH_RC=700)
    assert codes == [Status.LAUNCH_FAILED]
    (partial,) = launches(log)
    assert params(partial) == q + kv(1) + kv(2) + [a[3], b, 1] + partial_o + partial_lse + [f32_bits(0.25)]


def test_moe_align_launches_histogram_then_sort_as_one_block_each(fake_driver, library_with_fake_cubins, tmp_path):
    n, e, block_m = 300, 20, 16
    em = n + e * (block_m - 1)
    nb = -(-em // block_m)
    a = [X + (i << 32) for i in range(6)]
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        A = {a}
        call("cutile_moe_align_block_size", T(A[0], [{n}], "int32"), T(A[1], [{e}], "int32"), T(A[2], [{e + 1}], "int32"),
             T(A[3], [{nb}], "int32"), T(A[4], [1], "int32"), T(A[5], [{em}], "int32"), {block_m}, 0, {STREAM}, nparams=12)
    """, tmp_path)
    assert codes == [0]
    assert images(log) == ["hist_bm16_e256", "sort_bm16_e256"]
    histogram, sort = launches(log)
    assert log.index(histogram) < log.index(sort)
    for line in (histogram, sort):
        assert f"grid=1,1,1 block=1,1,1 shared=0 stream=0x{STREAM:x}" in line
    assert "function moe_align_histogram_entry" in log and "function moe_align_sort_entry" in log
    arrays = lambda *pairs: [w for i, extent in pairs for w in (a[i], extent, 1)]  # noqa: E731
    assert params(histogram) == arrays((0, n), (1, e), (2, e + 1), (3, nb))
    assert params(sort) == arrays((0, n), (1, e), (2, e + 1), (5, em))


def test_moe_align_tiled_launches_count_then_place_one_block_per_256_ids(fake_driver, library_with_fake_cubins, tmp_path):
    """The parallel pair: both kernels on a grid of ceil(N / 256) blocks, tile_counts passed as its
    first ceil(N / 256) rows of E (a (T, E) view with row stride E) whatever the scratch's length."""
    n, e, block_m = 600, 20, 16
    em = n + e * (block_m - 1)
    nb = -(-em // block_m)
    tiles = -(-n // 256)
    a = [X + (i << 32) for i in range(7)]
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        A = {a}
        call("cutile_moe_align_block_size_tiled", T(A[0], [{n}], "int32"), T(A[1], [{e}], "int32"),
             T(A[2], [{e + 1}], "int32"), T(A[3], [{nb}], "int32"), T(A[4], [1], "int32"), T(A[5], [{em}], "int32"),
             T(A[6], [{tiles * e + 7}], "int32"), {block_m}, 0, {STREAM}, nparams=8)
        # one element short of ceil(N / 256) * E: refused before any launch
        call("cutile_moe_align_block_size_tiled", T(A[0], [{n}], "int32"), T(A[1], [{e}], "int32"),
             T(A[2], [{e + 1}], "int32"), T(A[3], [{nb}], "int32"), T(A[4], [1], "int32"), T(A[5], [{em}], "int32"),
             T(A[6], [{tiles * e - 1}], "int32"), {block_m}, 0, {STREAM}, nparams=8)
    """, tmp_path)
    assert codes == [0, Status.SHAPE_MISMATCH]
    assert images(log) == ["count_t256_e256_s32", "place_bm16_e256_s32"]
    count, place = launches(log)  # (the images load in launch order: count's first)
    assert "function moe_align_count_sub_entry" in log and "function moe_align_place_sub_entry" in log
    for line in (count, place):
        assert f"grid={tiles},1,1 block=1,1,1 shared=0 stream=0x{STREAM:x}" in line
    arrays = lambda *pairs: [w for i, extent in pairs for w in (a[i], extent, 1)]  # noqa: E731
    rows = [a[6], tiles, e, e, 1]
    # (the first 8 words of each: count's whole parameter list, place's topk_ids and tile_counts)
    assert params(count) == params(place) == arrays((0, n)) + rows
