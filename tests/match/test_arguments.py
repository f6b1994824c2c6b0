"""Entry arguments by role (match/arguments.py): roles from use, a reordering pairs by role, and
anything that is not a pure reordering keeps the positional pairing."""
from __future__ import annotations

import tileir_diff
from tileir_diff.graph import FunctionGraph
from tileir_diff.match.alignment import align
from tileir_diff.match.arguments import argument_roles, describe_role
from tileir_diff.normalize import normalize, tag_origins

from ..check import kernels as K


def _pairs(L, R):
    """The entry-argument pairs the aligners find (match.alignment.align)."""
    return align(L, R).pairs


def _graph(text: str) -> FunctionGraph:
    return FunctionGraph(normalize(tag_origins(tileir_diff.load(text)))[0].functions[0], 0)


def test_roles_from_use():
    g = _graph(K.exp2_sub())
    roles = argument_roles(g)
    assert roles["f0/a0"][0] == "array" and "load_view_tko" in roles["f0/a0"][2]
    assert roles["f0/a2"][0] == "array" and "store_view_tko" in roles["f0/a2"][2]
    assert roles["f0/a1"][:1] == ("shape",) and roles["f0/a1"][2] == "f0/a0" and roles["f0/a1"][3] == 0
    assert roles["f0/a3"][2] == "f0/a2"
    assert roles["f0/a4"][0] == "scalar"
    assert describe_role(g, "f0/a2", roles) == "array tile<ptr<f32>> (stored)"
    assert describe_role(g, "f0/a3", roles) == "shape[0] of argument 2"


def test_same_order_pairs_by_position():
    L = _graph(K.exp2_sub())
    assert _pairs(L, _graph(K.exp2_sub(True))) == [(f"f0/a{k}", f"f0/a{k}") for k in range(5)]


def test_output_first_pairs_by_role():
    L = _graph(K.exp2_sub())
    R = _graph(K.reorder_arguments(K.exp2_sub(), [2, 3, 0, 1, 4]))
    assert dict(_pairs(L, R)) == {"f0/a0": "f0/a2", "f0/a1": "f0/a3", "f0/a2": "f0/a0",
                                           "f0/a3": "f0/a1", "f0/a4": "f0/a4"}


def test_not_a_reordering_keeps_positions():
    # the right stores through both arrays: no role bijection, so positions decide
    L = _graph(K.exp2_sub())
    text = K.exp2_sub().replace("store_view_tko weak %u, %po", "store_view_tko weak %u, %px")
    R = _graph(text)
    assert _pairs(L, R) == [(f"f0/a{k}", f"f0/a{k}") for k in range(5)]


# --- an extra output (issue 26: an output-first port that also writes an array the reference lacks)

_RUST_SIG = "entry @k(%o0: tile<ptr<f32>>, %x0: tile<ptr<f32>>, %n: tile<i32>, %aux: tile<ptr<f32>>)"


def _aux_first(text: str) -> str:
    """The extra output moved before ``out`` (position alone would pair the reference's out with it)."""
    assert _RUST_SIG in text
    return text.replace(_RUST_SIG, "entry @k(%aux: tile<ptr<f32>>, %o0: tile<ptr<f32>>, %x0: tile<ptr<f32>>, "
                                   "%n: tile<i32>)")


def _port(aux_first: bool, scale: str = "2.0") -> str:
    from ..execute import pairs as P
    text = P.rust_out_first(scale, extra_output=True)
    return _aux_first(text) if aux_first else text


def _ref() -> str:
    from ..execute import pairs as P
    return P.python_order_double()


def test_extra_output_stays_unpaired():
    # x (a0) with the port's x0, out (a3) with the port's o0; aux with nothing, wherever it stands
    for aux_first, want in ((False, {"f0/a0": "f0/a1", "f0/a3": "f0/a0"}),
                            (True, {"f0/a0": "f0/a2", "f0/a3": "f0/a1"})):
        L, R = _graph(_ref()), _graph(_port(aux_first))
        pairs = dict(_pairs(L, R))
        assert {a: pairs.get(a) for a in want} == want, aux_first
        aux = "f0/a0" if aux_first else "f0/a3"
        assert aux not in pairs.values()
        mirrored = dict(_pairs(R, L))  # the extra output on the left
        assert {b: a for a, b in mirrored.items() if b in want} == want and aux not in mirrored


def test_extra_output_diff_names_the_extra_store_and_the_order():
    r = tileir_diff.diff(_ref(), _port(True))
    assert r.verdict == "different"
    sig = [d for d in r.differences if d.category == "signature"]
    assert len(sig) == 1 and "arrays on one side only" in sig[0].message and "%arg0" in sig[0].message
    assert "calling_convention" not in sig[0].detail  # not a reordering alone: never specialized
    stores = [d.message for d in r.differences if d.category == "memory"]
    assert stores == ["store_view_tko of %arg0 (f0/o11) only on the right"]  # aux's store, not out's


def test_mutant_extra_output_with_a_wrong_out_stays_different():
    # the port's out is 3x, not 2x: the constant is a root, not absorbed into the extra output
    for aux_first in (False, True):
        r = tileir_diff.diff(_ref(), _port(aux_first, "3.0"))
        assert r.verdict == "different"
        assert any(d.category == "constant" and "2.0 -> 3.0" in d.message for d in r.differences), aux_first


def test_mutant_outputs_swapped_stays_different():
    # out written with x and aux with 2x: which of the two is "out" is undecidable by role; the
    # verdict must stay different whichever pairs
    port = _port(False).replace("%ta = store_view_tko weak %x, %pva", "%ta = store_view_tko weak %y, %pva")
    port = port.replace("%ts = store_view_tko weak %y, %pvo", "%ts = store_view_tko weak %x, %pvo")
    assert port.count("weak %y,") == 1 and port.count("weak %x,") == 1
    for a, b in ((_ref(), port), (port, _ref())):
        assert tileir_diff.diff(a, b).verdict == "different"


def test_equal_array_counts_never_leave_an_array_unpaired():
    # the right stores through both arrays (same arity): no array is "extra", positions decide
    L = _graph(K.exp2_sub())
    R = _graph(K.exp2_sub().replace("store_view_tko weak %u, %po", "store_view_tko weak %u, %px"))
    pairs = _pairs(L, R)
    assert {a for a, _ in pairs} >= {"f0/a0", "f0/a2"} and {b for _, b in pairs} >= {"f0/a0", "f0/a2"}


def test_second_opinion_runs_on_the_role_pairing_of_an_extra_output():
    # --execute uses this pairing: aux (argument 0 of the port) gets memory of its own, out is compared
    r = tileir_diff.diff(_ref(), _port(True), execute="always", trials=12, seed=0)
    ex = r.execution.to_dict()
    assert ex["status"] == "no_divergence" and ex["could_not_check"] is None, ex
    assert any("array argument 0 has no counterpart" in n for n in ex["notes"]), ex["notes"]
    ex = tileir_diff.diff(_ref(), _port(True, "3.0"), execute="always", trials=12, seed=0).execution.to_dict()
    assert ex["status"] == "diverged" and ex["counterexample"]["valid"] is True, ex


_TPS = __import__("pathlib").Path(__file__).resolve().parents[1] / "corpus" / "third_party_style"


def _pair_graphs(name: str):
    return tuple(_graph((_TPS / f"{name}.{side}.tir").read_text()) for side in ("left", "right"))


def test_a_pointer_port_taking_its_output_first_pairs_by_role():
    """Views on the left; on the right the output first and every array through masked pointers:
    each extent is the shape of the array whose accesses it bounds, arrays pair by direction."""
    L, R = _pair_graphs("vector_add_out_first_masked_ptr")
    roles = argument_roles(R)
    assert roles["f0/a1"][:1] == ("shape",) and roles["f0/a1"][2] == "f0/a0"  # out's extent bounds its store
    pairs = dict(_pairs(L, R))
    assert pairs["f0/a6"] == "f0/a0" and pairs["f0/a0"] == "f0/a3" and pairs["f0/a3"] == "f0/a6"
    assert pairs["f0/a7"] == "f0/a1"


def test_mutant_pointer_accesses_in_place_keep_the_positional_pairing():
    """Views against pointer accesses with the arguments where the view kernel has them: no reordering."""
    L, R = _pair_graphs("vector_add_gather_scatter")
    pairs = _pairs(L, R)
    assert all(a == b for a, b in pairs), pairs
