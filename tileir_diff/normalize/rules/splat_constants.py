"""splat-constants: a constant broadcast to a tile is that tile's splat constant."""
from __future__ import annotations

from ...ir import DenseElements, TileType
from ..rule import Rule, register
from ..util import op_lists, rewrite_ops
from ._constants import producers, stored_element_bytes, uniform_bits


def _single_element_constant(prod, v, chain):
    """The constant op behind ``v`` when ``v`` is a one-element constant, possibly reshaped
    (the ops on the way are added to ``chain``)."""
    op = prod.get(v.vid)
    while op is not None and op.name == "reshape" and op.operands:
        chain.add(id(op))
        op = prod.get(op.operands[0].vid)
    if op is None or op.name != "constant":
        return None
    value = op.attributes.get("value")
    if not isinstance(value, DenseElements) or value.type.num_elements != 1:
        return None
    return op


_SHAPE_OPS = frozenset({"broadcast", "reshape"})


def _one_element_stored(op) -> bool:
    """A constant whose value stores one element (the test ``fn`` below returns None on first):
    a splat or a one-element constant, which this rule leaves as it is."""
    value = op.attributes.get("value")
    size = stored_element_bytes(value)
    return size is not None and size == len(value.data)


@register
class SplatConstants(Rule):
    """Absorbs: how a constant tile is written. ``broadcast`` (or ``reshape``) of a one-element
    constant — cuTile Python writes ``constant <f32: 2.0> : tile<f32>``, ``reshape`` to
    ``tile<1xf32>``, ``broadcast`` to ``tile<64xf32>`` — becomes the splat constant of the result
    type (``constant <f32: 2.0> : tile<64xf32>``), as cuTile Rust and other styles write it; and
    a constant whose elements are all equal is written as a splat. The bypassed reshapes and
    scalar constants are dropped when nothing else uses them.

    Why meaning is kept: broadcasting a single element repeats it into every position; a splat
    means exactly that, and a dense constant with equal elements holds the same values.

    Never touches: a broadcast of a non-constant value or of a constant with several different
    elements (a row broadcast along a dimension), or a constant of another element type.
    """
    name = "splat-constants"
    mutant = "broadcast of constant 2.0 vs splat constant 2.5 stays a constant difference"
    acts_on = frozenset({"broadcast", "reshape", "constant"})

    def apply(self, module):
        def rewrite_for(f, bypassed):
            if not any([op for ops in op_lists(f.body) for op in ops if op.name in _SHAPE_OPS
                        or op.name == "constant" and not _one_element_stored(op)]):
                return None  # no broadcast or reshape, every constant stores one element: no rewrite
            prod = producers(f)

            def fn(op, subst):
                if op.name in ("broadcast", "reshape") and len(op.operands) == 1 and len(op.results) == 1:
                    chain = set()
                    c = _single_element_constant(prod, op.operands[0], chain)
                    rt = op.results[0].type
                    if c is None or not isinstance(rt, TileType) or rt.element != c.attributes["value"].type.element:
                        return None
                    value = DenseElements(rt, c.attributes["value"].data)
                    bypassed.add(id(c))
                    bypassed.update(chain)
                    return [op.replace(name="constant", operands=(), segments=(), attributes={"value": value},
                                       regions=())]
                if op.name == "constant":
                    value = op.attributes.get("value")
                    size = stored_element_bytes(value)
                    if size is not None and size == len(value.data):
                        return None  # one element stored: a splat or a one-element constant (below: no rewrite)
                    # is_splat first: most constants are splats, and it answers for them alone
                    if isinstance(value, DenseElements) and not value.is_splat and value.type.num_elements > 1 \
                            and uniform_bits(op) is not None:
                        width = len(value.data) // value.type.num_elements
                        if width and len(value.data) == width * value.type.num_elements:
                            return [op.replace(attributes={**op.attributes,
                                                           "value": DenseElements(value.type, value.data[:width])})]
                return None
            return fn

        return rewrite_ops(module, rewrite_for, drop_bypassed=True, only=self.acts_on)
