"""Bytecode 13.5 against NVIDIA's tools: tileirdisasm 13.5.37 (the oracle) and cuda-tile 1.7.0's
dev-only 13.5 encoder (tests/corpus/v13_5, made by tests/corpus/v13_5/export.py).

- every corpus module written at 13.5 by our writer: tileirdisasm accepts it and prints exactly
  what we print for our decode of it; the decode is the original plus the fields 13.5 carries and
  the original's version lacked (their defaults);
- real 13.5 files: same, with locations, and the same IR as the kernel's 13.4 export;
- the 13.5-only ops and attributes (multimem load_reduce / reduce / store, atomic_red_view_tko
  inbounds, entry arg_attrs), built here, written at 13.5 and checked the same way;
- a 13.5 file whose version field says 13.4 (and the reverse) is refused with an offset or read
  as tileirdisasm reads it, never a crash.
"""
from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from tileir_diff import load
from tileir_diff.bytecode.reader import read_bytecode
from tileir_diff.bytecode.writer import EncodeError, write_bytecode
from tileir_diff.dialect.ops import OPS_BY_NAME
from tileir_diff.dialect.spec import V13_3, V13_5
from tileir_diff.errors import TileIRFormatError
from tileir_diff.ir import types as T
from tileir_diff.ir.attributes import Bounded, DictAttr, DivBy, EnumValue, IntegerAttr
from tileir_diff.ir.compare import module_mismatches
from tileir_diff.ir.core import Block, Operation, Region, Value
from tileir_diff.text.parser import parse_text
from tileir_diff.text.printer import print_module

from tests.conftest import CORPUS, corpus_files, disassemble

FILES = corpus_files()
REAL_13_5 = sorted((CORPUS.parent / "v13_5").glob("*.tileirbc"))
_counts = {"files": 0, "identical": 0}


def upgraded(module, version=V13_5):
    """``module`` as a ``version`` file carries it: attributes that appeared after the module's
    own version (and are neither optional nor unit) get their default, as the writer fills them
    (inbounds: one false per index). Driven by the op table."""
    old = module.version

    def new_field(a) -> bool:
        return old < a.since <= version and not a.optional and a.kind != "unit"

    def op_(op):
        od = OPS_BY_NAME[op.name]
        attrs = dict(op.attributes)
        for a in od.attrs:
            if a.name in attrs or not new_field(a):
                continue
            if a.kind == "bool_array" and a.name == "inbounds":
                attrs[a.name] = (False,) * op.segments[od.operand_index("index")]
            else:
                attrs[a.name] = EnumValue(a.enum, a.default) if a.kind == "enum" else a.default
        ordered = {a.name: attrs[a.name] for a in od.attrs if a.name in attrs}
        regions = tuple(Region(tuple(Block(b.arguments, tuple(op_(o) for o in b.operations)) for b in r.blocks))
                        for r in op.regions)
        return op.replace(attributes=ordered, regions=regions)

    funcs = tuple(dataclasses.replace(f, body=Block(f.body.arguments, tuple(op_(o) for o in f.body.operations)))
                  for f in module.functions)
    globs = module.globals
    if old < V13_3 <= version:
        globs = tuple(dataclasses.replace(g, visibility=g.visibility or "public",
                                          constant=bool(g.constant)) for g in globs)
    return dataclasses.replace(module, version=version, functions=funcs, globals=globs)


# -- our writer at 13.5, every corpus module ----------------------------------------------------
@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_corpus_module_written_at_13_5_matches_tileirdisasm(path, tileirdisasm, tmp_path):
    original = load(path)
    data = write_bytecode(original, V13_5)
    assert data[8:10] == bytes(V13_5)
    decoded = read_bytecode(data, f"{path.name} at 13.5")
    assert decoded.version == V13_5
    assert module_mismatches(upgraded(original), decoded) == []
    assert write_bytecode(decoded) == data  # reader and writer agree byte for byte
    out = tmp_path / "v13_5.tileirbc"
    out.write_bytes(data)
    text = disassemble(tileirdisasm, out)
    _counts["files"] += 1
    _counts["identical"] += print_module(decoded) == text
    assert print_module(decoded) == text
    assert module_mismatches(decoded, parse_text(text, path=str(out), version=V13_5)) == []


def test_report_13_5_corpus_counts(tileirdisasm, capsys):
    """Prints how many corpus modules went through 13.5 (runs after the corpus test)."""
    if not _counts["files"]:
        pytest.skip("the 13.5 corpus test did not run in this session")
    with capsys.disabled():
        print(f"\n[13.5] corpus modules written at 13.5 and accepted by tileirdisasm: {_counts['files']}; "
              f"`tileir-diff dump` byte-identical: {_counts['identical']}/{_counts['files']}")
    assert _counts["identical"] == _counts["files"]


# -- real 13.5 bytes (cuda-tile 1.7.0) ----------------------------------------------------------
def test_real_13_5_files_are_committed():
    assert len(REAL_13_5) >= 5, "run tests/corpus/v13_5/export.py"


@pytest.mark.parametrize("path", REAL_13_5, ids=[p.stem for p in REAL_13_5])
def test_cutile_13_5_export_matches_tileirdisasm(path, tileirdisasm, tmp_path):
    from tests.text.test_oracle import _sorted_hints, _without_elided_terminator_locations

    decoded = load(path)
    assert decoded.version == V13_5
    text = disassemble(tileirdisasm, path)
    assert print_module(decoded) == text
    assert module_mismatches(decoded, parse_text(text, path=str(path), version=V13_5)) == []
    # Locations too: 13.5 debug info adds a field to DISubprogram.
    with_g = subprocess.run([tileirdisasm, "-g", str(path)], capture_output=True, text=True, timeout=60)
    assert with_g.returncode == 0, with_g.stderr
    parsed_g = parse_text(with_g.stdout, path=f"{path} (-g)", version=V13_5)
    assert module_mismatches(_without_elided_terminator_locations(_sorted_hints(decoded)),
                             _without_elided_terminator_locations(parsed_g), compare_locations=True) == []
    # The same kernel exported at 13.4 is the same IR, up to what 13.5 adds.
    sibling = CORPUS / path.name.replace(".v13_5.", ".v13_4.")
    assert module_mismatches(upgraded(load(sibling)), decoded) == []
    # Our writer's 13.5 encoding of it reads the same in tileirdisasm.
    out = tmp_path / "ours.tileirbc"
    out.write_bytes(write_bytecode(decoded))
    assert disassemble(tileirdisasm, out) == text


# -- the 13.5-only ops and attributes -----------------------------------------------------------
_BASE = CORPUS / "view_atomic_reduce_float.v13_4.tileirbc"
_MULTICAST = 2  # pointer attribute: none 0, unicast 1, multicast 2


def _enum(kind, name):
    return EnumValue(kind, name)


class _Kernel:
    """view_atomic_reduce_float (loads one 8x16 tile from one view, atomically adds it into the
    other), with the destination view made multicast so multimem ops can use it."""

    def __init__(self):
        self.base = upgraded(load(_BASE))
        f = self.base.functions[0]
        ops = f.body.operations
        self.token = next(o for o in ops if o.name == "make_token").results[0]
        self.red = next(o for o in ops if o.name == "atomic_red_view_tko")
        self.index = self.red.operand_group(1)
        self.tile = self.red.operand_group(2)[0]
        dest_view = self.red.operand_group(0)[0]
        part = next(o for o in ops if o.name == "make_partition_view" and o.results[0] is dest_view)
        tensor = next(o for o in ops if o.name == "make_tensor_view" and o.results[0] is part.operands[0])
        self.multicast_vids = {tensor.operands[0].vid, tensor.results[0].vid, dest_view.vid}
        self.next_vid = max(v.vid for op in f.walk() for v in op.results) + 1

    def value(self, ty) -> Value:
        self.next_vid += 1
        return Value(self.next_vid - 1, ty)

    def multimem(self, kind, *, elem="f32", order="relaxed", scope="device", reduction="add", token=True,
                 inbounds=(False, False)) -> Operation:
        dest = self.red.operand_group(0)[0]  # made multicast by module()
        tile_type = T.TileType(self.tile.type.shape, T.ScalarType(elem))
        attrs = {"memory_ordering_semantics": _enum("MemoryOrderingSemantics", order)}
        if scope:
            attrs["memory_scope"] = _enum("MemoryScope", scope)
        if kind != "store":
            attrs["reduction"] = _enum("MultimemReductionKind", reduction)
        attrs["inbounds"] = inbounds
        tok = (self.token,) if token else ()
        if kind == "load_reduce":
            return Operation("multimem_load_reduce_view_tko", (dest,) + self.index + tok,
                             (1, len(self.index), len(tok)), (self.value(tile_type), self.value(T.TokenType())), attrs)
        return Operation(f"multimem_{kind}_view_tko", (dest, self.tile) + self.index + tok,
                         (1, 1, len(self.index), len(tok)), (self.value(T.TokenType()),), attrs)

    def module(self, extra_ops=(), *, drop_atomic_red=True, multicast=True, elem="f32", arg_attrs=None):
        """The kernel with ``extra_ops`` before its return, at 13.5; element type ``elem``."""
        f = self.base.functions[0]
        ops = [o for o in f.body.operations[:-1] if not (drop_atomic_red and o is self.red)]
        ops += list(extra_ops) + [f.body.operations[-1]]
        memo = {}

        def retype(t, vid):
            if isinstance(t, T.ScalarType) and t.name == "f32":
                return T.ScalarType(elem)
            if isinstance(t, T.PointerType):
                attr = _MULTICAST if multicast and vid in self.multicast_vids else t.ptr_attr
                return T.PointerType(retype(t.pointee, vid), attr)
            if isinstance(t, T.TileType):
                return T.TileType(t.shape, retype(t.element, vid))
            if isinstance(t, T.TensorViewType):
                attr = _MULTICAST if multicast and vid in self.multicast_vids else t.ptr_attr
                return T.TensorViewType(retype(t.element, vid), t.shape, t.strides, attr)
            if isinstance(t, T.PartitionViewType):
                return dataclasses.replace(t, tensor_view=retype(t.tensor_view, vid))
            return t

        def val(v):
            if v.vid not in memo:
                memo[v.vid] = Value(v.vid, retype(v.type, v.vid))
            return memo[v.vid]

        def op_(o):
            return o.replace(operands=tuple(val(v) for v in o.operands), results=tuple(val(v) for v in o.results))

        args = tuple(val(a) for a in f.arguments)
        fn = dataclasses.replace(f, arguments=args, body=Block(args, tuple(op_(o) for o in ops)), arg_attrs=arg_attrs)
        return dataclasses.replace(self.base, version=V13_5, functions=(fn,))


def _check_against_oracle(module, tileirdisasm, tmp_path, name):
    """Written at 13.5: tileirdisasm accepts it, prints what we print, and its text parses back
    to our decode, which is ``module``; printing that parse gives the text again."""
    path = tmp_path / f"{name}.tileirbc"
    path.write_bytes(write_bytecode(module, V13_5))
    r = subprocess.run([tileirdisasm, str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"tileirdisasm refused {name}: {r.stderr}"
    decoded = load(path)
    assert module_mismatches(module, decoded) == []
    assert decoded.functions[0].arg_attrs == module.functions[0].arg_attrs
    assert print_module(decoded) == r.stdout
    parsed = parse_text(r.stdout, path=f"{name} (tileirdisasm)", version=V13_5)
    assert module_mismatches(decoded, parsed) == []
    assert parsed.functions[0].arg_attrs == decoded.functions[0].arg_attrs
    assert print_module(parsed) == r.stdout
    return r.stdout


# Combinations the 13.5 verifier accepts (it refuses e.g. min/max on f32, and/or/xor/umin/umax on
# floats, a scope on weak ops, none on relaxed/acquire/release ones, acquire on reduce/store).
MULTIMEM_CASES = [
    ("load_reduce", dict(inbounds=(True, False))),
    ("load_reduce", dict(order="weak", scope=None, token=False)),
    ("load_reduce", dict(elem="i32", order="acquire", scope="sys", reduction="min")),
    ("load_reduce", dict(elem="i64", scope="tl_blk", reduction="umax", token=False, inbounds=(True, True))),
    *[("load_reduce", dict(elem="i32", reduction=k)) for k in ("add", "max", "and", "or", "xor", "umin")],
    ("reduce", dict()),
    ("reduce", dict(elem="i32", order="release", scope="sys", reduction="xor", inbounds=(False, True))),
    ("reduce", dict(elem="i64", scope="tl_blk", reduction="and", token=False, inbounds=(True, True))),
    ("reduce", dict(elem="i32", order="release", reduction="umin", token=False)),
    ("store", dict(order="weak", scope=None, token=False, inbounds=(True, True))),
    ("store", dict(elem="i32", order="release", scope="tl_blk")),
    ("store", dict(inbounds=(True, False))),
    ("store", dict(elem="i64", order="weak", scope=None)),
]


@pytest.mark.parametrize("kind,options", MULTIMEM_CASES,
                         ids=[f"{k}-{'-'.join(f'{a}={b}' for a, b in o.items())}" for k, o in MULTIMEM_CASES])
def test_multimem_ops_match_tileirdisasm(kind, options, tileirdisasm, tmp_path):
    kernel = _Kernel()
    op = kernel.multimem(kind, **options)
    text = _check_against_oracle(kernel.module([op], elem=options.get("elem", "f32")), tileirdisasm, tmp_path, kind)
    assert f"multimem_{kind}_view_tko" in text
    reduction = options.get("reduction", "add")
    assert (f"multimem_reduction_kind<{reduction}>" in text) == (kind != "store" and reduction != "add")


@pytest.mark.parametrize("inbounds", [(True, False), (False, True), (True, True), (False, False)])
def test_atomic_red_view_inbounds_matches_tileirdisasm(inbounds, tileirdisasm, tmp_path):
    kernel = _Kernel()
    red = kernel.red.replace(results=(kernel.value(T.TokenType()),),
                             attributes={**kernel.red.attributes, "inbounds": inbounds})
    text = _check_against_oracle(kernel.module([red], multicast=False), tileirdisasm, tmp_path, "atomic_red")
    assert ("inbounds = [" in text) == any(inbounds)


def _arg_attr_cases(n):
    i32, i64 = T.ScalarType("i32"), T.ScalarType("i64")
    none = DictAttr(())
    return {
        "one": (DictAttr((("cuda_tile.noalias", True),)),) + (none,) * (n - 1),
        "values": (DictAttr((("cuda_tile.a", IntegerAttr(-3, i64)), ("cuda_tile.b", "he\"llo"),
                             ("cuda_tile.c", (IntegerAttr(1, i32), IntegerAttr(5, i64))),
                             ("cuda_tile.d", DictAttr((("x", False), ("y", IntegerAttr(2, i32))))),
                             ("cuda_tile.e", T.ScalarType("f16")), ("cuda_tile.f", DivBy(16, None, None)),
                             ("cuda_tile.g", Bounded(0, None)), ("x.a b", True))),)
                  + (none,) * (n - 2) + (DictAttr((("llvm.align", IntegerAttr(16, i64)),)),),
    }


@pytest.mark.parametrize("case", ["one", "values"])
def test_entry_arg_attrs_match_tileirdisasm(case, tileirdisasm, tmp_path):
    kernel = _Kernel()
    arg_attrs = _arg_attr_cases(len(kernel.base.functions[0].arguments))[case]
    module = kernel.module(drop_atomic_red=False, multicast=False, arg_attrs=arg_attrs)
    text = _check_against_oracle(module, tileirdisasm, tmp_path, f"arg_attrs_{case}")
    assert "%arg0: tile<ptr<f32>> {" in text


def test_empty_arg_attrs_read_as_none(tileirdisasm, tmp_path):
    """13.5 writes arg_attrs for every function; empty dictionaries mean none (nothing printed)."""
    kernel = _Kernel()
    n = len(kernel.base.functions[0].arguments)
    module = kernel.module(drop_atomic_red=False, multicast=False, arg_attrs=(DictAttr(()),) * n)
    path = tmp_path / "empty.tileirbc"
    path.write_bytes(write_bytecode(module, V13_5))
    assert load(path).functions[0].arg_attrs is None
    assert print_module(load(path)) == disassemble(tileirdisasm, path)


def test_13_5_fields_are_refused_at_13_4():
    kernel = _Kernel()
    with pytest.raises(EncodeError, match="needs bytecode 13.5"):
        write_bytecode(kernel.module([kernel.multimem("store")]), (13, 4))
    red = kernel.red.replace(attributes={**kernel.red.attributes, "inbounds": (True, False)})
    with pytest.raises(EncodeError, match="inbounds.*needs bytecode 13.5"):
        write_bytecode(kernel.module([red], multicast=False), (13, 4))
    n = len(kernel.base.functions[0].arguments)
    with pytest.raises(EncodeError, match="argument attributes need bytecode 13.5"):
        write_bytecode(kernel.module(multicast=False, arg_attrs=_arg_attr_cases(n)["one"]), (13, 4))


# -- version-field mutations --------------------------------------------------------------------
def _patched(data: bytes, minor: int) -> bytes:
    out = bytearray(data)
    out[9] = minor
    return bytes(out)


def _read_like_tileirdisasm(data: bytes, tileirdisasm, path: Path) -> str:
    """Either a TileIRFormatError with an offset, or a decode tileirdisasm prints the same."""
    path.write_bytes(data)
    try:
        module = read_bytecode(data, str(path))
    except TileIRFormatError as e:
        assert e.offset is not None, str(e)
        return "refused"
    r = subprocess.run([tileirdisasm, str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"we decoded what tileirdisasm refuses: {r.stderr}"
    assert print_module(module) == r.stdout
    return "decoded"


def test_13_5_file_labelled_13_4_is_refused_with_an_offset_or_read_as_tileirdisasm_does(tileirdisasm, tmp_path):
    sources = [p.read_bytes() for p in REAL_13_5]
    sources += [write_bytecode(load(p), V13_5) for p in FILES[::16]]
    outcomes = [_read_like_tileirdisasm(_patched(d, 4), tileirdisasm, tmp_path / "m.tileirbc") for d in sources]
    assert len(outcomes) > 30
    # and the reverse: 13.4 files labelled 13.5
    outcomes = [_read_like_tileirdisasm(_patched(p.read_bytes(), 5), tileirdisasm, tmp_path / "r.tileirbc")
                for p in FILES[::16] if p.read_bytes()[9] == 4]
    assert outcomes


def test_cli_reports_a_mislabelled_13_5_file_without_a_traceback(tmp_path):
    path = tmp_path / "mislabelled.tileirbc"
    path.write_bytes(_patched(REAL_13_5[0].read_bytes(), 4))
    r = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "dump", str(path)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    assert str(path) in r.stderr and "offset" in r.stderr
