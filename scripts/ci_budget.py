#!/usr/bin/env python3
"""Prints the phase times of scripts/test.sh as a table and checks them against the CI budget.

Usage: scripts/ci_budget.py PHASES_TSV [--budget .ci/budget.tsv] [--report-only]

PHASES_TSV holds `name<TAB>wall seconds<TAB>cpu seconds<TAB>status` per phase (scripts/phase_times.sh
writes it). With TILEIR_CI_BUDGET=enforce (.ci/run sets it) a phase past its budget, or one without
a budget, fails the run (exit 1) with a message naming it; otherwise it is reported as a warning.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Dict, List, Tuple

REPO = Path(__file__).resolve().parents[1]
BUDGET = REPO / ".ci" / "budget.tsv"


def read_budget(path: Path) -> Dict[str, float]:
    budget: Dict[str, float] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        try:
            budget[fields[0]] = float(fields[1])
        except (IndexError, ValueError):
            raise ValueError(f"{path}:{number}: expected `phase<TAB>seconds`, got {line!r}") from None
    return budget


def read_phases(path: Path) -> List[Tuple[str, float, str, str]]:
    """(name, wall seconds, cpu seconds or '', status) per line, in run order."""
    phases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split("\t")
        if len(fields) != 4:
            raise ValueError(f"{path}:{number}: expected 4 tab-separated fields, got {line!r}")
        phases.append((fields[0], float(fields[1]), fields[2], fields[3]))
    return phases


def table(phases, budget: Dict[str, float]) -> List[str]:
    lines = [f"{'phase':<12} {'wall s':>8} {'cpu s':>8} {'budget s':>9} {'of budget':>9}  status"]
    for name, wall, cpu, status in phases:
        limit = budget.get(name)
        share = f"{100 * wall / limit:.0f} %" if limit else "-"
        lines.append(f"{name:<12} {wall:8.1f} {cpu or '':>8} {f'{limit:.0f}' if limit else '-':>9} {share:>9}  "
                     f"{'ok' if status == '0' else 'failed: ' + status}")
    return lines


def over_budget(phases, budget: Dict[str, float]) -> List[str]:
    problems = []
    for name, wall, _, _ in phases:
        if name not in budget:
            problems.append(f"phase {name!r} has no budget in {BUDGET.relative_to(REPO)}: add one")
        elif wall > budget[name]:
            problems.append(f"phase {name!r} took {wall:.0f} s, over its budget of {budget[name]:.0f} s "
                            f"({100 * wall / budget[name]:.0f} %): find what grew (the phase lines, the slowest "
                            f"tests and the seconds per tests/ folder above) before raising its budget")
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("phases", type=Path)
    ap.add_argument("--budget", type=Path, default=BUDGET)
    ap.add_argument("--report-only", action="store_true", help="print the table, check nothing")
    args = ap.parse_args(argv)
    try:
        phases, budget = read_phases(args.phases), read_budget(args.budget)
    except (OSError, ValueError) as exc:
        print(f"ci_budget: {exc}", file=sys.stderr)
        return 2
    print("\n".join(["", "CI phase times (scripts/test.sh; budget: .ci/budget.tsv)", *table(phases, budget)]))
    if args.report_only:
        return 0
    problems = over_budget(phases, budget)
    enforce = os.environ.get("TILEIR_CI_BUDGET") == "enforce"
    for problem in problems:
        print(f"ci_budget: {'FAILED' if enforce else 'warning'}: {problem}", file=sys.stderr)
    return 1 if problems and enforce else 0


if __name__ == "__main__":
    sys.exit(main())
