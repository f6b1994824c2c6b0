"""The rules added for the equivalent-rewrite corpus (tests/corpus/rewrites): nonnegative-casts
and permute-compose, each absorbing its case (equivalent with the rule, not without it) and not
absorbing its mutants."""
from __future__ import annotations

from .kernels import kernel, load, store
from .test_rules import assert_absorbed, assert_not_absorbed

I32 = "tile<i32>"
F = "tile<128xf32>"


# --- nonnegative-casts -------------------------------------------------------------------------
def _scaled_by(value: str, sign: str, pre: str = ""):
    """Loaded tile times itof(value) with ``sign``."""
    return kernel(load("a") + pre + f"  %v = itof {value} {sign} : {I32} -> tile<f32>\n"
                  "  %r = reshape %v : tile<f32> -> tile<1xf32>\n"
                  f"  %b = broadcast %r : tile<1xf32> -> {F}\n  %s = mulf %a, %b : {F}\n" + store("%s"))


def test_nonnegative_casts_itof_of_a_block_id():
    assert_absorbed(_scaled_by("%bx", "signed"), _scaled_by("%bx", "unsigned"), "nonnegative-casts")


def test_nonnegative_casts_itof_of_a_bounded_argument():
    pre = f"  %n = assume bounded<0, ?>, %arg2 : {I32}\n"
    assert_absorbed(_scaled_by("%n", "signed", pre), _scaled_by("%n", "unsigned", pre), "nonnegative-casts")


def _ramp(sign: str, shift: int = 0):
    """Loaded tile plus itof(exti(iota - shift)), the exti with ``sign``."""
    pre = "  %i = iota : tile<128xi32>\n"
    src = "%i"
    if shift:
        pre += f"  %k = constant <i32: {shift}> : tile<128xi32>\n  %d = subi %i, %k : tile<128xi32>\n"
        src = "%d"
    return kernel(load("a") + pre + f"  %w = exti {src} {sign} : tile<128xi32> -> tile<128xi64>\n"
                  f"  %f = itof %w signed : tile<128xi64> -> {F}\n  %s = addf %a, %f : {F}\n" + store("%s"))


def test_nonnegative_casts_exti_of_iota():
    assert_absorbed(_ramp("signed"), _ramp("unsigned"), "nonnegative-casts")


def test_nonnegative_casts_mutant_operand_of_unknown_sign():
    r = assert_not_absorbed(_scaled_by("%arg2", "signed"), _scaled_by("%arg2", "unsigned"), "attribute")
    assert "signedness" in r.differences[0].message


def test_nonnegative_casts_mutant_iota_minus_one():
    # iota - 1 is -1 at element 0: zero- and sign-extension differ there
    assert_not_absorbed(_ramp("signed", shift=1), _ramp("unsigned", shift=1))


def _compare_pick(sign: str, bound: str, pre: str = ""):
    return kernel(pre + f"  %z = constant <i32: 0> : {I32}\n  %p = cmpi less_than %bx, {bound}, {sign} : {I32} -> tile<i1>\n"
                  f"  %q = select %p, %bx, %z : tile<i1>, {I32}\n" + load("a", index="%q") + store("%a"))


def test_nonnegative_casts_compare_of_two_non_negative_values():
    pre = f"  %n = assume bounded<0, ?>, %arg2 : {I32}\n"
    assert_absorbed(_compare_pick("signed", "%n", pre), _compare_pick("unsigned", "%n", pre), "nonnegative-casts")


def test_nonnegative_casts_mutant_compare_with_a_possibly_negative_bound():
    assert_not_absorbed(_compare_pick("signed", "%arg2"), _compare_pick("unsigned", "%arg2"))


# --- permute-compose ---------------------------------------------------------------------------
def _shape(dims):
    return "x".join(str(d) for d in dims)


def _view(dims):
    return f"partition_view<tile=({_shape(dims)}), tensor_view<?x?x?xf32, strides=[?,?,1]>>"


def _permuted(perms, dims=(2, 4, 8), reshape_between: bool = False):
    """A tile of ``dims`` loaded, permuted by each of ``perms`` in turn, and stored."""
    dims = list(dims)
    first = _view(dims)
    lines = [f"  %t0, %tt = load_view_tko weak %pv[%bx, %bx, %bx] token = %0 : {first}, tile<i32> -> "
             f"tile<{_shape(dims)}xf32>, token"]
    cur = "%t0"
    for k, p in enumerate(perms):
        if reshape_between and k == 1:
            swapped = [dims[1], dims[0], dims[2]]
            lines.append(f"  %rb = reshape {cur} : tile<{_shape(dims)}xf32> -> tile<{_shape(swapped)}xf32>")
            cur, dims = "%rb", swapped
        new = [dims[i] for i in p]
        lines.append(f"  %p{k} = permute {cur} [{', '.join(map(str, p))}] : tile<{_shape(dims)}xf32> -> "
                     f"tile<{_shape(new)}xf32>")
        cur, dims = f"%p{k}", new
    tv = "tensor_view<?x?x?xf32, strides=[?,?,1]>"
    out = _view(dims)
    pro = ("  %0 = make_token : token\n"
           f"  %ta = make_tensor_view %arg0, shape = [%arg2, %arg2, %arg2], strides = [%arg2, %arg2, 1] : tile<i32> -> {tv}\n"
           f"  %tb = make_tensor_view %arg1, shape = [%arg2, %arg2, %arg2], strides = [%arg2, %arg2, 1] : tile<i32> -> {tv}\n"
           "  %bx, %by, %bz = get_tile_block_id : tile<i32>\n"
           f"  %pv = make_partition_view %ta : {first}\n  %po = make_partition_view %tb : {out}\n")
    body = "\n".join(lines) + "\n" + \
        f"  %st = store_view_tko weak {cur}, %po[%bx, %bx, %bx] token = %0 : tile<{_shape(dims)}xf32>, {out}, tile<i32> -> token\n"
    return kernel(body, prologue=pro)


def test_permute_compose_three_transposes_are_one_permute():
    assert_absorbed(_permuted([(2, 1, 0)]), _permuted([(1, 0, 2), (2, 1, 0), (0, 2, 1)]), "permute-compose")


def test_permute_compose_a_transpose_undone():
    assert_absorbed(_permuted([(0, 1, 2)]), _permuted([(1, 0, 2), (1, 0, 2)]), "permute-compose")


def test_permute_compose_mutant_other_composition():
    # on a 4x8x8 tile, (1, 0, 2) then (0, 2, 1) is (1, 2, 0): the same 8x8x4 type as (2, 1, 0)
    assert_not_absorbed(_permuted([(2, 1, 0)], dims=(4, 8, 8)), _permuted([(1, 0, 2), (0, 2, 1)], dims=(4, 8, 8)))


def test_permute_compose_mutant_reshape_between_two_permutes():
    # permute, reshape 4x2x8 -> 2x4x8 (row-major: elements move otherwise than by a permute),
    # permute: the two permutes are not composed through the reshape (as if it were not there,
    # they would cancel, and the chain would read as the one transpose on the left)
    left = _permuted([(1, 0, 2), (1, 0, 2), (1, 0, 2)])
    right = _permuted([(1, 0, 2), (1, 0, 2)], reshape_between=True)
    assert_not_absorbed(left, right)
