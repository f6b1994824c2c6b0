"""Explanation folds: named, documented proofs that one root difference is the consequence of
another (docs/matching.md "Folds").

A fold is an object with a ``name``, a docstring saying what it proves, the ``stage`` of the
classification it runs at, and ``apply(ctx, roots) -> roots``. It may only move a root under
another one (its ops into the host's ``affected``, or, where each site stays an op the checker
must see covered, into the host's ``also``) and add words to the host's message; it never drops a
difference without a host, so the checker's coverage of every violation is unchanged. Each fold
has its own module, a test that it folds and a mutant it must leave as separate roots
(tests/compare/test_folds.py).

Stages, in classification order:

* ``groups``: on the roots of pairs and of unpaired groups, before downstream ops are assigned;
* ``roots``: after every root lists what it affects;
* ``final``: on all roots of a function, ties and pins included;
* ``checked``: with the roots the checker's uncovered violations added (the calling convention).

``FOLDS`` is the fixed order; a fold runs once, at its stage, in that order.
"""
from __future__ import annotations

from typing import List, Sequence, Tuple

from ..roots import Root
from .access_replaced import AccessReplaced
from .base import Fold, FoldContext
from .dropped_operand import DroppedOperand
from .extra_array_arguments import ExtraArrayArguments
from .formula_cascade import FormulaCascade
from .moved_effect import MovedEffect
from .pinned_argument import PinnedArgument
from .restated_assume import RestatedAssume
from .substitution import ConsistentSubstitution
from .uniform_change import UniformChange

#: every fold, in the order it runs (within its stage)
FOLDS: Tuple[Fold, ...] = (
    MovedEffect(),
    AccessReplaced(),
    FormulaCascade(),
    ConsistentSubstitution(),
    DroppedOperand(),
    RestatedAssume(),
    UniformChange(),
    PinnedArgument(),
    ExtraArrayArguments(),
)


def apply_folds(stage: str, ctx: FoldContext, roots: List[Root], folds: Sequence[Fold] = FOLDS) -> List[Root]:
    """``roots`` after every fold of ``stage`` (in ``folds`` order)."""
    for fold in folds:
        if fold.stage == stage:
            roots = fold.apply(ctx, roots)
    return roots


def fold_names() -> List[str]:
    return [f.name for f in FOLDS]


__all__ = ["FOLDS", "Fold", "FoldContext", "apply_folds", "fold_names"]
