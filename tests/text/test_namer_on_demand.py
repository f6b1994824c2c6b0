"""OnDemandNamer (text/printer.py): numbering only as far as asked gives Namer's names, in any
order of asking, from any number of threads; a function it cannot number safely part-way is
numbered whole, as Namer does."""
from __future__ import annotations

import random
import threading
from dataclasses import replace

import pytest

from tileir_diff import load
from tileir_diff.ir import Block, Function, Operation, Value
from tileir_diff.ir.types import ScalarType, TileType
from tileir_diff.text import printer
from tests.conftest import corpus_files

#: Every eighth corpus file (cuTile Python and Rust output; loops, ifs, reduces, print_tko).
FILES = corpus_files()[::8]


def _values_and_ops(func: Function):
    vids, ops = [], []
    stack = [func.body]
    while stack:
        block = stack.pop()
        vids += [a.vid for a in block.arguments]
        for op in block.operations:
            ops.append(op)
            vids += [r.vid for r in op.results]
            for r in op.regions:
                stack += r.blocks
    return vids, ops


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_names_asked_in_any_order_are_namers(path):
    module = load(path)
    rng = random.Random(path.name)
    for func in module.functions:
        eager = printer.Namer(func)
        lazy = printer.OnDemandNamer(func)
        vids, ops = _values_and_ops(func)
        asked = vids[:]
        rng.shuffle(asked)
        for vid in asked[:max(1, len(asked) // 3)]:  # a third, in random order, then the rest
            assert lazy.ref.get(vid) == eager.ref[vid]
            assert lazy.producer.get(vid) == eager.producer.get(vid)
        for op in reversed(ops):
            assert lazy.lhs.get(id(op)) == eager.lhs.get(id(op))
            assert lazy.view(op) is eager.view(op) or lazy.view(op) == eager.view(op)
        assert dict(lazy.ref) == dict(eager.ref)
        assert dict(lazy.lhs) == dict(eager.lhs)
        assert dict(lazy.producer) == dict(eager.producer)


@pytest.mark.parametrize("path", FILES[:12], ids=lambda p: p.name)
def test_an_op_printed_with_names_numbered_on_demand_is_the_printed_line(path):
    module = load(path)
    lines = dict(printer.print_module_lines(module))
    for fi, func in enumerate(module.functions):
        lazy = printer.OnDemandNamer(func)
        ops = list(enumerate(func.body.operations))
        for j, op in ops[::-1][:20]:  # from the end, as a report asks for a late op first
            p = printer._Printer()
            p.namer = lazy
            p.op(op, "  ", f"f{fi}/o{j}")
            assert p.lines[0][1] == lines[f"f{fi}/o{j}"]


def test_a_value_asked_numbers_only_what_precedes_it():
    func = load(FILES[0]).functions[0]
    lazy = printer.OnDemandNamer(func)
    first = func.body.operations[0]
    assert lazy.ref.get(first.results[0].vid if first.results else func.arguments[0].vid)
    assert len(lazy._ref) < len(printer.Namer(func).ref)
    assert lazy._pending is not None  # not numbered to the end
    assert lazy.ref.get(-10 ** 9) is None  # a value of no op: numbered to the end, then absent
    assert lazy._pending is None


def _ask_in_threads(lazy, eager, vids, threads: int = 8) -> list:
    """Every thread asks for every value, each in its own order, all starting at once; returns
    the (seed, error) of the threads that got another name or an error."""
    errors, start = [], threading.Barrier(threads)

    def ask(seed):
        order = vids[:]
        random.Random(seed).shuffle(order)
        start.wait()
        try:
            for vid in order:
                assert lazy.ref[vid] == eager.ref[vid]
        except Exception as e:  # reported by the caller, with the thread's seed
            errors.append((seed, e))

    running = [threading.Thread(target=ask, args=(seed,)) for seed in range(threads)]
    for t in running:
        t.start()
    for t in running:
        t.join()
    return errors


def test_threads_asking_at_once_get_namers_names():
    path = max(FILES, key=lambda p: p.stat().st_size)
    func = load(path).functions[0]
    eager = printer.Namer(func)
    vids, _ = _values_and_ops(func)
    for _ in range(3):
        assert not _ask_in_threads(printer.OnDemandNamer(func), eager, vids)


def _constant(vid: int, value) -> Operation:
    return Operation("constant", results=(Value(vid, TileType((), ScalarType("f32"))),), attributes={"value": value})


def _function(ops, args=()) -> Function:
    return Function("k", tuple(args), (), Block(tuple(args), tuple(ops)))


def test_a_constant_the_namer_cannot_name_makes_it_number_whole_and_raise_as_namer():
    good = load(FILES[0]).functions[0]
    bad_op = _constant(10 ** 6, "not a dense attribute")
    func = replace(good, body=replace(good.body, operations=good.body.operations + (bad_op,)))
    with pytest.raises(Exception) as eager_error:
        printer.Namer(func)
    with pytest.raises(type(eager_error.value)):
        printer.OnDemandNamer(func)


def test_duplicate_value_ids_give_namers_last_name():
    func = load(FILES[0]).functions[0]
    ops = func.body.operations
    with_result = [op for op in ops if len(op.results) == 1]
    first, last = with_result[0], with_result[-1]
    # the last op's result takes the first op's id: Namer keeps the name numbered last
    dup = replace(last, results=(replace(last.results[0], vid=first.results[0].vid),))
    func = replace(func, body=replace(func.body, operations=tuple(dup if op is last else op for op in ops)))
    assert not printer._numbering_is_safe(func)
    eager, lazy = printer.Namer(func), printer.OnDemandNamer(func)
    assert lazy.ref[first.results[0].vid] == eager.ref[first.results[0].vid]
    assert dict(lazy.ref) == dict(eager.ref)
