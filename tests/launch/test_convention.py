"""The calling convention has one owner (tileir_diff.launch): the packing, the interpreter's
flattening, the launch facts' argument names and the device/stream choice of both launchers
follow it. Each test would fail if a user kept its own copy and it drifted."""
from __future__ import annotations

from collections import namedtuple
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from tileir_diff.interp.dtypes import HOST_TO_ELEMENT
from tileir_diff.interp.memory import Memory
from tileir_diff.interp.run import flatten_args
from tileir_diff.launch import abi, launcher, stream
from tileir_diff.launch.abi import ArrayArg, argument_words, array_values, array_words, pack_arguments
from tileir_diff.ports import DTYPE_CODES, descriptor, torch_ops
from tileir_diff.suite.catalog import load_catalog
from tileir_diff.suite.launch_facts import argument_layout

Device = namedtuple("Device", "type index")
REFERENCE = Path(__file__).resolve().parents[2] / "reference"


def test_array_words_pointer_then_sizes_then_strides():
    assert array_words(2) == (("ptr", 0), ("shape", 0), ("shape", 1), ("stride", 0), ("stride", 1))
    assert array_words(0) == (("ptr", 0),)
    assert array_values(0x100, (3, 4), (4, 1)) == [0x100, 3, 4, 4, 1]
    # array_values writes the order out (it runs on every launch): it must be array_words' order
    for ndim in range(5):
        shape, strides = tuple(10 + d for d in range(ndim)), tuple(20 + d for d in range(ndim))
        by_word = [{"ptr": 1, "shape": shape[d] if d < ndim else None, "stride": strides[d] if d < ndim else None}[w]
                   for w, d in array_words(ndim)]
        assert array_values(1, shape, strides) == by_word


def _values_for(v):
    """ArrayArgs satisfying every export assumption of variant `v` (contiguous, aligned)."""
    out = {}
    for k, p in enumerate(v.arrays):
        shape = tuple(c if c is not None else 64 * d for d, c in
                      enumerate(p.shape_constant or (None,) * p.ndim, start=1))
        strides, run = [], 1
        for n in reversed(shape):
            strides.insert(0, run)
            run *= n
        if p.stride_constant is not None:
            strides = [c if c is not None else s for c, s in zip(p.stride_constant, strides)]
        out[p.name] = ArrayArg(0x7F0000000000 + k * 0x10000000, shape, tuple(strides), p.dtype)
    return out


def test_every_variant_packs_in_the_order_its_launch_facts_name():
    checked = 0
    for op in load_catalog(REFERENCE):
        for v in op.variants:
            words = list(argument_words(v.params))
            try:
                packed = pack_arguments(v, _values_for(v))
            except abi.ArgumentError:
                continue  # a variant whose assumptions this simple shape does not meet
            names = [d[0] for d in packed.described]
            expected = [f"{n}.ptr" if w == "ptr" else (n if w == "scalar" else f"{n}.{w}[{d}]") for n, w, d in words]
            assert names == expected, v.symbol
            assert list(argument_layout(v)) == words and list(argument_layout(v).values()) == list(range(len(words)))
            checked += 1
    assert checked >= 24, f"only {checked} variants packed"


def test_the_interpreter_flattens_arrays_in_the_convention_order():
    x = np.zeros((2, 3), dtype=np.float32)
    flat, placed = flatten_args([x, 7], Memory())
    (_, h), = placed
    assert flat == array_values(h.address, (2, 3), (3, 1)) + [7]


def test_stream_handle_int_stream_object_and_rejection():
    assert stream.stream_handle(0x1234, 0) == 0x1234
    assert stream.stream_handle(SimpleNamespace(cuda_stream=0x55), 3) == 0x55
    with pytest.raises(TypeError, match="torch.cuda.Stream or an int handle, got str"):
        stream.stream_handle("default", 0)
    for not_a_handle in ("5", 5.0, True):  # int() would take them: the launcher never did
        with pytest.raises(TypeError):
            stream.stream_handle(not_a_handle, 0)
    with pytest.raises(abi.ArgumentError, match="got object"):  # the launcher's own error type
        launcher._stream_handle(object(), 0)


def test_default_stream_is_the_current_one_of_the_device(monkeypatch):
    monkeypatch.setattr(stream, "_current_raw_stream", lambda device: 0x1000 + device)
    assert stream.stream_handle(None, 2) == 0x1002
    cuda = SimpleNamespace(device=SimpleNamespace(type="cuda", index=1))
    host = SimpleNamespace(device=SimpleNamespace(type="cpu", index=None))
    assert stream.cuda_device_of([host, cuda]) == 1
    assert stream.cuda_device_of([host]) is None
    # the ports wrapper takes the same answer: the device of the first CUDA tensor, its current stream
    assert torch_ops._device_and_stream([host, cuda], None) == (1, 0x1001)
    assert torch_ops._device_and_stream([host], None) == (0, 0)
    assert torch_ops._device_and_stream([host], SimpleNamespace(cuda_stream=9)) == (0, 9)


def test_the_launcher_refuses_arrays_on_several_devices():
    v = load_catalog(REFERENCE, ops=["vector_add"])[0].variants[0]
    on = [SimpleNamespace(device=Device("cuda", i)) for i in (0, 1)]  # devices are hashable, as torch's
    values = {p.name: on[k % 2] for k, p in enumerate(v.arrays)}
    with pytest.raises(abi.ArgumentError, match="several devices"):
        launcher._device_ordinal(v, values)
    assert launcher._device_ordinal(v, {p.name: on[1] for p in v.arrays}) == 1


def test_dtype_names_are_the_conventions():
    assert abi.host_dtype_name("torch.bfloat16") == abi.host_dtype_name("bfloat16") == "bfloat16"
    # every dtype the Rust C ABI has a code for, and every one the interpreter can hold, is a host
    # dtype of the convention (and the interpreter holds them all)
    assert set(DTYPE_CODES) <= set(abi.DTYPE_SIZES)
    assert set(HOST_TO_ELEMENT) == set(abi.DTYPE_SIZES)
    assert descriptor(0x10, (4,), (1,), "torch.float16").dtype == DTYPE_CODES["float16"]
