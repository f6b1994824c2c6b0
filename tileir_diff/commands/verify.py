"""``tileir-diff verify OP [VARIANT]``: verify a cuTile Rust port stage by stage (docs/agents.md).

Exit statuses: ``exit_status.EXIT_STATUS["verify"]`` (shown by ``--help``).
"""
from __future__ import annotations

import argparse
import sys


def register(subparsers) -> argparse.ArgumentParser:
    from ..verify.stages import STAGES
    from .exit_status import epilog
    p = subparsers.add_parser("verify", help="verify a cuTile Rust port: cargo test, IR, tileiras, ABI, numerics, perf",
                              description=__doc__.splitlines()[0], epilog=epilog("verify"),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("op", metavar="OP", help="reference operator (reference/OP, rust_kernels/src/ops/OP)")
    p.add_argument("variant", metavar="VARIANT", nargs="?", help="only this analysis.json variant")
    from . import add_format_option
    add_format_option(p, json_alias=True)  # json: the versioned report (tileir_diff/verify/verify.schema.json)
    p.add_argument("--stages", metavar="LIST", help=f"comma-separated stage names or numbers (default all: "
                                                   f"{','.join(STAGES)})")
    p.add_argument("--max-attempts", type=int, default=1, metavar="N", help="attempts with --repair-command (default 1)")
    p.add_argument("--repair-command", metavar="CMD",
                   help="run CMD with the failed attempt's JSON on stdin; its stdout is the new kernel.rs "
                        "(or {\"files\": {...}}); empty output gives up")
    p.add_argument("--root", metavar="DIR", help="the tileir_diff checkout holding reference/ and rust_kernels/ "
                                                 "(default: $TILEIR_DIFF_ROOT, else the checkout this runs from)")
    p.add_argument("--workdir", metavar="DIR", help="cache, crate copy and diagnostics (default <root>/build/verify)")
    p.add_argument("--kernel", metavar="PATH", help="verify this kernel.rs instead of the crate's (on a copy)")
    p.add_argument("--no-cache", action="store_true",
                   help="compute every stage again instead of reusing cached results (fresh results are stored)")
    p.add_argument("--ir-first", action="store_true",
                   help="run ir_compare before cargo_test: about a second once the crate is built, where the "
                        "op's Rust tests take minutes")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=run)
    return p


def use_root(root: str) -> None:
    """``--root DIR``: DIR (checked to be a checkout) is the root every part of the run finds, the
    stages' subprocesses included (they read $TILEIR_DIFF_ROOT, the same as the hint says)."""
    import os

    from ..paths import ROOT_ENV, RootNotFound, require_root
    from . import UsageError
    try:
        found = require_root(root)
    except RootNotFound as e:
        raise UsageError(str(e)) from None
    os.environ[ROOT_ENV] = str(found)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from . import UsageError, split_names
    from ..verify import VerifyUsageError, command_repair, verify_port
    if args.root is not None:
        use_root(args.root)
    sources = None
    if args.kernel:
        try:
            sources = {"kernel.rs": Path(args.kernel).read_text(encoding="utf-8")}
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"cannot read {args.kernel}: {e}") from None
    progress = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    try:
        report = verify_port(args.op, args.variant, stages=split_names([args.stages]) if args.stages else None,
                             max_attempts=args.max_attempts,
                             repair=command_repair(args.repair_command) if args.repair_command else None,
                             workdir=Path(args.workdir) if args.workdir else None, sources=sources, progress=progress,
                             use_cache=not args.no_cache, ir_first=args.ir_first)
    except VerifyUsageError as e:
        raise UsageError(str(e)) from None
    if args.format == "json":
        import json

        from . import json_indent
        sys.stdout.write(json.dumps(report.to_dict(), indent=json_indent(args)) + "\n")
    else:  # reasons quote test output and compiler messages: no terminal control characters
        from ..errors import printable
        sys.stdout.write("".join(printable(line) + "\n" for line in report.to_text().splitlines()))
    return report.exit_code
