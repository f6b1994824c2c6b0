"""Differential execution: run two kernels on the same generated inputs and look for an input
where the memory they leave behind differs.

Inputs come from ``inputs.make_trial`` (a plan shared by both kernels, on the argument mapping the
structural diff proved: sizes and strides consistent with both signatures and their assumes,
arrays and scalars paired by role, special values and alias trials in some of the trials). The first diverging trial is then shrunk (fewer
blocks, arrays set to zeros/ones) while it still diverges, so the reported counterexample is
small. Outputs are compared exactly (NaN equals NaN whatever its payload, -0.0 differs from +0.0)
unless ``rtol``/``atol`` are given: the question is "do these kernels compute the same thing", and
a reordered float sum is a real (if small) difference; the report gives the largest difference so
a reader can judge.

A trial on which a kernel breaks an ``assume`` is *invalid* (the input is outside what the kernel
promises to handle): it is counted in ``invalid_trials`` and never shown as a counterexample.
A divergence is a counterexample for both kernels (``counterexample["valid"]``) only on a mapping
that gives every argument either kernel reads its value, with both kernels run to completion;
only such a one may overrule a verdict (``tileir_diff.api.apply_execution``). Every run has a
budget (``Limits``): past it the check stops and says so, and claims nothing.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from tileir_diff.ir import EnumValue, Module
from tileir_diff.interp import dtypes as dt
from tileir_diff.interp.budget import TIME_LIMIT, Budget
from tileir_diff.interp.errors import (AssumeViolation, BudgetExceeded, InterpreterError, MemoryAccessError,
                                       UnsupportedOpError)
from tileir_diff.interp.machine import Interpreter, Options
from tileir_diff.interp.memory import Memory

from .inputs import (DEFAULT_MAX_INPUT_BYTES, ArrayInput, InputTooLarge, NoMapping, Plan, Trial, make_plan,
                     make_trial, make_values)
from .mapping import ArgumentMapping, for_entries
from .signature import Layout, infer_layout
from .tokens import MemoryUse, memory_use

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
    budget_exceeded: Optional[str] = None  # why the check stopped early (steps, bytes, time, input size)

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"unknown execution status {self.status!r}")

    @property
    def could_not_check(self) -> Optional[str]:
        """Why this result cannot overrule a verdict (None: it can, or has nothing to overrule)."""
        c = self.counterexample or {}
        if self.status == "diverged" and not c.get("valid"):
            return f"the divergence is no counterexample for both kernels: {c.get('invalid_because') or 'not checked'}"
        if self.status == "unsupported":
            return self.reason
        return self.budget_exceeded

    @property
    def message(self) -> str:
        if self.status == "diverged":
            c = self.counterexample or {}
            alias = f" ({c['note']})" if c.get("note") else ""
            caveat = "" if c.get("valid") else f" [not a counterexample for both kernels: {c.get('invalid_because')}]"
            if c.get("kind") == "error":
                return (f"diverged: {'left' if c.get('left_error') else 'right'} kernel failed on an input the other "
                        f"ran: {c.get('left_error') or c.get('right_error')}{alias}{caveat}")
            return (f"diverged: {c.get('output')}{c.get('index')} is {c.get('left')} (left) vs {c.get('right')} "
                    f"(right); {c.get('differing_elements')} element(s) differ{alias}{caveat}")
        if self.status == "no_divergence":
            extra = ""
            if self.invalid_trials:
                extra = f" ({self.invalid_trials} generated input(s) rejected: {self.invalid_reason})"
            if self.budget_exceeded:
                extra += f"; stopped: {self.budget_exceeded}"
            return f"no divergence in {self.trials} trials{extra}"
        return f"unsupported: {self.reason}"

    def to_dict(self) -> dict:
        d = {"status": self.status, "message": self.message, "trials": self.trials, "seed": self.seed,
             "skipped_trials": self.skipped_trials, "seconds": round(self.seconds, 3),
             "entries": list(self.entries), "reason": self.reason, "invalid_trials": self.invalid_trials,
             "invalid_reason": self.invalid_reason, "notes": list(self.notes), "families": dict(self.families),
             "budget_exceeded": self.budget_exceeded, "could_not_check": self.could_not_check}
        if self.counterexample is not None:
            d["counterexample"] = self.counterexample
        return d


def _plain(a: np.ndarray) -> list:
    from .inputs import _plain as plain
    return plain(a)


# --- running ---------------------------------------------------------------------------------------

@dataclass
class Outcome:
    arrays: Optional[List[Optional[np.ndarray]]] = None  # full buffer per plan array (None: not this side's)
    error: Optional[InterpreterError] = None
    prints: List[str] = field(default_factory=list)
    invalid: Optional[str] = None  # why this input is not one the kernel accepts


def _flat_args(layout: Layout, plan: Plan, trial: Trial, memory: Memory, side: str):
    """One value per entry argument of ``side``, every plan array placed in ``memory`` (in plan
    order on both sides, so both kernels see the same addresses); returns ((flat, placed), None)
    or (None, why the trial does not fit this signature)."""
    flat: list = [None] * len(layout.arg_types)
    placed: List[Tuple[int, int, ArrayInput]] = []
    index = plan.index_of(side)
    for k, a in enumerate(trial.arrays):
        if a.alias_of is not None:
            base = placed[a.alias_of][0]
        else:
            align = max([256] + [spec.pointer_divisor for spec in _specs(plan, k)])
            base = memory.put_array(a.values, a.elem, a.strides, label=f"array{k}", align=align)
        extent = 1 + sum((n - 1) * s for n, s in zip(a.shape, a.strides) if n > 0)
        placed.append((base, extent, a))
        j = index[k]
        if j is not None:
            flat[layout.arrays[j].pointer_arg] = base
    for arg, slots in layout.slots.items():
        values = set()
        for kind, j, d in slots:
            a = trial.arrays[index.index(j)]
            values.add((a.shape if kind == "shape" else a.strides)[d])
        if len(values) > 1:
            return None, f"argument {arg} stands for {len(values)} different sizes/strides {sorted(values)}"
        flat[arg] = values.pop()
    table = plan.left_scalar if side == "left" else plan.right_scalar
    for n, spec in enumerate(layout.scalars):
        flat[spec.arg] = trial.scalars[table[n]]
    return (flat, placed), None


def _specs(plan: Plan, k: int):
    """The array specs (one per side that has it) of plan array ``k``."""
    out = []
    for layout, j in ((plan.left, plan.left_of[k]), (plan.right, plan.right_of[k])):
        if j is not None:
            out.append(layout.arrays[j])
    return out


def run_trial(module: Module, layout: Layout, plan: Plan, trial: Trial, side: str = "left",
              options: Optional[Options] = None, shared: Optional[Interpreter] = None) -> Outcome:
    """Run one side on a trial. ``Outcome.arrays`` holds every plan array's buffer afterwards (None
    for arrays this side does not have). Raises ``UnsupportedOpError`` and ``BudgetExceeded``.
    ``shared``: an interpreter of ``module`` whose per-op tables the run reuses."""
    memory = Memory()
    args, why = _flat_args(layout, plan, trial, memory, side)
    if args is None:
        return Outcome(invalid=why)
    flat, placed = args
    interp = Interpreter(module, memory, options, shared=shared)
    try:
        interp.run(layout.entry, flat, trial.grid)
    except (UnsupportedOpError, BudgetExceeded):
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
    index = plan.index_of(side)
    out: List[Optional[np.ndarray]] = []
    for k, (base, extent, a) in enumerate(placed):
        out.append(memory.get_array(base, (extent,), (1,), a.elem) if index[k] is not None else None)
    return Outcome(arrays=out, prints=interp.prints)


def compare(left: Outcome, right: Outcome, trial: Trial, rtol: float = 0.0, atol: float = 0.0) -> Optional[dict]:
    """None when both left the same memory (or both failed); else the counterexample."""
    if left.error is not None or right.error is not None:
        if left.error is not None and right.error is not None:
            return None
        return {"kind": "error", "left_error": str(left.error) if left.error else None,
                "right_error": str(right.error) if right.error else None}
    # an outcome that is neither invalid (the caller redraws those) nor an error carries its arrays
    assert left.arrays is not None and right.arrays is not None
    for k, (la, ra, a) in enumerate(zip(left.arrays, right.arrays, trial.arrays)):
        if a.alias_of is not None:
            continue  # the same buffer as an earlier array, compared there
        if la is None or ra is None:
            continue  # an array only one kernel has (an extra output): nothing to compare it with
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


@dataclass(frozen=True)
class Limits:
    """What one differential check may spend (``check``'s keyword arguments of the same names;
    ``diff(execute_options=...)``). Steps are ops executed (a loop's body counts every iteration),
    bytes the op results they build; a trial runs both kernels once. Past any limit the check
    stops with ``budget_exceeded`` set and never a counterexample. The limits are work, the same
    on any machine; ``time_budget`` is a wall-clock safety net far past them (ten times the old
    120 s time budget): past it the message says ``time limit (machine too slow/overloaded)`` and
    ``tileir_diff.diff`` makes the verdict ``unknown``."""
    time_budget: float = 1200.0             # safety net: seconds for the whole call, checked inside a trial too
    max_steps_per_trial: int = 500_000
    max_steps_per_call: int = 4_000_000
    max_bytes_per_trial: int = 16 << 30
    max_bytes_per_call: int = 128 << 30
    max_value_bytes: int = 1 << 30           # one op's results
    max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES  # all arrays of one trial

    def call_budget(self, t0: float) -> Budget:
        return Budget(self.max_steps_per_call, self.max_bytes_per_call, t0 + self.time_budget, self.max_value_bytes,
                      what="call")

    def trial_budget(self, call: Budget) -> Budget:
        return Budget(self.max_steps_per_trial, self.max_bytes_per_trial, None, self.max_value_bytes, parent=call,
                      what="trial")


def check(left: Module, right: Module, *, trials: int = 20, seed: int = 0, rtol: float = 0.0, atol: float = 0.0,
          time_budget: float = 1200.0, entries: Optional[Tuple[str, str]] = None,
          options: Optional[Options] = None, aliasing: bool = True,
          mapping: Union[ArgumentMapping, Sequence[ArgumentMapping], None] = None, **limits: int) -> ExecutionResult:
    """Look for an input on which ``left`` and ``right`` leave different memory (or print
    differently). Modules with several entries are checked entry pair by entry pair (paired by
    name); the first divergence is reported. ``aliasing=False`` leaves out alias trials.

    ``mapping``: the argument mapping per entry pair (``tileir_diff.execute.mapping``; the API
    passes the structural diff's). Without one, entries with one signature are called with one
    argument list, others by position, and a divergence is then no counterexample for both
    kernels (``counterexample.valid`` is false). ``limits``: ``Limits``' fields."""
    bad = set(limits) - set(Limits.__dataclass_fields__)
    if bad:
        raise TypeError(f"unknown execute option(s) {sorted(bad)}; known: {sorted(Limits.__dataclass_fields__)}")
    lim = Limits(time_budget=time_budget, **limits)
    if isinstance(mapping, ArgumentMapping):
        mapping = [mapping]
    pairs = [entries] if entries is not None else _entry_pairs(left, right)
    if not pairs:
        return ExecutionResult("unsupported", seed=seed, reason="no entry function to run")
    t0 = time.perf_counter()
    call = lim.call_budget(t0)
    results = []
    for pair in pairs:
        r = _check_pair(left, right, trials=trials, seed=seed, rtol=rtol, atol=atol, limits=lim, call=call,
                        entries=pair, options=options, aliasing=aliasing,
                        mapping=for_entries(mapping, pair) if mapping is not None else None)
        if r.status == "diverged":
            r.seconds = time.perf_counter() - t0
            return r
        results.append(r)
        if r.budget_exceeded:
            break
    return _merged(results, seed, t0)


def _merged(results: List[ExecutionResult], seed: int, t0: float) -> ExecutionResult:
    """One result for several entry pairs, none of which diverged."""
    notes = list(dict.fromkeys(n for r in results for n in r.notes))
    budget = next((r.budget_exceeded for r in results if r.budget_exceeded), None)
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
                              families=families, budget_exceeded=budget)
        unsupported = [r for r in results if r.status == "unsupported"]
        if unsupported:
            out.reason = "; ".join(f"@{r.entries[0]}: {r.reason}" for r in unsupported)
        return out
    results[0].seconds = time.perf_counter() - t0
    results[0].notes = notes
    return results[0]


def _alias_pairs(uses: Dict[str, MemoryUse], plan: Plan) -> Tuple[List[Tuple[int, int]], Dict]:
    """Pairs of plan arrays (both in both kernels, one element type and rank, no guessed extent)
    whose accesses either kernel's tokens order, and the note an alias trial on them carries."""
    ordered = {}
    for side in ("left", "right"):
        index = plan.index_of(side)
        ordered[side] = {frozenset(index.index(k) for k in p) for p in uses[side].ordered_pairs()}
    pairs, notes = [], {}
    n = len(plan.elems)
    for j in range(n):
        for k in range(j + 1, n):
            if not (plan.paired(j) and plan.paired(k)) or plan.elems[j] != plan.elems[k] \
                    or plan.ndims[j] != plan.ndims[k]:
                continue
            if any(spec.guessed_extent for spec in _specs(plan, j) + _specs(plan, k)):
                continue
            by = [side for side in ("left", "right") if frozenset((j, k)) in ordered[side]]
            if not by:
                continue  # neither kernel is written for these two to share memory
            pairs.append((j, k))
            notes[(j, k)] = (f"inputs alias: array{j} and array{k} share memory; the "
                             f"{' and '.join(by)} kernel{'s' if len(by) > 1 else ''}' tokens order their accesses")
    return pairs, notes


def _one_sided_reads(uses: Dict[str, MemoryUse], plan: Plan) -> List[str]:
    """Arrays a kernel reads that have no counterpart on the other side: their contents are made up
    for one kernel, so a divergence may come from them."""
    out = []
    for side, layout in (("left", plan.left), ("right", plan.right)):
        index = plan.index_of(side)
        for k in sorted(uses[side].arrays_read()):
            pk = index.index(k)
            if not plan.paired(pk):
                out.append(f"the {side} kernel reads array argument {layout.arrays[k].pointer_arg}, which has no "
                           f"counterpart in the other kernel")
    return out


def _setup(left: Module, right: Module, entries, mapping: Optional[ArgumentMapping], aliasing: bool):
    """(left layout, right layout, plan) or the reason no plan exists."""
    try:
        la = infer_layout(left, entries[0])
        lb = infer_layout(right, entries[1])
    except (InterpreterError, KeyError) as exc:
        return f"cannot read the entry signatures: {exc}"
    try:
        plan = make_plan(la, lb, mapping=mapping)
    except NoMapping as exc:
        return f"no argument mapping to run both kernels with: {exc}"
    # one walk over each entry's memory ops serves both questions
    uses = {"left": memory_use(left, plan.left), "right": memory_use(right, plan.right)}
    if aliasing:
        plan.alias_pairs, plan.alias_notes = _alias_pairs(uses, plan)
    plan.unmapped.extend(_one_sided_reads(uses, plan))
    return plan.left, plan.right, plan  # the plan may read a raw pointer as a bare one (inputs._as_bare_pointer)


def _check_pair(left: Module, right: Module, *, trials: int, seed: int, rtol: float, atol: float,
                limits: Limits, call: Budget, entries: Tuple[Optional[str], Optional[str]],
                options: Optional[Options], aliasing: bool = True,
                mapping: Optional[ArgumentMapping] = None) -> ExecutionResult:
    t0 = time.perf_counter()
    setup = _setup(left, right, entries, mapping, aliasing)
    if isinstance(setup, str):
        names = tuple(n or "" for n in entries)
        return ExecutionResult("unsupported", seed=seed, reason=setup, entries=names,  # type: ignore[arg-type]
                               seconds=time.perf_counter() - t0)
    la, lb, plan = setup
    run = _Runner(left, right, la, lb, plan, options, limits, call, rtol, atol)
    state = _State(seed, (la.entry, lb.entry), list(plan.notes) + approx_notes(left, "left") + approx_notes(right, "right"),
                   t0)
    try:
        for k in range(trials):
            found = _one_trial(run, state, k, seed)
            if found is not None:
                return found
    except UnsupportedOpError as exc:
        return state.result("unsupported", reason=str(exc))
    except (BudgetExceeded, InputTooLarge) as exc:
        state.budget = str(exc)
    return state.finish()


@dataclass
class _State:
    """What the trials of one entry pair found so far."""
    seed: int
    names: Tuple[str, str]
    notes: List[str]
    t0: float
    done: int = 0
    skipped: int = 0
    invalid: int = 0
    invalid_reason: Optional[str] = None
    errors: List[str] = field(default_factory=list)
    families: Dict[str, int] = field(default_factory=dict)
    budget: Optional[str] = None

    def result(self, status, **kw) -> ExecutionResult:
        return ExecutionResult(status, self.done, self.seed, skipped_trials=self.skipped, entries=self.names,
                               seconds=time.perf_counter() - self.t0, invalid_trials=self.invalid,
                               invalid_reason=self.invalid_reason, notes=self.notes, families=self.families,
                               budget_exceeded=self.budget, **kw)

    def finish(self) -> ExecutionResult:
        if self.done and self.skipped == self.done:
            return self.result("unsupported",
                               reason=f"both kernels failed on every generated input, e.g. {self.errors[0]}")
        if self.done == 0:
            if self.budget:
                return self.result("unsupported", reason=self.budget)
            if self.invalid:
                return self.result("unsupported", reason=f"every generated input was rejected: {self.invalid_reason}")
            return self.result("unsupported", reason="time budget spent before the first trial")
        return self.result("no_divergence")


@dataclass
class _Runner:
    """Runs a trial on both kernels, each trial (and each shrinking run) with a budget of its own
    under the call's."""
    left: Module
    right: Module
    la: Layout
    lb: Layout
    plan: Plan
    options: Optional[Options]
    limits: Limits
    call: Budget
    rtol: float
    atol: float

    tables: Dict[str, Interpreter] = field(default_factory=dict)  # per side: the per-op tables, built once

    def both(self, trial: Trial) -> Tuple[Outcome, Outcome]:
        opts = dataclasses.replace(self.options or Options(), budget=self.limits.trial_budget(self.call))
        if not self.tables:
            self.tables = {"left": Interpreter(self.left), "right": Interpreter(self.right)}
        lo = run_trial(self.left, self.la, self.plan, trial, "left", opts, self.tables["left"])
        ro = run_trial(self.right, self.lb, self.plan, trial, "right", opts, self.tables["right"])
        return lo, ro

    def draw(self, k: int, seed: int, attempt: int) -> Trial:
        return make_trial(self.plan, k, seed, attempt, self.limits.max_input_bytes)


def _one_trial(run: _Runner, state: _State, k: int, seed: int) -> Optional[ExecutionResult]:
    """Trial ``k`` (redrawn while an assume rejects it); the diverged result, or None."""
    deadline = run.call.deadline  # always set on the call budget (Limits.call_budget)
    if deadline is not None and time.perf_counter() > deadline:
        raise BudgetExceeded(f"budget exceeded: {TIME_LIMIT}: the wall-clock safety net of {run.limits.time_budget:g} s "
                             f"ran out after {state.done} trial(s) (execute_options time_budget)")
    for attempt in range(ATTEMPTS):
        trial = run.draw(k, seed, attempt)
        lo, ro = run.both(trial)
        bad = lo.invalid or ro.invalid
        if bad is None:
            break
        state.invalid += 1
        if state.invalid_reason is None:
            state.invalid_reason = f"{'left' if lo.invalid else 'right'} kernel: {bad}"
    else:
        return None  # every draw of this trial broke an assume
    state.done += 1
    family = trial.mode if trial.alias is None else f"alias {trial.mode}"
    state.families[family] = state.families.get(family, 0) + 1
    if lo.error is not None and ro.error is not None:
        state.skipped += 1
        state.errors.append(str(lo.error))
        return None
    cex = compare(lo, ro, trial, run.rtol, run.atol)
    if cex is None:
        return None
    plan = run.plan
    trial, cex = _shrink(run, trial, cex)
    cex["trial"] = trial.index
    cex["inputs"] = trial.summary(plan)
    if trial.alias is not None:
        cex["note"] = plan.alias_notes.get(trial.alias)
    if plan.notes:
        cex["notes"] = list(plan.notes)
    why_not = list(plan.unmapped)
    if cex.get("kind") == "error":
        why_not.append("one kernel did not run to completion")
    cex["valid"] = not why_not
    cex["mapping"] = plan.source
    if why_not:
        cex["invalid_because"] = "; ".join(why_not)
    return state.result("diverged", counterexample=cex)


def _shrink(run: "_Runner", trial: Trial, cex: dict, max_runs: int = 24):
    """Simplify a diverging trial while it still diverges on valid inputs: fewer blocks, then
    arrays set to zeros or ones. Stops early when the budget runs out (the last divergence stands)."""
    runs = 0
    spent = False

    def diverges(candidate: Trial) -> Optional[dict]:
        nonlocal runs, spent
        runs += 1
        try:
            lo, ro = run.both(candidate)
        except BudgetExceeded as exc:
            if TIME_LIMIT in str(exc):
                raise  # the safety net: no counterexample may depend on where the clock stopped it
            spent = True
            return None
        except UnsupportedOpError:
            spent = True
            return None
        if lo.invalid or ro.invalid:
            return None
        return compare(lo, ro, candidate, run.rtol, run.atol)

    def budget_left():
        return runs < max_runs and not spent  # work; the call's safety net is checked in every run

    def with_arrays(arrays):
        return Trial(trial.index, trial.grid, arrays, trial.scalars, trial.mode, trial.alias)

    for axis in range(3):
        while trial.grid[axis] > 1 and budget_left():
            g = list(trial.grid)
            g[axis] -= 1
            cand = Trial(trial.index, (g[0], g[1], g[2]), trial.arrays, trial.scalars, trial.mode, trial.alias)
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
