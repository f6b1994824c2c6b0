"""Launches a prebuilt reference cubin from torch tensors on the caller's CUDA stream."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Mapping, TypeAlias

from tileir_diff.launch.abi import ArgumentError, pack_arguments, shapes_of
from tileir_diff.launch.driver import driver
from tileir_diff.launch.stream import stream_handle

VariantSpec: TypeAlias = Any  # suite/catalog.py's VariantSpec, read duck-typed (params, symbol, grid_for)

__all__ = ["CubinKernel", "LaunchError", "launch_variant", "grid_for_inputs", "prepare_launch"]

MAX_GRID = (2 ** 31 - 1, 65535, 65535)


class LaunchError(RuntimeError):
    """The cubin could not be loaded or the launch was refused."""


class CubinKernel:
    """One entry function of a cubin, loaded lazily into the primary context of each device used."""

    def __init__(self, cubin: Path | str | bytes, symbol: str):
        if isinstance(cubin, (str, Path)):
            path = Path(cubin)
            if not path.is_file():
                raise LaunchError(f"cubin not found: {path} (run `python3 -m tileir_diff.suite.command export` on a "
                                  f"machine with cuda-tile and tileiras, then carry build/ over)")
            self.image = path.read_bytes()
            self.origin = str(path)
        else:
            self.image = bytes(cubin)
            self.origin = "<bytes>"
        self.symbol = symbol
        self._functions: dict[int, int] = {}  # context handle -> CUfunction
        self._lock = threading.Lock()

    def function(self, device_ordinal: int) -> int:
        drv = driver()
        ctx = drv.ensure_context(device_ordinal)
        with self._lock:
            if ctx not in self._functions:
                module = drv.load_module(self.image)
                fn = drv.get_function(module, self.symbol)
                drv.enable_max_dynamic_shared_memory(fn, device_ordinal)
                self._functions[ctx] = fn
            return self._functions[ctx]

    def launch(self, grid: tuple[int, int, int], args, *, device_ordinal: int, stream: int) -> None:
        for axis, (g, limit) in enumerate(zip(grid, MAX_GRID)):
            if not 1 <= g <= limit:
                raise LaunchError(f"{self.symbol}: grid[{axis}] = {g} is outside [1, {limit}]")
        fn = self.function(device_ordinal)
        params = args.pointer_array()
        driver().launch(fn, grid, (1, 1, 1), 0, stream, params)


def grid_for_inputs(variant: VariantSpec, values: Mapping[str, Any],
                    shape: Mapping[str, int] | None = None) -> tuple[int, int, int]:
    """Grid from analysis.json: symbols from `shape` if given, else derived from the tensors."""
    if shape is None:
        shape = variant.symbols_from_shapes(shapes_of(variant, values))
    return variant.grid_for(dict(shape))


_kernels: dict[tuple[str, str], CubinKernel] = {}
_kernels_lock = threading.Lock()


def _cached_kernel(cubin: Path | str, symbol: str) -> CubinKernel:
    key = (str(Path(cubin).resolve()), symbol)
    with _kernels_lock:
        k = _kernels.get(key)
        if k is None:
            k = _kernels[key] = CubinKernel(cubin, symbol)
        return k


def launch_variant(variant: VariantSpec, cubin: Path | str | CubinKernel, values: Mapping[str, Any], *,
                   shape: Mapping[str, int] | None = None, stream: Any = None) -> tuple[int, int, int]:
    """Launch `variant` with `values` (param name -> torch tensor / number); returns the grid used.

    The launch is asynchronous on `stream` (a torch.cuda.Stream or a raw handle), by default the
    current torch stream of the arrays' device. Outputs must be pre-allocated by the caller.
    """
    values = _without_constants(variant, values)
    device_ordinal = _device_ordinal(variant, values)
    packed = pack_arguments(variant, values)
    grid = grid_for_inputs(variant, values, shape)
    kernel = cubin if isinstance(cubin, CubinKernel) else _cached_kernel(cubin, variant.symbol)
    raw_stream = _stream_handle(stream, device_ordinal)
    kernel.launch(grid, packed, device_ordinal=device_ordinal, stream=raw_stream)
    return grid


def prepare_launch(variant: VariantSpec, cubin: Path | str | CubinKernel, values: Mapping[str, Any], *,
                   shape: Mapping[str, int] | None = None, stream: Any = None):
    """A zero-argument callable that relaunches `variant` on the same arguments with minimal host work.

    For benchmarks: argument checks, packing, module load and the stream lookup happen once here.
    The tensors in `values` must stay alive while the callable is used.
    """
    values = _without_constants(variant, values)
    device_ordinal = _device_ordinal(variant, values)
    packed = pack_arguments(variant, values)
    grid = grid_for_inputs(variant, values, shape)
    kernel = cubin if isinstance(cubin, CubinKernel) else _cached_kernel(cubin, variant.symbol)
    fn = kernel.function(device_ordinal)
    params = packed.pointer_array()
    raw_stream = _stream_handle(stream, device_ordinal)
    drv = driver()

    def relaunch() -> None:
        drv.launch(fn, grid, (1, 1, 1), 0, raw_stream, params)

    relaunch.packed = packed  # type: ignore[attr-defined]  # keeps the argument storage alive with the callable
    return relaunch


def _without_constants(variant: VariantSpec, values: Mapping[str, Any]) -> dict[str, Any]:
    constants = {p.name for p in variant.params if p.kind == "constant"}
    return {k: v for k, v in values.items() if k not in constants}


def _device_ordinal(variant: VariantSpec, values: Mapping[str, Any]) -> int:
    """The one device the arrays are on (0 when they say none); ArgumentError for several."""
    devices = {getattr(values[p.name], "device", None) for p in variant.arrays if p.name in values}
    devices.discard(None)
    if len(devices) > 1:
        raise ArgumentError(f"{variant.symbol}: arrays on several devices {sorted(map(str, devices))}")
    return (next(iter(devices)).index or 0) if devices else 0


def _stream_handle(stream: Any, device_ordinal: int) -> int:
    try:
        return stream_handle(stream, device_ordinal)
    except TypeError as exc:  # a bad argument of a launch: the launcher's own error
        raise ArgumentError(str(exc)) from None
