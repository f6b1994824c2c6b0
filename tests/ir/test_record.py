"""@record (ir/record.py) behaves as @dataclass(frozen=True): equality, hashes, reprs, frozen
fields, replace(), pickling; checked against dataclass's own methods on twin classes and, on the
IR's record classes, against what dataclass's methods compute, over decoded corpus kernels."""
import dataclasses
import re
import inspect
import pickle
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import ClassVar, Optional

import pytest

import tileir_diff
from tileir_diff.bytecode import container
from tileir_diff.ir import attributes, core, types
from tileir_diff.ir.record import record
from tileir_diff.match import mapping
from tileir_diff.text import template

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "data"


def _pairs(make):
    """Twins: the same class body under @dataclass(frozen=True) and under @record."""
    return make(dataclass(frozen=True)), make(record)


def _bodies():
    def empty(deco):
        @deco
        class Empty:
            pass
        return Empty

    def one(deco):
        @deco
        class One:
            name: str
        return One

    def several(deco):
        @deco
        class Several:
            a: int
            b: Optional[str] = None
            c: tuple = ()
            hidden: int = field(default=0, compare=False, repr=False)
            unhashed: int = field(default=0, hash=False)
        return Several
    return [empty, one, several]


@pytest.mark.parametrize("make", _bodies(), ids=lambda m: m.__name__)
def test_twins_agree(make):
    dc, rec = _pairs(make)
    names = [f.name for f in fields(dc)]
    assert rec.__doc__ == dc.__doc__ and str(inspect.signature(rec)) == str(inspect.signature(dc))
    values = {"name": ["x", "y"], "a": [1, 2], "b": [None, "s"], "c": [(), (1, "2")], "hidden": [0, 5],
              "unhashed": [0, 7]}
    combos = [{}]
    for n in names:
        combos = [dict(c, **{n: v}) for c in combos for v in values[n]]
    for left in combos:
        for right in combos:
            assert (dc(**left) == dc(**right)) == (rec(**left) == rec(**right))
        d, r = dc(**left), rec(**left)
        assert hash(d) == hash(r)
        assert repr(d).replace("Several", "X").replace("One", "X").replace("Empty", "X") == \
            repr(r).replace("Several", "X").replace("One", "X").replace("Empty", "X")
        assert (r == 5) is False and r.__eq__(5) is NotImplemented
        for n in names:
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(r, n, None)
        assert dataclasses.replace(r, **left) == r
        assert pickle.loads(pickle.dumps(r)) == r if r.__class__.__qualname__.count("<locals>") == 0 else True


RECORD_FILE = record.__code__.co_filename  # tileir_diff/record.py


def _record_classes():
    out = []
    for module in (types, attributes, core, template, container, mapping):
        for obj in vars(module).values():
            if isinstance(obj, type) and obj.__module__ == module.__name__ and dataclasses.is_dataclass(obj) \
                    and getattr(getattr(obj.__eq__, "__code__", None), "co_filename", None) == RECORD_FILE:
                out.append(obj)
    return out


def test_the_ir_uses_records():
    names = {c.__name__ for c in _record_classes()}
    assert {"ScalarType", "TileType", "DenseElements", "EnumValue", "Value", "Block", "Function"} <= names
    assert "Operation" not in names  # equality by identity, as before


def _instances():
    """Every record instance reachable from a few decoded corpus kernels (types, attributes,
    values, blocks, regions, functions, locations)."""
    seen, out = set(), []
    classes = tuple(_record_classes())

    def visit(x):
        if id(x) in seen:
            return
        seen.add(id(x))
        if isinstance(x, classes):
            out.append(x)
        if isinstance(x, (tuple, list)):
            for y in x:
                visit(y)
        elif isinstance(x, dict):
            for y in x.values():
                visit(y)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            for f in fields(x):
                visit(getattr(x, f.name))
    for path in sorted(CORPUS.glob("*.v13_3.tileirbc"))[::6]:
        visit(tileir_diff.load(str(path)))
    return out


def test_ir_records_behave_as_dataclass_methods_would():
    found = _instances()
    assert len({type(x) for x in found}) >= 10
    for x in found:
        fs = fields(x)
        assert hash(x) == hash(tuple(getattr(x, f.name) for f in fs if (f.compare if f.hash is None else f.hash)))
        if type(x).__repr__ is not core.Value.__repr__:
            assert repr(x) == type(x).__qualname__ + "(" + ", ".join(
                f"{f.name}={getattr(x, f.name)!r}" for f in fs if f.repr) + ")"
        twin = dataclasses.replace(x)
        assert twin == x and twin is not x and hash(twin) == hash(x)
    kinds = {}
    for x in found:
        kinds.setdefault(type(x), []).append(x)
    for xs in kinds.values():
        for a, b in zip(xs, xs[1:]):
            same = tuple(getattr(a, f.name) for f in fields(a) if f.compare) == \
                tuple(getattr(b, f.name) for f in fields(b) if f.compare)
            assert (a == b) is same and (a != b) is not same


@record
class _Factory:
    """A record with defaults and factories (module level: picklable)."""
    a: int
    b: list = field(default_factory=list)
    c: str = "c"
    d: dict = field(default_factory=dict)


@record(slots=True)
class _Slotted:
    a: int
    b: tuple = ()


@record
class _PostInit:
    a: int
    b: int = 0

    def __post_init__(self):
        object.__setattr__(self, "b", self.a * 2)


@record(frozen=False)
class _Mutable:
    a: int
    s: set = field(default_factory=set)


def test_init_positional_keyword_defaults_and_factories():
    x, y = _Factory(1), _Factory(a=1)
    assert x == y and x.b == [] and x.b is not y.b and x.d == {} and x.c == "c"
    assert _Factory(1, [2], c="z", d={3: 4}) == _Factory(a=1, b=[2], c="z", d={3: 4})
    with pytest.raises(TypeError):
        _Factory()
    with pytest.raises(TypeError):
        _Factory(1, e=2)
    with pytest.raises(TypeError):
        _Factory(1, a=1)
    assert pickle.loads(pickle.dumps(x)) == x
    assert dataclasses.asdict(_Factory(1, [2])) == {"a": 1, "b": [2], "c": "c", "d": {}}
    assert dataclasses.replace(x, c="q") == _Factory(1, c="q")
    assert _Factory.__init__.__qualname__ == "_Factory.__init__"
    assert repr(x) == "_Factory(a=1, b=[], c='c', d={})"


def test_slots_post_init_and_mutable():
    s = _Slotted(1, (2,))
    assert not hasattr(s, "__dict__") and _Slotted.__slots__ == ("a", "b")
    assert pickle.loads(pickle.dumps(s)) == s and hash(pickle.loads(pickle.dumps(s))) == hash(s)
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'a'"):
        s.a = 2
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'b'"):
        del s.b
    assert _PostInit(3).b == 6 and _PostInit(a=4, b=1).b == 8
    m = _Mutable(1)
    m.a = 5
    m.s.add(2)
    assert m == _Mutable(5, {2}) and m != _Mutable(5) and _Mutable.__hash__ is None
    assert dataclasses.fields(_Mutable)[1].name == "s" and not _Mutable.__dataclass_params__.frozen
    assert _Factory.__dataclass_params__.frozen and _Factory.__dataclass_params__.init


def test_a_frozen_dataclass_may_derive_from_a_record():
    @dataclass(frozen=True)
    class Child(_Factory):
        e: int = 0
    child = Child(1, e=3)
    assert child.e == 3 and child.b == []
    with pytest.raises(dataclasses.FrozenInstanceError):
        child.e = 4


def test_fields_outside_init_as_dataclass_sets_them():
    def make(deco):
        @deco
        class Late:
            a: int
            b: int = field(default=3, init=False)
            c: list = field(default_factory=list, init=False)
            d: int = field(init=False)
            e: str = "e"

            def __post_init__(self):
                object.__setattr__(self, "d", self.a + self.b)
        return Late
    dc, rec = _pairs(make)
    assert str(inspect.signature(rec)) == str(inspect.signature(dc))
    for args, kwargs in [((1,), {}), ((1, "x"), {}), ((), {"a": 2, "e": "y"})]:
        d, r = dc(*args, **kwargs), rec(*args, **kwargs)
        assert [getattr(r, f.name) for f in fields(r)] == [getattr(d, f.name) for f in fields(d)]
        assert repr(r).replace("Late", "X") == repr(d).replace("Late", "X") and (r == rec(*args, **kwargs))
    assert rec(1).c is not rec(1).c
    with pytest.raises(TypeError):
        rec(1, "x", 5)


def test_what_record_refuses():
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        @record
        class Bad:
            a: int = 0
            b: int
    with pytest.raises(TypeError, match="kw_only"):
        @record
        class KeywordOnly:
            a: int = field(default=0, kw_only=True)
    with pytest.raises(TypeError, match="defines __init__"):
        @record
        class OwnInit:
            a: int

            def __init__(self):
                pass


def _string_annotated_bodies():
    """Class bodies as modules with ``from __future__ import annotations`` write them (every
    annotation a string), which record gives its own field processing (record._plain_dataclass)."""
    def plain():
        class Plain:
            a: "int"
            b: "Optional[str]" = None
            c: "tuple" = field(default=(), compare=False)
            d: "list" = field(default_factory=list, repr=False)
            e: "int" = field(default=3, init=False)
            f: "dict" = field(default_factory=dict, init=False, hash=False)
        return Plain

    def classvar():  # not plain: dataclass's own processing
        class WithClassVar:
            a: "int"
            b: "ClassVar[int]" = 3
        return WithClassVar

    def no_fields():
        class NoFields:
            x = 1
        return NoFields
    return [plain, classvar, no_fields]


@pytest.mark.parametrize("body", _string_annotated_bodies(), ids=lambda b: b.__name__)
def test_plain_fields_as_dataclass_processes_them(body):
    from tileir_diff import record as record_module
    ours = record_module._plain_dataclass(body())
    theirs = dataclass(body(), init=False, frozen=False, eq=False, repr=False)

    def described(cls):
        return (repr(cls.__dataclass_params__), cls.__match_args__,
                [repr(f) for f in cls.__dataclass_fields__.values()],
                {k: v for k, v in vars(cls).items()
                 if k not in ("__dataclass_fields__", "__dataclass_params__", "__dict__", "__weakref__", "__doc__")},
                sorted(vars(cls)))
    assert described(ours) == described(theirs)
    assert repr(ours.__dataclass_fields__) == repr(theirs.__dataclass_fields__)


def test_plain_fields_refused_as_dataclass_refuses_them():
    from tileir_diff import record as record_module

    def mutable_default():
        class MutableDefault:
            a: "list" = []  # noqa: RUF012 - the point of the test
        return MutableDefault

    def unannotated_field():
        class UnannotatedField:
            a: "int" = 0
            b = field(default=1)
        return UnannotatedField
    for body in (mutable_default, unannotated_field):
        with pytest.raises((ValueError, TypeError)) as theirs:
            dataclass(body(), init=False, frozen=False, eq=False, repr=False)
        with pytest.raises(theirs.type, match=re.escape(str(theirs.value))):
            record_module._plain_dataclass(body())


def test_signature_text_is_inspects():
    """record documents an undocumented class by its signature, written without inspect
    (record._signature_text): the same text inspect gives, for every record of these modules."""
    from tileir_diff import record as record_module
    from tileir_diff import record_inits
    from tileir_diff.compare import roots
    from tileir_diff.dialect import spec
    from tileir_diff.report import result
    compared = 0
    made_by_record = ("<string>", record_inits.__file__)  # an __init__ compiled here or ahead
    for module in (types, attributes, core, template, container, mapping, spec, result, roots):
        for obj in vars(module).values():
            if isinstance(obj, type) and obj.__module__ == module.__name__ and dataclasses.is_dataclass(obj) \
                    and getattr(getattr(obj.__init__, "__code__", None), "co_filename", None) in made_by_record:
                text = record_module._signature_text(obj, fields(obj))
                if text is not None:
                    assert text == str(inspect.signature(obj)), obj
                    compared += 1
    assert compared >= 40


def test_precompiled_inits_are_current_and_what_exec_compiles():
    """record_inits.py holds the template of every shape the package's records use (so none is
    compiled at start-up), and each is the code ``exec`` makes of ``template_source``."""
    import subprocess
    import sys

    from tileir_diff.record import compile_template
    from tileir_diff.record_inits import PRECOMPILED

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, str(root / "scripts" / "record_inits.py"), "--check"],
                          capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr + "\n(run python3 scripts/record_inits.py)"
    assert len(PRECOMPILED) > 20
    from tileir_diff import record_inits
    PRECOMPILED_FILE = record_inits.__file__
    for key, code in PRECOMPILED.items():
        compiled = compile_template(*key)
        assert code.co_filename == PRECOMPILED_FILE and compiled.co_filename == "<string>"
        for attr in ("co_code", "co_consts", "co_names", "co_varnames", "co_flags", "co_argcount", "co_name",
                     "co_nlocals", "co_stacksize", "co_exceptiontable"):
            assert getattr(code, attr, None) == getattr(compiled, attr, None), (key, attr)


def test_a_diff_does_not_import_inspect_and_dataclasses_still_reads_it():
    """``record`` imports ``dataclasses`` with ``inspect`` imported on demand (``_InspectOnDemand``):
    a whole diff (the CLI's run, a pair whose proofs need z3 none) leaves ``inspect`` unimported;
    ``dataclass()`` on a class without a docstring still gets its signature from it, and then
    ``dataclasses.inspect`` is the module itself."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    left = sorted((root / "tests/corpus/third_party_style").glob("*.left.tir"))[0]
    pair = [str(left), str(left).replace(".left.", ".right.")]
    code = ("import sys, contextlib, io\n"
            "from tileir_diff import cli\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    cli.main(['diff', sys.argv[1], sys.argv[2]])\n"
            "print('inspect' in sys.modules)\n"
            "import dataclasses\n"
            "@dataclasses.dataclass\n"
            "class A:\n"
            "    x: int\n"
            "print(A.__doc__, dataclasses.inspect is sys.modules['inspect'])\n")
    done = subprocess.run([sys.executable, "-c", code, *pair], capture_output=True, text=True, cwd=root, check=True)
    assert done.stdout.split("\n")[:2] == ["False", "A(x: int) True"], done.stdout + done.stderr
