"""Normalization: named, switchable, meaning-preserving rules applied in a fixed order.

``normalize(module, rules=None, disable=())`` returns the rewritten module and the number of
rewrites per rule. Every rule lives in ``rules/<name>.py`` and documents what it absorbs, why
that keeps meaning, and the mutant it must not absorb (see docs/rules.md).
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..ir import Module
from .rule import REGISTRY, Rule, rule_names
from . import rules as _rules  # noqa: F401  (registers the rules)
from .util import names_and_origins, op_names, origins, tag_origins


class UnknownRuleError(ValueError):
    pass


#: (registry size, rules, disable as tuples) -> the rules ``select_rules`` chose for them. A diff asks for the
#: same few selections several times per normalization; the rules and the registry never change
#: after import, entries are immutable tuples (a thread that misses writes the same value), and
#: the table is cleared past 256 selections (they come from callers' arguments).
_SELECTED: Dict[Tuple[int, Optional[Tuple[str, ...]], Tuple[str, ...]], Tuple[Rule, ...]] = {}


def select_rules(rules: Optional[Sequence[str]] = None, disable: Iterable[str] = ()) -> List[Rule]:
    """The rules to run, in pipeline order. ``rules=None`` means all; names are checked."""
    disable = list(disable or ())
    wanted = None if rules is None else tuple(rules)  # (read once: any iterable)
    key = (len(REGISTRY), wanted, tuple(disable))
    chosen = _SELECTED.get(key)
    if chosen is None:
        chosen = tuple(_select_rules(wanted, disable))
        if len(_SELECTED) > 256:
            _SELECTED.clear()
        _SELECTED[key] = chosen
    return list(chosen)


def _select_rules(rules: Optional[Sequence[str]], disable: List[str]) -> List[Rule]:
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
              keep: Optional[Dict[str, Set[int]]] = None,
              absorbed: Optional[Dict[str, str]] = None) -> Tuple[Module, Dict[str, int]]:
    """Run the selected rules in order. ``keep``: rule name -> indices of functions that rule
    must leave as written (the engine's symmetric application, see ``Rule.declines``).
    ``absorbed``, when given, is filled with op id -> the rule under which that op (as tagged by
    ``tag_origins``) left the module: folded, merged or rewritten into other ops (the reports
    name it on the line of an op that has no partner)."""
    counts: Dict[str, int] = {}
    present = None  # op names in the module, taken when a rule with ``acts_on`` asks
    alive = origins(module) if absorbed is not None else None
    for rule in select_rules(rules, disable):
        if rule.acts_on is not None:
            if present is None:
                present = op_names(module)
            if present.isdisjoint(rule.acts_on):
                counts[rule.name] = 0
                continue
        kept = (keep or {}).get(rule.name)
        if kept:
            module, n = _apply_except(rule, module, kept)
        else:
            module, n = rule.apply(module)
        counts[rule.name] = n
        if n and not rule.rewrites_in_place:  # (in place: the same op names and origins)
            present = None  # the rule may have added or removed ops
            if alive is not None:
                present, now = names_and_origins(module)
                for gone in alive - now:
                    absorbed.setdefault(gone, rule.name)  # type: ignore[union-attr]  # alive is set only with absorbed
                alive = now
    return module, counts


def _apply_except(rule: Rule, module: Module, kept: Set[int]) -> Tuple[Module, int]:
    """``rule`` applied to every function but those in ``kept`` (rules are function-local)."""
    from dataclasses import replace
    todo = [i for i in range(len(module.functions)) if i not in kept]
    if not todo:
        return module, 0
    part, n = rule.apply(replace(module, functions=tuple(module.functions[i] for i in todo)))
    funcs = list(module.functions)
    for i, f in zip(todo, part.functions):
        funcs[i] = f
    return replace(module, functions=tuple(funcs)), n


def one_sided_declines(left: Module, right: Module, pairs, rules: Optional[Sequence[str]] = None,
                       disable: Iterable[str] = ()) -> Tuple[Dict[str, Set[int]], Dict[str, Set[int]]]:
    """For each selected rule, the functions of each side it must leave as written because it
    declines their counterpart: (left keep, right keep), as ``normalize(keep=...)`` takes them."""
    keep_l: Dict[str, Set[int]] = {}
    keep_r: Dict[str, Set[int]] = {}
    selected = select_rules(rules, disable)
    names = {r.name for r in selected}
    for rule in selected:
        if type(rule).declines is Rule.declines:
            continue
        before = [REGISTRY[n] for n in rule.declines_after if n in names]
        for i, j in pairs:
            dl = rule.declines(_after(before, left, i), left.version)
            dr = rule.declines(_after(before, right, j), right.version)
            if dl and not dr:
                keep_r.setdefault(rule.name, set()).add(j)
            elif dr and not dl:
                keep_l.setdefault(rule.name, set()).add(i)
    return keep_l, keep_r


def _after(rules: List[Rule], module: Module, i: int):
    """Function ``i`` of ``module`` as ``rules`` (in pipeline order) rewrite it."""
    if not rules:
        return module.functions[i]
    from dataclasses import replace
    one = replace(module, functions=(module.functions[i],))
    present = None  # the function's op names, taken when a rule with ``acts_on`` asks (as normalize does)
    for rule in rules:
        if rule.acts_on is not None:
            if present is None:
                present = op_names(one)
            if present.isdisjoint(rule.acts_on):
                continue  # none of the ops it rewrites: it leaves the function as it is
        one, n = rule.apply(one)
        if n and not rule.rewrites_in_place:
            present = None
    return one.functions[0]


__all__ = ["one_sided_declines", "normalize", "select_rules", "rule_names", "REGISTRY", "Rule", "UnknownRuleError", "tag_origins"]
