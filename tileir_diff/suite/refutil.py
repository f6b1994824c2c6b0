"""Helpers shared by reference/<op>/ref.py: seeded inputs, poisoned outputs, non-contiguous views.

torch is imported inside each function, so importing this module never needs torch (the CPU
machine has none); ref.py files run on the GPU machine.
"""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["torch_dtype", "generator", "randn", "randint", "uniform", "empty_poisoned", "make_strided", "POISON_INT"]

# Written into integer outputs before a launch; a kernel never produces it for the suite's inputs.
POISON_INT = 0x7F7F7F7F


def torch_dtype(name: str):
    import torch

    dt = getattr(torch, name, None)
    if not isinstance(dt, torch.dtype):
        raise ValueError(f"unknown torch dtype name {name!r}")
    return dt


class SeedStream:
    """A seed that hands out one fresh torch.Generator per draw, created on the draw's device.

    Drawing on the device itself keeps large benchmark inputs fast; each draw gets its own
    generator seeded from (seed, draw number), so a given make_inputs call is reproducible.
    """

    def __init__(self, seed: int):
        self.seed = int(seed)
        self.draws = 0

    def torch_generator(self, device: str):
        import torch

        self.draws += 1
        return torch.Generator(device=device).manual_seed(self.seed * 1_000_003 + self.draws)


def generator(seed: int) -> SeedStream:
    return SeedStream(seed)


def make_strided(values, noncontiguous: bool):
    """`values` itself, or a non-contiguous view with the same contents.

    The view keeps the last dimension dense but gives the row (or, for 1-D, the element) a larger
    stride: rows padded by 64 extra elements, 1-D arrays every other element.
    """
    import torch

    if not noncontiguous:
        return values.contiguous()
    if values.dim() == 1:
        wide = torch.empty(values.shape[0] * 2, dtype=values.dtype, device=values.device)
        view = wide[::2]
    else:
        wide_shape = list(values.shape)
        wide_shape[-1] += 64
        wide = torch.empty(wide_shape, dtype=values.dtype, device=values.device)
        view = wide[..., : values.shape[-1]]
    if values.dtype.is_floating_point:
        wide.fill_(float("nan"))  # the padding must never be read
    view.copy_(values)
    assert not view.is_contiguous()
    return view


def randn(shape: Sequence[int], dtype: str, *, gen, device: str, scale: float = 1.0, shift: float = 0.0,
          noncontiguous: bool = False):
    import torch

    values = torch.randn(tuple(shape), generator=gen.torch_generator(device), dtype=torch.float32, device=device)
    return make_strided((values * scale + shift).to(torch_dtype(dtype)), noncontiguous)


def uniform(shape: Sequence[int], dtype: str, *, gen, device: str, low: float = 0.0, high: float = 1.0,
            noncontiguous: bool = False):
    import torch

    values = torch.rand(tuple(shape), generator=gen.torch_generator(device), dtype=torch.float32, device=device)
    return make_strided((values * (high - low) + low).to(torch_dtype(dtype)), noncontiguous)


def randint(shape: Sequence[int], low: int, high: int, dtype: str = "int64", *, gen, device: str):
    import torch

    return torch.randint(low, high, tuple(shape), generator=gen.torch_generator(device), dtype=torch_dtype(dtype),
                         device=device)


def empty_poisoned(shape: Sequence[int], dtype: str, *, device: str, noncontiguous: bool = False) -> Any:
    """An output buffer whose every element fails comparison until the kernel writes it."""
    import torch

    dt = torch_dtype(dtype)
    if dt.is_floating_point:
        base = torch.full(tuple(shape), float("nan"), dtype=dt, device=device)
    else:
        base = torch.full(tuple(shape), POISON_INT if torch.iinfo(dt).max >= POISON_INT else torch.iinfo(dt).max,
                          dtype=dt, device=device)
    out = make_strided(base, noncontiguous)
    return out
