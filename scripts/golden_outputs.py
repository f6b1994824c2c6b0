"""Golden outputs for a refactor that must not change what the diff says.

    python scripts/golden_outputs.py record DIR [--ports N]
    python scripts/golden_outputs.py check DIR  [--ports N]

``record`` diffs a fixed set of pairs and writes, per pair, the JSON, text, Markdown and HTML
reports and the exit status under DIR (for the corpus pairs also ``tileir-diff diff A B`` and
``... -f json``, run in-process); ``check`` diffs the same pairs again and compares them
byte for byte (z3's counterexample values masked: any model may refute a query), printing the
first differing lines of each file that differs (exit 1 if any).
The pairs: every pair of tests/corpus/third_party_style (``<name>.left.tir`` / ``.right.tir``)
and tests/corpus/independent (``<port>.tileirbc`` against ``reference/<op>.<variant>.tileirbc``),
each file against itself (the identical path), and every k-th port row of the reference suite
(build/reference/<op>/<variant>.tileirbc against build/rust/<op>/<variant>.tileirbc, with the
launch facts and accepted differences ``suite status`` uses; ``--ports N``: about N rows, 0 for
none). z3 gets SMT_TIMEOUT_S per query (so that the load does not decide which queries time out). Timing figures (``seconds``, ``*_s``) are zeroed before rendering: they are the only
part of a report that may change from run to run.
"""
from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FORMATS = {"json": "json", "text": "txt", "markdown": "md", "html": "html", "dict": "dict.json"}


# z3's budget per query: the default 2 s leaves a query undecided or not depending on the load
SMT_TIMEOUT_S = 30.0


def _pairs(ports: int) -> Iterator[Tuple[str, Path, Path, Dict[str, Any]]]:
    """(name, left, right, diff options) for every golden pair, in a fixed order."""
    tps = ROOT / "tests/corpus/third_party_style"
    for left in sorted(tps.glob("*.left.tir")):
        name = left.name[:-len(".left.tir")]
        yield f"tps.{name}", left, tps / f"{name}.right.tir", {}
    ind = ROOT / "tests/corpus/independent"
    for meta in sorted(ind.glob("*.json")):
        if meta.name.endswith(".expect.json"):
            continue
        ref = json.loads(meta.read_text(encoding="utf-8"))["reference"]
        left = ind / "reference" / f"{ref['op']}.{ref['variant']}.tileirbc"
        yield f"ind.{meta.stem}", left, ind / f"{meta.stem}.tileirbc", {}
        yield f"self.{meta.stem}", left, left, {}
    if ports:
        yield from _port_pairs(ports)


def _port_pairs(wanted: int) -> Iterator[Tuple[str, Path, Path, Dict[str, Any]]]:
    from tileir_diff.suite.catalog import load_catalog
    from tileir_diff.suite.launch_facts import facts_for
    rows = []
    for spec in load_catalog(repo=ROOT):
        for v in spec.variants:
            py = ROOT / "build/reference" / spec.op / f"{v.name}.tileirbc"
            rs = ROOT / "build/rust" / spec.op / f"{v.name}.tileirbc"
            if py.is_file() and rs.is_file():
                rows.append((spec, v, py, rs))
    step = max(1, len(rows) // wanted)
    for spec, v, py, rs in rows[::step]:
        source = spec.analysis_path.resolve().relative_to(ROOT).as_posix()
        yield (f"port.{spec.op}.{v.name}", py, rs,
               {"launch": facts_for(spec, v, source), "accept": (spec, v.name, source)})


def _untimed(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: (0 if (k == "seconds" or k.endswith("_s")) and isinstance(v, (int, float)) else _untimed(v))
                for k, v in x.items()}
    if isinstance(x, list):
        return [_untimed(v) for v in x]
    return x


def _outputs(left: Path, right: Path, options: Dict[str, Any]) -> Dict[str, str]:
    import tileir_diff
    from tileir_diff.report import render
    accept = options.pop("accept", None)
    result = tileir_diff.diff(str(left.relative_to(ROOT)), str(right.relative_to(ROOT)),
                              limits={"smt_timeout_s": SMT_TIMEOUT_S}, **options)
    if accept is not None:
        from tileir_diff.suite.accept import apply_accepted
        spec, variant, source = accept
        result, _ = apply_accepted(result, spec.accepted_differences, variant, source)
    data = _untimed(result.to_dict())
    stats = type(result.stats).from_dict(data["stats"])
    result = result.replaced(stats=stats, proofs=data["proofs"])
    out = {fmt: render(result, fmt) for fmt in FORMATS if fmt != "dict"}
    out["dict"] = json.dumps(data, indent=2, sort_keys=False) + "\n"
    out["exit"] = f"{result.exit_code}\n"
    return out


def _cli_outputs(left: Path, right: Path) -> Dict[str, str]:
    """``tileir-diff diff A B`` as text and ``-f json`` (timings zeroed), each with its exit status."""
    import contextlib
    import io

    from tileir_diff import cli
    out = {}
    for fmt in ("text", "json"):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = cli.main(["diff", str(left.relative_to(ROOT)), str(right.relative_to(ROOT)), "-f", fmt,
                             "--color=never", "--smt-timeout", str(SMT_TIMEOUT_S)])
        text = buf.getvalue()
        if fmt == "json":
            text = json.dumps(_untimed(json.loads(text)), indent=2, ensure_ascii=False) + "\n"
        out[f"cli.{fmt}"] = f"exit {code}\n{text}"
    return out


def _files(ports: int) -> Iterator[Tuple[str, str]]:
    for name, left, right, options in _pairs(ports):
        try:
            outputs = _outputs(left, right, dict(options))
            if not name.startswith("port."):  # (the suite's rows go through the API, with launch facts)
                outputs.update(_cli_outputs(left, right))
        except Exception as e:  # an error is an output too (it must stay the same)
            outputs = {"error": f"{type(e).__name__}: {e}\n"}
        for fmt, text in outputs.items():
            yield f"{name}.{FORMATS.get(fmt, fmt)}", text


# z3 picks any model that refutes a query: its values (and which variables it names) may change
# from run to run, so they are masked before comparing; the rest of such a line is compared
_Z3_VALUES = [
    (re.compile(r"which differ for .*?: left -?\d+, right -?\d+"), "which differ for <z3 model>"),
    (re.compile(r"counterexample \(z3\): [^<\n]*"), "counterexample (z3): <z3 model>"),
    (re.compile(r'"counterexample": \{[^{}]*\}', re.S), '"counterexample": <z3 model>'),
    # which encoding found the model, and whether the other one confirmed it
    (re.compile(r'"note": "[^"\n]*encoding[^"\n]*"'), '"note": <z3 route>'),
]


def _masked(text: str) -> str:
    for pattern, mask in _Z3_VALUES:
        text = pattern.sub(mask, text)
    return text


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("action", choices=("record", "check"))
    p.add_argument("dir", type=Path)
    p.add_argument("--ports", type=int, default=40)
    args = p.parse_args(argv)
    if args.action == "record":
        args.dir.mkdir(parents=True, exist_ok=True)
        n = 0
        for fname, text in _files(args.ports):
            (args.dir / fname).write_text(text, encoding="utf-8")
            n += 1
        print(f"recorded {n} files in {args.dir}")
        return 0
    seen, bad = set(), 0
    for fname, text in _files(args.ports):
        seen.add(fname)
        path = args.dir / fname
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old == text or (old is not None and _masked(old) == _masked(text)):
            continue
        bad += 1
        if old is None:
            print(f"{fname}: not recorded")
            continue
        hunk = list(difflib.unified_diff(_masked(old).splitlines(), _masked(text).splitlines(), n=0,
                                         lineterm=""))[2:5]
        print(f"{fname}: differs: " + " | ".join(h[:300] for h in hunk))
    missing = sorted(p.name for p in args.dir.iterdir() if p.name not in seen)
    for name in missing:
        print(f"{name}: recorded but not produced now")
    print(f"checked {len(seen)} files: {len(seen) - bad} identical, {bad} differ, {len(missing)} missing")
    return 1 if bad or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
