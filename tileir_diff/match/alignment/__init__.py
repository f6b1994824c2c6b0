"""Entry-argument alignment: a list of aligners (``ALIGNERS``), one module each; the first that
applies pairs the arguments. The roles they read are ``match/arguments.py``'s; the matcher stage
that adds the pairs is ``match/stages/arguments.py`` (``Arguments``).

strict       Strict           by position when the roles agree position by position; else by role
                              when that pairs every argument (a reordering)
covering     Covering         by role when every used argument finds its role on the other side,
                              with ties (one scalar for several arguments); named steps (STEPS)
positional   Positional       by position (aligned on the argument types when the counts differ)
"""
from __future__ import annotations

from typing import Sequence

from ...graph import FunctionGraph
from .base import Aligner, Alignment, Signatures
from .covering import Covering
from .positional import Positional
from .strict import Strict

#: the order the aligners are tried in; the last always applies
ALIGNERS: Sequence[Aligner] = (Strict(), Covering(), Positional())


def align(L: FunctionGraph, R: FunctionGraph, aligners: Sequence[Aligner] = ALIGNERS) -> Alignment:
    """The entry arguments of ``L`` and ``R`` aligned by the first of ``aligners`` that applies."""
    sig = Signatures(L, R)
    for aligner in aligners:
        found = aligner.align(sig)
        if found is not None:
            return Alignment(found[0], found[1], aligner.name, sig)
    raise ValueError("no aligner applies (the list must end with one that always does: Positional)")


__all__ = ["ALIGNERS", "Aligner", "Alignment", "Covering", "Positional", "Signatures", "Strict", "align"]
