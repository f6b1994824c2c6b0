"""Atomics: cas, every rmw mode (int, unsigned, float), orderings/scopes, raw memory, view reduce."""
from ._common import arr, case, const, ct

B = 64
MO = ct.MemoryOrder
MS = ct.MemoryScope


@ct.kernel
def atomic_cas_orderings(x, old_out, BLOCK: ct.Constant[int]):
    idx = ct.arange(BLOCK, dtype=ct.int32)
    a = ct.atomic_cas(x, idx, 0, 1)
    b = ct.atomic_cas(x, idx, 1, 2, memory_order=MO.ACQUIRE, memory_scope=MS.BLOCK)
    c = ct.atomic_cas(x, idx, 2, 3, memory_order=MO.RELEASE, memory_scope=MS.SYS)
    d = ct.atomic_cas(x, (idx,), 3, 4, memory_order=MO.RELAXED, memory_scope=MS.DEVICE,
                      check_bounds=False)
    ct.store(old_out, index=(0,), tile=a + b + c + d)


@ct.kernel
def atomic_rmw_signed(x, old_out, BLOCK: ct.Constant[int]):
    idx = ct.arange(BLOCK, dtype=ct.int32)
    upd = idx * 3
    r = ct.atomic_add(x, idx, upd)
    r = r + ct.atomic_max(x, idx, upd, memory_order=MO.RELAXED)
    r = r + ct.atomic_min(x, idx, upd, memory_scope=MS.BLOCK)
    r = r + ct.atomic_xchg(x, idx, upd, memory_order=MO.ACQUIRE)
    r = r + ct.atomic_and(x, idx, upd, memory_order=MO.RELEASE, memory_scope=MS.SYS)
    r = r + ct.atomic_or(x, idx, upd, check_bounds=False)
    r = r + ct.atomic_xor(x, idx, upd)
    ct.store(old_out, index=(0,), tile=r)


@ct.kernel
def atomic_rmw_unsigned(x, old_out, BLOCK: ct.Constant[int]):
    # Unsigned max/min select the umax/umin rmw modes.
    idx = ct.arange(BLOCK, dtype=ct.int32)
    upd = ct.full((BLOCK,), 5, dtype=ct.uint32)
    r = ct.atomic_max(x, idx, upd) + ct.atomic_min(x, idx, upd) + ct.atomic_add(x, idx, upd)
    ct.store(old_out, index=(0,), tile=r)


@ct.kernel
def atomic_rmw_float(x, old_out, BLOCK: ct.Constant[int]):
    idx = ct.arange(BLOCK, dtype=ct.int32)
    upd = idx.astype(ct.float32) * 0.5
    # Floats support only add (addf mode) and xchg.
    r = ct.atomic_add(x, idx, upd) + ct.atomic_xchg(x, idx, upd, memory_order=MO.RELAXED)
    ct.store(old_out, index=(0,), tile=r)


@ct.kernel
def atomic_add_half(x, BLOCK: ct.Constant[int]):
    idx = ct.arange(BLOCK, dtype=ct.int32)
    ct.atomic_add(x, idx, ct.full((BLOCK,), 1.0, dtype=x.dtype))


@ct.kernel
def atomic_scalar_counter(counter, out):
    # Scalar index/update: the classic grid-wide ticket counter.
    ticket = ct.atomic_add(counter, 0, 1)
    ct.store(out, index=(ct.bid(0),), tile=ct.full((1,), ticket, dtype=ct.int32))


@ct.kernel
def atomic_raw_memory(x, old_out, BLOCK: ct.Constant[int]):
    off = ct.arange(BLOCK, dtype=ct.int32)
    mem = x.get_raw_memory()
    m = off < 40
    r = mem.atomic_cas_offset(off, 0, 7, mask=m)
    r = r + mem.atomic_xchg_offset(off, 1, memory_order=MO.RELAXED)
    r = r + mem.atomic_add_offset(off, 2, mask=m, memory_scope=MS.BLOCK)
    r = r + mem.atomic_max_offset(off, 3) + mem.atomic_min_offset(off, 4)
    r = r + mem.atomic_and_offset(off, 5) + mem.atomic_or_offset(off, 6)
    r = r + mem.atomic_xor_offset(off, 7, memory_order=MO.ACQ_REL, memory_scope=MS.SYS)
    ct.store(old_out, index=(0,), tile=r)


@ct.kernel
def atomic_masked_2d(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    rows = ct.expand_dims(ct.arange(BM, dtype=ct.int32), 1)
    cols = ct.expand_dims(ct.arange(BN, dtype=ct.int32), 0)
    old = ct.atomic_add(x, (rows, cols), 1.0)
    ct.store(z, index=(0, 0), tile=old)


@ct.kernel
def view_atomic_reduce(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    # TiledView.atomic_store_* lowers to the view atomic-reduce op.
    i = ct.bid(0)
    t = ct.load(y, index=(i, 0), shape=(BM, BN))
    tv = x.tiled_view((BM, BN))
    tv.atomic_store_add((i, 0), t)
    tv.atomic_store_max((i, 0), t)
    tv.atomic_store_min((i, 0), t)
    tv.atomic_store_and((i, 0), t)
    tv.atomic_store_or((i, 0), t)
    tv.atomic_store_xor((i, 0), t)


@ct.kernel
def view_atomic_reduce_float(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(y, index=(i, 0), shape=(BM, BN))
    x.tiled_view((BM, BN)).atomic_store_add((i, 0), t)


i32 = arr(ct.int32, 1)
CASES = [
    case("atomic_cas_orderings", atomic_cas_orderings, [i32, i32, const(B)]),
    case("atomic_cas_int64", atomic_cas_orderings, [arr(ct.int64, 1), arr(ct.int64, 1), const(B)]),
    case("atomic_rmw_signed", atomic_rmw_signed, [i32, i32, const(B)]),
    case("atomic_rmw_unsigned", atomic_rmw_unsigned, [arr(ct.uint32, 1), arr(ct.uint32, 1), const(B)]),
    case("atomic_rmw_float", atomic_rmw_float, [arr(ct.float32, 1), arr(ct.float32, 1), const(B)]),
    case("atomic_add_f16", atomic_add_half, [arr(ct.float16, 1), const(B)]),
    case("atomic_add_bf16", atomic_add_half, [arr(ct.bfloat16, 1), const(B)]),
    case("atomic_scalar_counter", atomic_scalar_counter, [i32, i32]),
    case("atomic_raw_memory", atomic_raw_memory, [i32, i32, const(B)]),
    case("atomic_masked_2d", atomic_masked_2d,
         [arr(ct.float32, 2), arr(ct.float32, 2), const(8), const(16)]),
    case("view_atomic_reduce", view_atomic_reduce,
         [arr(ct.int32, 2), arr(ct.int32, 2), const(8), const(16)]),
    case("view_atomic_reduce_float", view_atomic_reduce_float,
         [arr(ct.float32, 2), arr(ct.float32, 2), const(8), const(16)]),
]
