#!/usr/bin/env python3
"""Export the decoder-oracle corpus: every case of tests/corpus/kernels at every bytecode version.

    python3 tests/corpus/generate.py [--out DIR] [--only NAME ...] [--versions 13.3 ...]
                                     [--write-doc]

For each case and version it writes ``DIR/<name>.v13_<minor>.tileirbc``, runs ``tileirdisasm`` on
it, and records the distinct op names of the disassembly in ``DIR/manifest.json``.  A case that
cannot be exported (or disassembled) at some version is recorded with its error and skipped for
that version only.  ``DIR/ops.txt`` gets the plain sorted list of every op name seen.  With
``--only`` the entries of the other cases already in DIR's manifest are kept.

Needs cuda-tile 1.7.0 and nvidia-cuda-tileiras (for ``tileirdisasm``); no GPU.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

CORPUS_DIR = Path(__file__).resolve().parent
DEFAULT_OUT = CORPUS_DIR / "data"
DOC_PATH = CORPUS_DIR.parent.parent / "docs" / "corpus.md"
TILEIR_MAGIC = b"\x7fTileIR\x00"

VERSIONS = ("13.1", "13.2", "13.3", "13.4")
# Architecture-independent bytecode (gpu_code=None) is refused by cuTile 1.7.0 below 13.3, so the
# two older versions are exported for sm_90 (accepted by export_kernel for 13.1/13.2; only the
# entry hints key changes).  From 13.3 on we export architecture-independent bytecode.
DEFAULT_GPU_CODE = {"13.1": "sm_90", "13.2": "sm_90", "13.3": None, "13.4": None}

DOC_BEGIN = "<!-- BEGIN GENERATED COVERAGE (tests/corpus/generate.py --write-doc) -->"
DOC_END = "<!-- END GENERATED COVERAGE -->"

# `%a, %b = opname ...`, `%a:2 = opname ...` (result pack) or `opname ...` (entry, global,
# loop, if, return, break, ...).  Region-argument lines start with `(` and are not ops.
_RESULT = r"%[\w.$-]+(?::\d+)?"
_RESULT_OP = re.compile(rf"^{_RESULT}(?:\s*,\s*{_RESULT})*\s*=\s*([a-z_][\w.]*)")
_BARE_OP = re.compile(r"^([a-z_][\w.]*)\b")


def find_tileirdisasm() -> str:
    """tileirdisasm from PATH, else from the nvidia-cuda-tileiras wheel."""
    found = shutil.which("tileirdisasm")
    if found:
        return found
    try:
        import nvidia  # namespace package of the CUDA wheels
    except ImportError:
        nvidia = None
    for root in getattr(nvidia, "__path__", []):
        candidate = Path(root) / "cu13" / "bin" / "tileirdisasm"
        if candidate.is_file():
            return str(candidate)
    raise FileNotFoundError(
        "tileirdisasm not found on PATH nor in the nvidia-cuda-tileiras wheel; "
        "pip install nvidia-cuda-tileiras==13.5.37")


def op_names(disasm_text: str) -> list[str]:
    """Sorted distinct op names in tileirdisasm text (block terminators and `else` included)."""
    names = set()
    for line in disasm_text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("}") or stripped.startswith("//"):
            continue
        m = _RESULT_OP.match(stripped) or _BARE_OP.match(stripped)
        if m:
            names.add(m.group(1))
    return sorted(names)


def file_name(case_name: str, version: str) -> str:
    major, minor = version.split(".")
    return f"{case_name}.v{major}_{minor}.tileirbc"


def export_one(case, version: str, path: Path) -> None:
    from cuda.tile.compilation import export_kernel

    gpu_code = case.gpu_code if case.gpu_code is not None else DEFAULT_GPU_CODE[version]
    export_kernel(case.kernel, case.signatures(), str(path), gpu_code=gpu_code,
                  output_format="tileir_bytecode", bytecode_version=version)


def disassemble(tool: str, path: Path) -> str:
    proc = subprocess.run([tool, str(path)], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"tileirdisasm exit {proc.returncode}: {proc.stderr.strip()[:400]}")
    return proc.stdout


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:500]


def generate(out_dir: Path, only=None, versions=VERSIONS, log=print) -> list[dict]:
    """Export the selected cases; return the manifest entries for them (also written to disk)."""
    sys.path.insert(0, str(CORPUS_DIR))
    try:
        from kernels import all_cases
    finally:
        sys.path.remove(str(CORPUS_DIR))

    cases = all_cases()
    all_names = {c.name for _, c in cases}
    if only:
        known = {c.name for _, c in cases}
        unknown = sorted(set(only) - known)
        if unknown:
            raise SystemExit(f"unknown case name(s): {', '.join(unknown)}")
        cases = [(m, c) for m, c in cases if c.name in set(only)]
    bad_versions = [v for v in versions if v not in VERSIONS]
    if bad_versions:
        raise SystemExit(f"unsupported bytecode version(s) {bad_versions}; choose from {VERSIONS}")

    tool = find_tileirdisasm()
    out_dir.mkdir(parents=True, exist_ok=True)
    entries = []
    for module, case in cases:
        for version in versions:
            fname = file_name(case.name, version)
            path = out_dir / fname
            entry = {
                "name": case.name, "module": module, "version": version,
                "gpu_code": case.gpu_code if case.gpu_code is not None
                else DEFAULT_GPU_CODE[version],
                "symbols": [s for s, _ in case.entries],
            }
            try:
                export_one(case, version, path)
            except Exception as exc:  # recorded, not hidden: some ops need newer bytecode
                if path.exists():
                    path.unlink()
                entry.update(status="export_failed", error=_first_line(exc), file=None, bytes=0,
                             ops=[])
                log(f"  SKIP {case.name} @ {version}: {entry['error']}")
                entries.append(entry)
                continue
            data = path.read_bytes()
            entry.update(file=fname, bytes=len(data))
            try:
                if not data.startswith(TILEIR_MAGIC):
                    raise RuntimeError("output does not start with the Tile IR magic")
                entry.update(status="ok", ops=op_names(disassemble(tool, path)))
            except Exception as exc:
                entry.update(status="disasm_failed", error=_first_line(exc), ops=[])
                log(f"  DISASM FAIL {case.name} @ {version}: {entry['error']}")
            entries.append(entry)

    manifest_path = out_dir / "manifest.json"
    merged = entries
    if only and manifest_path.exists():
        selected = {e["name"] for e in entries}
        # Keep other cases' entries, dropping cases that no longer exist in the kernels.
        kept = [e for e in json.loads(manifest_path.read_text())
                if e["name"] in all_names
                and (e["name"] not in selected or e["version"] not in versions)]
        merged = kept + entries
    merged.sort(key=lambda e: (e["module"], e["name"], e["version"]))
    manifest_path.write_text(json.dumps(merged, indent=1) + "\n")
    (out_dir / "ops.txt").write_text("".join(f"{op}\n" for op in all_ops(merged)))
    return merged


def all_ops(entries) -> list[str]:
    return sorted({op for e in entries for op in e["ops"]})


def coverage_rows(entries):
    """[(op, files containing it, versions where it appears)] sorted by op name."""
    count = Counter()
    where = defaultdict(set)
    for e in entries:
        for op in e["ops"]:
            count[op] += 1
            where[op].add(e["version"])
    return [(op, count[op], sorted(where[op])) for op in sorted(count)]


def coverage_markdown(entries) -> str:
    ok = [e for e in entries if e["status"] == "ok"]
    failed = [e for e in entries if e["status"] != "ok"]
    lines = [
        f"{len({e['name'] for e in entries})} cases, {len(ok)} files accepted by tileirdisasm, "
        f"{len(failed)} case/version pairs not exported.",
        "",
        "| op | files | versions |",
        "|---|---:|---|",
    ]
    for op, n, versions in coverage_rows(ok):
        lines.append(f"| `{op}` | {n} | {', '.join(versions)} |")
    if failed:
        lines += ["", "Case/version pairs that did not export (recorded in the manifest):", "",
                  "| case | version | error |", "|---|---|---|"]
        for e in failed:
            err = e["error"].replace("|", "\\|")
            lines.append(f"| {e['name']} | {e['version']} | {err} |")
    return "\n".join(lines)


def write_doc_section(entries, doc_path: Path = DOC_PATH) -> None:
    text = doc_path.read_text()
    if DOC_BEGIN not in text or DOC_END not in text:
        raise SystemExit(f"{doc_path} lacks the generated-coverage markers")
    head, rest = text.split(DOC_BEGIN, 1)
    _, tail = rest.split(DOC_END, 1)
    doc_path.write_text(f"{head}{DOC_BEGIN}\n{coverage_markdown(entries)}\n{DOC_END}{tail}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="only these case names")
    ap.add_argument("--versions", nargs="+", default=list(VERSIONS), metavar="V")
    ap.add_argument("--write-doc", action="store_true",
                    help="rewrite the generated coverage section of docs/corpus.md")
    args = ap.parse_args(argv)

    entries = generate(args.out, only=args.only, versions=tuple(args.versions))
    ok = [e for e in entries if e["status"] == "ok"]
    print(f"\n{'op':<32} {'files':>5}  versions")
    for op, n, versions in coverage_rows(ok):
        print(f"{op:<32} {n:>5}  {','.join(versions)}")
    failed = [e for e in entries if e["status"] != "ok"]
    print(f"\n{len(ok)} files ok, {len(failed)} case/version pairs failed, "
          f"{len(all_ops(ok))} distinct ops -> {args.out / 'manifest.json'}")
    if args.write_doc:
        write_doc_section(entries)
    return 1 if any(e["status"] == "disasm_failed" for e in entries) else 0


if __name__ == "__main__":
    sys.exit(main())
