"""nonnegative-division: floor division and floor modulo of non-negative integers."""
from __future__ import annotations

from typing import List, Set

from ..rule import Rule, register
from ..util import drop_unused, enum_name, has_trait, map_functions, public_attributes, rewrite_function
from ._ranges import Ranges, known_bool


def _floor_mod_result(ranges: Ranges, op):
    """For cuTile Python's floor-modulo fix-up ``select(c, addi(r, b), r)`` with ``r = remi a, b
    signed`` and ``c`` provably false: (``r``, the ops of ``c`` and the addi). Else None."""
    if op.name != "select" or len(op.operands) != 3:
        return None
    cond, if_true, if_false = op.operands
    rem = ranges.producer.get(if_false.vid)
    add = ranges.producer.get(if_true.vid)
    if rem is None or rem.name != "remi" or enum_name(rem.attributes.get("signedness")) != "signed":
        return None
    divisor = rem.operands[1]
    if add is None or add.name != "addi" or len(add.operands) != 2:
        return None
    x, y = add.operands
    if not ((_same_value(ranges, x, if_false) and _same_value(ranges, y, divisor))
            or (_same_value(ranges, y, if_false) and _same_value(ranges, x, divisor))):
        return None
    if known_bool(ranges, cond) is not False:
        return None
    return if_false, _tree(ranges, cond) | {id(add)}


def _same_value(ranges: Ranges, a, b, depth: int = 0) -> bool:
    """One value, or two results of equal pure ops on the same values (constants of one type and
    value, a duplicated ``remi``): cse-pure-ops and constant-dedup run later in the pipeline."""
    if a.vid == b.vid:
        return True
    pa, pb = ranges.producer.get(a.vid), ranges.producer.get(b.vid)
    if (depth > 8 or pa is None or pb is None or pa.name != pb.name or pa.regions or pb.regions
            or not has_trait(pa, "pure") or a.type != b.type or len(pa.operands) != len(pb.operands)
            or [r.vid for r in pa.results].index(a.vid) != [r.vid for r in pb.results].index(b.vid)
            or public_attributes(pa) != public_attributes(pb)):
        return False
    return all(_same_value(ranges, x, y, depth + 1) for x, y in zip(pa.operands, pb.operands))


def _tree(ranges: Ranges, v, depth: int = 0) -> Set[int]:
    """id() of the i1 logic/compare ops that compute ``v`` (constants excluded: they may be shared)."""
    op = ranges.producer.get(v.vid)
    if op is None or depth > 32 or op.name not in ("cmpi", "andi", "ori", "xori"):
        return set()
    out = {id(op)}
    if op.name != "cmpi":
        for o in op.operands:
            out |= _tree(ranges, o, depth + 1)
    return out


@register
class NonnegativeDivision(Rule):
    """Absorbs: floor division and floor modulo where both operands are provably non-negative,
    against truncating division and remainder (cuTile Python lowers ``//`` to ``divi signed
    rounding<negative_inf>`` and ``%`` to ``remi signed`` plus a sign fix-up ``select((r < 0) ^
    (b < 0) & (r != 0), r + b, r)``; cuTile Rust writes plain ``divi signed`` and ``remi
    signed``). Such a ``divi`` loses its rounding (becomes the default, toward zero); such a
    fix-up ``select`` is replaced by the ``remi`` result, and its now unused condition ops and
    ``addi`` are removed. Non-negative is decided by signed integer intervals
    (normalize/rules/_ranges.py): constants, block ids, grid sizes, loop induction variables,
    ``assume bounded<lb, ?>`` facts (the program asserts them), no-wrap arithmetic, and a
    ``select`` whose condition the intervals decide (the operand it picks: so a floor modulo of a
    floor modulo, whose inner fix-up's ``r + b`` may pass the type's bound, is seen non-negative).

    Why meaning is kept: for a ≥ 0 and b > 0, floor(a / b) = trunc(a / b) and the truncating
    remainder is already ≥ 0, so the fix-up condition is false; b = 0 is undefined either way.

    Never touches: a division or fix-up where either operand may be negative (an entry argument
    with no ``bounded`` assumption, a difference such as ``n - k`` that may go below 0, a value
    whose arithmetic may wrap), ``rounding<positive_inf>`` (ceiling division differs from
    truncation), unsigned ``divi``/``remi``, and any ``select`` that is not exactly the fix-up.
    """
    name = "nonnegative-division"
    mutant = "divi %x, %b rounding<negative_inf> vs divi %x, %b with %x an entry argument of unknown sign"
    acts_on = frozenset({"divi", "select"})

    def apply(self, module):
        def per_function(f):
            count = 0
            fixups: Set[int] = set()
            ranges_of_f: List[Ranges] = []  # computed for the first divi or select

            def fn(op, subst):
                nonlocal count
                if not ranges_of_f:
                    ranges_of_f.append(Ranges(f, use_assumes=True))
                ranges = ranges_of_f[0]
                if (op.name == "divi" and enum_name(op.attributes.get("rounding")) == "negative_inf"
                        and enum_name(op.attributes.get("signedness")) == "signed"
                        and all(ranges.nonnegative(v) for v in op.operands)):
                    attrs = dict(op.attributes)
                    del attrs["rounding"]
                    count += 1
                    return [op.replace(attributes=attrs)]
                found = _floor_mod_result(ranges, ranges.producer.get(op.results[0].vid, op)
                                          if len(op.results) == 1 else op)
                if found is None:
                    return None
                rem, tree = found
                subst[op.results[0].vid] = rem
                fixups.update(tree)
                count += 1
                return []

            nf = rewrite_function(f, fn, only=self.acts_on)  # another op is never a divi or a fix-up
            return (_drop_unused(nf, fixups) if fixups else nf), count
        return map_functions(module, per_function)


def _drop_unused(f, candidates: Set[int]):
    """Remove the fix-up ops left without users (so the rule does not depend on dead-code)."""
    return drop_unused(f, lambda op: id(op) in candidates)
