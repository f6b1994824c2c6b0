"""``tileir-diff diff LEFT RIGHT``: compare two kernels, print a report, exit with the verdict."""
from __future__ import annotations

import argparse

from ..options import EXECUTE_MODES, add_diff_options, diff_kwargs

FORMATS = ("text", "json", "html", "markdown")


def register(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "diff", help="structurally compare two kernels (bytecode or text)",
        description="Compare two Tile IR kernels and report root differences. Exit status: 0 identical "
                    "or equivalent, 1 different, 2 bad input or usage, 3 unknown (matcher limits hit).")
    # Optional only so that --list-rules works alone; run() insists on both otherwise.
    p.add_argument("left", metavar="LEFT", nargs="?", help="reference kernel: .tileirbc bytecode or tileirdisasm text")
    p.add_argument("right", metavar="RIGHT", nargs="?", help="kernel to compare (e.g. the Rust port)")
    p.add_argument("-f", "--format", choices=FORMATS, default="text", help="report format (default: text)")
    p.add_argument("-o", "--output", metavar="PATH", help="write the report to PATH instead of stdout")
    p.add_argument("--list-rules", action="store_true", help="list the normalization rules and exit")
    p.add_argument("--max-affected", type=int, default=8, metavar="N",
                   help="affected op ids listed per difference in text output (default 8)")
    add_diff_options(p.add_argument, overrides={"execute": {"action": _ExecuteAction}})
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing; only the exit status")
    p.set_defaults(func=run)
    return p



class _ExecuteAction(argparse.Action):
    """``--execute[=MODE]``. A bare ``--execute`` followed by the kernel paths (``--execute A B``)
    would hand A to the option: a value that is not a mode but an existing file is kept as the
    first input instead."""

    def __call__(self, parser, namespace, values, option_string=None):
        if values is None or values in EXECUTE_MODES:
            setattr(namespace, self.dest, values or "auto")
            return
        import os
        if not os.path.exists(values):
            parser.error(f"argument --execute: {values!r} is neither a mode (auto, always) nor a kernel file")
        setattr(namespace, self.dest, "auto")
        # `A --execute B`: A is already the first input when the option takes B
        setattr(namespace, "_execute_spill", (values, getattr(namespace, "left", None) is not None))


def run(args: argparse.Namespace) -> int:
    from . import UsageError, write_output
    spill = getattr(args, "_execute_spill", None)
    if spill:
        # `--execute LEFT RIGHT` (LEFT went to --execute, RIGHT to the first positional) or
        # `LEFT --execute RIGHT` (RIGHT went to --execute)
        value, after_left = spill
        given = [x for x in (args.left, args.right) if x is not None]
        both = given + [value] if after_left else [value] + given
        if len(both) > 2:
            raise UsageError(f"diff takes two inputs, got {len(both)}: {' '.join(both)}")
        args.left, args.right = (both + [None, None])[:2]
    if args.list_rules:
        write_output(_rules_listing(), None)
        return 0
    if args.left is None or args.right is None:
        raise UsageError("diff needs two inputs: tileir-diff diff LEFT RIGHT")
    try:
        kwargs = diff_kwargs(lambda name: getattr(args, name))
    except ValueError as e:
        raise UsageError(str(e)) from None
    from ..api import diff
    from ..normalize import UnknownRuleError
    try:
        result = diff(args.left, args.right, **kwargs)
    except UnknownRuleError as e:
        # A misspelt or non-optional rule name is a usage error, not a crash.
        raise UsageError(str(e)) from None
    if not args.quiet:
        from ..report import render
        options = {"max_affected": args.max_affected} if args.format == "text" else {}
        write_output(render(result, args.format, **options), args.output)
    return result.exit_code


def _rules_listing() -> str:
    """One line per rule, in pipeline order: name, whether it can be switched off, its summary."""
    from ..normalize import REGISTRY
    lines = []
    for name, rule in REGISTRY.items():
        first_paragraph = " ".join(rule.doc().split("\n\n")[0].split())
        sentence = first_paragraph.split(". ")[0].rstrip(".")
        fixed = "" if rule.optional else " (always on)"
        if len(sentence) > 100:
            sentence = sentence[:99].rstrip() + "…"
        lines.append(f"{name + fixed:34s} {sentence}")
    return "\n".join(lines) + "\n"
