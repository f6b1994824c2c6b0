"""formula-cascade: a formula written another way is one root."""
from __future__ import annotations

from collections import deque
from typing import List, Optional, Set

from ...normalize.util import has_trait, operand_role
from ..roots import Root
from ..pair_findings import pair_findings, wiring
from .base import Fold, FoldContext, footprint, reach


class FormulaCascade(Fold):
    """One cause, one root, for a formula written another way (the sigmoid ``x / (1 + exp(-x))``
    against ``x * (e / (1 + e))``, e = exp2(x * log2 e); ``rsqrt(v)`` against ``1 / sqrt(v)``):
    the first change (``exp -> exp2``, ``rsqrt -> sqrt``) is a root, and the two formulas meet
    again at a matched user (the ``mulf`` by the gate, the ``broadcast`` of the inverse) that
    takes, on one side, a value of that root's cascade and, on the other, a component found on
    that side only (the extra ``x * ...``, the ``divf 1, ...``). That rewired user is listed under
    the first root when it is provably downstream of it and of nothing else (``host``); the root
    then shows both sides' expressions at that slot, the whole formula. When the one-sided
    component feeds several matched users (rms_norm's inverse is broadcast for the product and
    stored as rstd), each of them must meet the root's value the same way. Anything else stays a
    root.

    Mutants it must not absorb (tests/compare/test_one_cause.py, test_folds.py): the meeting user
    changes too; a second changed input of the user; the extra ops load an input of their own."""
    name = "formula-cascade"
    stage = "roots"

    def apply(self, ctx: FoldContext, roots: List[Root]) -> List[Root]:
        merged = True
        while merged:
            merged = False
            for r2 in roots:
                host = self.host(ctx, r2, roots) if r2.kind == "rewired" else None
                if host is None:
                    continue
                self.fold_into_host(ctx, host, r2)
                roots = [r for r in roots if r is not r2]
                merged = True
                break
        return roots

    def host(self, ctx: FoldContext, r2: Root, roots: List[Root]) -> Optional[Root]:
        """The root that rewired root ``r2`` provably follows from, or None. All of these hold:

        * the user pair (``r2.left``/``r2.right``) has no finding of its own and exactly one operand
          slot whose producers are not paired with each other;
        * at that slot one side's producer is paired and belongs to the host root (its op or an op
          it lists); the other side's is unpaired, and its operand cone through unpaired ops (the
          component) holds only pure ops without regions;
        * every input of that component from outside it, and every other operand of the user, is
          clean (paired, its pair without any difference) or belongs to the host root on that
          side, and at least one input of the component belongs to it;
        * ``r2`` lists nothing but that component, what the user's results reach, and other
          matched users of the component that meet the host's value in the same way (``sibling``)
          with what they reach.

        So the only input that differs at the user is the host root's value."""
        cl = ctx.cl
        L, R, m = cl.L, cl.R, cl.m
        dirty_l, dirty_r = ctx.dirty_l, ctx.dirty_r
        lu, ru = r2.left, r2.right
        if lu is None or ru is None or L.nodes[lu].kind != "op" or R.nodes[ru].kind != "op":
            return None
        if pair_findings(cl, lu, ru):
            return None
        slots = wiring(cl, lu, ru)
        if len(slots) != 1:
            return None
        i, j = slots[0]
        pl, pr = L.nodes[lu].operands[i][0], R.nodes[ru].operands[j][0]
        if pl is None or pr is None:
            return None
        if pl in m.l2r and pr not in m.r2l:
            comp_left, paired, start = False, pl, pr
        elif pr in m.r2l and pl not in m.l2r:
            comp_left, paired, start = True, pr, pl
        else:
            return None
        if paired not in (dirty_r if comp_left else dirty_l):
            return None  # a clean value on the other side: a real rewiring, its own cause
        hosts = [h for h in roots if h is not r2 and h.category not in ("specialization", "signature", "hints")
                 and paired in footprint(h, not comp_left)]
        if len(hosts) != 1:
            return None
        host = hosts[0]
        g = L if comp_left else R
        mapped = m.l2r if comp_left else m.r2l
        dirty = dirty_l if comp_left else dirty_r
        comp: Set[str] = set()
        queue = deque([start])
        while queue:
            x = queue.popleft()
            if x in comp:
                continue
            n = g.nodes[x]
            if n.kind != "op" or n.op.regions or not has_trait(n.op, "pure"):
                return None
            comp.add(x)
            queue.extend(s for s, _, _ in n.operands if s is not None and s not in mapped)
        host_side = footprint(host, comp_left)
        from_host = False
        for x in comp:
            for s, _, _ in g.nodes[x].operands:
                if s is None:
                    return None
                if s in comp:
                    continue
                if s in host_side:
                    from_host = True
                elif s in dirty:
                    return None
        if not from_host:
            return None
        # the user's other operands: clean, or the host's
        for side_l, user, k in ((True, lu, i), (False, ru, j)):
            gg, dd = (L, dirty_l) if side_l else (R, dirty_r)
            for q, (s, _, _) in enumerate(gg.nodes[user].operands):
                if q != k and s is not None and s in dd and s not in footprint(host, side_l):
                    return None
        below_l, below_r = reach(L, lu), reach(R, ru)
        listed_comp_side = r2.affected_left if comp_left else r2.affected_right
        allowed_comp = comp | (below_l if comp_left else below_r)
        allowed_other = below_r if comp_left else below_l
        for x in sorted(listed_comp_side - allowed_comp, key=g.position_of.get):
            if x in allowed_comp:
                continue
            y = self.sibling(ctx, x, comp_left, comp, host)
            if y is None:
                return None
            allowed_comp |= {x} | reach(g, x)
            allowed_other |= {y} | reach(R if comp_left else L, y)
        if not listed_comp_side <= allowed_comp:
            return None
        if not (r2.affected_right if comp_left else r2.affected_left) <= allowed_other:
            return None
        return host

    @staticmethod
    def sibling(ctx: FoldContext, x: str, comp_left: bool, comp: Set[str], host: Root) -> Optional[str]:
        """The counterpart of ``x`` when ``x`` is another matched user of the one-sided component
        that meets the host's value the same way (no finding of its own; every slot that differs
        takes the component on its side and the host's value on the other); else None."""
        cl = ctx.cl
        mapped = cl.m.l2r if comp_left else cl.m.r2l
        y = mapped.get(x)
        if y is None:
            return None
        lx, rx = (x, y) if comp_left else (y, x)
        if cl.L.nodes[lx].kind != "op" or cl.R.nodes[rx].kind != "op" or pair_findings(cl, lx, rx):
            return None
        slots = wiring(cl, lx, rx)
        if not slots:
            return None
        other_host = footprint(host, not comp_left)
        for i, j in slots:
            mine = (cl.L.nodes[lx].operands[i][0] if comp_left else cl.R.nodes[rx].operands[j][0])
            theirs = (cl.R.nodes[rx].operands[j][0] if comp_left else cl.L.nodes[lx].operands[i][0])
            if mine not in comp or theirs not in other_host:
                return None
        return y

    @staticmethod
    def fold_into_host(ctx: FoldContext, host: Root, r2: Root) -> None:
        """List rewired root ``r2`` under ``host``; the message gains both sides' expressions at
        the slot where the two formulas meet (the host's own values first, when it has none yet)."""
        from ..expressions import expression
        cl = ctx.cl
        L, R = cl.L, cl.R
        il, ir = cl.indexes
        lname = lambda vid: cl.lt.names.get(vid, "%?")  # noqa: E731
        rname = lambda vid: cl.rt.names.get(vid, "%?")  # noqa: E731
        reaches = host.extra.setdefault("reaches", [])
        if not reaches and host.kind == "replaced" and host.left and host.right:
            a, b = L.nodes[host.left], R.nodes[host.right]
            if a.kind == b.kind == "op" and len(a.op.results) == len(b.op.results) == 1:
                host.message += (f": {expression(il, a.op.results[0].vid, 'L', lname)} -> "
                                 f"{expression(ir, b.op.results[0].vid, 'R', rname)}")
        assert r2.left is not None and r2.right is not None  # (a rewired root stands on a pair)
        (i, j), = wiring(cl, r2.left, r2.right)
        user = L.nodes[r2.left]
        role = operand_role(user.op, i, cl.vl)
        le = expression(il, user.op.operands[i].vid, "L", lname)
        re_ = expression(ir, R.nodes[r2.right].op.operands[j].vid, "R", rname)
        host.message += f"; the formula reaching {user.name} {role} (operand {i}) changes with it: {le} -> {re_}"
        assert isinstance(reaches, list)
        reaches.append({"user": user.name, "role": role})
        assert r2.left is not None and r2.right is not None
        host.affected_left |= {r2.left} | r2.affected_left
        host.affected_right |= {r2.right} | r2.affected_right
