"""positional: by position; when the counts differ, aligned on the sequence of argument types
(an inserted or removed argument does not shift the rest). Always applies: the last aligner."""
from __future__ import annotations

from typing import List, Optional, Tuple

from ..arguments import Tie, positional
from .base import Aligner, Signatures


class Positional(Aligner):
    name = "positional"

    def align(self, sig: Signatures) -> Optional[Tuple[List[Tuple[str, str]], List[Tie]]]:
        return positional(sig.L, sig.R, sig.largs, sig.rargs), []
