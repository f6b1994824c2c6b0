"""``tileir-diff summary FILE``: what a kernel does (tile shapes, memory, reductions, mma, loops)."""
from __future__ import annotations

import argparse
import json


def register(subparsers) -> argparse.ArgumentParser:
    from .exit_status import epilog as exit_epilog
    p = subparsers.add_parser("summary", help="summarize one kernel (bytecode or text)",
                              description="Summarize a Tile IR kernel: signature, tile shapes, memory ops "
                                          "per view, reductions/scans, mma, loops, assumptions, op counts.", epilog=exit_epilog("summary"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", help=".tileirbc bytecode or tileirdisasm text (- reads standard input)")
    from . import add_format_option
    add_format_option(p)
    p.add_argument("-o", "--output", metavar="PATH", help="write to PATH instead of stdout")
    p.add_argument("--no-histogram", action="store_true", help="leave the op histogram out (text)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    from ..api import summarize
    from . import json_indent, read_inputs, write_output
    (source,), (label,) = read_inputs([args.file])
    summary = summarize(source, label=label)
    if args.format == "json":
        text = json_text(summary, indent=json_indent(args, 2))
    else:
        from ..report.summary_text import render_kernel
        text = render_kernel(summary, histogram=not args.no_histogram)
    write_output(text, args.output)
    return 0


def json_text(doc, indent=2) -> str:
    """``doc`` as readable JSON (non-ASCII kept) with nothing a terminal would interpret
    (report.common.escape_json_text, the one place for it)."""
    from ..report.common import escape_json_text
    return escape_json_text(json.dumps(doc, indent=indent, ensure_ascii=False)) + "\n"
