"""vector_add: out = x + y over 1-D arrays, one TILE-element tile per block."""

import cuda.tile as ct


@ct.kernel
def vector_add(x, y, out, TILE: ct.Constant[int]):
    block = ct.bid(0)
    # ZERO padding keeps the ragged last tile well defined; the store masks it.
    a = ct.load(x, index=(block,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(y, index=(block,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(block,), tile=a + b)


def select_variant(dtype: str, n: int, strides) -> str | None:
    """The launcher's choice for x, y, out of `dtype` (a torch dtype name), length n and element
    `strides` (one per array); None when no variant takes them. 16-bit arrays with n a multiple
    of 8 take the aligned variant (whole 16-byte vectors in the masked tail); a non-unit stride
    needs float32: float32 contiguous arrays take f32_t1024, strided ones f32_strided_t1024. Measured
    (bench_selection.py, docs/results/selection.json, H200 2026-12-07, two passes): on contiguous
    arrays the strided variant is 1.10-1.14x slower up to 1M elements (the same at 32M); the H100
    grid of 2026-12-05 had it the other way round (f32_t1024 1.07-1.16x slower), a launch-latency
    difference of 0.6-1.0 us either way. The Rust library's cutile_vector_add chooses the same
    (tests/rust/test_selection.py)."""
    contiguous = n <= 1 or all(s == 1 for s in strides)
    prefix = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}.get(dtype)
    if prefix is None:
        return None
    if dtype == "float32":
        return "f32_t1024" if contiguous else "f32_strided_t1024"
    if not contiguous:
        return None
    return f"{prefix}_a8_t1024" if n % 8 == 0 else f"{prefix}_t1024"
