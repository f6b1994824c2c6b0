"""The Rule protocol and the registry of named normalization rules."""
from __future__ import annotations

from typing import Dict, FrozenSet, List, Optional, Tuple

from ..ir import Function, Module


class Rule:
    """A named, meaning-preserving rewrite. Subclasses set ``name`` (kebab-case), ``mutant`` (one
    line: a change the rule must NOT absorb; its test checks that) and implement ``apply``.
    The class docstring says what the rule absorbs, why meaning is kept, and what it never touches.
    ``optional = False`` marks a rule that cannot be switched off (it only names what the graph does).
    """
    name: str = ""
    mutant: str = ""
    optional: bool = True
    #: Op names the rule can rewrite (None: any op). The pipeline skips the rule, with 0
    #: rewrites, when the module has none of them (a walk saved per rule and module).
    acts_on: Optional[FrozenSet[str]] = None
    #: Whether every rewrite replaces one op by one op of the same name and origin and drops
    #: none (operands, attributes or hints change in place): the module's op names and origin
    #: tags stay as they were, so the pipeline takes no census of them after this rule
    #: (tests/normalize/test_in_place_rules.py checks it over the corpus).
    rewrites_in_place: bool = False
    #: Earlier rules whose rewrite ``declines`` is judged after, when they are selected too: a
    #: precondition another rule establishes (token-order declines loop-carried tokens, some of
    #: which disjoint-loop-stores removes first).
    declines_after: Tuple[str, ...] = ()

    def apply(self, module: Module) -> Tuple[Module, int]:
        """Return (rewritten module, number of rewrites made). Never mutates ``module``."""
        raise NotImplementedError

    def declines(self, function: Function, version) -> bool:
        """Whether the rule's precondition fails on this function as a whole, so that the rule
        leaves it as written. The engine uses it to apply a rule to both functions of a pair
        or to neither (a rule applied on one side only leaves one op in two forms)."""
        return False

    @classmethod
    def doc(cls) -> str:
        import inspect  # (here: a diff never asks, and inspect is ~25 M instructions to import)
        return inspect.cleandoc(cls.__doc__ or "")

    def __repr__(self) -> str:
        return f"<rule {self.name}>"


#: name -> rule instance, in the order the pipeline applies them.
REGISTRY: Dict[str, Rule] = {}


def register(cls):
    if not cls.name or cls.name in REGISTRY:
        raise ValueError(f"rule name {cls.name!r} empty or registered twice")
    if not cls.__doc__ or not cls.mutant:
        raise ValueError(f"rule {cls.name} needs a docstring and a mutant")
    REGISTRY[cls.name] = cls()
    return cls


def rule_names() -> List[str]:
    return list(REGISTRY)
