"""Turn a node mapping into ROOT differences: what differs, where it starts, what it affects.

A node is *dirty* when it is unpaired or its pair differs (label, result types, wiring). A
dirty pair is a *root* when some difference is its own: a changed name, attribute, combiner or
operand grouping; result types that changed although every input is clean; an operand wired to
a different (clean) value. Everything dirty downstream of a root that is explained by its inputs
is listed as ``affected``. Unpaired nodes are grouped into components; a left and a right
component feeding the same slot of a paired user are one replacement ("addf rhs: <f32: 1e-05>
-> %arg13"); a one-sided component is one insertion/deletion reported at its sink.
"""
from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import replace
from typing import Dict, List, Optional, Set, Tuple

from ..graph import FunctionGraph, Node, combiner_expression, input_op_id
from ..ir import DenseElements, TileType
from ..match.opsets import MEMORY_OPS as _TABLE_MEMORY_OPS, ops_with
from ..match.operands import aligned_operand_pairs
from ..ir.types import TensorViewType, VIEW_TYPES
from ..normalize.canon import attr_key, attr_text, fmt_type
from ..normalize.util import has_trait, operand_role
from . import wording
from .describe import FunctionText, location_record, location_text
from .result import Difference, OpRef
from .folds import FoldContext, apply_folds
from .roots import Finding, Root
from .specialization import flag_side, overflow_keys
from .wording import constant_change

MEMORY_OPS = _TABLE_MEMORY_OPS  # the op table's memory trait
VIEW_OPS = frozenset({"make_partition_view", "make_strided_view", "make_gather_scatter_view", "make_tensor_view",
                      "get_index_space_shape", "get_tensor_shape", "join_tokens", "make_token"})
REDUCTION_OPS = ops_with("combiner")
MMA_OPS = ops_with("mma")
_EFFECTS = ops_with("effect")
# control flow and the terminators that end its regions (return ends the entry: structure)
CONTROL_OPS = ops_with("control_flow") | (ops_with("terminator") - {"return"})
_BOUND_ROLES = ("lowerBound", "upperBound", "step")


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


_Root = Root


def _slots_agree(a: Node, b: Node, l2r) -> bool:
    """Whether two ops' operands agree slot by slot as written: same operand groups, and each
    operand produced by a pair of the mapping (same result index)."""
    return len(a.operands) == len(b.operands) and a.op.segments == b.op.segments and \
        all(sa is not None and l2r.get(sa) == sb and ra == rb for (sa, ra, _), (sb, rb, _) in zip(a.operands, b.operands))


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
        if getattr(lt, "dim_map", None) != getattr(rt, "dim_map", None):
            return found("memory", "dim_map", str(list(lt.dim_map)), str(list(rt.dim_map)))
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


class Classifier:
    def __init__(self, L: FunctionGraph, R: FunctionGraph, mapping, ltext: FunctionText, rtext: FunctionText,
                 version_l, version_r, commutative: bool = True, unpaired=None):
        self.L, self.R, self.m = L, R, mapping
        self._unpaired = unpaired  # (left, right) unpaired node ids in program order, when the matcher kept them
        self.commutative = commutative
        self.lt, self.rt = ltext, rtext
        self.vl, self.vr = version_l, version_r
        self.pinned: Set[Tuple[str, int]] = set()  # (side, argument index) read as a constant (compare/pins.py)
        self._index = None  # (left, right) GraphIndex, built when a message needs expressions

    # --- per pair -----------------------------------------------------------------------
    def pair_findings(self, l: str, r: str) -> List[Finding]:
        a, b = self.L.nodes[l], self.R.nodes[r]
        out: List[Finding] = []
        if a.kind in ("arg", "barg") or b.kind in ("arg", "barg"):
            if a.kind != b.kind:
                out.append(self._kind_finding("signature" if "arg" in (a.kind, b.kind) else "structure", l, r))
            elif a.value.type != b.value.type:
                if a.kind == "arg":
                    old, new = fmt_type(a.value.type), fmt_type(b.value.type)
                    out.append(Finding("signature", wording.argument_type(a.arg_index, self.lt.names.get(a.value.vid),
                                                                          old, new),
                                       kind="argument_type", attribute=str(a.arg_index), old=old, new=new))
                else:
                    f = _type_findings("barg", a.value.type, b.value.type,
                                       wording.region_argument(self.lt.names.get(a.value.vid, '?')), "argument_type")
                    f.category = "control_flow" if f.category == "type" else f.category
                    out.append(f)
            return out
        oa, ob = a.op, b.op
        if a.compare_key == b.compare_key:
            # equal canonical labels: same name, attributes, operand groups, result types and
            # region signatures (combiners included); only the placement can still differ
            if not self._same_parent(a, b) and not has_trait(oa, "pure"):
                out.append(self._placement_finding(a, b))
            return out
        if oa.name != ob.name:
            fam = family(oa.name)
            cat = fam if fam == family(ob.name) else ("arith" if "arith" in (fam, family(ob.name)) else fam)
            out.append(Finding(cat, wording.op_name(oa.name, ob.name), kind="op_name", op=oa.name,
                               old=oa.name, new=ob.name))
            return out
        aa, ba = oa.attributes, ob.attributes  # public keys only, left's order then right's new ones
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
                    out.append(self._flag_finding(l, oa.name, key, va, vb))
                else:
                    out.append(Finding(_attr_category(oa.name, key), wording.attribute(oa.name, key, old, new),
                                       kind="attribute", op=oa.name, attribute=key, old=old, new=new))
        if oa.name in REDUCTION_OPS:
            ca = [combiner_expression(x) for reg in oa.regions for x in reg.blocks]
            cb = [combiner_expression(x) for reg in ob.regions for x in reg.blocks]
            if ca != cb:
                out.append(Finding("reduction", wording.combiner(oa.name, ca, cb), kind="combiner", op=oa.name,
                                   old=";".join(ca), new=";".join(cb)))
        if oa.segments != ob.segments:
            cat = "memory" if oa.name in MEMORY_OPS else family(oa.name)
            out.append(Finding(cat if cat != "arith" else "structure",
                               wording.operand_groups(oa.name, _group_names(oa, self.vl), oa.segments, ob.segments),
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
        if not has_trait(oa, "pure") and not self._same_parent(a, b):
            out.append(self._placement_finding(a, b))
        if oa.name == "make_tensor_view" and any(f.category == "specialization" for f in out):
            # a size fixed in the type instead of passed: the dynamic operand it drops is part of it
            out = [replace(f, category="specialization") if f.category == "memory" else f for f in out]
            out.sort(key=lambda f: f.category != "specialization")
        return out

    def _flag_finding(self, l: str, name: str, key: str, va, vb) -> Finding:
        """An overflow flag on one side (or another one): an assumption, not another computation
        (compare/specialization.py)."""
        message = wording.flag(name, self._node_value(self.L, self.lt, l), flag_side(va, vb), key, va, vb)
        return Finding("specialization", message, kind="flag", op=name, attribute=key,
                       old=wording.flag_value(va), new=wording.flag_value(vb))

    def _kind_finding(self, category: str, l: str, r: str) -> Finding:
        """An argument against an op or another kind of argument (its value's words on each side)."""
        old, new = self._node_value(self.L, self.lt, l), self._node_value(self.R, self.rt, r)
        return Finding(category, wording.values(old, new), kind="argument_kind", old=old, new=new)

    def _placement_finding(self, a: Node, b: Node) -> Finding:
        wl, wr = self._where(self.L, a), self._where(self.R, b)
        return Finding("control_flow", wording.placement(a.op.name, wl, wr), kind="placement", op=a.op.name,
                       old=wl, new=wr)

    def _same_parent(self, a: Node, b: Node) -> bool:
        if a.parent is None or b.parent is None:
            return a.parent is None and b.parent is None
        return self.m.l2r.get(a.parent) == b.parent

    @staticmethod
    def _where(g: FunctionGraph, n: Node) -> str:
        return wording.where(None if n.parent is None else g.nodes[n.parent].name, n.parent)

    def _slots(self, a: Node, b: Node):
        """Operand positions of a left and a right op to compare (see aligned_operand_pairs)."""
        return aligned_operand_pairs(a, b, self.m.l2r, self.commutative)

    def wiring(self, l: str, r: str) -> List[Tuple[int, int]]:
        """Operand slots whose producers are not paired with each other."""
        a, b = self.L.nodes[l], self.R.nodes[r]
        if _slots_agree(a, b, self.m.l2r):
            return []  # (the common case) no alignment can do better
        bad = []
        # with commutative-operands on, the commutative positions compare crossed when that fits
        # the pairs better (the sort order follows the operands' keys, which upstream changes move)
        for i, j in self._slots(a, b):
            sa, ra, _ = a.operands[i]
            sb, rb, _ = b.operands[j]
            if sa is None or sb is None or self.m.l2r.get(sa) != sb or ra != rb:
                bad.append((i, j))
        if a.op.name == "join_tokens" and a.op.name == b.op.name:
            # (an unpaired producer maps to "" so that the two multisets still sort)
            lset = sorted((self.m.l2r.get(s) or "", r) for s, r, _ in a.operands)
            rset = sorted((s or "", r) for s, r, _ in b.operands)
            if lset == rset:
                return []
        return bad

    # --- texts --------------------------------------------------------------------------
    def _node_value(self, g: FunctionGraph, text: FunctionText, nid: str, res: int = 0) -> str:
        n = g.nodes[nid]
        if n.kind in ("arg", "barg"):
            name = text.names.get(n.value.vid, nid)
            return f"{name} (entry argument {n.arg_index})" if n.kind == "arg" else name
        if res < len(n.op.results):
            return text.value(n.op.results[res].vid)
        return nid

    def _operand_text(self, g, text, nid, k) -> str:
        n = g.nodes[nid]
        v = n.op.operands[k]
        src = n.operands[k][0]
        if src is not None and g.nodes[src].kind == "op" and g.nodes[src].op.name != "constant" \
                and v.vid not in text.names:
            return f"{g.nodes[src].name} {src}"
        return text.value(v.vid)

    @staticmethod
    def _producer_text(g: FunctionGraph, nid: str, k: int, name: str) -> str:
        src, res, _ = g.nodes[nid].operands[k]
        if src is None:
            return name
        n = g.nodes[src]
        what = n.name if n.kind == "op" else ("entry argument" if n.kind == "arg" else "region argument")
        return f"{name} ({what} {input_op_id(src)}{'#' + str(res) if res else ''})"

    def opref(self, side: str, nid: Optional[str]) -> Optional[OpRef]:
        if nid is None:
            return None
        g, text = (self.L, self.lt) if side == "left" else (self.R, self.rt)
        n = g.nodes[nid]
        if n.kind == "arg":
            sig = f"{text.names.get(n.value.vid, nid)}: {fmt_type(n.value.type)}"
            return OpRef(nid, f"entry @{g.function.name} argument {sig}", location_text(None))
        if n.kind == "barg":
            return OpRef(nid, f"{text.names.get(n.value.vid, nid)}: {fmt_type(n.value.type)}", None)
        base = input_op_id(nid)
        orig = text.ops.get(base)
        if orig is None:
            return OpRef(base, n.name, None)
        if n.kind == "op" and n.name == "constant" and orig.name in ("broadcast", "reshape"):
            # a constant broadcast (splat-constants): show the constant as written, not the broadcast
            base, orig = self._constant_source(text, base, orig)
        return OpRef(base, text.op_line(orig, base), location_text(orig), location_record(orig))

    @staticmethod
    def _constant_source(text: FunctionText, base: str, op):
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
    def run(self) -> List[_Root]:
        L, R, m = self.L, self.R, self.m
        findings: Dict[str, List[Finding]] = {}
        wires: Dict[str, List[Tuple[int, int]]] = {}
        dirty_l: Set[str] = set()
        dirty_r: Set[str] = set()
        l2r, rnodes = m.l2r, R.nodes
        for a in L.node_list:
            l = a.nid
            r = l2r.get(l)
            if r is None:
                dirty_l.add(l)
                continue
            b = rnodes[r]
            if a.kind == "op" and b.kind == "op" and a.compare_key == b.compare_key and a.parent is None and b.parent is None \
                    and _slots_agree(a, b, l2r):
                continue  # (the common case, what pair_findings and wiring would find: nothing)
            f = self.pair_findings(l, r)
            w = self.wiring(l, r) if a.kind == "op" and b.kind == "op" else []
            if f or w:
                findings[l], wires[l] = f, w
                dirty_l.add(l)
                dirty_r.add(r)
        dirty_r.update(self._unpaired_r())

        def inputs_dirty(l: str) -> bool:
            a, b = L.nodes[l], R.nodes[m.l2r[l]]
            if a.kind == "barg":
                return a.parent in dirty_l
            return any(s in dirty_l for s, _, _ in a.operands if s) or \
                any(s in dirty_r for s, _, _ in b.operands if s)

        roots: List[_Root] = []
        root_of_left: Dict[str, _Root] = {}
        root_of_right: Dict[str, _Root] = {}
        for l in findings:  # (in program order, as found)
            r = m.l2r[l]
            own = [f for f in findings[l] if f.own]
            types = [f for f in findings[l] if not f.own]
            explained = inputs_dirty(l)
            msgs: List[Finding] = list(own)
            if types and not explained:
                msgs.extend(types)
            a, b = L.nodes[l], R.nodes[r]
            unexplained_wires = []
            for i, j in wires[l]:
                sa, sb = a.operands[i][0], b.operands[j][0]
                if (sa is not None and sa in dirty_l) or (sb is not None and sb in dirty_r):
                    continue
                unexplained_wires.append((i, j))
            if unexplained_wires:
                msgs.append(self._wiring_finding(l, r, unexplained_wires))
            if msgs:
                msgs = self._refine_constant(l, msgs)
                # an overflow flag changed together with anything else: the other change names
                # the root's category (the flag alone is an assumption, the op with it is not)
                msgs.sort(key=lambda f: f.kind == "flag")
                root = _Root(l, r, msgs[0].category, wording.joined(f.message for f in msgs),
                             states={f.key for f in msgs})
                roots.append(root)
                root_of_left[l] = root
                root_of_right[r] = root

        roots.extend(self._unpaired_groups(dirty_l, dirty_r, root_of_left, root_of_right))
        self._assign_affected(roots, dirty_l, dirty_r, root_of_left, root_of_right)
        return apply_folds("roots", FoldContext(self, dirty_l, dirty_r), roots)

    def _wiring_finding(self, l: str, r: str, slots) -> Finding:
        a = self.L.nodes[l]
        name = a.op.name
        if self._is_swap(l, r, slots):
            (i1, j1), (i2, j2) = slots
            roles = (operand_role(a.op, i1, self.vl), operand_role(a.op, i2, self.vl))
            left = (self._operand_text(self.L, self.lt, l, i1), self._operand_text(self.L, self.lt, l, i2))
            right = (self._operand_text(self.R, self.rt, r, j1), self._operand_text(self.R, self.rt, r, j2))
            return Finding(self._slot_category(name, roles[0]), wording.swap(name, roles, left, right), kind="swap",
                           op=name, attribute=roles[0], old=", ".join(left), new=", ".join(right), slots=tuple(slots))
        parts = []
        cat = None
        for i, j in slots:
            role = operand_role(a.op, i, self.vl)
            cat = cat or self._slot_category(name, role)
            lt, rt = self._operand_text(self.L, self.lt, l, i), self._operand_text(self.R, self.rt, r, j)
            if lt == rt:  # each side names its own values: say what produces them
                lt, rt = self._producer_text(self.L, l, i, lt), self._producer_text(self.R, r, j, rt)
            parts.append(wording.operand(name, role, i, lt, rt))
        return Finding(cat or "arith", wording.joined(parts), kind="wiring", op=name, slots=tuple(slots))

    def _is_swap(self, l: str, r: str, slots) -> bool:
        """Whether the two miswired slots hold each other's inputs (a swap, not two changes)."""
        a, b = self.L.nodes[l], self.R.nodes[r]
        if len(slots) != 2 or len(a.operands) < 2:
            return False
        (i1, j1), (i2, j2) = slots
        sa1, sa2 = a.operands[i1][:2], a.operands[i2][:2]
        sb1, sb2 = b.operands[j1][:2], b.operands[j2][:2]
        m = self.m.l2r
        return bool(sa1[0] and sa2[0] and (m.get(sa1[0]), sa1[1]) == sb2 and (m.get(sa2[0]), sa2[1]) == sb1)

    @staticmethod
    def _slot_category(name: str, role: str) -> str:
        if name in MEMORY_OPS or name in VIEW_OPS:
            return "memory"
        if name in CONTROL_OPS:
            return "control_flow"
        return family(name) if family(name) not in ("constant", "structure") else "arith"

    def _refine_constant(self, l: str, msgs: List[Finding]) -> List[Finding]:
        """A changed constant used only as loop bounds is a control-flow change; used only as view
        indices, a memory change. The message names the slot."""
        a = self.L.nodes[l]
        if a.kind != "op" or a.op.name != "constant" or msgs[0].category != "constant":
            return msgs
        roles = []
        for u, k, _ in a.users:
            un = self.L.nodes[u]
            if un.kind != "op":
                return msgs
            roles.append((un.op.name, operand_role(un.op, k, self.vl)))
        if roles and all(n == "for" and r in _BOUND_ROLES for n, r in roles):
            slots = ", ".join(sorted({r for _, r in roles}))
            return [replace(msgs[0], category="control_flow", message=wording.in_slot(f"for {slots}", msgs[0].message))] \
                + msgs[1:]
        if roles and all(n in MEMORY_OPS and r.startswith("index") for n, r in roles):
            slots = ", ".join(sorted({f'{n} {r}' for n, r in roles}))
            return [replace(msgs[0], category="memory", message=wording.in_slot(slots, msgs[0].message))] + msgs[1:]
        return msgs

    # --- machine-readable specifics -----------------------------------------------------------
    def _op_name(self, g: FunctionGraph, nid: Optional[str]) -> Optional[str]:
        return None if nid is None else g.nodes[nid].name

    def _producer_name(self, g: FunctionGraph, nid: str, k: int) -> Optional[str]:
        src = g.nodes[nid].operands[k][0] if k < len(g.nodes[nid].operands) else None
        return None if src is None else g.nodes[src].name

    def detail(self, root: _Root) -> Dict[str, object]:
        """What a root difference is about, as data (Difference.detail; docs/json-format.md):
        the kind of root, the op names on each side, the attributes that differ, and the operand
        slots whose inputs differ with the ops producing them. Op names and schema roles only, no
        value names or op ids, so it stays the same when unrelated code moves."""
        L, R = self.L, self.R
        out: Dict[str, object] = {"kind": root.kind, "left_op": self._op_name(L, root.left),
                                  "right_op": self._op_name(R, root.right), **root.extra}
        if root.slot is not None:
            user, k = root.slot
            un = L.nodes[user]
            if un.kind == "op":
                out["slot"] = {"user": un.name, "role": operand_role(un.op, k, self.vl)}
        if root.left is None or root.right is None:
            return out
        a, b = L.nodes[root.left], R.nodes[root.right]
        if a.kind != "op" or b.kind != "op" or a.name != b.name:
            return out
        if a.name == "assume":
            from .specialization import stronger
            side = stronger(a.op.attributes.get("predicate"), b.op.attributes.get("predicate"))
            out["assumes_more"] = side or "neither"
        elif root.category == "specialization":
            sides = {flag_side(a.op.attributes.get(k), b.op.attributes.get(k)) for k in overflow_keys(a.name)} - {"same"}
            if sides and None not in sides:
                out["assumes_more"] = sides.pop() if len(sides) == 1 else "neither"
        aa, ba = a.op.attributes, b.op.attributes
        keys = [k for k in aa if k[:1] != "_"] + [k for k in ba if k[:1] != "_" and k not in aa]
        changed = [k for k in keys if (k in aa) != (k in ba) or attr_key(aa[k]) != attr_key(ba[k])]
        if changed:
            out["attributes"] = changed
        if a.op.segments != b.op.segments:
            names = _group_names(a.op, self.vl)
            out["operand_groups"] = [{"group": names[i] if i < len(names) else str(i), "left": x, "right": y}
                                     for i, (x, y) in enumerate(zip(a.op.segments, b.op.segments)) if x != y]
            if len(a.op.segments) != len(b.op.segments):
                out["operand_groups"].append({"group": "(count)", "left": len(a.op.segments),
                                              "right": len(b.op.segments)})
        slots = self.wiring(root.left, root.right)
        if slots:
            roles = [operand_role(a.op, i, self.vl) for i, _ in slots]
            out["operands"] = [{"role": role, "left": self._producer_name(L, root.left, i),
                                "right": self._producer_name(R, root.right, j)}
                               for role, (i, j) in zip(roles, slots)]
            if self._is_swap(root.left, root.right, slots):
                # the same producers, crossed: say so (their op names alone read as "no change")
                out["swapped"] = roles
                out["operands"][0]["swapped_with"] = roles[1]
                out["operands"][1]["swapped_with"] = roles[0]
        return out

    # --- unpaired nodes -------------------------------------------------------------------
    def _unpaired_l(self):
        if self._unpaired is not None:
            return self._unpaired[0]
        return [n for n in self.L.order if n not in self.m.l2r]

    def _unpaired_r(self):
        if self._unpaired is not None:
            return self._unpaired[1]
        return [n for n in self.R.order if n not in self.m.r2l]

    def _components(self, g: FunctionGraph, unpaired: Set[str]) -> List[List[str]]:
        seen: Set[str] = set()
        comps = []
        for start in g.order:
            if start not in unpaired or start in seen:
                continue
            comp, queue = [], deque([start])
            seen.add(start)
            while queue:
                x = queue.popleft()
                comp.append(x)
                n = g.nodes[x]
                nbrs = [s for s, _, _ in n.operands if s] + [u for u, _, _ in n.users] + \
                       [c for c in n.children] + ([n.parent] if n.parent else [])
                for y in nbrs:
                    if y in unpaired and y not in seen:
                        seen.add(y)
                        queue.append(y)
            comps.append(sorted(comp, key=g.position_of.__getitem__) if len(comp) < 64 else comp)
        return comps

    def _unpaired_groups(self, dirty_l, dirty_r, root_of_left, root_of_right) -> List[_Root]:
        L, R, m = self.L, self.R, self.m
        ul, ur = set(self._unpaired_l()), set(self._unpaired_r())
        lcomps = self._components(L, ul)
        rcomps = self._components(R, ur)
        rcomp_of = {n: i for i, c in enumerate(rcomps) for n in c}
        # union left and right components that feed the same slot of a paired user
        parent = {("l", i): ("l", i) for i in range(len(lcomps))}
        parent.update({("r", i): ("r", i) for i in range(len(rcomps))})

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        slot_pairs: Dict[tuple, Tuple[str, str, str, int]] = {}
        for ci, comp in enumerate(lcomps):
            for x in comp:
                for u, k, _ in L.nodes[x].users:
                    ru = m.l2r.get(u)
                    if ru is None:
                        continue
                    for i, j in self._slots(L.nodes[u], R.nodes[ru]):
                        if i != k:
                            continue
                        src = R.nodes[ru].operands[j][0]
                        if src in rcomp_of:
                            a, b = find(("l", ci)), find(("r", rcomp_of[src]))
                            if a != b:
                                parent[a] = b
                            slot_pairs.setdefault(find(("l", ci)), (x, src, u, k))
        groups: Dict[tuple, Tuple[List[str], List[str]]] = defaultdict(lambda: ([], []))
        for i, c in enumerate(lcomps):
            groups[find(("l", i))][0].extend(c)
        for i, c in enumerate(rcomps):
            groups[find(("r", i))][1].extend(c)
        # slot info keyed by final representative
        slots = {}
        for key, v in slot_pairs.items():
            slots.setdefault(find(key), v)

        roots = []
        for key, (lnodes, rnodes) in groups.items():
            if lnodes and rnodes:
                ls = self._sink(L, set(lnodes))
                rs = self._sink(R, set(rnodes))
                slot = slots.get(key)
                if slot is not None:
                    ls, rs = slot[0], slot[1]
                fs = self.pair_findings(ls, rs) if L.nodes[ls].kind == R.nodes[rs].kind == "op" and \
                    L.nodes[ls].name == R.nodes[rs].name else []
                lv = self._describe_node(L, self.lt, ls)
                rv = self._describe_node(R, self.rt, rs)
                msg = wording.values(lv, rv)
                if slot is not None:
                    u, k = slot[2], slot[3]
                    un = L.nodes[u]
                    if un.kind == "op":
                        msg = wording.in_slot(f"{un.op.name} {operand_role(un.op, k, self.vl)}", msg)
                cat = self._replacement_category(ls, rs, fs, slot)
                root = _Root(ls, rs, cat, msg, kind="replaced", slot=(slot[2], slot[3]) if slot else None)
                root.affected_left = set(lnodes) - {ls}
                root.affected_right = set(rnodes) - {rs}
            else:
                side_l = bool(lnodes)
                g, nodes = (L, lnodes) if side_l else (R, rnodes)
                if all(g.nodes[x].kind == "arg" and not g.nodes[x].users for x in nodes):
                    continue  # an argument nothing reads: part of the calling-convention root
                root = self._one_sided_root(side_l, nodes, root_of_left, root_of_right)
                if root is None:
                    continue
            roots.append(root)
        roots.extend(self._hidden_accesses(roots))
        return apply_folds("groups", FoldContext(self, dirty_l, dirty_r), roots)

    @staticmethod
    def _feeds(g: FunctionGraph, nid: str, target: Optional[str]) -> bool:
        """Whether a result of ``nid`` reaches ``target`` through users."""
        if target is None:
            return False
        seen, queue = {nid}, deque([nid])
        while queue:
            for u, _, _ in g.nodes[queue.popleft()].users:
                if u == target:
                    return True
                if u not in seen:
                    seen.add(u)
                    queue.append(u)
        return False

    def _hidden_accesses(self, roots: List[_Root]) -> List[_Root]:
        """Every memory access found on one side only is a root of its own: one that a group's
        root lists without standing on it (a raw-pointer gather and scatter sharing their index
        ops are one component, reported at the gather) leaves that list and becomes an
        insertion/deletion, for the folds to pair or explain. Accesses inside a region op found on
        one side only stay that region's, and so does a read whose value the root's own op
        computes with (the new input of a rewired user)."""
        out = []
        for side_l in (True, False):
            g = self.L if side_l else self.R
            own = {(r.left if side_l else r.right) for r in roots}
            for nid in (self._unpaired_l() if side_l else self._unpaired_r()):
                n = g.nodes[nid]
                if n.kind != "op" or n.name not in MEMORY_OPS or nid in own:
                    continue
                p = n.parent
                while p is not None and p in (self.m.l2r if side_l else self.m.r2l):
                    p = g.nodes[p].parent
                if p is not None:
                    continue  # inside a one-sided region op: that region's root
                holders = [r for r in roots if nid in (r.affected_left if side_l else r.affected_right)]
                if not holders or any(self._feeds(g, nid, r.left if side_l else r.right) for r in holders):
                    continue  # an input the holder's own op computes with: the holder's
                for h in holders:
                    (h.affected_left if side_l else h.affected_right).discard(nid)
                text = self.lt if side_l else self.rt
                desc = self._describe_node(g, text, nid)
                root = _Root(nid if side_l else None, None if side_l else nid, family(n.name),
                             wording.only_on(desc, side_l), kind="only_left" if side_l else "only_right")
                out.append(root)
        return out

    def _one_sided_root(self, side_l: bool, nodes, root_of_left, root_of_right) -> Optional[_Root]:
        """The root of a one-sided component: a rewired input of a paired user, else an
        insertion/deletion at its sink (None: part of a root already at that user)."""
        L, R = self.L, self.R
        g, text = (L, self.lt) if side_l else (R, self.rt)
        rewired = self._rewired_user(side_l, set(nodes))
        if rewired is not None:
            lu, ru, finding = rewired
            existing = root_of_left.get(lu)
            if existing is not None:  # the user is already a root: this is part of it, and it says so
                (existing.affected_left if side_l else existing.affected_right).update(nodes)
                if existing.category == "specialization" and finding.category != "specialization":
                    # an assumption at the user (an overflow flag, a predicate) and a new input:
                    # the input is another computation, and it names the root
                    existing.category = finding.category
                    existing.message = wording.joined((finding.message, existing.message))
                    existing.states.add(finding.key)
                elif existing.kind == "rewired" and finding.key not in existing.states:
                    # another input of the user rewired too (both mma inputs rounded to tf32):
                    # said at this root, not left to its list (an attribute change at the user
                    # states its inputs' formula when the proof step shows both cones)
                    existing.message = wording.joined((existing.message, finding.message))
                    existing.states.add(finding.key)
                return None
            root = _Root(lu, ru, finding.category, finding.message, kind="rewired", states={finding.key})
            (root.affected_left if side_l else root.affected_right).update(nodes)
            root_of_left[lu] = root
            root_of_right[ru] = root
            return root
        sink = self._sink(g, set(nodes))
        n = g.nodes[sink]
        desc = self._describe_node(g, text, sink)
        cat = family(n.name) if n.kind == "op" else ("signature" if n.kind == "arg" else "control_flow")
        msg = wording.only_on(desc, side_l)
        root = _Root(sink if side_l else None, None if side_l else sink, cat, msg,
                     kind="only_left" if side_l else "only_right")
        if side_l:
            root.affected_left = set(nodes) - {sink}
        else:
            root.affected_right = set(nodes) - {sink}
        return root

    def _rewired_user(self, side_l: bool, nodes: Set[str]):
        """A one-sided component that feeds a slot of a paired user, where the other side's user
        takes a PAIRED value instead (and the component does not merely wrap that value, as an
        inserted ``assume`` would): the user was rewired; the component is what the old (or new)
        input needed. Returns (left user, right user, finding) or None."""
        g, og = (self.L, self.R) if side_l else (self.R, self.L)
        to_other = self.m.l2r if side_l else self.m.r2l
        order = g.position_of
        consumed = {src for n in nodes for src, _, _ in g.nodes[n].operands if src}
        for x in sorted(nodes, key=order.get):
            for u, k, _res in g.nodes[x].users:
                ou = to_other.get(u)
                if ou is None or g.nodes[u].kind != "op" or og.nodes[ou].kind != "op":
                    continue
                a, b = (g.nodes[u], og.nodes[ou]) if side_l else (og.nodes[ou], g.nodes[u])
                for i, j in self._slots(a, b):
                    mine, theirs = (i, j) if side_l else (j, i)
                    if mine != k:
                        continue
                    oprod = og.nodes[ou].operands[theirs][0]
                    if oprod is None:
                        continue
                    back = (self.m.r2l if side_l else self.m.l2r).get(oprod)
                    if back is None:
                        continue
                    if back in consumed and all(g.nodes[n].name == "assume" for n in nodes):
                        continue  # an assume wrapped around the same value: a specialization fact
                    lu, ru = (u, ou) if side_l else (ou, u)
                    li, rj = (k, theirs) if side_l else (theirs, k)
                    return lu, ru, self._rewire_finding(lu, ru, li, rj)
        return None

    def explain(self, la: str, lb: str, depth: int = 12) -> List[Finding]:
        """Why two producers that are not paired with each other differ: their own findings, else
        (equal labels) the first differing pair found walking their operands in lock step."""
        seen = set()
        queue = deque([(la, lb, 0)])
        while queue:
            x, y, d = queue.popleft()
            if (x, y) in seen or d > depth:
                continue
            seen.add((x, y))
            a, b = self.L.nodes[x], self.R.nodes[y]
            if a.kind != "op" or b.kind != "op":
                if a.kind != b.kind or (a.kind in ("arg", "barg") and self.m.l2r.get(x) != y):
                    return [self._kind_finding("signature" if "arg" in (a.kind, b.kind) else "arith", x, y)]
                continue
            fs = self.pair_findings(x, y)
            if fs:
                return fs
            for i, j in self._slots(a, b):
                sx, rx, _ = a.operands[i]
                sy, ry, _ = b.operands[j]
                if sx and sy and (self.m.l2r.get(sx) != sy or rx != ry):
                    queue.append((sx, sy, d + 1))
        return []

    def _rewire_finding(self, lu: str, ru: str, i: int, j: int) -> Finding:
        a, b = self.L.nodes[lu], self.R.nodes[ru]
        role = operand_role(a.op, i, self.vl)
        la, lb = a.operands[i][0], b.operands[j][0]
        old, new = self._operand_text(self.L, self.lt, lu, i), self._operand_text(self.R, self.rt, ru, j)
        head = wording.operand(a.op.name, role, i, old, new)

        def found(category: str, message: str) -> Finding:
            return Finding(category, message, kind="rewired", op=a.op.name, attribute=role, old=old, new=new,
                           slots=((i, j),))
        conversion = self._conversion(la, lb)
        if conversion:
            return found(self._slot_category(a.op.name, role), wording.because(head, [conversion]))
        if la and lb and self.L.nodes[la].kind == self.R.nodes[lb].kind == "op" and \
                self.L.nodes[la].name == self.R.nodes[lb].name:
            fs = self.explain(la, lb)
            if fs:
                cat = fs[0].category
                if cat in ("constant", "arith", "attribute"):  # the slot says more than the value
                    if a.op.name == "for" and role in _BOUND_ROLES:
                        cat = "control_flow"
                    elif a.op.name in MEMORY_OPS and role.startswith("index"):
                        cat = "memory"
                return found(cat, wording.because(head, [f.message for f in fs]))
        return found(self._slot_category(a.op.name, role), head)

    def _conversion(self, la: Optional[str], lb: Optional[str]) -> Optional[str]:
        """``rounded to tf32 on the right (ftof f32 -> tf32)`` when one side's producer at a slot
        is an element-type conversion, found on that side only, of the other side's value."""
        if la is None or lb is None:
            return None
        for side, g, nid, other, back in (("right", self.R, lb, la, self.m.r2l), ("left", self.L, la, lb, self.m.l2r)):
            n = g.nodes[nid]
            if n.kind != "op" or n.name not in ("ftof", "itof", "ftoi", "exti", "trunci") or nid in back:
                continue
            src = n.operands[0][0] if n.operands else None
            if src is None or back.get(src) != other:
                continue
            a, b = n.op.operands[0].type, n.op.results[0].type
            ea, eb = getattr(a, "element", a), getattr(b, "element", b)
            ta, tb = fmt_type(ea), fmt_type(eb)
            width = getattr(ea, "width", 0), getattr(eb, "width", 0)
            return wording.conversion(side, n.name, ta, tb, n.name == "ftof" and (width[1] < width[0] or tb == "tf32"))
        return None

    def _replacement_category(self, ls, rs, fs, slot) -> str:
        a, b = self.L.nodes[ls], self.R.nodes[rs]
        if "arg" in (a.kind, b.kind):
            return "signature"
        if fs:
            cat = fs[0].category
        elif a.kind == b.kind == "op":
            fa, fb = family(a.name), family(b.name)
            # an assume replaced by a computation is a change in what is computed, not in what is
            # assumed: the other side's family names it
            cat = fa if fa == fb else next((c for c in ("memory", "reduction", "mma",
                                                         "control_flow", "constant") if c in (fa, fb)), "arith")
        else:
            cat = "structure"
        if slot is not None and cat in ("constant", "arith"):
            un = self.L.nodes[slot[2]]
            if un.kind == "op":
                role = operand_role(un.op, slot[3], self.vl)
                if un.op.name == "for" and role in _BOUND_ROLES:
                    return "control_flow"
                if un.op.name in MEMORY_OPS and role.startswith("index"):
                    return "memory"
        return cat

    @staticmethod
    def _sink(g: FunctionGraph, nodes: Set[str]) -> str:
        """The most significant node of a component: memory/effect ops first, then nodes none of
        whose users are in the component, latest first."""
        order = g.position_of
        cands = [n for n in nodes if not any(u in nodes for u, _, _ in g.nodes[n].users)
                 and (g.nodes[n].parent not in nodes)]
        cands = cands or list(nodes)

        def rank(n):
            node = g.nodes[n]
            eff = node.kind == "op" and (node.name in MEMORY_OPS or not has_trait(node.op, "pure"))
            return (eff, order[n])
        return max(cands, key=rank)

    def _describe_node(self, g: FunctionGraph, text: FunctionText, nid: str) -> str:
        n = g.nodes[nid]
        if n.kind == "arg":
            return wording.entry_argument(n.arg_index, text.names.get(n.value.vid, '?'), fmt_type(n.value.type))
        if n.kind == "barg":
            return wording.region_argument_typed(text.names.get(n.value.vid, '?'), fmt_type(n.value.type))
        op = n.op
        if op.name == "constant":
            return f"constant {attr_text(op.attributes.get('value'))}"
        if op.name == "assume":
            return wording.assume(attr_text(op.attributes.get('predicate')),
                                  self._operand_text(g, text, nid, 0) if op.operands else '?')
        if op.name in MEMORY_OPS:
            from ..match.address import address_root
            root = address_root(g, nid)
            return wording.op_at(op.name, nid, text.names.get(g.nodes[root].value.vid, root) if root else None)
        return wording.op_at(op.name, nid)

    def _assign_affected(self, roots, dirty_l, dirty_r, root_of_left, root_of_right) -> None:
        owned_l = {n for r in roots for n in r.affected_left} | {r.left for r in roots if r.left}
        owned_r = {n for r in roots for n in r.affected_right} | {r.right for r in roots if r.right}
        for g, dirty, owned, side in ((self.L, dirty_l, owned_l, "left"), (self.R, dirty_r, owned_r, "right")):
            order = g.position_of
            starts = sorted(((r.left if side == "left" else r.right), r) for r in roots
                            if (r.left if side == "left" else r.right))
            starts.sort(key=lambda t: order[t[0]])
            for start, root in starts:
                seeds = [start] + sorted(root.affected_left if side == "left" else root.affected_right,
                                         key=order.get)
                queue = deque(seeds)
                while queue:
                    x = queue.popleft()
                    for u, _, _ in g.nodes[x].users:
                        if u in dirty and u not in owned:
                            owned.add(u)
                            (root.affected_left if side == "left" else root.affected_right).add(u)
                            queue.append(u)
            # dirty nodes no root reaches (e.g. inside a changed region) go to the enclosing root
            for x in sorted(dirty - owned, key=order.__getitem__):  # (program order)
                if x not in owned:
                    p = g.nodes[x].parent
                    while p is not None and p not in owned:
                        p = g.nodes[p].parent
                    target = None
                    if p is not None:
                        target = (root_of_left if side == "left" else root_of_right).get(p)
                    if target is not None:
                        (target.affected_left if side == "left" else target.affected_right).add(x)
                        owned.add(x)


_CHECK_CATEGORY = {"signature": "signature", "placement": "control_flow", "order": "control_flow",
                   "memory-order": "memory"}


def checker_roots(cl: Classifier, violations, roots: List[_Root]) -> List[_Root]:
    """Roots for the checker's violations that no root of the classifier covers (the checker,
    not the classifier, decides what must be reported; the classifier only words it). An op made
    a root here leaves the ``affected`` list of the root that had swallowed it."""
    out: List[_Root] = []
    seen: Set[Tuple[Optional[str], Optional[str]]] = set()
    L, R = cl.L, cl.R
    signature = [v for v in violations if v.kind == "signature"]
    if signature:
        out.append(_calling_convention_root(cl, signature))
        violations = [v for v in violations if v.kind != "signature"]
    for v in violations:
        l = v.left if v.left in L.nodes else None
        r = v.right if v.right in R.nodes else None
        if (l, r) in seen or (l is None and r is None):
            continue
        seen.add((l, r))
        finding = None
        if l is not None and r is not None and L.nodes[l].kind == R.nodes[r].kind == "op":
            if v.kind == "operand":
                finding = cl._wiring_finding(l, r, list(v.slots))
            elif v.kind == "label":
                fs = cl.pair_findings(l, r)
                if fs:
                    finding = Finding(fs[0].category, wording.joined(f.message for f in fs), kind=fs[0].kind,
                                      op=fs[0].op)
            elif v.kind == "placement":
                finding = cl._placement_finding(L.nodes[l], R.nodes[r])
        if finding is None:
            if v.kind == "unmapped":
                g, nid = (L, l) if l is not None else (R, r)
                n = g.nodes[nid]
                text = cl.lt if l is not None else cl.rt
                finding = Finding(family(n.name) if n.kind == "op" else "signature",
                                  wording.only_on(cl._describe_node(g, text, nid), l is not None), kind="unmapped")
            else:
                n = (L.nodes[l] if l is not None else R.nodes[r])
                finding = Finding(_CHECK_CATEGORY.get(v.kind, family(n.name)), v.message, kind="checker")
        kind = "changed" if l is not None and r is not None else ("only_left" if l is not None else "only_right")
        out.append(_Root(l, r, finding.category, finding.message, kind=kind))
        for root in roots:
            root.affected_left.discard(l)
            root.affected_right.discard(r)
    return out


def tie_arguments(f, g: FunctionGraph, ties, side: str):
    """``f`` with each argument tied on ``side`` read as the argument it is tied to (Tie), and
    each extent or stride the other side fixes in its view type (a static tie) read as that
    static value in this side's view type too."""
    from ..normalize.util import rewrite_block
    from dataclasses import replace
    subst = {g.nodes[t.tied].value.vid: g.nodes[t.kept].value for t in ties if t.side == side and t.kept}
    if subst:
        body = rewrite_block(f.body, lambda op, s: None, subst)
        f = f if body is f.body else replace(f, body=body)
    static = [t for t in ties if t.side == side and t.kept is None]
    return _read_static(f, g, static) if static else f


def _read_static(f, g: FunctionGraph, ties):
    """``f`` with the tied arguments' dims of its ``make_tensor_view``s static (Tie with
    ``kept`` None: the other side's view type fixes that extent or stride to ``via``). The view
    types that hold the tensor view change with it; assumes left reading only a tied argument
    are dropped (under the tie the argument is that constant, which the tie's root states)."""
    from dataclasses import replace
    from ..ir import Block, Operation, Value
    from ..ir.types import PartitionViewType, StridedViewType
    from ..normalize.util import max_vid as max_vid_of, rewrite_block
    tied = {g.nodes[t.tied].value.vid: (t.slot[0], int(t.via)) for t in ties}
    through = dict(tied)  # assume results on a tied argument stand for it
    for op in f.body.operations:
        if op.name == "assume" and op.operands and op.operands[0].vid in through and op.results:
            through[op.results[0].vid] = through[op.operands[0].vid]
    assumes = {op.results[0].vid for op in f.body.operations if op.name == "assume" and op.results
               and op.operands and op.operands[0].vid in through}
    views: Dict[int, Value] = {}

    def fn(op, subst):
        if op.name == "make_tensor_view" and op.results and isinstance(op.results[0].type, TensorViewType):
            t = op.results[0].type
            segs = list(op.segments)
            if len(segs) != 3:
                return None
            shape, strides = list(t.shape), list(t.strides)
            shape_ops = list(op.operands[1:1 + segs[1]])
            stride_ops = list(op.operands[1 + segs[1]:1 + segs[1] + segs[2]])
            changed = False
            for kind, dims, ops_ in (("shape", shape, shape_ops), ("stride", strides, stride_ops)):
                dyn = [d for d, x in enumerate(dims) if x is None]
                keep = []
                for d, v in zip(dyn, ops_):
                    hit = through.get(v.vid)
                    if hit is not None and hit[0] == kind:
                        dims[d] = hit[1]
                        changed = True
                    else:
                        keep.append(v)
                ops_[:] = keep
            if not changed:
                return None
            nt = replace(t, shape=tuple(shape), strides=tuple(strides))
            res = Value(op.results[0].vid, nt)
            views[res.vid] = res
            subst[res.vid] = res
            return [op.replace(operands=(op.operands[0],) + tuple(shape_ops) + tuple(stride_ops),
                               segments=(1, len(shape_ops), len(stride_ops)), results=(res,))]
        if op.name in ("make_partition_view", "make_strided_view") and op.operands and op.results \
                and op.operands[0].vid in views and isinstance(op.results[0].type, (PartitionViewType, StridedViewType)):
            res = Value(op.results[0].vid, replace(op.results[0].type, tensor_view=views[op.operands[0].vid].type))
            subst[res.vid] = res
            return [op.replace(results=(res,))]
        return None

    body = rewrite_block(f.body, fn, {})
    if not views:
        return f
    # every other use of a tied argument (a loop bound, cdiv(M, 128) by hand) reads that constant
    # too: under the tie it is one (the port folded it)
    consts, subst = [], {}
    arg_of = {g.nodes[t.tied].value.vid: t for t in ties}
    top = max_vid_of(f)
    for vid, (_, value) in tied.items():
        t = arg_of[vid]
        typ = g.nodes[t.tied].value.type
        el = getattr(typ, "element", None)
        width = getattr(el, "width", 0)
        if not isinstance(typ, TileType) or typ.shape or width not in (8, 16, 32, 64):
            continue
        top += 1
        v = Value(top, typ)
        data = int(value).to_bytes(width // 8, "little", signed=True)
        consts.append(Operation("constant", (), (), (v,), {"value": DenseElements(typ, data)}, (), f.location,
                                f"{t.tied}~static"))
        for x, hit in through.items():
            if hit is tied[vid] and (x == vid or x in assumes):
                subst[x] = v
    if subst:
        body = rewrite_block(body, lambda op, s: None, subst)
    used = {v.vid for op in _walk_ops(body) for v in op.operands}
    ops = tuple(op for op in body.operations if not (op.name == "assume" and op.results[0].vid in assumes
                                                      and op.results[0].vid not in used))
    used = {v.vid for op in ops for o in _walk_ops(Block((), (op,))) for v in o.operands}
    consts = [c for c in consts if c.results[0].vid in used]
    return replace(f, body=replace(body, operations=tuple(consts) + ops))


def _walk_ops(block):
    for op in block.operations:
        yield op
        for r in op.regions:
            for b in r.blocks:
                yield from _walk_ops(b)


def pin_roots(cl: Classifier, pins) -> List[_Root]:
    """One ``specialization`` root per pinned argument (compare/pins.py): the side with the
    constant assumes the caller passes it."""
    from .pins import pin_message
    out = []
    for p in pins:
        g, text = (cl.L, cl.lt) if p.side == "left" else (cl.R, cl.rt)
        nid = next((n.nid for n in g.node_list if n.kind == "arg" and n.arg_index == p.argument), None)
        if nid is None:
            continue
        name = ("L" if p.side == "left" else "R") + text.names.get(g.nodes[nid].value.vid, nid)
        out.append(_one_sided_specialization(p.side, nid, pin_message(p, name), "pin",
                                             {"side": p.side, "argument": p.argument, "value": attr_text(p.value)}))
    return out


def _one_sided_specialization(side: str, nid: str, msg: str, key: str, fact: dict) -> _Root:
    """A ``specialization`` root at a node of ``side`` only: the other side assumes more
    (``fact`` under ``key`` says what)."""
    l, r = (nid, None) if side == "left" else (None, nid)
    return _Root(l, r, "specialization", msg, kind="only_right" if side == "left" else "only_left",
                 extra={key: fact, "assumes_more": "right" if side == "left" else "left"})


def tie_roots(cl: Classifier, ties) -> List[_Root]:
    """One ``specialization`` root per tie: the side passing one scalar assumes the other
    side's two arguments equal."""
    out = []
    for t in ties:
        g, text, other, otext = (cl.L, cl.lt, cl.R, cl.rt) if t.side == "left" else (cl.R, cl.rt, cl.L, cl.lt)
        kind, base, d = t.slot
        mine, theirs = ("L", "R") if t.side == "left" else ("R", "L")
        more = "right" if t.side == "left" else "left"
        if t.kept is None:  # static vs dynamic: the other side's view type fixes the value
            tied = g.nodes[t.tied]
            msg = (f"static vs dynamic {kind}: the {more} fixes {kind}[{d}] of the array at {t.side} argument "
                   f"{g.nodes[base].arg_index} to {t.via} in its view type, where the {t.side} passes "
                   f"{mine}{text.names.get(tied.value.vid, t.tied)} (entry argument {tied.arg_index}); "
                   f"the {t.side}'s view is read with it static")
            out.append(_one_sided_specialization(t.side, t.tied, msg, "tie", {
                "side": t.side, "argument": tied.arg_index, "static": int(t.via), "slot": kind, "dim": d}))
            continue
        tied, kept, via = g.nodes[t.tied], g.nodes[t.kept], other.nodes[t.via]
        msg = (f"{more} passes one scalar {theirs}{otext.names.get(via.value.vid, t.via)} (entry argument "
               f"{via.arg_index}) where the {t.side} has two: {kind}[{d}] of the array at {t.side} argument "
               f"{g.nodes[base].arg_index} ({mine}{text.names.get(tied.value.vid, t.tied)}) is assumed equal to "
               f"{mine}{text.names.get(kept.value.vid, t.kept)} (entry argument {kept.arg_index})")
        out.append(_one_sided_specialization(t.side, t.tied, msg, "tie", {
            "side": t.side, "argument": tied.arg_index, "equals": kept.arg_index, "slot": kind, "dim": d}))
    return out


def _calling_convention_root(cl: Classifier, violations) -> _Root:
    """Arguments paired out of position (by role): one ``signature`` root showing the mapping."""
    from ..match.arguments import argument_roles, describe_role
    L, R = cl.L, cl.R
    roles = argument_roles(L)
    parts = []
    moved = []
    first_l = first_r = None
    for l, r in sorted(cl.m.l2r.items(), key=lambda p: L.nodes[p[0]].arg_index if L.nodes[p[0]].kind == "arg" else -1):
        a, b = L.nodes[l], R.nodes.get(r)
        if a.kind != "arg" or b is None or b.kind != "arg" or a.arg_index == b.arg_index:
            continue
        first_l, first_r = first_l or l, first_r or r
        moved.append({"left": a.arg_index, "right": b.arg_index, "role": describe_role(L, l, roles)})
        parts.append(f"left {cl.lt.names.get(a.value.vid, l)} <-> right {cl.rt.names.get(b.value.vid, r)} "
                     f"({describe_role(L, l, roles)})")
    largs = [n for n in L.node_list if n.kind == "arg"]
    rargs = [n for n in R.node_list if n.kind == "arg"]

    def paired_same_type(a):
        b = R.nodes.get(cl.m.l2r.get(a.nid))
        return b is not None and b.kind == "arg" and b.value.type == a.value.type

    # arguments nothing reads (strides a view folds to 1, arguments tied to another) pair with
    # nothing: the calling convention differs in them, the computation does not
    unused_l = [a for a in largs if not a.users and a.nid not in cl.m.l2r]
    unused_r = [b for b in rargs if not b.users and b.nid not in cl.m.r2l]
    # an array only one side takes (an extra output), with the extents and strides only it reads:
    # named in this root, and not a reordering (its memory ops are roots of their own)
    extra_l = _one_sided_arrays(L, largs, cl.m.l2r)
    extra_r = _one_sided_arrays(R, rargs, cl.m.r2l)
    # and every pair of arguments, read or not, of one type (another type is another ABI)
    pure = all(paired_same_type(a) for a in largs if a not in unused_l and a not in extra_l) and \
        all(b.nid in cl.m.r2l for b in rargs if b not in unused_r and b not in extra_r) and \
        all(L.nodes[l].value.type == R.nodes[r].value.type for l, r in cl.m.l2r.items()
            if L.nodes[l].kind == "arg" and r in R.nodes and R.nodes[r].kind == "arg") and \
        all(a.value.type == b.value.type for a in unused_l for b in unused_r if a.arg_index == b.arg_index
            and ("left", a.arg_index) not in cl.pinned and ("right", b.arg_index) not in cl.pinned)
    for side, unused, text in (("left", unused_l, cl.lt), ("right", unused_r, cl.rt)):
        if unused:
            parts.append(f"{side} " + ", ".join(text.names.get(a.value.vid, a.nid) for a in unused) + " unused")
            first_l = first_l or (unused[0].nid if side == "left" else None)
            first_r = first_r or (unused[0].nid if side == "right" else None)
    for side, extra, g, text in (("left", extra_l, L, cl.lt), ("right", extra_r, R, cl.rt)):
        if extra:
            parts.append(f"{side} " + ", ".join(text.names.get(a.value.vid, a.nid) for a in extra) +
                         f" only on the {side} (" + ", ".join(describe_role(g, a.nid) for a in extra) + ")")
            first_l = first_l or (extra[0].nid if side == "left" else None)
            first_r = first_r or (extra[0].nid if side == "right" else None)
    if not parts:
        v = violations[0]
        l, r = (v.left if v.left in L.nodes else None), (v.right if v.right in R.nodes else None)
        if l is None and r is None:  # an arity change: anchor at an argument paired with nothing
            r = next((b.nid for b in R.node_list if b.kind == "arg" and b.nid not in cl.m.r2l), None)
            l = None if r else next((a.nid for a in L.node_list if a.kind == "arg"), None)
        return _Root(l, r, "signature", v.message)
    if not pure:  # not only a reordering: a plain signature difference
        return _Root(first_l, first_r, "signature", "entry arguments paired out of position: " + "; ".join(parts))
    if extra_l or extra_r:  # a reordering, and arrays one side lacks: not a calling convention alone
        return _Root(first_l, first_r, "signature",
                     "arguments in another order and arrays on one side only: " + "; ".join(parts),
                     extra={"reordered": moved, "only_left": [a.arg_index for a in extra_l],
                            "only_right": [b.arg_index for b in extra_r]})
    return _Root(first_l, first_r, "signature",
                 "calling convention: " + ("the arguments are in another order: " if moved else "") + "; ".join(parts),
                 extra={"calling_convention": moved, "unused_left": [a.arg_index for a in unused_l],
                        "unused_right": [b.arg_index for b in unused_r]})


def _one_sided_arrays(g, args, paired) -> list:
    """The used entry arguments of one side that are arrays paired with nothing, and the
    extents and strides (paired with nothing) that only such arrays read."""
    from ..match.arguments import argument_roles, argument_slots
    roles, slots = argument_roles(g), argument_slots(g)
    arrays = {a.nid for a in args if a.users and a.nid not in paired and roles[a.nid][0] == "array"}
    return [a for a in args if a.nid in arrays or (
        a.users and a.nid not in paired and slots.get(a.nid) and all(base in arrays for _, base, _ in slots[a.nid]))]


def _group_names(op, version):
    from ..normalize.util import group_names
    return group_names(op, version)


def to_differences(cl: Classifier, roots: List[_Root], function: str) -> List[Difference]:
    L, R = cl.L, cl.R
    lorder, rorder = L.position_of, R.position_of

    def key(r: _Root):
        if r.left is not None:
            return (0, lorder[r.left])
        return (1, rorder[r.right])

    out = []
    for r in sorted(roots, key=key):
        ctx = []
        anchor = (L, r.left) if r.left else (R, r.right)
        p = anchor[0].nodes[anchor[1]].parent
        while p is not None:
            ctx.append(f"{anchor[0].nodes[p].name} {p}")
            p = anchor[0].nodes[p].parent
        out.append(Difference(
            category=r.category, message=r.message,
            left=cl.opref("left", r.left), right=cl.opref("right", r.right), function=function,
            affected=tuple(sorted({input_op_id(x) for x in r.affected_left if L.nodes[x].kind == "op"},
                                  key=lambda x: lorder.get(x, 0))),
            affected_right=tuple(sorted({input_op_id(x) for x in r.affected_right if R.nodes[x].kind == "op"},
                                        key=lambda x: rorder.get(x, 0))),
            context=tuple([f"entry @{function}"] + ctx[::-1]), detail=cl.detail(r)))
    return out
