"""The exit statuses of every command, in one table: the help epilogs are made from it and
docs/cli.md's tables are checked against it (tests/cli/test_exit_status.py), so help, docs and
program cannot drift apart. The verdict statuses themselves come from ``report.result.EXIT_CODES``
(the test checks that the rows agree)."""
from __future__ import annotations

from typing import Dict, List, Tuple

#: status (as shown: "0", "0 (--accept)") -> meaning; per command, in the order shown.
EXIT_STATUS: Dict[str, List[Tuple[str, str]]] = {
    "diff": [
        ("0", "identical or equivalent"),
        ("1", "different"),
        ("2", "bad input or usage (one line on stderr)"),
        ("3", "unknown: the matcher hit a limit; the report says which"),
        ("4", "specialized: the same computation under other assumptions or hints"),
        ("0 (--accept)", "different or specialized, but every root difference is accepted by the analysis.json"),
        ("70", "internal error: a bug in tileir-diff, never a verdict (TILEIR_DEBUG=1 prints the traceback)"),
    ],
    "summary": [
        ("0", "summarized"),
        ("2", "bad input or usage"),
        ("70", "internal error (a bug)"),
    ],
    "dump": [
        ("0", "printed"),
        ("2", "bad input or usage"),
        ("70", "internal error (a bug)"),
    ],
    "verify": [
        ("0", "no stage failed and at least one passed (skipped stages give their reason)"),
        ("1", "a stage failed (an environment failure says what is missing), or the repair loop did not converge"),
        ("2", "bad usage: unknown op, variant or stage; no repository"),
        ("3", "every selected stage was skipped here: nothing verified, nothing claimed"),
        ("70", "internal error (a bug)"),
    ],
    "analyze": [
        ("0", "analysis.json declares every structure the ct.Constant combinations reach"),
        ("1", "a structure is undeclared (each listed with the assignment that reaches it)"),
        ("2", "bad usage or input: no analysis.json beside the kernel, cuda.tile missing, an unreadable kernel"),
        ("70", "internal error (a bug)"),
    ],
    "mcp": [
        ("0", "the client closed the connection"),
        ("2", "bad options, or the mcp SDK missing (pip install 'tileir_diff[mcp]')"),
        ("70", "internal error (a bug)"),
    ],
    # the suite's subcommands (suite/command.py; their help gets these rows from cli.build_parser)
    "suite list": [
        ("0", "listed"),
        ("2", "bad usage or catalog: no checkout (pass --root DIR or set TILEIR_DIFF_ROOT), an invalid analysis.json"),
        ("70", "internal error (a bug)"),
    ],
    "suite export": [
        ("0", "every variant exported (bytecode and the cubins asked for)"),
        ("1", "a variant failed to export or compile (each listed with its error)"),
        ("2", "bad usage or catalog; cuda-tile or tileiras missing (pip install -e .[tools]); no such variant"),
        ("70", "internal error (a bug)"),
    ],
    "suite status": [
        ("0", "every ported variant passes (identical, equivalent, or only accepted differences)"),
        ("1", "a ported variant fails"),
        ("2", "bad usage or catalog: no checkout (pass --root DIR or set TILEIR_DIFF_ROOT); an unwritable output"),
        ("3", "nothing is built: no port IR for any variant, so nothing was compared and nothing is claimed"),
        ("70", "internal error (a bug)"),
    ],
    "suite sass": [
        ("0", "every ported variant with cubins compared (identical or different SASS)"),
        ("1", "a tool or a cubin failed for a variant"),
        ("2", "bad usage or catalog; nvdisasm or cuobjdump missing; an unwritable -o PATH"),
        ("70", "internal error (a bug)"),
    ],
}


def epilog(command: str) -> str:
    """The help epilog of ``command``: one status per line (argparse keeps the lines with
    RawDescriptionHelpFormatter)."""
    rows = EXIT_STATUS[command]
    width = max(len(status) for status, _ in rows)
    return "exit status:\n" + "\n".join(f"  {status:<{width}}  {meaning}" for status, meaning in rows)


def attach_nested_epilogs(parser) -> None:
    """Give each nested subcommand with rows here (``suite status``, ...) its exit-status epilog:
    the suite's parsers are built in suite/command.py, a layer below this table."""
    import argparse
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        for name, sub in action.choices.items():
            command = f"{parser.prog.split(' ', 1)[-1]} {name}" if " " in parser.prog else name
            if command in EXIT_STATUS and " " in command:
                import textwrap  # (only the suite's parsers get here: not a diff's start-up)
                sub.epilog = epilog(command)
                sub.formatter_class = argparse.RawDescriptionHelpFormatter  # keeps the rows; so the
                sub.description = textwrap.fill(sub.description or "", 79)  # description is wrapped here
            attach_nested_epilogs(sub)


def top_level_epilog() -> str:
    """``tileir-diff --help``: diff's statuses (the verdicts), and where the others are."""
    return epilog("diff") + "\n\nverify, analyze, summary, dump, mcp and the suite commands list their own (COMMAND --help)."


def markdown_table(command: str) -> str:
    """The docs table of ``command`` (docs/cli.md holds these verbatim)."""
    lines = ["| status | meaning |", "|---|---|"]
    lines += [f"| {status} | {meaning} |" for status, meaning in EXIT_STATUS[command]]
    return "\n".join(lines)
