"""Evaluates the small integer expression language of analysis.json (grid, flops, bytes, shape symbols).

Parsed with `ast` and interpreted node by node so that a reference file can never run code.
"""

from __future__ import annotations

import ast
from typing import Callable, Mapping

__all__ = ["ExprError", "evaluate", "names_in"]


class ExprError(ValueError):
    """An expression is malformed or refers to an unknown name."""


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


_FUNCTIONS: dict[str, Callable[..., int]] = {"cdiv": _cdiv, "min": min, "max": max}
_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
}


def _parse(text: str) -> ast.expr:
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise ExprError(f"cannot parse expression {text!r}: {exc.msg}") from None


def evaluate(
    expr: int | str,
    names: Mapping[str, int | float | bool],
    *,
    element_sizes: Mapping[str, int] | None = None,
    shapes: Mapping[str, tuple[int, ...]] | None = None,
) -> int:
    """Value of `expr` with `names` bound; `esize(p)` and `p.shape[i]` use the optional maps."""
    if isinstance(expr, bool) or not isinstance(expr, (int, str)):
        raise ExprError(f"expression must be an int or a string, got {expr!r}")
    if isinstance(expr, int):
        return expr

    def visit(node: ast.expr) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise ExprError(f"unknown name {node.id!r} in {expr!r} (known: {sorted(names)})")
            return names[node.id]  # type: ignore[return-value]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -visit(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            left, right = visit(node.left), visit(node.right)
            if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and right == 0:
                raise ExprError(f"division by zero in {expr!r}")
            return _BINOPS[type(node.op)](left, right)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            fname = node.func.id
            if fname == "esize":
                if element_sizes is None or len(node.args) != 1 or not isinstance(node.args[0], ast.Name):
                    raise ExprError(f"esize() takes one array param name and is only allowed in bytes: {expr!r}")
                param = node.args[0].id
                if param not in element_sizes:
                    raise ExprError(f"esize({param}): {param!r} is not an array param in {expr!r}")
                return element_sizes[param]
            if fname in _FUNCTIONS:
                args = [visit(a) for a in node.args]
                if fname == "cdiv" and (len(args) != 2 or args[1] == 0):
                    raise ExprError(f"cdiv takes two args, the second non-zero: {expr!r}")
                if fname in ("min", "max") and not args:
                    raise ExprError(f"{fname}() needs arguments: {expr!r}")
                return _FUNCTIONS[fname](*args)
            raise ExprError(f"unknown function {fname!r} in {expr!r}")
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "shape"
            and isinstance(node.value.value, ast.Name)
        ):
            if shapes is None:
                raise ExprError(f"p.shape[i] is only allowed in shape_symbols: {expr!r}")
            param = node.value.value.id
            if param not in shapes:
                raise ExprError(f"{param!r} is not an array param in {expr!r}")
            index = visit(node.slice)
            if not 0 <= index < len(shapes[param]):
                raise ExprError(f"{param}.shape[{index}] out of range (ndim {len(shapes[param])}) in {expr!r}")
            return shapes[param][index]
        raise ExprError(f"unsupported syntax {ast.dump(node)[:60]} in {expr!r}")

    return visit(_parse(expr))


def names_in(expr: int | str) -> set[str]:
    """Free names of `expr` (without function names and shape-access bases)."""
    if not isinstance(expr, str):
        return set()
    tree = _parse(expr)
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            skip.add(id(node.func))
            if isinstance(node.func, ast.Name) and node.func.id == "esize":
                skip.update(id(a) for a in node.args)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            skip.add(id(node.value))
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in skip}
