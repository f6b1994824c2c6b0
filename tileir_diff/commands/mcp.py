"""``tileir-diff mcp``: serve diff, summary, verify and analyze as MCP tools over stdio (docs/agents.md).

The client is not trusted: paths are confined to the workspace root, user code runs only with
--allow-user-code, and every call runs in a worker process with a deadline and memory/CPU limits."""
from __future__ import annotations

import argparse
import os
import textwrap


def register(subparsers) -> argparse.ArgumentParser:
    from .exit_status import epilog as exit_epilog
    description = ("Serve diff, summary, verify and analyze as MCP tools over stdio. The client is not trusted: "
                   "paths are confined to the workspace root, user code runs only with --allow-user-code, and "
                   "every call runs in a worker process with a deadline and memory/CPU limits (threat model: "
                   "docs/agents.md).")
    # wrapped here: the raw formatter keeps the epilog's rows as they are
    p = subparsers.add_parser("mcp", help="Model Context Protocol server over stdio (diff, summary, verify, analyze)",
                              description=textwrap.fill(description, 79), epilog=exit_epilog("mcp"),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", metavar="DIR", default=None,
                   help="workspace root: tool paths are relative to it, and paths outside it (symlinks followed) are "
                        "refused (default: the working directory at start)")
    p.add_argument("--suite", metavar="DIR", default=None,
                   help="the tileir_diff checkout whose reference/ suite analyze and verify serve (default: found as "
                        "the other commands find it: $TILEIR_DIFF_ROOT, this package's checkout, the working directory)")
    p.add_argument("--allow-user-code", action="store_true",
                   help="let verify build and run a caller's kernel_rs, and analyze import a kernel.py outside the "
                        "suite (both still in a worker with the limits below)")
    p.add_argument("--max-jobs", type=int, default=min(4, os.cpu_count() or 1), metavar="N",
                   help="worker processes at once (default: min(4, CPU count))")
    p.add_argument("--max-waiting", type=int, default=16, metavar="N",
                   help="calls that may wait for a worker; past it a call gets a busy error at once (default 16)")
    p.add_argument("--timeout", type=float, default=300.0, metavar="S",
                   help="deadline of a diff, summary or analyze call in seconds, waiting included (default 300)")
    p.add_argument("--verify-timeout", type=float, default=3600.0, metavar="S",
                   help="deadline of a verify call in seconds (default 3600: a first cargo build takes minutes)")
    p.add_argument("--memory-limit", type=int, default=4096, metavar="MIB",
                   help="address-space limit of a diff/summary/analyze worker in MiB (default 4096)")
    p.add_argument("--verify-memory-limit", type=int, default=16384, metavar="MIB",
                   help="data limit (RLIMIT_DATA: heap and private writable memory; CUDA, which the GPU stages open, "
                        "fails under an address-space limit) of a verify worker and the cargo/rustc it runs, in MiB "
                        "(default 16384)")
    p.add_argument("--max-file-size", type=int, default=64, metavar="MIB",
                   help="largest input file a tool reads, in MiB (default 64)")
    p.add_argument("--no-spare-worker", action="store_true",
                   help="start every worker when its call comes (default: one spare worker waits, its imports done, "
                        "so a diff answers in a fraction of a second instead of one to two)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    from . import UsageError
    import importlib.util
    if importlib.util.find_spec("mcp") is None:
        raise UsageError("the MCP server needs the mcp SDK; pip install 'tileir_diff[mcp]'")
    for name in ("max_jobs", "max_waiting", "memory_limit", "verify_memory_limit", "max_file_size"):
        if getattr(args, name) < (0 if name == "max_waiting" else 1):
            raise UsageError(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    for name in ("timeout", "verify_timeout"):
        if not getattr(args, name) > 0:
            raise UsageError(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    try:
        from ..verify.mcp_server import ServerConfig, serve
    except ModuleNotFoundError as e:
        raise UsageError(f"the MCP server needs the mcp SDK ({e}); pip install 'tileir_diff[mcp]'") from None
    from pathlib import Path
    root = Path(args.root) if args.root is not None else Path.cwd()
    if not root.is_dir():
        raise UsageError(f"--root {root}: not a directory")
    suite = Path(args.suite) if args.suite is not None else None
    if suite is not None and not (suite / "reference").is_dir():
        raise UsageError(f"--suite {suite}: no reference/ folder there")
    mib = 1024 * 1024
    config = ServerConfig(root=root, suite=suite, allow_user_code=args.allow_user_code, max_jobs=args.max_jobs,
                          max_waiting=args.max_waiting, timeout_s=args.timeout, verify_timeout_s=args.verify_timeout,
                          memory_bytes=args.memory_limit * mib, verify_memory_bytes=args.verify_memory_limit * mib,
                          max_file_bytes=args.max_file_size * mib, spare_worker=not args.no_spare_worker)
    serve(config)
    return 0
