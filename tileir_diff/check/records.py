"""What the checker reports and what its proof step carries between its parts: the violations of
the mapping, the proofs it posed, the options that switch proofs on, and what the proofs of one
function pair established (``Proven``).

Its own module so that the checks of the mapping (``checker.py``) and the parts of the proof
step (``proof_step.py``, ``lifted.py``) share these records without importing each other.
"""
from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any, Callable, Optional, Set, Tuple

from ..ir import Function
from ..ir.record import record
from . import smt_common

if TYPE_CHECKING:  # (smt.py, the encoder, is imported where a query is posed: smt_common.py)
    from . import smt


@record
class Violation:
    """One way the mapping fails to prove the two functions the same.

    ``kind``: ``signature``, ``function``, ``unmapped``, ``label``, ``placement``, ``operand``,
    ``order``, ``memory-order``, ``unverifiable``. ``left``/``right`` are node ids (op ids,
    ``f0/a3`` for entry arguments). ``cascade``: the violation may be explained by a difference
    upstream (an unmapped producer, a result type following changed inputs) and is covered when
    its op is listed under any root; otherwise only a root at this very op covers it.
    """
    kind: str
    left: Optional[str]
    right: Optional[str]
    message: str
    slots: Tuple[Tuple[int, int], ...] = ()
    cascade: bool = False


@record
class ProofOptions:
    """Switches the proof step on. ``timeout_s``: the wall-clock safety net of one proof (past
    it the diff is ``unknown``); ``rlimit``: its work budget in z3's resource units (past it:
    undecided). ``entry_facts``: the (left, right) functions whose top-level ``assume``s on entry
    arguments are facts (default: the functions checked). ``launch``: caller-stated facts,
    (name, encoder -> z3 bool)."""
    timeout_s: float = smt_common.DEFAULT_TIMEOUT_S
    entry_facts: Tuple[Optional[Function], Optional[Function]] = (None, None)
    launch: Tuple[Tuple[str, Callable[..., Any]], ...] = ()
    rlimit: int = smt_common.DEFAULT_RLIMIT


@record(frozen=False)
class Proof:
    """One query the checker posed: at the mapped pair (left, right), of its results
    (``slot`` None) or of operand ``slot``. ``outcome``: smt.Outcome."""
    left: str
    right: str
    slot: Optional[int]
    outcome: "smt.Outcome"


@record(frozen=False)
class Proven:
    """What the proofs of one function pair established: the proven pairs, the node ids of the
    ops their cones expanded per side, and the (user, operand index) slots proven per side."""
    pairs: Set[Tuple[str, str]] = field(default_factory=set)
    cone_l: Set[str] = field(default_factory=set)
    cone_r: Set[str] = field(default_factory=set)
    slots_l: Set[Tuple[str, Optional[int]]] = field(default_factory=set)
    slots_r: Set[Tuple[str, Optional[int]]] = field(default_factory=set)
    #: pairs whose results differ, proven unobservable only if every use lies inside a proof
    refuted: Set[Tuple[str, str]] = field(default_factory=set)
    #: pairs of a zero-sign-blind op (exp) proven through their inputs: whole, like results
    blind: Set[Tuple[str, str]] = field(default_factory=set)
    #: unpaired memory reads a proof expanded (its pairing of reads checked: ``ReadPairing``)
    reads_l: Set[str] = field(default_factory=set)
    reads_r: Set[str] = field(default_factory=set)
