"""select_rules is memoized per selection: the memo must give what the selection means, for any
iterable of names, and a list the caller may change without changing later answers."""
from __future__ import annotations

import pytest

from tileir_diff.normalize import REGISTRY, UnknownRuleError, select_rules

ALWAYS_ON = [n for n, r in REGISTRY.items() if not r.optional]


def test_selection_from_a_generator_and_a_list_alike():
    from_list = [r.name for r in select_rules(["dead-code", "cse-pure-ops"])]
    from_generator = [r.name for r in select_rules(n for n in ["dead-code", "cse-pure-ops"])]
    assert from_list == from_generator == [n for n in REGISTRY if n in ALWAYS_ON + ["dead-code", "cse-pure-ops"]]


def test_returned_list_is_the_callers():
    first = select_rules(None, ["dead-code"])
    first.clear()
    again = [r.name for r in select_rules(None, ["dead-code"])]
    assert again == [n for n in REGISTRY if n != "dead-code"]


def test_errors_are_not_remembered_as_selections():
    for _ in range(2):
        with pytest.raises(UnknownRuleError):
            select_rules(["no-such-rule"])
        with pytest.raises(UnknownRuleError):
            select_rules(None, [ALWAYS_ON[0]])
