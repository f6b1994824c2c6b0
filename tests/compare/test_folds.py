"""Explanation folds (tileir_diff/compare/folds/): the registry, and for each fold a pair it folds
into one root and a mutant it must leave as separate roots (docs/matching.md "Folds")."""
from __future__ import annotations

import inspect
import re
from pathlib import Path

from tileir_diff.compare import compute_diff
from tileir_diff.compare import folds
from tileir_diff.compare.folds import FOLDS
from tileir_diff.compare.folds.base import STAGES

from ..normalize.kernels import TVIEW, VIEW, kernel, load, store

T = "tile<128xf32>"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "matching.md"


def _diff(a, b):
    return compute_diff(a, b, with_summary=False, with_lines=False)


def test_registry_fold_objects_are_named_documented_and_ordered():
    names = [f.name for f in FOLDS]
    assert len(names) == len(set(names)) and all(names)
    assert all(f.stage in STAGES for f in FOLDS)
    docs = DOCS.read_text()
    for f in FOLDS:
        doc = inspect.getdoc(type(f)) or ""
        assert "Mutant" in doc, f.name  # each says what it must not absorb
        assert f"`{f.name}`" in docs, f.name  # and is in docs/matching.md
    # stages run in classification order, each fold at a place of its own; a fold runs once
    assert [STAGES.index(f.stage) for f in FOLDS] == sorted(STAGES.index(f.stage) for f in FOLDS)
    places = [(f.stage, f.order) for f in FOLDS]
    assert places == sorted(places, key=lambda p: (STAGES.index(p[0]), p[1])) and len(set(places)) == len(places)
    # the docs table lists them in the order they run
    rows = re.findall(r"^\| `([a-z-]+)` \| (\w+) \|", docs, re.M)
    assert rows == [(f.name, f.stage) for f in FOLDS], rows


def test_registry_finds_the_fold_of_every_module_of_the_package():
    # registration is by discovery: a fold module whose class is not found (no ``name``, not a
    # Fold) would silently never run
    package = Path(folds.__file__).parent
    modules = {p.stem for p in package.glob("*.py")} - {"__init__", "base"}
    by_module = sorted(type(f).__module__.rsplit(".", 1)[1] for f in FOLDS)
    assert by_module == sorted(modules)
    # and only the folds: a subclass imported into another module is not registered twice
    assert len({type(f) for f in FOLDS}) == len(FOLDS)


def test_module_names_are_the_names_pkgutil_lists(tmp_path):
    """``module_names`` (the discovery without pkgutil, which imports inspect) lists what
    ``pkgutil.iter_modules`` lists: on the folds package, and on a folder with a package, a
    folder that is none, a compiled module, a name with a dot and other files."""
    import pkgutil
    for name in ("a.py", "b.cpython-311-x86_64-linux-gnu.so", "c.pyc", "d.txt", "e.f.py", "__init__.py", "g.abi3.so"):
        (tmp_path / name).write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "notpkg").mkdir()
    (tmp_path / "notpkg" / "x.py").write_text("")
    (tmp_path / "__pycache__").mkdir()
    for folders in (folds.__path__, [str(tmp_path)]):
        assert folds.module_names(folders) == sorted(i.name for i in pkgutil.iter_modules(folders))


# --- access-replaced -------------------------------------------------------------------------
def _scatter(base: str, value: str = "%a") -> str:
    """An unmasked pointer scatter of ``value`` at base + bx * 128 + iota."""
    p = "tile<128xptr<f32>>"
    return (f"  %c128 = constant <i32: 128> : tile<i32>\n  %o = muli %bx, %c128 : tile<i32>\n"
            f"  %i = iota : tile<128xi32>\n  %or = reshape %o : tile<i32> -> tile<1xi32>\n"
            f"  %ob = broadcast %or : tile<1xi32> -> tile<128xi32>\n  %ix = addi %i, %ob : tile<128xi32>\n"
            f"  %pr = reshape {base} : tile<ptr<f32>> -> tile<1xptr<f32>>\n"
            f"  %pb = broadcast %pr : tile<1xptr<f32>> -> {p}\n"
            f"  %pp = offset %pb, %ix : {p}, tile<128xi32> -> {p}\n"
            f"  %sp = store_ptr_tko weak %pp, {value} token=%0 : {p}, {T} -> token\n")


def test_a_view_store_against_a_pointer_scatter_to_the_same_array_is_one_root():
    r = _diff(kernel(load("a") + store("%a")), kernel(load("a") + _scatter("%arg1")))
    assert r.verdict == "different"
    assert len(r.differences) == 1, r.brief()
    (d,) = r.differences
    assert d.category == "memory" and d.message.startswith("write to %arg1 done another way: store_view_tko")
    assert "a pointer access without a mask" in d.message and d.left and d.right


def test_mutant_the_scatter_writes_another_array_stays_two_roots():
    r = _diff(kernel(load("a") + store("%a")), kernel(load("a") + _scatter("%arg0")))
    assert r.verdict == "different"
    msgs = [d.message for d in r.differences]
    assert len(msgs) == 2 and not any("done another way" in m for m in msgs), msgs


def test_mutant_a_second_store_to_the_array_stays_its_own_root():
    # the right scatters to y and also stores the view tile: which write replaced which is not proven
    r = _diff(kernel(load("a") + store("%a")),
              kernel(load("a") + _scatter("%arg1") + store("%a", index="%by", name="st2")))
    assert r.verdict == "different"
    assert not any("done another way" in d.message for d in r.differences), r.brief()


def test_a_scatter_sharing_its_index_with_a_gather_is_still_reported():
    # the gather of x and the scatter of y share their index ops (one component): the scatter
    # is not hidden in the gather's replacement root
    gather = _scatter("%arg0").split("  %sp =")[0] + \
        f"  %a, %at = load_ptr_tko weak %pp token=%0 : tile<128xptr<f32>> -> {T}, token\n"
    scatter = (f"  %qr = reshape %arg1 : tile<ptr<f32>> -> tile<1xptr<f32>>\n"
               f"  %qb = broadcast %qr : tile<1xptr<f32>> -> tile<128xptr<f32>>\n"
               f"  %qp = offset %qb, %ix : tile<128xptr<f32>>, tile<128xi32> -> tile<128xptr<f32>>\n"
               f"  %sq = store_ptr_tko weak %qp, %n token=%0 : tile<128xptr<f32>>, {T} -> token\n")
    left = kernel(load("a") + f"  %n = negf %a : {T}\n" + store("%n"))
    right = kernel(gather + f"  %n = negf %a : {T}\n" + scatter)
    r = _diff(left, right)
    msgs = [d.message for d in r.differences]
    assert any(m.startswith("write to %arg1 done another way") for m in msgs), msgs
    assert any("load_view_tko" in m and "load_ptr_tko" in m for m in msgs), msgs


# --- consistent-substitution -----------------------------------------------------------------
def test_a_block_id_read_as_another_axis_at_every_use_is_one_root():
    r = _diff(kernel(load("a") + store("%a")), kernel(load("a", index="%by") + store("%a", index="%by")))
    assert r.verdict == "different"
    assert len(r.differences) == 1, r.brief()
    (d,) = r.differences
    assert "%blockId_x -> %blockId_y" in d.message and "the same substitution at every use" in d.message
    assert d.detail.get("substitution_sites") == 2


def test_mutant_two_uses_read_two_other_values_stay_two_roots():
    r = _diff(kernel(load("a") + store("%a")), kernel(load("a", index="%by") + store("%a", index="%bz")))
    assert len(r.differences) == 2, r.brief()
    assert not any("same substitution" in d.message for d in r.differences)


def test_mutant_a_substitution_at_some_uses_only_stays_a_root_per_use():
    left = kernel(load("a") + load("b", view="%py") + f"  %s = addf %a, %b : {T}\n" + store("%s"))
    right = kernel(load("a", index="%by") + load("b", view="%py", index="%by") + f"  %s = addf %a, %b : {T}\n"
                   + store("%s"))
    r = _diff(left, right)
    assert len(r.differences) == 2, r.brief()  # the store still reads bx: two rewirings, not one
    assert not any("same substitution" in d.message for d in r.differences)


# --- formula-cascade (several users of the other formula) ------------------------------------
def _inverse(rsqrt: bool, stored: str = "%inv") -> str:
    body = (f"  %inv = rsqrt %a : {T}\n" if rsqrt else
            f"  %one = constant <f32: 1.0> : {T}\n  %sq = sqrt %a : {T}\n  %inv = divf %one, %sq : {T}\n")
    return body + f"  %p = mulf %inv, %a : {T}\n" + store("%p") + \
        store(stored, view="%px", name="st2")


def test_rsqrt_against_one_over_sqrt_used_twice_is_one_root():
    r = _diff(kernel(load("a") + _inverse(True)), kernel(load("a") + _inverse(False)))
    assert r.verdict == "different"
    assert len(r.differences) == 1, r.brief()
    (d,) = r.differences
    assert d.message.startswith("op rsqrt -> sqrt") and "changes with it: rsqrt(L%tile) -> divf(1.0, sqrt(R%tile))" \
        in d.message.replace("%a", "%tile"), d.message


def test_mutant_the_second_user_takes_another_value_stays_its_own_root():
    # the left stores x itself where the right stores the inverse: a second cause
    r = _diff(kernel(load("a") + _inverse(True, stored="%a")), kernel(load("a") + _inverse(False)))
    assert len(r.differences) == 2, r.brief()
    assert not any("changes with it" in d.message for d in r.differences), r.brief()


def test_kernel_helpers_are_views():
    assert "tensor_view" in TVIEW and "partition_view" in VIEW


# --- restated-assume -------------------------------------------------------------------------
def _two_extents(second_predicate: str = "bounded<0, ?>") -> str:
    """x and y with their own extent arguments, each assumed non-negative on the left only."""
    return (f"  %0 = make_token : token\n  %n0 = assume bounded<0, ?>, %arg2 : tile<i32>\n"
            f"  %n1 = assume {second_predicate}, %arg3 : tile<i32>\n"
            f"  %tx = make_tensor_view %arg0, shape = [%n0], strides = [1] : tile<i32> -> {TVIEW}\n"
            f"  %ty = make_tensor_view %arg1, shape = [%n1], strides = [1] : tile<i32> -> {TVIEW}\n"
            f"  %bx, %by, %bz = get_tile_block_id : tile<i32>\n"
            f"  %px = make_partition_view %tx : {VIEW}\n  %py = make_partition_view %ty : {VIEW}\n")


def _restated(second_predicate: str = "bounded<0, ?>"):
    args = "%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>, %arg2: tile<i32>, %arg3: tile<i32>"
    left = kernel(load("a") + store("%a"), prologue=_two_extents(second_predicate), args=args)
    return left, kernel(load("a") + store("%a"))


def test_one_assumption_restated_for_two_tied_extents_is_one_root():
    r = _diff(*_restated())
    assumes = [d for d in r.differences if d.message.startswith("assume ")]
    assert len(assumes) == 1, r.brief()
    assert "bounded<0, ?> on %arg2 only on the left" in assumes[0].message


def test_mutant_another_predicate_on_the_tied_extent_stays_its_own_root():
    r = _diff(*_restated("bounded<1, ?>"))
    assumes = [d for d in r.differences if d.message.startswith("assume ")]
    assert len(assumes) == 2, r.brief()


# --- uniform-change --------------------------------------------------------------------------
def _padded_sum(pad_a: str = "padding_value = zero, ", pad_b: str = "padding_value = zero, ") -> str:
    """x + y through views with the given paddings, stored through an unpadded view of y."""
    def view(pad):
        return f"partition_view<tile=(128), {pad}{TVIEW}>"
    return (f"  %pa = make_partition_view %tx : {view(pad_a)}\n  %pb = make_partition_view %ty : {view(pad_b)}\n"
            f"  %a, %ta = load_view_tko weak %pa[%bx] token = %0 : {view(pad_a)}, tile<i32> -> {T}, token\n"
            f"  %b, %tb = load_view_tko weak %pb[%bx] token = %0 : {view(pad_b)}, tile<i32> -> {T}, token\n"
            f"  %s = addf %a, %b : {T}\n" + store("%s"))


def test_the_same_change_at_every_view_is_one_root():
    inf = "padding_value = neg_inf, "
    r = _diff(kernel(_padded_sum()), kernel(_padded_sum(inf, inf)))
    assert r.verdict == "different"
    assert len(r.differences) == 1, r.brief()
    (d,) = r.differences
    assert "padding zero -> neg_inf" in d.message and "the same change at 2 ops" in d.message
    assert d.detail.get("uniform_change_sites") == 2


def test_mutant_two_views_changed_in_two_ways_stay_two_roots():
    r = _diff(kernel(_padded_sum()), kernel(_padded_sum("padding_value = pos_inf, ", "padding_value = neg_inf, ")))
    assert len(r.differences) == 2, r.brief()
    assert not any("the same change" in d.message for d in r.differences)


# --- dropped-operand -------------------------------------------------------------------------
def _masked_scatter(masked: bool, select: bool = False) -> str:
    """The unmasked scatter of ``_scatter`` masked by ix < n (and, with ``select``, the stored
    value zeroed where the mask is off, the condition then read twice)."""
    p = "tile<128xptr<f32>>"
    body = _scatter("%arg1").rsplit("  %sp = ", 1)[0]
    body += ("  %nr = reshape %arg2 : tile<i32> -> tile<1xi32>\n  %nb = broadcast %nr : tile<1xi32> -> tile<128xi32>\n"
             "  %in = cmpi less_than %ix, %nb, signed : tile<128xi32> -> tile<128xi1>\n")
    value = "%a"
    if select:
        body += f"  %z = constant <f32: 0.0> : {T}\n  %v = select %in, %a, %z : tile<128xi1>, {T}\n"
        value = "%v"
    if masked:
        return body + f"  %sp = store_ptr_tko weak %pp, {value}, %in token=%0 : {p}, {T}, tile<128xi1> -> token\n"
    return body.replace(
        "  %in = cmpi less_than %ix, %nb, signed : tile<128xi32> -> tile<128xi1>\n", "") + \
        f"  %sp = store_ptr_tko weak %pp, %a token=%0 : {p}, {T} -> token\n"


def test_the_condition_of_a_dropped_mask_is_the_mask_root():
    r = _diff(kernel(load("a") + _masked_scatter(True)), kernel(load("a") + _masked_scatter(False)))
    assert r.verdict == "different"
    assert len(r.differences) == 1, r.brief()
    (d,) = r.differences
    assert "mask" in d.message and "the cmpi that computed it is then only on the left" in d.message


def test_mutant_a_condition_also_read_elsewhere_is_not_folded_into_the_mask():
    r = _diff(kernel(load("a") + _masked_scatter(True, select=True)), kernel(load("a") + _masked_scatter(False)))
    assert r.verdict == "different"
    assert not any("that computed it" in d.message for d in r.differences), r.brief()


# --- extra-array-arguments -------------------------------------------------------------------
_XY = "%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>, %arg2: tile<i32>"


def _with_copy(first: bool) -> tuple:
    """The kernel that also stores x to an array z of its own extent: z's arguments appended
    after x, y, n, or (``first``) before them."""
    z, nz = ("%arg0", "%arg1") if first else ("%arg3", "%arg4")
    args = ("%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<ptr<f32>>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>"
            if first else _XY + ", %arg3: tile<ptr<f32>>, %arg4: tile<i32>")
    prologue = PROLOGUE_ARGS(first) + (f"  %tz = make_tensor_view {z}, shape = [{nz}], strides = [1] : tile<i32> -> {TVIEW}\n"
                                       f"  %pz = make_partition_view %tz : {VIEW}\n")
    return kernel(load("a") + store("%a") + store("%a", view="%pz", name="st2"), prologue=prologue, args=args)


def PROLOGUE_ARGS(first: bool) -> str:
    """The helpers' prologue with x, y, n at arguments 2, 3, 4 (``first``) or 0, 1, 2."""
    from ..normalize.kernels import PROLOGUE
    if not first:
        return PROLOGUE
    return PROLOGUE.replace("%arg2]", "%arg4]").replace("%arg1,", "%arg3,").replace("%arg0,", "%arg2,")


def test_an_extra_output_appended_is_one_root_with_its_arguments():
    r = _diff(kernel(load("a") + store("%a")), _with_copy(first=False))
    assert r.verdict == "different"
    assert len(r.differences) == 1, r.brief()
    (d,) = r.differences
    assert d.category == "memory" and "only on the right" in d.message and "%arg3, %arg4 only on the right" in d.message


def test_mutant_an_extra_output_taken_first_keeps_its_signature_root():
    r = _diff(kernel(load("a") + store("%a")), _with_copy(first=True))
    assert r.verdict == "different"
    assert any(d.category == "signature" and "another order" in d.message for d in r.differences), r.brief()


# --- carried-store-order -----------------------------------------------------------------------
def _carried(carried: bool, load_token: str = "%0"):
    from ..normalize.test_disjoint_loop_stores import _loop
    # a runtime step: rule disjoint-loop-stores cannot drop the order, so the diff shows it
    return kernel(_loop(carried, load_token=load_token, step="%arg2"))


def test_a_store_order_carried_on_one_side_is_one_root():
    r = _diff(_carried(True), _carried(False))
    assert r.verdict == "different"
    assert len(r.differences) == 1, r.brief()
    (d,) = r.differences
    assert d.category == "control_flow" and "the loop carries a store's token on the left only" in d.message
    assert "continue" in d.message and "store_view_tko" in d.message  # the sites it stands for
    back = _diff(_carried(False), _carried(True))
    assert len(back.differences) == 1 and "on the right only" in back.differences[0].message, back.brief()


def test_mutant_a_load_ordered_by_the_carried_token_stays_its_own_root():
    r = _diff(_carried(True, load_token="%t"), _carried(False))
    assert r.verdict == "different"
    assert any(d.message.startswith("load_view_tko") for d in r.differences), r.brief()


def test_mutant_an_accumulator_carried_on_one_side_is_not_a_store_order():
    from ..normalize.test_disjoint_loop_stores import _loop
    plain = _loop(False, step="%arg2")
    acc = (plain.replace("  for %iv in", "  %sum = for %iv in")
           .replace("step %arg2) : tile<i32> {", "step %arg2) : tile<i32> iter_values(%acc = %lb) -> (tile<i32>) {")
           .replace("    continue\n", "    %acc2 = addi %acc, %iv : tile<i32>\n    continue %acc2 : tile<i32>\n"))
    assert acc != plain
    r = _diff(kernel(acc), kernel(plain))
    assert r.verdict == "different"
    assert not any("carries a store's token" in d.message for d in r.differences), r.brief()
