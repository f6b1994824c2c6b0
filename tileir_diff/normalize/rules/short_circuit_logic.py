"""short-circuit-logic: ``c and x`` / ``c or x`` written as a branch or a select are ``andi``/``ori``."""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from ...ir import Operation, Value
from ..keys import KeyBuilder
from ..rule import Rule, register
from ..util import rewrite_ops
from ._constants import element_name, producers, uniform_bits


def _arm_value(region) -> Optional[Value]:
    """The value an arm yields when the arm does nothing else."""
    if len(region.blocks) != 1 or region.blocks[0].arguments:
        return None
    ops = region.blocks[0].operations
    if len(ops) != 1 or ops[0].name != "yield" or len(ops[0].operands) != 1:
        return None
    return ops[0].operands[0]


def _choice(op: Operation) -> Optional[Tuple[Value, Value, Value]]:
    """(condition, value when it holds, value otherwise) of a ``select`` or of an ``if`` with
    one result whose arms only yield values computed before it."""
    if op.name == "select" and len(op.operands) == 3:
        return op.operands[0], op.operands[1], op.operands[2]
    if op.name == "if" and len(op.results) == 1 and len(op.operands) == 1 and len(op.regions) == 2:
        then_v, else_v = _arm_value(op.regions[0]), _arm_value(op.regions[1])
        if then_v is not None and else_v is not None:
            return op.operands[0], then_v, else_v
    return None


@register
class ShortCircuitLogic(Rule):
    """Absorbs: a boolean ``and``/``or`` written as a choice on its left operand. Both frontends
    lower ``c and x`` to an ``if`` on ``c``; in the else arm cuTile Python yields ``c`` itself,
    cuTile Rust (``&&``) the constant ``false``; a port may also write ``c & x``. Once x is
    computed before the choice (cse-pure-ops hoists pure ops out of the arms; if-select makes an
    ``if`` with empty arms a ``select``), ``c ? x : c`` and ``c ? x : false`` become
    ``andi c, x``, and ``c ? c : x`` and ``c ? true : x`` become ``ori c, x`` (operands in the
    structural order commutative-operands uses).

    Why meaning is kept: for i1 values, ``c ? x : c`` is x where c holds and false elsewhere,
    which is ``c & x``; ``c ? c : x`` is true where c holds and x elsewhere, ``c | x``. The
    condition and both values have the same i1 type (a 0-d ``if``, or an elementwise ``select``).

    Never touches: an arm that computes anything (an op left in an arm may load, trap or cost:
    the short circuit is then part of the program), values that are not i1, a choice whose other
    arm is neither the condition nor the matching constant (``c ? x : true`` is ``!c | x``, not
    absorbed), ``if``s with several results.
    """
    name = "short-circuit-logic"
    mutant = "c ? x : true (an or with the negated condition) stays a choice, not c & x"
    acts_on = frozenset({"if", "select"})

    def apply(self, module):
        def rewrite_for(function, bypassed):
            made: Dict[str, Any] = {}  # producers and keys, built on the first candidate

            def fn(op, subst):
                choice = _choice(op)
                if choice is None or len(op.results) != 1:
                    return None
                cond, then_v, else_v = choice
                result_type = op.results[0].type
                if not (cond.type == then_v.type == else_v.type == result_type):
                    return None
                if getattr(getattr(result_type, "element", None), "name", None) != "i1":
                    return None
                if not made:
                    made["producers"] = producers(function)
                    made["keys"] = KeyBuilder(arg_positions=True).function(function).value

                def is_constant(v: Value, truth: bool) -> bool:
                    p = made["producers"].get(v.vid)
                    if p is None or element_name(p) != "i1":
                        return False
                    # an i1 true is stored as 0xff (the reader keeps the byte), false as 0
                    return uniform_bits(p) in ((1, 0xFF) if truth else (0,))

                if else_v.vid == cond.vid or is_constant(else_v, False):
                    name, other = "andi", then_v
                elif then_v.vid == cond.vid or is_constant(then_v, True):
                    name, other = "ori", else_v
                else:
                    return None
                if other.vid == cond.vid:
                    return None  # c ? c : c, left to the other rules
                keys = made["keys"]
                lhs, rhs = sorted((cond, other), key=lambda v: keys.get(v.vid, ""))
                return [op.replace(name=name, operands=(lhs, rhs), segments=(1, 1), attributes={}, regions=())]
            return fn

        return rewrite_ops(module, rewrite_for)
