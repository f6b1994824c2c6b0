"""Tiny kernels (tileirdisasm text) and a harness that runs one matcher stage alone.

``Pair(left_text, right_text)`` parses both with ``tileir_diff.load`` (a ``Module`` is taken as
it is, its nodes then go by their ids), tags op ids
(``tag_origins``), normalizes and builds the two ``FunctionGraph``s; nodes are named by the
values they define in the text (``%x``; an op without results by its op name, ``yield#1`` for
the second one in text order; ``%arg0`` for entry arguments). ``given(...)`` pre-pairs nodes
(tag ``given``), ``run(stage)`` runs one stage and returns the pairs it added as
``(left name, right name, tag)``.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

import tileir_diff
from tileir_diff.graph import FunctionGraph
from tileir_diff.match import Limits, Mapping, MatchContext
from tileir_diff.normalize import normalize, tag_origins

V = "tensor_view<?xf32, strides=[1]>"
P = f"partition_view<tile=(64), {V}>"
T = "tile<64xf32>"
ARGS = "%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>, %arg2: tile<i32>"
PROLOGUE = f"""  %0 = make_token : token
  %tx = make_tensor_view %arg0, shape = [%arg2], strides = [1] : tile<i32> -> {V}
  %ty = make_tensor_view %arg1, shape = [%arg2], strides = [1] : tile<i32> -> {V}
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %px = make_partition_view %tx : {P}
  %py = make_partition_view %ty : {P}
"""


def kernel(body: str, args: str = ARGS, prologue: str = PROLOGUE) -> str:
    return f"entry @k({args}) optimization_hints=<default = {{}}> {{\n{prologue}{body}  return\n}}\n"


def load(name: str, view: str = "%px", token: str = "%0", index: str = "%bx") -> str:
    return f"  %{name}, %{name}_tok = load_view_tko weak {view}[{index}] token = {token} : {P}, tile<i32> -> {T}, token\n"


def store(name: str, value: str, view: str = "%py", token: str = "%0", index: str = "%bx") -> str:
    return f"  %{name} = store_view_tko weak {value}, {view}[{index}] token = {token} : {T}, {P}, tile<i32> -> token\n"


def op_ids(text: str) -> Dict[str, str]:
    """Name -> node id for a one-entry module's text (see the module docstring)."""
    ids: Dict[str, str] = {}
    seen: Dict[str, int] = {}
    stack: List[list] = []  # [prefix, next op index, parent op id, region index]
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("//"):
            continue
        if s.startswith("entry"):
            for i, a in enumerate(re.findall(r"(%\w+):", s)):
                ids[a] = f"f0/a{i}"
            stack = [["f0", 0, None, 0]]
            continue
        if s.startswith("}"):
            closed = stack.pop()
            if s.endswith("{"):  # } else {
                stack.append([f"{closed[2]}/r{closed[3] + 1}", 0, closed[2], closed[3] + 1])
            continue
        frame = stack[-1]
        oid = f"{frame[0]}/o{frame[1]}"
        frame[1] += 1
        if s.startswith("%") and " = " in s:
            for name in s.split(" = ", 1)[0].split(","):
                ids.setdefault(name.strip(), oid)
        else:
            name = s.split()[0]
            k = seen.get(name, 0)
            seen[name] = k + 1
            ids[name if k == 0 else f"{name}#{k}"] = oid
        if s.endswith("{"):
            stack.append([f"{oid}/r0", 0, oid, 0])
            # block arguments: the induction variable of a for, then its iter_values
            bargs = re.findall(r"\bfor (%\w+) in", s)
            if "iter_values" in s:
                bargs += re.findall(r"(%\w+) = ", s.split("iter_values", 1)[1])
            for i, a in enumerate(bargs):
                ids[a] = f"{oid}/r0/a{i}"
    return ids


def graph(text, version: Optional[Tuple[int, int]] = None) -> Tuple[FunctionGraph, Dict[str, str]]:
    if version is None:
        module = tileir_diff.load(text)
    else:
        from tileir_diff.text.parser import parse_text
        module = parse_text(text, version=version)
    normalized, _ = normalize(tag_origins(module))
    return FunctionGraph(normalized.functions[0], 0), op_ids(text) if isinstance(text, str) else {}


class Pair:
    """Two graphs, their names and a fresh match context."""

    def __init__(self, left: str, right: Optional[str] = None, version=None, limits: Optional[Limits] = None):
        self.L, self.lids = graph(left, version)
        self.R, self.rids = graph(left if right is None else right, version)
        self.lnames = _first_names(self.lids)
        self.rnames = _first_names(self.rids)
        self.ctx = MatchContext(self.L, self.R, Mapping(), limits or Limits(), budget=float("inf"))

    def ctx_graphs(self) -> Tuple[FunctionGraph, FunctionGraph]:
        return self.L, self.R

    def lid(self, name: str) -> str:
        return self.lids[name]

    def rid(self, name: str) -> str:
        return self.rids[name]

    def given(self, *names, tag: str = "given") -> None:
        """Pre-pair nodes: a name (the same name on both sides) or a (left, right) tuple."""
        for n in names:
            ln, rn = (n, n) if isinstance(n, str) else n
            assert self.ctx.add(self.lids[ln], self.rids[rn], tag), f"cannot pre-pair {ln} <-> {rn}"

    def given_all_but(self, *names) -> None:
        """Pre-pair every node named on both sides, except ``names``."""
        skip = set(names)
        for n, nid in self.lids.items():
            if n not in skip and n in self.rids and nid in self.L.nodes and self.rids[n] in self.R.nodes \
                    and nid not in self.ctx.mapping.l2r:
                self.ctx.add(nid, self.rids[n], "given")

    def run(self, stage, **kw) -> List[Tuple[str, str, str]]:
        """Run ``stage`` alone; the pairs it added as (left name, right name, tag), sorted."""
        m = self.ctx.mapping
        before = set(m.l2r)
        n = stage.run(self.ctx, **kw)
        new = [(l, r) for l, r in m.l2r.items() if l not in before]
        assert n == len(new), f"{stage!r} reported {n} pairs, added {len(new)}"
        return sorted((self.lnames.get(l, l), self.rnames.get(r, r), m.stage[l]) for l, r in new)

    def pairs(self) -> Dict[str, str]:
        """Every pair so far, by name."""
        return {self.lnames.get(l, l): self.rnames.get(r, r) for l, r in self.ctx.mapping.l2r.items()}


def _first_names(ids: Dict[str, str]) -> Dict[str, str]:
    """Node id -> the first name it defines (``%bx`` for ``%bx, %by, %bz = ...``)."""
    out: Dict[str, str] = {}
    for n, nid in ids.items():
        out.setdefault(nid, n)
    return out


def crosses_region_paths(ctx: MatchContext, pending: bool = True) -> List[Tuple[str, str]]:
    """Pairs whose nodes do not sit in the same region of parents paired with each other (with
    ``pending``, as ``MatchContext.add`` allows while matching, parents that are both still
    unpaired count as well: the gate will pair them only with each other)."""
    l2r, r2l = ctx.mapping.l2r, ctx.mapping.r2l
    bad = []
    for l, r in l2r.items():
        a, b = ctx.left.nodes[l], ctx.right.nodes[r]
        pa, pb = a.parent, b.parent
        if a.region != b.region or (pa is None) != (pb is None):
            bad.append((l, r))
        elif pa is not None and l2r.get(pa) != pb and not (pending and pa not in l2r and pb not in r2l):
            bad.append((l, r))
    return bad


def branch_stores(swapped: bool = False) -> str:
    """An if whose then-branch stores one load and whose else-branch stores the other (swapped:
    the other way round). Stores stay in their branches through normalization (pure ops would be
    hoisted out), and the two stores of a load have equal hashes in different branches."""
    first, second = ("%b", "%a") if swapped else ("%a", "%b")
    return kernel(load("a") + load("b", index="%by") + f"""  %c0 = constant <i32: 0> : tile<i32>
  %1 = cmpi equal %arg2, %c0, signed : tile<i32> -> tile<i1>
  if %1 {{
{store("s1", first).replace("  %", "    %", 1)}    yield
  }} else {{
{store("s2", second).replace("  %", "    %", 1)}    yield
  }}
""")
