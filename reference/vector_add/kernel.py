"""vector_add: out = x + y over 1-D arrays, one TILE-element tile per block."""

import cuda.tile as ct


@ct.kernel
def vector_add(x, y, out, TILE: ct.Constant[int]):
    block = ct.bid(0)
    # ZERO padding keeps the ragged last tile well defined; the store masks it.
    a = ct.load(x, index=(block,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(y, index=(block,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(block,), tile=a + b)
