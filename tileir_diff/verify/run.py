"""``verify_port``: run the stages on one op (or one variant), stop at the first failure, hand the
failure to a repair and try again, up to ``max_attempts``; one JSON record per attempt and a
diagnostics folder per run.

The diagnostics folder (``<workdir>/runs/<time>-<op>[-<variant>]/``): ``report.json``,
``changes.md`` (what each repair changed), and per attempt ``attempt-N/`` with ``record.json``,
``sources/`` (the op's files as verified), ``logs/<stage>.log``, ``diff/<variant>.{json,html}``,
``counterexample.json``, ``compiler/`` (tileiras output) and ``build/`` (emitted IR, cubins).
"""
from __future__ import annotations

import difflib
import json
import os
import shlex
import subprocess
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Union

from tileir_diff.suite.catalog import CatalogError, load_catalog, repo_root

from .cache import BuildCache
from .stages import STAGES, Context, StageResult, prepare_ir, run_stage
from .workspace import Crate, apply_files, crate_copy, repo_crate, sha256_bytes

SCHEMA_VERSION = "1.0"
# performance prepares the IR itself, after it has found a GPU
NEEDS_IR = ("tileiras", "numerics")
REPAIR_TIMEOUT_S = 600

#: A repair: given the failed attempt's request (see docs/agents.md), the op's new kernel.rs
#: (a str), or {file name in src/ops/<op>/: text}, or None to give up.
Repair = Callable[[Dict[str, Any]], Union[str, Mapping[str, str], None]]


class VerifyUsageError(ValueError):
    """Bad arguments: an unknown op, variant or stage."""


@dataclass
class VerifyReport:
    op: str
    variant: Optional[str]
    result: str  # pass | fail | not_converged | skipped (every selected stage skipped: nothing verified)
    attempts: List[Dict[str, Any]]
    diagnostics: str
    stages: List[str]
    cache: Dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    crate: str = ""

    @property
    def converged(self) -> bool:
        return self.result == "pass"

    @property
    def exit_code(self) -> int:
        """0 pass, 1 fail or not converged, 3 skipped: no stage could run here, nothing is claimed."""
        return {"pass": 0, "skipped": 3}.get(self.result, 1)

    def to_dict(self) -> Dict[str, Any]:
        return {"schema_version": SCHEMA_VERSION, "kind": "verify_report", "op": self.op, "variant": self.variant,
                "result": self.result, "converged": self.converged, "stages": list(self.stages),
                "attempts": self.attempts, "diagnostics": self.diagnostics, "crate": self.crate,
                "cache": self.cache, "seconds": round(self.seconds, 3)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def to_html(self) -> str:
        """A standalone page for a person: each attempt's stages, the failure, links to the
        artifacts (diff reports, logs); everything taken from files is escaped."""
        from html import escape
        from pathlib import Path as _Path
        base = _Path(self.diagnostics)

        def link(path: str) -> str:
            p = _Path(path)
            try:
                href = p.relative_to(base).as_posix()
            except ValueError:
                href = p.as_uri() if p.is_absolute() else p.as_posix()
            return f'<a href="{escape(href, quote=True)}">{escape(p.name)}</a>'

        title = f"verify {self.op}{'/' + self.variant if self.variant else ''}: {self.result}"
        out = [f"<!doctype html><meta charset='utf-8'><title>{escape(title)}</title>",
               "<style>body{font:14px sans-serif;margin:2em}td,th{padding:2px 8px;text-align:left;vertical-align:top}"
               ".pass{color:#080}.fail{color:#b00}.skip{color:#888}pre{background:#f4f4f4;padding:8px;"
               "white-space:pre-wrap}</style>", f"<h1>{escape(title)}</h1>",
               f"<p>{len(self.attempts)} attempt(s), {self.seconds:.1f}s; cache {self.cache.get('hits', 0)} hits, "
               f"{self.cache.get('misses', 0)} misses, {self.cache.get('seconds_saved', 0):.1f}s saved</p>"]
        for a in self.attempts:
            out.append(f"<h2>attempt {a['attempt']}: <span class='{escape(a['result'])}'>{escape(a['result'])}"
                       f"</span></h2><table><tr><th>#</th><th>stage</th><th>status</th><th>s</th><th>reason</th>"
                       "<th>artifacts</th></tr>")
            for st in a["stages"]:
                arts = " ".join(link(x) for x in st["artifacts"])
                out.append(f"<tr><td>{st['index']}</td><td>{escape(st['name'])}</td>"
                           f"<td class='{escape(st['status'])}'>{escape(st['status'])}</td><td>{st['seconds']:.1f}</td>"
                           f"<td>{escape(st['reason'])}</td><td>{arts}</td></tr>")
            out.append("</table>")
            if a.get("changes"):
                for name, c in a["changes"].items():
                    out.append(f"<h3>changed {escape(name)} (+{c['added']} -{c['removed']})</h3>"
                               f"<pre>{escape(c['diff'])}</pre>")
            if a.get("failure"):
                shown = {k: v for k, v in a["failure"].items() if k not in ("diff",)}
                out.append(f"<h3>failure</h3><pre>{escape(json.dumps(shown, indent=1)[:20000])}</pre>")
        return "\n".join(out) + "\n"

    def to_text(self) -> str:
        name = f"{self.op}{'/' + self.variant if self.variant else ''}"
        lines = [f"verify {name}: {self.result.upper().replace('_', ' ')}"
                 f" after {len(self.attempts)} attempt(s), {self.seconds:.1f}s"]
        for a in self.attempts:
            lines.append(f"attempt {a['attempt']}: {a['result']}")
            for s in a["stages"]:
                extra = f" - {s['reason']}" if s["reason"] else ""
                cache = s.get("cache") or {}
                hits = f" [cache {cache.get('hits', 0)} hit / {cache.get('misses', 0)} miss]" if cache.get("hits") or \
                    cache.get("misses") else ""
                lines.append(f"  {s['index']}. {s['name']:12s} {s['status']:4s} {s['seconds']:7.1f}s{hits}{extra}")
                lines += _differing_roots(s)
        c = self.cache
        lines.append(f"cache: {c.get('hits', 0)} hits, {c.get('misses', 0)} misses, "
                     f"{c.get('seconds_saved', 0):.1f}s saved")
        lines.append(f"diagnostics: {self.diagnostics}")
        return "\n".join(lines) + "\n"


def _differing_roots(stage: Dict[str, Any], shown: int = 10) -> List[str]:
    """Under a failed ir_compare: each differing variant's verdict and its first unexplained root
    (with how many more), so the text says what differs, not only how many variants."""
    if stage["name"] != "ir_compare" or stage["status"] != "fail":
        return []
    rows = [r for r in stage.get("details", {}).get("variants", []) if r.get("status") == "fail"]
    lines = []
    for row in rows[:shown]:
        roots = row.get("unexplained") or []
        first = f"{roots[0]['category']}: {roots[0]['message']}" if roots else "no root cause listed"
        more = f" (+{len(roots) - 1} more)" if len(roots) > 1 else ""
        lines.append(f"       {row['variant']}: {row['verdict']}: {first}{more}")
    if len(rows) > shown:
        lines.append(f"       ... and {len(rows) - shown} more variant(s); the JSON report lists every one")
    return lines


def normalize_stages(stages: Optional[Iterable[Union[str, int]]]) -> List[str]:
    """Stage names (or 1-based numbers) in run order; all six by default."""
    if stages is None:
        return list(STAGES)
    chosen = set()
    for s in stages:
        name = STAGES[int(s) - 1] if str(s).isdigit() and 1 <= int(s) <= len(STAGES) else str(s)
        if name not in STAGES:
            close = difflib.get_close_matches(name, STAGES, n=2)
            hint = f"did you mean {' or '.join(close)}? " if close else ""
            raise VerifyUsageError(f"unknown stage {str(s)!r}; {hint}stages: {', '.join(STAGES)} (or 1-{len(STAGES)})")
        chosen.add(name)
    if not chosen:
        raise VerifyUsageError("no stage selected")
    return [s for s in STAGES if s in chosen]


def run_order(chosen: List[str], ir_first: bool) -> List[str]:
    """The stages in the order they run: STAGES order, or with ``ir_first`` ir_compare moved
    before cargo_test (when both are selected)."""
    if ir_first and "ir_compare" in chosen and "cargo_test" in chosen:
        rest = [s for s in chosen if s != "ir_compare"]
        at = rest.index("cargo_test")
        return rest[:at] + ["ir_compare"] + rest[at:]
    return list(chosen)


def default_workdir() -> Path:
    return repo_root() / "build" / "verify"


def verify_port(op: str, variant: Optional[str] = None, *, stages: Optional[Iterable[Union[str, int]]] = None,
                max_attempts: int = 1, repair: Optional[Repair] = None, workdir: Optional[Path] = None,
                crate: Optional[Path] = None, sources: Optional[Mapping[str, str]] = None,
                progress: Optional[Callable[[str], None]] = None, use_cache: bool = True,
                ir_first: bool = False) -> VerifyReport:
    """Verify the cuTile Rust port of ``op`` (``variant``: only that one).

    ``use_cache=False`` computes every stage again (fresh results are still stored);
    ``ir_first`` runs ``ir_compare`` before ``cargo_test``: once the crate is built the IR
    comparison takes about a second where the op's Rust tests take minutes, so a repair loop hears
    of an IR difference first (the stage order of the report follows the run).

    ``crate``: the rust_kernels folder to verify (default the repository's); ``sources``: files
    of src/ops/<op>/ to use instead of the crate's (e.g. a candidate kernel.rs). With ``repair``,
    ``sources`` or ``crate``, work happens on a copy under ``workdir`` (never on the repository's
    kernels); otherwise the repository's crate is built in place."""
    started = time.monotonic()
    if max_attempts < 1:
        raise VerifyUsageError(f"max_attempts must be at least 1, got {max_attempts}")
    chosen = run_order(normalize_stages(stages), ir_first)
    try:
        specs = load_catalog(ops=[op])
    except CatalogError as e:
        raise VerifyUsageError(str(e)) from None
    if not specs:
        raise VerifyUsageError(f"no reference operator {op!r} in reference/")
    spec = specs[0]
    if variant is not None and variant not in {v.name for v in spec.variants}:
        raise VerifyUsageError(f"reference/{op}/analysis.json has no variant {variant!r}")
    source = Path(crate) if crate is not None else repo_crate().root
    if not (source / "src" / "ops" / op).is_dir():
        raise VerifyUsageError(f"{source}/src/ops/{op} does not exist: {op} has no cuTile Rust port")
    workdir = Path(workdir) if workdir is not None else default_workdir()
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    unique = f"{os.getpid()}-{time.monotonic_ns() % 10**6}"
    run_dir = workdir / "runs" / f"{stamp}-{op}{'-' + variant if variant else ''}-{unique}"
    run_dir.mkdir(parents=True)
    cache = BuildCache(workdir / "cache", read=use_cache)
    say = progress or (lambda message: None)
    in_place = repair is None and sources is None and crate is None
    holder = nullcontext(Crate(source)) if in_place else crate_copy(workdir, source, {op: dict(sources or {})}, say)
    attempts: List[Dict[str, Any]] = []
    result = "fail"
    with holder as work:
        previous: Optional[Dict[str, str]] = None
        for number in range(1, max_attempts + 1):
            files = work.op_files(op)
            record = _attempt(spec, work, variant, chosen, run_dir / f"attempt-{number}", number, cache, files,
                              previous, lambda m, n=number: say(f"[verify {op}] attempt {n}: {m}"))
            attempts.append(record)
            if record["result"] in ("pass", "skipped"):
                result = record["result"]
                break
            if (record["failure"] or {}).get("environment"):
                result = "fail"  # a kernel edit cannot install what the environment lacks
                say(f"[verify {op}] attempt {number}: {record['failure']['message']}")
                break
            if repair is None or number == max_attempts:
                result = "not_converged" if repair is not None else "fail"
                break
            request = {**record, "sources": files, "attempts_left": max_attempts - number}
            (run_dir / f"attempt-{number}" / "repair-request.json").write_text(json.dumps(request, indent=1))
            say(f"[verify {op}] attempt {number} failed at {record['failed_stage']}: asking the repair")
            proposed = repair(request)
            if proposed is None:
                result = "not_converged"
                _note(run_dir, f"attempt {number}: the repair gave up\n")
                break
            new_files = {"kernel.rs": proposed} if isinstance(proposed, str) else dict(proposed)
            apply_files(work, op, new_files)
            previous = files
            _note(run_dir, _changes_text(number, files, work.op_files(op)))
    report = VerifyReport(op, variant, result, attempts, str(run_dir), chosen, seconds=time.monotonic() - started,
                          crate=str(source))
    report.cache = cache.stats.to_dict()
    (run_dir / "report.json").write_text(report.to_json(), encoding="utf-8")
    (run_dir / "report.html").write_text(report.to_html(), encoding="utf-8")
    return report


def _attempt(spec, work: Crate, variant, chosen, attempt_dir: Path, number: int, cache: BuildCache,
             files: Dict[str, str], previous: Optional[Dict[str, str]], say) -> Dict[str, Any]:
    attempt_dir.mkdir(parents=True)
    for name, text in files.items():
        (attempt_dir / "sources").mkdir(exist_ok=True)
        (attempt_dir / "sources" / name).write_text(text, encoding="utf-8")
    before = cache.stats.to_dict()
    ctx = Context(spec, work, variant, attempt_dir, cache, say)
    results: List[StageResult] = []
    failed: Optional[StageResult] = None
    t0 = time.monotonic()
    for _i, name in enumerate(chosen):
        if failed is not None:
            results.append(StageResult(name, "skip", reason=f"not run: stage {failed.name} failed"))
            continue
        if name == "performance" and any(r.status != "pass" for r in results):
            skipped = [r.name for r in results if r.status != "pass"]
            results.append(StageResult(name, "skip", reason=f"entered only when every earlier stage passed; "
                                                            f"skipped: {', '.join(skipped)}"))
            continue
        say(f"stage {STAGES.index(name) + 1}/{len(STAGES)} {name}")
        r = prepare_ir(ctx, name) if name in NEEDS_IR else None
        r = r or run_stage(name, ctx)
        results.append(r)
        if r.status == "fail":
            failed = r
    after = cache.stats.to_dict()
    record = {
        "schema_version": SCHEMA_VERSION, "kind": "verify_attempt", "op": spec.op, "variant": variant,
        "attempt": number,
        "result": "fail" if failed else ("pass" if any(r.status == "pass" for r in results) else "skipped"),
        "failed_stage": failed.name if failed else None,
        "stages": [r.to_dict() for r in results],
        "failure": ({"stage": failed.name, **(failed.failure or {"message": failed.reason})} if failed else None),
        "sources": {name: sha256_bytes(text.encode()) for name, text in files.items()},
        "changes": _changes(previous, files) if previous is not None else None,
        "cache": {"hits": after["hits"] - before["hits"], "misses": after["misses"] - before["misses"],
                  "seconds_saved": round(after["seconds_saved"] - before["seconds_saved"], 3)},
        "seconds": round(time.monotonic() - t0, 3),
        "diagnostics": str(attempt_dir),
    }
    (attempt_dir / "record.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
    return record


def _changes(before: Dict[str, str], after: Dict[str, str]) -> Dict[str, Any]:
    """Per changed file: lines added and removed, and the unified diff (capped)."""
    out = {}
    for name in sorted(set(before) | set(after)):
        a, b = before.get(name, "").splitlines(), after.get(name, "").splitlines()
        if a == b:
            continue
        diff = list(difflib.unified_diff(a, b, f"a/{name}", f"b/{name}", lineterm="", n=1))
        added = sum(1 for d in diff if d.startswith("+") and not d.startswith("+++"))
        removed = sum(1 for d in diff if d.startswith("-") and not d.startswith("---"))
        text = "\n".join(diff)
        out[name] = {"added": added, "removed": removed, "diff": text if len(text) <= 8000 else text[:8000] + "\n..."}
    return out


def _changes_text(number: int, before: Dict[str, str], after: Dict[str, str]) -> str:
    changes = _changes(before, after)
    if not changes:
        return f"## attempt {number} -> {number + 1}: the repair changed nothing\n\n"
    parts = [f"## attempt {number} -> {number + 1}\n"]
    for name, c in changes.items():
        parts.append(f"{name}: +{c['added']} -{c['removed']}\n\n```diff\n{c['diff']}\n```\n")
    return "\n".join(parts) + "\n"


def _note(run_dir: Path, text: str) -> None:
    with open(run_dir / "changes.md", "a", encoding="utf-8") as f:
        f.write(text)


def command_repair(command: str) -> Repair:
    """A repair that runs ``command`` (a shell command line) with the request JSON on stdin. Its
    stdout is the new kernel.rs, or a JSON object {"files": {name: text}}; empty output or a
    non-zero status means it gives up."""
    def repair(request: Dict[str, Any]) -> Union[str, Dict[str, str], None]:
        try:
            r = subprocess.run(shlex.split(command), input=json.dumps(request), capture_output=True, text=True,
                               timeout=REPAIR_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            return None
        out = r.stdout
        if r.returncode != 0 or not out.strip():
            return None
        if out.lstrip().startswith("{"):
            try:
                files = json.loads(out).get("files")
            except ValueError:
                return None
            return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else None
        return out
    return repair
