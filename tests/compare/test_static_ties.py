"""Static vs dynamic extents (compare/argument_roots.py _read_static): an extent one side fixes in its
view type is a stated assumption, and every other use of the argument the other side passes for
it (a tile count or loop bound written by hand) reads that value too."""
from __future__ import annotations

from tileir_diff.compare import compute_diff
from tileir_diff.text.parser import parse_text

T = "tile<128xf32>"


def _kernel(extent: str, bound: str) -> str:
    """Copy x (extent %arg2) to y (extent %arg3, or ``extent`` fixed in its view type) over
    ``bound`` tiles of 128 in a loop."""
    dyn = extent == "?"
    tv = f"tensor_view<{extent}xf32, strides=[1]>"
    view = f"partition_view<tile=(128), {tv}>"
    shape = "[%m]" if dyn else f"[{extent}]"
    return f"""entry @k(%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>, %arg2: tile<i32>, %arg3: tile<i32>) {{
  %0 = make_token : token
  %n = assume bounded<0, ?>, %arg2 : tile<i32>
  %m = assume bounded<0, ?>, %arg3 : tile<i32>
  %tx = make_tensor_view %arg0, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %ty = make_tensor_view %arg1, shape = {shape}, strides = [1] : tile<i32> -> {tv}
  %px = make_partition_view %tx : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
  %py = make_partition_view %ty : {view}
{bound}  %c0 = constant <i32: 0> : tile<i32>
  %c1 = constant <i32: 1> : tile<i32>
  for %i in (%c0 to %tiles, step %c1) : tile<i32> {{
    %a, %at = load_view_tko weak %px[%i] token = %0 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> {T}, token
    %s = store_view_tko weak %a, %py[%i] token = %0 : {T}, {view}, tile<i32> -> token
    continue
  }}
  return
}}
"""


_CDIV = "  %c128 = constant <i32: 128> : tile<i32>\n  %tiles = divi %m, %c128 signed rounding<positive_inf> : tile<i32>\n"


def _diff(right_extent: str, right_bound: str):
    left = parse_text(_kernel("?", _CDIV), version=(13, 3))
    right = parse_text(_kernel(right_extent, right_bound), version=(13, 3))
    return compute_diff(left, right, with_summary=False, with_lines=False)


def test_a_static_extent_and_its_tile_count_by_hand_are_one_assumption():
    # the left passes y's extent m and loops cdiv(m, 128) times; the right fixes it to 4096 and
    # loops 32 times (its argument for m is still declared, read by nothing but an assume)
    r = _diff("4096", "  %tiles = constant <i32: 32> : tile<i32>\n")
    assert r.verdict == "specialized", r.brief()
    msgs = [d.message for d in r.differences]
    assert any("static vs dynamic shape" in m and "to 4096" in m for m in msgs), msgs
    assert not any(d.category in ("constant", "control_flow", "arith") for d in r.differences), msgs


def test_mutant_a_tile_count_off_by_one_stays_a_root():
    r = _diff("4096", "  %tiles = constant <i32: 31> : tile<i32>\n")
    assert r.verdict == "different", r.brief()
    assert any(d.category not in ("specialization", "signature", "hints") for d in r.differences), r.brief()


def _count_view(tile: int) -> str:
    """The left's tile count as ``get_index_space_shape`` of a view of y of its own (tiles of
    ``tile``; padded, so it is not the store's view), as cuTile Python writes ``ct.num_tiles``."""
    view = f"partition_view<tile=({tile}), padding_value = zero, tensor_view<?xf32, strides=[1]>>"
    return f"  %pc = make_partition_view %ty : {view}\n  %tiles = get_index_space_shape %pc : {view} -> tile<i32>\n"


def _diff_count(left_bound: str, right_bound: str):
    left = parse_text(_kernel("?", left_bound), version=(13, 3))
    right = parse_text(_kernel("4096", right_bound), version=(13, 3))
    return compute_diff(left, right, with_summary=False, with_lines=False)


def test_a_view_only_the_proven_tile_count_reads_goes_with_it():
    # the left's count view is paired with nothing; the proof of the loop bound (cdiv(4096, 128)
    # = 32 under the static tie) reads its type, so it is no memory root of its own
    r = _diff_count(_count_view(128), "  %tiles = constant <i32: 32> : tile<i32>\n")
    assert r.verdict == "specialized", r.brief()
    assert not any(d.category == "memory" for d in r.differences), r.brief()


def test_mutant_a_count_view_of_another_tile_stays_a_root():
    # tiles of 64: cdiv(4096, 64) = 64 loop trips against 32; the proof fails, nothing is discharged
    r = _diff_count(_count_view(64), "  %tiles = constant <i32: 32> : tile<i32>\n")
    assert r.verdict == "different", r.brief()
    assert any(d.category not in ("specialization", "signature", "hints") for d in r.differences), r.brief()
