"""Hand-built DiffResults for renderer, CLI and plugin tests: real corpus modules and summaries, fabricated
differences (the renderers must not depend on the engine)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import tileir_diff
from tileir_diff.compare.result import DiffResult, Difference, FunctionPair, MatchStats, OpRef, PairSummary
from tileir_diff.summary import summarize_pair
from tileir_diff.summary.walk import index_function

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "data"
EVIL = "<script>alert('x')</script>"


def corpus_module(name: str, version: str = "13_4"):
    return tileir_diff.load(CORPUS / f"{name}.v{version}.tileirbc")


def printed_lines(module):
    """(op id, line) per op: the real printer when it exists, else a minimal stand-in."""
    try:
        from tileir_diff.text.printer import print_module_lines
        return list(print_module_lines(module))
    except ImportError:
        lines = []
        for i, fn in enumerate(module.functions):
            lines.append((None, f"entry @{fn.name}(...) {{"))
            idx = index_function(fn, i)
            for op_id, op, _depth in idx.ops:
                res = ", ".join(f"%v{r.vid}" for r in op.results)
                args = ", ".join(f"%v{v.vid}" for v in op.operands)
                lines.append((op_id, "  " * (op_id.count("/r") + 1) + (f"{res} = " if res else "") +
                              f"{op.name} {args}"))
            lines.append((None, "}"))
        return lines


def make_result(left, right, *, verdict="different", differences=None, left_source="left.tileirbc",
                right_source="right.tileirbc", rules=None, reason=None):
    left_lines, right_lines = printed_lines(left), printed_lines(right)
    left_ids = [i for i, _ in left_lines if i]
    right_ids = [i for i, _ in right_lines if i]
    mapping = [(a, b, "exact") for a, b in zip(left_ids, right_ids)]
    return DiffResult(
        verdict=verdict, differences=list(differences or []), rules_applied=dict(rules or {}),
        summary=PairSummary.from_dict(summarize_pair(left, right)), left_source=left_source,
        right_source=right_source,
        functions=tuple(FunctionPair(lf.name, rf.name, verdict, len(mapping), len(left_ids) - len(mapping),
                                     len(right_ids) - len(mapping))
                        for lf, rf in zip(left.functions, right.functions)),
        mapping=mapping, stats=MatchStats(ops_left=len(left_ids), ops_right=len(right_ids), seconds=0.01),
        reason=reason, left_lines=left_lines, right_lines=right_lines)


def line_of(lines, op_id):
    return next(text for i, text in lines if i == op_id)


def build_different_result():
    """Two mma kernels (f16 vs bf16 inputs) with one fabricated root difference."""
    left, right = corpus_module("mma_f16_f32acc"), corpus_module("mma_bf16")
    ll, rl = printed_lines(left), printed_lines(right)
    mma_l = next(i for i, t in ll if i and "mmaf" in t)
    mma_r = next(i for i, t in rl if i and "mmaf" in t)
    diff = Difference("mma", "mma operand dtype f16 vs bf16", OpRef(mma_l, line_of(ll, mma_l), "k.py:12:9"),
                      OpRef(mma_r, line_of(rl, mma_r), None), left.functions[0].name,
                      affected=("f0/o26", "f0/o27"))
    only_left = Difference("memory", "store only on the left", OpRef("f0/o27", line_of(ll, "f0/o27")), None,
                           left.functions[0].name)
    return make_result(left, right, differences=[diff, only_left], rules={"cse": 3, "dead-code": 2})


def build_evil_result():
    """Every user-controlled string carries markup: entry name, op text, sources, message."""
    module = corpus_module("load_store_hints")
    fn = dataclasses.replace(module.functions[0], name=EVIL)
    evil = dataclasses.replace(module, functions=(fn,))
    result = make_result(evil, evil, left_source=f"/tmp/{EVIL}.tileirbc", right_source="r&b.tileirbc",
                         differences=[Difference("constant", f"constant {EVIL} vs 2",
                                                 OpRef("f0/o3", f"print_tko \"{EVIL}\""),
                                                 OpRef("f0/o3", "x | y `z`"), EVIL, rule_hint=EVIL)],
                         rules={EVIL: 1}, reason=None)
    result = result.replaced(left_lines=[(op_id, f"{text} // {EVIL}") for op_id, text in result.left_lines])
    return result
