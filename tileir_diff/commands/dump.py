"""``tileir-diff dump FILE``: the IR as text (tileirdisasm syntax) or JSON; ``--normalized``: as
the normalization rules leave it (what the HTML report's hatched "absorbed" rows were folded into)."""
from __future__ import annotations

import argparse

import json


def register(subparsers) -> None:
    from .exit_status import epilog as exit_epilog
    from ..options import DIFF_OPTIONS
    p = subparsers.add_parser("dump", help="print a Tile IR file (bytecode or text) as text or JSON",
                              description="Decode FILE and print it in tileirdisasm's text syntax "
                                          "(default) or as JSON.", epilog=exit_epilog("dump"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", help=".tileirbc bytecode or tileirdisasm text (- reads standard input)")
    from . import add_format_option
    add_format_option(p)
    p.add_argument("-o", "--output", metavar="PATH", help="write here instead of stdout")
    p.add_argument("--normalized", action="store_true",
                   help="print the module after the normalization rules, run on this file alone (in a diff, a "
                        "rule that declines one side's function is applied to neither: docs/matching.md)")
    for name in ("rules", "disable"):  # the same spelling, help and defaults as diff's
        p.add_argument(f"--{name}", **dict(DIFF_OPTIONS[name], help="--normalized: " + DIFF_OPTIONS[name]["help"]))
    p.set_defaults(func=run)


def run(args) -> int:
    from . import UsageError, check_rule_names, json_indent, read_inputs, split_names, write_output
    from ..loader import load
    rules = split_names(args.rules) if args.rules is not None else None
    disable = split_names(args.disable)
    if (rules is not None or disable) and not args.normalized:
        raise UsageError("--rules and --disable choose the rules of --normalized; add it")
    check_rule_names(list(rules or ()) + disable)
    (source,), (label,) = read_inputs([args.file])
    module = load(source, path=label)
    if args.normalized:
        from ..normalize import UnknownRuleError, normalize
        try:
            module, _ = normalize(module, rules, disable)
        except UnknownRuleError as e:  # a rule that cannot be switched off
            raise UsageError(str(e)) from None
    if args.format == "json":
        from ..ir.to_json import module_to_json
        text = json.dumps(module_to_json(module), indent=json_indent(args)) + "\n"
    else:
        from ..text.printer import print_module
        text = print_module(module)
    write_output(text, args.output)
    return 0
