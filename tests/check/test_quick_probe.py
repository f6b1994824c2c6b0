"""The quick probe (smt._quick_probe): a float query whose cone it can evaluate exactly is decided
as the first attempt's probe would decide it, without z3 (which is then not even imported). These
tests hold it to z3: each step against z3's simplifier on numerals, and whole diffs with the quick
probe against the same diffs without it (verdict, every proof's outcome and counterexample, the
differences), including pairs where z3 is asked after a quick decision (``ConeEncoder._replay``)."""
from __future__ import annotations

import json
import random
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tileir_diff.check import smt
from tileir_diff.compare import compute_diff
from tileir_diff.ir import TileType
from tileir_diff.ir.types import ScalarType
from tileir_diff.text.parser import parse_text

pytestmark = pytest.mark.skipif(not smt.available(), reason="z3-solver not installed")

ROOT = Path(__file__).resolve().parents[2]
_BITS = {"f16": (16, "<H"), "f32": (32, "<I"), "f64": (64, "<Q")}
_SORTS = {"f16": (5, 11), "f32": (8, 24), "f64": (11, 53)}


def _random_value(rng: random.Random, et: str) -> float:
    width, raw = _BITS[et]
    fmt = smt._QUICK_FORMATS[et][0]
    while True:
        x = struct.unpack(fmt, struct.pack(raw, rng.getrandbits(width)))[0]
        if x == x and abs(x) != float("inf"):
            return x


@pytest.mark.parametrize("et", sorted(_BITS))
def test_each_step_is_the_ieee_operation_z3_computes(et):
    """Random operands (normal, subnormal, zero; any exponent): wherever the quick probe gives a
    number, it is z3's simplified fpAdd/fpSub/fpMul/fpDiv/fpNeg at RNE, bit for bit."""
    z3 = smt.z3
    ctx = z3.Context()
    sort = z3.FPSort(*_SORTS[et], ctx=ctx)
    side = smt._QuickSide(None, lambda *_: None, "left", TileType((), ScalarType(et)), smt._QUICK_FORMATS[et])
    ops = {"float.add": z3.fpAdd, "float.sub": z3.fpSub, "float.mul": z3.fpMul, "float.div": z3.fpDiv}
    rng = random.Random(f"quick-{et}")
    fmt_of = smt._QUICK_FORMATS[et][0]
    decided = 0
    for i in range(600):
        a, b = _random_value(rng, et), _random_value(rng, et)
        if i % 3 == 0:  # operands close in magnitude: cancellation, carries, ties
            fmt = smt._QUICK_FORMATS[et][0]
            b = struct.unpack(fmt, struct.pack(fmt, a * (1 - rng.random() / 64)))[0]
        for sem, make in ops.items():
            node = (sem, [("number", a), ("number", b)])
            try:
                got = side.evaluate(node, 0.0)
            except smt._NotQuick:
                continue
            want = z3.simplify(make(z3.RNE(ctx), z3.FPVal(a, fps=sort, ctx=ctx), z3.FPVal(b, fps=sort, ctx=ctx), ctx))
            assert smt._py(want) == got, (sem, a, b)
            assert struct.pack(fmt_of, got) == struct.pack(fmt_of, smt._py(want))
            decided += 1
        try:
            got = side.evaluate(("float.neg", [("number", a)]), 0.0)
        except smt._NotQuick:
            continue
        assert smt._py(z3.simplify(z3.fpNeg(z3.FPVal(a, fps=sort, ctx=ctx), ctx))) == got
    assert decided > 300  # (most random operands are normal)


def _kernel(et: str, body: str):
    view = f"partition_view<tile=(128), tensor_view<?x{et}, strides=[1]>>"
    tview = f"tensor_view<?x{et}, strides=[1]>"
    text = (f"entry @k(%arg0: tile<ptr<{et}>>, %arg1: tile<ptr<{et}>>, %arg2: tile<i32>) {{\n"
            f"  %0 = make_token : token\n"
            f"  %tx = make_tensor_view %arg0, shape = [%arg2], strides = [1] : tile<i32> -> {tview}\n"
            f"  %ty = make_tensor_view %arg1, shape = [%arg2], strides = [1] : tile<i32> -> {tview}\n"
            f"  %bx, %by, %bz = get_tile_block_id : tile<i32>\n"
            f"  %px = make_partition_view %tx : {view}\n"
            f"  %py = make_partition_view %ty : {view}\n"
            f"  %a, %a_t = load_view_tko weak %px[%bx] token = %0 : {view}, tile<i32> -> tile<128x{et}>, token\n"
            f"  %b, %b_t = load_view_tko weak %px[%bz] token = %0 : {view}, tile<i32> -> tile<128x{et}>, token\n"
            f"{body}"
            f"  %st = store_view_tko weak %v, %py[%bx] token = %0 : tile<128x{et}>, {view}, tile<i32> -> token\n"
            f"  return\n}}\n")
    return parse_text(text, version=(13, 3))


_CONSTANTS = ["1.500000e+00", "2.000000e+00", "-3.250000e+00", "7.000000e-01", "1.000000e-01", "0.000000e+00",
              "-0.000000e+00", "6.000000e+04", "1.000000e+30", "1.000000e-30", "3.000000e+00", "5.000000e-01"]


def _chain(rng: random.Random, et: str, steps: int):
    """A random chain from the loads: (op, constant) steps, and where the right differs."""
    out = [("maxf", rng.choice(_CONSTANTS))] if rng.random() < 0.7 else []  # (maxf: a leaf, the cone stops)
    for _ in range(steps):
        op = rng.choice(["addf", "subf", "mulf", "divf", "negf", "maxf", "addf2"])
        out.append((op, rng.choice(_CONSTANTS)))
    return out


def _body(et: str, chain) -> str:
    lines, cur = [], "%a"
    for k, (op, c) in enumerate(chain):
        t = f"tile<128x{et}>"
        if op == "negf":
            lines.append(f"  %v{k} = negf {cur} : {t}")
        elif op == "addf2":  # a second leaf: the other load
            lines.append(f"  %v{k} = addf {cur}, %b : {t}")
        else:
            lines.append(f"  %c{k} = constant <{et}: {c}> : {t}")
            lines.append(f"  %v{k} = {op} {cur}, %c{k} : {t}")
        cur = f"%v{k}"
    lines.append(f"  %v = addf {cur}, {cur} : tile<128x{et}>")
    return "\n".join(lines) + "\n"


def _mutate(rng: random.Random, chain):
    chain = list(chain)
    k = rng.randrange(len(chain))
    op, c = chain[k]
    what = rng.random()
    if what < 0.6:
        chain[k] = (op, rng.choice([x for x in _CONSTANTS if x != c]))
    elif what < 0.8:
        chain[k] = (rng.choice(["addf", "subf", "mulf", "divf"]), c)
    # else: the same chain (equal kernels, or a proof of equality)
    return chain


def _summary(r) -> str:
    proofs = [{k: v for k, v in p.items() if k != "seconds"} for p in r.proofs]
    diffs = [(d.category, d.message, {k: v for k, v in d.detail.items() if not k.endswith("seconds")})
             for d in r.differences]
    return json.dumps({"verdict": r.verdict, "proofs": proofs, "differences": diffs}, sort_keys=True, default=str)


@pytest.mark.parametrize("et", sorted(_BITS))
def test_diffs_with_the_quick_probe_are_the_diffs_without_it(et, monkeypatch):
    rng = random.Random(f"chains-{et}")
    quick_calls = []
    original = smt._quick_probe

    def spy(enc, vl, vr):
        out = original(enc, vl, vr)
        quick_calls.append(out is not None)
        return out
    pairs = []
    for _ in range(24):
        chain = _chain(rng, et, rng.randint(1, 6))
        other = _mutate(rng, chain)
        pairs.append((_kernel(et, _body(et, chain)), _kernel(et, _body(et, other))))
    monkeypatch.setattr(smt, "_quick_probe", spy)
    with_quick = [_summary(compute_diff(a, b, with_summary=False, with_lines=False)) for a, b in pairs]
    monkeypatch.setattr(smt, "_quick_allowed", lambda: False)
    without = [_summary(compute_diff(a, b, with_summary=False, with_lines=False)) for a, b in pairs]
    assert with_quick == without
    assert True in quick_calls and False in quick_calls  # both paths ran


def test_z3_after_a_quick_decision_sees_the_context_the_z3_path_left(monkeypatch):
    """One encoder: a quick decision, then a query only z3 decides (two loads: two leaves). The
    second query's outcome, and z3's work count after it, are those of the path without the
    quick probe (its queries are replayed first)."""
    body = ("  %c0 = constant <f32: 2.000000e+00> : tile<128xf32>\n  %v0 = mulf %a, %c0 : tile<128xf32>\n"
            "  %w = addf %a, %b : tile<128xf32>\n  %v = mulf %v0, %w : tile<128xf32>\n")
    other = body.replace("2.000000e+00", "3.000000e+00").replace("addf %a, %b", "subf %a, %b")
    a, b = _kernel("f32", body), _kernel("f32", other)
    spent = []
    original = smt.ConeEncoder._solve

    def spy(self, s, rlimit):
        r = original(self, s, rlimit)
        spent.append(self._spent)
        return r
    monkeypatch.setattr(smt.ConeEncoder, "_solve", spy)
    quick = _summary(compute_diff(a, b, with_summary=False, with_lines=False))
    quick_spent, spent[:] = list(spent), []
    monkeypatch.setattr(smt, "_quick_allowed", lambda: False)
    assert _summary(compute_diff(a, b, with_summary=False, with_lines=False)) == quick
    assert spent == quick_spent


def test_a_pair_the_quick_probe_decides_does_not_import_z3(tmp_path):
    """The bench's kind of pair (one constant changed in a chain): z3 is never imported."""
    from tileir_diff.bytecode.writer import write_bytecode
    chain = [("mulf", "1.500000e+00"), ("maxf", "2.000000e+00"), ("subf", "7.000000e-01"), ("addf", "3.000000e+00")]
    paths = []
    other = chain[:2] + [("subf", "7.500000e-01")] + chain[3:]  # a constant after the maxf (a leaf) changed
    for i, c in enumerate((chain, other)):
        p = tmp_path / f"{i}.tileirbc"
        p.write_bytes(write_bytecode(_kernel("f32", _body("f32", c)), (13, 3)))
        paths.append(str(p))
    code = ("import sys, tileir_diff; r = tileir_diff.diff(sys.argv[1], sys.argv[2]); "
            "print(r.verdict, [p['status'] for p in r.proofs], 'z3' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, *paths], capture_output=True, text=True, check=True,
                          cwd=tmp_path, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    verdict, rest = done.stdout.split(" ", 1)
    assert verdict == "different" and "'different'" in rest and rest.strip().endswith("False"), done.stdout
