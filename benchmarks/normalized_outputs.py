#!/usr/bin/env python3
"""What a speed change must not change: the normalized module of every kernel, byte for byte.

    python3 benchmarks/normalized_outputs.py [--baseline DIR] [--out FILE] [PATH ...]

For every ``.tileirbc`` and ``.tir`` file under the PATHs (default: the reference suite's build,
``$TILEIR_REFERENCE_BUILD`` or build/reference, and tests/corpus), this writes the text of
``tileir-diff dump --normalized``, the rewrites per rule and which rule absorbed which op (as
``normalize(absorbed=...)`` reports them), or the one-line error of a file that does not load.
With ``--baseline DIR`` (another checkout's ``tileir_diff/`` parent, e.g. ``git archive <commit>
tileir_diff | tar -x -C DIR``) it writes the same for that checkout, under another hash seed, and
prints the files whose output differs; exit status 1 when any does.
"""
from __future__ import annotations

import argparse
import difflib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: One child process per checkout: every file's normalized text, counts and absorbed ops.
_CHILD = r"""
import sys
from tileir_diff.loader import load
from tileir_diff.normalize import normalize, tag_origins
from tileir_diff.text.printer import print_module
out = open(sys.argv[1], "w")
for path in sys.argv[2:]:
    out.write(f"=== {path}\n")
    try:
        module = load(path)
    except Exception as e:  # a file of the corpus that is meant not to load
        out.write(f"load error: {type(e).__name__}: {e}\n")
        continue
    absorbed = {}
    norm, counts = normalize(tag_origins(module), absorbed=absorbed)
    out.write(print_module(norm))
    out.write(f"counts: {sorted((k, v) for k, v in counts.items() if v)}\n")
    out.write(f"absorbed: {sorted(absorbed.items())}\n")
out.close()
"""


def kernel_files(paths):
    found = []
    for p in paths:
        p = Path(p)
        found += [p] if p.is_file() else sorted(q for q in p.rglob("*") if q.suffix in (".tileirbc", ".tir"))
    return [str(f) for f in found]


def outputs(root: Path, files, out: Path, seed: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONHASHSEED=seed)
    subprocess.run([sys.executable, "-c", _CHILD, str(out), *files], check=True, env=env, cwd=tempfile.gettempdir())
    return out.read_text()


def split(text: str) -> dict:
    parts = {}
    for chunk in text.split("=== ")[1:]:
        name, _, body = chunk.partition("\n")
        parts[name] = body
    return parts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("paths", nargs="*", help="files or folders (default: the reference build and tests/corpus)")
    ap.add_argument("--baseline", type=Path, help="another checkout to compare with")
    ap.add_argument("--out", type=Path, help="keep this checkout's outputs here")
    args = ap.parse_args(argv)
    reference = Path(os.environ.get("TILEIR_REFERENCE_BUILD") or ROOT / "build" / "reference")
    files = kernel_files(args.paths or [reference, ROOT / "tests" / "corpus"])
    with tempfile.TemporaryDirectory() as tmp:
        mine = outputs(ROOT, files, args.out or Path(tmp) / "this.txt", "0")
        print(f"{len(files)} files, {len(mine):,} characters of output")
        if not args.baseline:
            return 0
        theirs = outputs(args.baseline.resolve(), files, Path(tmp) / "baseline.txt", "1")
    a, b = split(theirs), split(mine)
    changed = [f for f in files if a.get(f) != b.get(f)]
    for f in changed[:5]:
        sys.stdout.writelines(difflib.unified_diff(a.get(f, "").splitlines(True), b.get(f, "").splitlines(True),
                                                   f"baseline {f}", f"this {f}", n=1))
    print(f"{len(changed)} of {len(files)} files differ from the baseline")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
