"""Automatic garbage collection paused while building large IR object graphs.

Decoding a kernel or diffing two builds hundreds of thousands of objects that all stay alive,
and no reference cycles worth collecting: CPython's cycle collector still traverses the growing
heap again and again while it is built (about a quarter of a 60,000-op diff's time). Reference
counting frees everything as usual; only the cycle collector waits until the block ends.
Nested uses leave it to the outermost to switch it back on.

When the block allocated many objects, they would all sit in the youngest generation and the
next allocation would make the collector traverse every one of them (then again in the middle
generation): 3-9% of a 60,000-op diff. Those objects are long-lived by construction, so on exit
they join the oldest generation directly (``gc.freeze()`` + ``gc.unfreeze()`` moves every tracked
object there without traversing anything). The only effect on other code: cyclic garbage made
before or inside the block waits for the next full collection instead of a young one. Programs
that use gc.freeze() themselves are left alone.

The collector's switch is one per process: blocks in several threads count as nested, so the
first to enter switches it off and the last to leave switches it back on (never one thread in
the middle of another's block).
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager

_lock = threading.Lock()
_active = 0            # blocks open, in all threads
_switched_off = False  # whether the first of them switched the collector off


@contextmanager
def gc_paused():
    global _active, _switched_off
    with _lock:
        if _active == 0:
            _switched_off = gc.isenabled()
            if _switched_off:
                gc.disable()
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0 and _switched_off:
                _switched_off = False
                # (not when the program froze objects itself: unfreeze() would thaw those too)
                if gc.get_count()[0] > _PROMOTE_ABOVE and gc.get_freeze_count() == 0:
                    gc.freeze()
                    gc.unfreeze()
                gc.enable()


#: Net allocations in a block above which its objects are promoted on exit. Promotion costs the
#: same whatever the count, and a young collection traverses every object left young: a 3,015-op
#: load leaves 13,000-16,000 (below the former 20,000, ~6 M instructions for the next allocation
#: to traverse them); a block of a few hundred objects is left to the normal schedule.
_PROMOTE_ABOVE = 2_000
