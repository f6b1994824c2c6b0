"""Which CUDA device and stream a launch goes to: one answer for the cubin launcher
(launcher.py) and the Rust ports (ports/torch_ops.py).

A stream is a ``torch.cuda.Stream`` (its ``cuda_stream``) or a raw handle; by default torch's
current stream on the device. torch is imported only for that default, on first use.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

__all__ = ["cuda_device_of", "current_stream", "stream_handle"]

_current_raw_stream: Optional[Callable[[int], int]] = None  # looked up on first use


def current_stream() -> Callable[[int], int]:
    """A function device ordinal -> torch's current stream handle there: torch's private raw getter
    (what triton's launcher calls; no Stream object is built) when torch has it, else the public
    torch.cuda.current_stream."""
    global _current_raw_stream
    if _current_raw_stream is None:
        import torch  # only for the stream: packing and launching need no torch

        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        _current_raw_stream = raw if raw is not None else (
            lambda device: int(torch.cuda.current_stream(device).cuda_stream))
    return _current_raw_stream


def stream_handle(stream: Any, device_ordinal: int) -> int:
    """The raw handle of `stream` (a torch.cuda.Stream or an int), torch's current stream on the
    device when None. TypeError for anything else."""
    if stream is None:
        return int(current_stream()(device_ordinal))
    if isinstance(stream, int) and not isinstance(stream, bool):
        return stream
    handle = getattr(stream, "cuda_stream", None)
    if not isinstance(handle, int):  # a string or a float is not a handle, even when int() takes it
        raise TypeError(f"stream must be a torch.cuda.Stream or an int handle, got {type(stream).__name__}")
    return handle


def cuda_device_of(tensors: Iterable[Any]) -> Optional[int]:
    """The device ordinal of the first CUDA tensor (index None counts as 0); None when there is none."""
    for t in tensors:
        d = t.device
        if getattr(d, "type", None) == "cuda":
            return d.index or 0
    return None
