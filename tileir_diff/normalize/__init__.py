"""Normalization: named, switchable, meaning-preserving rules applied in a fixed order.

``normalize(module, rules=None, disable=())`` returns the rewritten module and the number of
rewrites per rule. Every rule lives in ``rules/<name>.py`` and documents what it absorbs, why
that keeps meaning, and the mutant it must not absorb (see docs/rules.md).
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ..ir import Module
from .rule import REGISTRY, Rule, rule_names
from . import rules as _rules  # noqa: F401  (registers the rules)
from .util import op_names, tag_origins


class UnknownRuleError(ValueError):
    pass


def select_rules(rules: Optional[Sequence[str]] = None, disable: Iterable[str] = ()) -> List[Rule]:
    """The rules to run, in pipeline order. ``rules=None`` means all; names are checked."""
    disable = list(disable or ())
    wanted = list(REGISTRY) if rules is None else list(rules)
    for n in wanted + disable:
        if n not in REGISTRY:
            raise UnknownRuleError(f"unknown normalization rule {n!r}; known rules: {', '.join(REGISTRY)}")
    for n in disable:
        if not REGISTRY[n].optional:
            raise UnknownRuleError(f"rule {n!r} cannot be switched off (it names what the graph does)")
    chosen = set(wanted) - set(disable)
    chosen |= {n for n, r in REGISTRY.items() if not r.optional}
    return [r for n, r in REGISTRY.items() if n in chosen]


def normalize(module: Module, rules: Optional[Sequence[str]] = None, disable: Iterable[str] = (),
              ) -> Tuple[Module, Dict[str, int]]:
    counts: Dict[str, int] = {}
    present = None  # op names in the module, taken when a rule with ``acts_on`` asks
    for rule in select_rules(rules, disable):
        if rule.acts_on is not None:
            if present is None:
                present = op_names(module)
            if present.isdisjoint(rule.acts_on):
                counts[rule.name] = 0
                continue
        module, n = rule.apply(module)
        counts[rule.name] = n
        if n:
            present = None  # the rule may have added or removed ops
    return module, counts


__all__ = ["normalize", "select_rules", "rule_names", "REGISTRY", "Rule", "UnknownRuleError", "tag_origins"]
