"""Issue 13, one test (or a few) per class: every input gets a clear error or a correct answer.

Each test failed on the code before the fix (41f745c): a crash (AttributeError, StopIteration,
TypeError, IndexError, ValueError, RecursionError), a hang, gigabytes of memory, a traceback with
status 1, or a raw control character in an output. Tests that could hang or exhaust memory on
that code run the CLI in a child process under a 2 GiB address-space limit and a timeout.
"""
from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path

import pytest

from tileir_diff import TileIRFormatError, load
from tileir_diff.bytecode.writer import write_bytecode
from tileir_diff.ir.compare import module_mismatches
from tileir_diff.text.parser import parse_text
from tileir_diff.text.printer import print_module

from tests.fuzz import crafted

ROOT = Path(__file__).resolve().parents[2]
MEMORY_LIMIT = 2 << 30  # bytes of address space for the child (RLIMIT_AS)


def run_cli(*args, timeout: float = 60, env=None, memory: int = MEMORY_LIMIT):
    """``tileir-diff ARGS`` in a fresh interpreter under RLIMIT_AS; returns (completed, cpu seconds)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    full_env = {k: v for k, v in os.environ.items() if k != "TILEIR_DEBUG"}
    full_env.update(PYTHONPATH=str(ROOT), **(env or {}))
    r = subprocess.run([sys.executable, "-m", "tileir_diff.cli", *map(str, args)], capture_output=True,
                       timeout=timeout, preexec_fn=limit, env=full_env, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return r, cpu


def fast_enough(cpu: float, tmp_path) -> bool:
    """Under 2 s of CPU, or (on a loaded or slow machine) under 4 times what the same command
    line takes on a two-line valid kernel, measured now: start-up is most of either, and a
    blow-up (these inputs once took over 60 s) is far above both."""
    from tests.fuzz.harness import within_step_budget

    def reference() -> float:
        small = tmp_path / "reference_kernel.tileir"
        small.write_text("entry @k() {\n  return\n}\n")
        return run_cli("dump", small, timeout=60)[1]
    return within_step_budget(cpu, reference, 2.0, 4.0)


def one_error_line(r, status: int = 2) -> str:
    """The run failed with ``status``, nothing on stdout, exactly one clean line on stderr."""
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == status, (r.returncode, err[-2000:])
    assert r.stdout == b""
    assert err.endswith("\n") and err.count("\n") == 1, err[-2000:]
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", err), repr(err)
    assert "Traceback" not in err
    return err


def refused(data, *fragments, path="input.tileirbc") -> TileIRFormatError:
    with pytest.raises(TileIRFormatError) as info:
        load(data, path=path)
    e = info.value
    assert e.offset is not None, str(e)
    for f in fragments:
        assert f in str(e), str(e)
    return e


# --- class 1: decoded but never verified ------------------------------------------------------------
@pytest.mark.parametrize("case", list(crafted.CLASS1))
def test_class1_ill_typed_bytecode_is_refused_with_the_op_and_its_offset(case):
    build, op_name, fragment = crafted.CLASS1[case]
    e = refused(build(), op_name, fragment)
    assert isinstance(e.offset, int) and e.offset > 12  # inside the Func section, not the header
    assert re.search(r"\(f0/o\d+(/r\d+/o\d+)* in @\w+\)", str(e)), str(e)


TEXT_HEAD = "entry @k(%p: tile<ptr<i32>>, %i: tile<i32>) {\n"


@pytest.mark.parametrize("body,fragment,where", [
    # mma operands of rank 1
    ("  %a = constant <f16: 1.0> : tile<32xf16>\n  %c = constant <f32: 0.0> : tile<32xf32>\n"
     "  %r = mmaf %a, %a, %c : tile<32xf16>, tile<32xf16>, tile<32xf32>\n", "2-d or 3-d", "4:3"),
    # a zero-element tile given a one-element constant
    ("  %c = constant <i32: 1> : tile<0xi32>\n", "powers of two", "2:3"),
    # a tracked memory op without a token result
    ("  %t = make_tensor_view %p, shape = [128], strides = [1] : tensor_view<128xi32, strides=[1]>\n"
     "  %v = make_partition_view %t : partition_view<tile=(128), tensor_view<128xi32, strides=[1]>>\n"
     "  %x, %tok = load_view_tko weak %v[%i] : partition_view<tile=(128), tensor_view<128xi32, strides=[1]>>, "
     "tile<i32> -> tile<128xi32>, tile<i32>\n", "result_token must be token", "4:3"),
    # a result type of the wrong kind
    ("  %r = absi %i : tile<f32>\n", "", None),
    ("  %r = iota : tile<4x4xi32>\n", "1-d", "2:3"),
])
def test_class1_ill_typed_text_is_refused_with_the_op_and_its_line(body, fragment, where):
    text = TEXT_HEAD + body + "  return\n}\n"
    with pytest.raises(TileIRFormatError) as info:
        parse_text(text, path="bad.tileir")
    e = info.value
    assert fragment in str(e) and isinstance(e.offset, str) and ":" in e.offset, str(e)
    if where:
        assert e.offset == where, str(e)


def test_class1_every_corpus_file_is_accepted_by_the_verifier():
    from tests.fuzz.harness import corpus_paths
    files = corpus_paths()
    assert len(files) > 500
    for i, p in enumerate(files):
        m = load(p)  # decodes and verifies
        if i % 4 == 0:  # (tests/text/test_oracle.py parses every file's text)
            again = parse_text(print_module(m), path=str(p), version=m.version)  # parses and verifies
            assert module_mismatches(m, again) == [], p


def _round_trips(m):
    """print -> parse and write -> read give ``m`` back (the harness's correctness checks)."""
    assert module_mismatches(m, parse_text(print_module(m), version=m.version)) == []
    assert module_mismatches(m, load(write_bytecode(m, m.version))) == []


@pytest.mark.parametrize("hints", ["<>", "<sm_90 = {occupancy = 2, num_cta_in_cga = 1}, default = {}>"])
def test_class1_entry_hints_read_in_one_canonical_form(hints):
    """Empty entry hints are absent and dictionaries sorted, in text as in bytecode."""
    m = parse_text(f"entry @k(%arg0: tile<i1>) optimization_hints={hints} {{\n  return\n}}\n", version=(13, 4))
    _round_trips(m)


def test_class1_constants_read_in_one_canonical_form():
    """All-equal data is a splat and i1 bytes are 0x00/0xFF, whichever reader (as MLIR stores them):
    before, a full constant of equal elements printed as a splat and read back as another module."""
    from tileir_diff.ir import Block, DenseElements, Function, Module, Operation, ScalarType, TileType, Value
    i32, i1 = TileType((4,), ScalarType("i32")), TileType((2,), ScalarType("i1"))
    ops = (Operation("constant", results=(Value(0, i32),), attributes={"value": DenseElements(i32, b"\7\0\0\0" * 4)}),
           Operation("constant", results=(Value(1, i1),), attributes={"value": DenseElements(i1, b"\x01\x02")}),
           Operation("return", segments=(0,)))
    m = load(write_bytecode(Module((13, 4), (Function("k", (), (), Block((), ops)),)), (13, 4)))
    a, b = (op.attributes["value"] for op in m.walk() if op.name == "constant")
    assert a.data == b"\7\0\0\0" and a.is_splat and b.data == b"\xff"
    _round_trips(m)
    text = "entry @k() {\n  %c = constant <i32: \"0x07000000070000000700000007000000\"> : tile<4xi32>\n  return\n}\n"
    assert parse_text(text).functions[0].body.operations[0].attributes["value"].data == b"\7\0\0\0"


# --- class 2: declared sizes drive allocation -------------------------------------------------------
def test_class2_huge_splat_bytecode_dump_json_is_refused_in_bounded_memory(tmp_path):
    f = tmp_path / "splat.tileirbc"
    f.write_bytes(crafted.huge_splat_bytecode())
    assert f.stat().st_size < 400
    r, cpu = run_cli("dump", "--format", "json", f, timeout=60)
    assert "65536x65536" in one_error_line(r)
    assert fast_enough(cpu, tmp_path), cpu


def test_class2_huge_splat_text_is_refused(tmp_path):
    f = tmp_path / "splat.tileir"
    f.write_bytes(crafted.HUGE_SPLAT_TEXT)
    assert len(crafted.HUGE_SPLAT_TEXT) < 100
    r, _ = run_cli("dump", "--format", "json", f, timeout=60)
    assert "elements" in one_error_line(r)


def test_class2_a_splat_stays_a_splat():
    """The largest tile the verifier allows (2^24 elements) as a splat: its JSON holds one value and
    nothing of the declared size is allocated."""
    from tileir_diff.ir import DenseElements, ScalarType, TileType
    from tileir_diff.ir.to_json import attr_to_json
    d = DenseElements(TileType((4096, 4096), ScalarType("f64")), b"\0" * 8)
    small = DenseElements(TileType((2, 2), ScalarType("f64")), b"\0" * 8)
    attr_to_json(small), small.to_numpy().reshape(-1)  # imports numpy outside the measurement
    tracemalloc.start()
    try:
        doc = attr_to_json(d)
        arr = d.to_numpy()
        first = float(arr.reshape(-1)[0])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert doc["splat"] is True and doc["values"] == [0.0] and first == 0.0 and arr.shape == (4096, 4096)
    assert peak < 1 << 20, peak  # 128 MiB if the splat were expanded


def test_class2_result_count_in_text_is_capped(tmp_path):
    f = tmp_path / "count.tileir"
    f.write_bytes(crafted.HUGE_RESULT_COUNT_TEXT)
    assert len(crafted.HUGE_RESULT_COUNT_TEXT) < 400
    r, cpu = run_cli("dump", f, timeout=60)
    assert "result count" in one_error_line(r)
    assert fast_enough(cpu, tmp_path), cpu


# --- class 3: unbounded numbers and nesting in the text parser --------------------------------------
@pytest.mark.parametrize("name,fragment", [
    ("HUGE_EXPONENT_TEXT", "exponent"),
    ("LONG_INTEGER_TEXT", "number literal"),
    ("NON_ASCII_DIGIT_TEXT", ""),
    ("HUGE_DIM_TEXT", "64 bits"),
])
def test_class3_numbers_in_text_get_a_clear_error_fast(tmp_path, name, fragment):
    f = tmp_path / f"{name}.tileir"
    f.write_bytes(getattr(crafted, name))
    r, cpu = run_cli("dump", f, timeout=20)  # before: over 60 s and 2.3 GB for the exponent
    err = one_error_line(r)
    assert fragment in err and re.match(rf"{re.escape(str(f))}: offset \d+:\d+: ", err), err
    assert fast_enough(cpu, tmp_path), cpu


def test_class3_dimensions_above_int64_are_refused_where_they_are_written():
    e = refused(crafted.HUGE_DIM_TEXT, "18446744073709551616", path="dim.tileir")
    line = crafted.HUGE_DIM_TEXT.decode().splitlines()[1]
    assert e.offset == f"2:{line.index('tensor_view<') + len('tensor_view<') + 1}"  # the type's dimension


def test_class3_deep_nesting_is_refused_and_the_deepest_allowed_works_everywhere(tmp_path):
    deep = tmp_path / "deep.tileir"
    deep.write_bytes(crafted.nested_ifs_text(160))  # parsed before, then RecursionError in to_json
    r, _ = run_cli("dump", "--format", "json", deep)
    assert "nested deeper than" in one_error_line(r)
    from tileir_diff.ir.limits import MAX_REGION_DEPTH
    ok = tmp_path / "ok.tileir"
    ok.write_bytes(crafted.nested_ifs_text(MAX_REGION_DEPTH - 1))
    for args in (("dump", "--format", "json", ok), ("summary", ok), ("diff", ok, ok, "-f", "markdown")):
        r, _ = run_cli(*args)
        assert r.returncode == 0 and r.stderr == b"", (args, r.stderr[-2000:])
    json.loads(run_cli("dump", "--format", "json", ok)[0].stdout)


def test_class3_if_without_else_round_trips_through_the_printer_and_the_writer(tileirdisasm_or_none):
    text = crafted.IF_WITHOUT_ELSE_TEXT.decode()
    m = parse_text(text, version=(13, 4))
    assert print_module(m) == text
    data = write_bytecode(m, (13, 4))
    back = load(data)
    assert module_mismatches(m, back) == [] and print_module(back) == text
    if tileirdisasm_or_none:
        f = Path(os.environ.get("TMPDIR", "/tmp")) / f"if_no_else_{os.getpid()}.tileirbc"
        f.write_bytes(data)
        try:
            out = subprocess.run([tileirdisasm_or_none, str(f)], capture_output=True, text=True, timeout=60)
        finally:
            f.unlink()
        assert out.returncode == 0 and out.stdout == text, out.stderr


@pytest.fixture
def tileirdisasm_or_none():
    from tileir_diff.tools import find_tool
    return find_tool("tileirdisasm")


# --- class 4: the size cap trusted getsize() ---------------------------------------------------------
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_class4_dev_zero_is_refused_with_a_bounded_read():
    r, _ = run_cli("dump", "/dev/zero", timeout=120)  # before: read until killed (24 GB)
    assert "larger than" in one_error_line(r)


def test_class4_a_fifo_that_never_ends_is_refused(tmp_path):
    from tileir_diff import loader
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    stop = threading.Event()

    def feed():
        try:
            with open(fifo, "wb") as w:
                while not stop.is_set():
                    w.write(b"\0" * 65536)
        except (BrokenPipeError, OSError):
            pass

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    try:
        with pytest.raises(TileIRFormatError, match="larger than the 1000000-byte limit"):
            loader.read_bounded(str(fifo), 1_000_000)
    finally:
        stop.set()
        t.join(5)


# --- class 5: only TileIRFormatError was ever a clean error ------------------------------------------
def _crash(*_args, **_kwargs):
    raise RuntimeError("boom\nsecond line")


def test_class5_an_internal_error_is_one_line_and_status_70(monkeypatch, capsys):
    from tileir_diff import cli
    import tileir_diff.text.printer as printer
    monkeypatch.setattr(printer, "print_module", _crash)
    monkeypatch.delenv("TILEIR_DEBUG", raising=False)
    status = cli.main(["dump", str(crafted.ABS_NEG)])
    err = capsys.readouterr().err
    assert status == cli.EXIT_INTERNAL == 70 and status != cli.EXIT_DIFFERENT
    assert err.count("\n") == 1 and "internal error" in err and "TILEIR_DEBUG=1" in err and "Traceback" not in err
    monkeypatch.setenv("TILEIR_DEBUG", "1")
    assert cli.main(["dump", str(crafted.ABS_NEG)]) == 70
    assert "Traceback" in capsys.readouterr().err


def test_class5_the_status_is_documented():
    from tileir_diff import cli
    import re
    assert re.search(r"^\s*70\s+internal error", cli.build_parser().epilog, re.M)
    assert re.search(r"^\|\s*`?70`?\s*\|", (ROOT / "docs" / "cli.md").read_text(), re.M)


# --- class 6: strings from the file reach outputs raw --------------------------------------------------
def _with_bad_flags(name: str) -> bytes:
    """A 13.3 module whose function is named ``name`` and whose function flags have an unknown bit:
    the decoder's error quotes the name."""
    from tileir_diff.bytecode.container import read_header, read_sections
    from tileir_diff.bytecode.stream import Stream
    data = bytearray(write_bytecode(crafted.renamed(crafted.DATA / "int_abs_neg.v13_3.tileirbc", name), (13, 3)))
    s = Stream(bytes(data))
    read_header(s)
    func = read_sections(s)[0x02]
    p = Stream(bytes(data), func.start, func.end)
    p.varint(), p.varint(), p.varint()  # count, name, signature
    data[p.pos] |= 0x08
    return bytes(data)


def test_class6_an_error_naming_the_file_is_one_line(tmp_path):
    f = tmp_path / "evil\nname\x1b[2J.tileirbc"
    f.write_bytes(_with_bad_flags(crafted.EVIL_NAME))
    e = refused(f.read_bytes(), "unknown flag bits")
    assert not re.search(r"[\x00-\x1f\x7f]", str(e)), repr(str(e))
    err = one_error_line(run_cli("dump", f)[0])
    assert "\\x0a" in err and "\\x1b" in err  # escaped, still there to read


def test_class6_text_report_carries_no_terminal_escapes():
    from tileir_diff.api import diff
    from tileir_diff.report import render
    a = crafted.renamed(crafted.ABS_NEG, crafted.EVIL_NAME)
    b = crafted.renamed(crafted.ABS_NEG, crafted.EVIL_NAME + "2")
    out = render(diff(a, b), "text")
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]", out), repr(out[:500])
    assert sum(1 for line in out.splitlines() if "DIFFERENT" in line and "\\x1b" not in line) <= 1


def test_class6_markdown_report_cannot_be_escaped_into_html():
    from tileir_diff.api import diff
    from tileir_diff.report import render
    a = crafted.renamed(crafted.ABS_NEG, crafted.EVIL_NAME)
    b = crafted.renamed(crafted.ABS_NEG, crafted.EVIL_NAME + "x")
    md = render(diff(a, b), "markdown")
    assert "\r" not in md and "\x1b" not in md
    for line in md.splitlines():
        outside = re.sub(r"(`+)(?:(?!\1).)*?\1", "", line)  # drop code spans
        assert "<img" not in outside, line
    html = render(diff(a, b), "html")
    assert "<img" not in html and "&lt;img" in html


def test_class6_summary_outputs_carry_no_terminal_controls(tmp_path):
    f = tmp_path / "evil.tileirbc"
    f.write_bytes(write_bytecode(crafted.renamed(crafted.ABS_NEG, crafted.EVIL_NAME + "\x9b2J\u202e"), (13, 4)))
    for args in (("summary", f), ("summary", "--format", "json", f), ("dump", f), ("dump", "--format", "json", f)):
        r, _ = run_cli(*args)
        out = r.stdout.decode("utf-8")
        assert r.returncode == 0 and not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]", out), (args, out[:300])
        if "json" in args:
            assert any(crafted.EVIL_NAME in v for v in _strings(json.loads(out)))  # the name is all there


def _strings(doc):
    if isinstance(doc, str):
        yield doc
    elif isinstance(doc, dict):
        for v in doc.values():
            yield from _strings(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from _strings(v)


def test_class6_symbols_are_quoted_like_mlir(tileirdisasm_or_none):
    name = "<img src=x onerror=1"
    m = crafted.renamed(crafted.ABS_NEG, name)
    text = print_module(m)
    assert text.startswith('entry @"<img src=x onerror=1"(')
    back = parse_text(text, version=m.version)
    assert back.functions[0].name == name and module_mismatches(m, back) == []
    if tileirdisasm_or_none:
        f = Path(os.environ.get("TMPDIR", "/tmp")) / f"quoted_{os.getpid()}.tileirbc"
        f.write_bytes(write_bytecode(m, m.version))
        try:
            out = subprocess.run([tileirdisasm_or_none, str(f)], capture_output=True, text=True, timeout=60)
        finally:
            f.unlink()
        assert out.returncode == 0 and out.stdout == text


def test_class6_every_name_that_needs_quoting_reads_back():
    for name in ("a-b", "1abc", "a b", 'q"uote\\', "tab\there", "é", crafted.EVIL_NAME, ""):
        m = crafted.renamed(crafted.ABS_NEG, name)
        back = parse_text(print_module(m), version=m.version)
        assert back.functions[0].name == name


# --- class 7: the suite's analysis.json ---------------------------------------------------------------
@pytest.mark.parametrize("content,fragment", [
    (b'{"op": "x\xff\xfe"}', "not UTF-8"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b'{"op": ' + b"1" * 5000 + b"}", "invalid JSON"),
])
def test_class7_malformed_analysis_json_is_one_line_naming_the_file(tmp_path, content, fragment):
    from tileir_diff.suite.catalog import CatalogError, load_op
    d = tmp_path / "myop"
    d.mkdir()
    (d / "analysis.json").write_bytes(content)
    with pytest.raises(CatalogError) as info:
        load_op(d)
    msg = str(info.value)
    assert msg.startswith(str(d / "analysis.json")) and fragment in msg and "\n" not in msg, msg
