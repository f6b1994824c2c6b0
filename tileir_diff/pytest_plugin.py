"""pytest plugin (entry point ``pytest11: tileir``): the ``tileir`` fixture, HTML + JSON reports
for failing comparisons (``--tileir-report-dir DIR``) and a terminal line of verdict counts.

Thin hooks over the library: comparisons are ``tileir_diff.api.diff``; messages are the text
report. The engine is imported only when a test compares something.
"""
from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from .errors import printable
from .options import add_diff_options, diff_kwargs

_SESSION_KEY = pytest.StashKey["TileIRSession"]()
_VERDICT_ORDER = ("identical", "equivalent", "specialized", "different", "unknown")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tileir", "tileir-diff: structural comparison of Tile IR kernels")
    group.addoption("--tileir-report-dir", metavar="DIR", default=None,
                    help="write an HTML and a JSON diff report into DIR for every failing comparison")
    group.addoption("--tileir-max-lines", metavar="N", type=int, default=40,
                    help="cut a failing comparison's message after N lines, pointing to the written report "
                         "(default 40; 0: never cut)")
    # The same comparison options as `tileir-diff diff` (tileir_diff/options.py), applied to every
    # comparison made through the fixture; a test's own keyword arguments come first.
    add_diff_options(group.addoption, prefix="tileir-")


def pytest_configure(config: pytest.Config) -> None:
    """Every option is checked here, so a bad one is one usage error before any test runs (not
    the same traceback in every test that compares)."""
    report_dir = config.getoption("--tileir-report-dir", default=None)
    try:
        options = diff_kwargs(lambda name: config.getoption(f"tileir_{name}"))
        if options["rules"] is not None or options["disable"]:
            from .normalize import select_rules
            select_rules(options["rules"], options["disable"])  # names checked as diff() would
    except ValueError as e:
        raise pytest.UsageError(f"tileir: {e}") from None
    max_lines = config.getoption("--tileir-max-lines", default=40)
    config.stash[_SESSION_KEY] = TileIRSession(usable_report_dir(report_dir) if report_dir else None, options,
                                               max_lines if max_lines and max_lines > 0 else None)


def usable_report_dir(given: str) -> Path:
    """``--tileir-report-dir``: a folder that exists or can be made, and where a file can be
    written; a pytest.UsageError naming it otherwise (a file, /dev/null, /proc/self, no permission)."""
    path = Path(given).resolve()
    problem = None
    if path.exists() and not path.is_dir():
        problem = "not a folder"
    else:
        try:
            path.mkdir(parents=True, exist_ok=True)
            probe = path / f".tileir-write-check-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as e:
            problem = f"cannot write there ({e.strerror or e})"
    if problem:
        raise pytest.UsageError(f"tileir: --tileir-report-dir {printable(given)}: {problem}")
    return path


class TileIRSession:
    """Per-run state: the comparison options, verdict counts and the reports written."""

    def __init__(self, report_dir: Optional[Path], options: Dict[str, Any], max_lines: Optional[int] = 40):
        self.report_dir = report_dir
        self.options = options
        self.max_lines = max_lines
        self.verdicts: Counter = Counter()
        self.reports: List[Path] = []
        self._stems: Dict[str, str] = {}
        self.unwritten: Optional[str] = None  # why the last failure's reports were not written

    def write_reports(self, nodeid: str, result: Any) -> List[Path]:
        """The HTML and JSON reports of a failure, written; none when there is no report folder or
        it cannot be written (``unwritten`` then says why: a failing write must not abort the
        whole session with an INTERNALERROR)."""
        self.unwritten = None
        if self.report_dir is None:
            return []
        try:
            return self._write_reports(nodeid, result)
        except OSError as e:
            self.unwritten = f"not written to {printable(self.report_dir)}: {e.strerror or e}"
            return []

    def _write_reports(self, nodeid: str, result: Any) -> List[Path]:
        assert self.report_dir is not None
        self.report_dir.mkdir(parents=True, exist_ok=True)
        # one name per test id: a later run overwrites its report instead of piling up -2, -3, ...;
        # two ids whose safe names collide in one run are told apart by a hash of the id
        stem = _safe_name(nodeid)
        owner = self._stems.setdefault(stem, nodeid)
        if owner != nodeid:
            stem = f"{stem[:110]}-{hashlib.sha256(nodeid.encode()).hexdigest()[:8]}"
        html_path = self.report_dir / f"{stem}.html"
        json_path = self.report_dir / f"{stem}.json"
        html_path.write_text(result.to_html(), encoding="utf-8")
        json_path.write_text(result.to_json(), encoding="utf-8")
        self.reports += [html_path, json_path]
        return [html_path, json_path]


def _safe_name(nodeid: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("_.")
    return name[-120:] or "test"


class TileIR:
    """The ``tileir`` fixture: compare kernels inside a test.

    ``left``/``right`` are paths, bytes (bytecode or text) or ``Module`` objects; options are those
    of ``tileir_diff.diff`` (``rules``, ``disable``, ``limits``).
    """

    def __init__(self, session: TileIRSession, nodeid: str):
        self._session = session
        self._nodeid = nodeid
        self.results: List[Any] = []

    def diff(self, left: Any, right: Any, **options: Any):
        """The DiffResult of ``left`` vs ``right`` (recorded for the verdict summary)."""
        from .api import diff
        # the test's own options win; disabled rules add up
        merged = {**self._session.options, **options,
                  "disable": tuple(options.get("disable", ())) + tuple(self._session.options["disable"])}
        result = diff(left, right, **merged)
        self._session.verdicts[result.verdict] += 1
        self.results.append(result)
        return result

    def assert_equivalent(self, left: Any, right: Any, *, allow: Any = (), allow_unknown: bool = False,
                          **options: Any):
        """Fail the test (``NotEquivalent``, root differences first) unless identical/equivalent
        (``allow="specialization"`` accepts ``specialized`` too)."""
        __tracebackhide__ = True
        from .api import NotEquivalent, accepted
        result = self.diff(left, right, **options)
        if accepted(result, allow, allow_unknown):
            return result
        raise NotEquivalent(result, max_lines=self._session.max_lines)

    def assert_different(self, left: Any, right: Any, *, categories: Optional[List[str]] = None,
                         **options: Any):
        """Fail unless the verdict is ``different`` (and, given ``categories``, the root
        differences have exactly those categories, in any order)."""
        __tracebackhide__ = True
        from .api import NotDifferent
        result = self.diff(left, right, **options)
        if result.verdict != "different":
            raise NotDifferent(result, "expected a difference", max_lines=self._session.max_lines)
        if categories is not None:
            got = sorted(d.category for d in result.differences)
            if got != sorted(categories):
                raise NotDifferent(result, f"expected root differences {sorted(categories)}, got {got}",
                                   max_lines=self._session.max_lines)
        return result

    def summarize(self, source: Any) -> Dict[str, Any]:
        from .api import summarize
        return summarize(source)

    def load(self, source: Any):
        from .loader import load
        return load(source)


@pytest.fixture
def tileir(request: pytest.FixtureRequest) -> TileIR:
    """Compare Tile IR kernels: ``tileir.assert_equivalent(left, right)``, ``tileir.diff(...)``."""
    return TileIR(request.config.stash[_SESSION_KEY], request.node.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    # Before the report is built (pytest formats the exception then): write the HTML and JSON
    # reports, so that the message can point at them. Any comparison failure counts, also
    # tileir_diff.assert_equivalent called without the fixture.
    error = call.excinfo.value if call.excinfo is not None else None
    result = getattr(error, "result", None)
    session = item.config.stash.get(_SESSION_KEY, None)
    paths: List[Path] = []
    unwritten = None
    if session is not None and result is not None and hasattr(result, "to_html"):
        paths = session.write_reports(item.nodeid, result)
        unwritten = session.unwritten
        if error is not None and hasattr(error, "report_paths"):
            error.report_paths = [str(p) for p in paths]
    outcome = yield
    report = outcome.get_result()
    if paths and not report.passed and not hasattr(error, "report_paths"):  # the message names them already
        report.sections.append(("tileir reports", "\n".join(str(p) for p in paths)))
    elif unwritten and not report.passed:
        report.sections.append(("tileir reports", unwritten))


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    session = config.stash.get(_SESSION_KEY, None)
    if session is None or not session.verdicts:
        return
    counts = ", ".join(f"{session.verdicts[v]} {v}" for v in _VERDICT_ORDER if session.verdicts[v])
    line = f"tileir: {sum(session.verdicts.values())} comparisons: {counts}"
    if session.reports:
        line += f"; {len(session.reports) // 2} failure report(s) in {session.report_dir}"
    terminalreporter.write_line(line)
