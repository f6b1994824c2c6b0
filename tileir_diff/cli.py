"""``tileir-diff``: the command line. Parses arguments, dispatches to a subcommand, maps errors
to exit codes (0 same, 1 different, 2 bad input or usage, 3 unknown); no logic of its own.

Subcommands live in their own modules, each with ``register(subparsers)`` setting
``func=run`` (``run(args) -> int``). They import heavy modules (the engine, networkx) inside
``run`` so that ``--help`` and ``summary`` start fast.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Optional, Sequence

from .commands import UsageError

#: Subcommand name -> module, in help order; a missing module (not written yet) is skipped.
SUBCOMMANDS = {"diff": "tileir_diff.commands.diff", "summary": "tileir_diff.commands.summary",
               "dump": "tileir_diff.commands.dump", "suite": "tileir_diff.suite.cli"}

EXIT_OK, EXIT_DIFFERENT, EXIT_USAGE, EXIT_UNKNOWN = 0, 1, 2, 3


def build_parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The parser; with a known ``command`` only that subcommand's module is imported (start-up
    time: the suite command pulls in the catalog and exporter), else all of them (help)."""
    from . import __version__
    parser = argparse.ArgumentParser(
        prog="tileir-diff",
        description="Read CUDA Tile IR (bytecode 13.1-13.5 or tileirdisasm text) and compare kernels structurally.",
        epilog="exit status: 0 identical/equivalent, 1 different, 2 bad input or usage, 3 unknown")
    parser.add_argument("--version", action="version", version=f"tileir-diff {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = [SUBCOMMANDS[command]] if command in SUBCOMMANDS else list(SUBCOMMANDS.values())
    for name in names:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name and name.startswith(e.name):  # the subcommand module itself is absent
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    from .errors import TileIRFormatError
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.func(args) or 0)
    except TileIRFormatError as e:
        # One line, "PATH: offset N: message"; a traceback would bury it.
        print(str(e), file=sys.stderr)
        return EXIT_USAGE
    except UsageError as e:
        print(f"tileir-diff: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `tileir-diff ... | head`
        return EXIT_OK
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
