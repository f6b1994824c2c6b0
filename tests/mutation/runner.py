"""Plans and runs the engines over kernels; aggregates outcomes into the per-operator tables.

Shared by tests/mutation/test_mutation.py (a small deterministic sample) and
scripts/mutation_engine.py (the full set).
"""
from __future__ import annotations

import difflib
import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import engine, invariances, operators
from .engine import Kernel, Outcome


@dataclass
class Plan:
    kernel: Kernel
    item: object           # a Mutation or a Transformation


def plan_mutations(kernels: Sequence[Kernel], kinds: Optional[Sequence[str]] = None,
                   per_kernel_kind: Optional[int] = None, per_family_kind: Optional[int] = None,
                   budget: Optional[int] = None, seed: int = 0,
                   site_counts: Optional[Dict[Tuple[str, str], Tuple[int, int]]] = None) -> List[Plan]:
    """Every mutant of every kernel (exhaustively enumerated), then sampled down: at most
    ``per_kernel_kind`` per (kernel, kind), ``per_family_kind`` per (family, kind), ``budget`` in
    all (spread evenly over (family, kind) groups). ``site_counts`` gets (family, kind) ->
    (distinct sites, mutants enumerated) before sampling."""
    kinds = list(kinds or operators.OPERATORS)
    groups: Dict[Tuple[str, str], List[Plan]] = defaultdict(list)
    for k in kernels:
        for kind in kinds:
            try:
                muts = list(operators.OPERATORS[kind](k.module))
            except Exception as exc:  # an enumerator bug must not stop the run
                print(f"warning: {k.name}: enumerating {kind} raised {type(exc).__name__}: {exc}")
                continue
            if site_counts is not None:
                s, n = site_counts.get((k.family, kind), (0, 0))
                site_counts[(k.family, kind)] = (s + len({m.site for m in muts}), n + len(muts))
            muts = _spread(muts, per_kernel_kind, seed, k.name, kind)
            groups[(k.family, kind)].extend(Plan(k, m) for m in muts)
    for g, items in groups.items():
        groups[g] = engine.sample(items, per_family_kind, seed, *g)
    if budget is not None:
        groups = _budget(groups, budget, seed)
    out = [p for g in sorted(groups) for p in groups[g]]
    return out


def _spread(muts, n, seed, *parts):
    """Sample ``n`` mutants, first one per site (round robin over sites) so that a site with
    many variants (rewire) does not crowd out the others."""
    if n is None or len(muts) <= n:
        return muts
    by_site: Dict[str, List] = defaultdict(list)
    for m in muts:
        by_site[m.site].append(m)
    rng = engine.rng_for(seed, *parts)
    sites = list(by_site)
    rng.shuffle(sites)
    for s in sites:
        rng.shuffle(by_site[s])
    chosen = []
    while len(chosen) < n:
        progressed = False
        for s in sites:
            if by_site[s] and len(chosen) < n:
                chosen.append(by_site[s].pop())
                progressed = True
        if not progressed:
            break
    keys = {m.key for m in chosen}
    return [m for m in muts if m.key in keys]


def _budget(groups, budget, seed):
    """Round robin over groups until ``budget`` items are taken."""
    order = sorted(groups)
    pools = {g: engine.sample(groups[g], None, seed) for g in order}
    for g in order:
        engine.rng_for(seed, "budget", *g).shuffle(pools[g])
    taken: Dict = defaultdict(list)
    n = 0
    while n < budget and any(pools.values()):
        for g in order:
            if pools[g] and n < budget:
                taken[g].append(pools[g].pop())
                n += 1
    return taken


def plan_invariances(kernels: Sequence[Kernel], kinds: Optional[Sequence[str]] = None,
                     per_kernel_kind: Optional[int] = None, budget: Optional[int] = None, seed: int = 0
                     ) -> List[Plan]:
    kinds = list(kinds or invariances.TRANSFORMS)
    groups: Dict[Tuple[str, str], List[Plan]] = defaultdict(list)
    for k in kernels:
        for kind in kinds:
            try:
                trs = list(invariances.TRANSFORMS[kind](k.module))
            except Exception as exc:
                print(f"warning: {k.name}: enumerating {kind} raised {type(exc).__name__}: {exc}")
                continue
            cap = per_kernel_kind if kind != "reencode" or per_kernel_kind is None else max(per_kernel_kind, 5)
            trs = _spread(trs, cap, seed, k.name, kind)
            groups[(k.family, kind)].extend(Plan(k, t) for t in trs)
    if budget is not None:
        groups = _budget(groups, budget, seed)
    return [p for g in sorted(groups) for p in groups[g]]


def run(plans: Sequence[Plan], evaluate: Callable[[Kernel, object], Outcome],
        progress: Optional[Callable[[int, int, Outcome], None]] = None) -> List[Outcome]:
    out = []
    for i, p in enumerate(plans):
        o = evaluate(p.kernel, p.item)
        out.append(o)
        if progress:
            progress(i, len(plans), o)
    return out


# --- tables -------------------------------------------------------------------------------------------

MUT_COLUMNS = ("sites", "enumerated", "mutants", "discarded", "valid", "caught", "maybe-equivalent", "false-same",
               "false-same-unverified", "crash")


def mutation_table(outcomes: Sequence[Outcome], by: str,
                   site_counts: Optional[Dict[Tuple[str, str], Tuple[int, int]]] = None) -> Dict[str, Dict[str, int]]:
    rows: Dict[str, Counter] = defaultdict(Counter)
    sites: Dict[str, set] = defaultdict(set)
    for o in outcomes:
        key = getattr(o, by)
        r = rows[key]
        r["mutants"] += 1
        sites[key].add((o.kernel, o.key.split("|")[1]))
        if o.status == "discarded":
            r["discarded"] += 1
            r[f"discarded:{o.discard}"] += 1
        else:
            r["valid"] += 1
            r[o.status] += 1
    for key in rows:
        rows[key]["sites_sampled"] = len(sites[key])
    if site_counts:
        for (fam, kind), (s, n) in site_counts.items():
            key = fam if by == "family" else kind
            if key in rows:
                rows[key]["sites_enumerated"] += s
                rows[key]["enumerated"] += n
    return fix_sites({k: dict(v) for k, v in sorted(rows.items())})


def fix_sites(table):
    """``sites`` = every applicable site enumerated (when known), else the sites sampled."""
    for row in table.values():
        if "sites_enumerated" in row:
            row.setdefault("sites_sampled", row.get("sites", 0))
            row["sites"] = row["sites_enumerated"]
        else:
            row["sites"] = row.get("sites_sampled", row.get("sites", 0))
    return table


def totals(table: Dict[str, Dict[str, int]]) -> Dict[str, int]:
    t: Counter = Counter()
    for row in table.values():
        t.update(row)
    return dict(t)


def format_table(table: Dict[str, Dict[str, int]], columns: Sequence[str], title: str) -> str:
    cols = list(columns)
    head = [title] + cols
    rows = [[k] + [str(v.get(c, 0)) for c in cols] for k, v in table.items()]
    t = totals(table)
    rows.append(["TOTAL"] + [str(t.get(c, 0)) for c in cols])
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    lines = ["  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(head, widths)))]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
    return "\n".join(lines)


def markdown_table(table: Dict[str, Dict[str, int]], columns: Sequence[str], title: str) -> str:
    cols = list(columns)
    lines = ["| " + " | ".join([title] + cols) + " |", "|" + "---|" * (len(cols) + 1)]
    for k, v in table.items():
        lines.append("| " + " | ".join([f"`{k}`"] + [str(v.get(c, 0)) for c in cols]) + " |")
    t = totals(table)
    lines.append("| " + " | ".join(["**total**"] + [f"**{t.get(c, 0)}**" for c in cols]) + " |")
    return "\n".join(lines)


INV_COLUMNS = ("transformations", "discarded", "valid", "ok", "false-alarm")


def invariance_table(outcomes: Sequence[Outcome], by: str) -> Dict[str, Dict[str, int]]:
    rows: Dict[str, Counter] = defaultdict(Counter)
    for o in outcomes:
        r = rows[getattr(o, by)]
        r["transformations"] += 1
        if o.status == "discarded":
            r["discarded"] += 1
            r[f"discarded:{o.discard}"] += 1
        else:
            r["valid"] += 1
            r[o.status] += 1
    return {k: dict(v) for k, v in sorted(rows.items())}


# --- dumps -----------------------------------------------------------------------------------------------

def _safe(s: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in s)[:120]


def dump_pairs(outcomes: Sequence[Outcome], kernels: Dict[str, Kernel], out_dir: Path, statuses: Sequence[str],
               title: str, command: str) -> List[Outcome]:
    """original/mutant text pairs (+ the mutant's bytecode and a unified diff) for each outcome
    whose status is in ``statuses``, and a summary.txt grouped by class."""
    if out_dir.exists() and (out_dir / "summary.txt").exists():
        import shutil
        for child in out_dir.iterdir():  # only what an earlier dump wrote here
            if child.is_dir() and (child / "info.json").exists():
                shutil.rmtree(child)
    out_dir.mkdir(parents=True, exist_ok=True)
    chosen = [o for o in outcomes if o.status in statuses]
    by_class: Dict[str, List[Outcome]] = defaultdict(list)
    for o in chosen:
        by_class[o.cls].append(o)
    lines = [title, "", f"{len(chosen)} mutants in {len(by_class)} classes "
             f"(class = mutation kind : subclass; kind|site|variant is the key to rebuild one)", "",
             "Reproduce one: " + command, ""]
    n = 0
    for cls in sorted(by_class, key=lambda c: (-len(by_class[c]), c)):
        group = by_class[cls]
        lines.append(f"== {cls}: {len(group)} (kernels: {len(set(o.kernel for o in group))})")
        for i, o in enumerate(group):
            n += 1
            d = out_dir / f"{n:04d}_{_safe(cls)}"
            d.mkdir(exist_ok=True)
            k = kernels[o.kernel]
            orig = engine.original_text(str(k.path))
            (d / "original.txt").write_text(orig)
            (d / "mutant.txt").write_text(o.text)
            (d / "original.tileirbc").write_bytes(k.path.read_bytes())
            (d / "mutant.tileirbc").write_bytes(o.data)
            (d / "text.diff").write_text("".join(difflib.unified_diff(
                orig.splitlines(True), o.text.splitlines(True), "original.txt", "mutant.txt", n=3)))
            info = o.to_dict()
            info["kernel_path"] = str(k.path)
            (d / "info.json").write_text(json.dumps(info, indent=2) + "\n")
            if i < 6:
                lines.append(f"   {d.name}: {o.kernel} [{o.verdict}; interp {o.interp}] {o.desc}")
                lines.append(f"      key: {o.key}")
        if len(group) > 6:
            lines.append(f"   ... {len(group) - 6} more (directories {out_dir.name}/*_{_safe(cls)})")
        lines.append("")
    (out_dir / "summary.txt").write_text("\n".join(lines) + "\n")
    return chosen
