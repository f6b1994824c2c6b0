"""Matrix transpose y = x.T (2-D, or per batch for 3-D) in cuTile Python.

Two structurally different ways to move a tile, both worth a port:
``transpose_2d`` loads a (TM, TN) tile of x and stores ``ct.transpose`` of it
(a permute of the tile in registers / shared memory); ``transpose_2d_order``
loads the tile already transposed with ``order=(1, 0)`` (a dim_map on the
partition view) and stores it as is. ``transpose_batched`` swaps the last two
axes of a 3-D array with ``ct.permute``.
"""
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def transpose_2d(x, y, TM: ConstInt, TN: ConstInt):
    """y[N, M] = x[M, N].T; grid (cdiv(M, TM), cdiv(N, TN))."""
    tm = ct.bid(0)
    tn = ct.bid(1)
    t = ct.load(x, index=(tm, tn), shape=(TM, TN))
    ct.store(y, index=(tn, tm), tile=ct.transpose(t))


@ct.kernel
def transpose_2d_order(x, y, TM: ConstInt, TN: ConstInt):
    """Same result; the load reads x column-major into a (TN, TM) tile of y's layout."""
    tm = ct.bid(0)
    tn = ct.bid(1)
    t = ct.load(x, index=(tn, tm), shape=(TN, TM), order=(1, 0))
    ct.store(y, index=(tn, tm), tile=t)


@ct.kernel
def transpose_batched(x, y, TM: ConstInt, TN: ConstInt):
    """y[b, N, M] = x[b, M, N].T; grid (cdiv(M, TM), cdiv(N, TN), B)."""
    tm = ct.bid(0)
    tn = ct.bid(1)
    b = ct.bid(2)
    t = ct.load(x, index=(b, tm, tn), shape=(1, TM, TN))
    ct.store(y, index=(b, tn, tm), tile=ct.permute(t, (0, 2, 1)))
