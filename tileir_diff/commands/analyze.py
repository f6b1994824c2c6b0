"""``tileir-diff analyze reference/<op>/kernel.py``: which ct.Constant parameters change the IR
structure, the structural variants a port must declare, checked against the op's analysis.json.

Exit statuses: ``exit_status.EXIT_STATUS["analyze"]`` (shown by ``--help``).
"""
from __future__ import annotations

import argparse
import json
import sys


def register(subparsers) -> argparse.ArgumentParser:
    from .exit_status import epilog as exit_epilog
    p = subparsers.add_parser("analyze", help="structural variants of a reference kernel (ct.Constant combinations)",
                              description=__doc__.splitlines()[0], epilog=exit_epilog("analyze"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kernel", metavar="KERNEL_PY", help="reference/<op>/kernel.py (analysis.json beside it)")
    from . import add_format_option
    add_format_option(p, json_alias=True)  # json: the versioned report (commands/schemas/analyze.schema.json)
    p.add_argument("-o", "--output", metavar="PATH", help="also write the JSON report to PATH")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from . import UsageError, json_indent, write_output
    from ..errors import printable
    from ..verify.analyze import AnalyzeError, analyze
    progress = (lambda s: None) if args.quiet else (lambda s: print(s, file=sys.stderr, flush=True))
    try:
        result = analyze(Path(args.kernel), progress=progress)
    except AnalyzeError as e:
        raise UsageError(str(e)) from None
    data = result.to_dict()
    text = json.dumps(data, indent=json_indent(args)) + "\n"
    if args.output:
        write_output(text, args.output)
    if args.format == "json":
        write_output(text, None)
    else:
        lines = [f"{result.op}: {len(result.combinations)} combinations exported in {result.seconds:.1f}s"]
        for kernel, consts in sorted(result.constants.items()):
            if kernel in result.unused_kernels:
                continue
            parts = ", ".join(f"{n}: {kind}" for n, kind in sorted(consts.items())) or "no constants"
            lines.append(f"  {kernel}: {parts}")
        for g in result.structural_variants:
            declared = ", ".join(g["declared_variants"]) or "(none declared)"
            lines.append(f"  structure {g['skeleton']} of {g['kernel']}: {declared}")
        check = data["check"]
        for u in check["undeclared"]:
            lines.append(f"  UNDECLARED {u['kernel']} {u['skeleton']}: {u['explanation']}")
        for failure in check["export_errors"]:
            lines.append(f"  export failed: {failure['kernel']} {failure['constants']}: {failure['error']}")
        if result.unused_kernels:
            lines.append(f"  kernels no variant uses: {', '.join(result.unused_kernels)}")
        lines.append(f"  {check['declared_groups']} declared structure(s), {check['reached_groups']} reached: "
                     f"{'reproduced' if check['reproduced'] else 'NOT reproduced'}")
        write_output("\n".join(printable(line) for line in lines) + "\n", None)
    return 0 if data["check"]["reproduced"] else 1
