"""The Rust variant table (emit-ir --list --json) against reference/<op>/analysis.json.

The names pair Rust IR with Python IR in the diff, and each field here is an assumption the
emitted IR bakes in and the C ABI enforces: a drift on either side fails here, not on the GPU.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.cargo

REFERENCE = Path(__file__).resolve().parents[2] / "reference"

# Reference variants of ported ops that have no Rust port, each with the reason (docs/PORTS.md
# lists them as missing). Everything else of a ported op must be ported.
NOT_YET_PORTED: dict[tuple[str, str], str] = {}

# Rust-only generics: the element type (a type generic where Python specializes on the
# array dtype; EIdx: the element type of an index array) and flags Python derives from the
# dtype at trace time (WIDE_IDS: int64 ids narrowed to int32), and HALF_D = D // 2 (rope),
# which a cuTile Rust shape cannot compute from D.
RUST_ONLY_GENERICS = {"E", "EIn", "EOut", "CAST_TF32", "EIdx", "WIDE_IDS", "HALF_D"}
RUST_TYPE_NAMES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f8e4m3fn": "float8_e4m3fn", "i32": "int32",
                   "i64": "int64"}


@pytest.fixture(scope="module")
def rust_table(emit_ir):
    r = subprocess.run([str(emit_ir), "--list", "--json"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in r.stdout.splitlines()]


def test_rust_and_python_registries_name_the_same_ops(rust_table):
    """`ops!` in rust_kernels/src/ops/mod.rs and tileir_diff/ports/registry.py list the ports;
    each side's list is its only one, and they must agree (in order)."""
    from tileir_diff import ports
    rust_ops = list(dict.fromkeys(rv["op"] for rv in rust_table))
    assert rust_ops == list(ports.PORTED_OPS)
    for f in ports.FUNCTIONS:
        entries = {rv["entry"] for rv in rust_table if rv["op"] == f.op}
        assert set(f.kernels) <= entries, f"{f.name} launches {f.kernels}, the Rust table has {sorted(entries)}"
    for op in ports.PORTED_OPS:
        launched = {k for f in ports.FUNCTIONS if f.op == op for k in f.kernels}
        assert launched == {rv["entry"] for rv in rust_table if rv["op"] == op}, f"{op}: a kernel no C function launches"


def reference_variants(op):
    return {v["name"]: v for v in json.loads((REFERENCE / op / "analysis.json").read_text())["variants"]}


def test_every_rust_variant_is_a_reference_variant(rust_table):
    assert len(rust_table) >= 30
    for rv in rust_table:
        ref = reference_variants(rv["op"])
        assert rv["variant"] in ref, f"{rv['op']}/{rv['variant']} is not in reference/{rv['op']}/analysis.json"
        assert ref[rv["variant"]]["kernel"] == rv["entry"], f"{rv['op']}/{rv['variant']}: ports another kernel"


def test_ported_ops_cover_their_reference_variants(rust_table):
    ported = {(rv["op"], rv["variant"]) for rv in rust_table}
    for op in {rv["op"] for rv in rust_table}:
        for name in reference_variants(op):
            if (op, name) not in NOT_YET_PORTED:
                assert (op, name) in ported, f"{op}/{name} has no Rust variant (port it or list it in NOT_YET_PORTED)"
    for key in NOT_YET_PORTED:
        assert key not in ported, f"{key} is ported now: drop it from NOT_YET_PORTED"


def _as_generic(value):
    return str(int(value)) if isinstance(value, bool) else str(value)


def test_constants_are_the_rust_generics(rust_table):
    for rv in rust_table:
        ref = reference_variants(rv["op"])[rv["variant"]]
        generics = rv["generics"]
        for name, value in ref["constants"].items():
            assert name in generics, f"{rv['variant']}: Python constant {name} has no Rust generic"
            assert generics[name] == _as_generic(value), f"{rv['variant']}: {name}"
        extra = set(generics) - set(ref["constants"])
        assert extra <= RUST_ONLY_GENERICS, f"{rv['variant']}: unexplained Rust generics {extra}"
        arrays = [p for p in ref["params"] if p["kind"] == "array"]
        if "EIdx" in generics:  # an index array (the first integer one) and a data type E
            index_array = next(p for p in arrays if p["dtype"].startswith("int"))
            assert RUST_TYPE_NAMES[generics["EIdx"]] == index_array["dtype"], rv["variant"]
            assert generics["WIDE_IDS"] == str(int(index_array["dtype"] == "int64")), rv["variant"]
            arrays = [p for p in arrays if p is not index_array]
        # E is the data's element type: an index array without EIdx (rope's int32 positions) is skipped.
        data = [p for p in arrays if not p["dtype"].startswith("int")]
        if not data:  # integer arrays only (moe_align_block_size): no element type generic
            assert not {"E", "EIn", "EOut"} & set(generics), rv["variant"]
            continue
        first_array = data[0]
        if "E" in generics:
            assert RUST_TYPE_NAMES[generics["E"]] == first_array["dtype"], rv["variant"]
        else:  # mixed precision: input and output element types (flash_decode_combine: f32 partials, EOut only)
            if "EIn" in generics:
                assert RUST_TYPE_NAMES[generics["EIn"]] == first_array["dtype"], rv["variant"]
            output = next(p for p in arrays if p["role"] == "output")
            assert RUST_TYPE_NAMES[generics["EOut"]] == output["dtype"], rv["variant"]
        if "HALF_D" in generics:
            assert generics["HALF_D"] == str(ref["constants"]["D"] // 2), rv["variant"]
        if "CAST_TF32" in generics:
            assert generics["CAST_TF32"] == str(int(first_array["dtype"] == "float32")), rv["variant"]


def test_parameters_carry_the_reference_assumptions(rust_table):
    fields = ("dtype", "ndim", "index_dtype", "stride_constant", "base_addr_divisible_by", "shape_divisible_by",
              "stride_divisible_by", "role")
    for rv in rust_table:
        ref = reference_variants(rv["op"])[rv["variant"]]
        want = [p for p in ref["params"] if p["kind"] != "constant"]
        got = rv["params"]
        assert [p["name"] for p in got] == [p["name"] for p in want], f"{rv['variant']}: parameter order"
        for g, w in zip(got, want):
            assert g["kind"] == w["kind"], f"{rv['variant']}.{w['name']}"
            if w["kind"] == "array":
                for f in fields:
                    assert g[f] == w[f], f"{rv['variant']}.{w['name']}.{f}: rust {g[f]!r} vs python {w[f]!r}"
            else:
                assert g["dtype"] == w["dtype"] and g["dtype"] in ("float32", "int32"), f"{rv['variant']}.{w['name']}"

