"""zero-minus-under-exp: ``0.0 - x`` read only by exponentials is ``-x``."""
from __future__ import annotations

from typing import Dict

from ...ir import Operation
from ..rule import Rule, register
from ..util import live_users, names_in, ops_of, rewrite_ops
from ._constants import constants, uniform_bits

#: ops that map +0.0 and -0.0 to the same value (exp(±0) = exp2(±0) = 1)
_ZERO_SIGN_BLIND = frozenset({"exp", "exp2"})


def _from_zero(op: Operation, prod: Dict[int, Operation]) -> bool:
    """``op`` is a ``subf`` without flush-to-zero whose minuend is a +0.0 constant (every element);
    ``prod``: value id -> constant op (``_constants.constants``)."""
    if op.name != "subf" or len(op.operands) != 2 or len(op.results) != 1 or "flush_to_zero" in op.attributes:
        return False
    return uniform_bits(prod.get(op.operands[0].vid)) == 0  # +0.0 in every float format (None: no constant)


@register
class ZeroMinusUnderExp(Rule):
    """Absorbs: a negation written as a subtraction from zero where only an exponential reads it:
    ``exp (subf 0.0, x)`` (or ``exp2``) becomes ``exp (negf x)``, as ``-x`` against ``0 - x`` in
    a sigmoid or softmax written by another author. The subtraction has no flush-to-zero.

    Why meaning is kept: ``+0.0 - x`` is exact in every rounding mode and equals ``-x`` except
    for x = +0.0, where it gives +0.0 and ``-x`` gives -0.0 (for a NaN both are NaN); ``exp`` and
    ``exp2`` map +0.0 and -0.0 to the same 1.0, so every value the readers compute is the same.

    Never touches: a subtraction from -0.0 or any other constant, one with flush_to_zero (a
    subnormal x becomes 0 there), and one whose result has any other reader (``mulf`` by it
    keeps the sign of the zero; a reader whose result nothing uses, which dead-code removes,
    does not count).
    """
    name = "zero-minus-under-exp"
    mutant = "0.0 - x read by a mulf (or by exp and a mulf) stays a difference from -x"
    acts_on = frozenset({"subf"})

    def apply(self, module):
        def rewrite_for(f, bypassed):
            if names_in(f).isdisjoint(_ZERO_SIGN_BLIND):
                return None  # no exponential: no subtraction is read by exponentials only
            prod = constants(f)  # (_from_zero asks for a constant operand)
            if not any(_from_zero(op, prod) for op in ops_of(f.body) if op.name == "subf"):
                return None  # no subtraction from +0.0: nothing to rewrite, no users to index
            users = live_users(f)  # (a reader nothing uses does not count: dead-code removes it)

            def fn(op, subst):
                if not _from_zero(op, prod):
                    return None
                zero = prod[op.operands[0].vid]
                readers = users.get(op.results[0].vid, [])
                if not readers or any(u.name not in _ZERO_SIGN_BLIND for u in readers):
                    return None
                bypassed.add(id(zero))
                return [op.replace(name="negf", operands=(op.operands[1],), attributes={}, segments=())]
            return fn

        return rewrite_ops(module, rewrite_for, drop_bypassed=True, only=self.acts_on)
