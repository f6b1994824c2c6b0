"""``@record`` for the IR's value classes: defined in ``tileir_diff/record.py``, at the bottom of the
layering so that dialect/ can use it too; this name stays for the modules that import it here."""
from __future__ import annotations

from ..record import record

__all__ = ["record"]
