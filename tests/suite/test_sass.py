"""SASS identity of the ports (tileir_diff/suite/sass.py), on the CPU.

The comparison logic runs against stand-in nvdisasm / cuobjdump scripts that print a listing and a
resource report stored beside each synthetic cubin, so every way two cubins can differ is tested
without the CUDA wheels: one changed instruction, a renamed register, a register count, a
constant bank's bytes. The real tools, where installed, then check the committed cubins.
"""
from __future__ import annotations

import json
import stat
import struct
from pathlib import Path

import pytest

from tileir_diff.suite import sass
from tileir_diff.suite.catalog import load_catalog
from tileir_diff.suite.port_table import port_rows, render_markdown

ROOT = Path(__file__).resolve().parents[2]


def make_elf(sections: dict) -> bytes:
    """A minimal 64-bit little-endian ELF holding `sections` (name -> bytes) plus .shstrtab."""
    names = b"\0" + b"".join(n.encode() + b"\0" for n in sections) + b".shstrtab\0"
    body, headers, offset = b"", [], 64
    name_off = 1
    for name, content in sections.items():
        headers.append(struct.pack("<IIQQQQIIQQ", name_off, 1, 0, 0, offset + len(body), len(content), 0, 0, 1, 0))
        name_off += len(name) + 1
        body += content
    headers.append(struct.pack("<IIQQQQIIQQ", name_off, 3, 0, 0, offset + len(body), len(names), 0, 0, 1, 0))
    body += names
    shoff = offset + len(body)
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header = struct.pack("<16sHHIQQQIHHHHHH", ident, 2, 190, 1, 0, 0, shoff, 0, 64, 0, 0, 64,
                         len(headers) + 1, len(headers))
    return header + body + bytes(64) + b"".join(headers)  # section 0 is the null header


def _script(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def fake_tools(tmp_path, monkeypatch):
    """nvdisasm / cuobjdump that print <cubin>.sass / <cubin>.res; the cubin path is the last argument."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _script(bin_dir / "nvdisasm", 'for a; do f="$a"; done; [ -f "$f.sass" ] || { echo "cannot read $f" >&2; exit 1; }\n'
                                  'cat "$f.sass"\n')
    _script(bin_dir / "cuobjdump", 'for a; do f="$a"; done; cat "$f.res"\n')
    monkeypatch.setenv(sass.TOOLS_ENV, str(bin_dir))
    return bin_dir


LISTING = """\t.target\tsm_90a
//--------------------- .text.{name} --------------------------
\t.section\t.text.{name},"ax",@progbits
        .global         {name}
        .size           {name},(.L_x_3 - {name})
{name}:
.text.{name}:
        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */
        /*0010*/                   S2R R{reg}, SR_TID.X ;
        /*0020*/              @!P0 {op} R2, R{reg}, 0x1, RZ ;
.L_x_3:
        /*0030*/                   EXIT ;
"""
RESOURCES = """Resource usage:
 Common:
  GLOBAL:64 CONSTANT[4]:8
 Function {name}:
  REG:{regs} STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:576 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


def cubin(tmp_path: Path, tag: str, name: str, *, reg=6, op="IADD3", regs=40, bank=b"\x01" * 8) -> Path:
    path = tmp_path / f"{tag}.sm_90.cubin"
    path.write_bytes(make_elf({f".text.{name}": b"\x00" * 16, ".nv.constant4": bank,
                               f".nv.constant0.{name}": b"\x00" * 32}))
    Path(str(path) + ".sass").write_text(LISTING.format(name=name, reg=reg, op=op))
    Path(str(path) + ".res").write_text(RESOURCES.format(name=name, regs=regs))
    return path


def compare(tmp_path, **rust):
    py = cubin(tmp_path, "py", "kernel__variant")
    rs = cubin(tmp_path, "rs", "kernel_entry", **rust)
    return sass.compare_cubins("op", "variant", py, rs)


def test_same_code_under_other_names_and_offsets_is_identical(fake_tools, tmp_path):
    r = compare(tmp_path)
    assert r.verdict == "identical", r
    assert r.instructions == {"python": 4, "rust": 4}
    assert r.resources["REG"] == {"python": 40, "rust": 40} and r.resources["common CONSTANT[4]"]["rust"] == 8
    assert r.resources_equal and r.constant_banks_equal and r.changed_lines == 0


def test_one_changed_instruction_is_different(fake_tools, tmp_path):
    r = compare(tmp_path, op="IMAD")
    assert r.verdict == "different"
    assert r.changed_opcodes == 2 and r.opcode_delta == {"IADD3": -1, "IMAD": 1}
    assert "IADD3" in r.first_difference["python"] and "IMAD" in r.first_difference["rust"]
    assert "IADD3 -1" in sass.summary_cell(r.to_dict())


def test_renamed_register_is_different_with_the_same_opcodes(fake_tools, tmp_path):
    r = compare(tmp_path, reg=7)
    assert r.verdict == "different"
    assert r.changed_opcodes == 0 and r.changed_lines == 4 and r.opcode_delta == {}


def test_register_count_alone_is_different(fake_tools, tmp_path):
    r = compare(tmp_path, regs=41)
    assert r.verdict == "different" and r.changed_lines == 0 and not r.resources_equal
    assert "REG 40→41" in sass.summary_cell(r.to_dict())


def test_constant_bank_bytes_alone_are_different(fake_tools, tmp_path):
    r = compare(tmp_path, bank=b"\x02" * 8)
    assert r.verdict == "different" and r.changed_lines == 0 and r.resources_equal
    assert r.different_banks == [".nv.constant4"]
    assert ".nv.constant4" in sass.summary_cell(r.to_dict())


def test_missing_cubin_missing_tools_and_tool_failure(fake_tools, tmp_path, monkeypatch):
    py = cubin(tmp_path, "py", "kernel__variant")
    assert sass.compare_cubins("op", "v", py, tmp_path / "absent.cubin").verdict == "missing"
    broken = tmp_path / "broken.sm_90.cubin"
    broken.write_bytes(make_elf({}))
    Path(str(broken) + ".res").write_text("")
    r = sass.compare_cubins("op", "v", py, broken)
    assert r.verdict == "error" and "broken.sm_90.cubin" in r.error and "\n" not in r.error
    monkeypatch.setenv(sass.TOOLS_ENV, str(tmp_path / "empty"))
    assert sass.compare_cubins("op", "v", py, py).verdict == "unavailable"


def test_elf_reader_names_the_offset_of_a_truncated_file(tmp_path):
    good = make_elf({".nv.constant4": b"\xaa" * 8, ".text.k": b"\x01\x02"})
    path = tmp_path / "k.cubin"
    path.write_bytes(good)
    sections = sass.elf_sections(path)
    assert sections[".nv.constant4"] == b"\xaa" * 8 and sections[".text.k"] == b"\x01\x02"
    path.write_bytes(good[:-40])
    with pytest.raises(sass.SassError, match=r"k\.cubin: offset \d+: section header table runs past the end"):
        sass.elf_sections(path)
    path.write_bytes(b"\x7fELF\x01" + bytes(80))
    with pytest.raises(sass.SassError, match="offset 0: not a 64-bit little-endian ELF"):
        sass.elf_sections(path)


def test_stale_record_is_shown_as_stale():
    record = {"verdict": "identical", "python_sha256": "a", "rust_sha256": "b"}
    assert sass.summary_cell(record, ("a", "b")) == "identical"
    assert sass.summary_cell(record, ("a", "c")).startswith("stale")
    assert sass.summary_cell(None) == "–"


def test_port_table_shows_the_committed_sass_column(tmp_path):
    """The port table reads docs/results/ports_sass.json under its root (here a copy with one record)."""
    spec = load_catalog(ROOT / "reference", ops=["vector_add"])
    (tmp_path / "docs" / "results").mkdir(parents=True)
    record = {"op": "vector_add", "variant": "f32_t1024", "verdict": "different", "instructions":
              {"python": 10, "rust": 11}, "changed_lines": 1, "changed_opcodes": 1, "opcode_delta": {"NOP": 1},
              "resources": {}, "different_banks": []}
    (tmp_path / sass.RESULTS_FILE).write_text(json.dumps({"results": [record]}))
    rows = port_rows(spec, root=tmp_path, reference_build=tmp_path / "none", rust_build=tmp_path / "none")
    row = next(r for r in rows if r.variant == "f32_t1024")
    assert row.sass_cell.startswith("different (10→11 instr") and "NOP +1" in row.sass_cell
    assert all(r.sass_cell == "–" for r in rows if r.variant != "f32_t1024")
    # PORTS.md tabulates ported variants only (the others are listed below it): make this one ported
    row.verdict, row.status = "equivalent", "pass"
    table = render_markdown(rows)
    assert "| SASS sm_90 |" in table and "different (10→11 instr" in table


REAL_TOOLS = sass.find_tool("nvdisasm") and sass.find_tool("cuobjdump")
BUILT = (ROOT / "build" / "rust" / "vector_add" / "f32_t1024.sm_90.cubin").is_file() and \
    (ROOT / "build" / "reference" / "vector_add" / "f32_t1024.sm_90.cubin").is_file()


@pytest.mark.skipif(not (REAL_TOOLS and BUILT), reason="needs nvdisasm + cuobjdump and the built cubins")
def test_real_cubins(monkeypatch):
    """The shipped vector_add port has the reference's SASS; two different references do not."""
    ref, rust = ROOT / "build" / "reference" / "vector_add", ROOT / "build" / "rust" / "vector_add"
    same = sass.compare_cubins("vector_add", "f32_t1024", ref / "f32_t1024.sm_90.cubin", rust / "f32_t1024.sm_90.cubin")
    assert same.verdict == "identical", same
    assert same.resources["REG"]["python"] > 0 and same.instructions["python"] > 100
    other = sass.compare_cubins("vector_add", "f32_t1024", ref / "f32_t1024.sm_90.cubin", ref / "f16_t1024.sm_90.cubin")
    assert other.verdict == "different" and other.changed_opcodes > 0


def test_committed_results_cover_every_port_with_a_cubin():
    """docs/results/ports_sass.json has a record, identical or explained as different, for every
    variant with a Rust sm_90 cubin in the build (when the build is here)."""
    data = json.loads((ROOT / sass.RESULTS_FILE).read_text())
    recorded = {(r["op"], r["variant"]): r for r in data["results"]}
    assert all(r["verdict"] in ("identical", "different") for r in recorded.values())
    built = ROOT / "build" / "rust"
    if not built.is_dir():
        pytest.skip("no build/rust here")
    missing = sorted(f"{p.parent.name}/{p.name[: -len('.sm_90.cubin')]}" for p in built.glob("*/*.sm_90.cubin")
                     if (p.parent.name, p.name[: -len(".sm_90.cubin")]) not in recorded)
    assert not missing, (f"no SASS record for {len(missing)} built port(s), e.g. {missing[:3]}: run "
                         f"`tileir-diff suite sass -o {sass.RESULTS_FILE}`")


def test_merge_keeps_the_ops_not_compared_now():
    previous = {"date": "d1", "results": [{"op": "a", "variant": "x", "verdict": "identical"},
                                          {"op": "b", "variant": "y", "verdict": "identical"}]}
    now = {"date": "d2", "summary": {}, "results": [{"op": "b", "variant": "y", "verdict": "different"},
                                                    {"op": "c", "variant": "z", "verdict": "identical"}]}
    doc = sass.merge_documents(previous, now)
    assert [(r["op"], r["verdict"]) for r in doc["results"]] == [("a", "identical"), ("b", "different"),
                                                                  ("c", "identical")]
    assert doc["summary"] == {"different": 1, "identical": 2}
    assert doc["runs"] == [{"date": "d1", "ops": ["a"]}, {"date": "d2", "ops": ["b", "c"]}]


def test_merge_puts_a_recompared_op_where_its_records_were():
    previous = {"date": "d1", "results": [{"op": "a", "variant": "x", "verdict": "identical"},
                                          {"op": "b", "variant": "y", "verdict": "identical"}]}
    now = {"date": "d2", "summary": {}, "results": [{"op": "a", "variant": "x", "verdict": "different"},
                                                    {"op": "a", "variant": "w", "verdict": "identical"}]}
    doc = sass.merge_documents(previous, now)
    assert [(r["op"], r["variant"], r["verdict"]) for r in doc["results"]] == [
        ("a", "x", "different"), ("a", "w", "identical"), ("b", "y", "identical")]
