"""scripts/gpu/run_reference.py's same-size copy (no GPU, no torch): the evidence beside the % copy
bandwidth goal of a memory-bound variant is a copy of that variant's own bytes."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("_run_reference_copy", ROOT / "scripts" / "gpu" / "run_reference.py")
script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(script)


def test_same_size_copy_moves_the_variants_bytes_once_per_size(monkeypatch):
    """The copy beside a memory-bound variant reads and writes half its bytes each, timed by the
    variants' own timer, once per size (the bench shapes of an op's variants repeat)."""
    monkeypatch.setattr(script, "_SAME_SIZE_COPY_US", {})
    copied, timed = [], []

    class Buffer:
        def __init__(self, n):
            self.n = n

        def copy_(self, src):
            copied.append((self.n, src.n))

    class Torch:
        uint8 = "uint8"

        @staticmethod
        def empty(n, dtype, device):
            assert dtype == "uint8" and device == "cuda"
            return Buffer(n)

        @staticmethod
        def empty_like(x):
            return Buffer(x.n)

    class Timer:
        def median_us(self, fn):
            fn()
            timed.append(1)
            return 40.0 + len(timed)

    assert script.same_size_copy_us(Torch, Timer(), 4096) == 41.0
    assert script.same_size_copy_us(Torch, Timer(), 4096) == 41.0  # the same size: not timed again
    assert script.same_size_copy_us(Torch, Timer(), 8192) == 42.0
    assert copied == [(2048, 2048), (4096, 4096)] and len(timed) == 2
    assert script.same_size_copy_us(Torch, Timer(), 1) is None  # nothing to move
