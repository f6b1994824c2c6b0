"""Shape manipulation: reshape, broadcast, permute/transpose, cat, extract/insert/slicing,
expand_dims, full/zeros/ones/arange, astile, item."""
from ._common import arr, case, const, ct

P = ct.PaddingMode


@ct.kernel
def reshape_broadcast(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(BM * BN,))
    ramp = ct.reshape(ct.arange(BN, dtype=ct.int32).astype(ct.float32), (1, BN))
    m = ct.reshape(t, (BM, BN)) + ct.broadcast_to(ramp, (BM, BN))
    ct.store(z, index=(i, 0), tile=m.reshape((BM, BN)))


@ct.kernel
def permute_transpose(x, z, B0: ct.Constant[int], B1: ct.Constant[int], B2: ct.Constant[int]):
    t = ct.load(x, index=(0, 0, 0), shape=(B0, B1, B2))
    p = ct.permute(t, (2, 0, 1))                      # (B2, B0, B1)
    q = ct.transpose(p, 0, 2).permute((1, 0, 2))      # (B1, B0, B2) -> (B0, B1, B2)
    ct.store(z, index=(0, 0, 0), tile=q + t.transpose(0, 1).transpose(1, 0))


@ct.kernel
def cat_tiles(x, y, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    a = ct.load(x, index=(0, 0), shape=(BM, BN))
    b = ct.load(y, index=(0, 0), shape=(BM, BN))
    rows = ct.cat((a, b), axis=0)                     # (2BM, BN)
    cols = ct.cat((rows, rows), axis=1)               # (2BM, 2BN)
    ct.store(z, index=(0, 0), tile=cols)


@ct.kernel
def extract_subtiles(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    # extract's index counts in units of the extracted shape.
    t = ct.load(x, index=(0, 0), shape=(BM, BN))
    top_left = ct.extract(t, index=(0, 0), shape=(BM // 2, BN // 2))
    bottom_right = t.extract((1, 1), (BM // 2, BN // 2))
    ct.store(z, index=(0, 0), tile=top_left + bottom_right)


@ct.kernel
def insert_subtile(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    # ct.insert needs bytecode 13.4.
    t = ct.load(x, index=(0, 0), shape=(BM, BN))
    corner = ct.extract(t, index=(1, 0), shape=(BM // 2, BN // 2))
    t2 = ct.insert(t, index=(0, 1), value=corner * 2.0)
    ct.store(z, index=(0, 0), tile=t2.insert((1, 1), corner))


@ct.kernel
def newaxis_indexing(x, z, BN: ct.Constant[int]):
    # Tile __getitem__ accepts only None / ... / full slices: a reshape in disguise.
    v = ct.load(x, index=(0,), shape=(BN,))
    col = v[:, None]                   # (BN, 1)
    row = v[None, ...]                 # (1, BN)
    ct.store(z, index=(0, 0), tile=col * row)


@ct.kernel
def constructors(zf, zi, BM: ct.Constant[int], BN: ct.Constant[int]):
    a = ct.full((BM, BN), 3.5, dtype=ct.float32) + ct.zeros((BM, BN), dtype=ct.float32)
    a = a + ct.ones((BM, BN), dtype=ct.float32) + ct.astile(2.0, dtype=ct.float32)
    r = ct.arange(BN, dtype=ct.int32) + ct.arange(BN, dtype=ct.int32, start=5, step=3)
    ct.store(zf, index=(ct.bid(0), 0), tile=a)
    ct.store(zi, index=(ct.bid(0),), tile=r)


@ct.kernel
def arange_int64(z, BLOCK: ct.Constant[int]):
    r = ct.arange(BLOCK, dtype=ct.int64, start=ct.bid(0) * BLOCK)
    ct.store(z, index=(ct.bid(0),), tile=r)


@ct.kernel
def scalar_tile_item(x, z, BLOCK: ct.Constant[int]):
    # A 1-element tile reduced to a scalar with .item(), then broadcast back.
    t = ct.load(x, index=(0,), shape=(1,))
    s = t.item()
    ct.store(z, index=(ct.bid(0),), tile=ct.full((BLOCK,), s, dtype=ct.float32) * s)


f32_2d = arr(ct.float32, 2)
CASES = [
    case("reshape_broadcast", reshape_broadcast,
         [arr(ct.float32, 1), f32_2d, const(8), const(16)]),
    case("permute_transpose", permute_transpose,
         [arr(ct.float32, 3), arr(ct.float32, 3), const(2), const(4), const(8)]),
    case("cat_tiles", cat_tiles, [f32_2d, f32_2d, f32_2d, const(8), const(16)]),
    case("extract_subtiles", extract_subtiles, [f32_2d, f32_2d, const(8), const(16)]),
    case("insert_subtile", insert_subtile, [f32_2d, f32_2d, const(8), const(16)]),
    case("newaxis_indexing", newaxis_indexing, [arr(ct.float32, 1), f32_2d, const(16)]),
    case("constructors", constructors,
         [f32_2d, arr(ct.int32, 1), const(8), const(16)]),
    case("arange_int64", arange_int64, [arr(ct.int64, 1), const(64)]),
    case("scalar_tile_item", scalar_tile_item, [arr(ct.float32, 1)] * 2 + [const(64)]),
]
