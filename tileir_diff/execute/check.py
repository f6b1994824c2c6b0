"""Differential execution: run two kernels on the same generated inputs and look for an input
where the memory they leave behind differs.

Inputs are drawn from a seeded NumPy generator, smallest shapes first; the first diverging trial
is then shrunk (arrays set to zeros/ones, dims halved) while it still diverges, so the reported
counterexample is small. Outputs are compared exactly (NaN equals NaN) unless ``rtol``/``atol``
are given: the question is "do these kernels compute the same thing", and a reordered float sum
is a real (if small) difference; the report gives the largest difference so a reader can judge.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from tileir_diff.ir import Module
from tileir_diff.interp import dtypes as dt
from tileir_diff.interp.errors import InterpreterError, UnsupportedOpError
from tileir_diff.interp.machine import Interpreter, Options
from tileir_diff.interp.memory import Memory

from .signature import ArraySpec, Layout, ScalarSpec, infer_layout

STATUSES = ("diverged", "no_divergence", "unsupported")
DEFAULT_HINT = 16


@dataclass
class ArrayInput:
    elem: str
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    values: np.ndarray  # compute representation, logical shape
    how: str


@dataclass
class Trial:
    index: int
    grid: Tuple[int, int, int]
    arrays: List[ArrayInput]
    scalars: List[Any]

    def summary(self) -> dict:
        arrays = []
        for k, a in enumerate(self.arrays):
            d = {"name": f"array{k}", "dtype": a.elem, "shape": list(a.shape), "strides": list(a.strides),
                 "values": a.how}
            if a.values.size <= 16:
                d["data"] = _plain(a.values.reshape(-1))
            arrays.append(d)
        return {"grid": list(self.grid), "arrays": arrays,
                "scalars": [_plain(np.asarray(s).reshape(-1))[0] for s in self.scalars]}


@dataclass
class ExecutionResult:
    status: str
    trials: int = 0
    seed: int = 0
    reason: Optional[str] = None
    counterexample: Optional[dict] = None
    skipped_trials: int = 0
    seconds: float = 0.0
    entries: Tuple[str, str] = ("", "")

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"unknown execution status {self.status!r}")

    @property
    def message(self) -> str:
        if self.status == "diverged":
            c = self.counterexample or {}
            if c.get("kind") == "error":
                return (f"diverged: {'left' if c.get('left_error') else 'right'} kernel failed on an input the other "
                        f"ran: {c.get('left_error') or c.get('right_error')}")
            return (f"diverged: {c.get('output')}{c.get('index')} is {c.get('left')} (left) vs {c.get('right')} "
                    f"(right); {c.get('differing_elements')} element(s) differ")
        if self.status == "no_divergence":
            return f"no divergence in {self.trials} trials"
        return f"unsupported: {self.reason}"

    def to_dict(self) -> dict:
        d = {"status": self.status, "message": self.message, "trials": self.trials, "seed": self.seed,
             "skipped_trials": self.skipped_trials, "seconds": round(self.seconds, 3),
             "entries": list(self.entries), "reason": self.reason}
        if self.counterexample is not None:
            d["counterexample"] = self.counterexample
        return d


def _plain(a: np.ndarray) -> list:
    out = []
    for x in np.asarray(a).tolist():
        if isinstance(x, float) and not np.isfinite(x):
            out.append(str(x))
        else:
            out.append(x)
    return out


# --- input generation ------------------------------------------------------------------------------

def _round_up(n: int, k: int) -> int:
    return -(-n // k) * k if k > 1 else n


def _array_layout(spec: ArraySpec, rng: np.random.Generator, cap: int,
                  like: Optional[Tuple[int, ...]] = None) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    shape = []
    for d in range(spec.ndim):
        fixed = spec.static_shape[d] if d < len(spec.static_shape) else None
        if fixed is not None:
            shape.append(int(fixed))
            continue
        f = spec.shape_facts[d] if d < len(spec.shape_facts) else None
        hint = max(1, spec.tile_hint[d])
        if like is not None:
            # a size shared with other dims, but never past what this dim's tiles cover
            n = max(like[d], hint) if spec.pointer_only else min(like[d], max(1, cap * hint))
        elif spec.pointer_only:
            # pointer-tile accesses are often unchecked: cover the largest tile at least
            n = int(rng.integers(hint, 2 * hint + 1))
        else:
            n = int(rng.integers(1, max(2, min(cap, 3) * hint) + 1))
        if f is not None:
            n = _round_up(n, f.divisor)
            if f.lower is not None:
                n = max(n, f.lower)
            if f.upper is not None:
                n = min(n, f.upper)
        shape.append(max(n, 1))
    strides = [0] * spec.ndim
    running = 1
    for d in range(spec.ndim - 1, -1, -1):
        fixed = spec.static_strides[d] if d < len(spec.static_strides) else None
        f = spec.stride_facts[d] if d < len(spec.stride_facts) else None
        s = running if fixed is None else int(fixed)
        if fixed is None and f is not None and f.divisor > 1:
            s = _round_up(s, f.divisor)  # pad rows so the stride meets the kernel's div_by
        strides[d] = s
        running = s * shape[d]
    return tuple(shape), tuple(strides)


def _values(elem: str, shape, rng: np.random.Generator, mode: str) -> Tuple[np.ndarray, str]:
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
    return dt.round_to(rng.standard_normal(shape).astype(np.float32), elem), "normal(0, 1)"


def _scalar_value(spec: ScalarSpec, rng: np.random.Generator):
    f = spec.facts
    if dt.is_float(spec.elem):
        return float(dt.round_to(np.float32(rng.uniform(0.5, 2.0)), spec.elem))
    if spec.elem == "i1":
        return bool(rng.integers(0, 2))
    lo = f.lower if f.lower is not None else 1
    hi = f.upper if f.upper is not None else max(lo, 1) + 4
    v = int(rng.integers(lo, max(lo, hi) + 1))
    return _round_up(v, f.divisor)


# value modes by trial: plain normals, small integers (exact in every float type, so
# reassociation cannot hide a difference), wide normals (to cross thresholds such as a
# data-dependent break), zeros (to expose identities of reductions)
_MODES = ("normal", "ints", "wide", "zeros")


def make_trial(layout: Layout, index: int, seed: int) -> Trial:
    rng = np.random.default_rng([seed, index])
    cap = 1 + min(index // len(_MODES), 2)  # shapes grow with the trial number
    mode = _MODES[index % len(_MODES)]
    arrays = []
    # Even trials: arrays of one rank share a shape (as an elementwise kernel's inputs and
    # outputs do). Odd trials: each dim takes one of a few sizes drawn for the trial, so dims
    # of different arrays coincide in varied ways (a matmul's M, N and K).
    by_rank = {}
    shared = index % 2 == 0
    hint = max([max(a.tile_hint, default=1) for a in layout.arrays] or [DEFAULT_HINT])
    pool = [int(n) for n in rng.integers(1, cap * hint + 1, size=3)]
    for spec in layout.arrays:
        like = by_rank.get(spec.ndim) if shared else tuple(pool[int(rng.integers(0, 3))] for _ in range(spec.ndim))
        shape, strides = _array_layout(spec, rng, cap, like)
        by_rank.setdefault(spec.ndim, shape)
        values, how = _values(spec.elem, shape, rng, mode)
        arrays.append(ArrayInput(spec.elem, shape, strides, values, how))
    scalars = [_scalar_value(s, rng) for s in layout.scalars]
    grid = tuple(int(rng.integers(1, 3 + min(index // 4, 1))) if used else 1 for used in layout.block_axes)
    return Trial(index, grid, arrays, scalars)


# --- running ---------------------------------------------------------------------------------------

@dataclass
class Outcome:
    arrays: Optional[List[np.ndarray]] = None  # full buffer contents per array (compute repr.)
    error: Optional[InterpreterError] = None
    prints: List[str] = field(default_factory=list)


def _flat_args(layout: Layout, trial: Trial, memory: Memory) -> Tuple[list, List[Tuple[int, int, ArrayInput]]]:
    flat: list = [None] * len(layout.arg_types)
    placed = []
    arrays = iter(trial.arrays)
    scalars = iter(trial.scalars)
    for item in layout.items:
        if isinstance(item, ArraySpec):
            a = next(arrays)
            base = memory.put_array(a.values, a.elem, a.strides, label=f"array{len(placed)}")
            extent = 1 + sum((n - 1) * s for n, s in zip(a.shape, a.strides) if n > 0)
            placed.append((base, extent, a))
            flat[item.pointer_arg] = base
            if item.index_elem:
                for d in range(item.ndim):
                    flat[item.pointer_arg + 1 + d] = a.shape[d]
                    flat[item.pointer_arg + 1 + item.ndim + d] = a.strides[d]
        else:
            flat[item.arg] = next(scalars)
    return flat, placed


def run_trial(module: Module, layout: Layout, trial: Trial, options: Optional[Options] = None) -> Outcome:
    memory = Memory()
    flat, placed = _flat_args(layout, trial, memory)
    interp = Interpreter(module, memory, options)
    try:
        interp.run(layout.entry, flat, trial.grid)
    except UnsupportedOpError:
        raise
    except InterpreterError as exc:
        return Outcome(error=exc)
    out = []
    for base, extent, a in placed:
        out.append(memory.get_array(base, (extent,), (1,), a.elem))
    return Outcome(arrays=out, prints=interp.prints)


def compare(left: Outcome, right: Outcome, trial: Trial, rtol: float = 0.0, atol: float = 0.0) -> Optional[dict]:
    """None when both left the same memory (or both failed); else the counterexample."""
    if left.error is not None or right.error is not None:
        if left.error is not None and right.error is not None:
            return None
        return {"kind": "error", "left_error": str(left.error) if left.error else None,
                "right_error": str(right.error) if right.error else None}
    for k, (la, ra, a) in enumerate(zip(left.arrays, right.arrays, trial.arrays)):
        if dt.is_float(a.elem):
            l64, r64 = la.astype(np.float64), ra.astype(np.float64)
            both_nan = np.isnan(l64) & np.isnan(r64)
            with np.errstate(invalid="ignore"):
                close = (l64 == r64) | both_nan
                if rtol or atol:
                    close |= np.abs(l64 - r64) <= atol + rtol * np.abs(r64)
            diff = ~close
        else:
            diff = la != ra
        if diff.any():
            flat_index = int(np.argmax(diff.reshape(-1)))
            index = _logical_index(flat_index, a)
            result = {"kind": "values", "output": f"array{k}", "index": index,
                      "left": _plain(la.reshape(-1)[flat_index:flat_index + 1])[0],
                      "right": _plain(ra.reshape(-1)[flat_index:flat_index + 1])[0],
                      "differing_elements": int(diff.sum())}
            if dt.is_float(a.elem):
                with np.errstate(invalid="ignore"):
                    d = np.abs(la.astype(np.float64) - ra.astype(np.float64))[diff]
                finite = d[np.isfinite(d)]
                result["max_abs_diff"] = float(finite.max()) if finite.size else None
            return result
    if left.prints != right.prints:
        k = next((i for i, (x, y) in enumerate(zip(left.prints, right.prints)) if x != y),
                 min(len(left.prints), len(right.prints)))
        at = lambda p: p[k] if k < len(p) else None  # noqa: E731
        return {"kind": "print", "output": "printed", "index": [k], "left": at(left.prints),
                "right": at(right.prints), "differing_elements": sum(x != y for x, y in zip(left.prints, right.prints))
                + abs(len(left.prints) - len(right.prints))}
    return None


def _logical_index(flat: int, a: ArrayInput):
    """Buffer element offset -> the array's logical index (or ``padding+N`` between elements)."""
    rem = flat
    idx = []
    order = sorted(range(len(a.shape)), key=lambda d: -a.strides[d])
    coords = [0] * len(a.shape)
    for d in order:
        s = a.strides[d]
        if s <= 0:
            continue
        coords[d] = rem // s
        rem -= coords[d] * s
    if rem == 0 and all(c < n for c, n in zip(coords, a.shape)):
        return coords
    return f"buffer element {flat} (between the array's elements)"


# --- the check -------------------------------------------------------------------------------------

def _compatible(a: Layout, b: Layout) -> Optional[str]:
    ka = [x.key() for x in a.arrays]
    kb = [x.key() for x in b.arrays]
    if ka != kb:
        return f"entry signatures differ in their arrays: {a.describe()} vs {b.describe()}"
    return None


def _scalars_for(layout: Layout, trial: Trial, rng_seed: Tuple[int, int]) -> Trial:
    """The trial's scalars re-fitted to another layout: same values by position where the types
    match, fresh ones for scalars only this side has."""
    rng = np.random.default_rng(list(rng_seed))
    scalars = []
    for k, s in enumerate(layout.scalars):
        scalars.append(trial.scalars[k] if k < len(trial.scalars) else _scalar_value(s, rng))
    return Trial(trial.index, trial.grid, trial.arrays, scalars)


def _entry_pairs(left: Module, right: Module) -> List[Tuple[str, str]]:
    ln = [f.name for f in left.functions if f.is_entry]
    rn = [f.name for f in right.functions if f.is_entry]
    if len(ln) == 1 and len(rn) == 1:
        return [(ln[0], rn[0])]
    common = [n for n in ln if n in rn]
    return [(n, n) for n in common] or list(zip(ln, rn))


def check(left: Module, right: Module, *, trials: int = 20, seed: int = 0, rtol: float = 0.0, atol: float = 0.0,
          time_budget: float = 120.0, entries: Optional[Tuple[str, str]] = None,
          options: Optional[Options] = None) -> ExecutionResult:
    """Look for an input on which ``left`` and ``right`` leave different memory (or print
    differently). Modules with several entries are checked entry pair by entry pair (paired by
    name); the first divergence is reported."""
    pairs = [entries] if entries is not None else _entry_pairs(left, right)
    if not pairs:
        return ExecutionResult("unsupported", seed=seed, reason="no entry function to run")
    t0 = time.perf_counter()
    results = []
    for pair in pairs:
        remaining = max(0.0, time_budget - (time.perf_counter() - t0))
        r = _check_pair(left, right, trials=trials, seed=seed, rtol=rtol, atol=atol, time_budget=remaining,
                        entries=pair, options=options)
        if r.status == "diverged":
            r.seconds = time.perf_counter() - t0
            return r
        results.append(r)
    if any(r.status == "no_divergence" for r in results):
        done = [r for r in results if r.status == "no_divergence"]
        out = ExecutionResult("no_divergence", sum(r.trials for r in done), seed,
                              skipped_trials=sum(r.skipped_trials for r in done), entries=done[0].entries,
                              seconds=time.perf_counter() - t0)
        unsupported = [r for r in results if r.status == "unsupported"]
        if unsupported:
            out.reason = "; ".join(f"@{r.entries[0]}: {r.reason}" for r in unsupported)
        return out
    results[0].seconds = time.perf_counter() - t0
    return results[0]


def _check_pair(left: Module, right: Module, *, trials: int, seed: int, rtol: float, atol: float,
                time_budget: float, entries: Tuple[Optional[str], Optional[str]],
                options: Optional[Options]) -> ExecutionResult:
    t0 = time.perf_counter()
    try:
        la = infer_layout(left, entries[0])
        lb = infer_layout(right, entries[1])
    except (InterpreterError, KeyError) as exc:
        return ExecutionResult("unsupported", seed=seed, reason=f"cannot read the entry signatures: {exc}",
                               seconds=time.perf_counter() - t0)
    names = (la.entry, lb.entry)
    why = _compatible(la, lb)
    if why:
        return ExecutionResult("unsupported", seed=seed, reason=why, entries=names, seconds=time.perf_counter() - t0)
    # a block-id axis either kernel reads gets more than one block
    axes = tuple(x or y for x, y in zip(la.block_axes, lb.block_axes))
    la = Layout(la.entry, la.items, axes, la.arg_types)
    done = skipped = 0
    errors: List[str] = []
    for k in range(trials):
        if time.perf_counter() - t0 > time_budget:
            break
        trial = make_trial(la, k, seed)
        try:
            lo = run_trial(left, la, trial, options)
            rtrial = _scalars_for(lb, trial, (seed, k + 10_000))
            ro = run_trial(right, lb, rtrial, options)
        except UnsupportedOpError as exc:
            return ExecutionResult("unsupported", done, seed, reason=str(exc), entries=names,
                                   seconds=time.perf_counter() - t0)
        done += 1
        if lo.error is not None and ro.error is not None:
            skipped += 1
            errors.append(str(lo.error))
            continue
        cex = compare(lo, ro, trial, rtol, atol)
        if cex is not None:
            trial, cex = _shrink(left, right, la, lb, trial, cex, seed, rtol, atol, options, t0, time_budget)
            cex["trial"] = trial.index
            cex["inputs"] = trial.summary()
            return ExecutionResult("diverged", done, seed, counterexample=cex, skipped_trials=skipped,
                                   entries=names, seconds=time.perf_counter() - t0)
    if done and skipped == done:
        return ExecutionResult("unsupported", done, seed, skipped_trials=skipped, entries=names,
                               reason=f"both kernels failed on every generated input, e.g. {errors[0]}",
                               seconds=time.perf_counter() - t0)
    if done == 0:
        return ExecutionResult("unsupported", 0, seed, reason="time budget spent before the first trial",
                               entries=names, seconds=time.perf_counter() - t0)
    return ExecutionResult("no_divergence", done, seed, skipped_trials=skipped, entries=names,
                           seconds=time.perf_counter() - t0)


def _shrink(left, right, la, lb, trial: Trial, cex: dict, seed, rtol, atol, options, t0, budget, max_runs: int = 24):
    """Simplify a diverging trial while it still diverges: arrays to zeros/ones, dims halved."""
    runs = 0

    def diverges(candidate: Trial) -> Optional[dict]:
        nonlocal runs
        runs += 1
        try:
            lo = run_trial(left, la, candidate, options)
            ro = run_trial(right, lb, _scalars_for(lb, candidate, (seed, candidate.index + 10_000)), options)
        except UnsupportedOpError:
            return None
        return compare(lo, ro, candidate, rtol, atol)

    def budget_left():
        return runs < max_runs and time.perf_counter() - t0 < budget

    # smaller grid first: fewer blocks are easier to read
    for axis in range(3):
        while trial.grid[axis] > 1 and budget_left():
            g = list(trial.grid)
            g[axis] -= 1
            cand = Trial(trial.index, tuple(g), trial.arrays, trial.scalars)
            c = diverges(cand)
            if c is None:
                break
            trial, cex = cand, c
    for k in range(len(trial.arrays)):
        for mode in ("zeros", "ones"):
            if not budget_left():
                break
            a = trial.arrays[k]
            if a.how == mode:
                break
            values, how = _values(a.elem, a.shape, np.random.default_rng(0), mode)
            arrays = list(trial.arrays)
            arrays[k] = ArrayInput(a.elem, a.shape, a.strides, values, how)
            cand = Trial(trial.index, trial.grid, arrays, trial.scalars)
            c = diverges(cand)
            if c is not None:
                trial, cex = cand, c
                break
    return trial, cex
