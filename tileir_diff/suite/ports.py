"""The port table: every reference variant against its cuTile Rust port.

For each operator and variant in the catalog: the verdict of the Rust IR
(``build/rust/<op>/<variant>.tileirbc``, written by ``rust_kernels/build_ports.sh``) against the
Python reference IR (``build/reference/<op>/<variant>.tileirbc``), which of its differences are
accepted by the op's ``analysis.json`` (``accepted_differences``: category, what, why), whether
an sm_90 cubin of the port exists, and the last GPU numerics result
(``docs/results/ports_results.json``) and the SASS identity of the two sm_90 cubins
(``docs/results/ports_sass.json``, written by ``tileir-diff suite sass``; see sass.py).
A port passes when its verdict is identical or
equivalent, or when every remaining difference is accepted. Each row also counts the ``unsafe``
blocks of the op's Rust sources (rust_kernels/src/ops/<op>/: kernel.rs, and the C entry in
ffi.rs plus mod.rs), so that a port's unchecked surface stays visible.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence

from .catalog import OpSpec, VariantSpec, repo_root
from .sass import load_sass, summary_cell

RESULTS_FILE = "docs/results/ports_results.json"
RUST_OPS_DIR = "rust_kernels/src/ops"


@dataclass
class PortRow:
    op: str
    variant: str
    verdict: str  # identical | equivalent | different | unknown | missing | error
    status: str  # pass | fail | missing
    accepted_differences: List[Dict[str, Any]] = field(default_factory=list)
    unexplained_differences: List[Dict[str, Any]] = field(default_factory=list)
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
    report: Optional[str] = None
    error: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def accepted_by(diff: Dict[str, Any], entries: Iterable[Dict[str, Any]], variant: str) -> Optional[Dict[str, Any]]:
    """The accepted_differences entry that covers ``diff``: same category, ``variants`` (when
    given) listing this variant, and either ``match`` (when given) fitting the difference's
    ``detail`` (see detail_matches) or else ``what`` found in the message. ``match`` is the
    robust form: op names and roles, never value names or op ids that move when code changes."""
    message = diff.get("message", "").lower()
    detail = diff.get("detail") or {}
    for e in entries:
        if e.get("category") != diff.get("category"):
            continue
        if e.get("variants") and variant not in e["variants"]:
            continue
        if "match" in e:
            if detail_matches(e["match"], detail):
                return e
        elif str(e.get("what", "")).lower() in message:
            return e
    return None


def detail_matches(pattern: Any, value: Any) -> bool:
    """Whether ``value`` (a Difference.detail, or part of one) fits ``pattern``: a dict fits when
    every key of the pattern fits the value's entry; a list fits when each of its items fits some
    item of the value's list; anything else must be equal."""
    if isinstance(pattern, dict):
        return isinstance(value, dict) and all(k in value and detail_matches(v, value[k]) for k, v in pattern.items())
    if isinstance(pattern, list):
        return isinstance(value, list) and all(any(detail_matches(p, v) for v in value) for p in pattern)
    return pattern == value


_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_UNSAFE_BLOCK = re.compile(r"\bunsafe\s*\{")


def count_unsafe_blocks(source: str) -> int:
    """``unsafe {`` blocks in Rust source, comments left out (``unsafe fn`` and ``#[unsafe(..)]``
    attributes are not blocks)."""
    return len(_UNSAFE_BLOCK.findall(_COMMENTS.sub("", source)))


def unsafe_blocks(root: Path, op: str) -> Optional[Dict[str, int]]:
    """Unsafe blocks of rust_kernels/src/ops/<op>/: in kernel.rs (the cuTile port) and in the
    other files (the C entry); None when the op has no Rust port directory."""
    folder = root / RUST_OPS_DIR / op
    if not folder.is_dir():
        return None
    counts = {"kernel": 0, "ffi": 0}
    for path in sorted(folder.glob("*.rs")):
        counts["kernel" if path.name == "kernel.rs" else "ffi"] += count_unsafe_blocks(path.read_text(encoding="utf-8"))
    return counts


def _unsafe_cell(counts: Optional[Dict[str, int]]) -> str:
    return "–" if counts is None else f"{counts['kernel']}+{counts['ffi']}"


def load_numerics(root: Path) -> Dict[tuple, Dict[str, Any]]:
    path = root / RESULTS_FILE
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    out: Dict[tuple, Dict[str, Any]] = {}
    for case in data.get("cases", []):
        key = (case["op"], case["variant"])
        row = out.setdefault(key, {"result": "pass", "date": data.get("date"), "gpu": data.get("gpu"),
                                   "driver": data.get("driver"), "cases": 0})
        row["cases"] += 1
        if case.get("result") != "pass":
            row["result"] = "fail"
    return out


def port_rows(specs: Sequence[OpSpec], *, root: Optional[Path] = None, reference_build: Optional[Path] = None,
              rust_build: Optional[Path] = None, report_dir: Optional[Path] = None,
              ops: Optional[Iterable[str]] = None) -> List[PortRow]:
    """One row per (op, variant); diffs run here (networkx is imported on demand)."""
    root = root or repo_root()
    reference_build = reference_build or root / "build" / "reference"
    rust_build = rust_build or root / "build" / "rust"
    numerics = load_numerics(root)
    sass_records = load_sass(root)
    wanted = set(ops) if ops else None
    rows: List[PortRow] = []
    for spec in specs:
        if wanted and spec.op not in wanted:
            continue
        unsafe = unsafe_blocks(root, spec.op)
        for v in spec.variants:
            row = _row(spec, v, reference_build, rust_build, report_dir, numerics)
            if row.rust_ir is not None:
                row.unsafe_blocks = unsafe
            row.sass = sass_records.get((spec.op, v.name))
            if row.sass is not None:
                row.sass_cell = summary_cell(row.sass, _cubin_hashes(reference_build, rust_build, spec.op, v.name))
            rows.append(row)
    return rows


def _cubin_hashes(reference_build: Path, rust_build: Path, op: str, variant: str) -> Optional[tuple]:
    """sha256 of the two sm_90 cubins now on disk, to tell a stale SASS record; None when either is missing."""
    py, rs = reference_build / op / f"{variant}.sm_90.cubin", rust_build / op / f"{variant}.sm_90.cubin"
    if not (py.is_file() and rs.is_file()):
        return None
    return hashlib.sha256(py.read_bytes()).hexdigest(), hashlib.sha256(rs.read_bytes()).hexdigest()


def _row(spec: OpSpec, v: VariantSpec, reference_build: Path, rust_build: Path, report_dir: Optional[Path],
         numerics: Dict[tuple, Dict[str, Any]]) -> PortRow:
    py = reference_build / spec.op / f"{v.name}.tileirbc"
    rs = rust_build / spec.op / f"{v.name}.tileirbc"
    row = PortRow(spec.op, v.name, "missing", "missing", python_ir=str(py) if py.is_file() else None,
                  rust_ir=str(rs) if rs.is_file() else None,
                  cubin_sm90=(rust_build / spec.op / f"{v.name}.sm_90.cubin").is_file(),
                  numerics=numerics.get((spec.op, v.name), {"result": "not_run"}))
    if not rs.is_file():
        return row
    if not py.is_file():
        row.verdict, row.status = "error", "fail"
        row.error = f"the Python reference IR {py} is missing (run `tileir-diff suite export`)"
        return row
    from ..api import diff
    from ..errors import TileIRFormatError
    try:
        result = diff(py, rs)
    except TileIRFormatError as e:
        row.verdict, row.status, row.error = "error", "fail", str(e)
        return row
    data = result.to_dict()
    row.verdict = data["verdict"]
    row.rules_applied = data.get("rules_applied", {})
    for d in data.get("differences", []):
        entry = accepted_by(d, spec.accepted_differences, v.name)
        slim = {"category": d["category"], "message": d["message"]}
        if entry is None:
            row.unexplained_differences.append(slim)
        else:
            row.accepted_differences.append({**slim, "accepted_as": entry.get("what")})
    ok = row.verdict in ("identical", "equivalent") or (row.verdict in ("different", "specialized")
                                                        and not row.unexplained_differences)
    row.status = "pass" if ok else "fail"
    if report_dir is not None:
        out = report_dir / spec.op
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{v.name}.html").write_text(result.to_html(), encoding="utf-8")
        (out / f"{v.name}.json").write_text(result.to_json(), encoding="utf-8")
        row.report = str(out / f"{v.name}.html")
    return row


def render_markdown(rows: Sequence[PortRow], *, title: str = "cuTile Rust ports") -> str:
    ported = [r for r in rows if r.verdict != "missing"]
    passing = [r for r in ported if r.status == "pass"]
    lines = [f"# {title}", "",
             "Generated by `tileir-diff suite status --markdown docs/PORTS.md` "
             "(see docs/rust_ports.md). One row per reference variant: the verdict of the cuTile Rust",
             "port's IR against the cuTile Python reference IR, the differences accepted in the op's",
             "analysis.json, whether an sm_90 cubin of the port exists, the `unsafe` blocks of the op's",
             "Rust sources (kernel.rs + the C entry, ffi.rs and mod.rs), the last GPU numerics run and",
             "whether the two sm_90 cubins have the same SASS, registers, shared memory and constant banks",
             "(`tileir-diff suite sass`; docs/rust_ports.md, \"SASS identity\").", "",
             f"{len(ported)} of {len(rows)} variants ported; {len(passing)} pass the IR comparison.", "",
             "| op | variant | verdict | status | accepted differences | unexplained | cubin sm_90 | unsafe blocks "
             "(kernel+ffi) | numerics | SASS sm_90 |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        num = r.numerics.get("result", "not_run")
        if r.numerics.get("date"):
            num += f" ({r.numerics['date'][:10]}, {r.numerics.get('gpu', '')})"
        acc = "; ".join(sorted({a['accepted_as'] for a in r.accepted_differences})) or "–"
        une = "; ".join(d["message"] for d in r.unexplained_differences[:3]) or "–"
        if len(r.unexplained_differences) > 3:
            une += f" (+{len(r.unexplained_differences) - 3} more)"
        lines.append(f"| {r.op} | {r.variant} | {r.verdict} | {r.status} | {_md(acc)} | {_md(une)} | "
                     f"{'yes' if r.cubin_sm90 else 'no'} | {_unsafe_cell(r.unsafe_blocks)} | {_md(num)} | "
                     f"{_md(r.sass_cell)} |")
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_text(rows: Sequence[PortRow]) -> str:
    lines = [f"{'op':22} {'variant':28} {'verdict':11} {'status':8} {'acc':>4} {'unexp':>5} {'sm90':5} "
             f"{'unsafe':7} {'numerics':9} sass"]
    for r in rows:
        lines.append(f"{r.op:22} {r.variant:28} {r.verdict:11} {r.status:8} {len(r.accepted_differences):4d} "
                     f"{len(r.unexplained_differences):5d} {'yes' if r.cubin_sm90 else 'no':5} "
                     f"{_unsafe_cell(r.unsafe_blocks):7} {r.numerics.get('result', 'not_run'):9} "
                     f"{r.sass_cell.split(' ')[0]}")
    ported = [r for r in rows if r.verdict != "missing"]
    lines.append(f"{len(ported)} of {len(rows)} variants ported; "
                 f"{sum(r.status == 'pass' for r in ported)} pass the IR comparison")
    return "\n".join(lines) + "\n"
