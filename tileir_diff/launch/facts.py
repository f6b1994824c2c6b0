"""The grammar of a launch fact, read with bounds: what a caller may state about the launch a
kernel runs under (``grid.x == cdiv(arg11, 128) * cdiv(arg12, 128)``).

A fact is one comparison (``== < <= > >=``) of terms built from integers, the names
``grid.x``/``grid.y``/``grid.z`` (the grid's extents) and ``bid.x``/``bid.y``/``bid.z`` (this
block's index), entry arguments ``arg<k>``, ``+ - * // %``, unary ``-`` and ``cdiv``, ``min``,
``max`` of two terms. ``parse_fact`` reads one, or raises ``LaunchFactSyntaxError`` (a
``ValueError``) with one line that names what is wrong: it is the bounded front door of every
consumer (the proof step's encoder, the suite's resolution and evaluation, the CLI), which then
walk at most ``MAX_FACT_DEPTH`` levels (a fact of 3000 nested terms used to exhaust Python's
stack in the parser or the encoder).

Standard library only: this package imports nothing else of tileir_diff (tests/test_layering.py).
"""
from __future__ import annotations

import ast
from typing import List, Tuple

#: Characters of one fact, the depth of its expression tree and its number of nodes. A real fact
#: has fewer than 100 characters, a depth under 10 and a few dozen nodes.
MAX_FACT_CHARS = 2000
MAX_FACT_DEPTH = 32
MAX_FACT_NODES = 500

#: The launch's own names (the grid and the block index), besides the entry arguments ``arg<k>``.
LAUNCH_NAMES = ("grid.x", "grid.y", "grid.z", "bid.x", "bid.y", "bid.z")
FUNCTIONS = ("cdiv", "min", "max")
_COMPARISONS = (ast.Eq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)


class LaunchFactSyntaxError(ValueError):
    """A launch fact outside the grammar or the bounds (the message is one line)."""


def shown(text: str, limit: int = 80) -> str:
    """``text`` quoted for a message, shortened past ``limit`` characters, control characters
    escaped (``repr``; a fact is one line)."""
    s = text if len(text) <= limit else text[:limit] + "..."
    return repr(s).encode("ascii", "backslashreplace").decode("ascii")


def _valid_names() -> str:
    return ", ".join(LAUNCH_NAMES) + ", arg<k> (an entry argument)"


def parse_fact(text: str) -> ast.Compare:
    """The fact's comparison, checked against the grammar and the bounds (module docstring)."""
    if not isinstance(text, str):
        raise LaunchFactSyntaxError(f"a launch fact is a string, not {type(text).__name__}")
    head = f"launch fact {shown(text)}"
    if len(text) > MAX_FACT_CHARS:
        raise LaunchFactSyntaxError(f"{head}: {len(text)} characters (at most {MAX_FACT_CHARS})")
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        raise LaunchFactSyntaxError(f"{head}: {e.msg}") from None
    except (RecursionError, MemoryError, ValueError):
        raise LaunchFactSyntaxError(f"{head}: nested too deeply (at most {MAX_FACT_DEPTH} levels)") from None
    if not (isinstance(tree, ast.Compare) and len(tree.ops) == 1 and isinstance(tree.ops[0], _COMPARISONS)):
        raise LaunchFactSyntaxError(f"{head}: expected one comparison (==, <, <=, >, >=) of two terms")
    stack: List[Tuple[ast.AST, int]] = [(tree.left, 1), (tree.comparators[0], 1)]
    nodes = 1
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if depth > MAX_FACT_DEPTH or nodes > MAX_FACT_NODES:
            raise LaunchFactSyntaxError(f"{head}: more than {MAX_FACT_DEPTH} levels or {MAX_FACT_NODES} terms")
        stack.extend((child, depth + 1) for child in _term_children(node, head))
    return tree


def _term_children(node: ast.AST, head: str) -> List[ast.AST]:
    """The sub-terms of one term, or LaunchFactSyntaxError when it is not a term of the grammar."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return []
    if isinstance(node, ast.Name):
        if argument_index(node.id) is not None:
            return []
        raise LaunchFactSyntaxError(f"{head}: unknown name {node.id!r} (names: {_valid_names()})")
    if isinstance(node, ast.Attribute):
        name = f"{node.value.id}.{node.attr}" if isinstance(node.value, ast.Name) else ast.unparse(node)[:40]
        if name in LAUNCH_NAMES:
            return []
        raise LaunchFactSyntaxError(f"{head}: unknown name {name!r} (names: {_valid_names()})")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return [node.operand]
    if isinstance(node, ast.BinOp) and isinstance(node.op, _OPERATORS):
        return [node.left, node.right]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS:
        if node.keywords or len(node.args) != 2 or any(isinstance(a, ast.Starred) for a in node.args):
            raise LaunchFactSyntaxError(f"{head}: {node.func.id} takes two terms")
        return list(node.args)
    what = type(node).__name__
    if isinstance(node, ast.Call):
        what = "call of " + (repr(node.func.id) if isinstance(node.func, ast.Name) else "an expression")
    elif isinstance(node, (ast.BinOp, ast.UnaryOp)):
        what = f"operator {type(node.op).__name__}"
    elif isinstance(node, ast.Constant):
        what = f"constant {node.value!r}"[:60]
    raise LaunchFactSyntaxError(f"{head}: {what} is not allowed (integers, {_valid_names()}, "
                                f"+ - * // %, cdiv, min, max)")


def argument_index(name: str):
    """k for ``arg<k>`` (decimal, no sign), else None."""
    if name.startswith("arg") and name[3:].isdigit() and name[3:].isascii() and len(name) <= 12:
        return int(name[3:])
    return None


def fact_arguments(tree: ast.AST) -> List[int]:
    """The entry argument indices a parsed fact names, sorted, each once."""
    return sorted({k for n in ast.walk(tree) if isinstance(n, ast.Name)
                   for k in [argument_index(n.id)] if k is not None})
