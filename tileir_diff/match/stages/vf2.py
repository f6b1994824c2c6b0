"""vf2: networkx VF2 labelled isomorphism between small leftover components (at most
``vf2_max_nodes`` nodes, same multiset of labels), under a shared work cap (``vf2_max_steps``
node comparisons: counted, so the same on any machine). Never on whole kernels, never graph edit
distance. A cap that runs out is recorded in ``ctx.limits_hit``."""
from __future__ import annotations

from typing import List

from ...graph import FunctionGraph
from ..mapping import MatchContext
from ..stage import Stage


class VF2(Stage):
    name = "vf2"

    def run(self, ctx: MatchContext, seeds=None) -> int:
        L, R = ctx.left, ctx.right
        lleft, rleft = list(ctx.lfree), list(ctx.rfree)
        if not lleft or not rleft:
            return 0
        lcomps = _components(L, set(lleft))
        rcomps = _components(R, set(rleft))
        cap = ctx.limits.vf2_max_nodes
        rsig = {tuple(sorted(R.nodes[x].compare_key for x in c)) for c in rcomps if len(c) <= cap}
        if not any(len(c) <= cap and tuple(sorted(L.nodes[x].compare_key for x in c)) in rsig for c in lcomps):
            ctx.stats["vf2_components_skipped"] = sum(1 for c in lcomps if len(c) > cap)
            return 0  # no leftover component has a same-labelled counterpart: nothing VF2 could pair
        import networkx as nx  # only now: importing networkx costs more than matching a small kernel
        from networkx.algorithms.isomorphism import DiGraphMatcher
        lsub = L.nx.subgraph(lleft)
        rsub = R.nx.subgraph(rleft)
        cap_steps = ctx.limits.vf2_max_steps
        steps = [0]

        class _OutOfSteps(Exception):
            pass

        def node_match(a, b):
            steps[0] += 1
            if steps[0] > cap_steps:
                raise _OutOfSteps()
            if steps[0] % 1024 == 0:
                ctx.charge(1024, "vf2")  # the diff's budget and its safety net too
            return a["compare_key"] == b["compare_key"]

        used = set()
        skipped = 0
        added = 0
        for lc in lcomps:
            if len(lc) > cap:
                skipped += 1
                continue
            lnames = sorted(L.nodes[x].compare_key for x in lc)
            for ri, rc in enumerate(rcomps):
                if ri in used or len(rc) != len(lc) or sorted(R.nodes[x].compare_key for x in rc) != lnames:
                    continue
                gm = DiGraphMatcher(nx.DiGraph(lsub.subgraph(lc)), nx.DiGraph(rsub.subgraph(rc)),
                                    node_match=node_match)
                try:
                    ok = gm.is_isomorphic()
                except _OutOfSteps:
                    ctx.limits_hit.append(f"vf2_max_steps={cap_steps} "
                                          f"(leftover component of {len(lc)} nodes)")
                    return added
                if ok:
                    used.add(ri)
                    for a, b in gm.mapping.items():
                        added += ctx.add(a, b, self.name)
                    break
        ctx.stats["vf2_components_skipped"] = skipped
        return added


def _components(g: FunctionGraph, nodes: set) -> List[List[str]]:
    """Weakly connected components of ``nodes`` over operand and region edges."""
    seen: set = set()
    out = []
    for start in g.order:
        if start not in nodes or start in seen:
            continue
        comp, stack = [], [start]
        seen.add(start)
        while stack:
            x = stack.pop()
            comp.append(x)
            n = g.nodes[x]
            for y in [s_ for s_, _, _ in n.operands if s_] + [u for u, _, _ in n.users] + list(n.children) + \
                    ([n.parent] if n.parent else []):
                if y in nodes and y not in seen:
                    seen.add(y)
                    stack.append(y)
        out.append(sorted(comp))
    return out
