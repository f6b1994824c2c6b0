"""Issue 27, one test per finding outside the harness's random classes: the bounded JSON reader,
launch facts, hint integers past i32, control characters in the JSON and HTML reports, a path
with NUL."""
from __future__ import annotations

import dataclasses
import json
import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import tileir_diff
from tests.fuzz.bounds_inputs import control_names
from tileir_diff import TileIRFormatError
from tileir_diff.bytecode.reader import read_bytecode
from tileir_diff.bytecode.writer import write_bytecode
from tileir_diff.ir import types as T
from tileir_diff.ir.attributes import DictAttr, IntegerAttr, OptimizationHints
from tileir_diff.launch.facts import LaunchFactSyntaxError, parse_fact
from tileir_diff.loader import JSONFileError, read_json_file
from tileir_diff.report import render
from tileir_diff.suite.accept import AcceptFileError, load_accept_file
from tileir_diff.text.parser import parse_text
from tileir_diff.text.printer import print_module

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "tests" / "corpus" / "data" / "int_abs_neg.v13_4.tileirbc"


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "tileir_diff.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))


# -- the bounded JSON reader ------------------------------------------------------------------
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "analysis.json"
    os.mkfifo(fifo)
    done = []
    t = threading.Thread(target=lambda: done.append(pytest.raises(JSONFileError, read_json_file, str(fifo))),
                         daemon=True)
    t.start()
    t.join(10)
    assert done, "reading a FIFO with no writer blocked"
    assert "not a regular file (a FIFO)" in str(done[0].value)


@pytest.mark.parametrize("path, message", [("/dev/zero", "not a regular file (a device)"),
                                           ("/", "not a regular file (a directory)")])
def test_devices_and_folders_are_refused(path, message):
    with pytest.raises(JSONFileError) as e:
        read_json_file(path)
    assert str(e.value) == f"{path}: {message}"


@pytest.mark.parametrize("content, message", [
    ("[" * 65 + "]" * 65, "nested too deeply"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"a": ' + "9" * 5000 + "}", "invalid JSON: Exceeds the limit"),
    ('{"a": [1, 2', "invalid JSON at line 1 column"),
])
def test_malformed_json_is_one_line_naming_the_file(tmp_path, content, message):
    p = tmp_path / "analysis.json"
    p.write_text(content)
    with pytest.raises(JSONFileError) as e:
        read_json_file(str(p))
    assert message in str(e.value) and str(e.value).startswith(str(p)) and "\n" not in str(e.value)


def test_nesting_at_the_limit_reads(tmp_path):
    # 64 levels read; 65 do not (above)
    p = tmp_path / "analysis.json"
    p.write_text("[" * 63 + "[1]" + "]" * 63)
    data = read_json_file(str(p))
    for _ in range(63):
        data = data[0]
    assert data == [1]


def test_an_oversized_file_is_refused_by_its_size(tmp_path):
    p = tmp_path / "analysis.json"
    with open(p, "wb") as f:
        f.truncate(17 * 1024 * 1024)
    with pytest.raises(JSONFileError) as e:
        read_json_file(str(p))
    assert "larger than the 16777216-byte limit" in str(e.value)


def test_accept_file_with_a_deep_match_pattern_is_refused(tmp_path):
    p = tmp_path / "analysis.json"
    p.write_text('{"accepted_differences": [{"category": "x", "what": "w", "why": "y", "match": '
                 + '{"a":' * 900 + "1" + "}" * 900 + "}]}")
    with pytest.raises(AcceptFileError, match="nested too deeply"):
        load_accept_file(str(p))


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "deep"])
def test_diff_accept_bad_files_exit_2(tmp_path, kind):
    if kind == "fifo":
        path = tmp_path / "a.json"
        os.mkfifo(path)
    elif kind == "dev-zero":
        path = Path("/dev/zero")
    else:
        path = tmp_path / "a.json"
        path.write_text("[" * 5000 + "]" * 5000)
    r = _cli("diff", KERNEL, KERNEL, "--accept", path)
    assert r.returncode == 2, r.stderr
    assert str(path) in r.stderr.splitlines()[-1] and "Traceback" not in r.stderr


# -- launch facts -----------------------------------------------------------------------------
@pytest.mark.parametrize("fact, message", [
    ("grid.x == " + "+".join(["1"] * 3000), "characters (at most 2000)"),
    ("grid.x == " + "-" * 1500 + "1", "more than 32 levels"),
    ("grid.x == " + "cdiv(" * 200 + "1" + ", 2)" * 200, "more than 32 levels"),
    ("grid.w == 1", "unknown name 'grid.w' (names: grid.x, grid.y, grid.z, bid.x, bid.y, bid.z, arg<k>"),
    ("blk.x == 1", "unknown name 'blk.x'"),
    ("n == 1", "unknown name 'n'"),
    ("f(1) == 1", "call of 'f' is not allowed"),
    ("grid.x ** 2 == 1", "operator Pow is not allowed"),
    ("grid.x == 1 == 1", "expected one comparison"),
    ("grid.x != 1", "expected one comparison"),
    ("cdiv(1) == 1", "cdiv takes two terms"),
])
def test_launch_facts_outside_the_grammar_are_refused(fact, message):
    with pytest.raises(LaunchFactSyntaxError) as e:
        parse_fact(fact)
    assert message in str(e.value) and "\n" not in str(e.value) and len(str(e.value)) < 400


def test_a_launch_fact_in_the_grammar_parses():
    tree = parse_fact("grid.x == cdiv(arg11, 128) * cdiv(arg12, 128) + min(bid.y, 3) - max(-arg1 // 2, 5 % 3)")
    assert tree is not None


@pytest.mark.parametrize("fact, message", [
    ("grid.x == " + "+".join(["1"] * 3000), "at most 2000"),
    ("grid.x == " + "-" * 1500 + "1", "more than 32 levels"),
    ("grid.w == 1", "unknown name 'grid.w'"),
    ("arg99 == 1", "arg99 is not an integer argument of at most 32 bits of @int_abs_neg in"),
    ("arg0 == 1", "arg0 is not an integer argument"),  # a pointer
])
def test_cli_launch_facts_are_refused_with_status_2(fact, message):
    r = _cli("diff", KERNEL, KERNEL, "--launch-fact", fact)
    assert r.returncode == 2, r.stderr
    last = r.stderr.splitlines()[-1]
    assert message in last and "Traceback" not in r.stderr
    if "arg" in fact[:5]:
        assert "its integer arguments: arg1, arg2, arg4, arg5" in last


def test_cli_launch_fact_on_existing_arguments_is_taken():
    r = _cli("diff", KERNEL, KERNEL, "--launch-fact", "arg1 >= 1")
    assert r.returncode == 0, r.stderr


# -- hint integers: print -> parse closed ------------------------------------------------------
@pytest.mark.parametrize("ty, value, printed", [
    ("i64", 2 ** 31, "= 2147483648}"), ("i64", 2 ** 63 - 1, "= 9223372036854775807}"),
    ("i64", -2 ** 63, "= -9223372036854775808}"), ("i64", 40000, "= 40000 : i64}"),
    ("i32", 40000, "= 40000}"), ("i16", -5, "= -5 : i16}"), ("i8", 7, "= 7 : i8}"),
])
def test_hint_integers_read_back_as_the_bytecode_holds_them(ty, value, printed):
    m = parse_text("entry @k() optimization_hints=<sm_90 = {num_cta_in_cga = 2}> {\n  return\n}\n")
    hints = OptimizationHints((("sm_90", DictAttr((("num_cta_in_cga", IntegerAttr(value, T.ScalarType(ty))),))),))
    m = dataclasses.replace(m, functions=(dataclasses.replace(m.functions[0], hints=hints),))
    read = read_bytecode(write_bytecode(m))
    text = print_module(read)
    assert printed in text.splitlines()[0]
    assert parse_text(text).functions[0].hints == read.functions[0].hints


def test_a_bare_hint_integer_past_64_bits_is_a_clear_error():
    with pytest.raises(TileIRFormatError, match=r"offset 1:45: hint integer 18446744073709551616 does not fit 64"):
        parse_text("entry @k() optimization_hints=<sm_90 = {a = 18446744073709551616}> {\n  return\n}\n")


# -- control characters in reports --------------------------------------------------------------
_RAW = "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]"


@pytest.mark.parametrize("seed", range(4))
def test_json_and_html_reports_escape_control_characters(seed):
    import re
    a, b = control_names(random.Random(seed), 4)
    r = tileir_diff.diff(a, b)
    for fmt in ("json", "html", "text", "markdown"):
        out = render(r, fmt)
        assert not re.search(_RAW, out), (fmt, re.findall(_RAW, out))
    # still the same JSON: the name comes back intact through the \u escapes
    doc = json.loads(render(r, "json"))
    assert doc["functions"][0]["left"] == a.functions[0].name


def test_cli_json_on_stdout_escapes_c1_and_bidi(tmp_path):
    a, b = control_names(random.Random(7), 4)
    pa, pb = tmp_path / "a.tileirbc", tmp_path / "b.tileirbc"
    pa.write_bytes(write_bytecode(a))
    pb.write_bytes(write_bytecode(b))
    r = _cli("diff", pa, pb, "-f", "json")
    import re
    assert r.returncode == 1, r.stderr
    assert not re.search(_RAW, r.stdout)
    assert json.loads(r.stdout)["verdict"] == "different"


# -- a path holding NUL -------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["a\0b", "\0", "dir/\0.tileirbc"])
def test_load_of_a_path_with_nul_is_a_format_error(path):
    with pytest.raises(TileIRFormatError) as e:
        tileir_diff.load(path)
    assert "the path holds a NUL character" in str(e.value)
