"""Differential execution: run two kernels on the same generated inputs and look for an input
where the memory they leave behind differs.

Inputs come from ``inputs.make_trial`` (a plan shared by both kernels: sizes and strides
consistent with both signatures and their assumes, free scalars paired by position, special
values and alias trials in some of the trials). The first diverging trial is then shrunk (fewer
blocks, arrays set to zeros/ones) while it still diverges, so the reported counterexample is
small. Outputs are compared exactly (NaN equals NaN whatever its payload, -0.0 differs from +0.0)
unless ``rtol``/``atol`` are given: the question is "do these kernels compute the same thing", and
a reordered float sum is a real (if small) difference; the report gives the largest difference so
a reader can judge.

A trial on which a kernel breaks an ``assume`` is *invalid* (the input is outside what the kernel
promises to handle): it is counted in ``invalid_trials`` and never shown as a counterexample.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy as np

from tileir_diff.ir import EnumValue, Module
from tileir_diff.interp import dtypes as dt
from tileir_diff.interp.errors import AssumeViolation, InterpreterError, MemoryAccessError, UnsupportedOpError
from tileir_diff.interp.machine import Interpreter, Options
from tileir_diff.interp.memory import Memory

from .inputs import ArrayInput, Plan, Trial, make_plan, make_trial, make_values
from .signature import Layout, infer_layout
from .tokens import ordered_pairs

STATUSES = ("diverged", "no_divergence", "unsupported")
ATTEMPTS = 3  # draws per trial number when a draw breaks an assume inside a kernel


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
    invalid_trials: int = 0            # draws rejected because a kernel's assume was violated
    invalid_reason: Optional[str] = None  # the first such violation
    notes: List[str] = field(default_factory=list)  # what the run does not model / how to read it
    families: Dict[str, int] = field(default_factory=dict)  # valid trials run per value family ("alias ..." too)

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"unknown execution status {self.status!r}")

    @property
    def message(self) -> str:
        if self.status == "diverged":
            c = self.counterexample or {}
            alias = f" ({c['note']})" if c.get("note") else ""
            if c.get("kind") == "error":
                return (f"diverged: {'left' if c.get('left_error') else 'right'} kernel failed on an input the other "
                        f"ran: {c.get('left_error') or c.get('right_error')}{alias}")
            return (f"diverged: {c.get('output')}{c.get('index')} is {c.get('left')} (left) vs {c.get('right')} "
                    f"(right); {c.get('differing_elements')} element(s) differ{alias}")
        if self.status == "no_divergence":
            extra = ""
            if self.invalid_trials:
                extra = f" ({self.invalid_trials} generated input(s) rejected: {self.invalid_reason})"
            return f"no divergence in {self.trials} trials{extra}"
        return f"unsupported: {self.reason}"

    def to_dict(self) -> dict:
        d = {"status": self.status, "message": self.message, "trials": self.trials, "seed": self.seed,
             "skipped_trials": self.skipped_trials, "seconds": round(self.seconds, 3),
             "entries": list(self.entries), "reason": self.reason, "invalid_trials": self.invalid_trials,
             "invalid_reason": self.invalid_reason, "notes": list(self.notes), "families": dict(self.families)}
        if self.counterexample is not None:
            d["counterexample"] = self.counterexample
        return d


def _plain(a: np.ndarray) -> list:
    from .inputs import _plain as plain
    return plain(a)


# --- running ---------------------------------------------------------------------------------------

@dataclass
class Outcome:
    arrays: Optional[List[np.ndarray]] = None  # full buffer contents per array (compute repr.)
    error: Optional[InterpreterError] = None
    prints: List[str] = field(default_factory=list)
    invalid: Optional[str] = None  # why this input is not one the kernel accepts


def _flat_args(layout: Layout, plan: Plan, trial: Trial, memory: Memory, side: str):
    flat: list = [None] * len(layout.arg_types)
    placed: List[Tuple[int, int, ArrayInput]] = []
    for k, (spec, a) in enumerate(zip(layout.arrays, trial.arrays)):
        if a.alias_of is not None:
            base = placed[a.alias_of][0]
        else:
            align = max(256, spec.pointer_divisor, plan.left.arrays[k].pointer_divisor,
                        plan.right.arrays[k].pointer_divisor)
            base = memory.put_array(a.values, a.elem, a.strides, label=f"array{k}", align=align)
        extent = 1 + sum((n - 1) * s for n, s in zip(a.shape, a.strides) if n > 0)
        placed.append((base, extent, a))
        flat[spec.pointer_arg] = base
    for arg, slots in layout.slots.items():
        values = {(trial.arrays[k].shape if kind == "shape" else trial.arrays[k].strides)[d] for kind, k, d in slots}
        if len(values) > 1:
            return None, f"argument {arg} stands for {len(values)} different sizes/strides {sorted(values)}"
        flat[arg] = values.pop()
    table = plan.left_scalar if side == "left" else plan.right_scalar
    for n, spec in enumerate(layout.scalars):
        flat[spec.arg] = trial.scalars[table[n]]
    return (flat, placed), None


def run_trial(module: Module, layout: Layout, plan: Plan, trial: Trial, side: str = "left",
              options: Optional[Options] = None) -> Outcome:
    memory = Memory()
    args, why = _flat_args(layout, plan, trial, memory, side)
    if args is None:
        return Outcome(invalid=why)
    flat, placed = args
    interp = Interpreter(module, memory, options)
    try:
        interp.run(layout.entry, flat, trial.grid)
    except UnsupportedOpError:
        raise
    except AssumeViolation as exc:
        return Outcome(invalid=str(exc))
    except MemoryAccessError as exc:
        guessed = [f"array{k}" for k, a in enumerate(layout.arrays) if a.guessed_extent]
        if guessed:
            # nothing in this kernel's IR says how large its bare-pointer arrays are: an access
            # past the generated buffer says more about the guess than about the kernel
            return Outcome(invalid=f"{exc} (the extent of {', '.join(guessed)} is guessed: a bare pointer)")
        return Outcome(error=exc)
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
        if a.alias_of is not None:
            continue  # the same buffer as an earlier array, compared there
        if dt.is_float(a.elem):
            with np.errstate(invalid="ignore"):  # a signalling NaN widened signals invalid
                l64, r64 = la.astype(np.float64), ra.astype(np.float64)
                both_nan = np.isnan(l64) & np.isnan(r64)
                close = ((l64 == r64) & (np.signbit(l64) == np.signbit(r64))) | both_nan
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


def _entry_pairs(left: Module, right: Module) -> List[Tuple[str, str]]:
    ln = [f.name for f in left.functions if f.is_entry]
    rn = [f.name for f in right.functions if f.is_entry]
    if len(ln) == 1 and len(rn) == 1:
        return [(ln[0], rn[0])]
    common = [n for n in ln if n in rn]
    return [(n, n) for n in common] or list(zip(ln, rn))


def approx_notes(module: Module, side: str) -> List[str]:
    """One note per kind of approximate math a module uses, which the interpreter computes as
    correctly rounded (not modelled)."""
    found: Dict[str, List[str]] = {}
    where = Interpreter(module)._where  # op ids as the reports print them
    for f in module.functions:
        for op in f.walk():
            mode = op.attributes.get("rounding_mode")
            name = mode.name if isinstance(mode, EnumValue) else mode
            if name == "approx":
                found.setdefault(op.name, []).append(where.get(id(op), "?"))
    notes = []
    for name, ids in sorted(found.items()):
        more = f" (+{len(ids) - 3} more)" if len(ids) > 3 else ""
        notes.append(f"approx math not modelled: {side} kernel's {name} rounding<approx> at {', '.join(ids[:3])}{more} "
                     f"is computed correctly rounded; the device's approximation differs by a few ulps")
    return notes


def check(left: Module, right: Module, *, trials: int = 20, seed: int = 0, rtol: float = 0.0, atol: float = 0.0,
          time_budget: float = 120.0, entries: Optional[Tuple[str, str]] = None,
          options: Optional[Options] = None, aliasing: bool = True) -> ExecutionResult:
    """Look for an input on which ``left`` and ``right`` leave different memory (or print
    differently). Modules with several entries are checked entry pair by entry pair (paired by
    name); the first divergence is reported. ``aliasing=False`` leaves out alias trials."""
    pairs = [entries] if entries is not None else _entry_pairs(left, right)
    if not pairs:
        return ExecutionResult("unsupported", seed=seed, reason="no entry function to run")
    t0 = time.perf_counter()
    results = []
    for pair in pairs:
        remaining = max(0.0, time_budget - (time.perf_counter() - t0))
        r = _check_pair(left, right, trials=trials, seed=seed, rtol=rtol, atol=atol, time_budget=remaining,
                        entries=pair, options=options, aliasing=aliasing)
        if r.status == "diverged":
            r.seconds = time.perf_counter() - t0
            return r
        results.append(r)
    notes = list(dict.fromkeys(n for r in results for n in r.notes))
    if any(r.status == "no_divergence" for r in results):
        done = [r for r in results if r.status == "no_divergence"]
        invalid = [r for r in results if r.invalid_trials]
        families: Dict[str, int] = {}
        for r in done:
            for k, n in r.families.items():
                families[k] = families.get(k, 0) + n
        out = ExecutionResult("no_divergence", sum(r.trials for r in done), seed,
                              skipped_trials=sum(r.skipped_trials for r in done), entries=done[0].entries,
                              seconds=time.perf_counter() - t0, invalid_trials=sum(r.invalid_trials for r in results),
                              invalid_reason=invalid[0].invalid_reason if invalid else None, notes=notes,
                              families=families)
        unsupported = [r for r in results if r.status == "unsupported"]
        if unsupported:
            out.reason = "; ".join(f"@{r.entries[0]}: {r.reason}" for r in unsupported)
        return out
    results[0].seconds = time.perf_counter() - t0
    results[0].notes = notes
    return results[0]


def _alias_pairs(left: Module, right: Module, la: Layout, lb: Layout) -> Tuple[List[Tuple[int, int]], Dict]:
    ordered = {"left": ordered_pairs(left, la), "right": ordered_pairs(right, lb)}
    pairs, notes = [], {}
    for j, a in enumerate(la.arrays):
        for k in range(j + 1, len(la.arrays)):
            b = la.arrays[k]
            if a.elem != b.elem or a.ndim != b.ndim:
                continue
            if a.guessed_extent or b.guessed_extent or lb.arrays[j].guessed_extent or lb.arrays[k].guessed_extent:
                continue
            by = [side for side in ("left", "right") if frozenset((j, k)) in ordered[side]]
            if not by:
                continue  # neither kernel is written for these two to share memory
            pairs.append((j, k))
            notes[(j, k)] = (f"inputs alias: array{j} and array{k} share memory; the "
                             f"{' and '.join(by)} kernel{'s' if len(by) > 1 else ''}' tokens order their accesses")
    return pairs, notes


def _check_pair(left: Module, right: Module, *, trials: int, seed: int, rtol: float, atol: float,
                time_budget: float, entries: Tuple[Optional[str], Optional[str]],
                options: Optional[Options], aliasing: bool = True) -> ExecutionResult:
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
    alias, alias_notes = _alias_pairs(left, right, la, lb) if aliasing else ([], {})
    plan = make_plan(la, lb, alias, alias_notes)
    notes = list(plan.notes) + approx_notes(left, "left") + approx_notes(right, "right")
    done = skipped = invalid = 0
    invalid_reason: Optional[str] = None
    errors: List[str] = []

    families: Dict[str, int] = {}

    def result(status, **kw):
        return ExecutionResult(status, done, seed, skipped_trials=skipped, entries=names,
                               seconds=time.perf_counter() - t0, invalid_trials=invalid,
                               invalid_reason=invalid_reason, notes=notes, families=families, **kw)

    for k in range(trials):
        if time.perf_counter() - t0 > time_budget:
            break
        for attempt in range(ATTEMPTS):
            trial = make_trial(plan, k, seed, attempt)
            try:
                lo = run_trial(left, la, plan, trial, "left", options)
                ro = run_trial(right, lb, plan, trial, "right", options)
            except UnsupportedOpError as exc:
                return result("unsupported", reason=str(exc))
            bad = lo.invalid or ro.invalid
            if bad is None:
                break
            invalid += 1
            if invalid_reason is None:
                invalid_reason = f"{'left' if lo.invalid else 'right'} kernel: {bad}"
        else:
            continue  # every draw of this trial broke an assume
        done += 1
        family = trial.mode if trial.alias is None else f"alias {trial.mode}"
        families[family] = families.get(family, 0) + 1
        if lo.error is not None and ro.error is not None:
            skipped += 1
            errors.append(str(lo.error))
            continue
        cex = compare(lo, ro, trial, rtol, atol)
        if cex is not None:
            trial, cex = _shrink(left, right, la, lb, plan, trial, cex, rtol, atol, options, t0, time_budget)
            cex["trial"] = trial.index
            cex["inputs"] = trial.summary(plan)
            if trial.alias is not None:
                cex["note"] = plan.alias_notes.get(trial.alias)
            if plan.notes:
                cex["notes"] = list(plan.notes)
            return result("diverged", counterexample=cex)
    if done and skipped == done:
        return result("unsupported", reason=f"both kernels failed on every generated input, e.g. {errors[0]}")
    if done == 0:
        if invalid:
            return result("unsupported", reason=f"every generated input was rejected: {invalid_reason}")
        return result("unsupported", reason="time budget spent before the first trial")
    return result("no_divergence")


def _shrink(left, right, la, lb, plan: Plan, trial: Trial, cex: dict, rtol, atol, options, t0, budget,
            max_runs: int = 24):
    """Simplify a diverging trial while it still diverges on valid inputs: fewer blocks, then
    arrays set to zeros or ones."""
    runs = 0

    def diverges(candidate: Trial) -> Optional[dict]:
        nonlocal runs
        runs += 1
        try:
            lo = run_trial(left, la, plan, candidate, "left", options)
            ro = run_trial(right, lb, plan, candidate, "right", options)
        except UnsupportedOpError:
            return None
        if lo.invalid or ro.invalid:
            return None
        return compare(lo, ro, candidate, rtol, atol)

    def budget_left():
        return runs < max_runs and time.perf_counter() - t0 < budget

    def with_arrays(arrays):
        return Trial(trial.index, trial.grid, arrays, trial.scalars, trial.mode, trial.alias)

    for axis in range(3):
        while trial.grid[axis] > 1 and budget_left():
            g = list(trial.grid)
            g[axis] -= 1
            cand = Trial(trial.index, tuple(g), trial.arrays, trial.scalars, trial.mode, trial.alias)
            c = diverges(cand)
            if c is None:
                break
            trial, cex = cand, c
    for k in range(len(trial.arrays)):
        a = trial.arrays[k]
        if a.alias_of is not None:
            continue
        for mode in ("zeros", "ones"):
            if not budget_left() or a.how == mode:
                break
            values, how = make_values(a.elem, a.shape, np.random.default_rng(0), mode)
            arrays = list(trial.arrays)
            arrays[k] = ArrayInput(a.elem, a.shape, a.strides, values, how)
            for m, b in enumerate(arrays):
                if b.alias_of == k:
                    arrays[m] = ArrayInput(b.elem, b.shape, b.strides, values, how, alias_of=k)
            cand = with_arrays(arrays)
            c = diverges(cand)
            if c is not None:
                trial, cex = cand, c
                break
    return trial, cex
