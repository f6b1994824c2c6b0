#!/usr/bin/env python3
"""Benchmark: the diff as users pay for it, against tileirdisasm, in one run.

    python3 benchmarks/bench_diff.py [--ops 3000] [--scale 10] [--runs 5] [--baseline DIR] [--no-ports]
                                     [--port-sample N] [--ports-only]

Generates a kernel of about N ops (a chain of elementwise ops over several loaded tiles with
distinct constants, plus a few reductions), writes it as bytecode 13.3 with the project's encoder,
and a copy with one constant changed; the same at N*scale ops. Then, the sizes and the checkouts
taking turns, ``--runs`` times each (median reported; the large size ``max(3, runs - 2)`` times):

- ``tileirdisasm`` on both files (two processes: what reading the pair costs with NVIDIA's tool);
- ``tileir-diff diff A B`` as a whole process (``python -m tileir_diff.cli``: interpreter start,
  imports from cached bytecode, load, compare, the text report): the goal's figure (<= 5x);
- the same diff in-process, in a fresh process but timed after its imports (``tileir_diff.diff``
  without the report: what a library user pays per call).

``--baseline DIR``: also time another checkout (e.g. ``git archive <commit> tileir_diff | tar -x -C
DIR``) in the same run, so that before/after figures share the machine's load. Then, unless
``--no-ports``, the in-process diff of every port pair (the reference suite's bytecode against the
Rust port's, ``$TILEIR_REFERENCE_BUILD`` and ``$TILEIR_CUBIN_DIR`` or build/), warm (after one diff
of the same pair in that process): median over the pairs (goal <= 10 ms); and ``tileir-diff diff``
as a whole process on 8 of them against tileirdisasm (median ratio). ``--port-sample N``: only N
pairs spread over the list (the whole list takes minutes per checkout on a loaded machine).
``--ports-only``: just the port pairs' warm in-process diff, each checkout twice (A B B A), each
pair's best of the two.

Checks the generated pair's verdict is ``different`` with exactly one root difference (category
constant); exit status 1 if not. Asserts nothing about speed. The machine may be shared: the
load average is printed, and ratios against tileirdisasm measured in the same rounds are what
compares across runs.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _proc import CHILD_CWD, ROOT, cli_command, load_line, median, python_env, wall, warm_up  # noqa: E402

from tileir_diff.bytecode.writer import write_bytecode  # noqa: E402
from tileir_diff.text.parser import parse_text  # noqa: E402
from tileir_diff.tools import find_tool  # noqa: E402

VIEW = "partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>"


def kernel_text(n_ops: int, changed: bool) -> str:
    """About ``n_ops`` ops: 8 loads, then chains of (constant, addf|mulf|maxf) pairs, a reduce now
    and then, one store per chain. ``changed`` alters one constant in the middle."""
    lines = ["entry @bench(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<ptr<f32>>, %arg3: tile<i32>) {",
             "  %tok = make_token : token",
             "  %tx = make_tensor_view %arg0, shape = [%arg1], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>",
             "  %ty = make_tensor_view %arg2, shape = [%arg3], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>",
             "  %bx, %by, %bz = get_tile_block_id : tile<i32>",
             f"  %px = make_partition_view %tx : {VIEW}",
             f"  %py = make_partition_view %ty : {VIEW}"]
    chains = 8
    for c in range(chains):
        lines.append(f"  %ci{c} = constant <i32: {c}> : tile<i32>")
        lines.append(f"  %ix{c} = addi %bx, %ci{c} : tile<i32>")
        lines.append(f"  %v{c}_0, %t{c} = load_view_tko weak %px[%ix{c}] token = %tok : {VIEW}, tile<i32> -> tile<256xf32>, token")
    per_chain = max(2, -(-(n_ops - len(lines)) // (chains * 2)) + 1)
    target = (chains // 2, per_chain // 2)
    ops = ("addf", "mulf", "maxf", "subf")
    for c in range(chains):
        cur = f"%v{c}_0"
        for k in range(1, per_chain):
            value = 1.0 + (c * per_chain + k) * 1e-3
            if changed and (c, k) == target:
                value += 0.25e-3  # between two other constants, so no dedup merges it
            lines.append(f"  %k{c}_{k} = constant <f32: {value:.6e}> : tile<256xf32>")
            op = ops[(c + k) % len(ops)]
            lines.append(f"  %v{c}_{k} = {op} {cur}, %k{c}_{k} : tile<256xf32>")
            cur = f"%v{c}_{k}"
        lines.append(f"  %s{c} = store_view_tko weak {cur}, %py[%ix{c}] token = %tok : tile<256xf32>, {VIEW}, tile<i32> -> token")
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def make_pair(n_ops: int, folder: Path):
    paths = []
    for changed in (False, True):
        m = parse_text(kernel_text(n_ops, changed), version=(13, 3))
        p = folder / f"bench_{n_ops}_{'b' if changed else 'a'}.tileirbc"
        p.write_bytes(write_bytecode(m, (13, 3)))
        paths.append(p)
    return paths, sum(1 for _ in m.walk())


#: One child process: the API's diff of two files, timed after its imports.
_CHILD = r"""
import json, sys, time
import tileir_diff
from tileir_diff.compare import compute_diff
a, b = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
r = compute_diff(tileir_diff.load(a), tileir_diff.load(b), left_source=a, right_source=b)
out = {"full_s": time.perf_counter() - t0, "verdict": r.verdict,
       "differences": [[d.category, d.message] for d in r.differences]}
print(json.dumps(out))
"""

#: One child process for all port pairs: per pair, one diff (warm-up), then the best of 3.
_PORTS_CHILD = r"""
import json, sys, time
import tileir_diff
out = []
for a, b in json.loads(sys.argv[1]):
    r = tileir_diff.diff(a, b)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter(); tileir_diff.diff(a, b); best = min(best, time.perf_counter() - t0)
    out.append({"pair": b, "s": best, "ops": sum(1 for _ in tileir_diff.load(a).walk()), "verdict": r.verdict})
print(json.dumps(out))
"""


def _in_process(env, a: Path, b: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", _CHILD, str(a), str(b)], check=True, capture_output=True,
                          text=True, env=env, cwd=CHILD_CWD)
    return json.loads(done.stdout)


def port_pairs():
    """(reference, rust) bytecode pairs of the built suite, or [] when it is not built."""
    build = ROOT / "build"
    ref = Path(os.environ.get("TILEIR_REFERENCE_BUILD") or build / "reference")
    rust = Path(os.environ.get("TILEIR_CUBIN_DIR") or build / "rust")
    pairs = []
    for r in sorted(ref.glob("*/*.tileirbc")):
        other = rust / r.relative_to(ref)
        if other.is_file():
            pairs.append((str(r), str(other)))
    return pairs


def measure(sizes, folder: Path, disasm: str, checkouts, runs) -> list:
    """Every figure per size (and per checkout), ``runs[k]`` rounds at size k; in each round the
    sizes and checkouts take turns, so a change in the machine's load hits them alike."""
    pairs = [make_pair(n, folder) for n in sizes]
    rows = [{"ops": ops, "disasm": [], "result": None, **{c: {"cmd": [], "lib": []} for c, _ in checkouts}}
            for _, ops in pairs]
    for rnd in range(max(runs)):
        for k, ((a, b), _) in enumerate(pairs):
            if rnd >= runs[k]:
                continue
            rows[k]["disasm"].append(wall([disasm, str(a)]) + wall([disasm, str(b)]))
            for label, env in checkouts:
                rows[k][label]["cmd"].append(wall(cli_command("diff", str(a), str(b)), env, ok=(0, 1, 3)))
                got = _in_process(env, a, b)
                rows[k][label]["lib"].append(got["full_s"])
                if label == checkouts[0][0]:
                    rows[k]["result"] = SimpleNamespace(verdict=got["verdict"], differences=[
                        SimpleNamespace(category=c, message=m) for c, m in got["differences"]])
    return rows


def measure_ports(checkouts, pairs) -> dict:
    out = {}
    for label, env in checkouts:
        done = subprocess.run([sys.executable, "-c", _PORTS_CHILD, json.dumps(pairs)], check=True,
                              capture_output=True, text=True, env=env, cwd=CHILD_CWD)
        out[label] = json.loads(done.stdout)
    return out


def measure_port_commands(checkouts, pairs, disasm: str, runs: int, sample: int = 8) -> dict:
    """Whole-process ``tileir-diff diff`` on ``sample`` port pairs spread over the list, against
    tileirdisasm on both files, in the same rounds: per pair the median of ``runs``, then the
    median ratio over the pairs (a small kernel's diff is mostly the interpreter and imports)."""
    step = max(1, len(pairs) // sample)
    chosen = pairs[::step][:sample]
    times = {"disasm": [[] for _ in chosen], **{label: [[] for _ in chosen] for label, _ in checkouts}}
    for _ in range(runs):
        for k, (a, b) in enumerate(chosen):
            times["disasm"][k].append(wall([disasm, a]) + wall([disasm, b]))
            for label, env in checkouts:
                times[label][k].append(wall(cli_command("diff", a, b), env, ok=(0, 1, 3, 4)))
    out = {"pairs": len(chosen), "disasm": median([median(t) for t in times["disasm"]])}
    for label, _ in checkouts:
        out[label] = (median([median(t) for t in times[label]]),
                      median([median(t) / median(d) for t, d in zip(times[label], times["disasm"])]))
    return out


def _print_port_commands(result: dict, checkouts) -> None:
    for label, _ in checkouts:
        cmd, ratio = result[label]
        print(f"port pairs, whole process ({result['pairs']} pairs), {label}: tileir-diff diff median "
              f"{cmd * 1e3:.0f} ms, tileirdisasm x2 {result['disasm'] * 1e3:.1f} ms, median ratio {ratio:.1f}x")


def _print_sizes(rows, checkouts) -> bool:
    head = (f"{'ops/kernel':>10} {'checkout':>9} | {'tileirdisasm x2':>15} | {'tileir-diff diff':>16} {'ratio':>6} "
            f"{'goal':>5} | {'in-process':>10} {'ratio':>6} | result")
    print(head)
    print("-" * len(head))
    ok = True
    for m in rows:
        r = m["result"]
        one_root = r.verdict == "different" and len(r.differences) == 1 and r.differences[0].category == "constant"
        ok &= one_root
        d = median(m["disasm"])
        for label, _ in checkouts:
            cmd, lib = median(m[label]["cmd"]), median(m[label]["lib"])
            print(f"{m['ops']:>10} {label:>9} | {d * 1e3:13.1f}ms | {cmd * 1e3:14.0f}ms {cmd / d:5.1f}x {'<=5x':>5} | "
                  f"{lib * 1e3:8.0f}ms {lib / d:5.1f}x | {r.verdict}, {len(r.differences)} root difference(s)"
                  + (f" [{r.differences[0].category}]" if r.differences else ""))
    small, big = rows
    print(f"growth for {big['ops'] / small['ops']:.1f}x ops: tileirdisasm "
          f"{median(big['disasm']) / median(small['disasm']):.1f}x; " + "; ".join(
              f"{label}: whole process {median(big[label]['cmd']) / median(small[label]['cmd']):.1f}x, in-process "
              f"{median(big[label]['lib']) / median(small[label]['lib']):.1f}x" for label, _ in checkouts)
          + " (goal <= 11x)")
    return ok


def _print_ports(result: dict) -> None:
    for label, rows in result.items():
        times = sorted(r["s"] for r in rows)
        ops = sorted(r["ops"] for r in rows)
        print(f"port pairs ({len(rows)}), {label}: warm in-process diff median {median(times) * 1e3:.1f} ms "
              f"(min {times[0] * 1e3:.1f}, max {times[-1] * 1e3:.1f}; goal <= 10 ms); reference side median "
              f"{median(ops):.0f} ops")


def ports_only(args) -> int:
    """``--ports-only``: the port pairs' warm in-process diff, each checkout twice in the order
    A B B A (a load that drifts during the run hits both alike), each pair's best of the two."""
    pairs = port_pairs()
    if 0 < args.port_sample < len(pairs):
        pairs = pairs[::len(pairs) // args.port_sample][:args.port_sample]
    if not pairs:
        print("port pairs: none built")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        checkouts = _warm_checkouts(args, Path(tmp))
        print(f"before: {load_line()}")
        best: dict = {}
        for c in checkouts + checkouts[::-1]:
            for label, rows in measure_ports([c], pairs).items():
                mine = best.setdefault(label, {})
                for r in rows:
                    if r["pair"] not in mine or r["s"] < mine[r["pair"]]["s"]:
                        mine[r["pair"]] = r
        _print_ports({label: list(rows.values()) for label, rows in best.items()})
        print(f"after: {load_line()}")
    return 0


def _warm_checkouts(args, tmp: Path) -> list:
    """(label, environment) of this checkout and the --baseline one, each imported once already."""
    roots = [("this", ROOT)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    checkouts = [(label, python_env(root, tmp / f"pyc-{label}")) for label, root in roots]
    for (_, env), (_, root) in zip(checkouts, roots):
        warm_up(env, root)
    return checkouts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--ops", type=int, default=3000)
    ap.add_argument("--scale", type=int, default=10)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--baseline", type=Path, help="another checkout (its tileir_diff/ folder's parent) to time alike")
    ap.add_argument("--no-ports", action="store_true", help="skip the port pairs")
    ap.add_argument("--port-sample", type=int, default=0,
                    help="time only this many port pairs, spread over the list (0: all; a loaded machine)")
    ap.add_argument("--ports-only", action="store_true",
                    help="only the warm in-process diff of the port pairs, the checkouts in turns (ABBA), "
                         "each pair's best")
    args = ap.parse_args(argv)
    if args.ports_only:
        return ports_only(args)
    disasm = find_tool("tileirdisasm")
    if disasm is None:
        print("tileirdisasm not found (pip install nvidia-cuda-tileiras)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        checkouts = _warm_checkouts(args, Path(tmp))
        runs = (args.runs, max(3, args.runs - 2))
        print(f"before: {load_line()}; median of {runs[0]} runs ({runs[1]} at {args.scale}x)")
        rows = measure((args.ops, args.ops * args.scale), Path(tmp), disasm, checkouts, runs)
        ok = _print_sizes(rows, checkouts)
        pairs = [] if args.no_ports else port_pairs()
        if pairs and 0 < args.port_sample < len(pairs):
            pairs = pairs[::len(pairs) // args.port_sample][:args.port_sample]
        if pairs:
            _print_port_commands(measure_port_commands(checkouts, pairs, disasm, runs[0]), checkouts)
            _print_ports(measure_ports(checkouts, pairs))
        elif not args.no_ports:
            print("port pairs: none built (build/reference and build/rust, or $TILEIR_REFERENCE_BUILD and "
                  "$TILEIR_CUBIN_DIR)")
    print(f"after: {load_line()}")
    root = rows[0]["result"].differences
    print(f"root difference: {root[0].message if root else '-'}")
    print("tileir-diff diff = `python -m tileir_diff.cli diff A B` (whole process, text report); in-process = "
          "tileir_diff.load x2 + compute_diff after imports, in a fresh process")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
