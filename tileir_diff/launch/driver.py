"""The few CUDA driver API calls the launcher needs, through ctypes on libcuda.so.1 (no cupy, no cuda-python)."""

from __future__ import annotations

import ctypes
import threading
from typing import Any

__all__ = ["CudaError", "Driver", "driver"]

CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97


class CudaError(RuntimeError):
    """A CUDA driver call failed; carries the numeric result and the driver's name for it."""

    def __init__(self, call: str, code: int, name: str, text: str):
        self.call, self.code, self.name, self.text = call, code, name, text
        super().__init__(f"{call} failed: {name} ({code}): {text}")


class Driver:
    def __init__(self, library: str = "libcuda.so.1"):
        try:
            self.lib = ctypes.CDLL(library)
        except OSError as exc:
            raise CudaError("dlopen", -1, "LIBRARY_NOT_FOUND", f"cannot load {library}: {exc}") from None
        vp, u, i = ctypes.c_void_p, ctypes.c_uint, ctypes.c_int
        self._sig("cuGetErrorName", [i, ctypes.POINTER(ctypes.c_char_p)])
        self._sig("cuGetErrorString", [i, ctypes.POINTER(ctypes.c_char_p)])
        self._sig("cuInit", [u])
        self._sig("cuDeviceGet", [ctypes.POINTER(i), i])
        self._sig("cuDeviceGetAttribute", [ctypes.POINTER(i), i, i])
        self._sig("cuCtxGetCurrent", [ctypes.POINTER(vp)])
        self._sig("cuCtxSetCurrent", [vp])
        self._sig("cuCtxGetDevice", [ctypes.POINTER(i)])
        self._sig("cuDevicePrimaryCtxRetain", [ctypes.POINTER(vp), i])
        self._sig("cuModuleLoadData", [ctypes.POINTER(vp), vp])
        self._sig("cuModuleUnload", [vp])
        self._sig("cuModuleGetFunction", [ctypes.POINTER(vp), vp, ctypes.c_char_p])
        self._sig("cuFuncGetAttribute", [ctypes.POINTER(i), i, vp])
        self._sig("cuFuncSetAttribute", [vp, i, i])
        self._sig("cuLaunchKernel", [vp, u, u, u, u, u, u, u, vp, ctypes.POINTER(vp), ctypes.POINTER(vp)])
        self._sig("cuDriverGetVersion", [ctypes.POINTER(i)])
        self.check("cuInit", self.lib.cuInit(0))

    def _sig(self, name: str, argtypes: list) -> None:
        fn = getattr(self.lib, name)
        fn.argtypes = argtypes
        fn.restype = ctypes.c_int

    def error_text(self, code: int) -> tuple[str, str]:
        name, text = ctypes.c_char_p(), ctypes.c_char_p()
        self.lib.cuGetErrorName(code, ctypes.byref(name))
        self.lib.cuGetErrorString(code, ctypes.byref(text))
        return ((name.value or b"CUDA_ERROR_UNKNOWN").decode(), (text.value or b"unknown error").decode())

    def check(self, call: str, code: int) -> None:
        if code != 0:
            raise CudaError(call, code, *self.error_text(code))

    def driver_version(self) -> int:
        v = ctypes.c_int()
        self.check("cuDriverGetVersion", self.lib.cuDriverGetVersion(ctypes.byref(v)))
        return v.value

    def ensure_context(self, device_ordinal: int) -> int:
        """Make the device's primary context (the one torch uses) current; returns the context handle."""
        ctx = ctypes.c_void_p()
        self.check("cuCtxGetCurrent", self.lib.cuCtxGetCurrent(ctypes.byref(ctx)))
        if ctx.value:
            dev = ctypes.c_int()
            self.check("cuCtxGetDevice", self.lib.cuCtxGetDevice(ctypes.byref(dev)))
            if dev.value == device_ordinal:
                return ctx.value
        dev = ctypes.c_int()
        self.check("cuDeviceGet", self.lib.cuDeviceGet(ctypes.byref(dev), device_ordinal))
        self.check("cuDevicePrimaryCtxRetain", self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev.value))
        self.check("cuCtxSetCurrent", self.lib.cuCtxSetCurrent(ctx))
        return ctx.value  # type: ignore[return-value]

    def load_module(self, image: bytes) -> int:
        module = ctypes.c_void_p()
        buf = ctypes.create_string_buffer(image, len(image))
        self.check("cuModuleLoadData", self.lib.cuModuleLoadData(ctypes.byref(module), buf))
        return module.value  # type: ignore[return-value]

    def get_function(self, module: int, symbol: str) -> int:
        fn = ctypes.c_void_p()
        self.check(f"cuModuleGetFunction({symbol})",
                   self.lib.cuModuleGetFunction(ctypes.byref(fn), ctypes.c_void_p(module), symbol.encode()))
        return fn.value  # type: ignore[return-value]

    def enable_max_dynamic_shared_memory(self, function: int, device_ordinal: int) -> int:
        """Allow the kernel all opt-in shared memory, as cuTile's own launcher does; returns the limit set."""
        dev = ctypes.c_int()
        self.check("cuDeviceGet", self.lib.cuDeviceGet(ctypes.byref(dev), device_ordinal))
        max_smem, static_smem = ctypes.c_int(), ctypes.c_int()
        self.check("cuDeviceGetAttribute", self.lib.cuDeviceGetAttribute(
            ctypes.byref(max_smem), CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev.value))
        self.check("cuFuncGetAttribute", self.lib.cuFuncGetAttribute(
            ctypes.byref(static_smem), CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, ctypes.c_void_p(function)))
        limit = max(0, max_smem.value - static_smem.value)
        self.check("cuFuncSetAttribute", self.lib.cuFuncSetAttribute(
            ctypes.c_void_p(function), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, limit))
        return limit

    def launch(self, function: int, grid: tuple[int, int, int], block: tuple[int, int, int], shared_bytes: int,
               stream: int, params: Any) -> None:
        self.check("cuLaunchKernel", self.lib.cuLaunchKernel(
            ctypes.c_void_p(function), grid[0], grid[1], grid[2], block[0], block[1], block[2],
            shared_bytes, ctypes.c_void_p(stream or None), params, None))


_driver: Driver | None = None
_driver_lock = threading.Lock()


def driver() -> Driver:
    """The process-wide Driver (loads libcuda and calls cuInit on first use)."""
    global _driver
    with _driver_lock:
        if _driver is None:
            _driver = Driver()
        return _driver
