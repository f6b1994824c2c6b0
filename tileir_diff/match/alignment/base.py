"""What an argument aligner is: the two signatures it reads (``Signatures``), the result it gives
(``Alignment``) and the object it is (``Aligner``)."""
from __future__ import annotations

from dataclasses import field
from typing import Dict, List, NamedTuple, Optional, Tuple

from ...graph import FunctionGraph
from ..arguments import Tie, argument_roles
from ...record import record


@record
class Signatures:
    """Both entries' argument node ids (in order) and their roles (``argument_roles``), computed
    once per pair of graphs and read by every aligner."""
    L: FunctionGraph
    R: FunctionGraph
    largs: List[str] = field(init=False)
    rargs: List[str] = field(init=False)
    lr: Dict[str, tuple] = field(init=False)
    rr: Dict[str, tuple] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "largs", [n.nid for n in self.L.arg_nodes])
        object.__setattr__(self, "rargs", [n.nid for n in self.R.arg_nodes])
        object.__setattr__(self, "lr", argument_roles(self.L))
        object.__setattr__(self, "rr", argument_roles(self.R))

    @property
    def roles(self) -> Tuple[Dict[str, tuple], Dict[str, tuple]]:
        """(left roles, right roles)."""
        return self.lr, self.rr


# (NamedTuple's functional form, the types as objects: no compile() of string annotations, see Tie)
class Alignment(NamedTuple("Alignment", [("pairs", List[Tuple[str, str]]), ("ties", List[Tie]), ("by", str),
                                         ("signatures", Signatures)])):
    """The aligned entry arguments of one pair of graphs: (left, right) node-id pairs in left
    order, the ties the pairing needs (``Tie``), the aligner that found them (``by``), and the
    signatures it read (their roles are reused by later passes: compare/pins.py)."""
    __slots__ = ()

    def is_for(self, L: FunctionGraph, R: FunctionGraph) -> bool:
        """Whether this alignment was computed on these very graphs."""
        return self.signatures.L is L and self.signatures.R is R


class Aligner:
    """One way to pair the entry arguments: ``align`` returns the pairs and ties, or None when
    this way does not apply (the next aligner of ``ALIGNERS`` is tried)."""
    name: str = ""

    def align(self, sig: Signatures) -> Optional[Tuple[List[Tuple[str, str]], List[Tie]]]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
