"""Harness for the bounded-work classes of issue 27: one case generator and one checker per class.

A case is made from a seeded ``random.Random``; ``run_case`` runs it and returns an ``Outcome``:
``ok`` (a correct answer or a clear error), or a violation: ``crash`` (an exception other than
the class's clear error, or a wrong answer), ``exit70`` (the CLI's internal-error status),
``raw-control`` (a control character reached an output) or ``slow`` (over ``SLOW_S``). Classes:

* ``parser``: text of many ``#`` lines (aliases, bare ``#``, broken definitions, mixtures) and
  random alias chains: ``parse_text`` reads it or raises TileIRFormatError with an offset;
* ``locations``: call-site chains of random depth through text aliases or a crafted bytecode
  debug table: read and dumped as JSON (every location string, the chain's depth) at or under
  the limit, refused with an offset past it;
* ``matcher``: a kernel of N identical ops (N drawn up to ``max_ops``) diffed with itself must
  be ``identical``;
* ``readers``: hostile analysis.json files (deep nesting, long integers, bad UTF-8, random
  bytes, FIFOs, devices, folders, oversized files, deep ``match`` patterns) through
  ``load_accept_file``, and random launch facts (deep terms, unknown names, junk) through
  ``parse_fact``: a result or the reader's one-line error naming the file / the fact;
* ``controls``: kernels whose names, hint keys and values carry control characters, diffed and
  rendered in every format (text, JSON, HTML, Markdown, summary text and JSON, dump text and
  JSON): no raw control character in any output (newlines between lines excepted).

``cli=True`` also runs a case's input through the command line (``dump -f json``, ``diff
--accept``, ``diff --launch-fact``, ``diff -f FORMAT``) and counts status 70 or a traceback.
Used by tests/fuzz/test_bounds.py (a small seeded sample) and scripts/stress_bounds.py (long runs).
"""
from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional

from tests.fuzz.bounds_inputs import (callsite_chain_bytecode, callsite_chain_text, control_names, hash_lines,
                                      identical_ops)
from tileir_diff import TileIRFormatError
from tileir_diff.ir import limits as L

ROOT = Path(__file__).resolve().parents[2]
CORPUS_KERNEL = ROOT / "tests" / "corpus" / "data" / "int_abs_neg.v13_4.tileirbc"
SLOW_S = 10.0
# Raw in an output means a violation: C0 but newline, DEL, C1, separators, bidi marks.
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
CLASSES = ("parser", "locations", "matcher", "readers", "controls", "execute")
# --execute may take longer (issue 27: no hang over 20 s with --execute)
SLOW_EXECUTE_S = 20.0
# the address space a command-line --execute case runs under: a case that needs more is killed,
# and a kill is a violation (issue 27: no kills under 3 GiB)
EXECUTE_ADDRESS_SPACE = 3 << 30


@dataclass
class Case:
    cls: str
    kind: str
    make: Callable[[Path], object]  # builds the input (files under the given folder); returns what run uses
    check: Callable[[object, Path, bool], Optional[str]]  # None: ok; else the violation's text
    size: int = 0


@dataclass
class Outcome:
    cls: str
    kind: str
    status: str  # ok, crash, exit70, raw-control, slow
    seconds: float
    detail: str = ""
    size: int = 0
    extra: Dict[str, object] = field(default_factory=dict)


class Violation(Exception):
    def __init__(self, status: str, detail: str):
        super().__init__(detail)
        self.status = status


def _cli(args: List[str], timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "tileir_diff.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, errors="surrogateescape")


def _cli_check(r: subprocess.CompletedProcess, allowed=(0, 1, 2, 3, 4)) -> None:
    if r.returncode == 70 or "Traceback" in r.stderr:
        raise Violation("exit70", f"status {r.returncode}: {r.stderr.strip()[-300:]}")
    if r.returncode not in allowed:
        raise Violation("crash", f"status {r.returncode}: {r.stderr.strip()[-300:]}")
    # status 2: an input error is one line; a usage error is argparse's usage, then one error line
    if r.returncode == 2 and (r.stdout or not r.stderr.endswith("\n") or "error" not in r.stderr.splitlines()[-1]
                              and r.stderr.count("\n") != 1):
        raise Violation("crash", f"a usage or input error must end in one line on stderr: {r.stderr[-300:]!r}")
    for name, text in (("stdout", r.stdout), ("stderr", r.stderr)):
        m = RAW_CONTROL.search(text)
        if m:
            raise Violation("raw-control", f"{name} holds {m.group()!r}")


def _one_line_error(e: Exception, *, needs: str = "") -> None:
    s = str(e)
    if "\n" in s or RAW_CONTROL.search(s) or (needs and needs not in s):
        raise Violation("crash", f"not a clear one-line error: {s[:300]!r}")


# -- parser -----------------------------------------------------------------------------------
def _parser_case(rng: random.Random, max_lines: int) -> Case:
    n = min(max_lines, rng.choice([1, 10, 100, 1000, 5000, 20000, 50_000]))
    if rng.random() < 0.7:
        text = hash_lines(n, rng)
        kind = "hash-lines"
    else:  # an alias chain defined after its use, some links broken or looping
        depth = rng.randrange(1, 200)
        text = callsite_chain_text(depth)
        lines = text.splitlines()
        for _ in range(rng.randrange(0, 3)):
            i = rng.randrange(3, len(lines))
            lines[i] = rng.choice([lines[i].replace("#l", "#m", 1), lines[i] + ")", "#", lines[i][:-3],
                                   f"#l{i} = loc(#l{i})"])
        text = "\n".join(lines) + "\n"
        kind = "alias-chain"

    def check(text, _tmp, cli):
        from tileir_diff.text.parser import parse_text
        try:
            parse_text(text)
        except TileIRFormatError as e:
            _one_line_error(e, needs="offset")
        return None
    return Case("parser", kind, lambda _tmp: text, check, len(text))


# -- locations --------------------------------------------------------------------------------
def _locations_case(rng: random.Random) -> Case:
    depth = rng.choice([0, 1, rng.randrange(2, L.MAX_CALLSITE_DEPTH + 1), L.MAX_CALLSITE_DEPTH,
                        L.MAX_CALLSITE_DEPTH + 1, rng.randrange(65, 4000)])
    source = rng.choice(["text", "bytecode"])

    def make(tmp: Path):
        data = callsite_chain_text(depth).encode() if source == "text" else callsite_chain_bytecode(depth)
        p = tmp / ("chain.tileir" if source == "text" else "chain.tileirbc")
        p.write_bytes(data)
        return p

    def check(p, _tmp, cli):
        from tileir_diff import load
        from tileir_diff.ir.to_json import module_to_json
        try:
            m = load(p)
        except TileIRFormatError as e:
            _one_line_error(e, needs="offset")
            if depth <= L.MAX_CALLSITE_DEPTH:
                raise Violation("crash", f"a chain of {depth} was refused: {e}") from None
            if "call sites" not in str(e):
                raise Violation("crash", f"a chain of {depth} refused for another reason: {e}") from None
        else:
            if depth > L.MAX_CALLSITE_DEPTH:
                raise Violation("crash", f"a chain of {depth} was read (limit {L.MAX_CALLSITE_DEPTH})")
            doc = json.dumps(module_to_json(m))
            deepest = max((str(op.location).count("(inlined at ") for op in m.functions[0].walk()
                           if op.location), default=0)
            if deepest != depth:
                raise Violation("crash", f"the chain of {depth} reads as {deepest}")
            if len(doc) < 10:
                raise Violation("crash", "empty JSON dump")
        if cli:
            _cli_check(_cli(["dump", "--format", "json", str(p)]), allowed=(0, 2))
        return None
    return Case("locations", f"{source}", make, check, depth)


# -- matcher ----------------------------------------------------------------------------------
def _matcher_case(rng: random.Random, max_ops: int) -> Case:
    n = min(max_ops, rng.choice([1, 2, 65, 100, 300, 1000, 4000, 16000, 20000]))
    kept = rng.random() < 0.7
    op = "cmpi+assert" if kept else rng.choice(["addi", "muli", "subi"])
    text = identical_ops(n, op, kept=kept)

    def check(text, _tmp, cli):
        import tileir_diff
        from tileir_diff.text.parser import parse_text
        m = parse_text(text)
        r = tileir_diff.diff(m, parse_text(text))
        if r.verdict != "identical":
            raise Violation("crash", f"{n} identical {op} ops diffed with themselves: {r.verdict} ({r.reason})")
        return None
    return Case("matcher", f"{op}", lambda _tmp: text, check, n)


# -- readers ----------------------------------------------------------------------------------
def _hostile_json(rng: random.Random, tmp: Path):
    kind = rng.choice(["deep-array", "deep-object", "long-int", "bad-utf8", "random-bytes", "fifo", "dev-zero",
                       "folder", "oversized", "deep-match", "valid", "nul-path", "truncated", "wrong-shape"])
    p = tmp / "analysis.json"
    entry = {"category": "arith", "what": "x", "why": "y"}
    if kind == "deep-array":
        d = rng.randrange(60, 200_000)
        p.write_text("[" * d + "]" * d)
    elif kind == "deep-object":
        d = rng.randrange(60, 5000)
        p.write_text('{"a":' * d + "1" + "}" * d)
    elif kind == "long-int":
        p.write_text('{"accepted_differences": [' + "9" * rng.randrange(4000, 100_000) + "]}")
    elif kind == "bad-utf8":
        p.write_bytes(b'{"accepted_differences": ["\xff\xfe"]}')
    elif kind == "random-bytes":
        p.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4000))))
    elif kind == "fifo":
        os.mkfifo(p)
    elif kind == "dev-zero":
        return kind, "/dev/zero"
    elif kind == "folder":
        p.mkdir()
    elif kind == "oversized":
        with open(p, "wb") as f:
            f.truncate(64 * 1024 * 1024)  # sparse: 64 MiB of zeros
    elif kind == "deep-match":
        d = rng.randrange(10, 3000)
        p.write_text(json.dumps({"accepted_differences": [dict(entry, match=json.loads('{"a":' * d + "1" + "}" * d)
                                                               if d < 900 else {"a": 1})]})
                     if d < 900 else '{"accepted_differences": [{"category": "x", "what": "w", "why": "y", "match": '
                     + '{"a":' * d + "1" + "}" * d + "}]}")
    elif kind == "valid":
        p.write_text(json.dumps({"accepted_differences": [entry], "variants": [{"name": "v"}]}))
    elif kind == "nul-path":
        return kind, str(tmp / "a\0b.json")
    elif kind == "truncated":
        text = json.dumps({"accepted_differences": [entry] * 5})
        p.write_text(text[:rng.randrange(1, len(text))])
    else:
        p.write_text(json.dumps(rng.choice([[], 1, "s", {"accepted_differences": {}},
                                            {"accepted_differences": [1]}])))
    return kind, str(p)


def _random_fact(rng: random.Random) -> str:
    def term(depth: int) -> str:
        r = rng.random()
        if depth <= 0 or r < 0.25:
            return rng.choice(["1", "128", "-3", "arg1", "arg2", "arg99", "grid.x", "grid.w", "bid.y", "x",
                               "2" * rng.randrange(1, 30), "1.5", "True", "'s'", "\x1b[31m", "\u202e"])
        if r < 0.6:
            return f"{term(depth - 1)} {rng.choice(['+', '-', '*', '//', '%', '**', '/', '<<'])} {term(depth - 1)}"
        if r < 0.8:
            return f"{rng.choice(['cdiv', 'min', 'max', 'f', 'abs'])}({term(depth - 1)}, {term(depth - 1)})"
        return rng.choice(["-", "(", "not "]) + term(depth - 1) + (")" if rng.random() < 0.5 else "")
    if rng.random() < 0.2:  # long flat or deeply nested
        n = rng.randrange(100, 4000)
        body = rng.choice(["+".join(["1"] * n), "-" * n + "1", "(" * n + "1" + ")" * n, "cdiv(" * n + "1" + ", 2)" * n])
        return f"grid.x == {body}"
    return f"{term(rng.randrange(0, 8))} {rng.choice(['==', '<', '<=', '>', '>=', '!=', 'in'])} {term(rng.randrange(0, 8))}"


def _readers_case(rng: random.Random) -> Case:
    if rng.random() < 0.5:
        state = {}

        def make(tmp: Path):
            kind, path = _hostile_json(rng, tmp)
            state["kind"] = kind
            return path

        def check(path, tmp, cli):
            from tileir_diff.suite.accept import AcceptFileError, load_accept_file
            try:
                load_accept_file(path, with_launch_facts=True)
            except AcceptFileError as e:
                _one_line_error(e)
                if os.path.basename(path).split("\0")[0] not in str(e):
                    raise Violation("crash", f"the error does not name the file: {e}") from None
            if cli and "\0" not in path:  # an argv string cannot hold NUL
                _cli_check(_cli(["diff", str(CORPUS_KERNEL), str(CORPUS_KERNEL), "--accept", path], timeout=60))
            return None
        return Case("readers", "analysis.json", make, check)
    fact = _random_fact(rng)

    def check_fact(fact, _tmp, cli):
        from tileir_diff.check.smt import launch_fact
        from tileir_diff.launch.facts import LaunchFactSyntaxError, parse_fact
        try:
            parse_fact(fact)
        except LaunchFactSyntaxError as e:
            _one_line_error(e, needs="launch fact")
        else:
            launch_fact(fact)  # what the CLI does next: no RecursionError after the bounded parse
        if cli:
            _cli_check(_cli(["diff", str(CORPUS_KERNEL), str(CORPUS_KERNEL), "--launch-fact", fact], timeout=60))
        return None
    return Case("readers", "launch-fact", lambda _tmp: fact, check_fact, len(fact))


# -- controls ---------------------------------------------------------------------------------
def _controls_case(rng: random.Random) -> Case:
    left, right = control_names(rng, rng.randrange(1, 6))
    fmt = rng.choice(["text", "json", "html", "markdown"])

    def check(pair, tmp, cli):
        import tileir_diff
        from tileir_diff.commands.summary import json_text
        from tileir_diff.ir.to_json import module_to_json
        from tileir_diff.report import render
        from tileir_diff.report.summary_text import render_kernel
        from tileir_diff.text.printer import print_module
        a, b = pair
        r = tileir_diff.diff(a, b)
        s = tileir_diff.summarize(a)
        outputs = {f: render(r, f) for f in ("text", "json", "html", "markdown")}
        outputs.update({"summary-text": render_kernel(s), "summary-json": json_text(s),
                        "dump-text": print_module(a), "dump-json": json.dumps(module_to_json(a), indent=1)})
        for name, text in outputs.items():
            m = RAW_CONTROL.search(text)
            if m:
                raise Violation("raw-control", f"{name} holds {m.group()!r}")
        json.loads(outputs["json"])
        if cli:
            from tileir_diff.bytecode.writer import write_bytecode
            pa, pb = tmp / "a.tileirbc", tmp / "b.tileirbc"
            pa.write_bytes(write_bytecode(a))
            pb.write_bytes(write_bytecode(b))
            _cli_check(_cli(["diff", str(pa), str(pb), "-f", fmt]))
            _cli_check(_cli(["summary", str(pa)]))
        return None
    return Case("controls", fmt, lambda _tmp: (left, right), check)


# -- execute ----------------------------------------------------------------------------------
def _limited_address_space():  # runs in the child before exec
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (EXECUTE_ADDRESS_SPACE, EXECUTE_ADDRESS_SPACE))


def _execute_case(rng: random.Random, max_trips: int, options: Optional[Dict[str, object]]) -> Case:
    """--execute=always on loops of up to 999,999 iterations (nested: trips x inner) and on inputs
    whose size an ``assume bounded<lb, ?>`` asks to be up to 2^40 elements: the interpreter's budgets
    and the input cap must stop the work with a clear note, and never change the structural
    verdict (the planted change, a loop step 1.0 -> 2.0, stays ``different``; a kernel against
    itself stays ``identical``)."""
    from tests.execute import pairs as P
    trials = rng.choice([1, 2, 4, 8])
    if rng.random() < 0.6:
        trips = min(max_trips, rng.choice([10, 1000, 100_000, 999_999]))
        inner = rng.choice([0, 0, 30, 1000])
        planted = rng.random() < 0.5
        left, right = P.counted_loop(trips, inner), P.counted_loop(trips, inner, step="2.0" if planted else "1.0")
        expected, kind, size = ("different" if planted else "identical"), "loop", trips * max(inner, 1)
    else:
        k = rng.choice([4, 20, 26, 30, 34])
        left = right = P.huge_bounded(1 << k)
        expected, kind, size = "identical", "bounded", 1 << k

    def check(pair, tmp, cli):
        from tileir_diff.api import diff
        a, b = pair
        try:
            r = diff(a, b, execute="always", trials=trials, execute_options=dict(options or {}))
        except TileIRFormatError as e:  # a bound past i32 is refused by the verifier: one clear line
            _one_line_error(e, needs="does not fit")
            return None
        ex = r.execution.to_dict() if r.execution is not None else {}
        if r.verdict != expected:
            raise Violation("crash", f"{kind}: verdict {r.verdict}, the structure says {expected} ({ex.get('message')})")
        if ex.get("structural_verdict") is not None:
            raise Violation("crash", f"{kind}: the execution overruled {ex['structural_verdict']}: {ex.get('message')}")
        if ex.get("budget_exceeded") and "counterexample" in ex:
            raise Violation("crash", f"{kind}: a counterexample from a run whose budget ran out")
        _one_line_error(RuntimeError(ex.get("message") or ""))
        if cli:
            pa, pb = tmp / "a.tir", tmp / "b.tir"
            pa.write_text(a)
            pb.write_text(b)
            env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
            p = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "diff", str(pa), str(pb), "--execute=always",
                                "--trials", str(trials)], capture_output=True, text=True, timeout=120, env=env,
                               preexec_fn=_limited_address_space)
            if p.returncode < 0:
                raise Violation("crash", f"{kind}: killed by signal {-p.returncode} under a {EXECUTE_ADDRESS_SPACE >> 30} GiB "
                                         f"address space: {p.stderr[-200:]}")
            _cli_check(p, allowed=(0, 1, 2))
        return None
    return Case("execute", kind, lambda _tmp: (left, right), check, size)


def make_case(cls: str, rng: random.Random, *, max_lines: int = 50_000, max_ops: int = 20000,
              max_trips: int = 999_999, execute_options: Optional[Dict[str, object]] = None) -> Case:
    """A case of class ``cls``; ``max_lines`` caps the parser's inputs, ``max_ops`` the matcher's,
    ``max_trips`` the execute class's loops (``execute_options``: its budgets, default the library's)."""
    if cls == "parser":
        return _parser_case(rng, max_lines)
    if cls == "locations":
        return _locations_case(rng)
    if cls == "matcher":
        return _matcher_case(rng, max_ops)
    if cls == "readers":
        return _readers_case(rng)
    if cls == "execute":
        return _execute_case(rng, max_trips, execute_options)
    return _controls_case(rng)


def run_case(case: Case, *, cli: bool = False, slow_s: Optional[float] = None) -> Outcome:
    """Runs one case in a fresh temporary folder; never raises for a violation."""
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        try:
            value = case.make(tmp)
            t0 = time.perf_counter()
            case.check(value, tmp, cli)
            status, detail = "ok", ""
        except Violation as v:
            status, detail = v.status, str(v)
        except subprocess.TimeoutExpired as e:
            status, detail = "slow", f"the command line ran past {e.timeout} s"
        except Exception as e:  # noqa: BLE001 - the harness's point: anything else is a crash
            status, detail = "crash", f"{type(e).__name__}: {str(e)[:300]}"
    seconds = time.perf_counter() - t0
    if slow_s is None:
        slow_s = SLOW_EXECUTE_S if case.cls == "execute" else SLOW_S
    if status == "ok" and seconds > slow_s:
        status, detail = "slow", f"{seconds:.1f} s"
    return Outcome(case.cls, case.kind, status, seconds, detail, case.size)
