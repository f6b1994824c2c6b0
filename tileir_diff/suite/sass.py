"""SASS identity of each port: the Python reference's sm_90 cubin against the Rust port's.

Two cubins compiled by tileiras from the two IRs are compared on the CPU:

* **SASS**: ``nvdisasm -c`` of each, with instruction offsets and encodings dropped and the entry
  symbol (``<kernel>__<variant>`` on the Python side, ``<kernel>_entry`` on the Rust side)
  replaced by ``<entry>``. Relocated operands stay symbolic in that listing, so two equal
  listings are the same machine code.
* **Resources** per entry (``cuobjdump --dump-resource-usage``): registers, stack, shared and
  local memory, the size of each constant bank (bank 0 holds the parameters).
* **Constant banks**: the bytes of every ``.nv.constant<N>`` section of the ELF (read here,
  no tool), entry symbol normalized in the section name.

The verdict is ``identical`` only when all three agree; otherwise ``different`` with what differs
(instruction counts, changed lines, first change, resources, banks). The tools come from
``$TILEIR_CUDA_BIN``, the PATH, or the pip wheels ``nvidia-cuda-nvdisasm`` and
``nvidia-cuda-cuobjdump`` (``nvidia/cu13/bin`` in site-packages). ``tileir-diff suite sass``
writes ``docs/results/ports_sass.json``; the port table reads it (docs/rust_ports.md).
"""
from __future__ import annotations

import datetime as _dt
import difflib
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

from ..errors import printable

RESULTS_FILE = "docs/results/ports_sass.json"
TOOLS_ENV = "TILEIR_CUDA_BIN"
ENTRY = "<entry>"
TOOL_TIMEOUT_S = 120


class SassError(RuntimeError):
    """A cubin could not be read or disassembled (file and offset or tool message in the text)."""


def find_tool(name: str) -> Optional[str]:
    """Path of cuobjdump / nvdisasm: $TILEIR_CUDA_BIN, the PATH, then the pip wheels."""
    env = os.environ.get(TOOLS_ENV)
    if env:
        candidate = Path(env) / name
        return str(candidate) if candidate.is_file() else None
    found = shutil.which(name)
    if found:
        return found
    for base in sys.path:
        for sub in ("nvidia/cu13/bin", "nvidia/cuda_nvdisasm/bin", "nvidia/cuda_cuobjdump/bin"):
            candidate = Path(base or ".") / sub / name
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return None


def _run(tool: str, args: Sequence[str], path: Path) -> str:
    try:
        r = subprocess.run([tool, *args, str(path)], capture_output=True, text=True, timeout=TOOL_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise SassError(printable(f"{path}: {Path(tool).name} did not finish in {TOOL_TIMEOUT_S} s")) from None
    if r.returncode != 0:
        first = (r.stderr.strip() or r.stdout.strip() or f"exit status {r.returncode}").splitlines()[0]
        raise SassError(printable(f"{path}: {Path(tool).name}: {first}"))
    return r.stdout


# ------------------------------------------------------------------------------------------
# ELF sections (constant banks), read without any tool

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")
SHT_NOBITS = 8


def elf_sections(path: Path) -> Dict[str, bytes]:
    """Name -> contents of every section of a 64-bit little-endian ELF (NOBITS sections: b"")."""
    data = path.read_bytes()

    def need(offset: int, size: int, what: str) -> None:
        if offset < 0 or offset + size > len(data):
            raise SassError(printable(f"{path}: offset {offset}: {what} runs past the end of the file "
                                      f"({len(data)} bytes)"))

    need(0, _EHDR.size, "ELF header")
    header = _EHDR.unpack_from(data, 0)
    ident = header[0]
    if ident[:4] != b"\x7fELF" or ident[4] != 2 or ident[5] != 1:
        raise SassError(printable(f"{path}: offset 0: not a 64-bit little-endian ELF file"))
    shoff, shentsize, shnum, shstrndx = header[6], header[11], header[12], header[13]
    if shnum == 0:
        return {}
    if shentsize != _SHDR.size:
        raise SassError(printable(f"{path}: offset 58: section header size {shentsize}, expected {_SHDR.size}"))
    need(shoff, shnum * shentsize, "section header table")
    if shstrndx >= shnum:
        raise SassError(printable(f"{path}: offset 62: section name table index {shstrndx} >= {shnum} sections"))
    headers = [_SHDR.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
    names_hdr = headers[shstrndx]
    need(names_hdr[4], names_hdr[5], "section name table")
    names = data[names_hdr[4]:names_hdr[4] + names_hdr[5]]
    out: Dict[str, bytes] = {}
    for i, h in enumerate(headers):
        name_off, sh_type, offset, size = h[0], h[1], h[4], h[5]
        end = names.find(b"\0", name_off)
        if name_off >= len(names) or end < 0:
            raise SassError(printable(f"{path}: offset {shoff + i * shentsize}: section {i} name outside the "
                                      f"name table"))
        name = names[name_off:end].decode("utf-8", "replace")
        if sh_type == SHT_NOBITS:
            out[name] = b""
            continue
        need(offset, size, f"section {name!r}")
        out[name] = data[offset:offset + size]
    return out


def constant_banks(path: Path, entries: Sequence[str]) -> Dict[str, str]:
    """sha256 of each .nv.constant<N> section, the entry symbol in its name replaced by <entry>."""
    banks = {}
    for name, content in elf_sections(path).items():
        if name.startswith(".nv.constant"):
            banks[_normalize_names(name, entries)] = hashlib.sha256(content).hexdigest()
    return dict(sorted(banks.items()))


# ------------------------------------------------------------------------------------------
# listings and resources

_OFFSET = re.compile(r"/\*[0-9a-fA-F]{4,}\*/")
_ENCODING = re.compile(r"/\*\s*0x[0-9a-fA-F]+\s*\*/")
_GLOBAL = re.compile(r"^\s*\.global\s+(\S+)", re.M)


def _normalize_names(text: str, entries: Sequence[str]) -> str:
    for name in sorted(entries, key=len, reverse=True):
        text = re.sub(rf"(?<![\w$]){re.escape(name)}(?![\w$])", ENTRY, text)
    return text


def sass_listing(path: Path, tool: str) -> tuple[List[str], List[str]]:
    """(normalized instruction and label lines, entry symbols) of a cubin."""
    raw = _run(tool, ["-c"], path)
    entries = _GLOBAL.findall(raw)
    lines = []
    for line in _normalize_names(raw, entries).splitlines():
        line = _ENCODING.sub("", _OFFSET.sub("", line)).strip()
        if line and not line.startswith("//"):
            lines.append(" ".join(line.split()))
    return lines, entries


_FUNCTION = re.compile(r"^\s*Function\s+(\S+?):\s*$")
_FIELD = re.compile(r"([A-Z]+(?:\[\d+\])?):(\d+)")


def resource_usage(path: Path, tool: str) -> Dict[str, Dict[str, int]]:
    """cuobjdump --dump-resource-usage as {function or "common": {"REG": n, "SHARED": n, ...}}."""
    out: Dict[str, Dict[str, int]] = {}
    current = None
    for line in _run(tool, ["--dump-resource-usage"], path).splitlines():
        m = _FUNCTION.match(line)
        if m:
            current = m.group(1)
            continue
        if line.strip() == "Common:":
            current = "common"
            continue
        fields = dict((k, int(v)) for k, v in _FIELD.findall(line))
        if current is not None and fields:
            out.setdefault(current, {}).update(fields)
    return out


# ------------------------------------------------------------------------------------------
# the comparison


@dataclass
class SassComparison:
    op: str
    variant: str
    verdict: str  # identical | different | missing | unavailable | error
    python_cubin: Optional[str] = None
    rust_cubin: Optional[str] = None
    python_sha256: Optional[str] = None
    rust_sha256: Optional[str] = None
    instructions: Optional[Dict[str, int]] = None  # {"python": n, "rust": m}
    changed_lines: Optional[int] = None  # lines only in one listing (difflib)
    changed_opcodes: Optional[int] = None  # the same on the opcode sequence alone (registers ignored)
    opcode_delta: Dict[str, int] = field(default_factory=dict)  # opcode -> rust count - python count
    first_difference: Optional[Dict[str, Any]] = None
    resources: Dict[str, Dict[str, Any]] = field(default_factory=dict)  # name -> {"python", "rust"}
    resources_equal: Optional[bool] = None
    constant_banks_equal: Optional[bool] = None
    different_banks: List[str] = field(default_factory=list)
    error: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _entry_resources(usage: Dict[str, Dict[str, int]], entries: Sequence[str]) -> Dict[str, int]:
    merged: Dict[str, int] = {}
    for name, fields in usage.items():
        if name == "common":
            merged.update({f"common {k}": v for k, v in fields.items()})
        elif name in entries:
            merged.update(fields)
    return merged


def compare_cubins(op: str, variant: str, python_cubin: Path, rust_cubin: Path, *,
                   nvdisasm: Optional[str] = None, cuobjdump: Optional[str] = None) -> SassComparison:
    """Compare one variant's two cubins (see the module docstring for what counts)."""
    row = SassComparison(op, variant, "missing", python_cubin=str(python_cubin), rust_cubin=str(rust_cubin))
    if not python_cubin.is_file() or not rust_cubin.is_file():
        return row
    nvdisasm = nvdisasm or find_tool("nvdisasm")
    cuobjdump = cuobjdump or find_tool("cuobjdump")
    row.python_sha256, row.rust_sha256 = _sha256(python_cubin), _sha256(rust_cubin)
    if nvdisasm is None or cuobjdump is None:
        row.verdict = "unavailable"
        row.error = ("nvdisasm/cuobjdump not found: pip install nvidia-cuda-nvdisasm nvidia-cuda-cuobjdump, or set "
                     + TOOLS_ENV)
        return row
    try:
        py_lines, py_entries = sass_listing(python_cubin, nvdisasm)
        rs_lines, rs_entries = sass_listing(rust_cubin, nvdisasm)
        py_res = _entry_resources(resource_usage(python_cubin, cuobjdump), py_entries)
        rs_res = _entry_resources(resource_usage(rust_cubin, cuobjdump), rs_entries)
        py_banks = constant_banks(python_cubin, py_entries)
        rs_banks = constant_banks(rust_cubin, rs_entries)
    except (SassError, OSError) as exc:
        row.verdict, row.error = "error", printable(str(exc))
        return row
    row.instructions = {"python": _count_instructions(py_lines), "rust": _count_instructions(rs_lines)}
    # The listings are long (matmul: ~5,000 lines); SequenceMatcher without the junk heuristic
    # finds the same changed lines as a diff, in one pass.
    matcher = difflib.SequenceMatcher(a=py_lines, b=rs_lines, autojunk=False)
    changes = [o for o in matcher.get_opcodes() if o[0] != "equal"]
    row.changed_lines = sum((i2 - i1) + (j2 - j1) for _, i1, i2, j1, j2 in changes)
    if changes:
        _, i1, i2, j1, j2 = changes[0]
        row.first_difference = {"python": py_lines[i1] if i1 < i2 else "", "rust": rs_lines[j1] if j1 < j2 else "",
                                "python_line": i1}
    py_ops, rs_ops = opcodes(py_lines), opcodes(rs_lines)
    op_matcher = difflib.SequenceMatcher(a=py_ops, b=rs_ops, autojunk=False)
    row.changed_opcodes = sum((i2 - i1) + (j2 - j1) for tag, i1, i2, j1, j2 in op_matcher.get_opcodes()
                              if tag != "equal")
    counts: Dict[str, int] = {}
    for name in py_ops:
        counts[name] = counts.get(name, 0) - 1
    for name in rs_ops:
        counts[name] = counts.get(name, 0) + 1
    row.opcode_delta = dict(sorted(((k, v) for k, v in counts.items() if v), key=lambda kv: (-abs(kv[1]), kv[0])))
    for key in sorted(set(py_res) | set(rs_res)):
        row.resources[key] = {"python": py_res.get(key), "rust": rs_res.get(key)}
    row.resources_equal = py_res == rs_res
    row.different_banks = sorted(k for k in set(py_banks) | set(rs_banks) if py_banks.get(k) != rs_banks.get(k))
    row.constant_banks_equal = not row.different_banks
    row.verdict = "identical" if not changes and row.resources_equal and row.constant_banks_equal else "different"
    return row


def _is_instruction(line: str) -> bool:
    return line.endswith(";") and not line.startswith(".")


def _count_instructions(lines: Sequence[str]) -> int:
    return sum(1 for line in lines if _is_instruction(line))


def instructions(lines: Sequence[str]) -> List[tuple[str, str]]:
    """(opcode, operands) of each instruction line, the predicate guard such as ``@!P0`` dropped."""
    out = []
    for line in lines:
        if _is_instruction(line):
            words = line.split()
            if words[0].startswith("@") and len(words) > 1:
                words = words[1:]
            out.append((words[0].rstrip(";"), " ".join(words[1:]).rstrip(";").strip()))
    return out


def opcodes(lines: Sequence[str]) -> List[str]:
    """The opcode of each instruction line (predicate guard such as ``@!P0`` dropped)."""
    return [op for op, _ in instructions(lines)]


def summary_cell(record: Optional[Dict[str, Any]], current: Optional[tuple] = None) -> str:
    """The port table's SASS cell: identical / different (what) / stale / – ."""
    if not record:
        return "–"
    if current is not None and (record.get("python_sha256"), record.get("rust_sha256")) != current:
        return "stale (cubins rebuilt; rerun `tileir-diff suite sass`)"
    verdict = record.get("verdict", "–")
    if verdict != "different":
        return verdict
    parts = []
    ins = record.get("instructions") or {}
    if record.get("changed_lines"):
        parts.append(f"{ins.get('python')}→{ins.get('rust')} instr, {record.get('changed_opcodes')} opcodes "
                     f"and {record['changed_lines']} lines changed")
        delta = list((record.get("opcode_delta") or {}).items())[:3]
        if delta:
            parts.append(" ".join(f"{k} {v:+d}" for k, v in delta))
    res = {k: v for k, v in (record.get("resources") or {}).items() if v.get("python") != v.get("rust")}
    parts += [f"{k} {v.get('python')}→{v.get('rust')}" for k, v in sorted(res.items())]
    if record.get("different_banks"):
        parts.append("banks " + ",".join(record["different_banks"]))
    return "different (" + "; ".join(parts) + ")"


def compare_ports(specs, *, root: Path, ops: Optional[Sequence[str]] = None, reference_build: Optional[Path] = None,
                  rust_build: Optional[Path] = None, on_total: Optional[Callable[[int], None]] = None,
                  on_row: Optional[Callable[[SassComparison], None]] = None) -> List[SassComparison]:
    """One comparison per variant that has a Rust sm_90 cubin (<rust_build>/<op>/<variant>.sm_90.cubin;
    default build/rust and build/reference under `root`). ``on_total(n)`` is told how many
    comparisons will run, ``on_row`` is called as each is done (progress)."""
    reference_build = reference_build or root / "build" / "reference"
    rust_build = rust_build or root / "build" / "rust"
    nvdisasm, cuobjdump = find_tool("nvdisasm"), find_tool("cuobjdump")
    todo = [(spec.op, v.name) for spec in specs if not ops or spec.op in ops for v in spec.variants
            if (rust_build / spec.op / f"{v.name}.sm_90.cubin").is_file()]
    if on_total is not None:
        on_total(len(todo))
    rows = []
    for op, name in todo:
        python, rust = (build / op / f"{name}.sm_90.cubin" for build in (reference_build, rust_build))
        rows.append(compare_cubins(op, name, python, rust, nvdisasm=nvdisasm, cuobjdump=cuobjdump))
        if on_row is not None:
            on_row(rows[-1])
    return rows


def results_document(rows: Sequence[SassComparison], root: Path) -> Dict[str, Any]:
    tools = {name: find_tool(name) for name in ("nvdisasm", "cuobjdump")}
    versions = {}
    for name, path in tools.items():
        if path:
            try:
                versions[name] = subprocess.run([path, "--version"], capture_output=True, text=True,
                                                timeout=30).stdout.strip().splitlines()[-1]
            except (OSError, subprocess.TimeoutExpired, IndexError):
                versions[name] = "unknown"
    counts: Dict[str, int] = {}
    for r in rows:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    return {"schema_version": 1, "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "arch": "sm_90", "tools": versions, "summary": counts,
            "results": [_relative(r.to_dict(), root) for r in rows]}


def merge_documents(previous: Dict[str, Any], doc: Dict[str, Any]) -> Dict[str, Any]:
    """`doc` plus the records of `previous` for ops that `doc` did not compare (``--merge``);
    ``runs`` says which date each op's records come from. A re-compared op's records take the
    place of its old ones (ops new to the file go last), so a merge changes only what it re-ran."""
    compared = {r["op"] for r in doc["results"]}
    by_op: Dict[str, List[Dict[str, Any]]] = {}
    for r in previous.get("results", []):
        by_op.setdefault(r["op"], []).append(r)
    for op in compared:
        by_op[op] = []
    for r in doc["results"]:
        by_op.setdefault(r["op"], []).append(r)
    runs = [run for run in previous.get("runs", [{"date": previous.get("date"),
                                                   "ops": sorted({r["op"] for r in previous.get("results", [])})}])]
    runs = [dict(run, ops=[op for op in run["ops"] if op not in compared]) for run in runs]
    runs = [run for run in runs if run["ops"]] + [{"date": doc["date"], "ops": sorted(compared)}]
    results = [r for records in by_op.values() for r in records]
    counts: Dict[str, int] = {}
    for r in results:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    return dict(doc, summary=dict(sorted(counts.items())), runs=runs, results=results)


def _relative(record: Dict[str, Any], root: Path) -> Dict[str, Any]:
    for key in ("python_cubin", "rust_cubin"):
        if record.get(key):
            try:
                record[key] = str(Path(record[key]).resolve().relative_to(root.resolve()))
            except ValueError:
                pass
    return record


def load_sass(root: Path) -> Dict[tuple, Dict[str, Any]]:
    """(op, variant) -> record of docs/results/ports_sass.json; {} without the file."""
    path = root / RESULTS_FILE
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {(r["op"], r["variant"]): r for r in data.get("results", [])}
