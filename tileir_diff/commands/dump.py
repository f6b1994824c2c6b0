"""``tileir-diff dump FILE``: the IR as text (tileirdisasm syntax) or JSON."""
from __future__ import annotations

import argparse

import json


def register(subparsers) -> None:
    from .exit_status import epilog as exit_epilog
    p = subparsers.add_parser("dump", help="print a Tile IR file (bytecode or text) as text or JSON",
                              description="Decode FILE and print it in tileirdisasm's text syntax "
                                          "(default) or as JSON.", epilog=exit_epilog("dump"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", help=".tileirbc bytecode or tileirdisasm text (- reads standard input)")
    from . import add_format_option
    add_format_option(p)
    p.add_argument("-o", "--output", metavar="PATH", help="write here instead of stdout")
    p.set_defaults(func=run)


def run(args) -> int:
    from . import json_indent, read_inputs, write_output
    from ..loader import load
    (source,), (label,) = read_inputs([args.file])
    module = load(source, path=label)
    if args.format == "json":
        from ..ir.to_json import module_to_json
        text = json.dumps(module_to_json(module), indent=json_indent(args)) + "\n"
    else:
        from ..text.printer import print_module
        text = print_module(module)
    write_output(text, args.output)
    return 0
