"""The op table is the one place that says what an op is: traits are objects declared in
dialect/traits.py, and stages derive their op sets from the table instead of keeping their own."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tileir_diff.dialect import OPS_BY_NAME
from tileir_diff.dialect.access import MEMORY_ACCESS, POINTER_ACCESS, VIEW_ACCESS
from tileir_diff.dialect.traits import TRAITS, Trait, ops_with

PACKAGE = Path(__file__).resolve().parents[2] / "tileir_diff"

# Modules that may spell out several op names in one literal, and why. Everything else derives
# its op sets from the table (ops_with, dialect/access.py). A file listed here that no longer
# holds such a literal fails the test too, so the list only shrinks.
ALLOWED = {
    "interp/machine.py": "the interpreter implements each op: its dispatch tables are per op by nature",
    "summary/walk.py": "how an index expression prints (infix symbols, see-through casts, neg, min/max): "
                       "presentation per op",
    "execute/signature.py": "which ops carry an argument's value to a view slot (assume, exti, trunci, "
                            "reshapes): an analysis choice of this module, not a property of the op",
    "ir/verify.py": "CHECKS maps constraint names (the table's `check:` rules), which share some op names",
    "normalize/rules/": "a rewrite pattern names the ops it rewrites",
    "compare/pair_findings.py": "which ops a difference is filed under (views with the token makers), which "
                                "conversions a rewired slot names, the reshapes a constant is shown through: "
                                "the classifier's categories and words, not properties of the op",
    "compare/argument_roots.py": "the two views whose tensor view a static extent is read into: what a tie "
                                 "rewrites, not properties of the op",
    "match/arguments.py": "the pointer accesses whose mask bounds an extent and the ops that bound passes "
                          "through (as execute/signature.py's): a proposal of the argument matcher, which "
                          "the checker confirms, not a property of the op",
    "compare/pins.py": "reshape and broadcast, which a pin sees through: a choice of the pinning heuristic",
    "check/checker.py": "break and return, the exits that leave a loop or the entry (continue only leaves "
                        "the iteration): what an early exit means to the effect order",
    "check/smt.py": "semantics names of the table (assume, splat, iota, index_space), not op names: "
                    "the cones they start are leaves",
}


def _op_name_literals(path: Path):
    """(line, op names) of every set/tuple/list/dict literal holding two or more op names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Set, ast.Tuple, ast.List, ast.Dict)):
            elements = node.keys if isinstance(node, ast.Dict) else node.elts
            names = [e.value for e in elements if isinstance(e, ast.Constant) and e.value in OPS_BY_NAME]
            if len(names) >= 2:
                yield node.lineno, names


def _allowed(rel: str):
    return next((reason for prefix, reason in ALLOWED.items() if rel == prefix or
                 (prefix.endswith("/") and rel.startswith(prefix))), None)


def test_no_stage_keeps_its_own_op_name_set():
    found, used = [], set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("dialect/"):
            continue
        literals = list(_op_name_literals(path))
        if not literals:
            continue
        if _allowed(rel) is not None:
            used.update(p for p in ALLOWED if rel == p or (p.endswith("/") and rel.startswith(p)))
            continue
        found += [f"{rel}:{line}: {names}" for line, names in literals]
    assert not found, "op-name sets kept outside the op table (derive them with ops_with):\n" + "\n".join(found)
    assert not set(ALLOWED) - used, f"allowed but holding no op-name literal any more: {set(ALLOWED) - used}"


def test_every_trait_in_the_table_is_a_declared_trait_object():
    for d in OPS_BY_NAME.values():
        for t in d.traits:
            assert isinstance(t, Trait) and TRAITS.get(str(t)) is t, (d.name, t)
    for t in TRAITS.values():
        assert t.meaning and ops_with(t), f"trait {t} is declared but no op has it"


def test_implied_traits_follow_from_the_row():
    # a row states reads/writes, loop, through_if; memory, control_flow and terminator follow
    from tileir_diff.dialect.spec import OpDef
    from tileir_diff.dialect.traits import READS, with_implied
    assert ops_with("memory") == ops_with("reads") | ops_with("writes")
    assert ops_with("loop") <= ops_with("control_flow") and ops_with("through_if") <= ops_with("terminator")
    assert with_implied({READS}) == {"reads", "memory"}
    row = OpDef("x_read", 999, None, traits=frozenset({READS}))
    assert row.has("memory") and row.traits == {"reads", "memory"}
    # an implied trait is not stated by the rows that imply it (one source of truth)
    source = (Path(__file__).resolve().parents[2] / "tileir_diff" / "dialect" / "ops.py").read_text()
    stated = [set(re.findall(r"[A-Z_]+", m)) for m in re.findall(r"\{([A-Z_, ]+)\}", source)]
    assert len(stated) > 20
    for t in TRAITS.values():
        for implied in t.implies:
            assert not any({t.upper(), implied.upper()} <= names for names in stated), \
                f"ops.py states {implied.upper()} beside {t.upper()}, which implies it"


def test_traits_compare_as_their_names():
    memory = TRAITS["memory"]
    assert memory == "memory" and OPS_BY_NAME["load_view_tko"].has("memory") and memory in OPS_BY_NAME["store_ptr_tko"].traits
    assert not OPS_BY_NAME["addf"].has(memory)


def test_derived_sets_cover_the_ops_a_hand_kept_list_missed():
    # the 13.5 multimem ops were missing from two hand-kept memory-op lists before
    assert {"multimem_load_reduce_view_tko", "multimem_reduce_view_tko", "multimem_store_view_tko"} <= ops_with("memory")
    assert ops_with("control_flow") == {"for", "if", "loop"} and ops_with("loop") == {"for", "loop"}
    assert ops_with("pure", "commutative") >= {"addf", "addi", "mulf", "muli"}
    assert "subf" not in ops_with("commutative")


@pytest.mark.parametrize("name", sorted(MEMORY_ACCESS))
def test_memory_access_is_read_from_the_row(name):
    a, d = MEMORY_ACCESS[name], OPS_BY_NAME[name]
    group = d.operands[a.address_index]
    assert group.name == a.address and group.type == ("view" if a.through == "view" else "tile<ptr>")
    assert a.writes == d.has("writes") and a.reads == d.has("reads")
    assert a.returns_tile == (d.results[0].type != "token")
    assert name.startswith(a.kind) and (name in VIEW_ACCESS) != (name in POINTER_ACCESS)
