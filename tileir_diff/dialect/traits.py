"""Op traits: named properties of an op that the stages act on, declared once in the op table.

A trait is an object with a name and a meaning (as xDSL's ``Pure()``/``Commutative()``); it
compares and hashes as its name, so ``op_def.has("memory")`` and ``MEMORY in op_def.traits``
both read the table. Every op set a later stage needs (memory ops, loops, view makers, ...) is
derived from the table with ``ops_with``, never written out by hand; tests/dialect/test_traits.py
scans the package for hand-kept op-name sets.
"""
from __future__ import annotations

from typing import Dict, FrozenSet, Iterable


class Trait(str):
    """A trait of an op: its name (what the op table rows list), what it promises, and the
    traits it implies (a row lists ``reads``; that it is a ``memory`` op follows)."""

    meaning: str
    implies: FrozenSet["Trait"]

    def __new__(cls, name: str, meaning: str, implies: Iterable["Trait"] = ()) -> "Trait":
        obj = super().__new__(cls, name)
        obj.meaning = meaning
        obj.implies = frozenset(implies)
        return obj

    def __reduce__(self):  # pickles (the suite's worker processes) as name + meaning + implied
        return (Trait, (str.__str__(self), self.meaning, tuple(self.implies)))

    def __repr__(self) -> str:
        return f"Trait({str.__str__(self)!r})"


#: name -> trait: every trait an op-table row may carry (the table is checked against it).
TRAITS: Dict[str, Trait] = {}


def _trait(name: str, meaning: str, implies: Iterable[Trait] = ()) -> Trait:
    if name in TRAITS:
        raise ValueError(f"trait {name!r} declared twice")
    TRAITS[name] = Trait(name, meaning, implies)
    return TRAITS[name]


def with_implied(traits: Iterable[str]) -> FrozenSet[str]:
    """``traits`` and every trait they imply, transitively (what an op-table row has)."""
    out, todo = set(), list(traits)
    while todo:
        t = todo.pop()
        if t not in out:
            out.add(t)
            todo.extend(getattr(t, "implies", ()))
    return frozenset(out)


# --- what the normalization rules and the matcher rely on ---------------------------------
PURE = _trait("pure", "no side effect and no memory access: may be removed when unused and merged when equal")
COMMUTATIVE = _trait("commutative", "its two operands may be swapped")
COMMUTATIVE2 = _trait("commutative2", "its first two operands may be swapped (the rest stay: fma's accumulator)")
MEMORY = _trait("memory", "reads or writes memory through a view or pointer tile")
READS = _trait("reads", "a memory op that reads", implies=(MEMORY,))
WRITES = _trait("writes", "a memory op that writes (atomics included)", implies=(MEMORY,))
EFFECT = _trait("effect", "has an effect other than a memory access (print, assert, fences, grid dependencies)")
MMA = _trait("mma", "a matrix multiply-accumulate")
DERIVES_ADDRESS = _trait("derives_address", "the memory its result addresses derives from operand 0's "
                                            "(views of a view or pointer, pointer casts, reshapes, offsets)")
# --- the verifier's ----------------------------------------------------------------------
TERMINATOR = _trait("terminator", "ends a block")
THROUGH_IF = _trait("through_if", "a terminator that may end an if nested in its parent (early exits)",
                    implies=(TERMINATOR,))
TOP_LEVEL = _trait("top_level", "lives at module level, never inside a function body")
OPTIONAL_LAST_REGION = _trait("optional_last_region", "its last region may be empty (if's else)")
# --- structure: what the summaries and the interpreter's glue read -------------------------
CONTROL_FLOW = _trait("control_flow", "runs its regions conditionally or repeatedly (for, if, loop)")
LOOP = _trait("loop", "runs its region repeatedly, with loop-carried values", implies=(CONTROL_FLOW,))
COMBINER = _trait("combiner", "its region combines two elements into one (reduce, scan)")
MAKES_VIEW = _trait("makes_view", "makes a tiled view (partition, strided, gather/scatter) of a tensor view")
SHAPE_QUERY = _trait("shape_query", "reads the runtime extents of a view")
GRID_QUERY = _trait("grid_query", "reads the launch grid: the block's id or the number of blocks")
COMPARE = _trait("compare", "compares two operands under a predicate attribute")
ZERO_SIGN_BLIND = _trait("zero_sign_blind", "gives the same result for -0.0 and +0.0 (exp, exp2: exactly 1.0) "
                                            "at its default rounding, without flush-to-zero")
# --- the printer's ------------------------------------------------------------------------
NAMES_RESULTS = _trait("names_results", "suggests names for its results (MLIR's OpAsmOpInterface): an `assume` "
                                        "of one of its results is printed as `assume_<name>`")


def ops_with(trait: str, *more: str) -> FrozenSet[str]:
    """The names of the ops whose op-table row has ``trait`` (and every one of ``more``)."""
    from .ops import OPS_BY_TRAIT
    names = OPS_BY_TRAIT.get(trait, frozenset())
    for t in more:
        names = names & OPS_BY_TRAIT.get(t, frozenset())
    return names
