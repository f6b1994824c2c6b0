"""address_root: from a memory op's view or pointer operand back to its entry argument, through
the ops the op table marks ``derives_address``."""
from __future__ import annotations

from tileir_diff.dialect.ops import OPS_BY_NAME
from tileir_diff.match import address_root
from tileir_diff.match.opsets import ADDRESS_PRESERVING_OPS, TERMINATOR_OPS

from .kernels import T, Pair, kernel, load, store


def test_op_sets_come_from_the_op_table():
    assert ADDRESS_PRESERVING_OPS == {"make_partition_view", "make_strided_view", "make_gather_scatter_view",
                                      "make_tensor_view", "assume", "broadcast", "reshape", "offset", "permute",
                                      "ptr_to_ptr"}
    assert all("derives_address" in OPS_BY_NAME[n].traits and "pure" in OPS_BY_NAME[n].traits
               for n in ADDRESS_PRESERVING_OPS)
    assert TERMINATOR_OPS == {"yield", "continue", "break", "return"}


def test_loads_and_stores_lead_to_their_arguments():
    p = Pair(kernel(load("a") + f"  %e = exp %a : {T}\n" + store("st", "%e")))
    assert address_root(p.L, p.lid("%a")) == p.lid("%arg0")
    assert address_root(p.L, p.lid("%st")) == p.lid("%arg1")  # the view, not the stored tile
    assert address_root(p.L, p.lid("%e")) is None  # exp's operand is a load, not an address
