"""Explanation folds: named, documented proofs that one root difference is the consequence of
another (docs/matching.md "Folds").

A fold is an object with a ``name``, a docstring saying what it proves, the ``stage`` of the
classification it runs at, its ``order`` within that stage, and ``apply(ctx, roots) -> roots``.
It may only move a root under another one (its ops into the host's ``affected``, or, where each
site stays an op the checker must see covered, into the host's ``also``) and add words to the
host's message; it never drops a difference without a host, so the checker's coverage of every
violation is unchanged. Each fold has its own module, a test that it folds and a mutant it must
leave as separate roots (tests/compare/test_folds.py).

Stages, in classification order:

* ``groups``: on the roots of pairs and of unpaired groups, before downstream ops are assigned;
* ``roots``: after every root lists what it affects;
* ``final``: on all roots of a function, ties and pins included;
* ``checked``: with the roots the checker's uncovered violations added (the calling convention).

``FOLDS`` is the fixed order (by stage, then ``order``); a fold runs once, at its stage, in that
order. It is found, not listed: every ``Fold`` subclass with a ``name`` defined in a module of
this package is registered (one instance each), so the registry cannot forget a fold nor list
one twice. It is found on first use (``registered``), not at import: a diff without a root
difference (the common port pair) never needs a fold, and importing the nine fold modules cost
~7 M instructions of its whole process.

Adding a fold touches three files:

1. ``compare/folds/<name>.py``: a ``Fold`` subclass with ``name`` (kebab-case), ``stage``,
   ``order`` (a free place in that stage) and a docstring that says what it proves and names the
   mutant it must not absorb (``Mutant ...``);
2. ``tests/compare/test_folds.py``: a pair it folds into one root and that mutant, left as
   separate roots;
3. ``docs/matching.md``: its row in the "Folds" table, at its place in ``FOLDS``.

tests/compare/test_folds.py checks the registry: names unique, stages known, a ``Mutant`` in
every docstring, the docs table naming every fold in ``FOLDS`` order.
"""
from __future__ import annotations

import importlib
import os
import threading
from typing import Iterable, List, Optional, Sequence, Tuple

from ..roots import Root
from .base import STAGES, Fold, FoldContext


def _discover() -> Tuple[Fold, ...]:
    """One instance of every named ``Fold`` subclass defined in a module of this package, by
    stage, then ``order``, then name (so that two folds given one place still run in a fixed
    order; the registry test asks for distinct places)."""
    found: List[Fold] = []
    for name in module_names(__path__):
        module = importlib.import_module(f"{__name__}.{name}")
        found.extend(cls() for cls in vars(module).values()
                     if isinstance(cls, type) and issubclass(cls, Fold) and cls.__module__ == module.__name__
                     and cls.name)
    return tuple(sorted(found, key=lambda f: (STAGES.index(f.stage), f.order, f.name)))


def module_names(folders: Iterable[str]) -> List[str]:
    """The names of the modules and packages in ``folders``, sorted: the names
    ``pkgutil.iter_modules`` gives (a file with an import suffix, or a folder with an
    ``__init__`` file; no ``__init__``, no name with a dot), without importing ``inspect`` for
    its ``getmodulename`` (~25 M instructions, which the diff would import for this alone)."""
    from importlib.machinery import all_suffixes
    suffixes = sorted(all_suffixes(), key=len, reverse=True)
    found = set()
    for folder in folders:
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        for entry in entries:
            name = next((entry[:-len(x)] for x in suffixes if entry.endswith(x)), None)
            if name is None:
                full = os.path.join(folder, entry)
                if "." in entry or not os.path.isdir(full):
                    continue
                try:
                    inner = os.listdir(full)
                except OSError:
                    continue
                if not any(f.endswith(x) and f[:-len(x)] == "__init__" for f in inner for x in suffixes):
                    continue
                name = entry
            if name != "__init__" and "." not in name:
                found.add(name)
    return sorted(found)


_FOLDS: Optional[Tuple[Fold, ...]] = None
_DISCOVERING = threading.Lock()


def registered() -> Tuple[Fold, ...]:
    """Every fold, in the order it runs (within its stage): ``FOLDS``, found on the first call
    (one discovery, whichever thread asks first)."""
    global _FOLDS
    if _FOLDS is None:
        with _DISCOVERING:
            if _FOLDS is None:
                _FOLDS = _discover()
    return _FOLDS


def __getattr__(name: str):
    """``FOLDS``: the registry (see ``registered``)."""
    if name == "FOLDS":
        return registered()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def apply_folds(stage: str, ctx: FoldContext, roots: List[Root], folds: Optional[Sequence[Fold]] = None) -> List[Root]:
    """``roots`` after every fold of ``stage`` (in ``folds`` order; by default every fold). A
    fold only moves roots under others, so no roots stay none: the folds are then not looked up."""
    if not roots and folds is None:
        return roots
    for fold in registered() if folds is None else folds:
        if fold.stage == stage:
            roots = fold.apply(ctx, roots)
    return roots


def fold_names() -> List[str]:
    return [f.name for f in registered()]


__all__ = ["FOLDS", "Fold", "FoldContext", "apply_folds", "fold_names"]
