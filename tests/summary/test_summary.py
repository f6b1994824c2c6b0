"""Kernel and pair summaries on real corpus kernels and hand-built IR."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import tileir_diff
from tileir_diff.ir import (Block, DivBy, EnumValue, Function, Module, Operation, PointerType,
                            ScalarType, TileType, Value)
from tileir_diff.summary import summarize, summarize_pair

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "data"


def kernel(name, version="13_4"):
    return tileir_diff.load(CORPUS / f"{name}.v{version}.tileirbc")


def fn_summary(name, version="13_4"):
    s = summarize(kernel(name, version))
    json.dumps(s)  # JSON-ready, always
    return s["functions"][0]


def test_matmul_loop_memory_and_mma():
    f = fn_summary("mma_f16_f32acc")
    (mma,) = f["mma"]
    assert (mma["m"], mma["k"], mma["n"]) == (64, 32, 64)
    assert (mma["lhs_dtype"], mma["rhs_dtype"], mma["acc_dtype"]) == ("f16", "f16", "f32")
    assert mma["accumulator"] == "iter_0"  # the loop-carried value, not a fresh constant
    (loop,) = f["loops"]
    assert (loop["op"], loop["lower"], loop["step"]) == ("for", "0", "1")
    assert loop["upper"] == "index_space(arg0)[1]"
    loads = [a for g in f["memory"] for a in g["accesses"] if a["kind"] == "load"]
    assert [a["index"] for a in loads] == ["[bid.x, loopIdx]", "[loopIdx, bid.y]"]
    assert all(a["loop_depth"] == 1 for a in loads)
    views = {g["view"]: g for g in f["memory"]}
    assert views["arg0"]["tile_shape"] == [64, 32] and views["arg0"]["padding"] == "zero"
    assert views["arg10"]["stores"] == 1 and views["arg10"]["padding"] is None
    assert "64x64xf32" in f["tile_shapes"]


def test_view_dim_map_and_block_ids():
    f = fn_summary("load_axis_order")
    maps = [g.get("dim_map") for g in f["memory"] if g["view"] == "arg0"]
    assert maps == [[1, 0], [1, 0]]
    assert {a["index"] for g in f["memory"] for a in g["accesses"]} == {"[bid.y, bid.x]", "[bid.x, bid.y]"}


def test_every_padding_mode_is_its_own_view():
    f = fn_summary("load_every_padding_mode")
    paddings = [g["padding"] for g in f["memory"] if g["loads"]]
    assert sorted(p or "none" for p in paddings) == sorted(["none", "zero", "neg_zero", "nan", "pos_inf", "neg_inf"])
    indices = sorted(a["index"] for g in f["memory"] for a in g["accesses"] if a["kind"] == "load")
    assert indices[0] == "[(bid.x + 1)]" and "[bid.x]" in indices


def test_hints_ordering_and_token_chain():
    f = fn_summary("load_store_hints")
    stores = [a for g in f["memory"] for a in g["accesses"] if a["kind"] == "store"]
    assert stores[0]["hints"] == {"default": {"allow_tma": False, "latency": 1}}
    assert stores[0]["token"] == "entry"
    assert stores[1]["token"] == stores[0]["op_id"]  # the second store is ordered after the first
    orders = [a["order"] for g in f["memory"] for a in g["accesses"]]
    assert sorted(orders) == list(range(len(orders)))
    f = fn_summary("load_store_memory_order")
    sem = {(a["ordering"], a["scope"]) for g in f["memory"] for a in g["accesses"]}
    assert ("acquire", "device") in sem and ("release", "sys") in sem


def test_reductions_and_scans():
    f = fn_summary("reduce_custom")
    assert [r["combiner"] for r in f["reductions"]] == [["fma"], ["absf", "absf", "maxf"]]
    assert all(r["dim"] == 1 and r["identities"] == ["0.0 : f32"] for r in f["reductions"])
    (scan,) = fn_summary("scan_multi_operand")["reductions"]
    assert scan["op"] == "scan" and scan["reverse"] is False
    assert scan["identities"] == ["1.0 : f32", "0.0 : f32"]


def test_pointer_accesses_group_by_base_argument():
    f = fn_summary("gather_2d")
    groups = {(g["access"], g["view"]): g for g in f["memory"]}
    assert groups[("pointer", "arg0")]["loads"] == 1 and groups[("pointer", "arg5")]["stores"] == 1
    load = groups[("pointer", "arg0")]["accesses"][0]
    assert load["index"].startswith("offset(arg0, ") and "mask" in load


def test_assumptions_and_histogram():
    f = fn_summary("mma_f16_f32acc")
    assert {a["predicate"] for a in f["assumptions"]} == {"bounded<0, ?>"}
    assert f["op_histogram"]["mmaf"] == 1 and f["num_ops"] == sum(f["op_histogram"].values())


def test_same_kernel_at_two_versions_summarizes_alike():
    # inbounds=[false] (13.4) means what its absence (13.3) means; a summary must not flag it.
    pair = summarize_pair(kernel("load_store_hints", "13_3"), kernel("load_store_hints", "13_4"))["pair"]
    assert pair["same"], pair


def test_pair_flags_only_the_changed_sections():
    pair = summarize_pair(kernel("mma_f16_f32acc"), kernel("mma_bf16"))["pair"]
    (fp,) = pair["functions"]
    assert not pair["same"]
    assert {"mma", "memory", "signature"} <= set(fp["differing_sections"])
    assert "loops" not in fp["differing_sections"] and "assumptions" not in fp["differing_sections"]
    mma_row = fp["sections"]["mma"]["rows"][0]
    assert "f16·f16" in mma_row["left"] and "bf16·bf16" in mma_row["right"] and not mma_row["same"]


def test_pair_of_renamed_entries_pairs_by_position():
    m = kernel("reduce_custom")
    renamed = dataclasses.replace(m, functions=(dataclasses.replace(m.functions[0], name="port"),))
    (fp,) = summarize_pair(m, renamed)["pair"]["functions"]
    assert (fp["left"], fp["right"]) == ("reduce_custom", "port")
    assert fp["same"]  # the signature row compares types, not names


def _hand_kernel(index_op: str, ordering: str = "weak") -> Module:
    """A store of a loaded tile through pointer ops, index built with ``index_op``."""
    i32 = TileType((), ScalarType("i32"))
    ptr = TileType((), PointerType(ScalarType("f32")))
    a0, a1 = Value(0, ptr), Value(1, i32)
    bid = [Value(2, i32), Value(3, i32), Value(4, i32)]
    assumed = Value(5, i32)
    idx = Value(6, i32)
    ops = (
        Operation("get_tile_block_id", results=tuple(bid)),
        Operation("assume", operands=(a1,), results=(assumed,), attributes={"predicate": DivBy(16)}),
        Operation(index_op, operands=(bid[0], assumed), results=(idx,)),
        Operation("offset", operands=(a0, idx), results=(Value(7, ptr),)),
        Operation("load_ptr_tko", operands=(Value(7, ptr),), segments=(1, 0, 0, 0),
                  results=(Value(8, TileType((), ScalarType("f32"))), Value(9, TileType((), ScalarType("i1")))),
                  attributes={"memory_ordering_semantics": EnumValue("MemoryOrderingSemantics", ordering)}),
        Operation("return"),
    )
    fn = Function("hand", (a0, a1), (), Block((), ops))
    return Module((13, 3), (fn,))


def test_hand_built_index_expressions():
    f = summarize(_hand_kernel("muli"))["functions"][0]
    (group,) = f["memory"]
    assert group["access"] == "pointer" and group["view"] == "arg0"
    assert group["accesses"][0]["index"] == "offset(arg0, (bid.x * arg1))"  # assume is see-through
    assert f["assumptions"][0]["text"] == "arg1: div_by<16>"
    g = summarize(_hand_kernel("addi"))["functions"][0]
    assert g["memory"][0]["accesses"][0]["index"] == "offset(arg0, (bid.x + arg1))"
    pair = summarize_pair(_hand_kernel("muli"), _hand_kernel("muli", "acquire"))["pair"]
    assert pair["functions"][0]["differing_sections"] == ["memory"]


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.v13_4.tileirbc")), ids=lambda p: p.name.split(".")[0])
def test_every_corpus_kernel_summarizes(path):
    s = summarize(tileir_diff.load(path))
    json.dumps(s)
    for f in s["functions"]:
        assert f["num_ops"] == sum(f["op_histogram"].values()) > 0
        for g in f["memory"]:
            assert g["loads"] + g["stores"] == len(g["accesses"])


def test_a_diffs_summary_is_made_on_first_use_and_equals_the_eager_one(monkeypatch):
    """compute_diff leaves the pair summary unmade (``DeferredSummary``) until a report reads
    it: the API's verdict and an identical pair's text report never walk the kernels for it;
    what it gives, and what copies, pickles and JSON carry, is the summary summarize_pair makes."""
    import copy
    import pickle

    import tileir_diff.summary as summary_pkg
    from tileir_diff.compare import compute_diff
    from tileir_diff.report import render
    from tileir_diff.report.result import DeferredSummary

    left, right = kernel("mma_f16_f32acc"), kernel("mma_f16_f32acc")
    made = []
    real = summary_pkg.summarize_pair
    monkeypatch.setattr(summary_pkg, "summarize_pair", lambda a, b: made.append(1) or real(a, b))
    r = compute_diff(left, right)
    assert r.verdict == "identical" and isinstance(r.__dict__["_summary"], DeferredSummary)
    render(r, "text")
    assert made == []  # an identical pair's text report shows no summary
    assert r.summary.to_dict() == summarize_pair(left, right)
    assert r.summary is r.summary and made == [1]
    eager = compute_diff(left, right)
    for other in (pickle.loads(pickle.dumps(eager)), copy.deepcopy(eager), copy.copy(eager),
                  eager.replaced(reason=None)):
        assert other.summary == r.summary
    assert compute_diff(left, right, with_summary=False).summary is None
    again = compute_diff(left, right).to_dict()
    assert again["summary"] == r.to_dict()["summary"] == summarize_pair(left, right)
