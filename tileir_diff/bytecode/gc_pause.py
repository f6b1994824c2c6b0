"""Automatic garbage collection paused while building large IR object graphs.

Decoding a kernel or diffing two builds hundreds of thousands of objects that all stay alive,
and no reference cycles worth collecting: CPython's cycle collector still traverses the growing
heap again and again while it is built (about a quarter of a 60,000-op diff's time). Reference
counting frees everything as usual; only the cycle collector waits until the block ends (and
then runs on its normal schedule). Nested uses leave it to the outermost to switch it back on.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def gc_paused():
    was_enabled = gc.isenabled()
    if was_enabled:
        gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
