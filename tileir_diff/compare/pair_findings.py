"""What differs at one pair of nodes, as findings (compare/roots.py ``Finding``), and the texts
that name a node or an operand: functions of a ``PairView`` (compare/view.py). The classifier's
root algorithm (compare/classify.py), the roots of ties, pins and the checker, and the folds ask
these; the words are compare/wording.py's."""
from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Dict, List, Optional, Tuple

from ..graph import FunctionGraph, Node, combiner_expression, input_op_id
from ..ir import Operation, TileType, Value
from ..match.opsets import MEMORY_OPS as _TABLE_MEMORY_OPS, ops_with
from ..match.operands import aligned_operand_pairs
from ..ir.types import TensorViewType, VIEW_TYPES
from ..normalize.canon import attr_key, attr_text, fmt_type
from ..normalize.util import has_trait, operand_role
from ..report.result import OpRef
from . import wording
from .describe import FunctionText, location_record, location_text
from .roots import Finding, Root
from .specialization import flag_side, overflow_keys
from .view import PairView
from .wording import constant_change

MEMORY_OPS = _TABLE_MEMORY_OPS  # the op table's memory trait
VIEW_OPS = frozenset({"make_partition_view", "make_strided_view", "make_gather_scatter_view", "make_tensor_view",
                      "get_index_space_shape", "get_tensor_shape", "join_tokens", "make_token"})
REDUCTION_OPS = ops_with("combiner")
MMA_OPS = ops_with("mma")
_EFFECTS = ops_with("effect")
# control flow and the terminators that end its regions (return ends the entry: structure)
CONTROL_OPS = ops_with("control_flow") | (ops_with("terminator") - {"return"})
BOUND_ROLES = ("lowerBound", "upperBound", "step")


def op_of(n: Node) -> Operation:
    """The op of an op node (asked only of nodes whose kind is ``op``)."""
    assert n.op is not None, n.nid
    return n.op


def value_of(n: Node) -> Value:
    """The value of an argument node (asked only of nodes whose kind is ``arg`` or ``barg``)."""
    assert n.value is not None, n.nid
    return n.value


def family(name: str) -> str:
    """The difference category an op's own change falls in."""
    if name in MEMORY_OPS or name in VIEW_OPS:
        return "memory"
    if name in REDUCTION_OPS:
        return "reduction"
    if name in MMA_OPS:
        return "mma"
    if name in CONTROL_OPS:
        return "control_flow"
    if name == "assume":
        return "specialization"
    if name == "constant":
        return "constant"
    if name in ("arg",):
        return "signature"
    if name in _EFFECTS or name in ("return", "barg"):
        return "structure"
    return "arith"


def slots_agree(a: Node, b: Node, l2r) -> bool:
    """Whether two ops' operands agree slot by slot as written: same operand groups, and each
    operand produced by a pair of the mapping (same result index)."""
    a_operands, b_operands = a.operands, b.operands
    if len(a_operands) != len(b_operands) or op_of(a).segments != op_of(b).segments:
        return False
    get = l2r.get
    for (sa, ra, _), (sb, rb, _) in zip(a_operands, b_operands):  # (a loop: all() over a generator cost more)
        if sa is None or get(sa) != sb or ra != rb:
            return False
    return True


def _type_findings(name: str, lt, rt, what: str, kind: str = "result_type") -> Finding:
    """A result/argument type change, categorised by what part of the type changed."""
    def found(category: str, part: Optional[str], old: str, new: str, note: Optional[str] = None) -> Finding:
        return Finding(category, wording.type_change(what, part, old, new, note), False, kind=kind, op=name,
                       attribute=part, old=old, new=new)
    if isinstance(lt, VIEW_TYPES) and type(lt) is type(rt):
        if lt.tile_shape != rt.tile_shape:
            return found("tile_shape", "tile", wording.tile(lt.tile_shape), wording.tile(rt.tile_shape))
        if lt.padding != rt.padding:
            return found("memory", "padding", lt.padding or "none", rt.padding or "none")
        dim_l, dim_r = getattr(lt, "dim_map", ()), getattr(rt, "dim_map", ())  # (not every view has one)
        if dim_l != dim_r:
            return found("memory", "dim_map", str(list(dim_l)), str(list(dim_r)))
        lt, rt = lt.tensor_view, rt.tensor_view
    if isinstance(lt, TensorViewType) and isinstance(rt, TensorViewType):
        if lt.element != rt.element:
            return found("type", "element type", fmt_type(lt.element), fmt_type(rt.element))
        if _static_vs_dynamic(lt, rt):
            return found("specialization", None, fmt_type(lt), fmt_type(rt), _static_side(lt, rt))
        return found("memory", None, fmt_type(lt), fmt_type(rt))
    if isinstance(lt, TileType) and isinstance(rt, TileType):
        cat = "mma" if name in MMA_OPS else None
        if lt.shape != rt.shape:
            return found(cat or "tile_shape", None, fmt_type(lt), fmt_type(rt))
        return found(cat or "type", None, fmt_type(lt), fmt_type(rt))
    return found("mma" if name in MMA_OPS else "type", None, fmt_type(lt), fmt_type(rt))


def _static_vs_dynamic(a: TensorViewType, b: TensorViewType) -> bool:
    """Two tensor views that differ only where one side has a static size or stride and the
    other a dynamic one (``?``): a specialization, not another memory layout."""
    if len(a.shape) != len(b.shape) or len(a.strides) != len(b.strides) or (a.shape, a.strides) == (b.shape, b.strides):
        return False
    pairs = list(zip(a.shape, b.shape)) + list(zip(a.strides, b.strides))
    return all(x == y or x is None or y is None for x, y in pairs)


def _static_side(a: TensorViewType, b: TensorViewType) -> str:
    pairs = list(zip(a.shape, b.shape)) + list(zip(a.strides, b.strides))
    left = any(x is not None and y is None for x, y in pairs)
    right = any(x is None and y is not None for x, y in pairs)
    return wording.static_side(left, right)


def _attr_category(name: str, key: str) -> str:
    if key == "optimization_hints":
        return "hints"
    if name in REDUCTION_OPS:
        return "reduction"
    if name in MMA_OPS:
        return "mma"
    if name in MEMORY_OPS:
        return "memory"
    if name == "assume":
        return "specialization"
    if name == "constant":
        return "constant"
    if name in CONTROL_OPS:
        return "control_flow"
    return "attribute"


def group_names(op, version):
    from ..normalize.util import group_names
    return group_names(op, version)


def pair_findings(view: PairView, l: str, r: str) -> List[Finding]:
    """What differs at the pair (l, r) itself: its name, attributes, combiner, operand groups,
    result and region counts and types, its placement (not its operands: ``wiring``)."""
    a, b = view.L.nodes[l], view.R.nodes[r]
    if a.kind in ("arg", "barg") or b.kind in ("arg", "barg"):
        return _argument_findings(view, l, r)
    out: List[Finding] = []
    oa, ob = op_of(a), op_of(b)
    if a.compare_key == b.compare_key:
        # equal canonical labels: same name, attributes, operand groups, result types and
        # region signatures (combiners included); only the placement can still differ
        if not same_parent(view, a, b) and not has_trait(oa, "pure"):
            out.append(placement_finding(view, a, b))
        return out
    if oa.name != ob.name:
        fam = family(oa.name)
        cat = fam if fam == family(ob.name) else ("arith" if "arith" in (fam, family(ob.name)) else fam)
        out.append(Finding(cat, wording.op_name(oa.name, ob.name), kind="op_name", op=oa.name,
                           old=oa.name, new=ob.name))
        return out
    out.extend(_attribute_findings(view, l, oa, ob))
    out.extend(_shape_findings(view, oa, ob))
    if not has_trait(oa, "pure") and not same_parent(view, a, b):
        out.append(placement_finding(view, a, b))
    if oa.name == "make_tensor_view" and any(f.category == "specialization" for f in out):
        # a size fixed in the type instead of passed: the dynamic operand it drops is part of it
        out = [replace(f, category="specialization") if f.category == "memory" else f for f in out]
        out.sort(key=lambda f: f.category != "specialization")
    return out


def _argument_findings(view: PairView, l: str, r: str) -> List[Finding]:
    """An entry or region argument against an op or another kind of argument, or of another type."""
    a, b = view.L.nodes[l], view.R.nodes[r]
    if a.kind != b.kind:
        return [kind_finding(view, "signature" if "arg" in (a.kind, b.kind) else "structure", l, r)]
    if value_of(a).type == value_of(b).type:
        return []
    if a.kind == "arg":
        old, new = fmt_type(value_of(a).type), fmt_type(value_of(b).type)
        return [Finding("signature", wording.argument_type(a.arg_index, view.lt.names.get(value_of(a).vid), old, new),
                        kind="argument_type", attribute=str(a.arg_index), old=old, new=new)]
    f = _type_findings("barg", value_of(a).type, value_of(b).type,
                       wording.region_argument(view.lt.names.get(value_of(a).vid, '?')), "argument_type")
    f.category = "control_flow" if f.category == "type" else f.category
    return [f]


def _attribute_findings(view: PairView, l: str, oa: Operation, ob: Operation) -> List[Finding]:
    """The public attributes that differ (left's order, then the right's new ones)."""
    out: List[Finding] = []
    aa, ba = oa.attributes, ob.attributes
    keys = [k for k in aa if k[:1] != "_"] + [k for k in ba if k[:1] != "_" and k not in aa]
    for key in keys:
        va, vb = aa.get(key), ba.get(key)
        # the same object (shared enum values) has the same key: skip computing it
        if va is None or vb is None or (va is not vb and attr_key(va) != attr_key(vb)):
            old, new = attr_text(va), attr_text(vb)
            if oa.name == "constant" and key == "value" and va is not None and vb is not None \
                    and va.type.element != vb.type.element:
                out.append(Finding("type", wording.changed("constant", old, new), kind="constant_type",
                                   op=oa.name, attribute=key, old=old, new=new))
            elif oa.name == "constant" and key == "value":
                out.append(Finding("constant", constant_change(va, vb), kind="constant", op=oa.name,
                                   attribute=key, old=old, new=new))
            elif key in overflow_keys(oa.name) and flag_side(va, vb) not in (None, "same"):
                out.append(flag_finding(view, l, oa.name, key, va, vb))
            else:
                out.append(Finding(_attr_category(oa.name, key), wording.attribute(oa.name, key, old, new),
                                   kind="attribute", op=oa.name, attribute=key, old=old, new=new))
    return out


def _shape_findings(view: PairView, oa: Operation, ob: Operation) -> List[Finding]:
    """A reduction's combiner, the operand groups, the result count or first result type that
    differs, the region count."""
    out: List[Finding] = []
    if oa.name in REDUCTION_OPS:
        ca = [combiner_expression(x) for reg in oa.regions for x in reg.blocks]
        cb = [combiner_expression(x) for reg in ob.regions for x in reg.blocks]
        if ca != cb:
            out.append(Finding("reduction", wording.combiner(oa.name, ca, cb), kind="combiner", op=oa.name,
                               old=";".join(ca), new=";".join(cb)))
    if oa.segments != ob.segments:
        cat = "memory" if oa.name in MEMORY_OPS else family(oa.name)
        out.append(Finding(cat if cat != "arith" else "structure",
                           wording.operand_groups(oa.name, group_names(oa, view.vl), oa.segments, ob.segments),
                           kind="operand_groups", op=oa.name, old=str(oa.segments), new=str(ob.segments)))
    if len(oa.results) != len(ob.results):
        out.append(Finding(family(oa.name), wording.count(oa.name, "result", len(oa.results), len(ob.results)),
                           kind="result_count", op=oa.name, old=str(len(oa.results)), new=str(len(ob.results))))
    else:
        for i, (x, y) in enumerate(zip(oa.results, ob.results)):
            if x.type != y.type:
                out.append(_type_findings(oa.name, x.type, y.type, wording.result_of(oa.name, i, len(oa.results))))
                break
    if oa.regions and oa.name not in REDUCTION_OPS:
        sa = [[fmt_type(x.type) for x in blk.arguments] for reg in oa.regions for blk in reg.blocks]
        sb = [[fmt_type(x.type) for x in blk.arguments] for reg in ob.regions for blk in reg.blocks]
        if len(sa) != len(sb):
            out.append(Finding("control_flow", wording.count(oa.name, "region", len(sa), len(sb)),
                               kind="region_count", op=oa.name, old=str(len(sa)), new=str(len(sb))))
    return out


def flag_finding(view: PairView, l: str, name: str, key: str, va, vb) -> Finding:
    """An overflow flag on one side (or another one): an assumption, not another computation
    (compare/specialization.py)."""
    message = wording.flag(name, node_value(view, view.L, view.lt, l), flag_side(va, vb), key, va, vb)
    return Finding("specialization", message, kind="flag", op=name, attribute=key,
                   old=wording.flag_value(va), new=wording.flag_value(vb))


def kind_finding(view: PairView, category: str, l: str, r: str) -> Finding:
    """An argument against an op or another kind of argument (its value's words on each side)."""
    old, new = node_value(view, view.L, view.lt, l), node_value(view, view.R, view.rt, r)
    return Finding(category, wording.values(old, new), kind="argument_kind", old=old, new=new)


def placement_finding(view: PairView, a: Node, b: Node) -> Finding:
    wl, wr = where(view.L, a), where(view.R, b)
    return Finding("control_flow", wording.placement(op_of(a).name, wl, wr), kind="placement", op=op_of(a).name,
                   old=wl, new=wr)


def same_parent(view: PairView, a: Node, b: Node) -> bool:
    if a.parent is None or b.parent is None:
        return a.parent is None and b.parent is None
    return view.m.l2r.get(a.parent) == b.parent


def where(g: FunctionGraph, n: Node) -> str:
    return wording.where(None if n.parent is None else g.nodes[n.parent].name, n.parent)


def operand_slots(view: PairView, a: Node, b: Node):
    """Operand positions of a left and a right op to compare (see aligned_operand_pairs)."""
    return aligned_operand_pairs(a, b, view.m.l2r, view.commutative)


def wiring(view: PairView, l: str, r: str) -> List[Tuple[int, int]]:
    """Operand slots whose producers are not paired with each other."""
    a, b = view.L.nodes[l], view.R.nodes[r]
    if slots_agree(a, b, view.m.l2r):
        return []  # (the common case) no alignment can do better
    bad = []
    # with commutative-operands on, the commutative positions compare crossed when that fits
    # the pairs better (the sort order follows the operands' keys, which upstream changes move)
    for i, j in operand_slots(view, a, b):
        sa, ra, _ = a.operands[i]
        sb, rb, _ = b.operands[j]
        if sa is None or sb is None or view.m.l2r.get(sa) != sb or ra != rb:
            bad.append((i, j))
    if op_of(a).name == "join_tokens" and op_of(a).name == op_of(b).name:
        # (an unpaired producer maps to "" so that the two multisets still sort)
        lset = sorted((view.m.l2r.get(s) or "", r) for s, r, _ in a.operands)
        rset = sorted((s or "", r) for s, r, _ in b.operands)
        if lset == rset:
            return []
    return bad

# --- texts --------------------------------------------------------------------------


def node_value(view: PairView, g: FunctionGraph, text: FunctionText, nid: str, res: int = 0) -> str:
    n = g.nodes[nid]
    if n.kind in ("arg", "barg"):
        name = text.names.get(value_of(n).vid, nid)
        return f"{name} (entry argument {n.arg_index})" if n.kind == "arg" else name
    if res < len(op_of(n).results):
        return text.value(op_of(n).results[res].vid)
    return nid


def operand_text(view: PairView, g, text, nid, k) -> str:
    n = g.nodes[nid]
    v = op_of(n).operands[k]
    src = n.operands[k][0]
    if src is not None and g.nodes[src].kind == "op" and op_of(g.nodes[src]).name != "constant" \
            and v.vid not in text.names:
        return f"{g.nodes[src].name} {src}"
    return text.value(v.vid)


def producer_text(g: FunctionGraph, nid: str, k: int, name: str) -> str:
    src, res, _ = g.nodes[nid].operands[k]
    if src is None:
        return name
    n = g.nodes[src]
    what = n.name if n.kind == "op" else ("entry argument" if n.kind == "arg" else "region argument")
    return f"{name} ({what} {input_op_id(src)}{'#' + str(res) if res else ''})"


def opref(view: PairView, side: str, nid: Optional[str]) -> Optional[OpRef]:
    if nid is None:
        return None
    g, text = (view.L, view.lt) if side == "left" else (view.R, view.rt)
    n = g.nodes[nid]
    if n.kind == "arg":
        sig = f"{text.names.get(value_of(n).vid, nid)}: {fmt_type(value_of(n).type)}"
        return OpRef(nid, f"entry @{g.function.name} argument {sig}", location_text(None))
    if n.kind == "barg":
        return OpRef(nid, f"{text.names.get(value_of(n).vid, nid)}: {fmt_type(value_of(n).type)}", None)
    base = input_op_id(nid)
    orig = text.op(base)
    if orig is None:
        return OpRef(base, n.name, None)
    if n.kind == "op" and n.name == "constant" and orig.name in ("broadcast", "reshape"):
        # a constant broadcast (splat-constants): show the constant as written, not the broadcast
        base, orig = constant_source(text, base, orig)
    return OpRef(base, text.op_line(orig, base), location_text(orig), location_record(orig))


def constant_source(text: FunctionText, base: str, op):
    """(id, op) of the constant a reshape/broadcast chain of the input starts at, or the op itself."""
    seen = 0
    src = op
    while src is not None and src.name in ("broadcast", "reshape") and src.operands and seen < 16:
        src = text.producer.get(src.operands[0].vid)
        seen += 1
    if src is None or src.name != "constant":
        return base, op
    ids = {id(o): oid for oid, o in text.ops.items()}
    return (ids[id(src)], src) if id(src) in ids else (base, op)

# --- classification -----------------------------------------------------------------


def wiring_finding(view: PairView, l: str, r: str, slots) -> Finding:
    a = view.L.nodes[l]
    name = op_of(a).name
    if is_swap(view, l, r, slots):
        (i1, j1), (i2, j2) = slots
        roles = (operand_role(op_of(a), i1, view.vl), operand_role(op_of(a), i2, view.vl))
        left = (operand_text(view, view.L, view.lt, l, i1), operand_text(view, view.L, view.lt, l, i2))
        right = (operand_text(view, view.R, view.rt, r, j1), operand_text(view, view.R, view.rt, r, j2))
        return Finding(slot_category(name, roles[0]), wording.swap(name, roles, left, right), kind="swap",
                       op=name, attribute=roles[0], old=", ".join(left), new=", ".join(right), slots=tuple(slots))
    parts = []
    cat = None
    for i, j in slots:
        role = operand_role(op_of(a), i, view.vl)
        cat = cat or slot_category(name, role)
        lt, rt = operand_text(view, view.L, view.lt, l, i), operand_text(view, view.R, view.rt, r, j)
        if lt == rt:  # each side names its own values: say what produces them
            lt, rt = producer_text(view.L, l, i, lt), producer_text(view.R, r, j, rt)
        parts.append(wording.operand(name, role, i, lt, rt))
    return Finding(cat or "arith", wording.joined(parts), kind="wiring", op=name, slots=tuple(slots))


def is_swap(view: PairView, l: str, r: str, slots) -> bool:
    """Whether the two miswired slots hold each other's inputs (a swap, not two changes)."""
    a, b = view.L.nodes[l], view.R.nodes[r]
    if len(slots) != 2 or len(a.operands) < 2:
        return False
    (i1, j1), (i2, j2) = slots
    sa1, sa2 = a.operands[i1][:2], a.operands[i2][:2]
    sb1, sb2 = b.operands[j1][:2], b.operands[j2][:2]
    m = view.m.l2r
    return bool(sa1[0] and sa2[0] and (m.get(sa1[0]), sa1[1]) == sb2 and (m.get(sa2[0]), sa2[1]) == sb1)


def slot_category(name: str, role: str) -> str:
    if name in MEMORY_OPS or name in VIEW_OPS:
        return "memory"
    if name in CONTROL_OPS:
        return "control_flow"
    return family(name) if family(name) not in ("constant", "structure") else "arith"


def refine_constant(view: PairView, l: str, msgs: List[Finding]) -> List[Finding]:
    """A changed constant used only as loop bounds is a control-flow change; used only as view
    indices, a memory change. The message names the slot."""
    a = view.L.nodes[l]
    if a.kind != "op" or op_of(a).name != "constant" or msgs[0].category != "constant":
        return msgs
    roles = []
    for u, k, _ in a.users:
        un = view.L.nodes[u]
        if un.kind != "op":
            return msgs
        roles.append((op_of(un).name, operand_role(op_of(un), k, view.vl)))
    if roles and all(n == "for" and r in BOUND_ROLES for n, r in roles):
        slots = ", ".join(sorted({r for _, r in roles}))
        return [replace(msgs[0], category="control_flow", message=wording.in_slot(f"for {slots}", msgs[0].message))] \
            + msgs[1:]
    if roles and all(n in MEMORY_OPS and r.startswith("index") for n, r in roles):
        slots = ", ".join(sorted({f'{n} {r}' for n, r in roles}))
        return [replace(msgs[0], category="memory", message=wording.in_slot(slots, msgs[0].message))] + msgs[1:]
    return msgs

# --- machine-readable specifics -----------------------------------------------------------


def op_name(view: PairView, g: FunctionGraph, nid: Optional[str]) -> Optional[str]:
    return None if nid is None else g.nodes[nid].name


def producer_name(view: PairView, g: FunctionGraph, nid: str, k: int) -> Optional[str]:
    src = g.nodes[nid].operands[k][0] if k < len(g.nodes[nid].operands) else None
    return None if src is None else g.nodes[src].name


def _assumes_more(a: Node, b: Node, category: str) -> Optional[str]:
    """Which side of a pair of assumes (or of ops whose overflow flags differ) assumes more:
    left, right, neither; None when it is no assumption."""
    if a.name == "assume":
        from .specialization import stronger
        return stronger(op_of(a).attributes.get("predicate"), op_of(b).attributes.get("predicate")) or "neither"
    if category == "specialization":
        sides = {flag_side(op_of(a).attributes.get(k), op_of(b).attributes.get(k)) for k in overflow_keys(a.name)} - {"same"}
        if sides and None not in sides:
            return sides.pop() if len(sides) == 1 else "neither"
    return None


def detail(view: PairView, root: Root) -> Dict[str, object]:
    """What a root difference is about, as data (Difference.detail; docs/json-format.md):
    the kind of root, the op names on each side, the attributes that differ, and the operand
    slots whose inputs differ with the ops producing them. Op names and schema roles only, no
    value names or op ids, so it stays the same when unrelated code moves."""
    L, R = view.L, view.R
    out: Dict[str, object] = {"kind": root.kind, "left_op": op_name(view, L, root.left),
                              "right_op": op_name(view, R, root.right), **root.extra}
    if root.slot is not None:
        user, k = root.slot
        un = L.nodes[user]
        if un.kind == "op":
            out["slot"] = {"user": un.name, "role": operand_role(op_of(un), k, view.vl)}
    if root.left is None or root.right is None:
        return out
    a, b = L.nodes[root.left], R.nodes[root.right]
    if a.kind != "op" or b.kind != "op" or a.name != b.name:
        return out
    more = _assumes_more(a, b, root.category)
    if more is not None:
        out["assumes_more"] = more
    aa, ba = op_of(a).attributes, op_of(b).attributes
    keys = [k for k in aa if k[:1] != "_"] + [k for k in ba if k[:1] != "_" and k not in aa]
    changed = [k for k in keys if (k in aa) != (k in ba) or attr_key(aa[k]) != attr_key(ba[k])]
    if changed:
        out["attributes"] = changed
    if op_of(a).segments != op_of(b).segments:
        names = group_names(op_of(a), view.vl)
        groups: List[Dict[str, object]] = [
            {"group": names[i] if i < len(names) else str(i), "left": x, "right": y}
            for i, (x, y) in enumerate(zip(op_of(a).segments, op_of(b).segments)) if x != y]
        if len(op_of(a).segments) != len(op_of(b).segments):
            groups.append({"group": "(count)", "left": len(op_of(a).segments), "right": len(op_of(b).segments)})
        out["operand_groups"] = groups
    slots = wiring(view, root.left, root.right)
    if slots:
        roles = [operand_role(op_of(a), i, view.vl) for i, _ in slots]
        operands: List[Dict[str, object]] = [
            {"role": role, "left": producer_name(view, L, root.left, i), "right": producer_name(view, R, root.right, j)}
            for role, (i, j) in zip(roles, slots)]
        out["operands"] = operands
        if is_swap(view, root.left, root.right, slots):
            # the same producers, crossed: say so (their op names alone read as "no change")
            out["swapped"] = roles
            operands[0]["swapped_with"] = roles[1]
            operands[1]["swapped_with"] = roles[0]
    return out

# --- unpaired nodes -------------------------------------------------------------------


def explain(view: PairView, la: str, lb: str, depth: int = 12) -> List[Finding]:
    """Why two producers that are not paired with each other differ: their own findings, else
    (equal labels) the first differing pair found walking their operands in lock step."""
    seen = set()
    queue = deque([(la, lb, 0)])
    while queue:
        x, y, d = queue.popleft()
        if (x, y) in seen or d > depth:
            continue
        seen.add((x, y))
        a, b = view.L.nodes[x], view.R.nodes[y]
        if a.kind != "op" or b.kind != "op":
            if a.kind != b.kind or (a.kind in ("arg", "barg") and view.m.l2r.get(x) != y):
                return [kind_finding(view, "signature" if "arg" in (a.kind, b.kind) else "arith", x, y)]
            continue
        fs = pair_findings(view, x, y)
        if fs:
            return fs
        for i, j in operand_slots(view, a, b):
            sx, rx, _ = a.operands[i]
            sy, ry, _ = b.operands[j]
            if sx and sy and (view.m.l2r.get(sx) != sy or rx != ry):
                queue.append((sx, sy, d + 1))
    return []


def rewire_finding(view: PairView, lu: str, ru: str, i: int, j: int) -> Finding:
    a, b = view.L.nodes[lu], view.R.nodes[ru]
    role = operand_role(op_of(a), i, view.vl)
    la, lb = a.operands[i][0], b.operands[j][0]
    old, new = operand_text(view, view.L, view.lt, lu, i), operand_text(view, view.R, view.rt, ru, j)
    head = wording.operand(op_of(a).name, role, i, old, new)

    def found(category: str, message: str) -> Finding:
        return Finding(category, message, kind="rewired", op=op_of(a).name, attribute=role, old=old, new=new,
                       slots=((i, j),))
    converted = conversion(view, la, lb)
    if converted:
        return found(slot_category(op_of(a).name, role), wording.because(head, [converted]))
    if la and lb and view.L.nodes[la].kind == view.R.nodes[lb].kind == "op" and \
            view.L.nodes[la].name == view.R.nodes[lb].name:
        fs = explain(view, la, lb)
        if fs:
            cat = fs[0].category
            if cat in ("constant", "arith", "attribute"):  # the slot says more than the value
                if op_of(a).name == "for" and role in BOUND_ROLES:
                    cat = "control_flow"
                elif op_of(a).name in MEMORY_OPS and role.startswith("index"):
                    cat = "memory"
            return found(cat, wording.because(head, [f.message for f in fs]))
    return found(slot_category(op_of(a).name, role), head)


def conversion(view: PairView, la: Optional[str], lb: Optional[str]) -> Optional[str]:
    """``rounded to tf32 on the right (ftof f32 -> tf32)`` when one side's producer at a slot
    is an element-type conversion, found on that side only, of the other side's value."""
    if la is None or lb is None:
        return None
    for side, g, nid, other, back in (("right", view.R, lb, la, view.m.r2l), ("left", view.L, la, lb, view.m.l2r)):
        n = g.nodes[nid]
        if n.kind != "op" or n.name not in ("ftof", "itof", "ftoi", "exti", "trunci") or nid in back:
            continue
        src = n.operands[0][0] if n.operands else None
        if src is None or back.get(src) != other:
            continue
        a, b = op_of(n).operands[0].type, op_of(n).results[0].type
        ea, eb = getattr(a, "element", a), getattr(b, "element", b)
        ta, tb = fmt_type(ea), fmt_type(eb)
        width = getattr(ea, "width", 0), getattr(eb, "width", 0)
        return wording.conversion(side, n.name, ta, tb, n.name == "ftof" and (width[1] < width[0] or tb == "tf32"))
    return None


def describe_node(view: PairView, g: FunctionGraph, text: FunctionText, nid: str) -> str:
    n = g.nodes[nid]
    if n.kind == "arg":
        return wording.entry_argument(n.arg_index, text.names.get(value_of(n).vid, '?'), fmt_type(value_of(n).type))
    if n.kind == "barg":
        return wording.region_argument_typed(text.names.get(value_of(n).vid, '?'), fmt_type(value_of(n).type))
    op = op_of(n)
    if op.name == "constant":
        return f"constant {attr_text(op.attributes.get('value'))}"
    if op.name == "assume":
        return wording.assume(attr_text(op.attributes.get('predicate')),
                              operand_text(view, g, text, nid, 0) if op.operands else '?')
    if op.name in MEMORY_OPS:
        from ..match.address import address_root
        root = address_root(g, nid)
        return wording.op_at(op.name, nid, text.names.get(value_of(g.nodes[root]).vid, root) if root else None)
    return wording.op_at(op.name, nid)
