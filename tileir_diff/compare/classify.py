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
from typing import Dict, List, Optional, Set, Tuple

from ..graph import FunctionGraph, input_op_id
from ..normalize.util import has_trait, operand_role
from . import wording
from .result import Difference
from .folds import FoldContext, apply_folds
from .roots import Finding, Root
from .pair_findings import (BOUND_ROLES, MEMORY_OPS, describe_node, detail, family, opref,
                            operand_slots, pair_findings, refine_constant, rewire_finding,
                            op_of, slots_agree, wiring, wiring_finding)
from .view import PairView

_Root = Root


class Classifier:
    """The root algorithm over one pair's view: which dirty pairs are roots, how unpaired nodes
    group into replacements and insertions, what each root affects (see the module doc)."""
    def __init__(self, view: PairView):
        self.view = view
        self.L, self.R, self.m = view.L, view.R, view.m
        self.lt, self.rt = view.lt, view.rt
        self.vl = view.vl

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
                    and slots_agree(a, b, l2r):
                continue  # (the common case, what pair_findings and wiring would find: nothing)
            f = pair_findings(self.view, l, r)
            w = wiring(self.view, l, r) if a.kind == "op" and b.kind == "op" else []
            if f or w:
                findings[l], wires[l] = f, w
                dirty_l.add(l)
                dirty_r.add(r)
        dirty_r.update(self.view.unpaired_right())

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
                msgs.append(wiring_finding(self.view, l, r, unexplained_wires))
            if msgs:
                msgs = refine_constant(self.view, l, msgs)
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
        return apply_folds("roots", FoldContext(self.view, dirty_l, dirty_r), roots)

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
        ul, ur = set(self.view.unpaired_left()), set(self.view.unpaired_right())
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
                    for i, j in operand_slots(self.view, L.nodes[u], R.nodes[ru]):
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
        slots: Dict[tuple, Tuple[str, str, str, int]] = {}
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
                fs = pair_findings(self.view, ls, rs) if L.nodes[ls].kind == R.nodes[rs].kind == "op" and \
                    L.nodes[ls].name == R.nodes[rs].name else []
                lv = describe_node(self.view, L, self.lt, ls)
                rv = describe_node(self.view, R, self.rt, rs)
                msg = wording.values(lv, rv)
                if slot is not None:
                    u, k = slot[2], slot[3]
                    un = L.nodes[u]
                    if un.kind == "op":
                        msg = wording.in_slot(f"{un.name} {operand_role(op_of(un), k, self.vl)}", msg)
                cat = self._replacement_category(ls, rs, fs, slot)
                root = _Root(ls, rs, cat, msg, kind="replaced", slot=(slot[2], slot[3]) if slot else None)
                root.affected_left = set(lnodes) - {ls}
                root.affected_right = set(rnodes) - {rs}
            else:
                side_l = bool(lnodes)
                g, nodes = (L, lnodes) if side_l else (R, rnodes)
                if all(g.nodes[x].kind == "arg" and not g.nodes[x].users for x in nodes):
                    continue  # an argument nothing reads: part of the calling-convention root
                one_sided = self._one_sided_root(side_l, nodes, root_of_left, root_of_right)
                if one_sided is None:
                    continue
                root = one_sided
            roots.append(root)
        roots.extend(self._hidden_accesses(roots))
        return apply_folds("groups", FoldContext(self.view, dirty_l, dirty_r), roots)

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
            for nid in (self.view.unpaired_left() if side_l else self.view.unpaired_right()):
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
                desc = describe_node(self.view, g, text, nid)
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
        desc = describe_node(self.view, g, text, sink)
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
        for x in sorted(nodes, key=order.__getitem__):
            for u, k, _res in g.nodes[x].users:
                ou = to_other.get(u)
                if ou is None or g.nodes[u].kind != "op" or og.nodes[ou].kind != "op":
                    continue
                a, b = (g.nodes[u], og.nodes[ou]) if side_l else (og.nodes[ou], g.nodes[u])
                for i, j in operand_slots(self.view, a, b):
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
                    return lu, ru, rewire_finding(self.view, lu, ru, li, rj)
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
                role = operand_role(op_of(un), slot[3], self.vl)
                if un.name == "for" and role in BOUND_ROLES:
                    return "control_flow"
                if un.name in MEMORY_OPS and role.startswith("index"):
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
                                         key=order.__getitem__)
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


def to_differences(cl: PairView, roots: List[_Root], function: str) -> List[Difference]:
    L, R = cl.L, cl.R
    lorder, rorder = L.position_of, R.position_of

    def key(r: _Root) -> Tuple[int, int]:
        if r.left is not None:
            return (0, lorder[r.left])
        assert r.right is not None  # (a root stands on at least one side)
        return (1, rorder[r.right])

    out = []
    for r in sorted(roots, key=key):
        ctx = []
        anchor = (L, r.left) if r.left else (R, r.right)
        assert anchor[1] is not None
        p = anchor[0].nodes[anchor[1]].parent
        while p is not None:
            ctx.append(f"{anchor[0].nodes[p].name} {p}")
            p = anchor[0].nodes[p].parent
        out.append(Difference(
            category=r.category, message=r.message,
            left=opref(cl, "left", r.left), right=opref(cl, "right", r.right), function=function,
            affected=tuple(sorted({input_op_id(x) for x in r.affected_left if L.nodes[x].kind == "op"},
                                  key=lambda x: lorder.get(x, 0))),
            affected_right=tuple(sorted({input_op_id(x) for x in r.affected_right if R.nodes[x].kind == "op"},
                                        key=lambda x: rorder.get(x, 0))),
            context=tuple([f"entry @{function}"] + ctx[::-1]), detail=detail(cl, r)))
    return out
