"""ctypes binding of rust_kernels/include/tileir_kernels.h: descriptor, status codes, exceptions, loader.

Standard library only: this module never imports torch. The C functions validate every
descriptor before any driver call, so the rejection paths run on a machine without a GPU.
"""
from __future__ import annotations

import ctypes
import enum
import os
import threading
from pathlib import Path
from typing import Optional, Sequence

from tileir_diff.launch.abi import host_dtype_name
from tileir_diff.ports.registry import FUNCTIONS

__all__ = [
    "ABI_VERSION", "DTYPE_CODES", "MAX_RANK", "Status", "TileirTensor", "PortError", "LibraryNotFoundError",
    "NullPointerError", "UnsupportedDtypeError", "BadRankError", "InvalidShapeError", "ShapeMismatchError",
    "BadStrideError", "MisalignedError", "InvalidDeviceError", "DeviceMismatchError", "InvalidArgumentError",
    "UnsupportedShapeError", "DriverUnavailableError", "DriverError", "KernelImageMissingError",
    "LaunchFailedError", "NoVariantError", "OutOfBoundsError", "check", "descriptor", "library_candidates",
    "load_library",
]

ABI_VERSION = 1
MAX_RANK = 5
LIBRARY_ENV = "TILEIR_KERNELS_LIB"
_REPO = Path(__file__).resolve().parents[2]

# torch dtype names (str(tensor.dtype) without "torch.") -> TILEIR_DTYPE_* codes.
DTYPE_CODES = {
    "float32": 0, "float16": 1, "bfloat16": 2, "int32": 3, "int64": 4,
    "float8_e4m3fn": 5, "float8_e5m2": 6, "float64": 7,
}


class Status(enum.IntEnum):
    """Return codes of the C functions (TILEIR_* in the header)."""

    OK = 0
    NULL_POINTER = -2
    UNSUPPORTED_DTYPE = -3
    BAD_RANK = -4
    INVALID_SHAPE = -5
    SHAPE_MISMATCH = -6
    BAD_STRIDE = -7
    MISALIGNED = -8
    INVALID_DEVICE = -9
    DEVICE_MISMATCH = -10
    INVALID_ARGUMENT = -11
    UNSUPPORTED_SHAPE = -12
    DRIVER_UNAVAILABLE = -13
    DRIVER_ERROR = -14
    KERNEL_IMAGE_MISSING = -15
    LAUNCH_FAILED = -16
    NO_VARIANT = -17
    OUT_OF_BOUNDS = -18


class PortError(RuntimeError):
    """A cutile_<op> call failed. `status` is the Status (None for a code this binding does not know)."""

    status: Optional[Status] = None

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code
        self.message = message


class LibraryNotFoundError(FileNotFoundError):
    """libtileir_kernels.so was not built (run rust_kernels/build_ports.sh) or TILEIR_KERNELS_LIB is wrong."""


# Bad arguments are also ValueError / TypeError, so callers can catch them the usual way.
class NullPointerError(PortError, ValueError):
    status = Status.NULL_POINTER


class UnsupportedDtypeError(PortError, TypeError):
    status = Status.UNSUPPORTED_DTYPE


class BadRankError(PortError, ValueError):
    status = Status.BAD_RANK


class InvalidShapeError(PortError, ValueError):
    status = Status.INVALID_SHAPE


class ShapeMismatchError(PortError, ValueError):
    status = Status.SHAPE_MISMATCH


class BadStrideError(PortError, ValueError):
    status = Status.BAD_STRIDE


class MisalignedError(PortError, ValueError):
    status = Status.MISALIGNED


class InvalidDeviceError(PortError, ValueError):
    status = Status.INVALID_DEVICE


class DeviceMismatchError(PortError, ValueError):
    status = Status.DEVICE_MISMATCH


class InvalidArgumentError(PortError, ValueError):
    status = Status.INVALID_ARGUMENT


class UnsupportedShapeError(PortError, ValueError):
    status = Status.UNSUPPORTED_SHAPE


class NoVariantError(PortError, ValueError):
    status = Status.NO_VARIANT


class OutOfBoundsError(PortError, ValueError):
    """A tensor's shape/strides reach past the device allocation that holds its data pointer."""

    status = Status.OUT_OF_BOUNDS


class DriverUnavailableError(PortError):
    status = Status.DRIVER_UNAVAILABLE


class DriverError(PortError):
    status = Status.DRIVER_ERROR


class KernelImageMissingError(PortError):
    status = Status.KERNEL_IMAGE_MISSING


class LaunchFailedError(PortError):
    status = Status.LAUNCH_FAILED


_ERRORS = {cls.status: cls for cls in (
    NullPointerError, UnsupportedDtypeError, BadRankError, InvalidShapeError, ShapeMismatchError, BadStrideError,
    MisalignedError, InvalidDeviceError, DeviceMismatchError, InvalidArgumentError, UnsupportedShapeError,
    NoVariantError, OutOfBoundsError, DriverUnavailableError, DriverError, KernelImageMissingError, LaunchFailedError)}


class TileirTensor(ctypes.Structure):
    """tileir_tensor_t: device address, shape and strides (elements) up to rank 5, ndim, dtype code."""

    _fields_ = [
        ("data", ctypes.c_uint64),
        ("shape", ctypes.c_int64 * MAX_RANK),
        ("strides", ctypes.c_int64 * MAX_RANK),
        ("ndim", ctypes.c_int32),
        ("dtype", ctypes.c_int32),
    ]


_Dims = ctypes.c_int64 * MAX_RANK


def descriptor(data: int, shape: Sequence[int], strides: Sequence[int], dtype: str | int) -> TileirTensor:
    """A descriptor from raw values. Rank > 5 keeps the true ndim so the library rejects it (BAD_RANK)."""
    if isinstance(dtype, str):
        dtype = host_dtype_name(dtype)
        if dtype not in DTYPE_CODES:
            raise UnsupportedDtypeError(f"UNSUPPORTED_DTYPE: {dtype} has no TILEIR_DTYPE code", Status.UNSUPPORTED_DTYPE)
        dtype = DTYPE_CODES[dtype]
    if len(shape) != len(strides):
        raise ValueError(f"shape {tuple(shape)} and strides {tuple(strides)} differ in length")
    return TileirTensor(data, _Dims(*shape[:MAX_RANK]), _Dims(*strides[:MAX_RANK]), len(shape), dtype)


def library_candidates() -> list[Path]:
    """Where load_library looks, in order: $TILEIR_KERNELS_LIB alone when set; else the shipped
    copy (build/rust/lib), the ABI-only build (target/abi), a default cargo build."""
    env = os.environ.get(LIBRARY_ENV)
    if env:
        return [Path(env)]
    name = "libtileir_kernels.so"
    return [
        _REPO / "build" / "rust" / "lib" / name,
        _REPO / "rust_kernels" / "target" / "abi" / "release" / name,
        _REPO / "rust_kernels" / "target" / "release" / name,
    ]


_lock = threading.Lock()
_loaded: dict[Path, ctypes.CDLL] = {}
_T = ctypes.POINTER(TileirTensor)


def _declare(lib: ctypes.CDLL) -> None:
    lib.tileir_kernels_abi_version.restype = ctypes.c_int32
    lib.tileir_kernels_abi_version.argtypes = []
    lib.tileir_kernels_last_error.restype = ctypes.c_char_p
    lib.tileir_kernels_last_error.argtypes = []
    lib.tileir_kernels_status_name.restype = ctypes.c_char_p
    lib.tileir_kernels_status_name.argtypes = [ctypes.c_int32]
    lib.tileir_kernels_has_kernel_image.restype = ctypes.c_int32
    lib.tileir_kernels_has_kernel_image.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.tileir_kernels_force_variant.restype = ctypes.c_int32
    lib.tileir_kernels_force_variant.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.tileir_kernels_selected_variant.restype = ctypes.c_char_p
    lib.tileir_kernels_selected_variant.argtypes = []
    kinds = {"tensor": _T, "f32": ctypes.c_float, "i32": ctypes.c_int32, "flag": ctypes.c_int32,
             "int": ctypes.c_int32}
    for f in FUNCTIONS:
        fn = getattr(lib, f.name)
        fn.restype = ctypes.c_int32
        fn.argtypes = [kinds[a.kind] for a in f.args] + [ctypes.c_int32, ctypes.c_uint64]  # + device, stream


# load_library(None) resolved once per value of $TILEIR_KERNELS_LIB: (env value, library).
# A call then costs one environment lookup, not a resolve + stat of every candidate.
_default_library: Optional[tuple[object, ctypes.CDLL]] = None
# os.environ.get costs ~0.5 µs (key encoding, Mapping machinery); on POSIX os.environ keeps the
# raw bytes in a plain dict that os.environ's setters update, so the hot path reads that.
_ENV_RAW = getattr(os.environ, "_data", None) if os.name == "posix" else None
_ENV_KEY = os.fsencode(LIBRARY_ENV)


def _library_env() -> object:
    """$TILEIR_KERNELS_LIB as a cache key (raw bytes on POSIX, else str; None when unset)."""
    if isinstance(_ENV_RAW, dict):
        return _ENV_RAW.get(_ENV_KEY)
    return os.environ.get(LIBRARY_ENV)
_by_argument: dict[object, ctypes.CDLL] = {}  # load_library(path) by the caller's argument


def load_library(path: str | os.PathLike | None = None) -> ctypes.CDLL:
    """The loaded library (once per path). Raises LibraryNotFoundError when not built.

    Without `path` the candidates (library_candidates) are searched on the first call only, and
    again only when $TILEIR_KERNELS_LIB changes; a library built after that first call is not
    picked up by a running process."""
    global _default_library
    if path is None:
        env = _library_env()
        cached = _default_library
        if cached is not None and cached[0] == env:
            return cached[1]
        candidates = library_candidates()
        found = next((p for p in candidates if p.is_file()), None)
        if found is None:
            raise LibraryNotFoundError(
                "libtileir_kernels.so not found in " + ", ".join(map(str, candidates))
                + "; build it with rust_kernels/build_ports.sh or set " + LIBRARY_ENV)
        lib = _load_resolved(found)
        _default_library = (env, lib)
        return lib
    try:
        return _by_argument[path]
    except (KeyError, TypeError):  # TypeError: an unhashable path-like
        pass
    lib = _load_resolved(path)
    try:
        _by_argument[path] = lib
    except TypeError:
        pass
    return lib


def _load_resolved(path: str | os.PathLike) -> ctypes.CDLL:
    path = Path(path).resolve()
    with _lock:
        lib = _loaded.get(path)
        if lib is None:
            if not path.is_file():
                raise LibraryNotFoundError(f"{path} does not exist")
            lib = ctypes.CDLL(str(path))
            _declare(lib)
            version = lib.tileir_kernels_abi_version()
            if version != ABI_VERSION:
                raise ImportError(f"{path} has C ABI version {version}, this binding speaks {ABI_VERSION}")
            _loaded[path] = lib
    return lib


def check(lib: ctypes.CDLL, code: int) -> None:
    """Raises the exception for a non-zero return code, with the library's message."""
    if code == Status.OK:
        return
    message = (lib.tileir_kernels_last_error() or b"").decode("utf-8", "replace")
    try:
        status = Status(code)
    except ValueError:
        raise PortError(f"unknown return code {code}: {message}", code) from None
    raise _ERRORS[status](message or status.name, code)
