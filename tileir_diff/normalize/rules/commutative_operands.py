"""commutative-operands: operands of commutative ops in one structural order."""
from __future__ import annotations

from ..keys import ORDER_FREE_OPS, KeyBuilder, commutative_positions
from ..rule import Rule, register
from ..util import map_functions, ops_of, rewrite_function


@register
class CommutativeOperands(Rule):
    """Absorbs: the order of the two operands of ``addf mulf maxf minf addi muli andi ori xori
    maxi mini mulhii``, of the two multiplicands of ``fma`` and of ``cmpi``/``cmpf`` for
    ``equal``/``not_equal``, everywhere, including inside
    ``reduce``/``scan`` combiner regions (a combiner that is a single commutative op on its two
    block arguments, ``addf %rhs, %lhs`` vs ``addf %lhs, %rhs``, becomes one form). Operands are
    ordered by their structural key (keys.py: a Merkle hash of the computation behind each
    operand, never value ids or positions in the text), so both files sort the same way.

    Why meaning is kept: these ops are commutative in Tile IR (IEEE add/mul/min/max are
    commutative bit for bit, including NaN and signed-zero results; fma(a,b,c) = fma(b,a,c);
    a == b is b == a, ordered or unordered).

    Never touches: non-commutative ops (``subf``, ``divf``, ``remf``, ordering compares such as
    ``cmpf less_than`` (mirrored-compares turns ``>`` around instead), ``shli``, ``select``,
    ``atan2``, ``fpowf``, ``mmaf``), the accumulator operand of ``fma``, or a combiner that is not
    commutative (``subf %lhs, %rhs`` vs ``subf %rhs, %lhs`` stays different).
    """
    name = "commutative-operands"
    mutant = "subf %a, %b vs subf %b, %a; fma %a, %b, %c vs fma %a, %c, %b"
    rewrites_in_place = True  # (operands, attributes or hints of one op at a time)

    def apply(self, module):
        def per_function(f):
            if not any(op.name in ORDER_FREE_OPS for op in ops_of(f.body)):
                return f, 0  # nothing to sort: no keys to compute
            keys = KeyBuilder(arg_positions=True).function(f).value
            count = 0

            def fn(op, subst):
                nonlocal count
                pos = commutative_positions(op)
                if pos is None:
                    return None
                i, j = pos
                a, b = op.operands[i], op.operands[j]
                if keys.get(b.vid, "") < keys.get(a.vid, ""):
                    ops = list(op.operands)
                    ops[i], ops[j] = b, a
                    count += 1
                    return [op.replace(operands=tuple(ops))]
                return None

            nf = rewrite_function(f, fn, only=ORDER_FREE_OPS)  # only these have commutative positions
            return nf, count
        return map_functions(module, per_function)
