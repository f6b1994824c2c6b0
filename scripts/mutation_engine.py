#!/usr/bin/env python3
"""Mutation and invariance engines over the corpus, the Rust-port IR, the synthetic kernels and
the reference suite: prints the per-operator tables and totals (see docs/verification.md).

    PYTHONPATH=. nice -n 10 python3 scripts/mutation_engine.py                 # the full run
    ... --budget 500 --ops rms_norm,softmax --kinds swap-operands,rewire      # a slice
    ... --json build/mutation/full.json --dump-false-same build/false_same
    ... --repro 'corpus/float_arith' 'swap-operands|f0/o20|0<->1'             # one mutant, verbose
    ... --jobs 16                                       # the same run on 16 cores (same outcomes)

An "operator" of the tables is a kernel family: a reference-suite op (rms_norm, softmax, ...),
a corpus theme (corpus:memory, ...), a Rust port family (rust:matmul) or "synthetic".
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.mutation import engine, invariances, operators, runner  # noqa: E402

#: defaults of the full run: every site of every kernel enumerated, then at most this many
#: mutants per (kernel, kind) (one per site first) and per (family, kind)
PER_KERNEL_KIND = 12
PER_FAMILY_KIND = 150
INV_PER_KERNEL_KIND = 3  # reencode: every version (5)


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=int, help="at most N mutants in all (spread over families and kinds)")
    ap.add_argument("--inv-budget", type=int, help="at most N invariance transformations in all")
    ap.add_argument("--ops", help="comma-separated families (rms_norm, corpus:memory, rust:softmax, synthetic) "
                                  "or kernel names (corpus/float_arith)")
    ap.add_argument("--kinds", help="comma-separated mutation kinds (default: all): " + ",".join(operators.OPERATORS))
    ap.add_argument("--inv-kinds", help="comma-separated invariance kinds: " + ",".join(invariances.TRANSFORMS))
    ap.add_argument("--per-kernel-kind", type=int, default=PER_KERNEL_KIND)
    ap.add_argument("--per-family-kind", type=int, default=PER_FAMILY_KIND)
    ap.add_argument("--inv-per-kernel-kind", type=int, default=INV_PER_KERNEL_KIND)
    ap.add_argument("--exhaustive", action="store_true", help="no per-kernel/per-family caps (huge: rewire)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-reference", action="store_true", help="skip the reference suite")
    ap.add_argument("--no-mutations", action="store_true")
    ap.add_argument("--no-invariances", action="store_true")
    ap.add_argument("--execute-caught", action="store_true",
                    help="also run the interpreter on caught mutants (splits them into shown-different / maybe-equivalent)")
    ap.add_argument("--json", type=Path, help="write every outcome and the tables as JSON")
    ap.add_argument("--dump-false-same", type=Path, metavar="DIR",
                    help="write original/mutant pairs of false-same mutants (and maybe-equivalent ones under "
                         "DIR/maybe_equivalent) plus summary.txt")
    ap.add_argument("--dump-false-alarms", type=Path, metavar="DIR")
    ap.add_argument("--jobs", type=int, default=1,
                    help="evaluate in N worker processes (fork); the plan, the outcomes and their order are those "
                         "of --jobs 1 (a counterexample in a detail may be another model)")
    ap.add_argument("--worker-mem-mb", type=float, default=8000,
                    help="with --jobs: stop a worker whose resident memory passes this (its item becomes a crash "
                         "naming it; a fresh worker goes on); 0: no limit")
    ap.add_argument("--item-timeout-s", type=float, default=900,
                    help="with --jobs: stop a worker whose item runs longer (a crash, as above); 0: no limit")
    ap.add_argument("--checkpoint", type=int, default=500, help="rewrite --json/--dump every N evaluations")
    ap.add_argument("--repro", nargs=2, metavar=("KERNEL", "KEY"), help="evaluate one mutant/transformation verbosely")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--from-json", type=Path, metavar="PATH",
                    help="no run: print the tables (and --markdown) of a saved --json file (or its .gz)")
    ap.add_argument("--markdown", type=Path, metavar="PATH", help="also write the tables as Markdown")
    return ap.parse_args(argv)


def select_kernels(args):
    ks = engine.all_kernels(reference=not args.no_reference)
    if args.ops:
        want = set(args.ops.split(","))
        ks = [k for k in ks if k.family in want or k.name in want or k.family.split(":")[-1] in want]
    return ks


def repro(args) -> int:
    ks = {k.name: k for k in engine.all_kernels(reference=True)}
    k = ks[args.repro[0]]
    key = args.repro[1]
    kind = key.split("|")[0]
    if kind in operators.OPERATORS:
        m = operators.find_mutation(k.module, key)
        if m is None:
            print("no such mutant", file=sys.stderr)
            return 2
        o = engine.evaluate_mutation(k, m, execute_caught=True)
    else:
        t = invariances.find_transformation(k.module, key)
        if t is None:
            print("no such transformation", file=sys.stderr)
            return 2
        o = engine.evaluate_invariance(k, t)
    print(json.dumps(o.to_dict(), indent=2))
    if o.text:
        import difflib
        print("".join(difflib.unified_diff(engine.original_text(str(k.path)).splitlines(True),
                                           o.text.splitlines(True), "original", "mutant", n=2)))
        r = engine.run_diff(k.module, engine.read_bytecode(o.data, "<mutant>"))
        print(r.brief())
    return 0


def write_outputs(args, kernels, mut_out, inv_out, site_counts, elapsed, final):
    by_name = {k.name: k for k in kernels}
    tables = {}
    if mut_out is not None:
        tables["mutation_by_family"] = runner.mutation_table(mut_out, "family", site_counts)
        tables["mutation_by_kind"] = runner.mutation_table(mut_out, "kind", site_counts)
        tables["mutation_totals"] = runner.totals(tables["mutation_by_family"])
        tables["false_same_classes"] = dict(Counter(o.cls for o in mut_out
                                                    if o.status in ("false-same", "false-same-unverified")))
        tables["maybe_equivalent_classes"] = dict(Counter(o.cls for o in mut_out if o.status == "maybe-equivalent"))
    if inv_out is not None:
        tables["invariance_by_family"] = runner.invariance_table(inv_out, "family")
        tables["invariance_by_kind"] = runner.invariance_table(inv_out, "kind")
        tables["invariance_totals"] = runner.totals(tables["invariance_by_family"])
        tables["false_alarm_classes"] = dict(Counter(o.cls for o in inv_out if o.status == "false-alarm"))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        doc = {"final": final, "seconds": round(elapsed, 1), "seed": args.seed, "argv": sys.argv[1:],
               "kernels": len(kernels), "jobs": args.jobs, "cpus": os.cpu_count(), "tables": tables,
               "mutations": [o.to_dict() for o in mut_out or ()],
               "invariances": [o.to_dict() for o in inv_out or ()]}
        tmp = args.json.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc, indent=1) + "\n")
        tmp.replace(args.json)
    cmd = ("PYTHONPATH=. python3 scripts/mutation_engine.py --repro KERNEL 'KEY'   "
           "(or: tileir-diff diff DIR/original.tileirbc DIR/mutant.tileirbc)")
    if args.dump_false_same and mut_out is not None:
        runner.dump_pairs(mut_out, by_name, args.dump_false_same, ("false-same", "false-same-unverified"),
                          "False 'same' verdicts: valid mutants (tileirdisasm accepts them) that the interpreter "
                          "shows compute something different (false-same) or that it cannot run "
                          "(false-same-unverified), for which diff() says identical/equivalent."
                          + ("" if final else "  [PARTIAL RUN]"), cmd)
        runner.dump_pairs(mut_out, by_name, args.dump_false_same / "maybe_equivalent", ("maybe-equivalent",),
                          "Same verdict and the interpreter found no divergence: maybe equivalent mutants. Kinds "
                          "the interpreter cannot observe (token unorder / drop-join, memory ordering and scope, "
                          "hints) are real differences nevertheless." + ("" if final else "  [PARTIAL RUN]"), cmd)
        runner.dump_pairs(mut_out, by_name, args.dump_false_same / "crashes", ("crash",),
                          "Mutants on which diff() raised an exception." + ("" if final else "  [PARTIAL RUN]"), cmd)
    if args.dump_false_alarms and inv_out is not None:
        runner.dump_pairs(inv_out, by_name, args.dump_false_alarms, ("false-alarm",),
                          "Invariance false alarms: meaning-preserving transformations reported different/unknown.",
                          cmd)
    return tables


def outcomes_from_json(path: Path):
    if path.suffix == ".gz":
        import gzip
        doc = json.loads(gzip.decompress(path.read_bytes()))
    else:
        doc = json.loads(path.read_text())
    def mk(d):
        return engine.Outcome(**{k: d[k] for k in ("kernel", "family", "kind", "cls", "key", "desc", "status",
                                                    "discard", "verdict", "detail", "interp", "seconds")})
    return doc, [mk(d) for d in doc["mutations"]], [mk(d) for d in doc["invariances"]]


def markdown(tables, elapsed, mut_out, inv_out, jobs: int = 1, cpus=None) -> str:
    cols = [c for c in runner.MUT_COLUMNS if c not in ("crash",)] + ["crash"]
    out = []
    if mut_out:
        t = tables["mutation_totals"]
        out.append(f"Mutants: {t.get('mutants', 0)} evaluated ({t.get('enumerated', 0)} enumerated at "
                   f"{t.get('sites_enumerated', 0)} sites), {t.get('valid', 0)} valid, {t.get('caught', 0)} caught, "
                   f"{t.get('maybe-equivalent', 0)} maybe equivalent, **{t.get('false-same', 0) + t.get('false-same-unverified', 0)} "
                   f"false same** ({t.get('false-same', 0)} shown by the interpreter, "
                   f"{t.get('false-same-unverified', 0)} unverified), {t.get('crash', 0)} crashes.")
        out.append("")
        out.append(runner.markdown_table(tables["mutation_by_family"], cols, "operator"))
        out.append("")
        out.append(runner.markdown_table(tables["mutation_by_kind"], cols, "mutation kind"))
        out.append("")
        disc = Counter(o.discard for o in mut_out if o.status == "discarded")
        out.append("Discarded by reason: " + ", ".join(f"{k} {v}" for k, v in disc.most_common()) + ".")
        out.append("")
    if inv_out:
        t = tables["invariance_totals"]
        out.append(f"Invariance transformations: {t.get('transformations', 0)}, {t.get('valid', 0)} valid, "
                   f"**{t.get('false-alarm', 0)} false alarms**.")
        out.append("")
        out.append(runner.markdown_table(tables["invariance_by_kind"], runner.INV_COLUMNS, "invariance kind"))
        out.append("")
        out.append(runner.markdown_table(tables["invariance_by_family"], runner.INV_COLUMNS, "operator"))
        out.append("")
    out.append(f"Run time: {elapsed / 60:.0f} min ({jobs} process{'es' if jobs > 1 else ''} on "
               f"{cpus or '?'} cores).")
    return "\n".join(out) + "\n"


# The plans and the evaluator of the current pass, inherited by forked workers: only an index goes
# to a worker and an Outcome comes back, so nothing about a kernel is pickled.
_PASS: tuple = ()

#: statuses whose mutant text and bytecode a dump writes; other outcomes travel without them
_DUMPED = ("false-same", "false-same-unverified", "maybe-equivalent", "crash", "false-alarm")


def _worker(conn) -> None:
    plans, evaluate = _PASS
    while True:
        i = conn.recv()
        if i is None:
            return
        o = evaluate(plans[i])
        if o.status not in _DUMPED:
            o.text, o.data = "", b""
        conn.send((i, o))


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def lost_outcome(plan, why: str, status: str) -> engine.Outcome:
    """The outcome of an item whose worker died or was stopped: ``status`` (a mutant's "crash",
    an invariance's "false-alarm") with verdict "crash" and the reason."""
    it = plan.item
    return engine.Outcome(plan.kernel.name, plan.kernel.family, it.kind, it.klass, it.key, it.desc, status,
                          verdict="crash", detail=why[:200])


class _Slot:
    """One worker process and the item it is evaluating."""

    def __init__(self, ctx):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child,), daemon=True)
        self.proc.start()
        child.close()
        self.item, self.since, self.start_mb, self.peak = None, 0.0, 0.0, 0.0

    def give(self, i: int) -> None:
        self.item, self.since = i, time.monotonic()
        self.start_mb = self.peak = _rss_mb(self.proc.pid)
        self.conn.send(i)

    def stop(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        self.conn.close()


def evaluate_all(plans, evaluate, jobs: int, cb, mem_limit_mb: float = 0, time_limit_s: float = 0,
                 lost_status: str = "crash") -> None:
    """``cb(i, n, outcome)`` for every plan in order, evaluated here or in ``jobs`` forked workers.

    A worker is watched: one whose resident memory passes ``mem_limit_mb`` or whose item runs past
    ``time_limit_s`` (0: no limit) is killed and its item's outcome is ``lost_status`` with verdict
    "crash" and the reason (the limit, the memory before and during the item); a worker that dies
    by itself (the kernel's OOM killer) gives the same with its exit status. A fresh worker takes
    its place and the run goes on. (In one process, --jobs 1, nothing is watched.)"""
    global _PASS
    n = len(plans)
    if jobs <= 1 or n < 2:
        for i, p in enumerate(plans):
            cb(i, n, evaluate(p))
        return
    from multiprocessing.connection import wait
    ctx = multiprocessing.get_context("fork")
    _PASS = (plans, evaluate)
    done: dict = {}
    next_item, delivered = 0, 0
    slots = []
    peak, lost = 0.0, 0
    try:
        slots = [_Slot(ctx) for _ in range(min(jobs, n))]
        for s in slots:
            s.give(next_item)
            next_item += 1
        while delivered < n:
            busy = [s for s in slots if s.item is not None]
            ready = wait([s.conn for s in busy] + [s.proc.sentinel for s in busy], timeout=0.5)
            for k, s in enumerate(slots):
                if s.item is None:
                    continue
                why = None
                if s.conn in ready:
                    try:
                        i, o = s.conn.recv()
                    except (EOFError, OSError):
                        why = "worker died"
                    else:
                        done[i] = o
                        s.item = None
                if why is None and s.item is not None:
                    s.peak = max(s.peak, _rss_mb(s.proc.pid))
                    if not s.proc.is_alive():
                        why = "worker died"
                    elif mem_limit_mb and s.peak > mem_limit_mb:
                        why = (f"worker stopped: resident memory {s.start_mb:.0f} -> {s.peak:.0f} MB during the item, "
                               f"over the {mem_limit_mb:.0f} MB limit")
                    elif time_limit_s and time.monotonic() - s.since > time_limit_s:
                        why = f"worker stopped: past the {time_limit_s:.0f} s limit"
                peak = max(peak, s.peak)
                if why is not None:
                    lost += 1
                    i, secs = s.item, time.monotonic() - s.since
                    s.stop()
                    code = s.proc.exitcode
                    if why == "worker died":
                        why += (f" (exit status {code}; the OOM killer sends -9) after {secs:.0f} s, resident memory "
                                f"{s.start_mb:.0f} -> {s.peak:.0f} MB")
                    print(f"[mutation engine] item {i} ({plans[i].kernel.name} {plans[i].item.key}): {why}",
                          file=sys.stderr, flush=True)
                    done[i] = lost_outcome(plans[i], why, lost_status)
                    s = slots[k] = _Slot(ctx)
                if s.item is None and next_item < n:
                    s.give(next_item)
                    next_item += 1
            while delivered in done:
                cb(delivered, n, done.pop(delivered))
                delivered += 1
        for s in slots:
            s.conn.send(None)
        print(f"[mutation engine] {n} items in {len(slots)} workers: highest resident memory seen {peak:.0f} MB, "
              f"{lost} worker(s) lost", file=sys.stderr, flush=True)
    finally:
        for s in slots:
            s.stop()
        _PASS = ()


def main(argv=None) -> int:
    args = parse_args(argv if argv is not None else sys.argv[1:])
    if args.repro:
        return repro(args)
    if args.from_json:
        doc, mut_out, inv_out = outcomes_from_json(args.from_json)
        mut_out = mut_out if "mutation_by_family" in doc["tables"] else None
        for name in ("mutation_by_family", "mutation_by_kind"):
            if name in doc["tables"]:
                runner.fix_sites(doc["tables"][name])
        if mut_out is not None:
            doc["tables"]["mutation_totals"] = runner.totals(doc["tables"]["mutation_by_family"])
        inv_out = inv_out if "invariance_by_family" in doc["tables"] else None
        print_tables(doc["tables"], mut_out, inv_out, doc["seconds"])
        if args.markdown:
            args.markdown.write_text(markdown(doc["tables"], doc["seconds"], mut_out, inv_out,
                                              doc.get("jobs", 1), doc.get("cpus")))
        return 0
    t0 = time.time()
    kernels = select_kernels(args)
    kinds = args.kinds.split(",") if args.kinds else None
    inv_kinds = args.inv_kinds.split(",") if args.inv_kinds else None
    pk = None if args.exhaustive else args.per_kernel_kind
    pf = None if args.exhaustive else args.per_family_kind
    print(f"{len(kernels)} kernels in {len({k.family for k in kernels})} families", flush=True)
    site_counts = {}
    mut_out, inv_out = (None if args.no_mutations else []), (None if args.no_invariances else [])

    def progress(kind_label, outs):
        def cb(i, n, o):
            outs.append(o)
            if not args.quiet and (i % 200 == 0 or i == n - 1):
                c = Counter(x.status for x in outs)
                print(f"[{time.time() - t0:7.0f}s] {kind_label} {i + 1}/{n} {dict(c)}", flush=True)
            if (i + 1) % args.checkpoint == 0:
                write_outputs(args, kernels, mut_out, inv_out, site_counts, time.time() - t0, False)
        return cb

    if mut_out is not None:
        plans = runner.plan_mutations(kernels, kinds, pk, pf, args.budget, args.seed, site_counts)
        print(f"mutations: {sum(n for _, n in site_counts.values())} enumerated at "
              f"{sum(s for s, _ in site_counts.values())} sites; {len(plans)} planned", flush=True)
        evaluate_all(plans, lambda p: engine.evaluate_mutation(p.kernel, p.item, args.execute_caught),
                     args.jobs, progress("mutations", mut_out), args.worker_mem_mb, args.item_timeout_s)
    if inv_out is not None:
        plans = runner.plan_invariances(kernels, inv_kinds, None if args.exhaustive else args.inv_per_kernel_kind,
                                        args.inv_budget, args.seed)
        print(f"invariances: {len(plans)} planned", flush=True)
        evaluate_all(plans, lambda p: engine.evaluate_invariance(p.kernel, p.item),
                     args.jobs, progress("invariances", inv_out), args.worker_mem_mb, args.item_timeout_s,
                     "false-alarm")
    elapsed = time.time() - t0
    tables = write_outputs(args, kernels, mut_out, inv_out, site_counts, elapsed, True)
    print_tables(tables, mut_out, inv_out, elapsed)
    if args.markdown:
        args.markdown.write_text(markdown(tables, elapsed, mut_out, inv_out, args.jobs, os.cpu_count()))
    return 0


def print_tables(tables, mut_out, inv_out, elapsed):
    cols = list(runner.MUT_COLUMNS)
    if mut_out is not None:
        print()
        print(runner.format_table(tables["mutation_by_family"], cols, "operator (family)"))
        print()
        print(runner.format_table(tables["mutation_by_kind"], cols, "mutation kind"))
        print()
        disc = Counter(o.discard for o in mut_out if o.status == "discarded")
        print("discarded by reason:", dict(disc))
        fs = [o for o in mut_out if o.status in ("false-same", "false-same-unverified")]
        print(f"false same: {len(fs)} in {len(tables['false_same_classes'])} classes")
        for c, n in sorted(tables["false_same_classes"].items(), key=lambda x: -x[1]):
            ex = next(o for o in fs if o.cls == c)
            print(f"  {n:5d}  {c}   e.g. {ex.kernel}: {ex.desc}")
    if inv_out is not None:
        print()
        print(runner.format_table(tables["invariance_by_kind"], runner.INV_COLUMNS, "invariance kind"))
        print()
        print(runner.format_table(tables["invariance_by_family"], runner.INV_COLUMNS, "operator (family)"))
        fa = [o for o in inv_out if o.status == "false-alarm"]
        print(f"false alarms: {len(fa)}")
        for c, n in sorted(tables["false_alarm_classes"].items(), key=lambda x: -x[1]):
            ex = next(o for o in fa if o.cls == c)
            print(f"  {n:5d}  {c}   e.g. {ex.kernel}: {ex.desc}: {ex.detail[:160]}")
    print(f"\n{elapsed:.0f} s")


if __name__ == "__main__":
    sys.exit(main())
