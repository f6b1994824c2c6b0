#!/usr/bin/env python3
"""A scripted agent (rules, no LLM) repairing deliberately broken cuTile Rust ports with
``tileir_diff.verify``, reading only the JSON each failed attempt hands it.

    python3 examples/agent_loop.py [--workdir DIR] [--stages 1,2,3,4,5] [--max-attempts 3] [--cargo-first] [--json OUT]

Each fault's line says which stage caught it first and with what message; the last line counts
the faults each stage caught. The IR comparison runs before the crate's Rust tests (verify's
``ir_first``: about a second once the crate is built, where the tests take minutes);
``--cargo-first`` keeps verify's default order.

Six faults are planted in one copy of rust_kernels/ (never in the repository's kernels), one per
op: a swapped index (swiglu), a wrong reduce axis (rms_norm), a missing mask (softmax: the -inf
padding of the ragged tail), a wrong stride in the C wrapper (silu_and_mul's halves view), a
wrong constant (gelu) and, as the one it must not fix, an add turned into a multiply
(vector_add), for which the agent has no rule. First every op the agent can fix is verified once
as shipped (this fills the build cache: the repaired attempts then cost no compile), then each
broken op is verified with the agent as its repair. Exit 0 when the five fixable faults converge and the
sixth ends ``not converged`` with a diagnostics folder.

The agent's rules each read the failure (stage, message, test output, compiler error, diff
differences) and the op's sources from the request, and propose one edit:

- a compiler error about shapes: make every ``reduce_*(src, axis)`` agree with its declared
  result shape (the axis whose removal from src's declared shape gives it);
- a failure about accesses or indices: an index tuple that permutes the block ids the other
  accesses use in order is put back in that order;
- a failure about ``-inf padding``, or an IR difference ``padding neg_inf -> none``: the loaded
  partition views get the reference's padding (``padding::NegInf``);
- ``stride[k] = ...`` with "unit stride": in the C wrapper's strides list, the source's plain
  last stride goes back to the last position;
- a ``constant`` difference ``constant L -> R (f32)`` (or ``<f32: L> -> <f32: R>``): the literal
  equal to R (as f32) becomes L.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import struct
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tileir_diff.suite.catalog import repo_root  # noqa: E402
from tileir_diff.verify import verify_port  # noqa: E402


@dataclass(frozen=True)
class Fault:
    kind: str
    op: str
    variant: str
    file: str
    old: str
    new: str
    fixable: bool = True


FAULTS = (
    Fault("swapped index", "swiglu", "fwd_f32", "kernel.rs",
          "a.partition(shape![TILE_M, TILE_N]).load([block.0, block.1])",
          "a.partition(shape![TILE_M, TILE_N]).load([block.1, block.0])"),
    Fault("wrong reduce axis", "rms_norm", "fwd_f32_m4_n1024", "kernel.rs", "reduce_sum(t * t, 1)", "reduce_sum(t * t, 0)"),
    Fault("missing mask", "softmax", "f32_row_m4_n1024", "kernel.rs", "padding::NegInf", "padding::None"),
    Fault("wrong stride in the wrapper", "silu_and_mul", "f16_a8_m8_h512", "ffi.rs",
          "[x.strides[0], h.saturating_mul(x.strides[1]), x.strides[1]]",
          "[x.strides[0], x.strides[1], h.saturating_mul(x.strides[1])]"),
    Fault("wrong constant", "gelu", "tanh_f32", "kernel.rs", "0.044715f32", "0.04715f32"),
    Fault("wrong arithmetic (no rule)", "vector_add", "f32_t1024", "kernel.rs", "a + b", "a * b", fixable=False),
)


def plant(dest: Path, faults=FAULTS) -> Path:
    """A copy of rust_kernels/ (sources only) at dest with every fault applied once."""
    source = repo_root() / "rust_kernels"
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("target"))
    for f in faults:
        path = dest / "src" / "ops" / f.op / f.file
        text = path.read_text()
        if text.count(f.old) < 1:
            raise SystemExit(f"cannot plant {f.kind}: {f.old!r} is not in {path}")
        path.write_text(text.replace(f.old, f.new, 1))
    return dest


# --- the agent's rules: (request, sources) -> {file: new text} or None ------------------------------

def failure_text(request: Dict[str, Any]) -> str:
    f = request.get("failure") or {}
    parts = [str(f.get(k, "")) for k in ("message", "test_output", "compiler_error")]
    parts += [d.get("message", "") for d in f.get("differences") or []]
    return "\n".join(parts)


_LET_TILE = re.compile(r"let\s+(?:mut\s+)?(\w+)\s*:\s*Tile<[^,]+,\s*\{\s*\[([^\]]*)\]\s*\}>\s*=\s*(.*)")


def _dims(text: str) -> List[str]:
    return [d.strip() for d in text.split(",") if d.strip()]


def fix_reduce_axes(kernel: str) -> Optional[str]:
    """Each ``let r: Tile<_, {[dims]}> = reduce_*(src..., axis)``: the axis that, removed from
    src's declared dims, leaves r's dims."""
    declared: Dict[str, List[str]] = {}
    out_lines = []
    changed = False
    for line in kernel.splitlines(keepends=True):
        m = _LET_TILE.search(line)
        if m:
            name, dims, rhs = m.group(1), _dims(m.group(2)), m.group(3)
            call = re.search(r"(reduce_\w+)\(\s*(\w+)(.*),\s*(\d+)\s*\)", rhs)
            if call and call.group(2) in declared:
                src = declared[call.group(2)]
                fits = [ax for ax in range(len(src)) if src[:ax] + src[ax + 1:] == dims]
                axis = int(call.group(4))
                if fits and axis not in fits:
                    start, end = call.span(4)
                    offset = m.start(3)
                    line = line[:offset + start] + str(fits[0]) + line[offset + end:]
                    changed = True
            declared[name] = dims
        out_lines.append(line)
    return "".join(out_lines) if changed else None


def fix_index_order(kernel: str) -> Optional[str]:
    """An index tuple ``[block.i, block.j, ...]`` whose block ids are a permutation of the order
    most accesses use is put back in that order."""
    tuples = re.findall(r"\[((?:block\.\d+\s*,\s*)+block\.\d+)\]", kernel)
    if not tuples:
        return None
    normalized = [tuple(x.strip() for x in t.split(",")) for t in tuples]
    ordered = [t for t in normalized if list(t) == sorted(t)]
    if not ordered:
        return None
    changed = kernel
    for t in set(normalized):
        if list(t) != sorted(t) and tuple(sorted(t)) in ordered:
            changed = changed.replace("[" + ", ".join(t) + "]", "[" + ", ".join(sorted(t)) + "]")
    return changed if changed != kernel else None


def fix_padding(kernel: str, wanted: str) -> Optional[str]:
    """Partition views that are loaded from get ``padding::<wanted>``."""
    changed = kernel
    for m in re.finditer(r"let\s+(\w+)\s*:\s*Partition<[^=]*=\s*\n?\s*unsafe\s*\{\s*make_partition_view\(([^;]*)\)", kernel):
        name, args = m.group(1), m.group(2)
        if f"{name}.load(" not in kernel:
            continue  # a view only used for num_tiles has no padding to get right
        fixed = re.sub(r"padding::\w+", f"padding::{wanted}", args)
        if fixed != args:
            changed = changed.replace(m.group(0), m.group(0).replace(args, fixed))
    return changed if changed != kernel else None


_PADDING = re.compile(r"padding (\w+) -> (\w+)")


def padding_from_differences(request: Dict[str, Any]) -> Optional[str]:
    """The padding the reference's view has where the port's differs (an IR difference
    ``make_partition_view result padding neg_inf -> none``), as cuTile Rust's ``padding::`` name
    (neg_inf -> NegInf)."""
    for d in (request.get("failure") or {}).get("differences") or []:
        m = _PADDING.search(d.get("message", ""))
        if m and m.group(1) != "none":
            return "".join(part.capitalize() for part in m.group(1).split("_"))
    return None


def _split_top(text: str) -> List[str]:
    """Comma-separated items of a list body, commas inside brackets and parentheses kept."""
    items, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return items + [cur.strip()] if cur.strip() else items


def fix_view_strides(ffi: str) -> Optional[str]:
    """In a strides list ``strides[..n].copy_from_slice(&[a, b, c])`` built from a source tensor,
    the source's plain last stride (``x.strides[k]``, largest k) must be the last element: the
    view's last dimension is read with unit stride."""
    at = ffi.find("strides[..")
    while at >= 0:
        open_at = ffi.find("copy_from_slice(&[", at)
        if open_at < 0:
            return None
        body_start = open_at + len("copy_from_slice(&[")
        depth, i = 1, body_start
        while depth and i < len(ffi):
            depth += {"[": 1, "]": -1}.get(ffi[i], 0)
            i += 1
        body = ffi[body_start:i - 1]
        items = _split_top(body)
        plain = [j for j, s in enumerate(items) if re.fullmatch(r"\w+\.strides\[\d+\]", s)]
        if plain:
            last = max(plain, key=lambda j: int(re.search(r"\[(\d+)\]", items[j]).group(1)))
            if last != len(items) - 1:
                items[last], items[-1] = items[-1], items[last]
                return ffi[:body_start] + ", ".join(items) + ffi[i - 1:]
        at = ffi.find("strides[..", i)
    return None


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def fix_constant(kernel: str, request: Dict[str, Any]) -> Optional[str]:
    for d in (request.get("failure") or {}).get("differences") or []:
        message = d.get("message", "")
        # "constant 0.044715 -> 0.04715 (f32)" (a splat by its value), or the attribute spelling
        m = (re.search(r"constant ([-0-9.eE+]+) -> ([-0-9.eE+]+) \(f32", message)
             or re.search(r"<f32: ([-0-9.eE+]+)>.*-> <f32: ([-0-9.eE+]+)>", message))
        if d.get("category") != "constant" or not m:
            continue
        left, right = float(m.group(1)), float(m.group(2))
        for lit in re.finditer(r"(-?\d+\.\d*(?:e-?\d+)?)f32", kernel):
            if _f32(float(lit.group(1))) == _f32(right):
                shortest = next(f"{left:.{p}g}" for p in range(1, 18) if _f32(float(f"{left:.{p}g}")) == _f32(left))
                if "." not in shortest and "e" not in shortest:
                    shortest += ".0"
                return kernel[:lit.start(1)] + shortest + kernel[lit.end(1):]
    return None


def agent(request: Dict[str, Any]) -> Optional[Dict[str, str]]:
    """One repair: the first rule the failure calls for that changes the sources; None gives up."""
    sources = request["sources"]
    text = failure_text(request)
    kernel, ffi = sources.get("kernel.rs", ""), sources.get("ffi.rs", "")
    tried = []
    if re.search(r"incompatible .*shape|shape mismatch", text):
        tried.append(("kernel.rs", fix_reduce_axes(kernel)))
    if re.search(r"\baccess|\bindex", text):
        tried.append(("kernel.rs", fix_index_order(kernel)))
    if "-inf padding" in text:
        tried.append(("kernel.rs", fix_padding(kernel, "NegInf")))
    wanted = padding_from_differences(request)
    if wanted:
        tried.append(("kernel.rs", fix_padding(kernel, wanted)))
    if re.search(r"stride\[\d+\] = .*unit stride", text):
        tried.append(("ffi.rs", fix_view_strides(ffi)))
    if any(d.get("category") == "constant" for d in (request.get("failure") or {}).get("differences") or []):
        tried.append(("kernel.rs", fix_constant(kernel, request)))
    for name, new in tried:
        if new is not None and new != sources.get(name):
            return {name: new}
    return None


# --- the loop ----------------------------------------------------------------------------------------

def caught_by(attempts: List[Dict[str, Any]]) -> Dict[str, str]:
    """The stage that caught the fault (attempt 1's failed stage) and the first line of its message."""
    first = attempts[0] if attempts else {}
    failure = first.get("failure") or {}
    return {"stage": first.get("failed_stage") or "-",
            "message": (str(failure.get("message", "")).splitlines() or [""])[0][:160]}


def run(workdir: Path, stages: List[str], max_attempts: int, say=print, ir_first: bool = True) -> Dict[str, Any]:
    workdir.mkdir(parents=True, exist_ok=True)
    progress = (lambda m: print(m, file=sys.stderr, flush=True)) if say is print else (lambda m: None)
    rows = []
    t0 = time.monotonic()
    clean = {}
    for f in FAULTS:  # the shipped ports: fills the cache the repaired attempts hit
        if not f.fixable:
            continue  # never repaired: nothing of its shipped sources would be looked up
        r = verify_port(f.op, f.variant, stages=stages, crate=repo_root() / "rust_kernels", workdir=workdir,
                        progress=progress, ir_first=ir_first)
        clean[f.op] = {"result": r.result, "seconds": round(r.seconds, 1), "diagnostics": r.diagnostics}
        say(f"as shipped {f.op}/{f.variant}: {r.result} ({r.seconds:.1f}s)")
    clean_seconds = time.monotonic() - t0
    broken = plant(workdir / "broken" / "rust_kernels")
    for f in FAULTS:
        r = verify_port(f.op, f.variant, stages=stages, max_attempts=max_attempts, repair=agent, crate=broken,
                        workdir=workdir, progress=progress, ir_first=ir_first)
        expected = "pass" if f.fixable else "not_converged"
        rows.append({"kind": f.kind, "op": f.op, "variant": f.variant, "result": r.result, "expected": expected,
                     "ok": r.result == expected, "attempts": len(r.attempts),
                     "failed_stages": [a["failed_stage"] for a in r.attempts if a["failed_stage"]],
                     "caught_by": caught_by(r.attempts),
                     "seconds": round(r.seconds, 1), "cache": r.cache, "diagnostics": r.diagnostics,
                     "html": [p for a in r.attempts for s in a["stages"] for p in s["artifacts"] if p.endswith(".html")]})
        say(f"{f.kind:28s} {f.op}/{f.variant}: {r.result} after {len(r.attempts)} attempt(s) "
            f"({', '.join(rows[-1]['failed_stages']) or '-'}), {r.seconds:.1f}s, "
            f"cache {r.cache['hits']} hits / {r.cache['misses']} misses; {'ok' if rows[-1]['ok'] else 'UNEXPECTED'}")
        say(f"{'':28s}   caught by {rows[-1]['caught_by']['stage']}: {rows[-1]['caught_by']['message']}")
    return {"clean": clean, "clean_seconds": round(clean_seconds, 1), "faults": rows,
            "seconds": round(time.monotonic() - t0, 1), "ok": all(r["ok"] for r in rows)
            and all(c["result"] == "pass" for c in clean.values())}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workdir", type=Path, default=repo_root() / "build" / "agent_loop")
    p.add_argument("--stages", default="1,2,3,4,5", help="stages to run (default 1-5: numerics on the interpreter "
                                                         "without a GPU)")
    p.add_argument("--max-attempts", type=int, default=3)
    p.add_argument("--cargo-first", action="store_true", help="run the Rust tests before the IR comparison "
                                                               "(verify's default order)")
    p.add_argument("--json", type=Path, help="write the summary here")
    args = p.parse_args(argv)
    summary = run(args.workdir, args.stages.split(","), args.max_attempts, ir_first=not args.cargo_first)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1))
    counts: Dict[str, int] = {}
    for r in summary["faults"]:
        counts[r["caught_by"]["stage"]] = counts.get(r["caught_by"]["stage"], 0) + 1
    print("caught first by: " + ", ".join(f"{stage} {n}" for stage, n in sorted(counts.items())))
    print(f"{sum(r['ok'] for r in summary['faults'])} of {len(summary['faults'])} faults as expected, "
          f"{summary['seconds']}s (of which {summary['clean_seconds']}s verifying the shipped ports)")
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
