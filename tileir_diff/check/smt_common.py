"""What the proof step's neighbours read of it without its encoder (``smt.py``, 100 KB with
the quick probe): z3's default limits, whether z3 is installed, why the step was skipped, and
the index-space extent that the encoder and the counterexamples' text both read.

A diff that poses no proof query (most port pairs) then never imports ``smt.py``: the checker,
the mapping's limits and the engine import this module instead, and ``smt`` where a query is
posed (``proof_step``, ``lifted``). ``smt`` re-exports every name here.
"""
from __future__ import annotations

import sys

from ..ir.types import PartitionViewType, TensorViewType

#: The work budget of one proof (``ConeEncoder.prove``: every query it poses for one pair of
#: values, in both encodings), in z3's resource count (``rlimit``): deterministic, the same on a
#: loaded machine as on an idle one. ``Limits.smt_rlimit`` overrides it. Calibration
#: (docs/robustness.md, "Work budgets"; ``scripts/smt_work.py``): the largest decided query of
#: the port table and the corpus spends 0.27 M units, the largest of the tests 0.40 M; the
#: first (bit-vector) attempt gets half of this, over 10 times either, and about 2 s of z3 on
#: this project's machines (1-7 M units a second), as the old time budget gave.
DEFAULT_RLIMIT = 10_000_000
#: The wall-clock safety net of one proof (seconds), thirty times the old time budget: a proof
#: whose work budget is not spent by then stops with ``Outcome.time_limit`` set, which the
#: checker turns into an ``unknown`` verdict ("time limit (machine too slow/overloaded)"),
#: never a verdict of its own. ``Limits.smt_timeout_s`` overrides it.
DEFAULT_TIMEOUT_S = 60.0


def installed() -> bool:
    """``smt.installed()``: whether z3 can be imported, without importing it, nor ``smt`` where
    that is not imported yet (then nothing has imported z3 through it either)."""
    smt = sys.modules.get(__name__.rsplit(".", 1)[0] + ".smt")
    if smt is not None:
        return smt.installed()
    import importlib.util
    return importlib.util.find_spec("z3") is not None


def skipped_reason() -> str:
    return "the SMT proof step was skipped: z3-solver is not installed (pip install z3-solver)"


def index_space_extent(index, op, res: int):
    """(extent, tile) of result ``res`` of a ``get_index_space_shape`` whose view is a
    ``make_partition_view`` of a ``make_tensor_view`` of the same function: the extent of the
    tensor dim the view maps that dim to (an int for a static dim, else its dynamic shape
    operand, a Value) and the tile size along it. None for any other view."""
    src = index.producer.get(op.operands[0].vid)
    pv = index.ops.get(src[0]) if src else None
    # the view's type as its producer made it (an operand's own copy of the type must agree)
    pt = pv.results[src[1]].type if pv is not None and src[1] < len(pv.results) else None
    if pt != op.operands[0].type:
        return None
    if pv is None or pv.name != "make_partition_view" or not isinstance(pt, PartitionViewType) \
            or res >= len(pt.tile_shape) or len(pt.dim_map) != len(pt.tile_shape):
        return None
    src = index.producer.get(pv.operands[0].vid)
    tv = index.ops.get(src[0]) if src else None
    tt = pv.operands[0].type
    if tv is None or tv.name != "make_tensor_view" or not isinstance(tt, TensorViewType) or tv.results[0].type != tt:
        return None
    dim, tile = pt.dim_map[res], pt.tile_shape[res]
    if tile <= 0 or dim >= len(tt.shape):
        return None
    if tt.shape[dim] is not None:
        return tt.shape[dim], tile
    k = sum(1 for d in tt.shape[:dim] if d is None)  # the dynamic shape operands follow the base
    return tv.operands[1 + k], tile
