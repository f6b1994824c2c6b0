//! C ABI: `cutile_attention_sink(q, k, v, sinks, o, sm_scale, window, device, stream)`.

use super::{OP, choose};
use crate::descriptor::{DType, TileirTensor, read};
use crate::launch::{Value, check_device_id, run};
use crate::ops::flash_attention::ffi::{attention_grid, check_constant, check_heads};
use crate::status::{Error, Status, fail, guard};
use crate::variant::{check_disjoint, check_rank, pick};

/// o[b, h] = softmax over [q[b, h] @ k[b, h / G].T * sm_scale (causal, windowed), sinks[h]]
/// of [v[b, h / G], 0], G = Hq / Hkv: q, o (B, Hq, S, D), k, v (B, Hkv, S, D) of one dtype
/// (float16 or bfloat16), unit last stride, the other strides multiples of 8 elements,
/// 16-byte aligned; sinks (Hq,) float32, contiguous, 16-byte aligned; o overlaps no input.
/// window >= 0: query i sees keys j with i - window < j <= i (0: every j <= i). The
/// (dtype, D, G, window) combination must be one a variant is built for (NO_VARIANT otherwise).
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cutile_attention_sink(
    q: *const TileirTensor,
    k: *const TileirTensor,
    v: *const TileirTensor,
    sinks: *const TileirTensor,
    o: *const TileirTensor,
    sm_scale: f32,
    window: i32,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (q, k, v, sinks, o) =
            unsafe { (read(q, "q")?, read(k, "k")?, read(v, "v")?, read(sinks, "sinks")?, read(o, "o")?) };
        check_device_id(device)?;
        if window < 0 {
            return fail(Status::InvalidArgument, format!("window = {window} must be >= 0 (0: no window)"));
        }
        let heads = check_heads(OP, &q, &k, &v, &o, sm_scale)?;
        check_rank(&[&sinks], 1)?;
        if heads.seq_k != heads.seq_q || sinks.shape[0] != heads.q_heads {
            return fail(
                Status::ShapeMismatch,
                format!(
                    "need k and v with the S = {} keys of q and sinks (Hq,) = ({},); got k {:?}, sinks {:?}",
                    heads.seq_q,
                    heads.q_heads,
                    k.dims(),
                    sinks.dims()
                ),
            );
        }
        if sinks.dtype != DType::F32 {
            return fail(
                Status::UnsupportedDtype,
                format!("sinks: {OP} takes float32 sink logits, got {}", sinks.dtype.torch_name()),
            );
        }
        check_disjoint(&o, &sinks)?;
        let tensors = [&q, &k, &v, &sinks, &o];
        let variant = pick(OP, &["attention_sink"], &tensors, || {
            choose(q.dtype, heads.head_dim, heads.group, window as i64).ok_or_else(|| {
                Error::new(
                    Status::NoVariant,
                    format!(
                        "no prebuilt {OP} for {} with head dim {}, query group {} and window {window}",
                        q.dtype.torch_name(),
                        heads.head_dim,
                        heads.group
                    ),
                )
            })
        })?;
        check_constant(variant, "D", heads.head_dim)?;
        check_constant(variant, "QUERY_GROUP", heads.group)?;
        check_constant(variant, "WINDOW", window as i64)?;
        let grid = attention_grid(variant, &heads)?;
        let values = [
            Value::Tensor(&q),
            Value::Tensor(&k),
            Value::Tensor(&v),
            Value::Tensor(&sinks),
            Value::Tensor(&o),
            Value::F32(sm_scale),
        ];
        run(variant, &values, grid, device, stream)
    })
}
