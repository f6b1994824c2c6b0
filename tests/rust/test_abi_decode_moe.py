"""The C ABI of flash_decode (and moe_align_block_size) through ctypes, without a GPU: each
rejection path with its code, the variants one call selects for both of its kernels, the
exception the wrapper raises, and every analysis.json test shape getting past validation on its
forced variant as the GPU test lays it out (reference/<op>/port_call.py)."""
from __future__ import annotations

import json

import pytest

from tileir_diff import ports
from tileir_diff.ports import Status

from .test_abi import HEADER, PAST_VALIDATION, FakeTensor, call, message, t

pytestmark = pytest.mark.cargo


@pytest.fixture(scope="module")
def lib(ports_library):
    return ports.load_library(ports_library)


def _selected(lib):
    return lib.tileir_kernels_selected_variant().decode()


# --- flash_decode ---------------------------------------------------------------------------------

B, HQ, HKV, SMAX, S, D = 3, 8, 2, 1000, 8, 128


def _decode_arrays(dtype="bfloat16", b=B, hq=HQ, hkv=HKV, smax=SMAX, s=S, d=D, **override):
    arrays = {"q": t(1, dtype, [b, hq, d]), "k": t(2, dtype, [b, hkv, smax, d]), "v": t(3, dtype, [b, hkv, smax, d]),
              "seq_lens": t(4, "int32", [b]), "partial_o": t(5, "float32", [b, hq, s, d]),
              "partial_lse": t(6, "float32", [b, hq, s]), "o": t(7, dtype, [b, hq, d])}
    arrays.update(override)
    return [arrays[n] for n in ("q", "k", "v", "seq_lens", "partial_o", "partial_lse", "o")]


def decode(lib, *arrays, sm_scale=0.088, **kw):
    return call(lib, "cutile_flash_decode", *arrays, sm_scale, **kw)


def test_flash_decode_selects_both_kernels(lib):
    assert decode(lib, *_decode_arrays()) in PAST_VALIDATION, message(lib)
    assert _selected(lib) == "tp_bf16_d128_g4_bn128,combine_bf16_d128_o8"
    assert decode(lib, *_decode_arrays(hkv=HQ)) in PAST_VALIDATION, message(lib)
    assert _selected(lib) == "v_bf16_d128_g1_bn64,combine_bf16_d128_o8"
    assert decode(lib, *_decode_arrays("float16", hkv=1, d=64)) in PAST_VALIDATION, message(lib)
    assert _selected(lib) == "tp_f16_d64_g8_bn64_o4,combine_f16_d64_o8"


def test_flash_decode_rejections(lib):
    def bad(**override):
        return decode(lib, *_decode_arrays(**override))

    assert decode(lib, *_decode_arrays(), sm_scale=float("nan")) == Status.INVALID_ARGUMENT
    assert decode(lib, *_decode_arrays(), sm_scale=float("inf")) == Status.INVALID_ARGUMENT
    assert decode(lib, None, *_decode_arrays()[1:]) == Status.NULL_POINTER
    assert bad(o=t(0, "bfloat16", [B, HQ, D])) == Status.NULL_POINTER
    # dtype
    assert bad(dtype="float32") == Status.UNSUPPORTED_DTYPE
    assert bad(k=t(2, "float16", [B, HKV, SMAX, D])) == Status.UNSUPPORTED_DTYPE
    assert bad(o=t(7, "float32", [B, HQ, D])) == Status.UNSUPPORTED_DTYPE
    assert bad(seq_lens=t(4, "int64", [B])) == Status.UNSUPPORTED_DTYPE
    assert bad(partial_o=t(5, "bfloat16", [B, HQ, S, D])) == Status.UNSUPPORTED_DTYPE
    assert bad(partial_lse=t(6, "float16", [B, HQ, S])) == Status.UNSUPPORTED_DTYPE
    assert bad(dtype="float16") == Status.NO_VARIANT and "head dim 128" in message(lib)  # f16 is D = 64 only
    assert bad(hkv=4) == Status.NO_VARIANT  # bf16 G = 2 is not built
    assert bad(d=64) == Status.NO_VARIANT
    assert bad(s=17) == Status.NO_VARIANT and "S = 17" in message(lib)  # past MAX_SPLITS
    # rank and shape
    assert bad(q=t(1, "bfloat16", [B, HQ * D])) == Status.BAD_RANK
    assert bad(k=t(2, "bfloat16", [B, HKV, SMAX * D])) == Status.BAD_RANK
    assert bad(seq_lens=t(4, "int32", [B, 1])) == Status.BAD_RANK
    assert bad(v=t(3, "bfloat16", [B, HKV, SMAX - 1, D])) == Status.SHAPE_MISMATCH
    assert bad(k=t(2, "bfloat16", [B + 1, HKV, SMAX, D])) == Status.SHAPE_MISMATCH
    assert bad(seq_lens=t(4, "int32", [B - 1])) == Status.SHAPE_MISMATCH
    assert bad(partial_o=t(5, "float32", [B, HQ, S + 1, D])) == Status.SHAPE_MISMATCH
    assert bad(o=t(7, "bfloat16", [B, HQ - 1, D])) == Status.SHAPE_MISMATCH
    assert bad(hkv=3) == Status.SHAPE_MISMATCH and "multiple of Hkv" in message(lib)
    assert bad(hkv=0) == Status.SHAPE_MISMATCH
    assert bad(s=0) == Status.UNSUPPORTED_SHAPE  # nothing to merge: o would be 0/0
    assert bad(smax=0) == Status.UNSUPPORTED_SHAPE  # no key at all
    # strides and alignment
    assert bad(q=t(1, "bfloat16", [B, HQ, D], [HQ * 130, 130, 1])) == Status.BAD_STRIDE  # head stride % 8
    assert bad(k=t(2, "bfloat16", [B, HKV, SMAX, D], [HKV * SMAX * D * 2, SMAX * D * 2, D * 2, 2])) \
        == Status.BAD_STRIDE  # non-unit last
    assert bad(partial_o=t(5, "float32", [B, HQ, S, D], [HQ * S * 130, S * 130, 130, 1])) == Status.BAD_STRIDE  # % 4
    assert bad(partial_lse=t(6, "float32", [B, HQ, S], [HQ * S, S, 2])) == Status.BAD_STRIDE
    assert bad(o=t(7, "bfloat16", [B, HQ, D], [0, D, 1])) == Status.BAD_STRIDE  # batches collide
    assert bad(q=t(1, "bfloat16", [B, HQ, D], offset=2)) == Status.MISALIGNED
    assert bad(seq_lens=t(4, "int32", [B], offset=4)) == Status.MISALIGNED
    assert bad(partial_o=t(5, "float32", [B, HQ, S, D], offset=4)) == Status.MISALIGNED
    assert bad(partial_lse=t(6, "float32", [B, HQ, S], offset=2)) == Status.MISALIGNED
    assert bad(partial_lse=t(6, "float32", [B, HQ, S], offset=4)) in PAST_VALIDATION, message(lib)  # 4 bytes suffice
    # overlap: an output over an input or another output
    assert bad(o=t(1, "bfloat16", [B, HQ, D])) == Status.INVALID_ARGUMENT  # o over q
    assert bad(partial_o=t(2, "float32", [B, HQ, S, D])) == Status.INVALID_ARGUMENT  # over k
    assert bad(partial_lse=t(4, "float32", [B, HQ, S])) == Status.INVALID_ARGUMENT  # over seq_lens
    assert bad(partial_lse=t(5, "float32", [B, HQ, S], offset=64)) == Status.INVALID_ARGUMENT  # inside partial_o
    assert bad(o=t(6, "bfloat16", [B, HQ, D])) == Status.INVALID_ARGUMENT  # over partial_lse
    # device
    assert decode(lib, *_decode_arrays(), device=-1) == Status.INVALID_DEVICE
    # empty: no driver
    assert decode(lib, *_decode_arrays(b=0)) == Status.OK


def test_forced_flash_decode_variant_runs_with_its_partner(lib, ports_library):
    with ports.force_variant("flash_decode", "combine_f16_d64", library=ports_library):
        assert decode(lib, *_decode_arrays("float16", hkv=1, d=64)) in PAST_VALIDATION, message(lib)
        assert _selected(lib) == "tp_f16_d64_g8_bn64_o4,combine_f16_d64"
        assert decode(lib, *_decode_arrays()) == Status.UNSUPPORTED_DTYPE  # still validated against it
    with ports.force_variant("flash_decode", "partial_bf16_d128_g1", library=ports_library):
        assert decode(lib, *_decode_arrays(hkv=HQ)) in PAST_VALIDATION, message(lib)
        assert _selected(lib) == "partial_bf16_d128_g1,combine_bf16_d128_o8"
        # A forced partial must compute the grouping asked for (its heads would be misread).
        assert decode(lib, *_decode_arrays()) == Status.INVALID_ARGUMENT and "query heads per kv head" in message(lib)
    # a forced variant of another kernel of the partial stage replaces the launcher's pick too
    with ports.force_variant("flash_decode", "tp_bf16_d128_g4_bn64", library=ports_library):
        assert decode(lib, *_decode_arrays()) in PAST_VALIDATION, message(lib)
        assert _selected(lib) == "tp_bf16_d128_g4_bn64,combine_bf16_d128_o8"


def _decode_reference_args(variant, shape):
    """The C arguments reference/flash_decode/port_call.call_inputs gives (no torch): k and v of a
    'noncontiguous' shape are (B, Smax, Hkv, D) caches viewed as (B, Hkv, Smax, D)."""
    c, dt = variant["constants"], variant["dtypes"]
    dtype = dt.get("q", dt.get("o"))
    if variant["kernel"].startswith("flash_decode_partial"):
        b, hq, hkv, smax, s = shape["B"], shape["Hq"], shape["Hkv"], shape["Smax"], shape["S"]
    else:
        b, hq, s = shape["B"], shape["Hq"], shape["S"]
        group = {("bfloat16", 128): 4 if hq % 4 == 0 else 1, ("float16", 64): 8}[(dtype, c["D"])]
        hq = -(-hq // group) * group
        hkv, smax = hq // group, 2 * 128 * s
    d = c["D"]
    kv = {}
    for i, name in ((2, "k"), (3, "v")):
        if name in shape.get("noncontiguous", ()):
            kv[name] = t(i, dtype, [b, hkv, smax, d], [smax * hkv * d, d, hkv * d, 1])
    return _decode_arrays(dtype, b=b, hq=hq, hkv=hkv, smax=smax, s=s, d=d, **kv) + [1.0 / d ** 0.5]


def test_every_flash_decode_test_shape_fits_its_forced_variant(lib, ports_library):
    analysis = json.loads((HEADER.parents[2] / "reference" / "flash_decode" / "analysis.json").read_text())
    for v in analysis["variants"]:
        for shape in v["test_shapes"]:
            with ports.force_variant("flash_decode", v["name"], library=ports_library):
                code = call(lib, "cutile_flash_decode", *_decode_reference_args(v, shape))
                selected = _selected(lib).split(",")
            assert code in PAST_VALIDATION, f"{v['name']} {shape}: {code.name}: {message(lib)}"
            assert v["name"] in selected


@pytest.mark.parametrize("wrapper, error, also", [
    (lambda L: ports.flash_decode(*(FakeTensor(i, "torch.bfloat16", s) for i, s in ((1, [2, 8, 128]), (2, [2, 2, 64, 128]),
                                                                                     (3, [2, 2, 64, 128]))),
                                  FakeTensor(4, "torch.int32", [2]), FakeTensor(5, "torch.float32", [2, 8, 4, 128]),
                                  FakeTensor(6, "torch.float32", [2, 8, 4]), FakeTensor(7, "torch.float16", [2, 8, 128]),
                                  0.1, library=L), ports.UnsupportedDtypeError, TypeError),
    (lambda L: ports.flash_decode(*(FakeTensor(i, "torch.bfloat16", s) for i, s in ((1, [2, 8, 128]), (2, [2, 3, 64, 128]),
                                                                                     (3, [2, 3, 64, 128]))),
                                  FakeTensor(4, "torch.int32", [2]), FakeTensor(5, "torch.float32", [2, 8, 4, 128]),
                                  FakeTensor(6, "torch.float32", [2, 8, 4]), FakeTensor(7, "torch.bfloat16", [2, 8, 128]),
                                  0.1, library=L), ports.ShapeMismatchError, ValueError),
    (lambda L: ports.flash_decode(*(FakeTensor(i, "torch.bfloat16", s) for i, s in ((1, [2, 8, 128]), (2, [2, 2, 64, 128]),
                                                                                     (3, [2, 2, 64, 128]))),
                                  FakeTensor(4, "torch.int32", [2]), FakeTensor(5, "torch.float32", [2, 8, 4, 128]),
                                  FakeTensor(5, "torch.float32", [2, 8, 4]), FakeTensor(7, "torch.bfloat16", [2, 8, 128]),
                                  0.1, library=L), ports.InvalidArgumentError, ValueError),
])
def test_wrapper_raises_the_exception_of_the_code(ports_library, wrapper, error, also):
    with pytest.raises(error) as info:
        wrapper(ports_library)
    assert isinstance(info.value, also) and info.value.status == error.status and str(info.value)


# --- moe_align_block_size -------------------------------------------------------------------------

N, E = 1000, 60


def _moe_arrays(n=N, e=E, block_m=64, em=None, nb=None, **override):
    em = n + e * (block_m - 1) if em is None else em
    nb = -(-em // block_m) if nb is None else nb
    arrays = {"topk_ids": t(1, "int32", [n]), "expert_counts": t(2, "int32", [e]),
              "expert_offsets": t(3, "int32", [e + 1]), "expert_ids": t(4, "int32", [nb]),
              "num_tokens_post_padded": t(5, "int32", [1]), "sorted_token_ids": t(6, "int32", [em])}
    arrays.update(override)
    return [arrays[k] for k in ("topk_ids", "expert_counts", "expert_offsets", "expert_ids", "num_tokens_post_padded",
                                "sorted_token_ids")]


def moe(lib, *arrays, block_m=64, **kw):
    return call(lib, "cutile_moe_align_block_size", *arrays, block_m, **kw)


def test_moe_align_selects_both_kernels(lib):
    assert moe(lib, *_moe_arrays()) in PAST_VALIDATION, message(lib)
    assert _selected(lib) == "hist_bm64_e128,sort_bm64_e128"
    assert moe(lib, *_moe_arrays(e=200, block_m=16), block_m=16) in PAST_VALIDATION, message(lib)
    assert _selected(lib) == "hist_bm16_e256,sort_bm16_e256"
    # Larger outputs than the minimum are fine (the slots past the total get the sentinel).
    assert moe(lib, *_moe_arrays(em=N + E * 63 + 100, nb=200)) in PAST_VALIDATION, message(lib)


def test_moe_align_rejections(lib):
    def bad(block_m=64, **override):
        return moe(lib, *_moe_arrays(**override), block_m=block_m)

    assert moe(lib, None, *_moe_arrays()[1:]) == Status.NULL_POINTER
    assert bad(sorted_token_ids=t(0, "int32", [N + E * 63])) == Status.NULL_POINTER
    # dtype
    assert bad(topk_ids=t(1, "int64", [N])) == Status.UNSUPPORTED_DTYPE
    assert bad(expert_ids=t(4, "float32", [-(-(N + E * 63) // 64)])) == Status.UNSUPPORTED_DTYPE
    # block size and expert count: only the built pairs
    assert moe(lib, *_moe_arrays(block_m=32), block_m=32) == Status.NO_VARIANT and "block_m = 32" in message(lib)
    assert moe(lib, *_moe_arrays(e=128)) == Status.NO_VARIANT  # E_PAD = 128 needs E < 128
    assert moe(lib, *_moe_arrays(e=127)) in PAST_VALIDATION, message(lib)
    assert moe(lib, *_moe_arrays(e=256, block_m=16), block_m=16) == Status.NO_VARIANT
    assert bad(block_m=0) == Status.INVALID_ARGUMENT
    # rank and shape
    assert bad(topk_ids=t(1, "int32", [N // 2, 2])) == Status.BAD_RANK
    assert bad(expert_offsets=t(3, "int32", [E])) == Status.SHAPE_MISMATCH  # needs E + 1
    assert bad(num_tokens_post_padded=t(5, "int32", [2])) == Status.SHAPE_MISMATCH
    assert bad(em=N + E * 63 - 1) == Status.SHAPE_MISMATCH and "N + E * (block_m - 1)" in message(lib)
    assert bad(nb=-(-(N + E * 63) // 64) - 1) == Status.SHAPE_MISMATCH
    assert bad(e=0) == Status.UNSUPPORTED_SHAPE
    # strides and alignment
    assert bad(topk_ids=t(1, "int32", [N], [2])) == Status.BAD_STRIDE
    assert bad(sorted_token_ids=t(6, "int32", [N + E * 63], [2])) == Status.BAD_STRIDE
    assert bad(topk_ids=t(1, "int32", [N], offset=2)) == Status.MISALIGNED
    assert bad(expert_ids=t(4, "int32", [-(-(N + E * 63) // 64)], offset=1)) == Status.MISALIGNED
    assert bad(topk_ids=t(1, "int32", [N], offset=4)) in PAST_VALIDATION, message(lib)  # 4-byte aligned suffices
    # overlap: every array against every other
    assert bad(sorted_token_ids=t(1, "int32", [N + E * 63])) == Status.INVALID_ARGUMENT  # over topk_ids
    assert bad(expert_offsets=t(2, "int32", [E + 1], offset=8)) == Status.INVALID_ARGUMENT  # over expert_counts
    assert bad(num_tokens_post_padded=t(4, "int32", [1])) == Status.INVALID_ARGUMENT  # over expert_ids
    # device
    assert moe(lib, *_moe_arrays(), device=-1) == Status.INVALID_DEVICE


def test_forced_moe_variant_runs_with_its_partner(lib, ports_library):
    with ports.force_variant("moe_align_block_size", "sort_bm16_e256", library=ports_library):
        assert moe(lib, *_moe_arrays(block_m=16), block_m=16) in PAST_VALIDATION, message(lib)
        assert _selected(lib) == "hist_bm16_e256,sort_bm16_e256"
        # The sort's 256 expert lanes also serve block_m 64 (the histogram chosen for it has 128).
        assert moe(lib, *_moe_arrays()) in PAST_VALIDATION, message(lib)
        assert _selected(lib) == "hist_bm64_e128,sort_bm16_e256"
    with ports.force_variant("moe_align_block_size", "hist_bm16_e256", library=ports_library):
        # A forced histogram must pad to the block size asked for.
        assert moe(lib, *_moe_arrays()) == Status.INVALID_ARGUMENT and "block_m = 16" in message(lib)
    with ports.force_variant("moe_align_block_size", "sort_bm64_e128", library=ports_library):
        assert moe(lib, *_moe_arrays(e=200, block_m=16), block_m=16) == Status.INVALID_ARGUMENT  # E >= its E_PAD


def _moe_reference_args(variant, shape):
    """The C function and arguments reference/moe_align_block_size/port_call.call_inputs gives (no torch)."""
    n, e = shape["N"], shape["E"]
    if variant["kernel"] in ("moe_align_count_sub", "moe_align_place_sub"):
        block_m = variant["constants"].get("BLOCK_M", 64 if variant["constants"]["E_PAD"] == 128 else 16)
        scratch = t(7, "int32", [-(-n // 256) * e])
        return "cutile_moe_align_block_size_tiled", _moe_arrays(n, e, block_m) + [scratch, block_m]
    if variant["kernel"] == "moe_align_histogram":
        block_m = variant["constants"]["BLOCK_M"]
        return "cutile_moe_align_block_size", _moe_arrays(n, e, block_m, nb=shape.get("NB")) + [block_m]
    block_m = int(shape["block_m"])
    return "cutile_moe_align_block_size", _moe_arrays(n, e, block_m, em=shape.get("EM")) + [block_m]


def test_every_moe_align_test_shape_fits_its_forced_variant(lib, ports_library):
    analysis = json.loads((HEADER.parents[2] / "reference" / "moe_align_block_size" / "analysis.json").read_text())
    for v in analysis["variants"]:
        for shape in v["test_shapes"]:
            with ports.force_variant("moe_align_block_size", v["name"], library=ports_library):
                function, args = _moe_reference_args(v, shape)
                code = call(lib, function, *args)
                selected = _selected(lib).split(",")
            assert code in PAST_VALIDATION, f"{v['name']} {shape}: {code.name}: {message(lib)}"
            assert v["name"] in selected


@pytest.mark.parametrize("wrapper, error, also", [
    (lambda L: ports.moe_align_block_size(FakeTensor(1, "torch.int32", [100]), FakeTensor(2, "torch.int32", [8]),
                                          FakeTensor(3, "torch.int32", [9]), FakeTensor(4, "torch.int32", [10]),
                                          FakeTensor(5, "torch.int32", [1]), FakeTensor(6, "torch.int32", [603]),
                                          64, library=L), ports.ShapeMismatchError, ValueError),  # EM < 100 + 8*63
    (lambda L: ports.moe_align_block_size(FakeTensor(1, "torch.int64", [100]), FakeTensor(2, "torch.int32", [8]),
                                          FakeTensor(3, "torch.int32", [9]), FakeTensor(4, "torch.int32", [10]),
                                          FakeTensor(5, "torch.int32", [1]), FakeTensor(6, "torch.int32", [604]),
                                          64, library=L), ports.UnsupportedDtypeError, TypeError),
    (lambda L: ports.moe_align_block_size(FakeTensor(1, "torch.int32", [100]), FakeTensor(2, "torch.int32", [8]),
                                          FakeTensor(3, "torch.int32", [9]), FakeTensor(4, "torch.int32", [40]),
                                          FakeTensor(5, "torch.int32", [1]), FakeTensor(6, "torch.int32", [620]),
                                          32, library=L), ports.NoVariantError, ValueError),
])
def test_moe_wrapper_raises_the_exception_of_the_code(ports_library, wrapper, error, also):
    with pytest.raises(error) as info:
        wrapper(ports_library)
    assert isinstance(info.value, also) and info.value.status == error.status and str(info.value)


def test_tiled_moe_scratch_must_hold_every_tile_and_stay_apart(lib):
    """tile_counts: int32, (ceil(N / 256), E) or more rows, contiguous, or 1-D of at least
    ceil(N / 256) * E elements; overlapping nothing."""
    tiled = lambda *a: call(lib, "cutile_moe_align_block_size_tiled", *_moe_arrays(), *a, 64)  # noqa: E731
    need = -(-N // 256) * E
    assert tiled(t(7, "int32", [need])) in PAST_VALIDATION, message(lib)
    assert _selected(lib) == "count_t256_e128_s64,place_bm64_e128_s64"
    assert tiled(t(7, "int32", [need - 1])) == Status.SHAPE_MISMATCH and "tile_counts" in message(lib)
    assert tiled(t(7, "int64", [need])) == Status.UNSUPPORTED_DTYPE and "int32" in message(lib)
    rows = -(-N // 256)
    assert tiled(t(7, "int32", [rows + 2, E])) in PAST_VALIDATION, message(lib)  # more rows than needed
    assert tiled(t(7, "int32", [rows - 1, E])) == Status.SHAPE_MISMATCH
    assert tiled(t(7, "int32", [need, 1])) == Status.SHAPE_MISMATCH  # not E columns
    assert tiled(t(7, "int32", [rows, E], strides=[E + 1, 1])) == Status.INVALID_ARGUMENT  # padded rows
    assert tiled(t(7, "int32", [rows, E, 1])) == Status.BAD_RANK
    assert tiled(t(6, "int32", [need])) == Status.INVALID_ARGUMENT and "overlaps" in message(lib)  # sorted_token_ids
