"""The ported ops on the Python side: one row per C function of rust_kernels/include/tileir_kernels.h.

This table is the only Python list of ported ops. It gives the ctypes argtypes (_abi._declare),
the torch wrapper each function has (torch_ops), and how an analysis.json variant's inputs map to
the wrapper's arguments (the GPU and stand-in-driver tests). The Rust side has its own single list
(`ops!` in rust_kernels/src/ops/mod.rs); tests/rust/test_variant_table.py checks that the two name
the same ops, that every function here is in the header with these arguments, and that each
wrapper takes exactly `args` first.

Standard library only: importing it never imports torch.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

__all__ = ["Arg", "PortFunction", "FUNCTIONS", "PORTED_OPS", "function_for", "wrapper_kwargs"]


@dataclass(frozen=True)
class Arg:
    """One argument of a cutile_<op> function before (device, stream).

    kind: ``tensor`` (a tileir_tensor_t*), ``f32`` (float), ``i32`` (int32_t), ``flag`` (an
    int32_t 0/1, a bool in the wrapper) or ``int`` (an int32_t that selects by an integer
    constant, an int in the wrapper). ``name`` is the wrapper's parameter name and, for tensors
    and scalars, the analysis.json param name; a ``flag`` or ``int`` is the lower-cased name of
    the analysis.json constant it must equal (``trans_a`` = ``TRANS_A``, ``window`` = ``WINDOW``)
    unless ``constant`` names another one. ``implied``: (kernel, value) pairs for the kernels
    that fix the value by their structure instead of a constant (rope_neox_split: is_neox)."""

    name: str
    kind: str = "tensor"
    constant: str | None = None
    implied: tuple[tuple[str, int], ...] = ()

    @property
    def constant_name(self) -> str:
        return self.constant or self.name.upper()


@dataclass(frozen=True)
class PortFunction:
    op: str  # reference/<op>/ and rust_kernels/src/ops/<op>/
    name: str  # the C symbol
    wrapper: str  # the torch wrapper: tileir_diff.ports.<wrapper>
    kernels: tuple[str, ...]  # analysis.json `kernel`s this function launches
    args: tuple[Arg, ...]
    # For a function that launches several kernels in one call (flash_decode): the module
    # reference/<op>/<call_module>.py whose call_inputs(variant, shape, *, seed, device) and
    # call_reference(variant, inputs) replace ref.make_inputs / ref.reference in the GPU test. A
    # forced variant's call runs its partner kernel too, so it needs both kernels' arguments and
    # writes both kernels' outputs.
    call_module: str | None = None


def _t(*names: str) -> tuple[Arg, ...]:
    return tuple(Arg(n) for n in names)


FUNCTIONS: tuple[PortFunction, ...] = (
    PortFunction("vector_add", "cutile_vector_add", "vector_add", ("vector_add",), _t("x", "y", "out")),
    PortFunction("softmax", "cutile_softmax", "softmax", ("softmax_row", "softmax_online", "softmax_row_o8", "softmax_row_o4", "softmax_online_o4",
                                                   "softmax_row_fast_o16", "softmax_row_fast_o8", "softmax_row_fast_o4",
                                                   "softmax_online_fast_o8", "softmax_online_fast_o4", "softmax_online_fast_o2"),
                 _t("x", "out")),
    PortFunction("rms_norm", "cutile_rms_norm", "rms_norm", ("rms_norm_fwd", "rms_norm_fwd_looped", "rms_norm_fwd_o4", "rms_norm_fwd_o2",
                                                     "rms_norm_fwd_looped_o4", "rms_norm_fwd_fast_o16",
                                                     "rms_norm_fwd_fast_o8", "rms_norm_fwd_fast_o4"),
                 _t("x", "w", "out", "rstd") + (Arg("eps", "f32"),)),
    PortFunction("rms_norm", "cutile_rms_norm_bwd", "rms_norm_bwd", ("rms_norm_bwd", "rms_norm_bwd_o2"),
                 _t("dy", "x", "w", "rstd", "dx", "dw_partial")),
    PortFunction("matmul", "cutile_matmul", "matmul", ("matmul", "matmul_w8", "matmul_w8_persistent"),
                 _t("a", "b", "c") + (Arg("trans_a", "flag"), Arg("trans_b", "flag"))),
    PortFunction("matmul", "cutile_matmul_fp8", "matmul_fp8", ("matmul_fp8", "matmul_fp8_w8", "matmul_fp8_w8_persistent",
                                                                 "matmul_fp8_w8_c2"),
                 _t("a", "b", "c") + (Arg("scale_a", "f32"), Arg("scale_b", "f32"), Arg("trans_a", "flag"),
                                      Arg("trans_b", "flag"))),
    PortFunction("silu_and_mul", "cutile_silu_and_mul", "silu_and_mul", ("silu_and_mul", "silu_and_mul_fast"),
                 _t("x", "out")),
    PortFunction("swiglu", "cutile_swiglu", "swiglu", ("swiglu_fwd", "swiglu_fwd_fast"), _t("a", "b", "c")),
    PortFunction("swiglu", "cutile_swiglu_bwd", "swiglu_bwd", ("swiglu_bwd", "swiglu_bwd_fast"),
                 _t("dc", "a", "b", "da", "db")),
    PortFunction("gelu", "cutile_gelu", "gelu", ("gelu", "gelu_fast"), _t("x", "out") + (Arg("approximate", "flag", "APPROX"),)),
    PortFunction("dropout", "cutile_dropout", "dropout", ("dropout", "dropout_fast"),
                 _t("x", "out") + (Arg("seed", "i32"), Arg("p", "f32"))),
    PortFunction("argmax", "cutile_argmax", "argmax", ("argmax_rows", "argmax_fast_o16", "argmax_fast_o8"),
                 _t("x", "out")),
    PortFunction("cross_entropy", "cutile_cross_entropy", "cross_entropy",
                 ("cross_entropy_fwd", "cross_entropy_fast_o8", "cross_entropy_fast_o4", "cross_entropy_fast_o2"),
                 _t("logits", "target", "loss", "lse")),
    PortFunction("cumsum", "cutile_cumsum", "cumsum",
                 ("cumsum_row", "cumsum_looped", "cumsum_row_fast_o16", "cumsum_looped_fast_o8", "cumsum_looped_fast_o4"),
                 _t("x", "out")),
    PortFunction("embedding", "cutile_embedding", "embedding", ("embedding_rows", "embedding_gather"),
                 _t("ids", "weight", "out")),
    PortFunction("transpose", "cutile_transpose", "transpose",
                 ("transpose_2d", "transpose_2d_order", "transpose_batched"), _t("x", "y")),
    PortFunction("fp8_quantize", "cutile_fp8_quantize", "fp8_quantize", ("fp8_quant_rows", "fp8_quant_rows_looped",
                                                                      "fp8_quant_rows_fast"),
                 _t("x", "q", "scales")),
    PortFunction("layer_norm", "cutile_layer_norm", "layer_norm", ("layer_norm_fwd", "layer_norm_fwd_fast", "layer_norm_fwd_fast2_o16",
                                                         "layer_norm_fwd_fast2_o8", "layer_norm_fwd_fast2_o4"),
                 _t("x", "w", "b", "out", "mean", "rstd") + (Arg("eps", "f32"),)),
    PortFunction("layer_norm", "cutile_layer_norm_bwd", "layer_norm_bwd", ("layer_norm_bwd",),
                 _t("dy", "x", "w", "mean", "rstd", "dx", "dw_partial", "db_partial")),
    PortFunction("rope", "cutile_rope", "rope", ("rope", "rope_neox_split", "rope_o8", "rope_neox_split_o8"),
                 _t("positions", "q", "k", "cos_table", "sin_table", "q_out", "k_out")
                 + (Arg("is_neox", "flag", implied=(("rope_neox_split", 1), ("rope_neox_split_o8", 1))),)),
    PortFunction("flash_attention", "cutile_flash_attention", "flash_attention",
                 ("flash_attention", "flash_attention_w8", "flash_attention_o2"),
                 _t("q", "k", "v", "o") + (Arg("sm_scale", "f32"), Arg("causal", "flag"))),
    PortFunction("attention_sink", "cutile_attention_sink", "attention_sink", ("attention_sink",),
                 _t("q", "k", "v", "sinks", "o") + (Arg("sm_scale", "f32"), Arg("window", "int"))),
    PortFunction("bmm", "cutile_bmm", "bmm", ("bmm", "bmm_w8", "bmm_w8_persistent"), _t("a", "b", "c") + (Arg("trans_b", "flag"),)),
    PortFunction("splitk_matmul", "cutile_splitk_matmul", "splitk_matmul", ("splitk_partial", "splitk_reduce"),
                 _t("a", "b", "partial", "c"), call_module="port_call"),
    PortFunction("group_gemm", "cutile_group_gemm", "group_gemm", ("group_gemm", "group_gemm_sliced", "group_gemm_sliced_w8"),
                 _t("a", "w", "offsets", "c") + (Arg("trans_w", "flag"),)),
    PortFunction("fused_moe", "cutile_fused_moe", "fused_moe", ("fused_moe",),
                 _t("hidden", "w", "sorted_token_ids", "expert_ids", "num_tokens_post_padded", "topk_weights", "out")
                 + (Arg("mul_routed_weight", "flag"), Arg("block_m", "int", "BM"))),
    PortFunction("flash_decode", "cutile_flash_decode", "flash_decode",
                 ("flash_decode_partial", "flash_decode_partial_tp", "flash_decode_partial_tp_o4", "flash_decode_partial_v",
                  "flash_decode_combine", "flash_decode_combine_o8"),
                 _t("q", "k", "v", "seq_lens", "partial_o", "partial_lse", "o") + (Arg("sm_scale", "f32"),),
                 call_module="port_call"),
    PortFunction("moe_align_block_size", "cutile_moe_align_block_size", "moe_align_block_size",
                 ("moe_align_histogram", "moe_align_sort"),
                 _t("topk_ids", "expert_counts", "expert_offsets", "expert_ids", "num_tokens_post_padded",
                    "sorted_token_ids") + (Arg("block_m", "i32"),), call_module="port_call"),
    PortFunction("moe_align_block_size", "cutile_moe_align_block_size_tiled", "moe_align_block_size_tiled",
                 ("moe_align_count_sub", "moe_align_place_sub"),
                 _t("topk_ids", "expert_counts", "expert_offsets", "expert_ids", "num_tokens_post_padded",
                    "sorted_token_ids", "tile_counts") + (Arg("block_m", "i32"),), call_module="port_call"),
)

#: Every ported op, in table order.
PORTED_OPS: tuple[str, ...] = tuple(dict.fromkeys(f.op for f in FUNCTIONS))


def function_for(op: str, kernel: str) -> PortFunction:
    """The C function that launches analysis.json `kernel` of `op`."""
    for f in FUNCTIONS:
        if f.op == op and kernel in f.kernels:
            return f
    raise KeyError(f"no port function launches {op}/{kernel}")


def wrapper_kwargs(function: PortFunction, variant: Mapping[str, Any], inputs: Mapping[str, Any]) -> dict:
    """The wrapper's arguments for one analysis.json variant and its ref.make_inputs: tensors and
    scalars by name from `inputs`, flags and ints from the variant's constants."""
    kwargs = {}
    for a in function.args:
        if a.kind in ("flag", "int"):
            value = variant["constants"].get(a.constant_name)
            if value is None:
                value = dict(a.implied)[variant["kernel"]]
            kwargs[a.name] = bool(value) if a.kind == "flag" else int(value)
        else:
            kwargs[a.name] = inputs[a.name]
    return kwargs
