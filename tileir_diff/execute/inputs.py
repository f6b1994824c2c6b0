"""Inputs for a differential run: one ``Plan`` for a pair of entry layouts, trials drawn from it.

The plan pairs the two kernels' arguments by the argument mapping (``mapping.ArgumentMapping``: the
structural diff's pairing by role, its ties and pinned constants; one argument list for entries
with one signature; by position otherwise, which proves nothing and says so in ``Plan.unmapped``).
Paired arrays are one *plan array*; an array only one kernel has is one of its own (not compared).
Sizes and strides are *slots* ``(kind, plan array, dim)`` shared by both kernels. Slots that one entry argument feeds
(in either kernel) are tied together and take one value; a slot takes the static size/stride
either kernel's ``tensor_view`` type states, and meets every ``assume div_by``/``bounded`` that
either kernel states on the arguments feeding it. Every trial is therefore an input both kernels
accept as far as the IR says; assumes on values derived inside the kernel are checked while it
runs (``AssumeViolation``), and such a trial is reported as invalid, never as a counterexample.

Value families (by trial number, see ``schedule``): normal(0, 1); small integers (exact in every
float type, so reassociation cannot hide a difference); *special* values (NaN, +-Inf, -0.0,
subnormals, the largest finite values, sprinkled over 1 element in 8 of normal values);
normal(0, 64) (to cross data-dependent thresholds); *large* magnitudes where exp/exp2/sinh
overflow (80..100 for f32/bf16, 10..12 for f16, 700..720 for f64, mixed with normal values);
zeros (reduction identities). Alias trials (every third trial, when some pair of arrays of one
element type and rank is ordered by either kernel's tokens, see ``tokens``) place two arrays in
one buffer.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from tileir_diff.interp import dtypes as dt

from .mapping import ArgumentMapping, identity
from .signature import ArgFacts, ArraySpec, Layout, ScalarSpec

MODES = ("normal", "ints", "special", "wide", "large", "zeros")
SPECIAL_KINDS = ("special: signed zeros, subnormals", "special: NaN, Inf", "special: extremes")
ALIAS_MODES = ("normal", "ints", "special")
DEFAULT_HINT = 16
DEFAULT_MAX_INPUT_BYTES = 256 << 20  # all arrays of one trial together

Slot = Tuple[str, int, int]  # ("shape" | "stride", array index, dim)


@dataclass
class ArrayInput:
    elem: str
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    values: np.ndarray  # compute representation, logical shape
    how: str
    alias_of: Optional[int] = None  # shares the buffer of this (earlier) array


@dataclass
class Trial:
    index: int
    grid: Tuple[int, int, int]
    arrays: List[ArrayInput]
    scalars: List[Any]  # one value per scalar pair of the plan
    mode: str = "normal"
    alias: Optional[Tuple[int, int]] = None

    def summary(self, plan: Optional["Plan"] = None) -> dict:
        arrays = []
        for k, a in enumerate(self.arrays):
            d: Dict[str, Any] = {"name": f"array{k}", "dtype": a.elem, "shape": list(a.shape), "strides": list(a.strides),
                 "values": a.how}
            if a.alias_of is not None:
                d["values"] = f"same memory as array{a.alias_of}"
                d["alias_of"] = f"array{a.alias_of}"
            elif a.values.size <= 16:
                d["data"] = _plain(a.values.reshape(-1))
            if plan is not None:  # which entry argument it is on each side (None: not that side's)
                for side, layout, index in (("left", plan.left, plan.left_of), ("right", plan.right, plan.right_of)):
                    j = index[k]
                    d[f"{side}_arg"] = layout.arrays[j].pointer_arg if j is not None else None
            arrays.append(d)
        out: Dict[str, Any] = {"grid": list(self.grid), "arrays": arrays, "family": self.mode,
               "scalars": [_plain(np.asarray(s).reshape(-1))[0] for s in self.scalars]}
        if plan is not None and plan.scalars:
            out["scalar_args"] = [{"value": out["scalars"][n], "left_arg": p.left, "right_arg": p.right}
                                  for n, p in enumerate(plan.scalars)]
        if self.alias is not None:
            out["aliases"] = [f"array{self.alias[0]}", f"array{self.alias[1]}"]
        return out


def _plain(a: np.ndarray) -> list:
    out = []
    for x in np.asarray(a).tolist():
        if isinstance(x, float) and not np.isfinite(x):
            out.append(str(x))
        elif isinstance(x, float) and x == 0.0 and np.signbit(x):
            out.append("-0.0")
        else:
            out.append(x)
    return out


# --- the plan ----------------------------------------------------------------------------------

@dataclass
class ScalarPair:
    left: Optional[int]   # entry argument on each side (None: this side has no such scalar)
    right: Optional[int]
    elem: str
    facts: ArgFacts
    fixed: Any = None     # the value the mapping implies (a pin, a tie to a static extent)


class NoMapping(ValueError):
    """The two kernels' arguments cannot be called as one: a paired array has another element
    type or rank on the other side (the message says which)."""


@dataclass
class Plan:
    left: Layout
    right: Layout
    elems: List[str]
    ndims: List[int]
    tile_hint: List[Tuple[int, ...]]
    pointer_only: List[bool]
    computed_strides: List[bool]
    parent: Dict[Slot, Slot]            # union-find over slots (ties)
    static: Dict[Slot, int]             # slot -> static value (either kernel's view type)
    facts: Dict[Slot, ArgFacts]
    scalars: List[ScalarPair]
    left_scalar: Dict[int, int] = field(default_factory=dict)   # left free-scalar index -> pair index
    right_scalar: Dict[int, int] = field(default_factory=dict)
    # scalar pair index -> the slot whose value it takes (a scalar one side reads as a plain
    # number where the other passes it as an extent or stride)
    scalar_slot: Dict[int, Slot] = field(default_factory=dict)
    # scalar pair index -> the pair index whose value it takes (a tie to another scalar)
    scalar_same: Dict[int, Any] = field(default_factory=dict)
    alias_pairs: List[Tuple[int, int]] = field(default_factory=list)
    alias_notes: Dict[Tuple[int, int], str] = field(default_factory=dict)
    block_axes: Tuple[bool, bool, bool] = (False, False, False)
    notes: List[str] = field(default_factory=list)
    # plan array -> that side's array index in its layout (None: the side has no such array)
    left_of: List[Optional[int]] = field(default_factory=list)
    right_of: List[Optional[int]] = field(default_factory=list)
    source: str = "positional"          # where the argument mapping came from (mapping.SOURCES)
    # why a divergence on this plan is no counterexample for both kernels (empty: it is one)
    unmapped: List[str] = field(default_factory=list)

    def find(self, s: Slot, parent: Optional[Dict[Slot, Slot]] = None) -> Slot:
        parent = self.parent if parent is None else parent
        while parent.get(s, s) != s:
            s = parent[s]
        return s

    def slots(self) -> List[Slot]:
        return [(kind, k, d) for k in range(len(self.elems)) for kind in ("shape", "stride") for d in range(self.ndims[k])]

    def index_of(self, side: str) -> List[Optional[int]]:
        return self.left_of if side == "left" else self.right_of

    def paired(self, k: int) -> bool:
        """Whether plan array ``k`` exists in both kernels (only such arrays are compared)."""
        return self.left_of[k] is not None and self.right_of[k] is not None


def _union(parent: Dict[Slot, Slot], a: Slot, b: Slot) -> None:
    def find(s):
        while parent.get(s, s) != s:
            s = parent[s]
        return s
    ra, rb = find(a), find(b)
    if ra != rb:
        parent[max(ra, rb)] = min(ra, rb)


def _flat_side(spec) -> bool:
    """A bare pointer no view, mask or convention gives a size: it takes its partner's shape."""
    return spec.pointer_only and spec.guessed_extent


def _array_pairs(left: Layout, right: Layout, mapping: Optional[ArgumentMapping]):
    """(left array index | None, right array index | None) per plan array: by the mapping's pointer
    pairs, else by position."""
    la, lb = left.arrays, right.arrays
    if mapping is None:
        n = max(len(la), len(lb))
        return [(k if k < len(la) else None, k if k < len(lb) else None) for k in range(n)]
    r_index = {s.pointer_arg: k for k, s in enumerate(lb)}
    to_right = mapping.right_of()
    out: List[Tuple[Optional[int], Optional[int]]] = []
    taken = set()
    for j, spec in enumerate(la):
        k = r_index.get(to_right.get(spec.pointer_arg, -1))
        if k is not None and k not in taken:
            taken.add(k)
            out.append((j, k))
        else:
            out.append((j, None))
    out.extend((None, k) for k in range(len(lb)) if k not in taken)
    return out


def _as_bare_pointer(layout: Layout, k: int) -> Layout:
    """``layout`` with array ``k`` (a raw pointer sized by a mask) read as a bare pointer that takes
    its partner's shape: the argument its mask compared with becomes a free scalar again, for the
    mapping to give a value (the partner's extent it is paired with)."""
    spec = layout.arrays[k]
    bare = dataclasses.replace(spec, shape_args=(None,), stride_args=(None,), static_shape=(None,),
                               static_strides=(None,), shape_facts=(ArgFacts(),), stride_facts=(ArgFacts(),),
                               guessed_extent=True, pointer_only=True, sized_by_mask=False)
    slots = {arg: [x for x in ss if x[1] != k] for arg, ss in layout.slots.items()}
    slots = {arg: ss for arg, ss in slots.items() if ss}
    items: List[Any] = [bare if it is spec else it for it in layout.items]
    for d, arg in enumerate(spec.shape_args):
        if arg is not None and arg not in slots:
            items.append(ScalarSpec(arg, spec.index_elem or "i32", spec.shape_facts[d]))
    items.sort(key=lambda it: it.pointer_arg if isinstance(it, ArraySpec) else it.arg)
    return dataclasses.replace(layout, items=items, slots=slots)


def _bare_where_ranks_differ(left: Layout, right: Layout, pairs) -> Tuple[Layout, Layout]:
    """Paired arrays of other ranks where one side is a raw pointer sized by a mask: that side
    becomes a bare pointer with its partner's shape (see ``_as_bare_pointer``)."""
    for j, k in pairs:
        if j is None or k is None:
            continue
        a, b = left.arrays[j], right.arrays[k]
        if a.ndim == b.ndim:
            continue
        if a.sized_by_mask and not _flat_side(b):
            left = _as_bare_pointer(left, j)
        elif b.sized_by_mask and not _flat_side(a):
            right = _as_bare_pointer(right, k)
    return left, right


def _plan_arrays(left: Layout, right: Layout, pairs):
    """Per plan array: element type, rank, tile hint, pointer-only, computed strides; raises
    NoMapping for a pair that cannot share one buffer."""
    elems, ndims, hints, ponly, computed = [], [], [], [], []
    for j, k in pairs:
        a = left.arrays[j] if j is not None else None
        b = right.arrays[k] if k is not None else None
        if a is not None and b is not None:
            if a.elem != b.elem:
                raise NoMapping(f"array argument {a.pointer_arg} (left) is {a.elem} and its counterpart, argument "
                                f"{b.pointer_arg} (right), {b.elem}: one buffer cannot hold both")
            if a.ndim != b.ndim and not (_flat_side(a) or _flat_side(b)):
                raise NoMapping(f"array argument {a.pointer_arg} (left) is {a.ndim}-D and its counterpart, argument "
                                f"{b.pointer_arg} (right), {b.ndim}-D: the structural diff maps no extents between them")
        main = b if a is None or (b is not None and _flat_side(a)) else a
        assert main is not None  # every plan array has a spec on at least one side (_array_pairs)
        elems.append(main.elem)
        ndims.append(main.ndim)
        both = [x for x in (a, b) if x is not None and x.ndim == main.ndim]
        hints.append(tuple(max(h) for h in zip(*(x.tile_hint for x in both))))
        ponly.append(any(x.pointer_only for x in (a, b) if x is not None))
        computed.append(any(x.computed_strides for x in (a, b) if x is not None))
    return elems, ndims, hints, ponly, computed


def _either_axes(left: Tuple[bool, bool, bool], right: Tuple[bool, bool, bool]) -> Tuple[bool, bool, bool]:
    """The block axes either kernel reads."""
    return (left[0] or right[0], left[1] or right[1], left[2] or right[2])


def make_plan(left: Layout, right: Layout, alias_pairs: Sequence[Tuple[int, int]] = (),
              alias_notes: Optional[Dict[Tuple[int, int], str]] = None,
              mapping: Optional[ArgumentMapping] = None) -> Plan:
    """One input plan for both kernels. ``mapping``: which argument is which (see
    ``tileir_diff.execute.mapping``); None: one argument list when both entries have one signature,
    else arrays and scalars by position (a plan that proves nothing: ``unmapped`` says so).
    ``alias_pairs`` are plan array indices. Raises ``NoMapping`` when a paired array has another
    element type or rank on the other side."""
    if mapping is None and left.arg_types and left.arg_types == right.arg_types:
        mapping = identity((left.entry, right.entry), len(left.arg_types))
    pairs = _array_pairs(left, right, mapping)
    left, right = _bare_where_ranks_differ(left, right, pairs)
    elems, ndims, hints, ponly, computed = _plan_arrays(left, right, pairs)
    plan = Plan(left, right, elems, ndims, hints, ponly, computed, {}, {}, {}, [],
                block_axes=_either_axes(left.block_axes, right.block_axes),
                left_of=[j for j, _ in pairs], right_of=[k for _, k in pairs],
                source=mapping.source if mapping is not None else "positional")
    if mapping is None:
        plan.unmapped.append("the arguments were paired by position: no mapping the structural diff proved")
        plan.notes.append("arguments paired by position (no argument mapping given): a divergence proves nothing")
    _slot_facts(plan)
    if mapping is not None:
        _tie_mapped_slots(plan, mapping)
    _pair_scalars(plan, mapping)
    for k in range(len(elems)):
        for side, index in (("left", plan.left_of[k]), ("right", plan.right_of[k])):
            if index is not None and not plan.paired(k):
                arg = (left if side == "left" else right).arrays[index].pointer_arg
                plan.notes.append(f"the {side} kernel's array argument {arg} has no counterpart in the other kernel: "
                                  f"it gets memory of its own and is not compared")
    plan.alias_pairs = list(alias_pairs)
    plan.alias_notes = dict(alias_notes or {})
    return plan


def _layout_slot(plan: Plan, side: str, slot: Slot) -> Slot:
    """A layout's slot ``(kind, that side's array index, dim)`` as the plan's slot."""
    kind, k, d = slot
    return (kind, plan.index_of(side).index(k), d)


def _slot_facts(plan: Plan) -> None:
    """Ties (one argument feeding several slots), static extents/strides and assumed facts of
    both kernels, on the plan's slots."""
    for side, layout in (("left", plan.left), ("right", plan.right)):
        index = plan.index_of(side)
        for slots in layout.slots.values():
            for s in slots[1:]:
                _union(plan.parent, _layout_slot(plan, side, slots[0]), _layout_slot(plan, side, s))
        for k, i in enumerate(index):
            if i is None:
                continue
            a = layout.arrays[i]
            if a.ndim != plan.ndims[k]:
                continue  # a bare pointer taking its partner's shape: nothing of its own
            for d in range(a.ndim):
                for kind, fixed, fct in (("shape", a.static_shape, a.shape_facts),
                                         ("stride", a.static_strides, a.stride_facts)):
                    s = (kind, k, d)
                    static = fixed[d] if d < len(fixed) else None
                    if static is not None:
                        if s in plan.static and plan.static[s] != int(static):
                            plan.notes.append(f"array{k} {kind} {d} is {plan.static[s]} in one kernel's view type "
                                              f"and {static} in the other's")
                            plan.unmapped.append(f"array{k} has another static {kind} in each kernel's view type")
                        plan.static.setdefault(s, int(static))
                    if d < len(fct):
                        plan.facts[s] = plan.facts.get(s, ArgFacts()).merged(fct[d])


def _tie_mapped_slots(plan: Plan, mapping: ArgumentMapping) -> None:
    """An extent or stride argument paired with one of the other side: the caller passes one
    value for both, so their slots are one."""
    for a, b in mapping.pairs:
        ls, rs = plan.left.slots.get(a), plan.right.slots.get(b)
        if ls and rs:
            _union(plan.parent, _layout_slot(plan, "left", ls[0]), _layout_slot(plan, "right", rs[0]))


def _pair_scalars(plan: Plan, mapping: Optional[ArgumentMapping]) -> None:
    """Free scalars: paired by the mapping (or by position among the used ones, without one); a
    scalar paired with an extent or stride of the other side takes that slot's value; a pinned
    or tied one the value the mapping implies; anything else a value of its own."""
    left, right = plan.left, plan.right
    if mapping is not None:
        to_right = mapping.right_of()
        r_by_arg = {s.arg: n for n, s in enumerate(right.scalars)}
        candidates = [((ln, lsp), (r_by_arg[to_right[lsp.arg]], right.scalars[r_by_arg[to_right[lsp.arg]]]))
                      for ln, lsp in enumerate(left.scalars) if to_right.get(lsp.arg) in r_by_arg]
    else:
        ls = [(n, s) for n, s in enumerate(left.scalars) if s.used]
        rs = [(n, s) for n, s in enumerate(right.scalars) if s.used]
        candidates = list(zip(ls, rs))
    for (ln, lsp), (rn, rsp) in candidates:
        if lsp.kind == rsp.kind:
            plan.left_scalar[ln] = plan.right_scalar[rn] = len(plan.scalars)
            elem = lsp.elem if dt.itemsize(lsp.elem) <= dt.itemsize(rsp.elem) else rsp.elem
            plan.scalars.append(ScalarPair(lsp.arg, rsp.arg, elem, lsp.facts.merged(rsp.facts)))
    for side, layout in (("left", left), ("right", right)):
        table = plan.left_scalar if side == "left" else plan.right_scalar
        for n, s in enumerate(layout.scalars):
            if n not in table:
                table[n] = len(plan.scalars)
                plan.scalars.append(ScalarPair(s.arg if side == "left" else None, s.arg if side == "right" else None,
                                               s.elem, s.facts))
                _implied_value(plan, mapping, side, s, table[n])
    _resolve_same(plan)


def _implied_value(plan: Plan, mapping: Optional[ArgumentMapping], side: str, s, n: int) -> None:
    """The value an unpaired free scalar ``s`` of ``side`` (its pair index ``n``) takes: what the
    mapping implies, else a value of its own (noted; a divergence then proves nothing)."""
    other = "right" if side == "left" else "left"
    mine, theirs = (plan.left, plan.right) if side == "left" else (plan.right, plan.left)
    partner = None
    if mapping is not None:
        partner = (mapping.right_of() if side == "left" else mapping.left_of()).get(s.arg)
        pin = mapping.pins.get((side, s.arg))
        tie = mapping.ties.get((side, s.arg))
        if pin is not None:
            plan.scalars[n].fixed = pin
            return
        if tie is not None and tie[0] == "static":
            plan.scalars[n].fixed = tie[1]
            return
        if tie is not None and tie[1] in mine.slots:
            plan.scalar_slot[n] = _layout_slot(plan, side, mine.slots[tie[1]][0])
            return
        if tie is not None and any(t.arg == tie[1] for t in mine.scalars):
            plan.scalar_same[n] = (side, tie[1])  # resolved once every scalar has its pair index
            return
    if partner is not None and partner in theirs.slots and s.kind == "int":
        plan.scalar_slot[n] = _layout_slot(plan, other, theirs.slots[partner][0])
        return
    if s.used:
        plan.notes.append(f"the {side} kernel's scalar argument {s.arg} ({s.elem}) has no counterpart in the "
                          f"other kernel; it gets values of its own")
        plan.unmapped.append(f"the {side} kernel reads scalar argument {s.arg}, to which the argument mapping "
                             f"gives no value (no counterpart, pin or tie)")


def _resolve_same(plan: Plan) -> None:
    """Scalars tied to another free scalar of their side: the pair index whose value they take."""
    for n, (side, arg) in list(plan.scalar_same.items()):
        layout = plan.left if side == "left" else plan.right
        table = plan.left_scalar if side == "left" else plan.right_scalar
        m = next(i for i, t in enumerate(layout.scalars) if t.arg == arg)
        plan.scalar_same[n] = table[m]


# --- drawing a trial ---------------------------------------------------------------------------

def _round_up(n: int, k: int) -> int:
    return -(-n // k) * k if k > 1 else n


def _fit(n: int, f: Optional[ArgFacts]) -> int:
    """``n`` moved to the nearest value that meets the facts (multiple of the divisor, in bounds)."""
    if f is None:
        return n
    n = _round_up(n, f.divisor)
    if f.lower is not None and n < f.lower:
        n = _round_up(f.lower, f.divisor)
    if f.upper is not None and n > f.upper:
        n = (f.upper // f.divisor) * f.divisor
    return n


def _satisfies(n: int, f: Optional[ArgFacts]) -> bool:
    if f is None:
        return True
    return (n % f.divisor == 0 and (f.lower is None or n >= f.lower) and (f.upper is None or n <= f.upper))


def schedule(plan: Plan, index: int) -> Tuple[str, Optional[Tuple[int, int]]]:
    """(value family, alias pair) of trial ``index``. The special family rotates through its
    three kinds (signed zeros and subnormals, NaN and infinities, the largest finite values), so
    that no one trial is all NaN."""
    if plan.alias_pairs and index % 3 == 2:
        n = index // 3
        mode = ALIAS_MODES[n % len(ALIAS_MODES)]
        rnd = n // len(ALIAS_MODES)
        alias = plan.alias_pairs[n % len(plan.alias_pairs)]
    else:
        plain = index - (index + 1) // 3 if plan.alias_pairs else index
        mode = MODES[plain % len(MODES)]
        rnd = plain // len(MODES)
        alias = None
    if mode == "special":
        mode = SPECIAL_KINDS[rnd % len(SPECIAL_KINDS)]
    return mode, alias


def make_trial(plan: Plan, index: int, seed: int, attempt: int = 0,
               max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES) -> Trial:
    """Trial ``index``'s inputs (``attempt``: a redraw after an assume rejected the last one).
    Raises ``InputTooLarge`` when the sizes the kernels' view types and assumes ask for would take
    more than ``max_input_bytes`` (before any array is allocated)."""
    mode, alias = schedule(plan, index)
    rng = np.random.default_rng([seed, index] if attempt == 0 else [seed, index, attempt])
    cap = 1 + min(index // 4, 2)  # shapes grow with the trial number
    parent = dict(plan.parent)
    if alias is not None:
        j, k = alias
        for kind in ("shape", "stride"):
            for d in range(plan.ndims[j]):
                _union(parent, (kind, j, d), (kind, k, d))
    groups: Dict[Slot, List[Slot]] = {}
    for s in plan.slots():
        groups.setdefault(plan.find(s, parent), []).append(s)
    value, conflict = _draw_sizes(plan, groups, index, rng, cap)
    layouts = [_array_layout(plan, k, parent, groups, value) for k in range(len(plan.elems))]
    _check_input_size(plan, layouts, alias, index, max_input_bytes)
    arrays, alias_mismatch = _array_inputs(plan, layouts, alias, rng, mode)
    if (conflict or alias_mismatch) and alias is not None:
        # these two arrays cannot share memory (static sizes differ): a plain trial instead
        plain = Plan(**{**plan.__dict__, "alias_pairs": []})
        return make_trial(plain, index, seed, attempt, max_input_bytes)
    scalars = [scalar_value(p, rng) for p in plan.scalars]
    for n, slot in plan.scalar_slot.items():
        scalars[n] = value.get(plan.find(slot, parent), scalars[n])
    for n, m in plan.scalar_same.items():
        scalars[n] = scalars[m]
    g = [int(rng.integers(1, 3 + min(index // 4, 1))) if used else 1 for used in plan.block_axes]
    return Trial(index, (g[0], g[1], g[2]), arrays, scalars, mode, alias)


def _merged_facts(plan: Plan, members: Sequence[Slot]) -> ArgFacts:
    """What every assume on the arguments feeding these slots says, together."""
    f = ArgFacts()
    for s in members:
        if s in plan.facts:
            f = f.merged(plan.facts[s])
    return f


def _draw_sizes(plan: Plan, groups: Dict[Slot, List[Slot]], index: int, rng, cap: int
                ) -> Tuple[Dict[Slot, int], bool]:
    """One value per group of tied slots: its static size/stride, or a drawn size (strides are
    set later, from the sizes); and whether some group's statics or assumes cannot all hold.
    Even trials give the dims of arrays of one rank one size (as an elementwise kernel's inputs
    and outputs have), odd trials draw each group from a pool of three sizes (so a matmul's M, N
    and K coincide in varied ways)."""
    shared = index % 2 == 0
    hint_all = max([max(h, default=1) for h in plan.tile_hint] or [DEFAULT_HINT])
    pool = [int(n) for n in rng.integers(1, cap * hint_all + 1, size=3)]
    by_rank: Dict[Tuple[int, int], int] = {}
    value: Dict[Slot, int] = {}
    conflict = False
    for root, members in sorted(groups.items()):
        statics = {plan.static[s] for s in members if s in plan.static}
        if len(statics) > 1:
            conflict = True
        f = _merged_facts(plan, members)
        if statics:
            value[root] = statics.pop()
            if not _satisfies(value[root], f):
                conflict = True
            continue
        shapes = [s for s in members if s[0] == "shape"]
        if not shapes:
            continue  # a stride: set below, from the sizes
        key = (plan.ndims[shapes[0][1]], shapes[0][2])
        n = _draw_size(plan, shapes, f, rng, cap, shared, by_rank.get(key), pool)
        if not _satisfies(n, f):
            conflict = True
        by_rank.setdefault(key, n)
        value[root] = n
    return value, conflict


def _draw_size(plan: Plan, shapes: List[Slot], f: ArgFacts, rng, cap: int, shared: bool,
               same_rank: Optional[int], pool: List[int]) -> int:
    """A size for one group of tied size slots: on even (``shared``) trials the size already
    drawn for this (rank, dim) if any (``same_rank``), on odd trials one from ``pool``, else a
    fresh draw; then fitted to the assumes ``f``."""
    hint = max(max(1, plan.tile_hint[k][d]) for _, k, d in shapes)
    pointer_only = any(plan.pointer_only[k] for _, k, _ in shapes)
    if shared and same_rank is not None:
        n = same_rank
        n = max(n, hint) if pointer_only else min(n, max(1, cap * hint))
    elif not shared:
        n = pool[int(rng.integers(0, 3))]
        n = max(n, hint) if pointer_only else min(n, max(1, cap * hint))
    elif pointer_only:
        n = int(rng.integers(hint, 2 * hint + 1))  # unchecked pointer accesses: cover the tile
    else:
        n = int(rng.integers(1, max(2, min(cap, 3) * hint) + 1))
    n = _fit(max(n, 1), f)
    if n < 1:
        n = max(1, f.divisor)
    return n


def _array_layout(plan: Plan, k: int, parent: Dict[Slot, Slot], groups: Dict[Slot, List[Slot]],
                  value: Dict[Slot, int]) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """Plan array ``k``'s shape and strides: static or tied strides as given, the others
    row-major over the sizes (fitted to their assumes unless the kernel computes them)."""
    nd = plan.ndims[k]
    shape = tuple(value[plan.find(("shape", k, d), parent)] for d in range(nd))
    strides = [0] * nd
    running = 1
    for d in range(nd - 1, -1, -1):
        root = plan.find(("stride", k, d), parent)
        if root in value:
            s = value[root]
        else:
            f = _merged_facts(plan, groups[root])
            s = running if plan.computed_strides[k] else max(_fit(running, f), 1)
            value[root] = s
        strides[d] = s
        running = max(running, s * shape[d])
    return shape, tuple(strides)


def _array_inputs(plan: Plan, layouts, alias: Optional[Tuple[int, int]], rng, mode: str
                  ) -> Tuple[List[ArrayInput], bool]:
    """The arrays' values (the alias's second array shares the first's), and whether the two
    aliased arrays' layouts differ."""
    arrays: List[ArrayInput] = []
    mismatch = False
    for k, (elem, (shape, strides)) in enumerate(zip(plan.elems, layouts)):
        if alias is not None and k == alias[1]:
            src = arrays[alias[0]]
            if src.shape != shape or src.strides != strides:
                mismatch = True
            arrays.append(ArrayInput(elem, src.shape, src.strides, src.values, src.how, alias_of=alias[0]))
            continue
        values, how = make_values(elem, shape, rng, mode)
        arrays.append(ArrayInput(elem, shape, strides, values, how))
    return arrays, mismatch


class InputTooLarge(ValueError):
    """A trial's arrays would take more memory than the cap allows (the message says how much and
    which array)."""


def _check_input_size(plan: Plan, layouts, alias, index: int, cap: int) -> None:
    total, largest = 0, (0, 0)
    for k, (shape, strides) in enumerate(layouts):
        if alias is not None and k == alias[1]:
            continue
        extent = 1 + sum((n - 1) * abs(s) for n, s in zip(shape, strides) if n > 0)
        nbytes = extent * dt.itemsize(plan.elems[k])
        total += nbytes
        largest = max(largest, (nbytes, k))
    if total > cap:
        nbytes, k = largest
        shape = "x".join(map(str, layouts[k][0]))
        raise InputTooLarge(f"inputs too large: trial {index} needs {total / (1 << 20):,.0f} MiB of arrays (array{k} "
                            f"{plan.elems[k]}[{shape}] alone {nbytes / (1 << 20):,.0f} MiB, sized by the kernels' "
                            f"view types and assumes), over the cap of {cap / (1 << 20):,.0f} MiB "
                            f"(execute_options max_input_bytes)")


def scalar_value(pair: ScalarPair, rng: np.random.Generator):
    if pair.fixed is not None:
        return pair.fixed
    f = pair.facts
    if dt.is_float(pair.elem):
        return float(dt.round_to(np.float32(rng.uniform(0.5, 2.0)), pair.elem))
    if pair.elem == "i1":
        return bool(rng.integers(0, 2))
    lo = f.lower if f.lower is not None else 1
    hi = f.upper if f.upper is not None else max(lo, 1) + 4
    v = _fit(int(rng.integers(lo, max(lo, hi) + 1)), f)
    if v == 0 and f.divisor > 1 and f.lower is None:
        v = f.divisor  # a multiple that is not 0 (0 would hide what the divisor is for)
    return v


# --- values ------------------------------------------------------------------------------------

_LARGE: Dict[str, Tuple[float, float]] = {"f32": (80.0, 100.0), "bf16": (80.0, 100.0), "tf32": (80.0, 100.0), "f16": (10.0, 12.0),
          "f64": (700.0, 720.0), "f8E4M3FN": (5.0, 7.0), "f8E5M2": (10.0, 12.0)}


def _specials(elem: str, kind: str) -> np.ndarray:
    tiny = {"f16": 2.0 ** -14, "f64": 2.0 ** -1022, "f8E4M3FN": 2.0 ** -6, "f8E5M2": 2.0 ** -14}.get(elem, 2.0 ** -126)
    big = {"f16": 65504.0, "f64": 1.7976931348623157e308, "bf16": 3.3895313892515355e38, "f8E4M3FN": 448.0,
           "f8E5M2": 57344.0, "tf32": 3.4e38}.get(elem, 3.4028234663852886e38)
    if kind == SPECIAL_KINDS[0]:
        vals = [-0.0, 0.0, tiny * 0.5, -tiny * 0.25, tiny, -tiny]
        if elem in ("f32", "bf16", "tf32"):
            vals.append(2.0 ** -149 if elem == "f32" else tiny * 2.0 ** -7)  # the smallest subnormal
    elif kind == SPECIAL_KINDS[1]:
        vals = [np.nan, np.inf, -np.inf] if elem != "f8E4M3FN" else [np.nan]  # e4m3fn: no infinity
    else:
        vals = [big, -big, big / 2, -big / 3]
    return np.array(vals, dtype=np.float64)


def make_values(elem: str, shape, rng: np.random.Generator, mode: str) -> Tuple[np.ndarray, str]:
    if mode == "zeros":
        return np.zeros(shape, dt.compute_dtype(elem)), "zeros"
    if mode == "ones":
        return np.ones(shape, dt.compute_dtype(elem)), "ones"
    if elem == "i1":
        return rng.integers(0, 2, size=shape).astype(bool), "random bools"
    if not dt.is_float(elem):
        # small non-negative ints mostly (integer arrays are often indices); wider and negative
        # ones in the "wide" trials
        lo, hi = {"ints": (0, 16), "wide": (-8, 64)}.get(mode, (0, 4))
        return rng.integers(lo, hi, size=shape).astype(dt.compute_dtype(elem)), f"random ints in [{lo}, {hi})"
    if mode == "ints":
        return dt.round_to(rng.integers(-3, 4, size=shape).astype(np.float32), elem), "random ints in [-3, 4)"
    if mode == "wide":
        return dt.round_to((rng.standard_normal(shape) * 64).astype(np.float32), elem), "normal(0, 64)"
    base = rng.standard_normal(shape)
    if mode.startswith("special"):
        # 1 element in 8 replaced, and each special value placed once where the array has room
        # (at most half of its elements)
        sp = _specials(elem, mode)
        flat = base.reshape(-1)
        pick = rng.random(flat.size) < 0.125
        flat = np.where(pick, sp[rng.integers(0, len(sp), size=flat.size)], flat)
        room = min(len(sp), max(1, flat.size // 2))
        if flat.size:
            flat[rng.permutation(flat.size)[:room]] = rng.permutation(sp)[:room]
        return _to_elem(flat.reshape(base.shape), elem), f"normal(0, 1) with {mode[len('special: '):]} (1 in 8)"
    if mode == "large":
        low, high = _LARGE.get(elem, (80.0, 100.0))
        mag = rng.uniform(low, high, size=shape) * np.where(rng.random(shape) < 0.5, -1.0, 1.0)
        base = np.where(rng.random(shape) < 0.5, mag, base)
        return _to_elem(base, elem), f"normal(0, 1) and +-[{low:g}, {high:g}] (1 in 2)"
    return _to_elem(base, elem), "normal(0, 1)"


def _to_elem(x: np.ndarray, elem: str) -> np.ndarray:
    if elem == "f64":
        return np.asarray(x, np.float64)
    with np.errstate(over="ignore"):
        return dt.round_to(np.asarray(x, np.float64).astype(np.float32), elem)
