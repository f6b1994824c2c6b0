"""``PairView``: what the classification of one entry pair reads, read-only.

Built once per entry pair (compare/passes.py ``classify_pass``) and handed to the classifier's
root algorithm (compare/classify.py), the pair findings (compare/pair_findings.py), the roots of
ties, pins and the checker, and the folds (``FoldContext.cl``). Nothing is set on it after it is
made; the expression indexes a fold needs are built on first use (``indexes``)."""
from __future__ import annotations

from functools import cached_property
from typing import Any, FrozenSet, List, Optional, Sequence, Tuple

from ..graph import FunctionGraph
from .describe import FunctionText
from ..record import record


@record(eq=False)
class PairView:
    L: FunctionGraph          # the left entry's graph
    R: FunctionGraph          # the right entry's graph
    m: Any                    # the node mapping (l2r, r2l)
    lt: FunctionText          # the left entry's texts (value names, op lines)
    rt: FunctionText
    vl: Any                   # the bytecode versions (operand roles, group names)
    vr: Any
    commutative: bool = True  # commutative-operands on: commutative slots compare crossed when that fits
    #: (left, right) unpaired node ids in program order, when the matcher kept them
    unpaired: Optional[Tuple[Sequence[str], Sequence[str]]] = None
    #: (side, argument index) read as a constant (compare/pins.py)
    pinned: FrozenSet[Tuple[str, int]] = frozenset()

    @cached_property
    def indexes(self) -> Tuple[Any, Any]:
        """(left, right) GraphIndex for expressions, built when a message first needs them."""
        from .expressions import GraphIndex
        return GraphIndex(self.L), GraphIndex(self.R)

    def unpaired_left(self) -> List[str]:
        if self.unpaired is not None:
            return list(self.unpaired[0])
        return [n for n in self.L.order if n not in self.m.l2r]

    def unpaired_right(self) -> List[str]:
        if self.unpaired is not None:
            return list(self.unpaired[1])
        return [n for n in self.R.order if n not in self.m.r2l]
