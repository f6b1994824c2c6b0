"""scripts/sass_evidence.py: the per-miss SASS evidence of docs/results/tuning.md, on the CPU.

The parsing and the rules run on synthetic cubins (the ELF writer and stand-in tools of
test_sass.py); the real tools, where installed with the committed cubins built, check one known
cubin and that tuning.md's generated section is current.
"""
from __future__ import annotations

import importlib.util
import struct
import sys
from pathlib import Path

import pytest

from tileir_diff.suite import sass

from .test_sass import fake_tools, make_elf  # noqa: F401 - fake_tools is a fixture

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("sass_evidence", ROOT / "scripts" / "sass_evidence.py")
ev = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = ev  # its dataclasses look their module up
_spec.loader.exec_module(ev)

ENTRY = "k__v"


def nv_info(*entries: bytes) -> bytes:
    return b"".join(entries)


def hval(attr: int, value: int) -> bytes:
    return struct.pack("<BBH", 0x03, attr, value)


def sval(attr: int, payload: bytes) -> bytes:
    return struct.pack("<BBH", 0x04, attr, len(payload)) + payload


def reqntid(x: int, y: int = 1, z: int = 1) -> bytes:
    return sval(ev.EIATTR_REQNTID, struct.pack("<III", x, y, z))


LISTING = """\t.target\tsm_90a
        .global         {name}
{name}:
        /*0000*/                   LDG.E.U16 R2, desc[UR4][R2.64] ;
        /*0010*/                   LDG.E.128 R4, desc[UR4][R2.64] ;
        /*0020*/              @!P0 LDG.E R8, desc[UR4][R2.64] ;
        /*0030*/                   MUFU.EX2 R9, R9 ;
        /*0040*/                   MUFU.RCP R9, R9 ;
        /*0050*/                   FFMA R9, R9, R9, R9 ;
        /*0060*/                   HFMA2.MMA R9, -RZ, RZ, 0, 0 ;
        /*0068*/                   HFMA2 R9, R9, R9, R9 ;
        /*0070*/                   HGMMA.64x256x16.F32.BF16 R24, gdesc[UR4], RZ ;
        /*0078*/                   QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR4], RZ ;
        /*0080*/                   STL [R1], R9 ;
        /*0090*/                   LDL R9, [R1] ;
        /*00a0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*00b0*/                   STG.E.128 desc[UR4][R2.64], R4 ;
        /*00c0*/                   UTMALDG.2D [UR8], [UR4] ;
        /*00d0*/                   EXIT ;
        /*00e0*/                   NOP ;
"""
RESOURCES = """Resource usage:
 Function {name}:
  REG:{reg} STACK:{stack} SHARED:{shared} LOCAL:0 CONSTANT[0]:720 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


def fake_cubin(tmp_path: Path, info: bytes, reg=255, stack=8, shared=140288) -> Path:
    cubin = tmp_path / "k.sm_90.cubin"
    cubin.write_bytes(make_elf({f".nv.info.{ENTRY}": info, f".text.{ENTRY}": b"\0" * 16}))
    Path(str(cubin) + ".sass").write_text(LISTING.format(name=ENTRY))
    Path(str(cubin) + ".res").write_text(RESOURCES.format(name=ENTRY, reg=reg, stack=stack, shared=shared))
    return cubin


def test_threads_per_block_reads_reqntid_after_other_attributes(tmp_path):
    cubin = fake_cubin(tmp_path, nv_info(hval(0x1B, 0xFF), sval(0x17, bytes(12)), reqntid(128, 2)))
    assert ev.threads_per_block(cubin, [ENTRY]) == 256
    other = fake_cubin(tmp_path, nv_info(hval(0x1B, 0xFF)))
    assert ev.threads_per_block(other, [ENTRY]) is None


def test_a_truncated_attribute_names_the_file_section_and_offset(tmp_path):
    cubin = fake_cubin(tmp_path, nv_info(hval(0x1B, 0xFF), struct.pack("<BBH", 0x04, 0x10, 12) + b"\x80\0"))
    with pytest.raises(sass.SassError, match=r"k\.sm_90\.cubin: section \.nv\.info\.k__v offset 4: attribute 0x10"):
        ev.threads_per_block(cubin, [ENTRY])


@pytest.mark.parametrize("threads, regs, shared, expect", [
    # rope's reference: 2 blocks fit by registers, 1 by its 140 KB of shared memory
    (128, 255, 140288, {"registers": 2, "shared": 1, "threads": 16, "fit": 1, "warps_per_sm": 4}),
    # a row kernel of 256 threads at 255 registers takes the whole register file
    (256, 255, 0, {"registers": 1, "shared": 32, "threads": 8, "fit": 1, "warps_per_sm": 8}),
    # 125 registers round up to 128 per thread (256 per warp): 16 warps by registers
    (128, 125, 17408, {"registers": 4, "shared": 12, "threads": 16, "fit": 4, "warps_per_sm": 16}),
    # GEMM: 384 threads at 168 registers
    (384, 168, 197632, {"registers": 1, "shared": 1, "threads": 5, "fit": 1, "warps_per_sm": 12}),
    # small blocks stop at 32 blocks per SM
    (32, 16, 0, {"registers": 128, "shared": 32, "threads": 64, "fit": 32, "warps_per_sm": 32}),
])
def test_blocks_per_sm(threads, regs, shared, expect):
    assert ev.blocks_per_sm(threads, regs, shared) == expect


@pytest.mark.parametrize("mnemonic, bits", [("LDG.E.U16", 16), ("LDG.E.128", 128), ("LDG.E", 32),
                                            ("LDG.E.64.CONSTANT", 64), ("STG.E.U8", 8), ("STG.E.S16", 16),
                                            ("LDG.E.128.CONSTANT", 128)])
def test_access_width(mnemonic, bits):
    assert ev.access_width(mnemonic) == bits


@pytest.mark.usefixtures("fake_tools")
def test_cubin_stats_counts_the_listing(tmp_path):
    cubin = fake_cubin(tmp_path, reqntid(128))
    s = ev.cubin_stats(cubin, sass.find_tool("nvdisasm"), sass.find_tool("cuobjdump"))
    assert (s.threads, s.registers, s.stack, s.shared) == (128, 255, 8, 140288)
    assert s.ldg == {16: 1, 128: 1, 32: 1} and s.stg == {128: 1}
    assert (s.tma_loads, s.tma_stores, s.local, s.barriers) == (1, 0, 2, 1)
    # HFMA2.MMA Rd, -RZ, RZ: the compiler's constant move, not math
    assert s.mufu == {"EX2": 1, "RCP": 1} and s.ffma == 1 and s.hfma2 == 1
    assert s.hgmma == {"64x256x16": 1, "64x128x32 fp8": 1}
    assert s.instructions == 16  # the NOP padding is not counted
    assert s.occupancy["fit"] == 1
    # one thread loads 1 + 8 + 2 bf16 elements through LDG (the TMA load is not counted)
    assert ev.loaded_elements(s, 16) == 11
    per = ev.math_per_element(s, 16)
    assert per["mufu"] == pytest.approx(2 / 11) and per["math"] == pytest.approx(4 / 11)


def test_math_per_element_falls_back_to_the_bench_bytes_for_tma_kernels():
    tma = _stats(ldg={}, stg={}, tma_loads=4, instructions=200, ffma=64, mufu={"EX2": 16})
    assert ev.math_per_element(tma, 16) is None
    per = ev.math_per_element(tma, 16, bench_elements_per_thread=32.0)
    assert per["elements_from"] == "bench bytes" and per["instructions"] == 200 / 32 and per["mufu"] == 0.5

    class Spec:  # grid of 64 x 2 blocks at the bench shape
        @staticmethod
        def grid_for(shape):
            return (64, 2, 1)
    bench = {"shape": {"M": 1}, "bytes": 2 * 2 * 64 * 2 * 256 * 8}  # 8 f16 elements per thread, read and written
    assert ev.bench_elements_per_thread(Spec, bench, 16, 256) == 8
    assert ev.bench_elements_per_thread(Spec, bench, 16, None) is None


def _stats(**kw):
    base = dict(threads=256, registers=32, stack=0, shared=0, occupancy=ev.blocks_per_sm(256, 32, 0),
                ldg={128: 4}, stg={128: 4}, tma_loads=0, tma_stores=0, local=0, barriers=2, mufu={},
                ffma=32, hfma2=0, hgmma={}, instructions=100)
    base.update(kw)
    return ev.CubinStats(**base)


def test_bound_rules():
    clean = _stats()
    assert ev.bound("% copy BW", clean, 16, None) == []
    spilling = _stats(local=40, stack=232)
    assert ev.bound("% copy BW", spilling, 16, None)[0].startswith("spills (232 B stack, 40 LDL/STL)")
    one_block = _stats(threads=128, registers=255, shared=140288, occupancy=ev.blocks_per_sm(128, 255, 140288))
    assert ev.bound("% copy BW", one_block, 16, None) == ["occupancy (1 block(s) x 4 warps per SM, by shared)"]
    # a GEMM at one block of 12 warps is not an occupancy bound, nor are its 16-bit epilogue
    # stores a narrow-access one: they are a narrow epilogue unless a TMA store writes the tile (or
    # they are few); a wgmma narrower than 256 columns is reported
    gemm = _stats(threads=384, registers=168, occupancy=ev.blocks_per_sm(384, 168, 197632),
                  stg={16: 64}, hgmma={"64x256x16": 8})
    assert ev.bound("x cuBLAS", gemm, 16, None) == ["narrow epilogue (64 STG of ≤ 32 bits, no TMA store)"]
    assert ev.bound("x cuBLAS", _stats(stg={32: 16}, hgmma={"64x256x8": 4}), 32, None) == [
        "narrow epilogue (16 STG of ≤ 32 bits, no TMA store)"]
    assert ev.bound("x cuBLAS", _stats(stg={16: 64}, tma_stores=4, hgmma={"64x256x16": 8}), 16, None) == []
    assert ev.bound("x cuBLAS", _stats(stg={16: 15, 128: 64}, hgmma={"64x256x16": 8}), 16, None) == []
    assert ev.bound("% copy BW", _stats(stg={32: 64}), 32, None) == []  # not an MMA kernel
    assert ev.bound("x cuBLAS", _stats(hgmma={"64x128x16": 16, "64x64x16": 4}), 16, None) == [
        "narrow wgmma (N ≤ 128: the B tile is re-read from shared memory per 64 rows)"]
    assert ev.bound("x cuBLAS", _stats(hgmma={"64x128x32 fp8": 4}), 8, None)[0].startswith("narrow wgmma (N ≤ 128")
    narrow = _stats(ldg={16: 8}, stg={16: 8})
    assert ev.bound("% copy BW", narrow, 16, None) == ["narrow access (16 8/16-bit LDG/STG)"]
    assert ev.bound("% copy BW", narrow, 32, None) == []  # f32 scalar access is full width for f32
    assert ev.bound("% copy BW", _stats(barriers=40), 16, None) == ["sync (40 barriers)"]


def test_alu_demand_and_rule():
    # f16 read and written once at 85 % of 4252 GB/s: 13.8 B per SM clock = 3.46 elements
    per = {"instructions": 40.0, "mufu": 2.0, "math": 14.0, "f32": 12.0, "hfma2": 0.0}
    d = ev.alu_demand(per, 16, 4252.0)
    assert d["elements_per_clk"] == pytest.approx(0.85 * 4252e9 / 132 / 1.98e9 / 4)
    assert d["issue"] == pytest.approx(40 * d["elements_per_clk"] / 128)
    assert d["mufu"] == pytest.approx(2 * d["elements_per_clk"] / 16)
    assert ev.bound("% copy BW", _stats(), 16, d)[0].startswith("ALU (the goal needs 108% of the issue slots")
    light = ev.alu_demand(dict(per, instructions=10.0, mufu=0.5), 16, 4252.0)
    assert ev.bound("% copy BW", _stats(), 16, light) == []


@pytest.mark.parametrize("row, expect", [
    ({"family": "elementwise", "pct_copy_bw": 84.9}, ("% copy BW", 84.9, 85.0)),
    ({"family": "gemm", "op": "bmm", "speedup_vs_baseline": 0.95, "pct_copy_bw": 3.0}, ("x cuBLAS", 0.95, 0.95)),
    ({"family": "attention", "op": "flash_attention", "speedup_vs_baseline": 0.99, "pct_copy_bw": 1.0},
     ("x SDPA", 0.99, 1.0)),
    ({"family": "attention", "op": "attention_sink", "speedup_vs_baseline": 0.5, "pct_copy_bw": 1.0}, None),
    ({"family": "moe", "op": "moe_align_block_size", "speedup_vs_baseline": 0.02, "pct_copy_bw": 0.1}, None),
])
def test_goal_of(row, expect):
    assert ev.goal_of(row) == expect


def test_replace_section_needs_the_markers():
    text = f"intro\n{ev.BEGIN}\nold\n{ev.END}\noutro\n"
    assert ev.replace_section(text, "new\n") == f"intro\n{ev.BEGIN}\n\nnew\n\n{ev.END}\noutro\n"
    with pytest.raises(ValueError, match="no generated section"):
        ev.replace_section("no markers", "new")


REAL = ROOT / "build" / "reference" / "rope" / "bf16_neox_d128.sm_90.cubin"
TOOLS = sass.find_tool("nvdisasm") and sass.find_tool("cuobjdump")


@pytest.mark.skipif(not (TOOLS and REAL.is_file()), reason="CUDA wheels or build/reference cubins absent")
def test_the_committed_rope_cubin():
    """rope bf16_neox_d128 as `cuobjdump -elf` / `--dump-resource-usage` show it (tuning.md's rope table)."""
    s = ev.cubin_stats(REAL, sass.find_tool("nvdisasm"), sass.find_tool("cuobjdump"))
    assert (s.threads, s.registers, s.stack, s.shared) == (128, 255, 24, 140288)
    assert s.ldg[16] == 256 and s.stg == {16: 256} and s.occupancy["fit"] == 1


@pytest.mark.slow  # disassembles every missing variant's cubin (minutes on 2 cores)
@pytest.mark.skipif(not (TOOLS and REAL.is_file()), reason="CUDA wheels or build/reference cubins absent")
def test_tuning_md_section_is_current():
    assert ev.main(["--check"]) == 0


def test_each_op_is_judged_against_the_run_that_measured_it():
    """A results file merged twice (run_reference.py --merge): this run's ops take its environment,
    the others the merged run whose `ops` name them; an entry without `ops` (older files) the rest."""
    results = {"environment": {"date": "newest"}, "ops_run": ["swiglu"],
               "merged_from": [{"date": "middle", "ops": ["gelu"]}, {"date": "oldest"}]}
    assert [ev.run_environment(results, op)["date"] for op in ("swiglu", "gelu", "rope")] == ["newest", "middle", "oldest"]
    assert ev.run_environment({"environment": {"date": "only"}}, "gelu")["date"] == "only"
