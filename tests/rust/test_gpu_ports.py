"""The Rust ports on a GPU (marker `gpu`; skipped without torch + CUDA).

Runs the shipped library (build/rust/lib/libtileir_kernels.so, or $TILEIR_KERNELS_LIB) with
its embedded sm_90 cubins; needs neither cargo nor tileiras. For every ported variant and
every test shape of reference/<op>/analysis.json: numerics against ref.py at the analysis.json
tolerances (each variant forced, so every cubin runs). Plus: the launch allocates nothing, and
it is ordered on the caller's (non-default) stream.

Set TILEIR_PORTS_RESULTS=path.json to also write every case's outcome with date, GPU and driver.
"""
from __future__ import annotations

import datetime
import importlib.util
import json
import os
from pathlib import Path

import pytest

from tileir_diff import ports

from .test_variant_table import NOT_YET_PORTED

torch = pytest.importorskip("torch")
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device"),
]

REFERENCE = Path(__file__).resolve().parents[2] / "reference"
# the cubins build_ports.sh embeds in the library: each result names the one it tested, so the
# port table shows a result for an older build as stale (tileir_diff.suite.port_table.numerics_state)
RUST_BUILD = Path(os.environ.get("TILEIR_RUST_BUILD", Path(__file__).resolve().parents[2] / "build" / "rust"))
PORTED_OPS = ports.PORTED_OPS  # tileir_diff/ports/registry.py: the one Python list of ported ops
SEED = 20261130
_results: list[dict] = []


def _ref_module(op):
    spec = importlib.util.spec_from_file_location(f"_ref_{op}", REFERENCE / op / "ref.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _analysis(op):
    return json.loads((REFERENCE / op / "analysis.json").read_text())


def _one_call(op, variant):
    """(inputs, expected) functions for one call that runs `variant`: ref.make_inputs and
    ref.reference, or, for a C function that launches several kernels, those of the module the
    registry names (the call runs the partner kernel too and needs all the kernels' arguments)."""
    function = ports.function_for(op, variant["kernel"])
    if function.call_module is None:
        ref = _ref_module(op)
        return ref.make_inputs, ref.reference
    spec = importlib.util.spec_from_file_location(f"_call_{op}", REFERENCE / op / f"{function.call_module}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.call_inputs, mod.call_reference


def _inputs(op, variant, shape):
    return _one_call(op, variant)[0](variant, shape, seed=SEED, device="cuda")


def _expected(op, variant, inputs):
    return _one_call(op, variant)[1](variant, inputs)


def _call(op, variant, inputs, stream=None):
    """The port of `op` on the reference's inputs (names as in analysis.json params), through the
    torch wrapper the registry names for the variant's kernel; `stream` overrides torch's current
    stream."""
    function = ports.function_for(op, variant["kernel"])
    getattr(ports, function.wrapper)(**ports.wrapper_kwargs(function, variant, inputs), stream=stream)


def _cases():
    ports.load_library()
    for op in PORTED_OPS:
        analysis = _analysis(op)
        for v in analysis["variants"]:
            if (op, v["name"]) in NOT_YET_PORTED:
                continue
            for i, shape in enumerate(v["test_shapes"]):
                yield pytest.param(op, v, shape, analysis["tolerances"], id=f"{op}-{v['name']}-{i}")


def _case_params():
    try:
        return list(_cases())
    except ports.LibraryNotFoundError as e:
        return [pytest.param(None, None, None, None, marks=pytest.mark.skip(reason=str(e)), id="no-library")]


def test_every_ported_op_ships_cubins():
    lib = ports.load_library()
    for op in PORTED_OPS:
        names = [v["name"] for v in _analysis(op)["variants"] if (op, v["name"]) not in NOT_YET_PORTED]
        missing = [n for n in names if not lib.tileir_kernels_has_kernel_image(op.encode(), n.encode())]
        assert not missing, f"{op}: the library embeds no cubin for {missing} (build with rust_kernels/build_ports.sh)"


@pytest.mark.parametrize("op, variant, shape, tolerances", _case_params())
def test_numerics_match_reference(op, variant, shape, tolerances):
    inputs = _inputs(op, variant, shape)
    with ports.force_variant(op, variant["name"]):
        _call(op, variant, inputs)
    torch.cuda.synchronize()
    expected = _expected(op, variant, inputs)
    from tileir_diff.suite.port_table import cubin_digest
    record = {"op": op, "variant": variant["name"], "shape": shape, "outputs": {},
              "cubin_sha256": cubin_digest(RUST_BUILD / op / f"{variant['name']}.sm_90.cubin")}
    try:
        for name, want in expected.items():
            got = inputs[name]
            tol = tolerances[str(got.dtype).replace("torch.", "")]
            err = (got.to(torch.float64) - want.to(got.device, torch.float64)).abs()
            record["outputs"][name] = {"max_abs_err": float(err.max()) if err.numel() else 0.0, **tol}
            torch.testing.assert_close(got.to(torch.float64), want.to(got.device, torch.float64), rtol=tol["rtol"],
                                       atol=tol["atol"], msg=lambda m: f"{op}/{variant['name']} {shape} {name}: {m}")  # noqa: B023
        record["result"] = "pass"
    except AssertionError:
        record["result"] = "fail"
        raise
    finally:
        _results.append(record)


def _one_call_per_op():
    """(op, variant, inputs) of one small case per op, for the allocation and stream tests."""
    picks = [("vector_add", "f32_t1024", {"N": 1 << 20}), ("softmax", "f16_row_m4_n1024", {"M": 4096, "N": 1000}),
             ("rms_norm", "fwd_bf16_m1_n8192", {"M": 1024, "N": 4096}),
             ("rms_norm", "bwd_f16_m4_n1024", {"M": 1000, "N": 1000}),
             ("matmul", "f16_nn_128x128x64", {"M": 1024, "N": 1024, "K": 1024}),
             ("matmul", "fp8e4m3_bf16_nt_128x256x128", {"M": 512, "N": 512, "K": 512}),
             ("silu_and_mul", "bf16_m8_h512", {"M": 1024, "H": 4096}),
             ("swiglu", "fwd_f16", {"M": 1024, "N": 4096}), ("swiglu", "bwd_f32", {"M": 1000, "N": 1000}),
             ("gelu", "erf_bf16", {"M": 1024, "N": 4096}), ("gelu", "tanh_f32_a8", {"M": 1000, "N": 1000}),
             ("dropout", "f16_t1024", {"N": 1 << 20}), ("dropout", "f32_strided_t1024", {"N": 65536, "noncontiguous": ["x"]}),
             ("argmax", "bf16_m4_n1024", {"M": 1000, "N": 5000}),
             ("cross_entropy", "bf16_a8_v2048", {"M": 256, "V": 32000}),
             ("cumsum", "row_f16_m4_n1024", {"M": 1000, "N": 1000}),
             ("cumsum", "looped_f32_m4_n1024", {"M": 300, "N": 5000, "noncontiguous": ["x"]}),
             ("embedding", "bf16_i64_rows_h1024", {"T": 256, "V": 32000, "H": 4096}),
             ("embedding", "f32_i32_gather_bt8_h256", {"T": 300, "V": 5003, "H": 1000}),
             ("transpose", "bf16_order_64x64", {"M": 1000, "N": 1000}),
             ("transpose", "bf16_batched_a8_64x64", {"B": 4, "M": 256, "N": 128}),
             ("fp8_quantize", "bf16_rows_m4_n4096", {"M": 1024, "N": 4096}),
             ("fp8_quantize", "bf16_looped_m1_n2048", {"M": 64, "N": 14336}),
             ("layer_norm", "fwd_bf16_m1_n8192", {"M": 1024, "N": 4096}),
             ("layer_norm", "bwd_f16_m4_n1024", {"M": 1000, "N": 1000}),
             ("softmax", "f16_row_a8_o8_m4_n1024", {"M": 4096, "N": 1024}),
             ("matmul", "bf16_nt_w8_128x256x64", {"M": 4096, "N": 4096, "K": 256}),
             ("rope", "bf16_neox_d128", {"T": 256, "Hq": 8, "Hkv": 8, "P": 4096}),
             ("rope", "bf16_gptj_d128", {"T": 130, "Hq": 8, "Hkv": 2, "P": 512, "noncontiguous": ["q", "k"]}),
             ("flash_attention", "bf16_d128_causal_gqa4_w8_bn128", {"B": 2, "Hq": 8, "Hkv": 2, "Sq": 256, "Sk": 256}),
             ("flash_attention", "f16_d64_noncausal_o2", {"B": 2, "Hq": 4, "Hkv": 4, "Sq": 100, "Sk": 300}),
             ("attention_sink", "bf16_d64_gqa8_window128",
              {"B": 1, "Hq": 16, "Hkv": 2, "S": 333, "noncontiguous": ["q", "k", "v"]}),
             ("bmm", "f16_nn_w8_128x256x64", {"B": 8, "M": 1024, "N": 1024, "K": 512}),
             ("bmm", "bf16_nt_128x128x64", {"B": 3, "M": 129, "N": 136, "K": 264, "noncontiguous": ["a", "b"]}),
             ("splitk_matmul", "partial_bf16_64x128x64", {"M": 64, "N": 4096, "K": 8192, "S": 16}),
             ("splitk_matmul", "reduce_f16_4x256", {"M": 65, "N": 128, "S": 4, "noncontiguous": ["partial"]}),
             ("group_gemm", "bf16_nk_128x128x64", {"T": 4096, "G": 8, "K": 1024, "N": 1024, "split": "with_empty"}),
             ("fused_moe", "bf16_top2_bm64_mul", {"T": 512, "E": 8, "K": 1024, "N": 1024}),
             ("flash_decode", "partial_bf16_d128_g4",
              {"B": 3, "Hq": 8, "Hkv": 2, "Smax": 1000, "S": 8, "lens": "random", "noncontiguous": ["k", "v"]}),
             ("moe_align_block_size", "hist_bm64_e128", {"N": 4096, "E": 64, "topk": "8", "NB": 127}),
             ("embedding", "f16_i64_gather_bt8_h256_idx64", {"T": 130, "V": 5003, "H": 1000, "noncontiguous": ["out"]})]
    for op, name, shape in picks:
        variant = next(v for v in _analysis(op)["variants"] if v["name"] == name)
        yield pytest.param(op, variant, shape, id=f"{op}-{variant['kernel']}-{name}")


@pytest.mark.parametrize("op, variant, shape", list(_one_call_per_op()))
def test_launch_allocates_nothing(op, variant, shape):
    inputs = _inputs(op, variant, shape)
    _call(op, variant, inputs)  # first call loads the module (driver memory, once)
    torch.cuda.synchronize()
    allocated = torch.cuda.memory_allocated()
    free_before, _ = torch.cuda.mem_get_info()
    for _ in range(10):
        _call(op, variant, inputs)
    torch.cuda.synchronize()
    assert torch.cuda.memory_allocated() == allocated
    free_after, _ = torch.cuda.mem_get_info()
    assert free_after == free_before, f"{op}: device memory changed by {free_before - free_after} bytes"


@pytest.mark.parametrize("op, variant, shape", list(_one_call_per_op()))
@pytest.mark.parametrize("how", ["current_stream", "stream_argument"])
def test_runs_in_order_on_a_non_default_stream(op, variant, shape, how):
    """The inputs are written on a side stream after a long spin; a launch on any other stream
    would read them before the write and fail the comparison."""
    inputs = _inputs(op, variant, shape)
    tensors = {k: v for k, v in inputs.items() if torch.is_tensor(v)}
    # what the call writes, from one call on copies: a call of several kernels has an expected
    # output only once its first kernel has run (moe_align's sort reads the histogram's offsets)
    probe = {k: (v.clone() if torch.is_tensor(v) else v) for k, v in inputs.items()}
    _call(op, variant, probe)
    torch.cuda.synchronize()
    written = set(_expected(op, variant, probe))
    del probe
    read_only = [k for k in tensors if k not in written]
    saved = {k: tensors[k].clone() for k in read_only}
    for k in read_only:
        if tensors[k].element_size() == 1:  # float8: 0x7F is e4m3fn's NaN
            tensors[k].view(torch.uint8).fill_(0x7F)
        elif not tensors[k].is_floating_point():  # ids, targets: 0 is valid, but the wrong one
            tensors[k].fill_(0)
        else:
            tensors[k].fill_(float("nan"))
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    assert side.cuda_stream != torch.cuda.default_stream().cuda_stream
    with torch.cuda.stream(side):
        torch.cuda._sleep(200_000_000)  # ~0.1 s of spinning on `side`
        for k in read_only:
            tensors[k].copy_(saved[k])
        if how == "current_stream":
            _call(op, variant, inputs)
    if how == "stream_argument":
        # Current stream is the default one here; the explicit argument must win.
        _call(op, variant, inputs, stream=side)
    side.synchronize()
    expected = _expected(op, variant, inputs)
    tol = _analysis(op)["tolerances"]
    for name, want in expected.items():
        got = inputs[name]
        t = tol[str(got.dtype).replace("torch.", "")]
        torch.testing.assert_close(got.to(torch.float64), want.to(got.device, torch.float64), rtol=t["rtol"],
                                   atol=t["atol"])


def test_gpu_rejections():
    x = torch.randn(1024, device="cuda")
    out = torch.empty_like(x)
    with pytest.raises(ports.DeviceMismatchError):
        ports.vector_add(x, x.cpu(), out)  # host memory
    if torch.cuda.device_count() < 8:
        lib = ports.load_library()
        d = ports.descriptor(x.data_ptr(), x.shape, x.stride(), "float32")
        o = ports.descriptor(out.data_ptr(), out.shape, out.stride(), "float32")
        import ctypes
        code = lib.cutile_vector_add(ctypes.byref(d), ctypes.byref(d), ctypes.byref(o), 7, 0)
        assert code == ports.Status.INVALID_DEVICE
    with pytest.raises(ports.BadStrideError):
        h = torch.randn(2048, device="cuda", dtype=torch.float16)[::2]
        ports.vector_add(h, h, torch.empty(1024, device="cuda", dtype=torch.float16))


def _allocation_end(ptr):
    """End of the contiguously mapped device memory holding `ptr`, as the library computes it
    (cuMemGetAddressRange_v2, following adjacent chunks of cuMemMap'ed memory)."""
    import ctypes
    cuda = ctypes.CDLL("libcuda.so.1")
    fn = cuda.cuMemGetAddressRange_v2
    fn.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_size_t), ctypes.c_uint64]
    base, size = ctypes.c_uint64(0), ctypes.c_size_t(0)
    assert fn(ctypes.byref(base), ctypes.byref(size), ptr) == 0
    end = base.value + size.value
    while fn(ctypes.byref(base), ctypes.byref(size), end) == 0 and base.value == end and size.value:
        end = base.value + size.value
    return end


def test_gpu_descriptor_past_its_allocation_is_rejected():
    """A descriptor claiming more elements than the allocation holds is OUT_OF_BOUNDS (torch's
    caching allocator places tensors in larger segments, so the claim is one element past the end of
    the driver's allocation holding x); the true shape runs and is correct."""
    import ctypes
    lib = ports.load_library()
    n = 1000
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    fit = (_allocation_end(x.data_ptr()) - x.data_ptr()) // 4  # f32 elements up to the allocation's end
    if fit >= 1 << 26:
        pytest.skip(f"x lies in a {fit * 4}-byte mapping (allocator settings); too large to claim past")
    big = [torch.empty(fit + 1, device="cuda") for _ in range(2)]  # y and out hold the claimed shape
    d = [ports.descriptor(t.data_ptr(), [fit + 1], [1], "float32") for t in (x, *big)]
    code = lib.cutile_vector_add(*map(ctypes.byref, d), torch.cuda.current_device(),
                                 torch.cuda.current_stream().cuda_stream)
    msg = lib.tileir_kernels_last_error().decode()
    assert code == ports.Status.OUT_OF_BOUNDS, msg
    assert msg.startswith("OUT_OF_BOUNDS: x: ") and "4 bytes more" in msg, msg
    with pytest.raises(ports.OutOfBoundsError, match="x: bytes"):
        ports.check(lib, code)
    # The true shape passes and computes x + y.
    out = torch.empty(n, device="cuda")
    d = [ports.descriptor(t.data_ptr(), [n], [1], "float32") for t in (x, y, out)]
    code = lib.cutile_vector_add(*map(ctypes.byref, d), torch.cuda.current_device(),
                                 torch.cuda.current_stream().cuda_stream)
    assert code == ports.Status.OK, lib.tileir_kernels_last_error().decode()
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y)


def teardown_module(module):
    path = os.environ.get("TILEIR_PORTS_RESULTS")
    if not path or not _results:
        return
    props = torch.cuda.get_device_properties(0)
    Path(path).write_text(json.dumps({
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpu": props.name, "driver": _driver_version(), "torch": torch.__version__, "cases": _results,
    }, indent=1))


def _driver_version() -> str:
    """The kernel driver version (e.g. 580.159) when NVML is there, else the CUDA driver API version."""
    import ctypes
    try:
        nvml = ctypes.CDLL("libnvidia-ml.so.1")
        buf = ctypes.create_string_buffer(96)
        if nvml.nvmlInit_v2() == 0 and nvml.nvmlSystemGetDriverVersion(buf, 96) == 0:
            return buf.value.decode()
    except OSError:
        pass
    version = ctypes.c_int(0)
    ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(version))
    return f"CUDA {version.value // 1000}.{version.value % 1000 // 10}"
