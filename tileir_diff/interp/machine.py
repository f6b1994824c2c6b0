"""The interpreter proper: executes one entry function over a grid of tile blocks.

Each tile block runs the function body once, in program order (which satisfies every token
order), with each SSA value held as a whole NumPy array of its tile shape; ops are NumPy array
operations on whole tiles, never per-element Python. Blocks run one after another in row-major
order over (z, y, x) with x fastest, all sharing one ``Memory``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, cast

import numpy as np

from tileir_diff.dialect.ops import OPS_BY_NAME
from tileir_diff.ir import (Block, EnumValue, FloatAttr, IntegerAttr, Module, Operation)
from tileir_diff.ir.types import PointerType, TensorViewType, TileType, TokenType

from . import dtypes as dt
from .budget import Budget
from .errors import AssumeViolation, BudgetExceeded, InterpreterError, KernelAssertionError, UnsupportedOpError
from .memory import Memory
from .views import TensorView, TileView

TERMINATORS = ("yield", "continue", "break", "return")


@dataclass
class Options:
    """``reduce_order``: ``tree`` (each element first combined with the identity, then halves
    combined pairwise, as a GPU's per-thread accumulators and shuffle tree do) or ``sequential``
    (a left fold from the identity). ``scan`` is always a sequential fold (inclusive).
    ``max_loop_iterations`` stops a runaway ``for``/``loop`` with an error. ``check_assumes``:
    an ``assume`` whose predicate a value breaks raises ``AssumeViolation`` (the input is invalid
    for the kernel); off, ``assume`` is the identity. ``budget``: the steps, bytes and time a
    run may spend (``tileir_diff.interp.budget``; None: only ``max_loop_iterations`` bounds it)."""
    reduce_order: str = "tree"
    max_loop_iterations: int = 1_000_000
    check_assumes: bool = True
    budget: Optional[Budget] = None

    def __post_init__(self):
        if self.reduce_order not in ("tree", "sequential"):
            raise ValueError(f"reduce_order must be 'tree' or 'sequential', got {self.reduce_order!r}")


@dataclass
class _Escape:
    """A continue/break/return leaving an ``if`` region towards its loop or function."""
    kind: str
    values: List[Any]


def _attr(op: Operation, name: str):
    v = op.attributes.get(name)
    if v is None:
        d = OPS_BY_NAME.get(op.name)
        if d is not None:
            for a in d.attrs:
                if a.name == name:
                    v = a.default
                    break
    if isinstance(v, EnumValue):
        return v.name
    return v


def _elem_of(t) -> str:
    if isinstance(t, TileType):
        t = t.element
    if isinstance(t, PointerType):
        return "ptr"
    return dt.name_of(t)


def _pointee(t) -> str:
    if isinstance(t, TileType):
        t = t.element
    if not isinstance(t, PointerType):
        raise InterpreterError(f"expected a pointer tile, got {t}")
    return dt.name_of(t.pointee)


def _scalar(v) -> int:
    a = np.asarray(v)
    if a.size != 1:
        raise InterpreterError(f"expected a scalar tile, got shape {a.shape}")
    return a.reshape(()).item()


def _unsigned(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    u = dt.UINT_OF.get(a.dtype)
    if u is None:
        raise InterpreterError(f"unsigned view of {a.dtype}")
    return a.view(u) if a.dtype != np.bool_ else a


def _float_compute(a: np.ndarray, elem: str) -> np.ndarray:
    return np.asarray(a, dtype=dt.compute_dtype(elem))


def entry_function(module: Module, entry: Optional[str] = None):
    """The function ``entry`` names, or the module's only entry function; InterpreterError otherwise."""
    if entry is None:
        entries = [f for f in module.functions if f.is_entry]
        if len(entries) != 1:
            raise InterpreterError(f"module has {len(entries)} entry functions "
                                   f"({', '.join(f.name for f in entries)}); name one")
        return entries[0]
    try:
        return module.function(entry)
    except KeyError:
        raise InterpreterError(f"no function @{entry} (has: {', '.join(f.name for f in module.functions)})") from None


class Interpreter:
    def __init__(self, module: Module, memory: Optional[Memory] = None, options: Optional[Options] = None,
                 shared: Optional["Interpreter"] = None):
        """``shared``: an interpreter of the same module whose per-op tables (op ids, operand groups,
        result sizes, last uses) this one reuses instead of computing them again (repeated runs)."""
        self.module = module
        self.memory = memory if memory is not None else Memory()
        self.options = options or Options()
        self.prints: List[str] = []
        self.grid = (1, 1, 1)
        self.block_id = (0, 0, 0)
        self._where: Dict[int, str] = {}
        self._groups: Dict[int, Dict[str, Tuple[int, int]]] = {}
        self._constants: Dict[int, np.ndarray] = {}
        self._combiner_depth = 0
        self._result_bytes: Dict[int, int] = {}  # op -> bytes of its results (from their types)
        # block -> per op, the values whose last use it is (and whether any is held from that op on)
        self._frees: Dict[int, Tuple[List[List[int]], List[bool]]] = {}
        if shared is not None and shared.module is module:
            self._where, self._groups = shared._where, shared._groups
            self._result_bytes, self._frees = shared._result_bytes, shared._frees
        else:
            for fi, f in enumerate(module.functions):
                self._tag(f.body, f"f{fi}")
        self.globals: Dict[str, int] = {}
        for g in module.globals:
            elem = dt.name_of(g.value.element)
            values = g.value.to_numpy()
            self.globals[g.name] = self.memory.put_array(values.reshape(-1), elem, label=f"@{g.name}", poison=False)

    def _tag(self, block: Block, prefix: str) -> None:
        # op ids as the reports print them: f<i>/o<j>[/r<k>/o<j>...]
        for j, op in enumerate(block.operations):
            oid = f"{prefix}/o{j}"
            self._where[id(op)] = oid
            self._result_bytes[id(op)] = sum(_type_bytes(r.type) for r in op.results)
            for k, r in enumerate(op.regions):
                for b in r.blocks:
                    self._tag(b, f"{oid}/r{k}")

    # --- entry ---------------------------------------------------------------------------------
    def run(self, entry: Optional[str], args: Sequence[Any], grid: Sequence[int]) -> None:
        f = self._entry(entry)
        if len(args) != len(f.arguments):
            raise InterpreterError(f"@{f.name} takes {len(f.arguments)} arguments "
                                   f"({', '.join(str(a.type) for a in f.arguments)}), got {len(args)}")
        grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
        if len(grid) != 3 or any(g < 1 for g in grid):
            raise InterpreterError(f"grid must be up to 3 positive sizes, got {grid}")
        self.grid = grid
        bound = [self._bind(a.type, v, i) for i, (a, v) in enumerate(zip(f.arguments, args))]
        with np.errstate(all="ignore"):
            for bz in range(grid[2]):
                for by in range(grid[1]):
                    for bx in range(grid[0]):
                        self.block_id = (bx, by, bz)
                        env = {a.vid: v for a, v in zip(f.arguments, bound)}
                        r = self.exec_block(f.body, env)
                        if isinstance(r, _Escape) and r.kind not in ("return",):
                            raise InterpreterError(f"'{r.kind}' outside a loop in @{f.name}")

    def _entry(self, entry: Optional[str]):
        return entry_function(self.module, entry)

    def _bind(self, t, v, i: int):
        if isinstance(t, TileType) and isinstance(t.element, PointerType):
            return np.asarray(int(v), dtype=np.int64)
        if isinstance(t, TileType):
            elem = _elem_of(t)
            if isinstance(v, np.ndarray) and v.shape == tuple(t.shape):
                return v.astype(dt.compute_dtype(elem))
            if t.shape:
                raise InterpreterError(f"argument {i} is {t}; pass a NumPy array of that shape")
            return dt.from_python(v, elem)
        if isinstance(t, TokenType):
            return None
        raise InterpreterError(f"argument {i} has type {t}, which an entry cannot take")

    # --- blocks ----------------------------------------------------------------------------------
    def exec_block(self, block: Block, env: Dict[int, Any]):
        """Run ``block``; returns (terminator name, values) or an _Escape from a nested if. A value
        defined in the block leaves ``env`` once its last use in the block has run."""
        cached = self._frees.get(id(block))
        if cached is None:
            cached = self._frees[id(block)] = _frees_of(block)
        frees, frees_left = cached
        budget = self.options.budget
        for i, op in enumerate(block.operations):
            name = op.name
            try:
                if budget is not None:  # every op counts, terminators too (a loop of only `continue`)
                    budget.charge(self._result_bytes.get(id(op), 0))
                if name in TERMINATORS:
                    values = [env[v.vid] for v in op.operands]
                    if frees_left[i]:
                        _drop(env, frees, i)
                    return name, values
                if name == "if":
                    r = self._op_if(op, env)
                    if isinstance(r, _Escape):
                        if frees_left[i]:
                            _drop(env, frees, i)
                        return r
                    results = r
                else:
                    handler = _HANDLERS.get(name)
                    if handler is None:
                        raise UnsupportedOpError(name, self._where.get(id(op), "?"))
                    results = handler(self, op, [env[v.vid] for v in op.operands], env)
                for res, val in zip(op.results, results):
                    env[res.vid] = self._coerce(op, res.type, val)
            except UnsupportedOpError:
                raise
            except BudgetExceeded as exc:
                if not getattr(exc, "located", False):  # the innermost op: where the run stopped
                    exc.args = (f"{exc} (at {self._where.get(id(op), '?')})",)
                    exc.located = True
                raise
            except InterpreterError as exc:
                if not getattr(exc, "located", False):
                    exc.args = (f"{name} at {self._where.get(id(op), '?')} (block {self.block_id}): {exc}",)
                    exc.located = True
                raise
            except (ValueError, TypeError, IndexError, KeyError, ZeroDivisionError, OverflowError) as exc:
                err = InterpreterError(f"{name} at {self._where.get(id(op), '?')} (block {self.block_id}): "
                                       f"{type(exc).__name__}: {exc}")
                err.located = True
                raise err from exc
            except MemoryError:
                raise BudgetExceeded(f"budget exceeded: out of memory at {self._where.get(id(op), '?')} "
                                     f"(block {self.block_id})") from None
            for vid in frees[i]:
                env.pop(vid, None)
        return "end", []

    def _coerce(self, op: Operation, t, val):
        if not isinstance(t, TileType) or val is None or isinstance(val, (TensorView, TileView)):
            return val
        val = np.asarray(val)
        if isinstance(t.element, PointerType):
            want = np.int64
        else:
            want = dt.compute_dtype(dt.name_of(t.element))
        if val.dtype != want:
            val = val.astype(want)
        if self._combiner_depth == 0 and val.shape != tuple(t.shape):
            raise InterpreterError(f"result has shape {val.shape} but its type is {t}")
        return val

    def run_region(self, block: Block, args: Sequence[Any], env: Dict[int, Any]):
        for a, v in zip(block.arguments, args):
            env[a.vid] = v
        return self.exec_block(block, env)

    # --- helpers for handlers --------------------------------------------------------------------
    def group(self, op: Operation, ins: List[Any], name: str) -> List[Any]:
        spans = self._groups.get(id(op))
        if spans is None:
            d = OPS_BY_NAME[op.name]
            spans = {}
            start = 0
            if op.segments:
                for od, n in zip(d.operands, op.segments):
                    spans[od.name] = (start, n)
                    start += n
            else:  # all single operands, or a single variadic group after the fixed ones
                fixed = [o for o in d.operands if o.arity == "single"]
                for od in d.operands:
                    if od.arity == "single":
                        spans[od.name] = (start, 1)
                        start += 1
                    else:
                        n = len(op.operands) - len(fixed)
                        spans[od.name] = (start, n)
                        start += n
            self._groups[id(op)] = spans
        s, n = spans.get(name, (0, 0))
        return ins[s:s + n]

    def where(self, op: Operation) -> str:
        return self._where.get(id(op), "?")

    def unsupported(self, op: Operation, detail: str) -> UnsupportedOpError:
        return UnsupportedOpError(op.name, self.where(op), detail)

    # --- control flow ----------------------------------------------------------------------------
    def _op_if(self, op: Operation, env):
        cond = bool(_scalar(env[op.operands[0].vid]))
        region = op.regions[0] if cond else (op.regions[1] if len(op.regions) > 1 else None)
        if region is None or not region.blocks:
            return []
        kind, values = _unpack(self.exec_block(region.blocks[0], env))
        if kind in ("yield", "end"):
            return values
        return _Escape(kind, values)


def _operand_vids(op: Operation):
    """Every value ``op`` reads, its regions' ops included."""
    for v in op.operands:
        yield v.vid
    for r in op.regions:
        for b in r.blocks:
            for o in b.operations:
                yield from _operand_vids(o)


def last_uses(block: Block) -> List[List[int]]:
    """Per op of ``block``: the values defined in the block (its arguments, its ops' results)
    whose last use is that op (a use inside a nested region counts at the op holding it); a value
    nothing uses goes right after it is defined."""
    last: Dict[int, int] = {}
    for i, op in enumerate(block.operations):
        for vid in _operand_vids(op):
            last[vid] = i
    frees: List[List[int]] = [[] for _ in block.operations]
    if not frees:
        return frees
    defined = [(a.vid, 0) for a in block.arguments]
    defined += [(r.vid, i) for i, op in enumerate(block.operations) for r in op.results]
    for vid, at in defined:
        frees[max(at, last.get(vid, at))].append(vid)
    return frees


def _frees_of(block: Block) -> Tuple[List[List[int]], List[bool]]:
    """``last_uses`` of the block, and per op whether any value is still held from it on."""
    frees = last_uses(block)
    left = [False] * len(frees)
    held = False
    for i in range(len(frees) - 1, -1, -1):
        held = held or bool(frees[i])
        left[i] = held
    return frees, left


def _drop(env: Dict[int, Any], frees: List[List[int]], start: int) -> None:
    """Leaving a block at op ``start``: every value of the block still held goes."""
    for vids in frees[start:]:
        for vid in vids:
            env.pop(vid, None)


def _type_bytes(t) -> int:
    """Bytes a value of type ``t`` takes in the interpreter (0 for tokens and views)."""
    if not isinstance(t, TileType):
        return 0
    n = 1
    for d in t.shape:
        n *= int(d)
    if isinstance(t.element, PointerType):
        return 8 * n
    try:
        return n * np.dtype(dt.compute_dtype(dt.name_of(t.element))).itemsize
    except (KeyError, TypeError, ValueError):
        return 8 * n


def _unpack(r):
    if isinstance(r, _Escape):
        return r.kind, r.values
    return r


# =================================================================================================
# op handlers: fn(interp, op, ins, env) -> list of result values
# =================================================================================================

_HANDLERS: Dict[str, Callable] = {}


def handler(*names):
    def deco(fn):
        for n in names:
            _HANDLERS[n] = fn
        return fn
    return deco


def _res_elem(op: Operation, i: int = 0) -> str:
    return _elem_of(op.results[i].type)


def _res_shape(op: Operation, i: int = 0) -> Tuple[int, ...]:
    return tuple(cast(TileType, op.results[i].type).shape)


# --- constants, grid, tokens, hints --------------------------------------------------------------

@handler("constant")
def _constant(it, op, ins, env):
    c = it._constants.get(id(op))
    if c is None:
        v = op.attributes["value"]
        elem = dt.name_of(v.element)
        c = np.asarray(v.to_numpy())
        c = dt.round_to(c, elem) if dt.is_float(elem) else c.astype(dt.compute_dtype(elem))
        it._constants[id(op)] = c
    return [c]


@handler("assume")
def _assume(it, op, ins, env):
    if it.options.check_assumes:
        bad = assume_failure(op.attributes.get("predicate"), np.asarray(ins[0]))
        if bad is not None:
            from tileir_diff.text.template import predicate_text
            try:
                pred = predicate_text(op.attributes.get("predicate"))
            except TypeError:
                pred = repr(op.attributes.get("predicate"))
            where = it.where(op)
            err = AssumeViolation(f"input violates assume {pred} at op {where} (block {it.block_id}): {bad}",
                                  pred, where)
            err.located = True
            raise err
    return [ins[0]]


def assume_failure(pred, value: np.ndarray) -> Optional[str]:
    """None when ``value`` satisfies the assume predicate, else what breaks it (one element).

    ``div_by<n>``: every element (a pointer: its byte address) is a multiple of n; with ``every e
    along d`` only the elements whose index along d is a multiple of e. ``bounded<lb, ub>``:
    lb <= x <= ub (signed, either bound optional). ``same_elements<[k0, k1, ...]>``: the tile is
    made of blocks of k0 x k1 x ... equal elements."""
    from tileir_diff.ir import Bounded, DivBy, SameElements
    v = np.asarray(value)
    if v.dtype == np.bool_ or not np.issubdtype(v.dtype, np.integer):
        if isinstance(pred, SameElements) and v.ndim:
            pass
        else:
            return None  # predicates on floats/bools are not checked
    if isinstance(pred, DivBy):
        sel = v
        if pred.every is not None and v.ndim:
            along = int(pred.along or 0)
            idx = [slice(None)] * v.ndim
            idx[along] = slice(0, None, int(pred.every))
            sel = v[tuple(idx)]
        bad = np.asarray(sel).astype(np.int64) % int(pred.divisor) != 0
        if bad.any():
            x = int(np.asarray(sel).reshape(-1)[int(np.argmax(bad.reshape(-1)))])
            return f"value {x} is not a multiple of {pred.divisor}"
        return None
    if isinstance(pred, Bounded):
        w = v.astype(np.int64)
        if pred.lb is not None and (w < pred.lb).any():
            return f"value {int(w.reshape(-1)[int(np.argmax((w < pred.lb).reshape(-1)))])} is below {pred.lb}"
        if pred.ub is not None and (w > pred.ub).any():
            return f"value {int(w.reshape(-1)[int(np.argmax((w > pred.ub).reshape(-1)))])} is above {pred.ub}"
        return None
    if isinstance(pred, SameElements) and v.ndim:
        blocks = [max(1, int(k)) for k in pred.values][:v.ndim]
        blocks += [1] * (v.ndim - len(blocks))
        first = v
        for d, k in enumerate(blocks):
            if k > 1:
                idx = [slice(None)] * v.ndim
                idx[d] = slice(0, None, k)
                first = np.repeat(first[tuple(idx)], k, axis=d)[tuple(slice(0, n) for n in v.shape)]
        same = (first == v) | ((first != first) & (v != v))
        if not np.all(same):
            at = tuple(int(i) for i in np.argwhere(~same)[0])
            return f"element {at} differs from the first of its block of {tuple(blocks)}"
        return None
    return None


@handler("make_token", "join_tokens")
def _token(it, op, ins, env):
    return [None]


@handler("gdc_launch_dependents_tko", "gdc_wait_tko", "memory_fence_alias_tko")
def _fence(it, op, ins, env):
    return [None]


@handler("get_tile_block_id")
def _block_id(it, op, ins, env):
    t = dt.compute_dtype(_res_elem(op))
    return [np.asarray(b, dtype=t) for b in it.block_id]


@handler("get_num_tile_blocks")
def _num_blocks(it, op, ins, env):
    t = dt.compute_dtype(_res_elem(op))
    return [np.asarray(g, dtype=t) for g in it.grid]


@handler("get_global")
def _get_global(it, op, ins, env):
    name = op.attributes["name"]
    name = getattr(name, "name", name)
    name = str(name).lstrip("@")
    if name not in it.globals:
        raise InterpreterError(f"no global @{name}")
    return [np.asarray(it.globals[name], dtype=np.int64)]


@handler("print_tko")
def _print(it, op, ins, env):
    fmt = _attr(op, "str") or ""
    args = [a for a in it.group(op, ins, "args")]
    conv = []
    for a in args:
        a = np.asarray(a)
        conv.append(a.reshape(()).item() if a.size == 1 else a)
    try:
        if any(isinstance(a, np.ndarray) for a in conv):
            text = fmt.replace("%", "%%", 0)
            # tiles: print each element with the format, as the device does per element
            text = " ".join(fmt % tuple(x.flat[i] if isinstance(x, np.ndarray) else x for x in conv)
                            for i in range(max(x.size for x in conv if isinstance(x, np.ndarray))))
        else:
            text = fmt % tuple(conv)
    except (TypeError, ValueError):
        text = fmt + " " + " ".join(map(str, conv))
    it.prints.append(f"[block {it.block_id}] {text}")
    return [None]


@handler("assert")
def _assert(it, op, ins, env):
    cond = np.asarray(ins[0])
    if not cond.all():
        bad = tuple(int(i) for i in np.argwhere(~cond.astype(bool))[0]) if cond.ndim else ()
        err = KernelAssertionError(f"assert failed at {it.where(op)} in block {it.block_id}, element {bad}: "
                                   f"{_attr(op, 'message')!r}")
        err.located = True
        raise err
    return []


# --- shapes --------------------------------------------------------------------------------------

@handler("reshape")
def _reshape(it, op, ins, env):
    return [np.reshape(ins[0], _res_shape(op))]


@handler("broadcast")
def _broadcast(it, op, ins, env):
    return [np.broadcast_to(ins[0], _res_shape(op))]


@handler("permute")
def _permute(it, op, ins, env):
    return [np.transpose(ins[0], tuple(op.attributes["permutation"]))]


@handler("cat")
def _cat(it, op, ins, env):
    return [np.concatenate([ins[0], ins[1]], axis=int(op.attributes["dim"]))]


@handler("extract")
def _extract(it, op, ins, env):
    src = ins[0]
    shape = _res_shape(op)
    idx = [int(_scalar(i)) for i in ins[1:]]
    sl = tuple(slice(k * n, (k + 1) * n) for k, n in zip(idx, shape))
    out = np.asarray(src)[sl]
    if out.shape != shape:
        raise InterpreterError(f"extract index {idx} of {shape} slices runs outside the source {np.shape(src)}")
    return [out]


@handler("insert")
def _insert(it, op, ins, env):
    src, dest = np.asarray(ins[0]), np.array(ins[1])
    idx = [int(_scalar(i)) for i in ins[2:]]
    sl = tuple(slice(k * n, (k + 1) * n) for k, n in zip(idx, src.shape))
    dest[sl] = src
    return [dest]


@handler("iota")
def _iota(it, op, ins, env):
    shape = _res_shape(op)
    return [np.arange(shape[0], dtype=np.int64).astype(dt.compute_dtype(_res_elem(op)))]


@handler("select")
def _select(it, op, ins, env):
    return [np.where(np.asarray(ins[0], dtype=bool), ins[1], ins[2])]


# --- float arithmetic ----------------------------------------------------------------------------

_DIRECTED = ("zero", "negative_inf", "positive_inf")


def _finish(r, elem: str) -> np.ndarray:
    """A float result computed in NumPy -> a value of ``elem`` (rounded into bf16/tf32/f8)."""
    if elem in ("bf16", "tf32") or elem.startswith("f8"):
        return dt.round_to(r, elem)
    return np.asarray(r).astype(dt.compute_dtype(elem), copy=False)


def _directed(exact: np.ndarray, elem: str, mode: str, it, op) -> np.ndarray:
    """Round float64 results to ``elem`` in a directed mode. Exact for add, sub and mul of
    f16/bf16/f32 (float64 holds their exact results); for div/sqrt the float64 result is itself
    rounded, so a result within an f64 ulp of an ``elem`` value may round the wrong way."""
    if elem not in ("f16", "f32", "bf16"):
        raise it.unsupported(op, f"rounding mode {mode} on {elem}")
    exact = np.asarray(exact, dtype=np.float64)
    r = dt.round_to(exact, elem)
    back = r.astype(np.float64)
    if mode == "zero":
        fix = np.abs(back) > np.abs(exact)
        up = exact < 0  # towards zero: up for negatives, down for positives
    elif mode == "positive_inf":
        fix = back < exact
        up = np.ones(np.shape(exact), bool)
    else:
        fix = back > exact
        up = np.zeros(np.shape(exact), bool)
    fix &= np.isfinite(exact) | np.isinf(back)
    if not fix.any():
        return r
    return np.where(fix, _step(r, elem, up), r).astype(r.dtype)


def _step(r: np.ndarray, elem: str, up: np.ndarray) -> np.ndarray:
    """The neighbouring value of ``elem`` above (``up``) or below each element of ``r``."""
    bits = dt.to_bits(r, elem).astype(np.int64)
    width = dt.itemsize(elem) * 8
    sign = np.int64(1) << np.int64(width - 1)
    neg = (bits & sign) != 0
    mag = bits & (sign - 1)
    zero = mag == 0
    # moving up: magnitude grows for positives, shrinks for negatives (and the reverse down)
    grow = up != neg
    new = np.where(grow, bits + 1, bits - 1)
    new = np.where(zero, np.where(up, 1, sign | 1), new)  # from +-0 to the smallest subnormal
    mask = (np.int64(1) << np.int64(width)) - 1 if width < 64 else np.int64(-1)
    return dt.from_bits((new & mask).astype({16: np.uint16, 32: np.uint32}[width]), elem)


def _float_op(it, op, args, fn):
    elem = _res_elem(op)
    mode = _attr(op, "rounding_mode") or "nearest_even"
    ftz = bool(_attr(op, "flush_to_zero"))
    args = [_float_compute(a, elem) for a in args]
    if ftz and elem == "f32":
        args = [dt.flush_denormals(a) for a in args]
    if mode in _DIRECTED:
        r = _directed(fn(*[a.astype(np.float64) for a in args]), elem, mode, it, op)
    elif mode in ("nearest_even", "approx", "full"):
        r = _finish(fn(*args), elem)
    else:
        raise it.unsupported(op, f"rounding mode {mode}")
    if ftz and elem == "f32":
        r = dt.flush_denormals(r)
    return [r]


def _binary_float(fn):
    return lambda it, op, ins, env: _float_op(it, op, ins[:2], fn)


def _unary_float(fn):
    return lambda it, op, ins, env: _float_op(it, op, ins[:1], fn)


_fn: Callable[..., Any]
for _name, _fn in {"addf": np.add, "subf": np.subtract, "mulf": np.multiply, "divf": np.divide,
                   "remf": np.fmod, "fpowf": np.power, "atan2": np.arctan2}.items():
    handler(_name)(_binary_float(_fn))

_UNARY_FLOAT: Dict[str, Callable[..., Any]] = {
    "absf": np.abs, "negf": np.negative, "ceil": np.ceil, "floor": np.floor, "cos": np.cos,
    "cosh": np.cosh, "sin": np.sin, "sinh": np.sinh, "tan": np.tan, "tanh": np.tanh,
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sqrt": np.sqrt,
    "rsqrt": lambda x: np.reciprocal(np.sqrt(x))}
for _name, _fn in _UNARY_FLOAT.items():
    handler(_name)(_unary_float(_fn))


@handler("fma")
def _fma(it, op, ins, env):
    """Fused: a * b + c rounded once. For f16/bf16/tf32/f32 the product is exact in float64 and
    the sum is rounded to odd there (TwoSum gives its error), which makes the final rounding to
    the narrow type correct (float64 has more than twice their precision plus two bits). f64
    uses math.fma when Python has it (3.13+), else exact rationals."""
    elem = _res_elem(op)
    mode = _attr(op, "rounding_mode") or "nearest_even"
    ftz = bool(_attr(op, "flush_to_zero"))
    a, b, c = (_float_compute(x, elem) for x in ins[:3])
    if ftz and elem == "f32":
        a, b, c = (dt.flush_denormals(x) for x in (a, b, c))
    if mode not in _DIRECTED and mode not in ("nearest_even", "approx", "full"):
        raise it.unsupported(op, f"rounding mode {mode}")
    if elem == "f64":
        if mode in _DIRECTED:
            raise it.unsupported(op, f"rounding mode {mode} on f64")
        r = fma_f64(a, b, c)
    else:
        odd = fma_round_odd(a.astype(np.float64), b.astype(np.float64), c.astype(np.float64))
        if mode in _DIRECTED:
            r = _directed(odd, elem, mode, it, op)
        elif elem in ("bf16", "tf32"):
            r = dt.round_to(_round_odd_f32(odd), elem)
        else:
            r = dt.round_to(odd, elem)
    if ftz and elem == "f32":
        r = dt.flush_denormals(r)
    return [r]


def fma_round_odd(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c for float64 inputs whose product is exact in float64 (values of f32 or
    narrower), rounded to odd in float64: the truncated sum with its last bit set when inexact."""
    a, b, c = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64))
    p = a * b
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)  # TwoSum: s + err == p + c exactly
    inexact = np.isfinite(s) & (err != 0)
    if not inexact.any():
        return s
    toward_zero = np.where((err > 0) == (s > 0), s, np.nextafter(s, 0.0))
    bits = toward_zero.view(np.uint64) | np.uint64(1)
    return np.where(inexact, bits.view(np.float64), s)


def fma_f64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Correctly rounded float64 fma, element by element."""
    import math
    from fractions import Fraction
    a, b, c = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64))
    with np.errstate(all="ignore"):
        out = a * b + c  # the non-finite cases (inf * 0, inf - inf, NaN) as IEEE gives them
    fin = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    native = getattr(math, "fma", None)
    flat_out = out.reshape(-1)
    for i in np.flatnonzero(fin.reshape(-1)):
        x, y, z = float(a.flat[i]), float(b.flat[i]), float(c.flat[i])
        if native is not None:
            try:
                flat_out[i] = native(x, y, z)
            except OverflowError:
                flat_out[i] = math.copysign(math.inf, x * y if x * y != 0 else z)
            continue
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        try:
            v = float(exact)
        except OverflowError:
            v = math.inf if exact > 0 else -math.inf
        if exact == 0:  # an exact zero is -0 only as (-0) + (-0)
            prod = x * y
            v = -0.0 if (prod == 0 and math.copysign(1.0, prod) < 0 and math.copysign(1.0, z) < 0) else 0.0
        elif v == 0.0:  # underflow keeps the sign of the exact result
            v = math.copysign(0.0, exact.numerator)
        flat_out[i] = v
    return flat_out.reshape(out.shape)


@handler("fpowi")
def _fpowi(it, op, ins, env):
    elem = _res_elem(op)
    base = _float_compute(ins[0], elem)
    return [_finish(np.power(base.astype(np.float64), np.asarray(ins[1]).astype(np.float64)), elem)]


@handler("maxf", "minf")
def _minmaxf(it, op, ins, env):
    elem = _res_elem(op)
    a, b = _float_compute(ins[0], elem), _float_compute(ins[1], elem)
    ftz = bool(_attr(op, "flush_to_zero"))
    if ftz and elem == "f32":
        a, b = dt.flush_denormals(a), dt.flush_denormals(b)
    prop = bool(_attr(op, "propagate_nan"))
    if op.name == "maxf":
        r = np.maximum(a, b) if prop else np.fmax(a, b)
        zero_sign = np.signbit(a) & np.signbit(b)   # max(-0, +0) = +0, in either operand order
    else:
        r = np.minimum(a, b) if prop else np.fmin(a, b)
        zero_sign = np.signbit(a) | np.signbit(b)   # min(-0, +0) = -0
    zeros = (a == 0) & (b == 0)
    if np.any(zeros):
        r = np.where(zeros, np.where(zero_sign, -0.0, 0.0).astype(r.dtype), r)
    return [_finish(r, elem)]


_CMP = {"equal": np.equal, "not_equal": np.not_equal, "less_than": np.less, "less_than_or_equal": np.less_equal,
        "greater_than": np.greater, "greater_than_or_equal": np.greater_equal}


@handler("cmpf")
def _cmpf(it, op, ins, env):
    a, b = np.asarray(ins[0]), np.asarray(ins[1])
    pred = _attr(op, "comparison_predicate")
    ordered = _attr(op, "comparison_ordering") == "ordered"
    nan = np.isnan(a) | np.isnan(b)
    base = _CMP[pred](a, b) & ~nan
    return [base if ordered else (base | nan)]


# --- integer arithmetic --------------------------------------------------------------------------

def _int_pair(ins):
    a, b = np.asarray(ins[0]), np.asarray(ins[1])
    if a.dtype != b.dtype:
        b = b.astype(a.dtype)
    return a, b


for _name, _fn in {"addi": np.add, "subi": np.subtract, "muli": np.multiply,
                   "andi": np.bitwise_and, "ori": np.bitwise_or, "xori": np.bitwise_xor}.items():
    def _mk(fn):
        def h(it, op, ins, env):
            a, b = _int_pair(ins)
            if a.dtype == np.bool_ and fn in (np.add, np.subtract):
                return [np.bitwise_xor(a, b)]  # i1 arithmetic wraps mod 2
            if a.dtype == np.bool_ and fn is np.multiply:
                return [a & b]
            return [fn(a, b)]
        return h
    handler(_name)(_mk(_fn))


def _signed_attr(op, name="signedness") -> bool:
    return _attr(op, name) != "unsigned"


@handler("negi")
def _negi(it, op, ins, env):
    a = np.asarray(ins[0])
    return [a if a.dtype == np.bool_ else np.negative(a)]


@handler("absi")
def _absi(it, op, ins, env):
    return [np.abs(np.asarray(ins[0]))]  # abs(INT_MIN) wraps to INT_MIN, as two's complement does


@handler("mulhii")
def _mulhii(it, op, ins, env):
    a, b = _int_pair(ins)
    ua, ub = _unsigned(a), _unsigned(b)
    width = a.dtype.itemsize * 8
    if width < 64:
        hi = (ua.astype(np.uint64) * ub.astype(np.uint64)) >> np.uint64(width)
        return [hi.astype(ua.dtype).view(a.dtype)]
    # 64x64 -> high 64 bits from 32-bit halves
    m = np.uint64(0xFFFFFFFF)
    a_lo, a_hi = ua & m, ua >> np.uint64(32)
    b_lo, b_hi = ub & m, ub >> np.uint64(32)
    lo_lo = a_lo * b_lo
    mid1 = a_hi * b_lo + (lo_lo >> np.uint64(32))
    mid2 = a_lo * b_hi + (mid1 & m)
    hi = a_hi * b_hi + (mid1 >> np.uint64(32)) + (mid2 >> np.uint64(32))
    return [hi.view(np.int64)]


@handler("divi")
def _divi(it, op, ins, env):
    a, b = _int_pair(ins)
    rounding = _attr(op, "rounding") or "zero"
    zero = b == 0
    if _signed_attr(op):
        bs = np.where(zero, np.ones((), b.dtype), b)
        q = np.floor_divide(a, bs)
        r = a - q * bs
        if rounding == "zero":
            q = np.where((r != 0) & ((a < 0) != (bs < 0)), q + 1, q)
        elif rounding == "positive_inf":
            q = np.where(r != 0, q + 1, q)
        elif rounding != "negative_inf":
            raise it.unsupported(op, f"rounding {rounding}")
    else:
        ua, ub = _unsigned(a), _unsigned(b)
        ubs = np.where(zero, np.ones((), ub.dtype), ub)
        q = ua // ubs
        if rounding == "positive_inf":
            q = np.where(ua % ubs != 0, q + np.ones((), q.dtype), q)
        q = q.astype(ub.dtype).view(a.dtype)
    # division by zero: all ones (what PTX's div.u gives; the IR leaves it undefined)
    return [np.where(zero, np.asarray(-1).astype(a.dtype), q).astype(a.dtype)]


@handler("remi")
def _remi(it, op, ins, env):
    a, b = _int_pair(ins)
    zero = b == 0
    if _signed_attr(op):
        r = np.fmod(a, np.where(zero, np.ones((), b.dtype), b))
    else:
        ua, ub = _unsigned(a), _unsigned(b)
        r = (ua % np.where(zero, np.ones((), ub.dtype), ub)).astype(ub.dtype).view(a.dtype)
    return [np.where(zero, a, r).astype(a.dtype)]  # x rem 0 := x (undefined in the IR)


@handler("maxi", "mini")
def _minmaxi(it, op, ins, env):
    a, b = _int_pair(ins)
    fn = np.maximum if op.name == "maxi" else np.minimum
    if _signed_attr(op) or a.dtype == np.bool_:
        return [fn(a, b)]
    return [fn(_unsigned(a), _unsigned(b)).view(a.dtype)]


def _shift_amounts(a, b):
    """(the bit width of ``a``, the shift amounts ``b`` read unsigned, where they reach the width)."""
    width = a.dtype.itemsize * 8
    ub = _unsigned(b).astype(np.uint64)
    return width, ub, ub >= width


@handler("shli")
def _shli(it, op, ins, env):
    a, b = _int_pair(ins)
    _, ub, big = _shift_amounts(a, b)
    sh = np.where(big, 0, ub).astype(a.dtype)
    r = np.left_shift(_unsigned(a), sh.astype(_unsigned(a).dtype)).view(a.dtype)
    return [np.where(big, np.zeros((), a.dtype), r)]


@handler("shri")
def _shri(it, op, ins, env):
    a, b = _int_pair(ins)
    width, ub, big = _shift_amounts(a, b)
    sh = np.where(big, width - 1, ub)
    if _signed_attr(op):
        r = np.right_shift(a, sh.astype(a.dtype))  # arithmetic; by width-1 gives the sign fill
        return [r]
    ua = _unsigned(a)
    r = np.right_shift(ua, sh.astype(ua.dtype)).view(a.dtype)
    return [np.where(big, np.zeros((), a.dtype), r)]


@handler("cmpi")
def _cmpi(it, op, ins, env):
    a, b = _int_pair(ins)
    if not _signed_attr(op) and a.dtype != np.bool_:
        a, b = _unsigned(a), _unsigned(b)
    return [_CMP[_attr(op, "comparison_predicate")](a, b)]


# --- conversions ---------------------------------------------------------------------------------

@handler("exti")
def _exti(it, op, ins, env):
    a = np.asarray(ins[0])
    to = dt.compute_dtype(_res_elem(op))
    if a.dtype == np.bool_:
        return [(-(a.astype(np.int64)) if _signed_attr(op) else a.astype(np.int64)).astype(to)]
    if _signed_attr(op):
        return [a.astype(to)]
    return [_unsigned(a).astype(dt.UINT_OF[np.dtype(to)]).view(to)]


@handler("trunci")
def _trunci(it, op, ins, env):
    a = np.asarray(ins[0])
    to_elem = _res_elem(op)
    if to_elem == "i1":
        return [(a & 1) != 0]
    return [a.astype(dt.compute_dtype(to_elem))]


@handler("itof")
def _itof(it, op, ins, env):
    a = np.asarray(ins[0])
    elem = _res_elem(op)
    mode = _attr(op, "rounding_mode") or "nearest_even"
    if a.dtype == np.bool_:
        a = -(a.astype(np.int64)) if _signed_attr(op) else a.astype(np.int64)
    elif not _signed_attr(op):
        a = _unsigned(a)
    if mode in _DIRECTED:
        if a.dtype.itemsize == 8:
            raise it.unsupported(op, f"rounding mode {mode} from 64-bit integers")
        return [_directed(a.astype(np.float64), elem, mode, it, op)]
    if elem in ("f32", "f16", "f64"):
        return [a.astype(dt.compute_dtype(elem))]  # NumPy's casts round to nearest even
    return [dt.round_to(_exact_f64(a), elem)]


def _exact_f64(a: np.ndarray) -> np.ndarray:
    if a.dtype.itemsize == 8 and np.abs(a.astype(np.float64)).max(initial=0) >= 2.0 ** 53:
        raise InterpreterError("integer beyond 2**53 converted to a narrow float type")
    return a.astype(np.float64)


def _int_range(elem: str, signed: bool):
    width = np.dtype(dt.compute_dtype(elem)).itemsize * 8
    return (-(2 ** (width - 1)), 2 ** (width - 1) - 1) if signed else (0, 2 ** width - 1)


@handler("ftoi")
def _ftoi(it, op, ins, env):
    x = np.asarray(ins[0]).astype(np.float64)
    elem = _res_elem(op)
    mode = _attr(op, "rounding_mode") or "nearest_int_to_zero"
    rounders = {"nearest_int_to_zero": np.trunc, "zero": np.trunc, "nearest_even": np.rint,
                "negative_inf": np.floor, "positive_inf": np.ceil,
                "nearest_away": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5)}
    if mode not in rounders:
        raise it.unsupported(op, f"rounding mode {mode}")
    r = rounders[mode](x)
    signed = _signed_attr(op)
    if elem == "i1":
        return [r != 0]
    lo, hi = _int_range(elem, signed)
    # out of range saturates and NaN gives 0 (what cvt.rzi does; the IR leaves it undefined
    # unless `saturating` is set, which asks for exactly this)
    nan = np.isnan(r)
    r = np.where(nan, 0.0, r)
    too_low, too_high = r <= lo, r >= hi
    inner = np.clip(r, lo, hi)
    t = dt.compute_dtype(elem)
    if signed:
        vals = np.where(too_high, 0, inner).astype(np.int64)
        res = np.where(too_high, np.int64(hi), np.where(too_low, np.int64(lo), vals)).astype(t)
        return [res]
    u = dt.UINT_OF[np.dtype(t)]
    vals = np.where(too_high, 0, inner).astype(np.uint64)
    res = np.where(too_high, np.uint64(hi), np.where(too_low, np.uint64(0), vals)).astype(u).view(t)
    return [res]


@handler("ftof")
def _ftof(it, op, ins, env):
    x = np.asarray(ins[0])
    elem = _res_elem(op)
    mode = _attr(op, "rounding_mode") or "nearest_even"
    if mode in _DIRECTED:
        return [_directed(x.astype(np.float64), elem, mode, it, op)]
    if mode not in ("nearest_even", "approx", "full"):
        raise it.unsupported(op, f"rounding mode {mode}")
    src = _elem_of(op.operands[0].type)
    if elem in ("bf16", "tf32") and src == "f64":
        x = _round_odd_f32(x)  # so the second rounding to bf16/tf32 is exact
    return [dt.round_to(x, elem)]


def _round_odd_f32(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, np.float64)
    r = x.astype(np.float32)
    back = r.astype(np.float64)
    trunc = np.where(np.abs(back) > np.abs(x), np.nextafter(r, np.float32(0)), r).astype(np.float32)
    bits = trunc.view(np.uint32)
    inexact = (back != x) & np.isfinite(x)
    return np.where(inexact, bits | np.uint32(1), bits).astype(np.uint32).view(np.float32)


@handler("bitcast")
def _bitcast(it, op, ins, env):
    src = _elem_of(op.operands[0].type)
    dst = _res_elem(op)
    if src == "ptr" or dst == "ptr":
        if src == "ptr" and dst == "ptr":
            return [ins[0]]
        if (src == "ptr" and dst == "i64") or (dst == "ptr" and src == "i64"):
            return [np.asarray(ins[0]).astype(np.int64)]
        raise it.unsupported(op, f"bitcast {src} -> {dst}")
    if dt.itemsize(src) != dt.itemsize(dst) and not (src == "i1" or dst == "i1"):
        raise InterpreterError(f"bitcast between widths: {src} -> {dst}")
    return [dt.from_bits(dt.to_bits(np.asarray(ins[0]), src), dst)]


@handler("ptr_to_int", "int_to_ptr", "ptr_to_ptr")
def _ptr_int(it, op, ins, env):
    return [np.asarray(ins[0]).astype(np.int64)]


@handler("offset")
def _offset(it, op, ins, env):
    ptr = np.asarray(ins[0], dtype=np.int64)
    size = dt.itemsize(_pointee(op.operands[0].type))
    return [ptr + np.asarray(ins[1]).astype(np.int64) * size]


# --- mma -----------------------------------------------------------------------------------------

@handler("mmaf")
def _mmaf(it, op, ins, env):
    lhs, rhs, acc = (np.asarray(x) for x in ins[:3])
    elem = _res_elem(op)
    # inputs hold exact values of their types; the product sums in float64 (more precise than
    # the hardware's f32 accumulation, in an unspecified order either way), then rounds once
    prod = np.matmul(lhs.astype(np.float64), rhs.astype(np.float64))
    return [_finish(prod + acc.astype(np.float64), elem) if elem != "f64" else prod + acc]


@handler("mmai")
def _mmai(it, op, ins, env):
    lhs, rhs, acc = (np.asarray(x) for x in ins[:3])
    lhs = lhs.astype(np.int64) if _signed_attr(op, "signedness_lhs") else _unsigned(lhs).astype(np.int64)
    rhs = rhs.astype(np.int64) if _signed_attr(op, "signedness_rhs") else _unsigned(rhs).astype(np.int64)
    prod = np.matmul(lhs, rhs) + acc.astype(np.int64)
    return [prod.astype(dt.compute_dtype(_res_elem(op)))]


# --- reduce / scan -------------------------------------------------------------------------------

def _identity(attr, elem: str):
    if isinstance(attr, FloatAttr):
        return dt.from_bits(np.asarray(attr.bits, dtype=np.uint64).astype(
            {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize(elem)]), elem)
    if isinstance(attr, IntegerAttr):
        return dt.from_python(attr.value, elem)
    raise InterpreterError(f"identity {attr!r} is neither a float nor an integer attribute")


def _combiner(it, op, env):
    block = op.regions[0].blocks[0]
    n = len(op.operands)
    elems = [_elem_of(v.type) for v in op.operands]

    def combine(xs, accs):
        # Block arguments come in one pair per operand: (accumulated value of the earlier
        # elements, new element), as cuTile emits them (lhs0, rhs0, lhs1, rhs1, ...)
        args = []
        for acc, x in zip(accs, xs):
            args += [acc, x]
        it._combiner_depth += 1
        try:
            kind, vals = _unpack(it.run_region(block, args, env))
        finally:
            it._combiner_depth -= 1
        if kind != "yield" or len(vals) != n:
            raise InterpreterError(f"{op.name} body must end in yield of {n} values")
        return [np.asarray(v).astype(dt.compute_dtype(e)) for v, e in zip(vals, elems)]
    return combine, elems


@handler("reduce")
def _reduce(it, op, ins, env):
    dim = int(op.attributes["dim"])
    combine, elems = _combiner(it, op, env)
    ids = [_identity(a, e) for a, e in zip(op.attributes["identities"], elems)]
    xs = [np.moveaxis(np.asarray(x), dim, -1) for x in ins]
    n = xs[0].shape[-1]
    if it.options.reduce_order == "sequential":
        accs = [np.broadcast_to(i, x.shape[:-1]) for i, x in zip(ids, xs)]
        for k in range(n):
            accs = combine([x[..., k] for x in xs], accs)
        return accs
    xs = combine(xs, [np.broadcast_to(i, x.shape) for i, x in zip(ids, xs)])
    while xs[0].shape[-1] > 1:
        m = xs[0].shape[-1]
        if m % 2:
            xs = [np.concatenate([x, np.broadcast_to(i, x.shape[:-1] + (1,))], axis=-1) for x, i in zip(xs, ids)]
            m += 1
        h = m // 2
        xs = combine([x[..., h:] for x in xs], [x[..., :h] for x in xs])
    return [x[..., 0] for x in xs]


@handler("scan")
def _scan(it, op, ins, env):
    dim = int(op.attributes["dim"])
    reverse = bool(op.attributes.get("reverse", False))
    combine, elems = _combiner(it, op, env)
    ids = [_identity(a, e) for a, e in zip(op.attributes["identities"], elems)]
    xs = [np.moveaxis(np.asarray(x), dim, -1) for x in ins]
    n = xs[0].shape[-1]
    outs = [np.empty(x.shape, dtype=dt.compute_dtype(e)) for x, e in zip(xs, elems)]
    accs = [np.broadcast_to(i, x.shape[:-1]) for i, x in zip(ids, xs)]
    for k in (range(n - 1, -1, -1) if reverse else range(n)):
        accs = combine([x[..., k] for x in xs], accs)
        for o, a in zip(outs, accs):
            o[..., k] = a
    return [np.moveaxis(o, -1, dim) for o in outs]


# --- loops ---------------------------------------------------------------------------------------

@handler("for")
def _for(it, op, ins, env):
    lb, ub, step = (_scalar(x) for x in ins[:3])
    values = list(ins[3:])
    block = op.regions[0].blocks[0]
    idx_t = block.arguments[0].type
    idx_dtype = dt.compute_dtype(_elem_of(idx_t))
    if bool(_attr(op, "unsignedCmp")):
        width = np.dtype(idx_dtype).itemsize * 8
        lb, ub = lb % (1 << width), ub % (1 << width)
    if step <= 0:
        raise InterpreterError(f"for step {step} is not positive")
    count = 0
    i = lb
    while i < ub:
        count += 1
        if count > it.options.max_loop_iterations:
            raise InterpreterError(f"for ran past {it.options.max_loop_iterations} iterations")
        kind, vals = _unpack(it.run_region(block, [np.asarray(i).astype(idx_dtype)] + values, env))
        if kind == "break":
            return vals
        if kind == "return":
            raise it.unsupported(op, "return inside for")
        values = vals if kind in ("continue", "yield") else values
        i += step
    return values


@handler("loop")
def _loop(it, op, ins, env):
    values = list(ins)
    block = op.regions[0].blocks[0]
    for _ in range(it.options.max_loop_iterations):
        kind, vals = _unpack(it.run_region(block, values, env))
        if kind == "break":
            return vals
        if kind in ("continue", "yield"):
            values = vals
            continue
        raise InterpreterError(f"loop body ended with {kind}")
    raise InterpreterError(f"loop ran past {it.options.max_loop_iterations} iterations")


# --- views and memory ----------------------------------------------------------------------------

@handler("make_tensor_view")
def _make_tensor_view(it, op, ins, env):
    t: TensorViewType = op.results[0].type
    base = int(_scalar(ins[0]))
    dyn_shape = iter(int(_scalar(v)) for v in it.group(op, ins, "dynamicShape"))
    dyn_strides = iter(int(_scalar(v)) for v in it.group(op, ins, "dynamicStrides"))
    shape = tuple(next(dyn_shape) if d is None else d for d in t.shape)
    strides = tuple(next(dyn_strides) if s is None else s for s in t.strides)
    return [TensorView(base, dt.name_of(t.element), shape, strides)]


@handler("make_partition_view", "make_strided_view", "make_gather_scatter_view")
def _make_tile_view(it, op, ins, env):
    return [TileView(ins[0], op.results[0].type)]


@handler("get_index_space_shape")
def _index_space(it, op, ins, env):
    view = ins[0]
    if not isinstance(view, TileView):
        raise InterpreterError("get_index_space_shape of a non-tile view")
    t = dt.compute_dtype(_res_elem(op))
    return [np.asarray(n, dtype=t) for n in view.index_space_shape()]


@handler("get_tensor_shape")
def _tensor_shape(it, op, ins, env):
    view = ins[0]
    tv = view.tensor if isinstance(view, TileView) else view
    t = dt.compute_dtype(_res_elem(op))
    return [np.asarray(n, dtype=t) for n in tv.shape]


def _check_tile(op, view: TileView, shape, what: str):
    if tuple(shape) != view.tile_shape:
        raise InterpreterError(f"{what} tile {tuple(shape)} does not match the view's tile {view.tile_shape}")


@handler("load_view_tko")
def _load_view(it, op, ins, env):
    view = ins[0]
    _check_tile(op, view, _res_shape(op), "result")
    return [view.load(it.memory, it.group(op, ins, "index"), _res_elem(op)), None]


@handler("store_view_tko")
def _store_view(it, op, ins, env):
    tile, view = np.asarray(ins[0]), ins[1]
    _check_tile(op, view, tile.shape, "stored")
    view.store(it.memory, it.group(op, ins, "index"), tile)
    return [None]


def _pointer_access(it, op, ins, pointers: str, values: Tuple[str, ...], shape=None):
    """What the pointer-tile memory ops share: the pointer tile (operand group ``pointers``) and
    the ``values`` groups broadcast to ``shape`` (default: the shape they broadcast to), the mask
    (all true when absent) and the pointee element type."""
    ptrs = np.asarray(it.group(op, ins, pointers)[0], dtype=np.int64)
    tiles = [np.asarray(it.group(op, ins, v)[0]) for v in values]
    if shape is None:
        shape = np.broadcast_shapes(ptrs.shape, *(t.shape for t in tiles))
    mask = it.group(op, ins, "mask")
    m = np.broadcast_to(np.asarray(mask[0], dtype=bool), shape) if mask else np.ones(shape, bool)
    return (np.broadcast_to(ptrs, shape), [np.broadcast_to(t, shape) for t in tiles], m,
            _pointee(op.operands[0].type))


@handler("load_ptr_tko")
def _load_ptr(it, op, ins, env):
    shape = _res_shape(op)
    ptrs, _, m, elem = _pointer_access(it, op, ins, "source", (), shape)
    pad = it.group(op, ins, "paddingValue")
    out = np.array(np.broadcast_to(pad[0], shape)) if pad else np.zeros(shape, dt.compute_dtype(elem))
    out = out.astype(dt.compute_dtype(elem))
    if m.any():
        out[m] = it.memory.load(ptrs[m], elem, f"load_ptr_tko at {it.where(op)}")
    return [out, None]


@handler("store_ptr_tko")
def _store_ptr(it, op, ins, env):
    ptrs, (value,), m, elem = _pointer_access(it, op, ins, "destination", ("value",))
    if m.any():
        it.memory.store(ptrs[m], value[m], elem, f"store_ptr_tko at {it.where(op)}")
    return [None]


def _rmw_fn(mode: str, elem: str):
    if mode == "and":
        return np.bitwise_and
    if mode == "or":
        return np.bitwise_or
    if mode == "xor":
        return np.bitwise_xor
    if mode == "add":
        return np.add
    if mode == "addf":
        return lambda a, b: _finish(np.add(a, b), elem)
    if mode == "max":
        return np.maximum
    if mode == "min":
        return np.minimum
    if mode in ("umax", "umin"):
        f = np.maximum if mode == "umax" else np.minimum
        return lambda a, b: f(_unsigned(a), _unsigned(_as(b, a))).view(a.dtype)
    if mode == "xchg":
        return lambda a, b: np.broadcast_to(b, np.shape(a))
    raise InterpreterError(f"atomic mode {mode}")


def _as(b, a):
    return np.asarray(b).astype(np.asarray(a).dtype)


def atomic_update(memory, addresses: np.ndarray, args: Sequence[np.ndarray], elem: str, update, what: str):
    """Apply ``update(old, *args) -> new`` atomically per element, in row-major element order
    (duplicate addresses are applied one after the other in rounds); returns the old values."""
    addresses = np.asarray(addresses, dtype=np.int64).reshape(-1)
    args = [np.asarray(a).reshape(-1) for a in args]
    olds = np.empty(addresses.shape, dtype=dt.compute_dtype(elem))
    remaining = np.arange(addresses.size)
    while remaining.size:
        _, first = np.unique(addresses[remaining], return_index=True)
        sel = remaining[np.sort(first)]
        old = memory.load(addresses[sel], elem, what)
        memory.store(addresses[sel], update(old, *[a[sel] for a in args]), elem, what)
        olds[sel] = old
        keep = np.ones(remaining.size, bool)
        keep[np.sort(first)] = False
        remaining = remaining[keep]
    return olds


@handler("atomic_rmw_tko")
def _atomic_rmw(it, op, ins, env):
    shape = _res_shape(op)
    ptrs, (arg,), m, elem = _pointer_access(it, op, ins, "pointers", ("arg",), shape)
    arg = arg.astype(dt.compute_dtype(elem))
    fn = _rmw_fn(_attr(op, "mode"), elem)
    out = np.zeros(shape, dt.compute_dtype(elem))
    if m.any():
        out[m] = atomic_update(it.memory, ptrs[m], [arg[m]], elem, fn, f"atomic_rmw_tko at {it.where(op)}")
    return [out, None]


@handler("atomic_cas_tko")
def _atomic_cas(it, op, ins, env):
    shape = _res_shape(op)
    ptrs, (cmp, val), m, elem = _pointer_access(it, op, ins, "pointers", ("cmp", "val"), shape)
    ct = dt.compute_dtype(elem)
    cmp, val = cmp.astype(ct), val.astype(ct)

    def cas(old, c, v):  # compares bit patterns, so NaN == NaN and -0.0 != +0.0 as on the device
        return np.where(dt.to_bits(old, elem) == dt.to_bits(c, elem), v, old)
    out = np.zeros(shape, ct)
    if m.any():
        out[m] = atomic_update(it.memory, ptrs[m], [cmp[m], val[m]], elem, cas, f"atomic_cas_tko at {it.where(op)}")
    return [out, None]


@handler("atomic_red_view_tko")
def _atomic_red_view(it, op, ins, env):
    view = it.group(op, ins, "view")[0]
    value = np.asarray(it.group(op, ins, "value")[0])
    _check_tile(op, view, value.shape, "value")
    addrs, mask = view.addresses(it.group(op, ins, "index"))
    elem = view.tensor.elem
    fn = _rmw_fn(_attr(op, "mode"), elem)
    if mask.any():
        atomic_update(it.memory, addrs[mask], [value.astype(dt.compute_dtype(elem))[mask]], elem, fn,
                      f"atomic_red_view_tko at {it.where(op)}")
    return [None]


SUPPORTED_OPS = frozenset(_HANDLERS) | {"if"} | set(TERMINATORS)
