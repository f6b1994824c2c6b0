"""Issue 27: the text reader's work is linear in the input, and location chains are bounded.

The alias prescan used to start a parser per line that begins with ``#`` and count every newline
before that line again (40k such lines: 22 s, 500k: hours). The test counts that work instead of
timing it: the characters the lexer walks to find its line number, and the lexers made.
"""
from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from tests.fuzz.bounds_inputs import callsite_chain_bytecode, callsite_chain_text, hash_lines
from tileir_diff import TileIRFormatError
from tileir_diff.ir import limits as L
from tileir_diff.text import lexer as lexer_mod
from tileir_diff.text.parser import parse_text


@pytest.fixture
def lexing_work(monkeypatch):
    """Counts lexers made and the characters ``Lexer.reset`` walks (it counts newlines between
    the old and the new position)."""
    work = {"lexers": 0, "reset_chars": 0}
    init, reset = lexer_mod.Lexer.__init__, lexer_mod.Lexer.reset

    def counting_init(self, *a, **k):
        work["lexers"] += 1
        init(self, *a, **k)

    def counting_reset(self, offset):
        work["reset_chars"] += abs(offset - self.pos)
        reset(self, offset)

    monkeypatch.setattr(lexer_mod.Lexer, "__init__", counting_init)
    monkeypatch.setattr(lexer_mod.Lexer, "reset", counting_reset)
    return work


@pytest.mark.parametrize("body", ['#a{i} = loc("f.py":1:1)', "#", "#a{i} = loc(callsite("])
def test_alias_prescan_work_is_linear(lexing_work, body):
    n = 4000
    text = "\n".join(body.format(i=i) for i in range(n)) + "\n"
    try:
        parse_text(text)
    except TileIRFormatError:
        pass
    assert lexing_work["lexers"] <= 3  # the parser's, the prescan's (not one per line)
    assert lexing_work["reset_chars"] <= 2 * len(text)


def test_prescan_keeps_line_numbers():
    # the prescan jumps between lines: an error in an alias defined late names its own line
    text = 'entry @k() {\n  return loc(#a)\n}\n#b = loc("f.py":1:1)\n\n#a = loc(bogus)\n'
    with pytest.raises(TileIRFormatError, match=r"offset 6:10: unsupported location 'bogus'"):
        parse_text(text)


def test_aliases_defined_after_use_still_read():
    m = parse_text('entry @k() {\n  return loc(#b)\n}\n#a = loc("f.py":3:4)\n'
                   '#b = loc(callsite("g.py":1:2 at #a))\n')
    loc = m.functions[0].body.operations[-1].location
    assert str(loc) == "g.py:1:2 (inlined at f.py:3:4)"


@pytest.mark.parametrize("seed", range(3))
def test_hash_line_families_are_refused_or_read(seed):
    text = hash_lines(2000, random.Random(seed))
    try:
        parse_text(text)
    except TileIRFormatError as e:
        assert "offset" in str(e) and "\n" not in str(e)


def test_callsite_chain_at_the_limit_formats_iteratively():
    m = parse_text(callsite_chain_text(L.MAX_CALLSITE_DEPTH))
    loc = m.functions[0].body.operations[-1].location
    assert loc.callsite_depth() == L.MAX_CALLSITE_DEPTH
    s = str(loc)
    assert s.count("(inlined at ") == L.MAX_CALLSITE_DEPTH and s.endswith(")" * L.MAX_CALLSITE_DEPTH)
    assert s.startswith(f"f.py:{L.MAX_CALLSITE_DEPTH + 1}:1 (inlined at f.py:{L.MAX_CALLSITE_DEPTH}:1")


@pytest.mark.parametrize("depth", [L.MAX_CALLSITE_DEPTH + 1, 5000])
def test_callsite_chain_past_the_limit_is_refused_at_its_definition(depth):
    # the use comes first; the error names the alias definition that made the chain too long
    line = 4 + L.MAX_CALLSITE_DEPTH + 1
    with pytest.raises(TileIRFormatError, match=rf"offset {line}:\d+: location inlined through more than "
                                                rf"{L.MAX_CALLSITE_DEPTH} call sites"):
        parse_text(callsite_chain_text(depth))


def _dump_json(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data)
    return subprocess.run([sys.executable, "-m", "tileir_diff.cli", "dump", "--format", "json", str(p)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("source", ["text", "bytecode"])
def test_dump_json_of_a_deep_chain_is_a_clear_error(tmp_path, source):
    data = (callsite_chain_text(3000).encode() if source == "text" else callsite_chain_bytecode(3000))
    r = _dump_json(tmp_path, "deep." + ("tileir" if source == "text" else "tileirbc"), data)
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    assert r.stderr.count("\n") == 1 and "inlined through more than 64 call sites" in r.stderr
    assert "deep." in r.stderr and "offset" in r.stderr


@pytest.mark.parametrize("source", ["text", "bytecode"])
def test_dump_json_at_the_limit_prints_the_chain(tmp_path, source):
    d = L.MAX_CALLSITE_DEPTH
    data = callsite_chain_text(d).encode() if source == "text" else callsite_chain_bytecode(d)
    r = _dump_json(tmp_path, "ok." + ("tileir" if source == "text" else "tileirbc"), data)
    assert r.returncode == 0, r.stderr
    locs = [op.get("location", "") for op in json.loads(r.stdout)["functions"][0]["body"]]
    assert max(s.count("(inlined at ") for s in locs) == d
