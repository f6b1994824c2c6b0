"""formula-cascade: a formula written another way is one root."""
from __future__ import annotations

from collections import deque
from typing import List, Mapping, Optional, Set

from ...graph import FunctionGraph
from ...normalize.util import has_trait, operand_role
from ..roots import Root
from ..pair_findings import op_of, pair_findings, wiring
from .base import Fold, FoldContext, footprint, reach
from ...record import record


@record
class _Meeting:
    """Where a rewired user pair meets the host's cascade: the user on each side (``left``,
    ``right``), the one operand slot that differs on each side, which side's producer is the
    one-sided component's (``comp_left``), the paired producer on the other side (``paired``) and
    the component's producer (``start``)."""
    left: str
    right: str
    left_slot: int
    right_slot: int
    comp_left: bool
    paired: str
    start: str


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
    order = 10

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
          slot whose producers are not paired with each other (``meeting``);
        * at that slot one side's producer is paired and belongs to the host root (its op or an op
          it lists); the other side's is unpaired, and its operand cone through unpaired ops (the
          component) holds only pure ops without regions (``component``);
        * every input of that component from outside it, and every other operand of the user, is
          clean (paired, its pair without any difference) or belongs to the host root on that
          side, and at least one input of the component belongs to it (``fed_by_host``,
          ``other_operands_clean``);
        * ``r2`` lists nothing but that component, what the user's results reach, and other
          matched users of the component that meet the host's value in the same way (``sibling``)
          with what they reach (``lists_only_downstream``).

        So the only input that differs at the user is the host root's value."""
        meet = self.meeting(ctx, r2)
        if meet is None:
            return None
        host = self.single_host(ctx, r2, roots, meet)
        if host is None:
            return None
        g = ctx.cl.L if meet.comp_left else ctx.cl.R
        comp = self.component(g, meet.start, ctx.cl.m.l2r if meet.comp_left else ctx.cl.m.r2l)
        if comp is None:
            return None
        if not self.fed_by_host(g, comp, footprint(host, meet.comp_left),
                                ctx.dirty_l if meet.comp_left else ctx.dirty_r):
            return None
        if not self.other_operands_clean(ctx, meet, host):
            return None
        if not self.lists_only_downstream(ctx, r2, meet, comp, host):
            return None
        return host

    @staticmethod
    def meeting(ctx: FoldContext, r2: Root) -> Optional[_Meeting]:
        """Where the two formulas meet at ``r2``'s user pair: its one differing slot, a paired
        producer on one side and an unpaired one on the other; None when the user pair has a
        finding of its own, several (or no) differing slots, or a slot of another shape (two
        unpaired or two paired producers: a replacement or a real rewiring, not a cascade)."""
        cl = ctx.cl
        lu, ru = r2.left, r2.right
        if lu is None or ru is None or cl.L.nodes[lu].kind != "op" or cl.R.nodes[ru].kind != "op":
            return None
        if pair_findings(cl, lu, ru):
            return None
        slots = wiring(cl, lu, ru)
        if len(slots) != 1:
            return None
        i, j = slots[0]
        pl, pr = cl.L.nodes[lu].operands[i][0], cl.R.nodes[ru].operands[j][0]
        if pl is None or pr is None:
            return None
        if pl in cl.m.l2r and pr not in cl.m.r2l:
            return _Meeting(lu, ru, i, j, comp_left=False, paired=pl, start=pr)
        if pr in cl.m.r2l and pl not in cl.m.l2r:
            return _Meeting(lu, ru, i, j, comp_left=True, paired=pr, start=pl)
        return None

    @staticmethod
    def single_host(ctx: FoldContext, r2: Root, roots: List[Root], meet: _Meeting) -> Optional[Root]:
        """The one root (not a specialization, signature or hints root: those explain no value)
        whose footprint holds the paired producer at the meeting slot, when that producer is
        dirty; None for a clean producer (a real rewiring, its own cause) or no or several such
        roots (which of them the user follows is not proven)."""
        paired_side_left = not meet.comp_left
        if meet.paired not in (ctx.dirty_l if paired_side_left else ctx.dirty_r):
            return None
        hosts = [h for h in roots if h is not r2 and h.category not in ("specialization", "signature", "hints")
                 and meet.paired in footprint(h, paired_side_left)]
        return hosts[0] if len(hosts) == 1 else None

    @staticmethod
    def component(g: FunctionGraph, start: str, mapped: Mapping[str, str]) -> Optional[Set[str]]:
        """The operand cone of ``start`` through ops that have no pair (``mapped``): the part of
        the formula found on that side only; None when it holds anything but pure ops without
        regions (an effect or a loop is a change of its own)."""
        comp: Set[str] = set()
        queue = deque([start])
        while queue:
            x = queue.popleft()
            if x in comp:
                continue
            n = g.nodes[x]
            if n.kind != "op" or op_of(n).regions or not has_trait(op_of(n), "pure"):
                return None
            comp.add(x)
            queue.extend(s for s, _, _ in n.operands if s is not None and s not in mapped)
        return comp

    @staticmethod
    def fed_by_host(g: FunctionGraph, comp: Set[str], host_side: Set[str], dirty: Set[str]) -> bool:
        """Whether every input of the component from outside it is the host's or clean, and one
        at least the host's: then the component computes from the host's value alone."""
        from_host = False
        for x in comp:
            for s, _, _ in g.nodes[x].operands:
                if s is None:
                    return False
                if s in comp:
                    continue
                if s in host_side:
                    from_host = True
                elif s in dirty:
                    return False
        return from_host

    @staticmethod
    def other_operands_clean(ctx: FoldContext, meet: _Meeting, host: Root) -> bool:
        """Whether the user's operands other than the meeting slot are clean or the host's, on
        both sides: a second changed input would be a second cause at the user."""
        cl = ctx.cl
        for side_l, user, k in ((True, meet.left, meet.left_slot), (False, meet.right, meet.right_slot)):
            g, dirty = (cl.L, ctx.dirty_l) if side_l else (cl.R, ctx.dirty_r)
            for q, (s, _, _) in enumerate(g.nodes[user].operands):
                if q != k and s is not None and s in dirty and s not in footprint(host, side_l):
                    return False
        return True

    def lists_only_downstream(self, ctx: FoldContext, r2: Root, meet: _Meeting, comp: Set[str],
                              host: Root) -> bool:
        """Whether ``r2`` lists nothing but the component, what the user's results reach, and
        other matched users of the component that meet the host's value the same way
        (``sibling``) with what they reach: anything else it lists has a cause of its own."""
        cl = ctx.cl
        comp_left = meet.comp_left
        g, og = (cl.L, cl.R) if comp_left else (cl.R, cl.L)
        below_l, below_r = reach(cl.L, meet.left), reach(cl.R, meet.right)
        listed_comp_side = r2.affected_left if comp_left else r2.affected_right
        allowed_comp = comp | (below_l if comp_left else below_r)
        allowed_other = below_r if comp_left else below_l
        # (position -1 for a node the graph lacks: then the sort raised before, as a crash)
        for x in sorted(listed_comp_side - allowed_comp, key=lambda nid: g.position_of.get(nid, -1)):
            if x in allowed_comp:
                continue  # reached from a sibling found before it
            y = self.sibling(ctx, x, comp_left, comp, host)
            if y is None:
                return False
            allowed_comp |= {x} | reach(g, x)
            allowed_other |= {y} | reach(og, y)
        if not listed_comp_side <= allowed_comp:
            return False
        return (r2.affected_right if comp_left else r2.affected_left) <= allowed_other

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
            if a.kind == b.kind == "op" and len(op_of(a).results) == len(op_of(b).results) == 1:
                host.message += (f": {expression(il, op_of(a).results[0].vid, 'L', lname)} -> "
                                 f"{expression(ir, op_of(b).results[0].vid, 'R', rname)}")
        assert r2.left is not None and r2.right is not None  # (a rewired root stands on a pair)
        (i, j), = wiring(cl, r2.left, r2.right)
        user = L.nodes[r2.left]
        role = operand_role(op_of(user), i, cl.vl)
        le = expression(il, op_of(user).operands[i].vid, "L", lname)
        re_ = expression(ir, op_of(R.nodes[r2.right]).operands[j].vid, "R", rname)
        host.message += f"; the formula reaching {user.name} {role} (operand {i}) changes with it: {le} -> {re_}"
        assert isinstance(reaches, list)
        reaches.append({"user": user.name, "role": role})
        host.affected_left |= {r2.left} | r2.affected_left
        host.affected_right |= {r2.right} | r2.affected_right
