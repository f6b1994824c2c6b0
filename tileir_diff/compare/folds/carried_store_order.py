"""carried-store-order: a store order carried through a loop on one side only is one root."""
from __future__ import annotations

from typing import List, Set

from ...ir.types import TokenType
from ..roots import Root
from .base import Fold, FoldContext, absorb


def _token_results(node) -> int:
    """How many of a ``for`` op's results are memory tokens (the values it carries as order)."""
    op = node.op
    return sum(isinstance(r.type, TokenType) for r in op.results) if op is not None else 0


def _reads_loop_token(g, nid: str, loop: str) -> bool:
    """Whether op ``nid`` takes a token operand that is a block argument of ``loop``'s body (the
    token the loop carries into the iteration)."""
    node = g.nodes[nid]
    if node.op is None:
        return False
    for (producer, _, _), value in zip(node.operands, node.op.operands):
        if isinstance(value.type, TokenType) and producer is not None:
            p = g.nodes.get(producer)
            if p is not None and p.kind == "barg" and p.parent == loop:
                return True
    return False


class CarriedStoreOrder(Fold):
    """One cause, one root: cuTile Python orders a store inside a ``for`` loop after the previous
    iteration's (the store's token goes through the loop's ``iter_values`` and ``continue``);
    cuTile Rust's ``store_unchecked`` takes a token from before the loop. Where the two sides
    differ only so, the comparison finds three sites: the ``for`` (one more carried value, a
    token, on one side), the store (its token operand is the loop's block argument on that side)
    and the ``continue`` (it yields one more value). The ``for``'s root stands for the others (they
    join it as sites of their own, so the checker still sees each covered) and says what the order
    is. The difference stays a difference: whether the order orders anything (two iterations
    storing one tile) is rule ``disjoint-loop-stores``'s question, proven there or left open.

    Mutants it must not absorb: a load inside the loop ordered by the carried token on one side
    (a read that waits for the previous iteration's store: more than a store order), and a loop
    that carries another value than a token on one side only (an accumulator: not an order); each
    stays a root of its own."""
    name = "carried-store-order"
    stage = "roots"
    order = 40

    def apply(self, ctx: FoldContext, roots: List[Root]) -> List[Root]:
        cl = ctx.cl
        folded: Set[int] = set()
        for host in roots:
            if id(host) in folded or not self._is_loop_root(cl, host):
                continue
            fl, fr = host.left, host.right
            assert fl is not None and fr is not None  # (_is_loop_root)
            tl, tr = _token_results(cl.L.nodes[fl]), _token_results(cl.R.nodes[fr])
            left_carries, extra = tl > tr, abs(tl - tr)
            g, loop = (cl.L, fl) if left_carries else (cl.R, fr)
            members = [host]
            for r in roots:
                if r is host or id(r) in folded or not r.left or not r.right:
                    continue
                ln, rn = cl.L.nodes.get(r.left), cl.R.nodes.get(r.right)
                if ln is None or rn is None or ln.parent != fl or rn.parent != fr or ln.name != rn.name:
                    continue
                carrier, other = (ln, rn) if left_carries else (rn, ln)
                if ln.name == "continue" and len(carrier.operands) == len(other.operands) + extra:
                    members.append(r)  # it yields the carried tokens
                elif ln.name.startswith("store") and _reads_loop_token(g, carrier.nid, loop):
                    members.append(r)
            if len(members) == 1:
                continue
            sites = absorb(cl, members, folded)
            side = "left" if left_carries else "right"
            host.message += (f"; one cause: the loop carries a store's token on the {side} only: there the store waits "
                             f"for the previous iteration's and the continue yields its token, on the other side the "
                             f"store takes a token from before the loop (also at {', '.join(sites)})")
        return [r for r in roots if id(r) not in folded]

    @staticmethod
    def _is_loop_root(cl, root: Root) -> bool:
        """A pair of ``for`` ops whose token results differ in number, and only those: the other
        carried values the same count on both sides."""
        if root.kind != "changed" or not root.left or not root.right:
            return False
        ln, rn = cl.L.nodes.get(root.left), cl.R.nodes.get(root.right)
        if ln is None or rn is None or ln.name != "for" or rn.name != "for" or ln.op is None or rn.op is None:
            return False
        tl, tr = _token_results(ln), _token_results(rn)
        return tl != tr and len(ln.op.results) - tl == len(rn.op.results) - tr

