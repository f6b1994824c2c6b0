"""One table of exit statuses (tileir_diff/commands/exit_status.py): every command's --help shows
its rows, docs/cli.md holds them verbatim, and the rows agree with the program's own constants."""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tileir_diff.cli import EXIT_INTERNAL, EXIT_USAGE, build_parser
from tileir_diff.commands.exit_status import EXIT_STATUS, markdown_table
from tileir_diff.compare.result import EXIT_CODES, EXIT_OK_ACCEPTED

ROOT = Path(__file__).resolve().parents[2]
CLI_MD = (ROOT / "docs" / "cli.md").read_text()


def _help(command):
    """The help of COMMAND ("diff", or a nested one: "suite status"), whitespace collapsed."""
    words = command.split()
    sub = build_parser(words[0])
    for word in words:
        sub = next(a for a in sub._actions if isinstance(a, argparse._SubParsersAction)).choices[word]
    return " ".join(sub.format_help().split())


@pytest.mark.parametrize("command", sorted(EXIT_STATUS))
def test_help_lists_every_status_of_the_table(command):
    text = _help(command)
    assert "exit status:" in text
    for status, meaning in EXIT_STATUS[command]:
        assert f"{status} {' '.join(meaning.split())}" in text, (command, status)


def test_top_level_help_lists_the_verdict_statuses():
    text = " ".join(build_parser().format_help().split())
    for status, meaning in EXIT_STATUS["diff"]:
        assert f"{status} {meaning}" in text


@pytest.mark.parametrize("command", sorted(EXIT_STATUS))
def test_docs_hold_the_table_verbatim(command):
    marker = re.search(rf"<!-- exit-status: {command}\b[^>]*-->\n", CLI_MD)
    assert marker, f"docs/cli.md has no exit-status table for {command}"
    assert CLI_MD[marker.end():].startswith(markdown_table(command) + "\n"), command


def test_diff_rows_are_the_program_statuses():
    rows = EXIT_STATUS["diff"]
    for verdict, code in EXIT_CODES.items():
        assert any(status == str(code) and verdict in meaning for status, meaning in rows), verdict
    assert (f"{EXIT_OK_ACCEPTED} (--accept)", ) == tuple(s for s, _ in rows if "--accept" in s)
    statuses = {s for s, _ in rows}
    assert {str(EXIT_USAGE), str(EXIT_INTERNAL)} <= statuses
    assert statuses == {str(c) for c in EXIT_CODES.values()} | {str(EXIT_USAGE), str(EXIT_INTERNAL),
                                                                 f"{EXIT_OK_ACCEPTED} (--accept)"}


def test_verify_rows_are_the_report_statuses():
    from tileir_diff.verify.run import VerifyReport
    codes = {VerifyReport("x", None, result, [], "", []).exit_code for result in ("pass", "fail", "not_converged",
                                                                                  "skipped")}
    assert codes | {EXIT_USAGE, EXIT_INTERNAL} == {int(s) for s, _ in EXIT_STATUS["verify"]}


def test_the_console_help_is_the_same():
    r = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "verify", "--help"], capture_output=True,
                       text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 0 and "exit status:" in r.stdout and "70" in r.stdout


def test_suite_status_rows_are_the_program_statuses():
    from tileir_diff.suite import command
    rows = dict(EXIT_STATUS["suite status"])
    assert rows[str(command.EXIT_NOTHING_BUILT)].startswith("nothing is built")
    # the subcommands' descriptions no longer state statuses of their own (the epilog is the one place)
    for name in ("list", "export", "status", "sass"):
        assert "Exit " not in _help(f"suite {name}").split("exit status:")[0], name


def test_the_quick_exit_writes_everything_and_keeps_the_status(tmp_path):
    """``run`` ends diff/dump/summary processes without the interpreter's teardown
    (``os._exit``): everything written must be flushed first, the status must be main's."""
    from pathlib import Path
    from tileir_diff import cli
    root = Path(__file__).resolve().parents[1] / "corpus" / "third_party_style"
    left, right = root / "rms_norm_rsqrt_as_sqrt.left.tir", root / "rms_norm_rsqrt_as_sqrt.right.tir"
    args = ["diff", str(left), str(right), "-f", "json"]
    out = tmp_path / "in_process.json"
    assert cli.main([*args, "-o", str(out)]) == 1  # different
    piped = subprocess.run([sys.executable, "-m", "tileir_diff.cli", *args], capture_output=True, text=True)
    assert piped.returncode == 1
    written = tmp_path / "child.json"
    child = subprocess.run([sys.executable, "-m", "tileir_diff.cli", *args, "-o", str(written)], capture_output=True)
    assert child.returncode == 1 and child.stdout == b""

    def masked(text):  # wall-clock fields differ run to run
        import json

        def drop(x):
            if isinstance(x, dict):
                return {k: drop(v) for k, v in x.items() if k != "seconds" and not k.endswith("_s")}
            return [drop(v) for v in x] if isinstance(x, list) else x
        return drop(json.loads(text))
    assert len(piped.stdout) > 10_000 and masked(piped.stdout) == masked(out.read_text())
    assert masked(written.read_text()) == masked(out.read_text())
    # a command outside the quick-exit set takes the ordinary exit, same status convention
    usage = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "diff", str(left)], capture_output=True)
    assert usage.returncode == 2 and b"usage" in usage.stderr
