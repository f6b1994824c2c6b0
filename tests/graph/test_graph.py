"""Graph stage: node ids, labels, edges (operand index, kind) and the pinned structural hash."""
from __future__ import annotations

from tileir_diff.graph import FunctionGraph
from tileir_diff.normalize import normalize, tag_origins
from tileir_diff.normalize.keys import digest

from tests.normalize.kernels import kernel, load, store

F = "tile<128xf32>"
PINNED = "36cebd86d16c67cc54a8b437"  # digest("arg", "", "tile<f32>") in every process and version


def graph(m, normalized=True):
    m = tag_origins(m)
    if normalized:
        m, _ = normalize(m)
    return FunctionGraph(m.functions[0], 0)


def test_node_ids_are_input_op_ids_and_edges_carry_index_and_kind():
    g = graph(kernel(load("a") + load("b", view="%py") + f"  %s = subf %a, %b : {F}\n" + store("%s")), False)
    subf = next(n for n in g.op_nodes() if n.name == "subf")
    assert subf.nid == "f0/o8"
    srcs = [g.nodes[s].name for s, _, _ in subf.operands]
    assert srcs == ["load_view_tko", "load_view_tko"]
    st = next(n for n in g.op_nodes() if n.name == "store_view_tko")
    assert [k for _, _, k in st.operands][-1] == "token"
    nxg = g.nx
    kinds = {d["kind"] for _, _, d in nxg.edges(data=True)}
    assert {"data", "token"} <= kinds
    assert {d["index"] for _, v, d in nxg.edges(data=True) if v == subf.nid} == {0, 1}
    assert "f0/a0" in g.nodes and g.nodes["f0/a0"].kind == "arg"


def test_hash_is_operand_order_aware_and_name_free():
    a = graph(kernel(load("a") + load("b", view="%py") + f"  %s = subf %a, %b : {F}\n" + store("%s")))
    b = graph(kernel(load("p") + load("q", view="%py") + f"  %t = subf %p, %q : {F}\n" + store("%t")))
    c = graph(kernel(load("a") + load("b", view="%py") + f"  %s = subf %b, %a : {F}\n" + store("%s")))
    def h(g):
        return next(n.merkle_key for n in g.op_nodes() if n.name == "subf")
    assert h(a) == h(b)
    assert h(a) != h(c)


def test_hash_is_pinned():
    # blake2b over canonical strings: the same input gives this exact value in every process and
    # library version (networkx's WL hashes changed between releases).
    assert digest("arg", "", "tile<f32>") == PINNED
    assert len(digest("x")) == 24 and digest("x") == digest("x") and digest("x") != digest("y")


def test_reduce_combiner_folded_into_label():
    body = (load("a") + "  %r = reduce %a dim=0 identities=[0.000000e+00 : f32] : tile<128xf32> -> tile<f32>\n"
            "  (%l: tile<f32>, %h: tile<f32>) {\n    %x = maxf %l, %h : tile<f32>\n    yield %x : tile<f32>\n  }\n"
            "  %rb = reshape %r : tile<f32> -> tile<1xf32>\n  %bb = broadcast %rb : tile<1xf32> -> tile<128xf32>\n"
            + store("%bb"))
    g = graph(kernel(body))
    red = next(n for n in g.op_nodes() if n.name == "reduce")
    assert "maxf" in red.compare_key and "a0" in red.compare_key
    assert not any(n.name == "maxf" for n in g.op_nodes())  # body ops are not separate nodes


def test_loop_body_is_a_nested_subgraph():
    body = ("  %c0 = constant <i32: 0> : tile<i32>\n  %c1 = constant <i32: 1> : tile<i32>\n"
            "  %c4 = constant <i32: 4> : tile<i32>\n"
            "  for %i in (%c0 to %c4, step %c1) : tile<i32> {\n"
            + load("a", index="%i").replace("  ", "    ", 1) + "    " + store("%a", index="%i").lstrip()
            + "    continue\n  }\n")
    g = graph(kernel(body), False)
    loop = next(n for n in g.op_nodes() if n.name == "for")
    kids = [g.nodes[c] for c in loop.children]
    assert [k.kind for k in kids][:1] == ["barg"]
    assert {k.name for k in kids if k.kind == "op"} >= {"load_view_tko", "store_view_tko"}
    assert all(k.parent == loop.nid for k in kids)
    assert any(d["kind"] == "region" for _, _, d in g.nx.edges(data=True))


def test_ops_by_name_and_entry_arguments_are_the_walks_over_every_node():
    g = graph(kernel(load("a") + load("b", view="%py") + f"  %s = subf %a, %b : {F}\n" + store("%s")))
    ops = [n for n in g.node_list if n.kind == "op"]
    assert g.arg_nodes == [n for n in g.node_list if n.kind == "arg"] and len(g.arg_nodes) == 3
    assert {name: [n for n in ops if n.name == name] for name in g.by_name} == g.by_name
    assert sum(map(len, g.by_name.values())) == len(ops)
    loads_and_stores = g.ops_named({"store_view_tko", "load_view_tko", "no_such_op"})
    assert loads_and_stores == [n for n in ops if n.name in ("load_view_tko", "store_view_tko")]
    assert [n.name for n in loads_and_stores] == ["load_view_tko", "load_view_tko", "store_view_tko"]
    assert g.ops_named(["no_such_op"]) == []
    assert all(n.children == () for n in g.node_list)  # no regions here: no list of children
