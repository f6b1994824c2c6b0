"""masked-pointer-as-view: a 1-D pointer access masked by its extent is the view access of that tile."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ...ir import Operation, Value
from ...ir.types import PartitionViewType, PointerType, TensorViewType, TileType
from ..rule import Rule, register
from ..util import FreshVids, enum_name, new_operation, rewrite_ops
from ._constants import producers, uniform_bits
from ._ranges import Ranges

#: attributes a pointer access may carry to be rewritten (anything else, hints included, stays)
_ORDERING = ("memory_ordering_semantics", "memory_scope")


def _scalar_of_broadcast(prod, v: Value) -> Optional[Value]:
    """``s`` where ``v = broadcast(reshape(s))`` with ``s`` a scalar tile (shape ())."""
    b = prod.get(v.vid)
    if b is None or b.name != "broadcast" or len(b.operands) != 1:
        return None
    r = prod.get(b.operands[0].vid)
    if r is None or r.name != "reshape" or len(r.operands) != 1:
        return None
    s = r.operands[0]
    return s if isinstance(s.type, TileType) and s.type.shape == () else None


def _exti_source(prod, v: Value, signed_only: bool) -> Optional[Value]:
    """The i32 scalar ``x`` where ``v = exti x`` to i64 (signed only, with ``signed_only``)."""
    e = prod.get(v.vid)
    if e is None or e.name != "exti" or len(e.operands) != 1:
        return None
    if signed_only and enum_name(e.attributes.get("signedness")) != "signed":
        return None
    x = e.operands[0]
    return x if isinstance(x.type, TileType) and getattr(x.type.element, "name", "") == "i32" else None


def _tile_index(prod, ranges: Ranges, idx: Value) -> Optional[Tuple[Value, int]]:
    """(``v``, ``T``) where ``idx = iota(T) + broadcast(exti(v) * T)`` in i64 (either operand
    order) and ``v`` is a non-negative i32 (by what the IR states, assumes aside): the element
    indices of tile ``v`` of size ``T``, exact in 64 bits."""
    t = idx.type
    if not isinstance(t, TileType) or len(t.shape) != 1 or getattr(t.element, "name", "") != "i64":
        return None
    add = prod.get(idx.vid)
    if add is None or add.name != "addi" or len(add.operands) != 2:
        return None
    size = t.shape[0]
    for k in (0, 1):
        iota = prod.get(add.operands[k].vid)
        if iota is None or iota.name != "iota":
            continue
        base = _scalar_of_broadcast(prod, add.operands[1 - k])
        mul = prod.get(base.vid) if base is not None else None
        if mul is None or mul.name != "muli" or len(mul.operands) != 2:
            continue
        for j in (0, 1):
            if uniform_bits(prod.get(mul.operands[j].vid)) != size:
                continue
            v = _exti_source(prod, mul.operands[1 - j], signed_only=False)
            if v is not None and ranges.nonnegative(v):
                return v, size
    return None


def _bound(prod, mask: Value, idx: Value) -> Optional[Value]:
    """``n`` where ``mask = cmpi less_than idx, broadcast(exti signed n), signed``."""
    c = prod.get(mask.vid)
    if c is None or c.name != "cmpi" or len(c.operands) != 2 or c.operands[0].vid != idx.vid:
        return None
    if enum_name(c.attributes.get("comparison_predicate")) != "less_than" or \
            enum_name(c.attributes.get("signedness")) != "signed":
        return None
    wide = _scalar_of_broadcast(prod, c.operands[1])
    return _exti_source(prod, wide, signed_only=True) if wide is not None else None


def _groups(op: Operation, names: Tuple[str, ...]) -> Optional[Dict[str, List[Value]]]:
    """The op's operands by group name, or None when the segments do not fit ``names``."""
    if len(op.segments) != len(names):
        return None
    out, start = {}, 0
    for name, size in zip(names, op.segments):
        out[name] = list(op.operands[start:start + size])
        start += size
    return out


@register
class MaskedPointerAsView(Rule):
    """Absorbs: a raw-pointer port's 1-D access of tile ``v`` against the view access a
    cuTile kernel writes: ``load_ptr_tko (offset(base, idx)), idx < n, 0`` with ``idx = iota(T) +
    exti(v) * T`` in 64 bits becomes ``load_view_tko`` of ``make_partition_view tile=(T),
    padding zero`` of ``make_tensor_view base, shape=[n], strides=[1]`` at index ``v``; a store
    masked the same way becomes the view store (no padding). The index arithmetic, mask and
    padding constant are left to dead-code.

    Why meaning is kept: the view access touches element ``v * T + i`` (an exact index) of the
    array at ``base`` with unit stride where ``0 <= v * T + i < n``, reads the padding (+0) at the
    others and writes nothing there. The pointer access computes the same ``v * T + i`` without
    wrapping (``v`` is a non-negative 32-bit value and ``T`` fits 32 bits: the product stays below
    2^62 in 64 bits), so its lanes are the same addresses; its mask ``idx < n`` (signed, n
    sign-extended) is the view's bounds check (``idx >= 0`` holds); the padding operand is +0.

    Never touches: 32-bit index arithmetic (``v * T`` may wrap), a mask by ``<=``, unsigned, or by
    another value than the index the pointers are offset by, an index of another tile size or
    from a value of unknown sign, a padding other than +0 (-0.0 or 1.0), a multi-dimensional
    pointer tile, and accesses with hints or another ordering than the view op takes.
    """
    name = "masked-pointer-as-view"
    mutant = ("a pointer load masked by idx <= n, with 32-bit indices, padding -0.0 or indices of another tile "
              "size stays a difference from the view load")
    acts_on = frozenset({"load_ptr_tko", "store_ptr_tko"})

    def apply(self, module):
        def rewrite_for(f, bypassed):
            prod = producers(f)
            ranges = Ranges(f, use_assumes=False)
            fresh = FreshVids(f)  # the largest id found on the first new value

            def fn(op, subst):
                if op.name not in self.acts_on or any(k not in _ORDERING and k[:1] != "_" for k in op.attributes):
                    return None
                return self._as_view(op, prod, ranges, fresh, subst)
            return fn

        return rewrite_ops(module, rewrite_for, drop_bypassed=False)

    @staticmethod
    def _as_view(op: Operation, prod, ranges: Ranges, fresh, subst) -> Optional[List[Operation]]:
        load = op.name == "load_ptr_tko"
        names = ("source", "mask", "paddingValue", "token") if load else ("destination", "value", "mask", "token")
        g = _groups(op, names)
        if g is None or len(g["mask"]) != 1 or (load and len(g["paddingValue"]) != 1):
            return None
        pointers = g["source" if load else "destination"][0]
        off = prod.get(pointers.vid)
        if off is None or off.name != "offset" or len(off.operands) != 2:
            return None
        base = _scalar_of_broadcast(prod, off.operands[0])
        idx = off.operands[1]
        tile = _tile_index(prod, ranges, idx)
        n = _bound(prod, g["mask"][0], idx)
        pointee = getattr(base.type, "element", None) if base is not None else None
        if base is None or tile is None or n is None or not isinstance(pointee, PointerType):
            return None
        if load and uniform_bits(prod.get(g["paddingValue"][0].vid)) != 0:
            return None
        v, size = tile
        elem = pointee.pointee
        tv_type = TensorViewType(elem, (None,), (1,))
        pv_type = PartitionViewType((size,), tv_type, (0,), "zero" if load else None)
        fresh[0] += 2
        tv, pv = Value(fresh[0] - 1, tv_type), Value(fresh[0], pv_type)
        base, n, v = (subst.get(x.vid, x) for x in (base, n, v))
        make_tv = new_operation("make_tensor_view", (base, n), (1, 1, 0), (tv,), {}, (), op.location, op.origin)
        make_pv = new_operation("make_partition_view", (tv,), (1,), (pv,), {}, (), op.location, op.origin)
        attrs = {k: x for k, x in op.attributes.items() if k in _ORDERING}
        token = g["token"]
        if load:
            access = new_operation("load_view_tko", (pv, v, *token), (1, 1, len(token)), op.results, attrs, (),
                                   op.location, op.origin)
        else:
            access = new_operation("store_view_tko", (g["value"][0], pv, v, *token), (1, 1, 1, len(token)),
                                   op.results, attrs, (), op.location, op.origin)
        return [make_tv, make_pv, access]
