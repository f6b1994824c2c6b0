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

from tileir_diff.ports import Status

from .conftest import CRATE, REPO, _cargo

pytestmark = pytest.mark.cargo

PORTED_OPS = ("vector_add", "softmax", "rms_norm", "matmul")
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
def library_with_fake_cubins(tmp_path_factory) -> Path:
    """The library with an ELF-magic placeholder as every variant's cubin (the fake driver
    only checks the magic)."""
    cubins = tmp_path_factory.mktemp("fake_cubins")
    for op in PORTED_OPS:
        (cubins / op).mkdir()
        for v in json.loads((REPO / "reference" / op / "analysis.json").read_text())["variants"]:
            (cubins / op / f"{v['name']}.sm_90.cubin").write_bytes(b"\x7fELF fake cubin " + v["name"].encode())
    _cargo(["build", "--release", "--locked", "--lib", "--no-default-features", "--target-dir", "target/abi-fake"],
           env={"TILEIR_CUBIN_DIR": str(cubins)})
    return CRATE / "target" / "abi-fake" / "release" / "libtileir_kernels.so"


PRELUDE = """
import ctypes, json, os, sys
from tileir_diff.ports import descriptor, load_library
lib = load_library(sys.argv[1])
codes = []
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
    m, n, k = 333, 200, 328
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
    """, tmp_path)
    assert codes == [0, 0]
    rms, fp8 = launches(log)
    bits = struct.unpack("<I", struct.pack("<f", 1e-6))[0]
    assert params(rms)[-1] == bits and "grid=4,1,1" in rms  # 13 rows, 4 per block
    assert params(fp8)[-2:] == [struct.unpack("<I", struct.pack("<f", v))[0] for v in (0.5, 0.25)]
    assert "grid=4,1,1" in fp8  # ceil(256/128) * ceil(384/256)
    assert "function rms_norm_fwd_entry" in log and "function matmul_fp8_entry" in log


def test_forced_variant_launches_that_cubin(fake_driver, library_with_fake_cubins, tmp_path):
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        lib.tileir_kernels_force_variant(b"softmax", b"f32_online_n1024")
        call("cutile_softmax", T({X}, [7, 100], "float32"), T({Y}, [7, 100], "float32"), 0, 0, nparams=10)
    """, tmp_path)
    assert codes == [0]
    assert "function softmax_online_entry" in log
    assert "grid=7,1,1" in launches(log)[0]  # one row per block


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


def test_invalid_calls_and_empty_outputs_never_touch_the_driver(fake_driver, library_with_fake_cubins, tmp_path):
    codes, log = run(fake_driver, library_with_fake_cubins, f"""
        call("cutile_vector_add", T({X}, [10], "float32"), T({Y}, [11], "float32"), T({Z}, [10], "float32"), 0, 0)
        call("cutile_vector_add", T(0, [0], "float32"), T(0, [0], "float32"), T(0, [0], "float32"), 0, 0)
    """, tmp_path)
    assert codes == [Status.SHAPE_MISMATCH, Status.OK]
    assert log == []
