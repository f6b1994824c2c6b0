"""Control flow: for/while loops, break/continue, runtime if/else, early return, nesting."""
from ._common import arr, case, const, ct, scalar

B = 64


@ct.kernel
def for_loop_carried(x, z, n, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.zeros((BLOCK,), dtype=ct.float32)
    scale = 1.0
    for k in range(n):                      # runtime trip count
        acc = acc + ct.load(x, index=(k,), shape=(BLOCK,)) * scale
        scale = scale * 0.5
    for k in range(2, 10, 3):               # constant start/stop/step
        acc = acc + k
    ct.store(z, index=(i,), tile=acc)


@ct.kernel
def nested_for_loops(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for a in range(ct.num_tiles(x, axis=0, shape=(BM, BN))):
        for b in range(ct.num_tiles(x, axis=1, shape=(BM, BN))):
            acc = acc + ct.load(x, index=(a, b), shape=(BM, BN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(z, index=(i, 0), tile=acc)


@ct.kernel
def while_loop_break(x, z, limit, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.zeros((BLOCK,), dtype=ct.float32)
    k = 0
    while k < limit:
        t = ct.load(x, index=(k,), shape=(BLOCK,))
        if ct.sum(t) > 100.0:
            break
        acc = acc + t
        k += 1
    ct.store(z, index=(i,), tile=acc)


@ct.kernel
def loop_continue(x, z, n, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.zeros((BLOCK,), dtype=ct.float32)
    for k in range(n):
        if k % 2 == 1:
            continue
        acc = acc + ct.load(x, index=(k,), shape=(BLOCK,))
    ct.store(z, index=(i,), tile=acc)


@ct.kernel
def for_loop_break(x, z, n, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.zeros((BLOCK,), dtype=ct.float32)
    for k in range(n):
        t = ct.load(x, index=(k,), shape=(BLOCK,))
        if ct.max(t) < 0.0:
            break
        acc = acc + t
    ct.store(z, index=(i,), tile=acc)


@ct.kernel
def if_else_runtime(x, z, mode, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(BLOCK,))
    if mode == 0:
        r = t * 2.0
    elif mode == 1:
        r = t + 1.0
    else:
        r = -t
    if i % 2 == 0:
        ct.store(z, index=(i,), tile=r)
    else:
        ct.store(z, index=(i,), tile=r * r)


@ct.kernel
def early_return(x, z, n_valid, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    if i >= n_valid:
        return
    ct.store(z, index=(i,), tile=ct.load(x, index=(i,), shape=(BLOCK,)) + 1.0)


@ct.kernel
def return_inside_loop(x, z, n, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    for k in range(n):
        t = ct.load(x, index=(k,), shape=(BLOCK,))
        if ct.sum(t) == 0.0:
            ct.store(z, index=(i,), tile=t)
            return
    ct.store(z, index=(i,), tile=ct.zeros((BLOCK,), dtype=ct.float32))


@ct.kernel
def static_unrolled_branches(x, z, MODE: ct.Constant[int], BLOCK: ct.Constant[int]):
    # Compile-time branches vanish; ct.static_iter unrolls at compile time.
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(BLOCK,))
    if MODE == 1:
        t = t * 3.0
    for s in ct.static_iter((1.0, 2.0, 4.0)):
        t = t + s
    ct.store(z, index=(i,), tile=t)


@ct.kernel
def persistent_grid_stride(x, z, BLOCK: ct.Constant[int]):
    # Grid-stride loop over tiles using bid/num_blocks.
    n = ct.num_tiles(x, axis=0, shape=(BLOCK,))
    for t in range(ct.bid(0), n, ct.num_blocks(0)):
        ct.store(z, index=(t,), tile=ct.load(x, index=(t,), shape=(BLOCK,)) * 2.0)


f32 = arr(ct.float32, 1)
CASES = [
    case("for_loop_carried", for_loop_carried, [f32, f32, scalar(ct.int32), const(B)]),
    case("nested_for_loops", nested_for_loops,
         [arr(ct.float32, 2), arr(ct.float32, 2), const(16), const(32)]),
    case("while_loop_break", while_loop_break, [f32, f32, scalar(ct.int32), const(B)]),
    case("loop_continue", loop_continue, [f32, f32, scalar(ct.int32), const(B)]),
    case("for_loop_break", for_loop_break, [f32, f32, scalar(ct.int32), const(B)]),
    case("if_else_runtime", if_else_runtime, [f32, f32, scalar(ct.int32), const(B)]),
    case("early_return", early_return, [f32, f32, scalar(ct.int32), const(B)]),
    case("return_inside_loop", return_inside_loop, [f32, f32, scalar(ct.int64), const(B)]),
    case("static_unrolled_branches", static_unrolled_branches, [f32, f32, const(1), const(B)]),
    case("persistent_grid_stride", persistent_grid_stride, [f32, f32, const(B)]),
]
