"""The comparison options, declared once and shared by the CLI (``tileir-diff diff --rules``)
and the pytest plugin (``--tileir-rules``), the way pytest-benchmark's option groups serve both
its plugin and its console script: one name, help text and default per option, and one function
turning parsed values into ``tileir_diff.diff`` keyword arguments."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

EXECUTE_MODES = ("auto", "always")

#: option name (without prefix) -> argparse keyword arguments. Order = help order.
DIFF_OPTIONS: Dict[str, Dict[str, Any]] = {
    "rules": dict(action="append", metavar="RULE", default=None,
                  help="run only these normalization rules (repeatable, or comma-separated)"),
    "disable": dict(action="append", metavar="RULE", default=[],
                    help="switch off a normalization rule (repeatable, or comma-separated)"),
    "execute": dict(nargs="?", const="auto", default=None, metavar="MODE",
                    help="run both kernels with the CPU interpreter on generated inputs and report a "
                         "counterexample (see docs/interpreter.md). MODE auto (the default of a bare "
                         "--execute): only for a different/unknown verdict; always: for every verdict, and a "
                         "divergence on an identical/equivalent pair makes the verdict different"),
    "trials": dict(type=int, default=20, metavar="N", help="--execute: inputs to try (default 20)"),
    "seed": dict(type=int, default=0, metavar="S", help="--execute: random seed (default 0)"),
}


def add_diff_options(add_argument: Callable[..., Any], prefix: str = "",
                     overrides: Optional[Dict[str, Dict[str, Any]]] = None) -> None:
    """Declare every comparison option through ``add_argument`` (argparse's, or a pytest option
    group's ``addoption``) as ``--{prefix}{name}``; ``overrides`` replaces keyword arguments of one
    option (the CLI's ``--execute`` parses a following kernel path specially)."""
    for name, spec in DIFF_OPTIONS.items():
        kwargs = dict(spec, **(overrides or {}).get(name, {}))
        if prefix:  # pytest option names are global: keep the dest unambiguous
            kwargs["dest"] = f"{prefix.replace('-', '_')}{name}"
        add_argument(f"--{prefix}{name}", **kwargs)


def split_names(values: Optional[List[str]]) -> List[str]:
    """``--disable a,b --disable c`` -> ["a", "b", "c"]."""
    out: List[str] = []
    for v in values or ():
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def diff_kwargs(get: Callable[[str], Any]) -> Dict[str, Any]:
    """``tileir_diff.diff`` keyword arguments from parsed options; ``get(name)`` reads one option
    by its unprefixed name. Raises ValueError for a value no comparison can use."""
    rules = get("rules")
    execute = get("execute")
    if execute is not None and execute not in EXECUTE_MODES:
        raise ValueError(f"execute mode must be one of {', '.join(EXECUTE_MODES)}, got {execute!r}")
    trials = get("trials")
    if trials < 1:
        raise ValueError(f"--trials must be at least 1, got {trials}")
    return {"rules": split_names(rules) if rules is not None else None, "disable": split_names(get("disable")),
            "execute": execute, "trials": trials, "seed": get("seed")}
