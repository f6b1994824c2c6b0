"""``tileir-diff diff LEFT RIGHT``: compare two kernels, print a report, exit with the verdict."""
from __future__ import annotations

import argparse
import re

from ..options import EXECUTE_MODES, add_diff_options, diff_kwargs

FORMATS = ("text", "json", "html", "markdown")


def register(subparsers) -> argparse.ArgumentParser:
    from .exit_status import epilog as exit_epilog
    p = subparsers.add_parser(
        "diff", help="structurally compare two kernels (bytecode or text)",
        description="Compare two Tile IR kernels and report root differences.", epilog=exit_epilog("diff"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    # Optional only so that --list-rules works alone; run() insists on both otherwise.
    p.add_argument("left", metavar="LEFT", nargs="?", help="reference kernel: .tileirbc bytecode or tileirdisasm text (- reads standard input)")
    p.add_argument("right", metavar="RIGHT", nargs="?", help="kernel to compare (e.g. the Rust port)")
    p.add_argument("-f", "--format", choices=FORMATS, default="text", help="report format (default: text)")
    p.add_argument("--json", dest="format", action="store_const", const="json", help="the same as -f json")
    p.add_argument("--compact", action="store_true", help="json: on one line, no indentation (with --no-lines: "
                                                          "the smallest report)")
    p.add_argument("-o", "--output", metavar="PATH", help="write the report to PATH instead of stdout")
    p.add_argument("--list-rules", action="store_true", help="list the normalization rules and exit")
    p.add_argument("--accept", metavar="FILE",
                   help="an analysis.json: its accepted_differences are applied to this diff (shown as accepted); "
                        "the exit status counts only the others")
    p.add_argument("--ignore-category", action="append", default=[], metavar="CAT",
                   help="treat root differences of this category (memory, arith, hints, ...: docs/json-format.md) "
                        "as accepted (repeatable or comma-separated): they stay in the report, marked, and the "
                        "exit status counts only the others, as with --accept")
    p.add_argument("--variant", metavar="NAME",
                   help="--accept: the variant compared (default: from the file names, build/rust/<op>/<variant>.tileirbc)")
    p.add_argument("--no-lines", action="store_true",
                   help="json: leave out the printed modules (left_lines/right_lines), most of a report's size")
    p.add_argument("--max-affected", type=int, default=8, metavar="N",
                   help="affected op ids listed per difference in text output (default 8)")
    add_diff_options(p.add_argument, overrides={"execute": {"action": _ExecuteAction}})
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing; only the exit status")
    p.add_argument("--smt-rlimit", type=int, default=None, metavar="N",
                   help="smt-equivalence: the work budget of one proof in z3's resource units (default 10000000, "
                        "about 2 s); past it the pair is undecided, the same on any machine under any load")
    p.add_argument("--smt-timeout", type=float, default=None, metavar="S",
                   help="smt-equivalence: the wall-clock safety net of one proof in seconds (default 60); past it "
                        "the verdict is unknown (time limit: machine too slow/overloaded), never a guess")
    p.add_argument("--launch-fact", action="append", default=[], metavar="EXPR",
                   help="smt-equivalence: a fact of the launch, e.g. 'grid.x == cdiv(arg11, 128) * cdiv(arg12, 128)' "
                        "(repeatable; names arg<k>, bid.x, grid.x; reported when a proof uses it)")
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
        namespace._execute_spill = values, getattr(namespace, "left", None) is not None


def _check_launch_facts(facts) -> None:
    """UsageError unless every ``--launch-fact`` parses (bounded first: the encoder walks the
    fact recursively)."""
    from . import UsageError
    from ..check.smt import launch_fact
    from ..launch.facts import parse_fact
    for text in facts:
        try:
            parse_fact(text)
            launch_fact(text)
        except ValueError as e:
            raise UsageError(str(e)) from None


def run(args: argparse.Namespace) -> int:
    from . import UsageError, check_rule_names, read_inputs, write_output
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
    if args.smt_timeout is not None and not args.smt_timeout > 0:
        raise UsageError(f"--smt-timeout must be positive, got {args.smt_timeout}")
    if args.smt_rlimit is not None and not args.smt_rlimit > 0:
        raise UsageError(f"--smt-rlimit must be positive, got {args.smt_rlimit}")
    if args.launch_fact:  # (the launch package, ctypes included, only when a fact is given)
        _check_launch_facts(args.launch_fact)
    try:
        kwargs = diff_kwargs(lambda name: getattr(args, name))
    except ValueError as e:
        raise UsageError(str(e)) from None
    check_rule_names(list(kwargs["rules"] or ()) + list(kwargs["disable"]))
    if args.smt_timeout is not None:
        kwargs["limits"] = {**(kwargs.get("limits") or {}), "smt_timeout_s": args.smt_timeout}
    if args.smt_rlimit is not None:
        kwargs["limits"] = {**(kwargs.get("limits") or {}), "smt_rlimit": args.smt_rlimit}
    ignored = _ignored_categories(args.ignore_category)
    accept = _accept_plan(args) if args.accept else None
    kwargs["launch"] = list(args.launch_fact) + (accept[2] if accept else [])
    from ..api import diff
    from ..normalize import UnknownRuleError
    try:
        (left, right), labels = read_inputs([args.left, args.right])
        if args.launch_fact:
            left, right = _check_fact_arguments(args.launch_fact, (left, right), labels)
        result = diff(left, right, labels=labels, **kwargs)
    except UnknownRuleError as e:
        # A misspelt or non-optional rule name is a usage error, not a crash.
        raise UsageError(str(e)) from None
    if accept:
        from ..suite.accept import apply_accepted
        result = apply_accepted(result, accept[0], accept[1], args.accept)[0]
    if ignored:
        result = _ignore_categories(result, ignored)
    if not args.quiet:
        import sys
        from ..report import render
        from ..report.color import colorize_report, use_color
        options = {"text": {"max_affected": args.max_affected},
                   "json": {"lines": not args.no_lines, "indent": None if args.compact else 2}}.get(args.format, {})
        text = render(result, args.format, **options)
        if args.format == "text" and args.output in (None, "-") and use_color(args.color, sys.stdout):
            text = colorize_report(text)
        write_output(text, args.output)
    return result.exit_code


def _ignored_categories(values):
    """--ignore-category names, checked (a usage error names the close ones)."""
    from ..report.result import CATEGORIES
    from . import UsageError, split_names
    names = split_names(values)
    for name in names:
        if name not in CATEGORIES:
            import difflib  # only for a name it does not know (start-up time)
            close = difflib.get_close_matches(name, CATEGORIES, n=2)
            hint = f"did you mean {' or '.join(close)}? " if close else ""
            raise UsageError(f"--ignore-category: no category {name!r}; {hint}categories: {', '.join(CATEGORIES)}")
    return names


def _ignore_categories(result, names):
    """Each root difference of a category in ``names`` marked accepted (what: ``the category``,
    why: --ignore-category), the way --accept marks them: the verdict is unchanged, the report
    still shows them, the exit status counts only the others. A difference --accept already
    accepted keeps its reason."""
    import dataclasses
    marked = [d if d.accepted is not None or d.category not in names else
              dataclasses.replace(d, accepted={"what": f"every {d.category} difference",
                                               "why": "ignored on the command line", "file": "--ignore-category"})
              for d in result.differences]
    source = result.accepted_from or "--ignore-category"
    if result.accepted_from and result.accepted_from != "--ignore-category":
        source = f"{result.accepted_from} and --ignore-category"
    return result.replaced(differences=marked, accepted_from=source)


def _check_fact_arguments(facts, sources, labels):
    """The sources (standard input's bytes kept as they are) after checking that every
    ``--launch-fact`` names only integer arguments the compared kernels have: a fact about
    ``arg99`` of a kernel with six arguments means nothing and is refused, naming the valid names."""
    from ..loader import load
    from ..suite.launch_facts import arguments_problem
    from . import UsageError
    modules = [(label, load(src)) for src, label in zip(sources, labels)]
    for text in facts:
        problem = arguments_problem(text, modules)
        if problem:
            raise UsageError(problem)
    return sources


def _accept_plan(args):
    """``(accepted_differences, variant, launch facts)`` of the ``--accept`` analysis.json, read
    once: the variant compared (``--variant``, else the file names) and, for it, the file's
    ``launch_facts`` resolved to the kernel's arguments (as ``suite status`` states them), so that
    ``diff --accept`` reaches the port table's verdict. A file that declares launch facts needs
    the variant and its operator (kernel.py beside it); anything wrong is a usage error."""
    from pathlib import Path
    from ..suite.accept import AcceptFileError, guess_variant, load_accept_file
    from . import UsageError
    try:
        entries, variants, declared = load_accept_file(args.accept, with_launch_facts=True)
    except AcceptFileError as e:
        raise UsageError(str(e)) from None
    if args.variant and variants and args.variant not in variants:
        raise UsageError(f"--variant {args.variant!r} is not a variant of {args.accept} ({', '.join(variants)})")
    variant = args.variant or guess_variant([args.right, args.left], variants)
    if not declared:
        return entries, variant, []
    if variant is None:
        raise UsageError(f"{args.accept} declares launch_facts: say which variant is compared (--variant, one of "
                         f"{', '.join(variants)})")
    from ..suite.catalog import CatalogError, load_op
    from ..suite.launch_facts import LaunchFactError, facts_for
    try:
        spec = load_op(Path(args.accept).parent)
        return entries, variant, facts_for(spec, spec.variant(variant), args.accept)
    except (CatalogError, OSError, KeyError) as e:
        raise UsageError(f"{args.accept}: launch_facts cannot be stated: {e}") from None
    except LaunchFactError as e:
        raise UsageError(f"{args.accept}: {e}") from None


def _rules_listing(width: int = 0) -> str:
    """Every rule in pipeline order: its name (and whether it can be switched off), then its whole
    description as plain text (RST marks removed), wrapped to the terminal."""
    import shutil
    import textwrap
    from ..normalize import REGISTRY
    width = width or min(shutil.get_terminal_size((100, 24)).columns, 100)
    blocks = []
    for name, rule in REGISTRY.items():
        fixed = "" if rule.optional else " (always on)"
        lines = [f"{name}{fixed}"]
        for paragraph in rule.doc().strip().split("\n\n"):
            lines += textwrap.wrap(plain_text(" ".join(paragraph.split())), width, initial_indent="    ",
                                   subsequent_indent="    ")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def plain_text(rst: str) -> str:
    """``x``, `x`, :role:`x` and **x** as x: docstrings are RST, a terminal shows plain text.
    (The patterns are compiled by ``re``'s cache on first use: only ``--list-rules`` needs them.)"""
    text = re.sub(r":[a-z]+:`([^`]*)`", r"\1", rst)
    return re.sub(r"``([^`]*)``|`([^`]*)`|\*\*([^*]*)\*\*", lambda m: next(g for g in m.groups() if g is not None),
                  text)
