//! C ABI: `cutile_flash_attention(q, k, v, o, sm_scale, causal, device, stream)`, and the
//! checks it shares with `cutile_attention_sink`.

use super::{ENTRIES, OP, choose};
use crate::descriptor::{DType, Tensor, TileirTensor, read};
use crate::launch::{Value, blocks, blocks_yz, check_device_id, run};
use crate::status::{Error, Result, Status, fail, guard};
use crate::variant::{Variant, check_disjoint, check_rank, check_same_dtype, pick};

/// The shape of one attention call: q (B, Hq, Sq, D), k and v (B, Hkv, Sk, D).
pub struct Heads {
    pub batch: i64,
    pub q_heads: i64,
    pub seq_q: i64,
    pub seq_k: i64,
    pub head_dim: i64,
    /// Hq / Hkv: query head h reads kv head h / group.
    pub group: i64,
}

/// Checks shared by the attention ops (`op` names the caller in messages): ranks, the (B, H, S, D) shapes of q, k, v and o (o like
/// q, Hq a multiple of Hkv), one 16-bit float dtype, a finite sm_scale, at least one key when
/// there are queries, and o overlapping no input (every block reads all of its head's k and v).
pub fn check_heads(op: &str, q: &Tensor, k: &Tensor, v: &Tensor, o: &Tensor, sm_scale: f32) -> Result<Heads> {
    check_rank(&[q, k, v, o], 4)?;
    let (batch, q_heads, seq_q, head_dim) = (q.shape[0], q.shape[1], q.shape[2], q.shape[3]);
    let (kv_heads, seq_k) = (k.shape[1], k.shape[2]);
    if k.shape[0] != batch || k.shape[3] != head_dim || v.dims() != k.dims() || o.dims() != q.dims() {
        return fail(
            Status::ShapeMismatch,
            format!(
                "need q and o (B, Hq, Sq, D), k and v (B, Hkv, Sk, D); got q {:?}, k {:?}, v {:?}, o {:?}",
                q.dims(),
                k.dims(),
                v.dims(),
                o.dims()
            ),
        );
    }
    if kv_heads == 0 || q_heads % kv_heads != 0 {
        return fail(
            Status::ShapeMismatch,
            format!("q has {q_heads} heads, k and v {kv_heads}: Hq must be a multiple of Hkv > 0"),
        );
    }
    check_same_dtype(&[q, k, v, o])?;
    if !matches!(q.dtype, DType::F16 | DType::BF16) {
        return fail(
            Status::UnsupportedDtype,
            format!("q: {op} takes float16 or bfloat16, got {}", q.dtype.torch_name()),
        );
    }
    if !sm_scale.is_finite() {
        return fail(Status::InvalidArgument, format!("sm_scale = {sm_scale} must be finite"));
    }
    if seq_k == 0 && o.numel() > 0 {
        return fail(Status::UnsupportedShape, "k and v have no keys: the softmax of an empty row is undefined");
    }
    for input in [q, k, v] {
        check_disjoint(o, input)?;
    }
    Ok(Heads { batch, q_heads, seq_q, seq_k, head_dim, group: q_heads / kv_heads })
}

/// A forced variant must compute what was asked: its constant `name` must be `value`.
pub fn check_constant(v: &Variant, name: &str, value: i64) -> Result<()> {
    if v.constant(name) != value {
        return fail(
            Status::InvalidArgument,
            format!("variant {} is for {name} = {}, this call needs {value}", v.name, v.constant(name)),
        );
    }
    Ok(())
}

/// One block per BM query rows of one (batch, head): (cdiv(Sq, BM), B * Hq, 1).
pub fn attention_grid(v: &Variant, heads: &Heads) -> Result<(u32, u32, u32)> {
    let rows = heads.batch.checked_mul(heads.q_heads).unwrap_or(i64::MAX);
    Ok((blocks(heads.seq_q, v.constant("BM"))?, blocks_yz(rows, 1)?, 1))
}

/// o[b, h] = softmax(q[b, h] @ k[b, h / G].T * sm_scale [+ causal mask]) @ v[b, h / G] with
/// G = Hq / Hkv: q, o (B, Hq, Sq, D) and k, v (B, Hkv, Sk, D) of one dtype (float16 or
/// bfloat16), unit last stride, the other strides multiples of 8 elements, 16-byte aligned; o
/// overlaps no input. causal (0/1): key j is visible to query i iff j <= i (top-left aligned,
/// as torch SDPA's is_causal). The (dtype, D, G, causal) combination must be one a variant is
/// built for (NO_VARIANT otherwise).
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cutile_flash_attention(
    q: *const TileirTensor,
    k: *const TileirTensor,
    v: *const TileirTensor,
    o: *const TileirTensor,
    sm_scale: f32,
    causal: i32,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (q, k, v, o) = unsafe { (read(q, "q")?, read(k, "k")?, read(v, "v")?, read(o, "o")?) };
        check_device_id(device)?;
        if !(0..=1).contains(&causal) {
            return fail(Status::InvalidArgument, format!("causal = {causal} must be 0 or 1"));
        }
        let heads = check_heads(OP, &q, &k, &v, &o, sm_scale)?;
        let tensors = [&q, &k, &v, &o];
        let variant = pick(OP, &ENTRIES, &tensors, || {
            choose(q.dtype, heads.head_dim, heads.group, causal == 1).ok_or_else(|| {
                Error::new(
                    Status::NoVariant,
                    format!(
                        "no prebuilt {OP} for {} with head dim {}, query group {} and causal = {causal}",
                        q.dtype.torch_name(),
                        heads.head_dim,
                        heads.group
                    ),
                )
            })
        })?;
        check_constant(variant, "D", heads.head_dim)?;
        check_constant(variant, "QUERY_GROUP", heads.group)?;
        check_constant(variant, "CAUSAL", causal as i64)?;
        let grid = attention_grid(variant, &heads)?;
        let values = [Value::Tensor(&q), Value::Tensor(&k), Value::Tensor(&v), Value::Tensor(&o), Value::F32(sm_scale)];
        run(variant, &values, grid, device, stream)
    })
}
