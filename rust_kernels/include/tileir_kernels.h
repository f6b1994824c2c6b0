/*
 * tileir_kernels: C ABI of the cuTile Rust ports (rust_kernels/, libtileir_kernels.so).
 *
 * Each cutile_<op> validates every descriptor before touching the driver, then launches a
 * prebuilt sm_90 cubin (embedded in the library) through a dlopen'ed libcuda on the
 * caller's stream, in the device's primary context. It never allocates, copies, frees or
 * keeps caller memory, and never synchronizes: the work is ordered on `stream` like any
 * other kernel. The library loads without an NVIDIA driver and then returns
 * TILEIR_DRIVER_UNAVAILABLE after validation.
 *
 * Thread safety: calls may come from any thread; the error message is per thread.
 */
#ifndef TILEIR_KERNELS_H
#define TILEIR_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TILEIR_KERNELS_ABI_VERSION 1
#define TILEIR_MAX_RANK 5

/* Element type codes. */
enum {
    TILEIR_DTYPE_F32 = 0,
    TILEIR_DTYPE_F16 = 1,
    TILEIR_DTYPE_BF16 = 2,
    TILEIR_DTYPE_I32 = 3,
    TILEIR_DTYPE_I64 = 4,
    TILEIR_DTYPE_F8E4M3FN = 5,
    TILEIR_DTYPE_F8E5M2 = 6,
    TILEIR_DTYPE_F64 = 7
};

/* A tensor in device memory (96 bytes). Entries of shape/strides past ndim are ignored. */
typedef struct tileir_tensor {
    uint64_t data;                      /* device address of element [0, ..., 0] */
    int64_t shape[TILEIR_MAX_RANK];     /* extents, each in 0..INT32_MAX */
    int64_t strides[TILEIR_MAX_RANK];   /* in elements (not bytes), each in 0..INT32_MAX */
    int32_t ndim;                       /* 1..TILEIR_MAX_RANK */
    int32_t dtype;                      /* TILEIR_DTYPE_* */
} tileir_tensor_t;

/* Return codes. -1 is never returned (callers use it as a sentinel). */
enum {
    TILEIR_OK = 0,
    TILEIR_NULL_POINTER = -2,         /* null descriptor, or null data of a non-empty tensor */
    TILEIR_UNSUPPORTED_DTYPE = -3,    /* unknown code, mixed dtypes, or a dtype no variant takes */
    TILEIR_BAD_RANK = -4,             /* ndim outside 1..5 or not the op's rank */
    TILEIR_INVALID_SHAPE = -5,        /* a negative or > INT32_MAX extent, or a byte extent past 2^64 */
    TILEIR_SHAPE_MISMATCH = -6,       /* shapes of one call disagree */
    TILEIR_BAD_STRIDE = -7,           /* a stride the kernel cannot read: non-unit last stride,
                                         negative, not divisible as assumed, overlapping output */
    TILEIR_MISALIGNED = -8,           /* base address not aligned as the kernel assumes */
    TILEIR_INVALID_DEVICE = -9,       /* negative or missing device, or not sm_90 */
    TILEIR_DEVICE_MISMATCH = -10,     /* a tensor or the stream is not on `device` */
    TILEIR_INVALID_ARGUMENT = -11,    /* scalar out of domain, bad flag, aliasing in/out */
    TILEIR_UNSUPPORTED_SHAPE = -12,   /* valid but unsupported (e.g. K = 0, offsets past INT32) */
    TILEIR_DRIVER_UNAVAILABLE = -13,  /* libcuda.so.1 cannot be loaded */
    TILEIR_DRIVER_ERROR = -14,        /* a CUDA driver call failed (init, context, module) */
    TILEIR_KERNEL_IMAGE_MISSING = -15,/* this build embeds no cubin for the selected variant */
    TILEIR_LAUNCH_FAILED = -16,       /* cuLaunchKernel failed */
    TILEIR_NO_VARIANT = -17,          /* no prebuilt variant for this dtype/flag/layout combination */
    TILEIR_OUT_OF_BOUNDS = -18        /* a tensor's extent runs past its device allocation */
};

/* TILEIR_KERNELS_ABI_VERSION of the loaded library. */
int32_t tileir_kernels_abi_version(void);
/* Message of the last failed call on this thread ("" after a success). Valid until the next
   call into the library from this thread. */
const char *tileir_kernels_last_error(void);
/* "OK", "NULL_POINTER", ... ("UNKNOWN" for other codes). Static storage. */
const char *tileir_kernels_status_name(int32_t code);
/* 1 when this build embeds the sm_90 cubin of op/variant (names as in analysis.json). */
int32_t tileir_kernels_has_kernel_image(const char *op, const char *variant);

/* Makes later cutile_<op> calls on this thread launch `variant` (an analysis.json variant name)
   instead of choosing one; the call still validates against that variant. variant = NULL
   clears it. Returns TILEIR_NO_VARIANT for an unknown name. For testing every prebuilt variant. */
int32_t tileir_kernels_force_variant(const char *op, const char *variant);
/* Name of the variant the last status-returning call on this thread selected and validated its
   arguments against, whatever it returned after that (e.g. TILEIR_DRIVER_UNAVAILABLE); "" when
   that call stopped before selection. A function that launches several kernels (splitk_matmul, flash_decode, moe_align_block_size)
   names their variants in launch order, comma-separated. Checks the selection rule without a
   GPU. Valid until the next call into the library from this thread. */
const char *tileir_kernels_selected_variant(void);

/* out = x + y. x, y, out: 1-D, one dtype (f16, bf16, f32), one length. Unit stride and
   16-byte aligned bases; f32 also takes any non-negative strides. out may be x or y. */
int32_t cutile_vector_add(const tileir_tensor_t *x, const tileir_tensor_t *y,
                          const tileir_tensor_t *out, int32_t device, uint64_t stream);

/* out = softmax(x) over the last axis. x, out: (M, N), one dtype (f16, bf16, f32), unit
   column stride, any row stride, 16-byte aligned bases. out may be x. */
int32_t cutile_softmax(const tileir_tensor_t *x, const tileir_tensor_t *out, int32_t device,
                       uint64_t stream);

/* out = x * rsqrt(mean(x^2, last axis) + eps) * w; rstd[i] = the rsqrt of row i.
   x, out: (M, N); w: (N,); rstd: (M,) float32; x, w, out one dtype (f16, bf16, f32); unit
   last strides, 16-byte aligned bases; eps finite and >= 0. out may be x. */
int32_t cutile_rms_norm(const tileir_tensor_t *x, const tileir_tensor_t *w,
                        const tileir_tensor_t *out, const tileir_tensor_t *rstd, float eps,
                        int32_t device, uint64_t stream);

/* c = op(a) @ op(b), f32 accumulation; f32 operands are rounded to tf32. Descriptors are the
   stored arrays: a (M, K), or (K, M) with trans_a = 1; b (K, N), or (N, K) with trans_b = 1;
   c (M, N). Row-major, unit last stride; f16/bf16 row strides and N a multiple of 8 elements
   and 16-byte aligned bases (f16 without transposes falls back to an unaligned kernel); f32 row
   strides and N a multiple of 4. c must not overlap a or b. trans_a, trans_b: 0 or 1. */
int32_t cutile_matmul(const tileir_tensor_t *a, const tileir_tensor_t *b,
                      const tileir_tensor_t *c, int32_t trans_a, int32_t trans_b,
                      int32_t device, uint64_t stream);

/* Backward of rms_norm for dy = dL/dout. dy, x, dx: (M, N); w: (N,); rstd: (M,) float32 as
   the forward wrote it; dw_partial: (ceil(M / 64), N) float32, whose column sums are dL/dw.
   dy, x, w, dx one dtype (f16, bf16, f32); N <= 1024; unit last strides, 16-byte aligned
   bases. Outputs must not overlap the inputs or each other. */
int32_t cutile_rms_norm_bwd(const tileir_tensor_t *dy, const tileir_tensor_t *x,
                            const tileir_tensor_t *w, const tileir_tensor_t *rstd,
                            const tileir_tensor_t *dx, const tileir_tensor_t *dw_partial,
                            int32_t device, uint64_t stream);

/* c = (scale_a * scale_b) * (op(a) @ op(b)) with float8_e4m3fn a, b and a float16 or bfloat16
   c, f32 accumulation. Layouts as for cutile_matmul; the prebuilt variants take a (M, K) and b
   stored (N, K) (trans_a = 0, trans_b = 1), row strides of a and b a multiple of 16 elements,
   of c and N a multiple of 8. Scales must be finite. */
int32_t cutile_matmul_fp8(const tileir_tensor_t *a, const tileir_tensor_t *b,
                          const tileir_tensor_t *c, float scale_a, float scale_b, int32_t trans_a,
                          int32_t trans_b, int32_t device, uint64_t stream);

/* out = silu(x[:, :H]) * x[:, H:]. x: (M, 2H), or its (M, 2, H) view (strides (s0, H * s1, s1));
   out: (M, H); one dtype (f16, bf16, f32); unit last strides, any other non-negative strides,
   16-byte aligned bases. out must not overlap x. */
int32_t cutile_silu_and_mul(const tileir_tensor_t *x, const tileir_tensor_t *out, int32_t device,
                            uint64_t stream);

/* c = silu(a) * b. a, b, c: (M, N), one dtype (f16, bf16, f32), unit column stride, any row
   stride, 16-byte aligned bases. c may be a or b. */
int32_t cutile_swiglu(const tileir_tensor_t *a, const tileir_tensor_t *b, const tileir_tensor_t *c,
                      int32_t device, uint64_t stream);

/* Backward of swiglu for dc = dL/dc: da = dc * b * silu'(a), db = dc * silu(a). All (M, N), one
   dtype (f16, bf16, f32), layouts as for cutile_swiglu. da and db may each be exactly one of
   the inputs but must not overlap each other. */
int32_t cutile_swiglu_bwd(const tileir_tensor_t *dc, const tileir_tensor_t *a,
                          const tileir_tensor_t *b, const tileir_tensor_t *da,
                          const tileir_tensor_t *db, int32_t device, uint64_t stream);

/* out = gelu(x); approximate: 0 = exact (erf), 1 = tanh form (torch's approximate="none" /
   "tanh"). x, out: (M, N), one dtype (f16, bf16, f32), unit column stride, any row stride,
   16-byte aligned bases. out may be x. */
int32_t cutile_gelu(const tileir_tensor_t *x, const tileir_tensor_t *out, int32_t approximate,
                    int32_t device, uint64_t stream);

/* out[i] = x[i] / (1 - p) if uniform(seed, i) >= p else 0, uniform(seed, i) = the top 24 bits
   of a 32-bit hash of (i, seed) / 2^24 (stateless: the mask depends on seed and i only).
   x, out: 1-D, one dtype (f16, bf16, f32), one length; unit stride and 16-byte aligned bases
   (f32 also any non-negative stride). seed: any int32 (its uint32 bits); p in [0, 1].
   out may be x. */
int32_t cutile_dropout(const tileir_tensor_t *x, const tileir_tensor_t *out, int32_t seed, float p,
                       int32_t device, uint64_t stream);

/* out[r] = index of the first maximum of x[r, :] (ties: the smallest index, as torch). x: (M, N)
   f16, bf16 or f32, unit column stride, any non-negative row stride; out: (M,) int64, unit
   stride; 16-byte aligned bases; N >= 1 when M >= 1. out must not overlap x. */
int32_t cutile_argmax(const tileir_tensor_t *x, const tileir_tensor_t *out, int32_t device,
                      uint64_t stream);

/* lse[r] = logsumexp(logits[r, :]); loss[r] = lse[r] - logits[r, target[r]], or 0 where
   target[r] == -100 (ignored). logits: (M, V) f16, bf16 or f32, unit column stride, any
   non-negative row stride; target: (M,) int64; loss, lse: (M,) float32; unit strides, 16-byte
   aligned bases; V >= 1 when M >= 1. loss and lse must not overlap each other or the inputs.
   Targets are not range-checked (as in the reference kernel): one outside [0, V) other than
   -100 gets loss +inf when it falls in the -inf padding of the last 2048-column tile, else
   loss = lse; no memory is read with it. */
int32_t cutile_cross_entropy(const tileir_tensor_t *logits, const tileir_tensor_t *target,
                             const tileir_tensor_t *loss, const tileir_tensor_t *lse,
                             int32_t device, uint64_t stream);

/* out = cumsum(x, dim=-1), accumulated in float32. x, out: (M, N), one dtype (f16, bf16, f32),
   unit column stride, any non-negative row stride, 16-byte aligned bases. out may be x. */
int32_t cutile_cumsum(const tileir_tensor_t *x, const tileir_tensor_t *out, int32_t device,
                      uint64_t stream);

/* out[t, :] = weight[ids[t], :] (torch.nn.functional.embedding), a bit-exact row copy.
   ids: (T,) int32 or int64, unit stride; weight: (V, H) and out: (T, H), one dtype (f16, bf16,
   f32), unit column stride, row strides multiples of 16 bytes; 16-byte aligned bases. out
   must not overlap ids or weight. Prebuilt: f16 and f32 tables with int32 ids, bf16 with int32
   or int64 ids (others: NO_VARIANT). Ids are not range-checked, as in the reference kernels,
   and must lie in [0, V): an id >= V reads zeros in the gather kernel (T >= 64, bf16/f32 with
   int32 ids); otherwise an id outside [0, V) is undefined (the one-token-per-block kernel
   loads a tile outside the table). */
int32_t cutile_embedding(const tileir_tensor_t *ids, const tileir_tensor_t *weight,
                         const tileir_tensor_t *out, int32_t device, uint64_t stream);
/* y = x.T. x: (M, N) and y: (N, M), f16, bf16 or f32; or x: (B, M, N) and y: (B, N, M) (the last
   two axes swapped, batch of at most 65535), bf16. One dtype, unit last strides, leading strides
   multiples of 16 bytes, 16-byte aligned bases. y must not overlap x. */
int32_t cutile_transpose(const tileir_tensor_t *x, const tileir_tensor_t *y, int32_t device,
                         uint64_t stream);

/* Per-row fp8 quantization: scales[r] = max(max_c |x[r, c]|, 1e-12) / 448 and
   q[r, c] = clamp(x[r, c] / scales[r], -448, 448) rounded to float8_e4m3fn. x: (M, N) f16
   (N <= 1024) or bf16 (any N); q: (M, N) float8_e4m3fn; scales: (M,) float32. Unit last strides,
   row strides of x multiples of 8 elements and of q multiples of 16 bytes (8 where N is a multiple
   of 8), 16-byte aligned bases. No output may overlap x or the other output. */
int32_t cutile_fp8_quantize(const tileir_tensor_t *x, const tileir_tensor_t *q,
                            const tileir_tensor_t *scales, int32_t device, uint64_t stream);

/* out = (x - mean) * rstd * w + b over the last axis; mean[i] and rstd[i] = 1 / sqrt(var + eps)
   (biased variance) of row i. x, out: (M, N) with N <= 8192; w, b: (N,); mean, rstd: (M,)
   float32; x, w, b, out one dtype (f16, bf16, f32). Unit last strides, 16-byte aligned bases.
   out may be x; nothing else may overlap. eps: finite, >= 0. */
int32_t cutile_layer_norm(const tileir_tensor_t *x, const tileir_tensor_t *w, const tileir_tensor_t *b,
                          const tileir_tensor_t *out, const tileir_tensor_t *mean,
                          const tileir_tensor_t *rstd, float eps, int32_t device, uint64_t stream);

/* Backward of cutile_layer_norm for dy = dL/dout, one launch: dx (M, N), and dw_partial,
   db_partial (ceil(M / 64), N) float32 whose column sums are dL/dw and dL/db (the caller sums
   them; nothing is allocated). dy, x, dx: (M, N) with N <= 1024; w: (N,); mean, rstd: (M,)
   float32 as the forward wrote them; dy, x, w, dx one dtype (f16, bf16, f32). Unit last strides,
   16-byte aligned bases. No output may overlap an input or another output. */
int32_t cutile_layer_norm_bwd(const tileir_tensor_t *dy, const tileir_tensor_t *x,
                              const tileir_tensor_t *w, const tileir_tensor_t *mean,
                              const tileir_tensor_t *rstd, const tileir_tensor_t *dx,
                              const tileir_tensor_t *dw_partial, const tileir_tensor_t *db_partial,
                              int32_t device, uint64_t stream);

/* Rotary position embedding, out of place: q_out[t, h] = RoPE(q[t, h]), k_out[t, h] = RoPE(k[t, h])
   with the angles of table row positions[t]. positions (T,) int32; q, q_out (T, Hq, D) and
   k, k_out (T, Hkv, D), one dtype (f16, bf16), unit last stride, other strides multiples of 8;
   cos_table, sin_table (P, D/2) f32, unit last stride, row stride a multiple of 4; all 16-byte
   aligned. is_neox: 1 rotate-half pairs (GPT-NeoX, Llama), 0 interleaved (GPT-J). q_out may be
   q and k_out k (exactly); no other overlap (by byte range: in place on q, k viewing one fused
   QKV buffer is refused). Each position must be in [0, P) (device data,
   not checked). Variants: bf16 D=128 both pairings, f16 D=64 rotate-half. */
int32_t cutile_rope(const tileir_tensor_t *positions, const tileir_tensor_t *q, const tileir_tensor_t *k,
                    const tileir_tensor_t *cos_table, const tileir_tensor_t *sin_table,
                    const tileir_tensor_t *q_out, const tileir_tensor_t *k_out, int32_t is_neox,
                    int32_t device, uint64_t stream);

/* Flash attention forward (prefill): o[b, h] = softmax(q[b, h] @ k[b, h / G].T * sm_scale
   [+ causal mask]) @ v[b, h / G], G = Hq / Hkv. q, o (B, Hq, Sq, D) and k, v (B, Hkv, Sk, D),
   one dtype (f16, bf16), unit last stride, other strides multiples of 8, 16-byte aligned; o
   overlaps no input; sm_scale finite; Sk > 0. causal: 0/1, key j visible to query i iff
   j <= i (top-left, as SDPA is_causal). Variants: f16 D=64 G=1, bf16 D=128 G=1 causal,
   G=4 causal, G=8 non-causal. */
int32_t cutile_flash_attention(const tileir_tensor_t *q, const tileir_tensor_t *k, const tileir_tensor_t *v,
                               const tileir_tensor_t *o, float sm_scale, int32_t causal,
                               int32_t device, uint64_t stream);

/* Causal prefill attention with per-head sink logits (a key of value zero) and an optional
   sliding window: query i sees keys i - window < j <= i (window 0: every j <= i). q, o
   (B, Hq, S, D), k, v (B, Hkv, S, D) as for cutile_flash_attention; sinks (Hq,) f32,
   contiguous, 16-byte aligned. Variants: bf16 D=64 G=8 window 128 and 0, f16 D=128 G=1
   window 256. */
int32_t cutile_attention_sink(const tileir_tensor_t *q, const tileir_tensor_t *k, const tileir_tensor_t *v,
                              const tileir_tensor_t *sinks, const tileir_tensor_t *o, float sm_scale,
                              int32_t window, int32_t device, uint64_t stream);
/* c[z] = a[z] @ op(b[z]) for every batch z, f32 accumulation; f32 operands are rounded to tf32.
   a (B, M, K); b (B, K, N), or stored (B, N, K) with trans_b = 1; c (B, M, N); one dtype. Unit
   last strides, batch and row strides multiples of 16 bytes, 16-byte aligned bases, c's rows
   too (N a multiple of 8 at 16 bits, of 4 at f32); c must not overlap a or b. trans_b: 0 or 1.
   Variants: f16, bf16 and f32 (tf32), with and without trans_b; B <= 65535 (grid y). */
int32_t cutile_bmm(const tileir_tensor_t *a, const tileir_tensor_t *b, const tileir_tensor_t *c,
                   int32_t trans_b, int32_t device, uint64_t stream);

/* Split-K GEMM c = a @ b, two launches in order on `stream`: splitk_partial writes the S f32
   slabs partial[s] = a[:, K slice s] @ b[K slice s, :] (split s takes K tiles
   [s * per, min((s + 1) * per, k_tiles)) of 64, per = cdiv(k_tiles, S); an empty split writes
   zeros), then splitk_reduce writes c = the slabs' f32 sum cast once. a (M, K), b (K, N),
   c (M, N) one dtype (f16, bf16); partial (S, M, N) float32, scratch the caller passes (S >= 1,
   at most 65535). Unit last strides, 16-byte aligned bases, rows and slabs multiples of 16
   bytes; partial and c must not overlap each other, a or b. */
int32_t cutile_splitk_matmul(const tileir_tensor_t *a, const tileir_tensor_t *b,
                             const tileir_tensor_t *partial, const tileir_tensor_t *c, int32_t device,
                             uint64_t stream);
/* Split-KV decode attention, two kernels launched in order on `stream`: flash_decode_partial
   writes each split's normalised output and base-2 log-sum-exp into the caller's scratch
   partial_o (B, Hq, S, D) and partial_lse (B, Hq, S), float32; flash_decode_combine merges them
   into o (B, Hq, D). q (B, Hq, D), k, v (B, Hkv, Smax, D) and o share one dtype; seq_lens (B,)
   int32, each in [1, Smax] (device data, not checked). Hq a multiple of Hkv; 1 <= S <= 16. Unit
   last strides; the other strides of q, k, v, o multiples of 8 elements, of partial_o of 4; all
   16-byte aligned but partial_lse (4). The outputs overlap nothing. Variants: bf16 D=128 with
   Hq/Hkv 1 or 4, f16 D=64 with Hq/Hkv 8. */
int32_t cutile_flash_decode(const tileir_tensor_t *q, const tileir_tensor_t *k, const tileir_tensor_t *v,
                            const tileir_tensor_t *seq_lens, const tileir_tensor_t *partial_o,
                            const tileir_tensor_t *partial_lse, const tileir_tensor_t *o, float sm_scale,
                            int32_t device, uint64_t stream);

/* vLLM's moe_align_block_size, two single-block kernels launched in order on `stream`:
   moe_align_histogram writes expert_counts (E,), the block_m-padded segment starts
   expert_offsets (E + 1,), the expert of every block_m block expert_ids (NB,; -1 past the
   total) and num_tokens_post_padded (1,); moe_align_sort then writes sorted_token_ids (EM,),
   the flat ids of topk_ids (N,) grouped by expert in ascending order, segments padded with the
   sentinel N. All int32, contiguous, 4-byte aligned, none overlapping another; EM >=
   N + E*(block_m - 1), NB >= ceil((N + E*(block_m - 1)) / block_m). Ids in [0, E) (device data,
   not checked). Variants: block_m 64 with E <= 127, block_m 16 with E <= 255. */
int32_t cutile_moe_align_block_size(const tileir_tensor_t *topk_ids, const tileir_tensor_t *expert_counts,
                                    const tileir_tensor_t *expert_offsets, const tileir_tensor_t *expert_ids,
                                    const tileir_tensor_t *num_tokens_post_padded,
                                    const tileir_tensor_t *sorted_token_ids, int32_t block_m, int32_t device,
                                    uint64_t stream);

/* The same alignment by the parallel pair, one block per 256 ids: moe_align_count writes each
   tile's per-expert counts into the caller's scratch tile_counts (int32, (ceil(N / 256), E) or
   more rows with contiguous rows of E, or 1-D contiguous of at least ceil(N / 256) * E elements;
   overlapping no other array), then moe_align_place writes
   every output above; both launched in order on `stream`. Arrays, ids and variants as for
   cutile_moe_align_block_size. */
int32_t cutile_moe_align_block_size_tiled(const tileir_tensor_t *topk_ids, const tileir_tensor_t *expert_counts,
                                          const tileir_tensor_t *expert_offsets, const tileir_tensor_t *expert_ids,
                                          const tileir_tensor_t *num_tokens_post_padded,
                                          const tileir_tensor_t *sorted_token_ids, const tileir_tensor_t *tile_counts,
                                          int32_t block_m, int32_t device, uint64_t stream);

/* Grouped GEMM: c[o[g]:o[g+1]] = a[o[g]:o[g+1]] @ op(w[g]) for g < G, with offsets o (G + 1,)
   int32 on the device (not read by the library: offsets[0] = 0 <= ... <= offsets[G] <= T is the
   caller's contract; the selected sliced kernels trust it, and out-of-range offsets read and
   write outside a and c). a (T, K), c (T, N); w (G, K, N), or (G, N, K) with trans_w = 1
   (nn.Linear / MoE expert layout). One dtype: bf16, or f16 with trans_w = 1. Unit last strides,
   leading strides multiples of 8 elements, 16-byte aligned bases, bf16 c's rows too (N a
   multiple of 8); c must not overlap a, w or offsets. Rows of c in no group are not written. At
   most 65535 row tiles (cdiv(T, BM) + G). */
int32_t cutile_group_gemm(const tileir_tensor_t *a, const tileir_tensor_t *w, const tileir_tensor_t *offsets,
                          const tileir_tensor_t *c, int32_t trans_w, int32_t device, uint64_t stream);

/* Fused MoE expert GEMM on the moe_align_block_size layout: out[id] = hidden[id / TOPK] @ w[e].T
   (* topk_weights[id] when mul_routed_weight) for the routed rows id = token * TOPK + k, e the
   expert of id's block_m-row block. hidden (T, K), w (E, N, K), out (T * TOPK, N), one dtype;
   sorted_token_ids (EM,), expert_ids (cdiv(EM, block_m),), num_tokens_post_padded (1,) int32
   and topk_weights (T * TOPK,) f32, contiguous. Unit last strides, leading strides multiples of
   8, 16-byte bases (sorted_token_ids too). out must not overlap any input. One kernel on the
   caller's stream; the routing arrays are the caller's (device data, not checked: ids >= T * TOPK
   are padding). Variants: bf16 block_m 64 TOPK 2 with and without the scale, f16 block_m 16
   TOPK 8 with it. */
int32_t cutile_fused_moe(const tileir_tensor_t *hidden, const tileir_tensor_t *w,
                         const tileir_tensor_t *sorted_token_ids, const tileir_tensor_t *expert_ids,
                         const tileir_tensor_t *num_tokens_post_padded, const tileir_tensor_t *topk_weights,
                         const tileir_tensor_t *out, int32_t mul_routed_weight, int32_t block_m,
                         int32_t device, uint64_t stream);

#ifdef __cplusplus
}
#endif

#endif /* TILEIR_KERNELS_H */
