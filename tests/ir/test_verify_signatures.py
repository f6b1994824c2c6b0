"""The verifier's signature memo (ir/verify.py, ``_Verifier.typed_ok``): an op whose signature
(op, segments, operand and result type objects) an earlier op passed skips only the checks that
read nothing else, so every module gets the verdict and the message it gets without the memo.
Checked on corpus kernels and on mutants of them: the last op of a repeated signature given a
wrong attribute, another type object of the module, swapped operands or other segments."""
from __future__ import annotations

import dataclasses
import random
from pathlib import Path

from tileir_diff import TileIRFormatError, load
from tileir_diff.ir.attributes import DenseElements, EnumValue
from tileir_diff.ir.core import Block, make_value
from tileir_diff.ir.verify import _Verifier

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "data"


class _Never(set):
    """A memo that never remembers: every op gets every check."""

    def __contains__(self, key) -> bool:
        return False


def _outcome(module, memo: bool):
    v = _Verifier(module, "m.tileirbc", None)
    if not memo:
        v.typed_ok = _Never()
    try:
        v.run()
    except TileIRFormatError as e:
        return str(e)
    return None


def _with_body_op(module, fi: int, j: int, op):
    f = module.functions[fi]
    ops = list(f.body.operations)
    ops[j] = op
    body = Block(f.body.arguments, tuple(ops))
    functions = list(module.functions)
    functions[fi] = dataclasses.replace(f, body=body)
    return dataclasses.replace(module, functions=tuple(functions))


def _mutants(module, rng: random.Random):
    """(description, module) for the last op of each repeated signature of the entry bodies."""
    types = []
    for op in module.walk():
        for v in (*op.operands, *op.results):
            if all(v.type is not t for t in types):
                types.append(v.type)
    for fi, f in enumerate(module.functions):
        last = {}
        for j, op in enumerate(f.body.operations):
            if op.regions:
                continue
            key = (op.name, op.segments, tuple(id(v.type) for v in (*op.operands, None, *op.results) if v))
            last[key] = (j, op, last.get(key, (None, None, 0))[2] + 1)
        for j, op, seen in last.values():
            if seen < 2:
                continue  # not a repeat: the memo cannot have it
            for name, value in op.attributes.items():
                wrong = EnumValue("NotAnEnum", "x") if not isinstance(value, EnumValue) else \
                    DenseElements(types[0], b"")
                yield f"{op.name}.{name} wrong", _with_body_op(module, fi, j, op.replace(
                    attributes={**op.attributes, name: wrong}))
                yield f"{op.name}.{name} dropped", _with_body_op(module, fi, j, op.replace(
                    attributes={k: v for k, v in op.attributes.items() if k != name}))
                # another object of the same value, a member the enum lacks, a constant of one byte
                # more (the memo holds attribute values by identity, the constant check inline)
                if isinstance(value, EnumValue):
                    for other in (EnumValue(value.kind, value.name), EnumValue(value.kind, "no_such_member")):
                        yield f"{op.name}.{name} = {other}", _with_body_op(module, fi, j, op.replace(
                            attributes={**op.attributes, name: other}))
                elif isinstance(value, DenseElements):
                    for other in (DenseElements(value.type, value.data + b"\0"),
                                  DenseElements(dataclasses.replace(value.type), value.data)):
                        yield f"{op.name}.{name} = {other}", _with_body_op(module, fi, j, op.replace(
                            attributes={**op.attributes, name: other}))
            if op.results:
                t = rng.choice(types)
                results = (make_value(op.results[0].vid, t),) + op.results[1:]
                yield f"{op.name} result typed {t}", _with_body_op(module, fi, j, op.replace(results=results))
            if len(op.operands) >= 2:
                ops = (op.operands[1], op.operands[0]) + op.operands[2:]
                yield f"{op.name} operands swapped", _with_body_op(module, fi, j, op.replace(operands=ops))
            if op.segments:
                segs = (op.segments[0] + 1,) + op.segments[1:]
                yield f"{op.name} segments {segs}", _with_body_op(module, fi, j, op.replace(segments=segs))


def test_memo_gives_every_verdict_and_message_the_full_checks_give():
    files = sorted(CORPUS.glob("*.tileirbc"))[::6]
    assert len(files) > 50
    rng = random.Random(11)
    compared = refused = 0
    for path in files:
        module = load(path)
        assert _outcome(module, memo=True) is None and _outcome(module, memo=False) is None
        for what, mutant in _mutants(module, rng):
            with_memo, without = _outcome(mutant, memo=True), _outcome(mutant, memo=False)
            assert with_memo == without, (path.name, what)
            compared += 1
            refused += without is not None
    assert compared > 400 and refused > 200, (compared, refused)


def test_memo_is_used():
    """Most ops of a kernel repeat a signature: the memo is what makes the verifier cheap."""
    module = load(sorted(CORPUS.glob("*.tileirbc"))[0])
    v = _Verifier(module, "m", None)
    v.run()
    flat = sum(1 for f in module.functions for op in f.body.operations if not op.regions)
    assert 0 < len(v.typed_ok) < flat
