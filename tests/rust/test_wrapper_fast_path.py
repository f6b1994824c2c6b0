"""The torch wrappers' per-call path (tileir_diff/ports/torch_ops.py): descriptors packed into
per-thread slots must be byte-for-byte what descriptor() builds, and load_library() must not
search the filesystem again once resolved, yet follow a change of $TILEIR_KERNELS_LIB. No GPU,
no library needed except where a test says so."""
from __future__ import annotations

import ctypes
import threading

import pytest

from tileir_diff import ports
from tileir_diff.ports import _abi, torch_ops


class _Device:
    type = "cuda"
    index = 0


class _Tensor:
    def __init__(self, ptr, shape, strides, dtype="torch.float32"):
        self._ptr, self.shape, self._strides, self.dtype, self.device = ptr, tuple(shape), tuple(strides), dtype, _Device()

    def data_ptr(self):
        return self._ptr

    def stride(self):
        return self._strides


CASES = [
    _Tensor(0x7F0000000000, (4096, 1024), (1024, 1)),
    _Tensor(0x7F0000000010, (7,), (1,), "torch.bfloat16"),
    _Tensor(0x7F0000000020, (), (), "torch.float16"),  # rank 0
    _Tensor(0x10, (3, 5), (-5, 1), "torch.int64"),  # negative stride: passed through, the library judges
    _Tensor(0x20, (2, 3, 4, 5, 6), (720, 240, 60, 12, 2), "torch.float8_e4m3fn"),
    _Tensor(0x30, (2, 3, 4, 5, 6, 7), (1, 1, 1, 1, 1, 1)),  # rank 6: true ndim kept, dims past 5 dropped
    _Tensor((1 << 64) - 1, (4,), (1,)),  # the largest address, extent and stride that fit
    _Tensor(0x40, ((1 << 63) - 1,), (-(1 << 63),)),
]

# Out of their fields (uint64 address, int64 extents and strides): ctypes would store them
# modulo 2^64, a different tensor than described; refused on both paths.
OUT_OF_RANGE = [
    _Tensor((1 << 64) + 5, (4,), (1,)),
    _Tensor(-1, (4,), (1,)),
    _Tensor(0x40, (1 << 63,), (1,)),
    _Tensor(0x40, (4, 4), (4, -(1 << 63) - 1)),
]


@pytest.mark.parametrize("tensor", OUT_OF_RANGE, ids=lambda t: f"{t.data_ptr():#x}-{t.shape}-{t.stride()}")
def test_out_of_range_descriptor_values_are_refused(tensor):
    with pytest.raises(torch_ops.OutOfRangeError, match="does not fit"):
        torch_ops._descriptor_pointers([tensor])
    with pytest.raises(torch_ops.OutOfRangeError, match="does not fit"):
        torch_ops._desc(tensor)


def test_out_of_range_integer_scalars_are_refused_before_the_library_is_loaded():
    t = _Tensor(0x1000, (4,), (1,))
    with pytest.raises(torch_ops.OutOfRangeError, match=r"cutile_embedding: integer argument 1 \(4294967296\)"):
        torch_ops._call("cutile_embedding", (t,), 1 << 32, library="/nonexistent/lib.so")
    torch_ops._check_scalars("f", ((1 << 31) - 1, -(1 << 31), True, 1.5e300))  # these fit: no error


class _RecordingTensor(_Tensor):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.recorded = []

    def record_stream(self, stream):
        self.recorded.append(stream)


class _Stream:
    cuda_stream = 0x1234


def test_tensors_are_recorded_on_the_callers_stream():
    ts = [_RecordingTensor(0x1000 * (i + 1), (4,), (1,)) for i in range(3)]
    stream = _Stream()
    torch_ops._record_streams(ts, stream, 0)
    assert all(t.recorded == [stream] for t in ts)
    host = _RecordingTensor(0x10, (4,), (1,))
    host.device = type("D", (), {"type": "cpu", "index": None})()
    torch_ops._record_streams([host], stream, 0)
    assert host.recorded == []


def _bytes_of(pointer) -> bytes:
    return ctypes.string_at(ctypes.addressof(pointer.contents), ctypes.sizeof(ports.TileirTensor))


@pytest.mark.parametrize("tensor", CASES, ids=lambda t: f"rank{len(t.shape)}-{t.dtype}")
def test_packed_descriptor_is_what_descriptor_builds(tensor):
    expected = ports.descriptor(tensor.data_ptr(), tensor.shape, tensor.stride(), tensor.dtype)
    (pointer,) = torch_ops._descriptor_pointers([tensor])
    assert _bytes_of(pointer) == bytes(expected)
    assert pointer.contents.ndim == len(tensor.shape)


def test_slots_hold_every_tensor_of_one_call():
    pointers = torch_ops._descriptor_pointers(CASES[:6])
    assert [p.contents.data for p in pointers] == [t.data_ptr() for t in CASES[:6]]
    assert len({ctypes.addressof(p.contents) for p in pointers}) == 6


def test_more_tensors_than_slots_still_described():
    many = [_Tensor(0x100 * (i + 1), (i + 1,), (1,)) for i in range(torch_ops._SLOTS + 3)]
    pointers = torch_ops._descriptor_pointers(many)
    assert [ctypes.cast(p, ctypes.POINTER(ports.TileirTensor)).contents.shape[0] for p in pointers] == \
        [t.shape[0] for t in many]


def test_each_thread_has_its_own_slots():
    seen = {}
    # every thread holds its slots until all have described: a finished thread's memory may be
    # reused by the next one, so only live threads must have distinct slots
    all_described = threading.Barrier(3, timeout=30)

    def describe(name, ptr):
        (p,) = torch_ops._descriptor_pointers([_Tensor(ptr, (1,), (1,))])
        seen[name] = (ctypes.addressof(p.contents), p.contents.data)
        all_described.wait()

    threads = [threading.Thread(target=describe, args=(n, 0x1000 + n)) for n in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len({addr for addr, _ in seen.values()}) == 3
    assert {n: data for n, (_, data) in seen.items()} == {n: 0x1000 + n for n in range(3)}


def test_unknown_dtype_and_rank_mismatch_raise():
    with pytest.raises(ports.UnsupportedDtypeError, match="complex64"):
        torch_ops._descriptor_pointers([_Tensor(0x10, (2,), (1,), "torch.complex64")])
    with pytest.raises(ValueError, match="differ in length"):
        torch_ops._descriptor_pointers([_Tensor(0x10, (2, 2), (1,))])


def test_library_is_resolved_once_per_environment_value(ports_library, monkeypatch, tmp_path):
    monkeypatch.setenv("TILEIR_KERNELS_LIB", str(ports_library))
    lib = ports.load_library()
    searched = []
    monkeypatch.setattr(_abi, "library_candidates", lambda: searched.append(1) or [ports_library])
    assert ports.load_library() is lib and ports.load_library() is lib
    assert searched == []  # no path work on the hot path
    monkeypatch.setenv("TILEIR_KERNELS_LIB", str(tmp_path / "elsewhere.so"))
    monkeypatch.setattr(_abi, "library_candidates", lambda: [tmp_path / "elsewhere.so"])
    with pytest.raises(ports.LibraryNotFoundError, match="elsewhere.so"):
        ports.load_library()  # a new value is searched again


def test_explicit_path_is_cached_by_argument(ports_library):
    assert ports.load_library(str(ports_library)) is ports.load_library(str(ports_library))
    assert ports.load_library(ports_library) is ports.load_library(str(ports_library))  # one CDLL per file


class _RecordingLibrary:
    """Stands in for the CDLL: records the descriptors each cutile_vector_add call receives."""

    def __init__(self):
        self.calls = []

    def cutile_vector_add(self, *args):
        *pointers, _device, _stream = args
        self.calls.append([p.contents.data if hasattr(p, "contents") else
                           ctypes.cast(p, ctypes.POINTER(ports.TileirTensor)).contents.data for p in pointers])
        return 0


def test_a_call_from_inside_a_tensor_hook_does_not_overwrite_the_outer_descriptors(monkeypatch):
    lib = _RecordingLibrary()
    monkeypatch.setattr(torch_ops, "load_library", lambda library=None: lib)
    inner = [_Tensor(0x900 + i, (4,), (1,)) for i in range(3)]

    class _Hooked(_Tensor):
        def data_ptr(self):  # e.g. a tensor subclass whose hook launches a port
            torch_ops._call("cutile_vector_add", inner, stream=0)
            return super().data_ptr()

    outer = [_Tensor(0x100, (4,), (1,)), _Hooked(0x200, (4,), (1,)), _Tensor(0x300, (4,), (1,))]
    torch_ops._call("cutile_vector_add", outer, stream=0)
    assert lib.calls == [[0x900, 0x901, 0x902], [0x100, 0x200, 0x300]]
    torch_ops._call("cutile_vector_add", inner, stream=0)  # the slots are free again afterwards
    assert lib.calls[-1] == [0x900, 0x901, 0x902] and not torch_ops._slots.busy
