#!/usr/bin/env python3
"""Small cuTile Python kernels with the patterns the mutation engine must cover and that the
corpus has few of: chains of accesses to one array (tokens cuTile orders), inside loops and
branches, a guarded store, a pure chain ``rsqrt(ms + eps)``.

    python3 tests/mutation/synthetic.py      # (re)writes tests/mutation/data/*.v13_4.tileirbc

Needs cuda-tile (the exported bytecode is committed, so the tests do not).
"""


import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
VERSION = "13.4"


def cases():
    sys.path.insert(0, str(HERE.parents[1]))
    from tests.corpus.kernels._common import arr, case, const, ct, scalar

    @ct.kernel
    def chain_load_store_store(x, out, TILE: ct.Constant[int]):
        bid = ct.bid(0)
        t = ct.load(x, index=(bid,), shape=(TILE,))
        ct.store(x, index=(bid,), tile=t + 1.0)
        ct.store(x, index=(bid,), tile=t * 2.0)
        u = ct.load(x, index=(bid,), shape=(TILE,))
        ct.store(out, index=(bid,), tile=u)

    @ct.kernel
    def chain_store_store(x, y, TILE: ct.Constant[int]):
        bid = ct.bid(0)
        t = ct.load(y, index=(bid,), shape=(TILE,))
        ct.store(x, index=(bid,), tile=t + 1.0)
        ct.store(x, index=(bid,), tile=t * 2.0)

    @ct.kernel
    def chain_in_loop(x, out, n, TILE: ct.Constant[int]):
        bid = ct.bid(0)
        acc = ct.zeros((TILE,), dtype=ct.float32)
        for _k in range(n):
            t = ct.load(x, index=(bid,), shape=(TILE,))
            ct.store(x, index=(bid,), tile=t + 1.0)
            ct.store(x, index=(bid,), tile=t * 2.0)
            acc = acc + ct.load(x, index=(bid,), shape=(TILE,))
        ct.store(out, index=(bid,), tile=acc)

    @ct.kernel
    def chain_in_branch(x, out, flag, TILE: ct.Constant[int]):
        bid = ct.bid(0)
        t = ct.load(x, index=(bid,), shape=(TILE,))
        if flag > 0:
            ct.store(x, index=(bid,), tile=t + 1.0)
            ct.store(x, index=(bid,), tile=t * 2.0)
        else:
            ct.store(x, index=(bid,), tile=t - 1.0)
        u = ct.load(x, index=(bid,), shape=(TILE,))
        ct.store(out, index=(bid,), tile=u)

    @ct.kernel
    def guarded_store(x, out, flag, TILE: ct.Constant[int]):
        bid = ct.bid(0)
        t = ct.load(x, index=(bid,), shape=(TILE,))
        if flag > 0:
            ct.store(out, index=(bid,), tile=t * 3.0)
        else:
            ct.store(out, index=(bid,), tile=t + 5.0)

    @ct.kernel
    def store_then_load_other(x, out, TILE: ct.Constant[int]):
        bid = ct.bid(0)
        t = ct.load(x, index=(bid,), shape=(TILE,))
        ct.store(out, index=(bid,), tile=t)
        u = ct.load(out, index=(bid,), shape=(TILE,))
        v = ct.load(x, index=(bid,), shape=(TILE,))
        ct.store(x, index=(bid,), tile=u + v)

    @ct.kernel
    def rms_chain(x, out, eps, N: ct.Constant[int]):
        bid = ct.bid(0)
        t = ct.load(x, index=(bid, 0), shape=(1, N))
        ms = ct.sum(t * t, axis=1, keepdims=True) / N
        r = ct.rsqrt(ms + eps)
        ct.store(out, index=(bid, 0), tile=t * r)

    @ct.kernel
    def chain_war(x, y, out, TILE: ct.Constant[int]):
        bid = ct.bid(0)
        t = ct.load(x, index=(bid,), shape=(TILE,))
        u = ct.load(y, index=(bid,), shape=(TILE,))
        ct.store(x, index=(bid,), tile=u)
        ct.store(out, index=(bid,), tile=t)

    @ct.kernel
    def chain_war_in_loop(x, y, out, n, TILE: ct.Constant[int]):
        bid = ct.bid(0)
        acc = ct.zeros((TILE,), dtype=ct.float32)
        for k in range(n):
            t = ct.load(x, index=(bid,), shape=(TILE,))
            u = ct.load(y, index=(k,), shape=(TILE,))
            ct.store(x, index=(bid,), tile=u)
            acc = acc + t
        ct.store(out, index=(bid,), tile=acc)

    f32 = ct.float32
    return [
        case("chain_war", chain_war, [arr(f32, 1), arr(f32, 1), arr(f32, 1), const(64)]),
        case("chain_war_in_loop", chain_war_in_loop, [arr(f32, 1), arr(f32, 1), arr(f32, 1), scalar(ct.int32),
                                                      const(64)]),
        case("chain_load_store_store", chain_load_store_store, [arr(f32, 1), arr(f32, 1), const(64)]),
        case("chain_store_store", chain_store_store, [arr(f32, 1), arr(f32, 1), const(64)]),
        case("chain_in_loop", chain_in_loop, [arr(f32, 1), arr(f32, 1), scalar(ct.int32), const(64)]),
        case("chain_in_branch", chain_in_branch, [arr(f32, 1), arr(f32, 1), scalar(ct.int32), const(64)]),
        case("guarded_store", guarded_store, [arr(f32, 1), arr(f32, 1), scalar(ct.int32), const(64)]),
        case("store_then_load_other", store_then_load_other, [arr(f32, 1), arr(f32, 1), const(64)]),
        case("rms_chain", rms_chain, [arr(f32, 2), arr(f32, 2), scalar(f32), const(128)]),
    ]


def main() -> int:
    from tests.corpus.generate import export_one
    DATA.mkdir(exist_ok=True)
    for c in cases():
        path = DATA / f"{c.name}.v13_4.tileirbc"
        export_one(c, VERSION, path)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
