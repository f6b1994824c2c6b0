"""``tileir-diff summary FILE``: what a kernel does (tile shapes, memory, reductions, mma, loops)."""
from __future__ import annotations

import argparse
import json


def register(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("summary", help="summarize one kernel (bytecode or text)",
                              description="Summarize a Tile IR kernel: signature, tile shapes, memory ops "
                                          "per view, reductions/scans, mma, loops, assumptions, op counts.")
    p.add_argument("file", metavar="FILE", help=".tileirbc bytecode or tileirdisasm text")
    p.add_argument("-f", "--format", choices=("text", "json"), default="text")
    p.add_argument("-o", "--output", metavar="PATH", help="write to PATH instead of stdout")
    p.add_argument("--no-histogram", action="store_true", help="leave the op histogram out (text)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    from ..api import summarize
    from . import write_output
    summary = summarize(args.file)
    if args.format == "json":
        text = json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
    else:
        from ..report.summary_text import render_kernel
        text = render_kernel(summary, histogram=not args.no_histogram)
    write_output(text, args.output)
    return 0
