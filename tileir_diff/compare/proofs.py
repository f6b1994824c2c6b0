"""The proof step's part in a function's roots: the classifier's roots the checker's proofs
discharged, the proof records of the result, the node ids the roots own or list."""
from __future__ import annotations

from ..check import FunctionCheck
from ..graph import input_op_id


def absorb_proven(roots, check: FunctionCheck, cls=None):
    """The classifier's roots less those at ops the checker's proofs discharged (check 8), and
    less one-sided roots whose ops only feed discharged ops (a tile-count view the proof read:
    the checker re-adds any of their violations it still sees uncovered)."""
    dl, dr = check.discharged_left, check.discharged_right
    out = [r for r in roots
           if not ((r.left or r.right) and all((a is None or a in dl) and (b is None or b in dr)
                                               for a, b in {(r.left, r.right)} | r.also))]
    if cls is None or not (dl or dr):
        return out
    kept = []
    for r in out:
        if r.kind in ("only_left", "only_right") and not r.also and (r.left is None) != (r.right is None) \
                and r.category not in ("specialization", "signature", "hints"):
            side_l = r.left is not None
            g, done = (cls.L, dl) if side_l else (cls.R, dr)
            nodes = {r.left if side_l else r.right} | (r.affected_left if side_l else r.affected_right)
            if all(g.nodes[n].kind == "op" and g.nodes[n].users and
                   all(u in nodes or u in done for u, _, _ in g.nodes[n].users) for n in nodes):
                continue
        kept.append(r)
    return kept


def proof_record(p, fname: str) -> dict:
    o = p.outcome
    rec = {"function": fname, "left": input_op_id(p.left), "right": input_op_id(p.right),
           "of": "results" if p.slot is None else f"operand {p.slot}", "status": o.status,
           "seconds": round(o.seconds, 4)}
    if o.status == "equal":
        rec["rule"] = "smt-equivalence"
        rec["assumptions"] = list(o.facts)
    if o.counterexample:
        rec["counterexample"] = dict(o.counterexample)
    if o.note:
        rec["note"] = o.note
    return rec


def root_sets(roots):
    """(own left, own right, listed left, listed right) node ids of the classifier's roots."""
    own_l = {r.left for r in roots if r.left} | {a for r in roots for a, _ in r.also if a}
    own_r = {r.right for r in roots if r.right} | {b for r in roots for _, b in r.also if b}
    listed_l, listed_r = set(own_l), set(own_r)
    for r in roots:
        listed_l |= r.affected_left
        listed_r |= r.affected_right
    return own_l, own_r, listed_l, listed_r
