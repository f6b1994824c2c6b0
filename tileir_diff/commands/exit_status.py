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
}


def epilog(command: str) -> str:
    """The help epilog of ``command``: one status per line (argparse keeps the lines with
    RawDescriptionHelpFormatter)."""
    rows = EXIT_STATUS[command]
    width = max(len(status) for status, _ in rows)
    return "exit status:\n" + "\n".join(f"  {status:<{width}}  {meaning}" for status, meaning in rows)


def top_level_epilog() -> str:
    """``tileir-diff --help``: diff's statuses (the verdicts), and where the others are."""
    return epilog("diff") + "\n\nverify, analyze, summary and dump list their own (COMMAND --help)."


def markdown_table(command: str) -> str:
    """The docs table of ``command`` (docs/cli.md holds these verbatim)."""
    lines = ["| status | meaning |", "|---|---|"]
    lines += [f"| {status} | {meaning} |" for status, meaning in EXIT_STATUS[command]]
    return "\n".join(lines)
