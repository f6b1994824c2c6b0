"""Launch facts of an operator (``analysis.json`` ``launch_facts``): what both launchers
guarantee about the grid a kernel runs on, which the IR cannot see.

An entry is ``{"fact": "grid.x == cdiv(c.shape[0], BM) * cdiv(c.shape[1], BN)", "why": ...}``,
optionally with ``"kernels": [...]``, the kernels of the operator it is stated for (every kernel
when absent: a persistent kernel's grid is not its one-tile sibling's): one comparison over ``grid.x``/``grid.y``/``grid.z``, array extents ``<param>.shape[d]``, the
variant's integer constants, integers, ``+ - * // %``, ``cdiv``, ``min``, ``max``. For one
variant it resolves to the kernel's own entry arguments (``arg11`` is ``c.shape[0]`` in the
Python kernel's calling convention, ``tileir_diff.launch.abi.argument_words``: per array its
base, then its extents, then its strides; per scalar one word), the form the proof step takes (``check.smt.launch_fact``).

The proof uses a fact only as stated; tests/suite/test_launch_facts.py checks that the Python
reference launcher (``tileir_diff.launch``) and the Rust C ABI (through the fake driver of
tests/rust/test_fake_driver.py) launch a grid that satisfies it, over a set of shapes.
"""
from __future__ import annotations

import ast
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from tileir_diff.launch.abi import argument_words
from tileir_diff.launch.facts import LAUNCH_NAMES, LaunchFactSyntaxError, fact_arguments, parse_fact, shown

_EXTENT = re.compile(r"\b([A-Za-z_]\w*)\.shape\[(\d+)\]")
_NAME = re.compile(r"\b([A-Za-z_]\w*)\b")


class LaunchFactError(ValueError):
    """A launch fact that does not resolve for a variant (unknown array, dim, or name)."""


def argument_layout(variant) -> Dict[Tuple[str, str, int], int]:
    """``(param, "ptr"|"shape"|"stride"|"scalar", dim) -> entry argument index`` of the Python
    kernel (the calling convention of tileir_diff.launch.abi)."""
    return {word: k for k, word in enumerate(argument_words(variant.params))}


def resolve(fact: str, variant) -> str:
    """``fact`` in the kernel's entry arguments and numbers: ``grid.x == cdiv(arg11, 128) * ...``."""
    layout = argument_layout(variant)

    def extent(m):
        key = (m.group(1), "shape", int(m.group(2)))
        if key not in layout:
            raise LaunchFactError(f"launch fact {fact!r}: {m.group(0)} is not an extent of an array of "
                                  f"variant {variant.name}")
        return f"arg{layout[key]}"
    text = _EXTENT.sub(extent, fact)
    constants = {k: v for k, v in variant.constants.items() if isinstance(v, (int, bool))}

    def name(m):
        n = m.group(1)
        if n in constants:
            return str(int(constants[n]))
        if n in ("grid", "x", "y", "z", "cdiv", "min", "max") or re.fullmatch(r"arg\d+", n):
            return n
        raise LaunchFactError(f"launch fact {fact!r}: {n!r} is neither an array extent nor an integer constant "
                              f"of variant {variant.name}")
    return _NAME.sub(name, text)


def applies(entry: Mapping[str, Any], variant) -> bool:
    """Whether the fact ``entry`` is stated for ``variant``'s kernel (its ``kernels``, else every kernel)."""
    kernels = entry.get("kernels")
    return kernels is None or variant.kernel in kernels


def facts_for(spec, variant, source: str) -> List[Tuple[str, str]]:
    """``(resolved fact, origin)`` for the proof step (``compute_diff(..., launch=...)``): the
    facts stated for the variant's kernel; the origin names the declaration and says it is an
    assumption the IR does not hold."""
    return [(resolve(e["fact"], variant),
             f"declared as {e['fact']} in {source} launch_facts, not in the IR; both launchers checked "
             f"against it: tests/suite/test_launch_facts.py, the Python reference launcher, and "
             f"tests/rust/test_launch_facts_rust.py, the Rust C ABI") for e in spec.launch_facts if applies(e, variant)]


def holds(resolved: str, arguments: Sequence[int], grid: Sequence[int]) -> bool:
    """Whether a resolved fact holds for one launch: the entry argument words and the grid."""
    env: Dict[str, Any] = {f"arg{k}": int(v) for k, v in enumerate(arguments)}

    def val(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name) and n.id in env:
            return env[n.id]
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "grid":
            return int(grid["xyz".index(n.attr)])
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -val(n.operand)
        if isinstance(n, ast.BinOp):
            a, b = val(n.left), val(n.right)
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.FloorDiv: lambda: a // b, ast.Mod: lambda: a % b}
            if type(n.op) in ops:
                return ops[type(n.op)]()
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and len(n.args) == 2:
            a, b = val(n.args[0]), val(n.args[1])
            if n.func.id == "cdiv":
                return -((-a) // b)
            if n.func.id in ("min", "max"):
                return (min if n.func.id == "min" else max)(a, b)
        raise LaunchFactError(f"launch fact {resolved!r}: cannot evaluate {ast.dump(n)[:40]}")

    try:
        tree = parse_fact(resolved)  # bounded: val recurses at most MAX_FACT_DEPTH levels
    except LaunchFactSyntaxError as e:
        raise LaunchFactError(str(e)) from None
    a, b = val(tree.left), val(tree.comparators[0])
    return {ast.Eq: a == b, ast.Lt: a < b, ast.LtE: a <= b, ast.Gt: a > b, ast.GtE: a >= b}[type(tree.ops[0])]


def entry_problem(entry: Any, kernels: Optional[Sequence[str]] = None) -> Optional[str]:
    """Why a ``launch_facts`` item is malformed (None when it is well formed); ``kernels``: the
    operator's kernel names, which an item's ``kernels`` must be among."""
    if not isinstance(entry, dict) or not {"fact", "why"} <= set(entry) <= {"fact", "why", "kernels"} or not all(
            isinstance(entry[k], str) and entry[k] for k in ("fact", "why")):
        return "expected an object with fact and why (non-empty strings) and optionally kernels"
    if "kernels" in entry:
        named = entry["kernels"]
        if not isinstance(named, list) or not named or not all(isinstance(k, str) and k for k in named):
            return "kernels: expected a non-empty list of kernel names"
        unknown = [k for k in named if kernels is not None and k not in kernels]
        if unknown:
            return f"kernels: {shown(unknown[0])} is not a kernel of the operator ({', '.join(kernels or ())})"
    return None


def check_against(spec_facts: Sequence[Mapping[str, str]], variant) -> None:
    """Resolve and parse every fact for ``variant`` (LaunchFactError naming the first problem)."""
    from ..check import smt
    for e in spec_facts:
        text = resolve(e["fact"], variant)
        try:
            parse_fact(text)
            smt.launch_fact(text)
        except (ValueError, SyntaxError) as exc:
            raise LaunchFactError(str(exc)) from None


def integer_arguments(function) -> List[int]:
    """The entry arguments of ``function`` a fact may name: integers of at most 32 bits (what the
    proof step reads an ``arg<k>`` as)."""
    out = []
    for k, a in enumerate(function.arguments):
        element = getattr(a.type, "element", None)
        if getattr(a.type, "shape", None) == () and element is not None and getattr(element, "is_int", False) \
                and element.width <= 32:
            out.append(k)
    return out


def arguments_problem(text: str, modules: Sequence[Tuple[str, Any]]) -> Optional[str]:
    """Why the fact ``text`` means nothing for the compared kernels (None when it may hold): it
    is outside the grammar, or it names an ``arg<k>`` that is not an integer argument of at most
    32 bits of every entry function of every module (``(label, module)`` pairs). The message
    names the valid names."""
    try:
        tree = parse_fact(text)
    except LaunchFactSyntaxError as e:
        return str(e)
    wanted = fact_arguments(tree)
    for label, module in modules:
        for f in module.functions:
            if not f.is_entry:
                continue
            valid = integer_arguments(f)
            missing = [k for k in wanted if k not in valid]
            if missing:
                names = ", ".join(f"arg{k}" for k in valid) or "none"
                return (f"launch fact {shown(text)}: arg{missing[0]} is not an integer argument of at most 32 "
                        f"bits of @{f.name} in {label} (its integer arguments: {names}; and "
                        f"{', '.join(LAUNCH_NAMES)})")
    return None
