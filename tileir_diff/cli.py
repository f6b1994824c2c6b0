"""``tileir-diff``: the command line. Parses arguments, dispatches to a subcommand, maps errors
to exit codes (commands/exit_status.py: the one table help and docs/cli.md show); no logic of
its own. Every failure is one line on stderr: ``PATH: offset N: message`` for bad input,
``tileir-diff: internal error: ...`` for a bug (``TILEIR_DEBUG=1`` adds the traceback), never a
traceback that could be read as a verdict.

Subcommands live in their own modules, each with ``register(subparsers)`` setting
``func=run`` (``run(args) -> int``). They import heavy modules (the engine, networkx) inside
``run`` so that ``--help`` and ``summary`` start fast.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Optional, Sequence

from .commands import OutputError, UsageError

#: Subcommand name -> module, in help order; a missing module (not written yet) is skipped.
SUBCOMMANDS = {"diff": "tileir_diff.commands.diff", "summary": "tileir_diff.commands.summary",
               "dump": "tileir_diff.commands.dump", "suite": "tileir_diff.suite.command",
               "verify": "tileir_diff.commands.verify", "analyze": "tileir_diff.commands.analyze",
               "mcp": "tileir_diff.commands.mcp"}

EXIT_OK, EXIT_DIFFERENT, EXIT_USAGE, EXIT_UNKNOWN = 0, 1, 2, 3
#: A bug in tileir-diff (BSD sysexits EX_SOFTWARE): never the status of a verdict.
EXIT_INTERNAL = 70


def build_parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The parser; with a known ``command`` only that subcommand's module is imported (start-up
    time: the suite command pulls in the catalog and exporter), else all of them (help)."""
    from . import __version__
    from .commands.exit_status import attach_nested_epilogs, top_level_epilog
    parser = argparse.ArgumentParser(
        prog="tileir-diff",
        description="Read CUDA Tile IR (bytecode 13.1-13.5 or tileirdisasm text) and compare kernels structurally.",
        epilog=top_level_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"tileir-diff {__version__}")
    add_color_option(parser, default="auto")
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
    for sub in subparsers.choices.values():  # also after the subcommand: `tileir-diff diff --color=never`
        add_color_option(sub, default=argparse.SUPPRESS)
    attach_nested_epilogs(parser)  # `suite status --help` etc.: their rows of the one table
    return parser


def add_color_option(parser: argparse.ArgumentParser, default) -> None:
    from .report.color import COLOR_MODES
    parser.add_argument("--color", choices=COLOR_MODES, default=default,
                        help="colour the output: auto (a terminal, unless NO_COLOR is set; the default), "
                             "always, never")


def innermost_parser(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.ArgumentParser:
    """The (sub)parser the command line got to (``tileir-diff suite export``'s for
    ``suite export ...``), so that an error shows that command's usage, not the top-level one."""
    current = parser
    rest = list(argv)
    while True:
        actions = [a for a in current._actions if isinstance(a, argparse._SubParsersAction)]
        if not actions:
            return current
        names = actions[0].choices
        chosen = next((i for i, x in enumerate(rest) if x in names), None)
        if chosen is None:
            return current
        current = names[rest[chosen]]
        rest = rest[chosen + 1:]


def _command(argv: Sequence[str]) -> Optional[str]:
    """The subcommand named on a command line (its first word that is not an option)."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: Optional[Sequence[str]] = None) -> int:
    from .errors import TileIRFormatError, printable
    argv = list(sys.argv[1:] if argv is None else argv)
    command = _command(argv)
    parser = build_parser(command)
    args, extra = parser.parse_known_args(argv)
    if extra:  # argparse would blame the top-level parser; the subcommand's usage is the helpful one
        innermost_parser(parser, argv).error(f"unrecognized arguments: {' '.join(extra)}")
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.func(args) or 0)
    except TileIRFormatError as e:
        # One line, "PATH: offset N: message"; a traceback would bury it.
        _stderr_line(str(e))
        return EXIT_USAGE
    except OutputError as e:  # the arguments were right: no usage, one line
        _stderr_line(printable(f"{innermost_parser(parser, argv).prog}: error: {e}"))
        return EXIT_USAGE
    except UsageError as e:
        sub = innermost_parser(parser, argv)
        _stderr_line(sub.format_usage().rstrip("\n"))
        _stderr_line(printable(f"{sub.prog}: error: {e}"))
        return EXIT_USAGE
    except BrokenPipeError:  # `tileir-diff ... | head`
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - a bug: its own status and one line, never a verdict
        return internal_error(e)


def internal_error(e: BaseException) -> int:
    """Report a bug: one stderr line (the traceback too with TILEIR_DEBUG=1), status 70."""
    import os
    from .errors import printable
    if os.environ.get("TILEIR_DEBUG", "") not in ("", "0"):
        import traceback
        traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)
    detail = str(e)
    if len(detail) > 300:
        detail = detail[:300] + "..."
    _stderr_line(printable(f"tileir-diff: internal error: {type(e).__name__}: {detail} "
                           "(a bug in tileir-diff, not a verdict; TILEIR_DEBUG=1 shows the traceback)"))
    return EXIT_INTERNAL


def _stderr_line(line: str) -> None:
    try:
        print(line, file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed: the status still tells
        pass


#: Commands that leave nothing for the interpreter's exit to do once ``main`` returns: no
#: temporary folder, pool or thread outlives them (``run`` ends these processes at once).
_QUICK_EXIT = frozenset({"diff", "dump", "summary"})


def run() -> None:
    """The command's entry point (the console script and ``python -m tileir_diff.cli``): ``main``,
    then for the commands of ``_QUICK_EXIT`` an exit that skips the interpreter's teardown. What
    they write is written and flushed by then; freeing every module and object at exit costs
    ~40 M instructions, 8 % of a whole-process diff of a port pair (docs/performance.md).

    Those commands also run with the cycle collector paused (gc_pause.py): what they build lives
    until the exit, and the collections their imports and reports would trigger (each young
    collection traverses what the imports made so far) cost ~20 M instructions of a 3,015-op diff."""
    if _command(sys.argv[1:]) not in _QUICK_EXIT:
        sys.exit(main())
    from .gc_pause import gc_paused
    with gc_paused():
        code = main()
    import os
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: the status still tells
            pass
    os._exit(code)


if __name__ == "__main__":
    run()
