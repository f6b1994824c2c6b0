"""The port table: every reference variant against its cuTile Rust port.

For each operator and variant in the catalog: the verdict of the Rust IR
(``build/rust/<op>/<variant>.tileirbc``, written by ``rust_kernels/build_ports.sh``) against the
Python reference IR (``build/reference/<op>/<variant>.tileirbc``), which of its differences are
accepted by the op's ``analysis.json`` (``accepted_differences``: category, what, why), whether
an sm_90 cubin of the port exists, and the last GPU numerics result
(``docs/results/ports_results.json``) and the SASS identity of the two sm_90 cubins
(``docs/results/ports_sass.json``, written by ``tileir-diff suite sass``; see sass.py).
A port passes when its verdict is identical, equivalent or
specialized (the checker proved the same computation once assumptions, hints and overflow flags
are removed; the row lists what each side assumes, and which of the port's assumptions its C ABI
checks: analysis.json ``abi_checked_preconditions``; suite/accept.py ``port_passes``), or when
every remaining difference is accepted. Each row also counts the ``unsafe``
blocks of the op's Rust sources (rust_kernels/src/ops/<op>/: kernel.rs, and the C entry in
ffi.rs plus mod.rs), so that a port's unchecked surface stays visible.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

from .accept import accepted_by, detail_matches  # noqa: F401 - detail_matches: re-exported
from .catalog import OpSpec, VariantSpec, repo_root
from .sass import load_sass, summary_cell
from .timing import load_timing, timing_cell, timing_state

RESULTS_FILE = "docs/results/ports_results.json"
RUST_OPS_DIR = "rust_kernels/src/ops"


@dataclass
class PortRow:
    op: str
    variant: str
    verdict: str  # identical | equivalent | specialized | different | unknown | missing | error
    status: str  # pass | fail | missing
    accepted_differences: List[Dict[str, Any]] = field(default_factory=list)
    unexplained_differences: List[Dict[str, Any]] = field(default_factory=list)
    #: a ``specialized`` port's differences (suite/accept.py ``assumed``): what each side assumes
    assumed: List[Dict[str, Any]] = field(default_factory=list)
    #: assumptions of a specialized port that its C ABI checks (analysis.json abi_checked_preconditions)
    abi_checked: List[Dict[str, Any]] = field(default_factory=list)
    rules_applied: Dict[str, int] = field(default_factory=dict)
    cubin_sm90: bool = False
    # `unsafe { ... }` blocks in the op's Rust port: {"kernel": n, "ffi": m}; None without a port.
    unsafe_blocks: Optional[Dict[str, int]] = None
    numerics: Dict[str, Any] = field(default_factory=lambda: {"result": "not_run"})
    # SASS identity (suite/sass.py): the ports_sass.json record; `sass_cell` says identical /
    # different (what) / stale (a cubin changed since) / – (not compared).
    sass: Optional[Dict[str, Any]] = None
    sass_cell: str = "–"
    python_ir: Optional[str] = None
    rust_ir: Optional[str] = None
    report: Optional[str] = None      # the HTML report (suite status --report-dir)
    report_json: Optional[str] = None  # the JSON report next to it
    error: Optional[str] = None
    cubin_sha256: Optional[str] = None  # of the port's sm_90 cubin, to tie numerics results to it
    # device time of the port against the reference (suite/timing.py: geomean of the benchmark's
    # Rust / Python ratios over the variant's configurations, with its state); None until measured
    timing: Optional[Dict[str, Any]] = None

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_UNSAFE_BLOCK = re.compile(r"\bunsafe\s*\{")


def count_unsafe_blocks(source: str) -> int:
    """``unsafe {`` blocks in Rust source, comments left out (``unsafe fn`` and ``#[unsafe(..)]``
    attributes are not blocks)."""
    return len(_UNSAFE_BLOCK.findall(_COMMENTS.sub("", source)))


# A kernel.rs whose cuTile module lives in another op's kernel.rs (fused_moe shares group_gemm's).
_SHARED_MODULE = re.compile(r"\bpub\s+use\s+crate::ops::(\w+)::kernel::\w+\s*;")


def unsafe_blocks(root: Path, op: str) -> Optional[Dict[str, int]]:
    """Unsafe blocks of rust_kernels/src/ops/<op>/: in kernel.rs (the cuTile port) and in the
    other files (the C entry); None when the op has no Rust port directory. A kernel.rs that
    re-exports another op's module (`pub use crate::ops::<other>::kernel::<module>;`) counts that
    op's kernel.rs: the shared module is this port's kernel too."""
    folder = root / RUST_OPS_DIR / op
    if not folder.is_dir():
        return None
    counts = {"kernel": 0, "ffi": 0}
    for path in sorted(folder.glob("*.rs")):
        source = path.read_text(encoding="utf-8")
        if path.name == "kernel.rs":
            shared = _SHARED_MODULE.search(_COMMENTS.sub("", source))
            if shared and shared.group(1) != op:
                source = (root / RUST_OPS_DIR / shared.group(1) / "kernel.rs").read_text(encoding="utf-8")
        counts["kernel" if path.name == "kernel.rs" else "ffi"] += count_unsafe_blocks(source)
    return counts


def _unsafe_cell(counts: Optional[Dict[str, int]]) -> str:
    return "–" if counts is None else f"{counts['kernel']}+{counts['ffi']}"


def cubin_digest(path: Path) -> Optional[str]:
    """The sha256 of a cubin (None when it is not there): numerics results name the cubin they
    tested by it, so that a rebuilt port shows its old result as stale."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def load_numerics(root: Path) -> Dict[tuple, Dict[str, Any]]:
    """(op, variant) -> the last GPU run's result: pass/fail over its cases, the date, GPU and
    driver, and the cubin hashes the cases recorded (``cubin_sha256``; a run from before the
    hashes were recorded has none). A case's own ``date``/``gpu``/``driver`` (cases merged in from
    a later run of some ops) win over the file's."""
    path = root / RESULTS_FILE
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    out: Dict[tuple, Dict[str, Any]] = {}
    for case in data.get("cases", []):
        key = (case["op"], case["variant"])
        run = {field: case.get(field, data.get(field)) for field in ("date", "gpu", "driver")}
        row = out.setdefault(key, {"result": "pass", **run, "cases": 0, "cubin_sha256": []})
        row["cases"] += 1
        if case.get("result") != "pass":
            row["result"] = "fail"
        digest = case.get("cubin_sha256")
        if digest and digest not in row["cubin_sha256"]:
            row["cubin_sha256"].append(digest)
    return out


def numerics_state(numerics: Dict[str, Any], cubin_sha256: Optional[str]) -> str:
    """Whether a numerics result is about the cubin there now: ``current`` (it recorded this
    cubin's hash), ``stale`` (it tested another build), ``untied`` (it recorded no hash, so
    nothing says which build it tested), ``not_run``."""
    if numerics.get("result", "not_run") == "not_run":
        return "not_run"
    tested = numerics.get("cubin_sha256") or []
    if not tested:
        return "untied"
    return "current" if cubin_sha256 in tested else "stale"


def port_rows(specs: Sequence[OpSpec], *, root: Optional[Path] = None, reference_build: Optional[Path] = None,
              rust_build: Optional[Path] = None, report_dir: Optional[Path] = None,
              ops: Optional[Iterable[str]] = None, on_row: Optional[Callable[[PortRow], None]] = None) -> List[PortRow]:
    """One row per (op, variant); diffs run here (networkx is imported on demand). ``on_row`` is
    called with each row as it is done (progress)."""
    root = root or repo_root()
    reference_build = reference_build or root / "build" / "reference"
    rust_build = rust_build or root / "build" / "rust"
    numerics = load_numerics(root)
    sass_records = load_sass(root)
    timings = load_timing(root)
    wanted = set(ops) if ops else None
    rows: List[PortRow] = []
    for spec in specs:
        if wanted and spec.op not in wanted:
            continue
        unsafe = unsafe_blocks(root, spec.op)
        for v in spec.variants:
            row = _row(spec, v, root, reference_build, rust_build, report_dir, numerics)
            if row.rust_ir is not None:
                row.unsafe_blocks = unsafe
            row.sass = sass_records.get((spec.op, v.name))
            cubins = _cubin_hashes(reference_build, rust_build, spec.op, v.name)
            if row.sass is not None:
                row.sass_cell = summary_cell(row.sass, cubins)
            timing = timings.get((spec.op, v.name))
            if timing is not None and row.rust_ir is not None:
                row.timing = {**timing, "state": timing_state(timing, cubins)}
            rows.append(row)
            if on_row is not None:
                on_row(row)
    return rows


def _cubin_hashes(reference_build: Path, rust_build: Path, op: str, variant: str) -> Optional[tuple]:
    """sha256 of the two sm_90 cubins now on disk, to tell a stale SASS record; None when either is missing."""
    py = cubin_digest(reference_build / op / f"{variant}.sm_90.cubin")
    rs = cubin_digest(rust_build / op / f"{variant}.sm_90.cubin")
    return None if py is None or rs is None else (py, rs)


def _row(spec: OpSpec, v: VariantSpec, root: Path, reference_build: Path, rust_build: Path,
         report_dir: Optional[Path], numerics: Dict[tuple, Dict[str, Any]]) -> PortRow:
    py = reference_build / spec.op / f"{v.name}.tileirbc"
    rs = rust_build / spec.op / f"{v.name}.tileirbc"
    cubin = rust_build / spec.op / f"{v.name}.sm_90.cubin"
    row = PortRow(spec.op, v.name, "missing", "missing", python_ir=str(py) if py.is_file() else None,
                  rust_ir=str(rs) if rs.is_file() else None, cubin_sm90=cubin.is_file(),
                  cubin_sha256=cubin_digest(cubin))
    row.numerics = dict(numerics.get((spec.op, v.name), {"result": "not_run"}))
    row.numerics["state"] = numerics_state(row.numerics, row.cubin_sha256)
    if not rs.is_file():
        return row
    if not py.is_file():
        row.verdict, row.status = "error", "fail"
        row.error = f"the Python reference IR {py} is missing (run `tileir-diff suite export`)"
        return row
    from ..api import diff
    from ..errors import TileIRFormatError
    from .accept import abi_checked, apply_accepted, assumed, port_passes
    from .launch_facts import facts_for
    try:
        result = diff(py, rs, launch=facts_for(spec, v, _relative(spec.analysis_path, root)))
    except TileIRFormatError as e:
        row.verdict, row.status, row.error = "error", "fail", str(e)
        return row
    # the same marking as `tileir-diff diff --accept`: the reports then say what is accepted
    result, _ = apply_accepted(result, spec.accepted_differences, v.name, _relative(spec.analysis_path, root))
    row.verdict = result.verdict
    row.rules_applied = dict(result.rules_applied)
    row.assumed = assumed(result)
    checked, _ = abi_checked(result, spec.abi_checked_preconditions, v.name)
    row.abi_checked = [{"category": d.category, "message": d.message, "checked_as": e["what"],
                        "checked_by": e["checked_by"]} for d, e in checked]
    for d in result.differences:
        slim = {"category": d.category, "message": d.message}
        if d.accepted is not None:
            row.accepted_differences.append({**slim, "accepted_as": d.accepted["what"]})
        elif result.verdict != "specialized":
            row.unexplained_differences.append(slim)
    ok = port_passes(result)
    row.status = "pass" if ok else "fail"
    if report_dir is not None:
        out = report_dir / spec.op
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{v.name}.html").write_text(result.to_html(), encoding="utf-8")
        (out / f"{v.name}.json").write_text(result.to_json(), encoding="utf-8")
        row.report, row.report_json = str(out / f"{v.name}.html"), str(out / f"{v.name}.json")
    return row


def _relative(path: Path, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


# --- rendering: one column list for the text table, PORTS.md and build/report/index.html ----------


@dataclass(frozen=True)
class Column:
    """One column of the port table. ``cell(row)`` is its plain text; ``link(row, links)``
    (optional) the target it links to in Markdown and HTML, from a ``Links`` that knows where the
    document is written. Add a column by adding one entry to COLUMNS."""
    header: str
    cell: Callable[["PortRow"], str]
    width: int = 8  # in the text table
    link: Optional[Callable[["PortRow", "Links"], Optional[str]]] = None
    ported_only: bool = False  # shown in the table of ported variants only


@dataclass(frozen=True)
class Links:
    """Where a rendered table lives, so its links are relative to it: ``root`` the repository,
    ``at`` the folder of the document."""
    root: Path
    at: Path

    def to(self, target: Optional[str]) -> Optional[str]:
        if not target:
            return None
        path = Path(target)
        if not path.is_absolute():
            path = self.root / path
        return os.path.relpath(path, self.at).replace(os.sep, "/")


def numerics_cell(r: PortRow) -> str:
    n = r.numerics
    result = n.get("result", "not_run")
    state = n.get("state", "not_run")
    if result == "not_run":
        return "not_run"
    when = f" ({n['date'][:10]}, {n.get('gpu', '')})" if n.get("date") else ""
    if state == "stale":
        return f"stale: {result} on another build{when}"
    if state == "untied":
        return f"{result}, cubin not recorded{when}"
    return f"{result}{when}"


def _accepted_cell(r: PortRow) -> str:
    return "; ".join(sorted({a["accepted_as"] for a in r.accepted_differences})) or "–"


def _abi_checked_cell(r: PortRow) -> str:
    return "; ".join(sorted({a["checked_as"] for a in r.abi_checked})) or "–"


def _assumed_cell(r: PortRow) -> str:
    text = "; ".join(d["message"] for d in r.assumed[:3]) or "–"
    if len(r.assumed) > 3:
        text += f" (+{len(r.assumed) - 3} more)"
    return text


def _unexplained_cell(r: PortRow) -> str:
    text = "; ".join(d["message"] for d in r.unexplained_differences[:3]) or "–"
    if len(r.unexplained_differences) > 3:
        text += f" (+{len(r.unexplained_differences) - 3} more)"
    return r.error or text


def _timing_cell(r: PortRow) -> str:
    return timing_cell(r.timing)


def _rust_source(r: PortRow, links: Links) -> Optional[str]:
    path = links.root / RUST_OPS_DIR / r.op / "kernel.rs"
    return links.to(str(path)) if path.is_file() else None


COLUMNS: List[Column] = [
    Column("op", lambda r: r.op, 16, lambda r, L: L.to(f"reference/{r.op}/analysis.json")),
    Column("variant", lambda r: r.variant, 26, lambda r, L: L.to(r.report)),
    Column("verdict", lambda r: r.verdict, 10),
    Column("status", lambda r: r.status, 7),
    Column("accepted differences", _accepted_cell, 4),
    Column("assumptions (specialized)", _assumed_cell, 4),
    Column("preconditions checked by the C ABI", _abi_checked_cell, 3),
    Column("unexplained", _unexplained_cell, 5),
    Column("cubin sm_90", lambda r: "yes" if r.cubin_sm90 else "no", 5, ported_only=True),
    Column("unsafe blocks (kernel+ffi)", lambda r: _unsafe_cell(r.unsafe_blocks), 7, _rust_source, ported_only=True),
    Column("numerics", numerics_cell, 8),
    Column("SASS sm_90", lambda r: r.sass_cell, 9, ported_only=True),
    Column("device time vs reference", _timing_cell, 6, ported_only=True),
]

#: The text table is for a terminal: counts instead of the lists of differences.
_TEXT_CELLS = {"accepted differences": lambda r: str(len(r.accepted_differences)),
               "assumptions (specialized)": lambda r: str(len(r.assumed)),
               "preconditions checked by the C ABI": lambda r: str(len(r.abi_checked)),
               "unexplained": lambda r: str(len(r.unexplained_differences)),
               "SASS sm_90": lambda r: r.sass_cell.split(" ")[0],
               "device time vs reference": lambda r: "–" if not r.timing else f"{r.timing['ratio']:.3f}x" + (
                   "" if r.timing.get("state") == "current" else f" ({r.timing.get('state')})"),
               "numerics": lambda r: r.numerics.get("result", "not_run") + (
                   "" if r.numerics.get("state") in ("current", "not_run") else f" ({r.numerics.get('state')})")}
_TEXT_HEADERS = {"accepted differences": "acc", "assumptions (specialized)": "asm", "preconditions checked by the C ABI": "abi", "unexplained": "unexp", "cubin sm_90": "sm90",
                 "unsafe blocks (kernel+ffi)": "unsafe", "SASS sm_90": "sass", "device time vs reference": "time"}


def ported(rows: Sequence[PortRow]) -> List[PortRow]:
    return [r for r in rows if r.verdict != "missing"]


def table_counts(rows: Sequence[PortRow]) -> str:
    done = ported(rows)
    passing = [r for r in done if r.status == "pass"]
    return (f"{len(done)} of {len(rows)} variants ported; "
            f"{len(passing)} pass the IR comparison, "
            f"{sum(bool(r.accepted_differences) for r in passing)} of them through hand-accepted differences")


def render_markdown(rows: Sequence[PortRow], *, title: str = "cuTile Rust ports",
                    links: Optional[Links] = None) -> str:
    """docs/PORTS.md: the ported variants first, linked (op -> its analysis.json, variant -> its
    report, unsafe count -> the Rust kernel), then one line per op listing what is not ported."""
    links = links or Links(repo_root(), repo_root() / "docs")
    done = ported(rows)
    lines = [f"# {title}", "",
             "Generated by `tileir-diff suite status --markdown docs/PORTS.md --report-dir build/report` "
             "(see docs/rust_ports.md). One row per ported reference variant: the verdict of the cuTile Rust "
             "port's IR against the cuTile Python reference IR, the differences the op's analysis.json accepts, "
             "what a `specialized` port (the same computation, proven, under other assumptions) assumes, with the "
             "side that assumes more, which of the port's assumptions its C ABI checks before every launch "
             "(analysis.json abi_checked_preconditions), "
             "whether an sm_90 cubin exists, the `unsafe` blocks of the op's Rust sources (kernel.rs + the C "
             "entry, ffi.rs and mod.rs), the last GPU numerics run (`stale` when it tested another build of the "
             "cubin), whether the two sm_90 cubins have the same SASS, registers, shared memory and constant banks "
             "(`tileir-diff suite sass`; docs/rust_ports.md, \"SASS identity\") and the device time of the port "
             "against the reference (geomean of the Rust / Python CUPTI median ratios over the variant's "
             "configurations in docs/results/ports_bench.json, `scripts/gpu/bench_ports.py`; under 1 = the port is "
             "faster; `stale` when it timed other builds of the cubins). Variant links go to the per-variant reports "
             "under build/report/ (generated, not committed); build/report/index.html lists them all.", "",
             f"{table_counts(rows)}.", ""]
    lines += _markdown_table(done, COLUMNS, links)
    missing: Dict[str, List[str]] = {}
    for r in rows:
        if r.verdict == "missing":
            missing.setdefault(r.op, []).append(r.variant)
    if missing:
        lines += ["", f"## Not ported yet ({sum(map(len, missing.values()))} variants)", ""]
        for op, variants in missing.items():
            target = links.to(f"reference/{op}/analysis.json")
            lines.append(f"- [{op}]({target}): {', '.join(variants)}")
    return "\n".join(lines) + "\n"


def _markdown_table(rows: Sequence[PortRow], columns: Sequence[Column], links: Links) -> List[str]:
    out = ["| " + " | ".join(c.header for c in columns) + " |", "|" + "---|" * len(columns)]
    for r in rows:
        cells = []
        for c in columns:
            text = _md(c.cell(r))
            target = c.link(r, links) if c.link else None
            cells.append(f"[{text}]({target})" if target else text)
        out.append("| " + " | ".join(cells) + " |")
    return out


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_text(rows: Sequence[PortRow], *, all_rows: Optional[Sequence[PortRow]] = None) -> str:
    """The table for a terminal (``all_rows``: the rows the counts line is about, when ``rows``
    is a selection such as --ported-only)."""
    def text(c: Column, r: PortRow) -> str:
        return _TEXT_CELLS.get(c.header, c.cell)(r)
    heads = [_TEXT_HEADERS.get(c.header, c.header) for c in COLUMNS]
    widths = [max(c.width, len(h)) for c, h in zip(COLUMNS, heads)]
    lines = [" ".join(h.ljust(w) for h, w in zip(heads, widths)).rstrip()]
    for r in rows:
        lines.append(" ".join(text(c, r).ljust(w) for c, w in zip(COLUMNS, widths)).rstrip())
    lines.append(table_counts(all_rows if all_rows is not None else rows))
    return "\n".join(lines) + "\n"


STATUS_FORMAT = "tileir_diff.port_table"
#: 2: an object (format, version, counts, rows) instead of a bare list of rows; rows carry
#: report_json, cubin_sha256, numerics.state and timing
STATUS_VERSION = 2


def status_document(rows: Sequence[PortRow], root: Path) -> Dict[str, Any]:
    """``suite status --format json`` (build/report/status.json): versioned, paths relative to
    the repository root."""
    def rel(value: Optional[str]) -> Optional[str]:
        return _relative(Path(value), root) if value else None
    out_rows = []
    for r in rows:
        d = r.to_dict()
        for key in ("python_ir", "rust_ir", "report", "report_json"):
            d[key] = rel(d[key])
        out_rows.append(d)
    done = ported(rows)
    return {"format": STATUS_FORMAT, "version": STATUS_VERSION,
            "counts": {"variants": len(rows), "ported": len(done), "pass": sum(r.status == "pass" for r in done),
                       "fail": sum(r.status == "fail" for r in done)},
            "columns": [c.header for c in COLUMNS], "rows": out_rows}


_INDEX_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1f2328;background:#fff}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #d0d7de;padding:3px 6px;text-align:left;
vertical-align:top}th{background:#f6f8fa;position:sticky;top:0}td{overflow-wrap:break-word}
.pass{background:#dafbe1;color:#116329}.fail{background:#ffebe9;color:#a40e26}.missing{color:#6e7781}
.stale{background:#fff8c5;color:#7d4e00}tr.r-missing td{color:#6e7781}a{color:#0969da}
"""


def render_index_html(rows: Sequence[PortRow], links: Links, *, title: str = "cuTile Rust ports") -> str:
    """build/report/index.html: every variant (ported first) with its verdict, status, a link to
    its report, numerics and the other COLUMNS; one self-contained page, every cell escaped."""
    from html import escape
    ordered = ported(rows) + [r for r in rows if r.verdict == "missing"]
    head = "".join(f"<th>{escape(c.header)}</th>" for c in COLUMNS)
    body = []
    for r in ordered:
        cells = []
        for c in COLUMNS:
            text = escape(c.cell(r))
            target = c.link(r, links) if c.link else None
            if target:
                text = f'<a href="{escape(target, quote=True)}">{text}</a>'
            klass = ""
            if c.header == "status":
                klass = f' class="{escape(r.status)}"'
            elif c.header == "numerics" and r.numerics.get("state") == "stale":
                klass = ' class="stale"'
            elif c.header == "device time vs reference" and r.timing and r.timing.get("state") != "current":
                klass = ' class="stale"'
            cells.append(f"<td{klass}>{text}</td>")
        body.append(f'<tr class="r-{escape(r.status)}">{"".join(cells)}</tr>')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{_INDEX_CSS}</style></head><body>"
            f"<h1>{escape(title)}</h1><p>{escape(table_counts(rows))}. Numerics: the last GPU run "
            "(<em>stale</em>: it tested another build of the cubin). Device time: geomean of the port's Rust / Python "
            "ratios over its benchmark configurations (under 1 = the port is faster).</p>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></body></html>\n")
