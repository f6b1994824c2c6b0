"""permuted-scan: permute(scan(permute(x, p), d), p^-1) is scan(x, p[d]); the mutants stay.

Kernels load one 2-D or 3-D f32 tile, compute, and store one or two results, so that the rule's
case (cuTile Rust's row scan written as the column scan of the transposed tile) and each
mutant is the only change between the two sides."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from tileir_diff.normalize import REGISTRY
from tileir_diff.normalize.rules.permuted_scan import inverse
from tileir_diff.text.parser import parse_text

from .kernels import verdict
from .test_rules import assert_absorbed, assert_not_absorbed

RULE = "permuted-scan"


def _t(shape) -> str:
    return "tile<" + "x".join(map(str, shape)) + "xf32>"


def _kernel(shape, body: str, out: str, out2: str = "") -> object:
    """A kernel that loads ``%x`` of ``shape``, runs ``body`` and stores ``out`` (and ``out2``
    to a second array when given)."""
    rank = len(shape)
    tv = "tensor_view<" + "x".join("?" * rank) + "xf32, strides=[" + ",".join(["?"] * (rank - 1) + ["1"]) + "]>"
    pv = f"partition_view<tile=({'x'.join(map(str, shape))}), {tv}>"
    dims = ", ".join(f"%arg{k}" for k in range(3, 3 + rank))
    strides = ", ".join([f"%arg{k}" for k in range(3 + rank, 2 + 2 * rank)] + ["1"])
    index = ", ".join(["%bx"] + ["%z"] * (rank - 1))
    idx_t = "tile<i32>"
    args = ", ".join(["%arg0: tile<ptr<f32>>", "%arg1: tile<ptr<f32>>", "%arg2: tile<ptr<f32>>"] +
                     [f"%arg{k}: tile<i32>" for k in range(3, 2 + 2 * rank)])
    views = "".join(f"  %tv{a} = make_tensor_view %arg{a}, shape = [{dims}], strides = [{strides}] : {idx_t} -> {tv}\n"
                    f"  %pv{a} = make_partition_view %tv{a} : {pv}\n" for a in range(3))
    second = (f"  %st2 = store_view_tko weak {out2}, %pv2[{index}] token = %0 : {_t(shape)}, {pv}, {idx_t} -> token\n"
              if out2 else "")
    text = (f"entry @k({args}) optimization_hints=<default = {{}}> {{\n"
            f"  %0 = make_token : token\n{views}"
            f"  %bx, %by, %bz = get_tile_block_id : {idx_t}\n"
            f"  %z = constant <i32: 0> : {idx_t}\n"
            f"  %x, %xt = load_view_tko weak %pv0[{index}] token = %0 : {pv}, {idx_t} -> {_t(shape)}, token\n"
            f"{body}"
            f"  %st = store_view_tko weak {out}, %pv1[{index}] token = %0 : {_t(shape)}, {pv}, {idx_t} -> token\n"
            f"{second}  return\n}}\n")
    return parse_text(text, version=(13, 3))


def _scan(name: str, src: str, shape, dim: int, reverse: bool = False, identity: str = "0.000000e+00",
          combiner: str = "addf") -> str:
    t = _t(shape)
    return (f"  %{name} = scan %{src} dim={dim} reverse={'true' if reverse else 'false'} "
            f"identities=[{identity} : f32] : {t} -> {t}\n"
            f"  (%{name}_a: tile<f32>, %{name}_b: tile<f32>) {{\n"
            f"    %{name}_c = {combiner} %{name}_a, %{name}_b : tile<f32>\n"
            f"    yield %{name}_c : tile<f32>\n  }}\n")


def _permute(name: str, src: str, shape, perm) -> str:
    out = [shape[p] for p in perm]
    return f"  %{name} = permute %{src} [{', '.join(map(str, perm))}] : {_t(shape)} -> {_t(out)}\n"


def _permuted_scan(shape, perm, dim, back=None, **scan) -> str:
    """permute(scan(permute(x, perm), dim), back) as %y (back: the inverse of perm by default)."""
    inner = [shape[p] for p in perm]
    back = inverse(perm) if back is None else back
    return (_permute("p", "x", shape, perm) + _scan("s", "p", inner, dim, **scan) +
            _permute("y", "s", inner, back))


def test_rule_is_registered_right_after_identity_ops():
    names = list(REGISTRY)
    assert names.index(RULE) == names.index("identity-ops") + 1
    assert REGISTRY[RULE].acts_on == frozenset({"scan"})


@pytest.mark.parametrize("perm", list(itertools.permutations(range(3))))
@pytest.mark.parametrize("dim", range(3))
def test_inverse_and_mapped_dimension_agree_with_numpy(perm, dim):
    """The two facts the rule rests on, on data: q = inverse(p) undoes p, and the scan of the
    permuted tile along dim, permuted back, is the scan of x along p[dim] (the same sums in the
    same order: exactly equal, not merely close)."""
    x = np.random.default_rng(7).standard_normal((2, 3, 5)).astype(np.float32)
    q = inverse(perm)
    assert np.array_equal(np.transpose(np.transpose(x, perm), q), x)
    assert np.array_equal(np.transpose(np.cumsum(np.transpose(x, perm), axis=dim), q), np.cumsum(x, axis=perm[dim]))


def test_row_scan_as_transposed_column_scan():
    shape = (4, 16)
    a = _kernel(shape, _scan("y", "x", shape, 1), "%y")
    b = _kernel(shape, _permuted_scan(shape, (1, 0), 0), "%y")
    assert_absorbed(a, b, RULE)


@pytest.mark.parametrize("perm,dim", [((0, 2, 1), 1), ((2, 0, 1), 0), ((1, 2, 0), 2)])
def test_three_d_scans_under_a_permutation_and_its_inverse(perm, dim):
    shape = (2, 4, 8)
    a = _kernel(shape, _scan("y", "x", shape, perm[dim], reverse=True), "%y")
    b = _kernel(shape, _permuted_scan(shape, perm, dim, reverse=True), "%y")
    assert_absorbed(a, b, RULE)


def test_mutant_scan_of_the_wrong_dimension():
    shape = (4, 16)
    a = _kernel(shape, _scan("y", "x", shape, 1), "%y")
    b = _kernel(shape, _permuted_scan(shape, (1, 0), 1), "%y")  # = a column scan of x
    r = assert_not_absorbed(a, b)
    assert r.rules_applied.get(RULE, 0) == 1  # rewritten to scan dim=0, which differs from dim=1


def test_mutant_permutations_that_are_not_inverses():
    shape = (4, 4, 4)  # a cube: every permutation keeps the type, so only the order tells
    a = _kernel(shape, _scan("y", "x", shape, 1), "%y")
    b = _kernel(shape, _permuted_scan(shape, (1, 2, 0), 0, back=(1, 2, 0)), "%y")  # p∘p is not the identity
    r = assert_not_absorbed(a, b)
    assert r.rules_applied.get(RULE, 0) == 0


@pytest.mark.parametrize("change", [{"reverse": True}, {"identity": "1.000000e+00"}, {"combiner": "mulf"}])
def test_mutant_scan_attributes_and_combiner_carry_over(change):
    shape = (4, 16)
    a = _kernel(shape, _scan("y", "x", shape, 1), "%y")
    b = _kernel(shape, _permuted_scan(shape, (1, 0), 0, **change), "%y")
    r = assert_not_absorbed(a, b)
    assert r.rules_applied.get(RULE, 0) == 1


def test_mutant_inner_permute_read_by_something_else_stays():
    """The transposed tile is also stored: the scan is rewritten, the permute stays for its
    other reader, and storing the transposed tile instead of x is a difference."""
    shape = (8, 8)
    a = _kernel(shape, _scan("y", "x", shape, 1), "%y", out2="%x")
    b = _kernel(shape, _permuted_scan(shape, (1, 0), 0), "%y", out2="%p")
    r = assert_not_absorbed(a, b)
    assert r.rules_applied.get(RULE, 0) == 1
    # the one root: the second store reads the transposed tile instead of x
    assert [d.category for d in r.differences] == ["memory"], r.brief()
    assert "store_view_tko tile" in r.differences[0].message, r.brief()


def test_mutant_scan_result_read_without_the_inverse_permute():
    """The permuted scan also stored as it is (transposed): the rule leaves it as written."""
    shape = (8, 8)
    a = _kernel(shape, _scan("y", "x", shape, 1), "%y", out2="%y")
    b = _kernel(shape, _permuted_scan(shape, (1, 0), 0), "%y", out2="%s")
    r = assert_not_absorbed(a, b)
    assert r.rules_applied.get(RULE, 0) == 0


@pytest.mark.parametrize("dead", ["negf %s", "negf %p"])
def test_an_unused_reader_does_not_keep_the_permuted_scan(dead):
    """An op on the scan result (or on the inner permute) that nothing uses, on one side only, is
    dead code: the rule rewrites as without it, the old scan stays for the dead reader until
    dead-code removes both (found by the invariance engine on rust/cumsum: a dead negf of the
    scan made the pair `different`)."""
    shape = (4, 16)
    inner = [shape[1], shape[0]]
    a = _kernel(shape, _scan("y", "x", shape, 1), "%y")
    b = _kernel(shape, _permuted_scan(shape, (1, 0), 0) + f"  %d = {dead} : {_t(inner)}\n", "%y")
    assert_absorbed(a, b, RULE)
    assert verdict(a, b).rules_applied.get("dead-code", 0) >= 1


def test_mutant_a_used_second_reader_still_keeps_the_scan_as_written():
    """The same extra op, now stored: a live reader of the permuted scan, so the rule leaves it."""
    shape = (8, 8)
    a = _kernel(shape, _scan("y", "x", shape, 1), "%y", out2="%y")
    b = _kernel(shape, _permuted_scan(shape, (1, 0), 0) + f"  %d = negf %s : {_t(shape)}\n", "%y", out2="%d")
    r = assert_not_absorbed(a, b)
    assert r.rules_applied.get(RULE, 0) == 0


def test_same_scan_on_both_sides_is_identical_without_the_rule():
    shape = (4, 16)
    a = _kernel(shape, _permuted_scan(shape, (1, 0), 0), "%y")
    r = verdict(a, a)
    assert r.verdict == "identical", r.brief()


def test_two_permuted_scans_in_a_row():
    """The second scan reads the first one's result through its own permute pair: both become
    plain scans, the second of the first's new result (a chain rewritten in one pass)."""
    shape = (4, 16)
    inner = (1, 0)
    t = [shape[p] for p in inner]
    a = _kernel(shape, _scan("y", "x", shape, 1) + _scan("w", "y", shape, 1), "%w")
    b = _kernel(shape, _permuted_scan(shape, inner, 0) + _permute("p2", "y", shape, inner) +
                _scan("s2", "p2", t, 0) + _permute("w", "s2", t, inverse(inner)), "%w")
    on = verdict(a, b)
    assert on.verdict == "equivalent" and on.rules_applied[RULE] == 2, on.brief()
    from tileir_diff.normalize import normalize
    f = normalize(b)[0].functions[0]
    defined = {v.vid for v in f.arguments}

    def walk(block):
        defined.update(v.vid for v in block.arguments)
        for op in block.operations:
            assert all(v.vid in defined for v in op.operands), op  # every operand defined before use
            for r in op.regions:
                for blk in r.blocks:
                    walk(blk)
            defined.update(v.vid for v in op.results)
    walk(f.body)


def _scan2(name: str, a: str, b: str, shape, dim: int) -> str:
    """A scan of two tiles at once: a running sum of ``a`` and a running product of ``b``."""
    t = _t(shape)
    return (f"  %{name}:2 = scan %{a}, %{b} dim={dim} reverse=false identities=[0.000000e+00 : f32, "
            f"1.000000e+00 : f32] : {t}, {t} -> {t}, {t}\n"
            f"  (%{name}_a0: tile<f32>, %{name}_a1: tile<f32>, %{name}_b0: tile<f32>, %{name}_b1: tile<f32>) {{\n"
            f"    %{name}_c0 = addf %{name}_a0, %{name}_b0 : tile<f32>\n"
            f"    %{name}_c1 = mulf %{name}_a1, %{name}_b1 : tile<f32>\n"
            f"    yield %{name}_c0, %{name}_c1 : tile<f32>, tile<f32>\n  }}\n")


def _two_operand_port(shape, perms, back, outputs=("%y0", "%y1")):
    t = [shape[p] for p in perms[0]]
    neg = f"  %x2 = negf %x : {_t(shape)}\n"
    body = (neg + _permute("p", "x", shape, perms[0]) + _permute("q", "x2", shape, perms[1]) + _scan2("s", "p", "q", t, 0)
            + _permute("y0", "s#0", t, back) + _permute("y1", "s#1", t, back))
    return _kernel(shape, body, outputs[0], out2=outputs[1])


def test_a_scan_of_two_tiles_under_one_permutation():
    shape = (4, 16)
    a = _kernel(shape, f"  %x2 = negf %x : {_t(shape)}\n" + _scan2("y", "x", "x2", shape, 1), "%y#0", out2="%y#1")
    assert_absorbed(a, _two_operand_port(shape, [(1, 0), (1, 0)], (1, 0)), RULE)
    # mutant: the two results stored the other way round
    r = assert_not_absorbed(a, _two_operand_port(shape, [(1, 0), (1, 0)], (1, 0), outputs=("%y1", "%y0")))
    assert r.rules_applied.get(RULE, 0) == 1


def test_mutant_two_tiles_under_different_permutations():
    shape = (4, 4, 4)
    a = _kernel(shape, f"  %x2 = negf %x : {_t(shape)}\n" + _scan2("y", "x", "x2", shape, 1), "%y#0", out2="%y#1")
    r = assert_not_absorbed(a, _two_operand_port(shape, [(1, 2, 0), (2, 0, 1)], inverse((1, 2, 0))))
    assert r.rules_applied.get(RULE, 0) == 0
