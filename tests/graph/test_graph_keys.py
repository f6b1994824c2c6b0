"""GraphKeyBuilder (normalize/keys.py): the graphs' int keys tell the same values apart as
KeyBuilder's digests do, and do not depend on the process (no salted str hash)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tileir_diff import load
from tileir_diff.normalize import normalize, tag_origins
from tileir_diff.normalize.keys import GraphKeyBuilder, KeyBuilder
from tests.conftest import corpus_files

FILES = corpus_files()[1::12]
ROOT = Path(__file__).resolve().parents[2]


def _same_partition(a: dict, b: dict) -> bool:
    """Whether equal values in ``a`` are exactly the equal values in ``b`` (same keys)."""
    if a.keys() != b.keys():
        return False
    forward, backward = {}, {}
    for k in a:
        if forward.setdefault(a[k], b[k]) != b[k] or backward.setdefault(b[k], a[k]) != a[k]:
            return False
    return True


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_int_keys_tell_apart_what_digests_tell_apart(path):
    module, _ = normalize(tag_origins(load(path)))
    shared: dict = {}
    for func in module.functions:
        digests = KeyBuilder(arg_positions=False).function(func)
        ints = GraphKeyBuilder(shared).function(func)
        assert _same_partition(digests.value, ints.value)
        assert _same_partition({id(op): k for op, k in digests.op.items()}, {id(op): k for op, k in ints.op.items()})
        assert all(type(k) is int for k in ints.value.values())


def test_a_changed_operand_order_or_type_changes_the_key_and_names_do_not():
    from tests.graph.test_graph import graph, kernel, load as load_text, store, F
    a = graph(kernel(load_text("a") + load_text("b", view="%py") + f"  %s = subf %a, %b : {F}\n" + store("%s")))
    b = graph(kernel(load_text("p") + load_text("q", view="%py") + f"  %t = subf %p, %q : {F}\n" + store("%t")))
    c = graph(kernel(load_text("a") + load_text("b", view="%py") + f"  %s = subf %b, %a : {F}\n" + store("%s")))
    keys = [{n.nid: n.merkle_key for n in g.op_nodes()} for g in (a, b, c)]
    assert keys[0] == keys[1]
    assert keys[0] != keys[2]


_CHILD = r"""
import json, sys
from tileir_diff import load
from tileir_diff.normalize.keys import GraphKeyBuilder
k = GraphKeyBuilder().function(load(sys.argv[1]).functions[0])
print(json.dumps(sorted(k.value.items())))
"""


def test_keys_are_the_same_in_every_process():
    path = str(max(FILES, key=lambda p: p.stat().st_size))
    outs = []
    for seed in ("0", "1", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-c", _CHILD, path], capture_output=True, text=True, env=env,
                              check=True, timeout=120)
        outs.append(json.loads(done.stdout))
    assert outs[0] == outs[1] == outs[2] and outs[0]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_graph_keys_its_nodes_as_graph_key_builder_does(path):
    from tileir_diff.graph import FunctionGraph
    module, _ = normalize(tag_origins(load(path)))
    for i, func in enumerate(module.functions):
        keys = GraphKeyBuilder().function(func)
        g = FunctionGraph(func, i)
        for n in g.node_list:
            want = keys.op[n.op] if n.kind == "op" else keys.value[n.value.vid]
            assert n.merkle_key == want, n.nid
        assert all(n.merkle_key == keys.op[n.op] for n in g.op_nodes())
