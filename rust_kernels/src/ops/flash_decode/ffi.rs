//! C ABI: `cutile_flash_decode(q, k, v, seq_lens, partial_o, partial_lse, o, sm_scale, device, stream)`.

use super::{choose_combine, choose_partial, COMBINE_ENTRIES, OP, PARTIAL_ENTRIES};
use crate::descriptor::{read, DType, TileirTensor};
use crate::launch::{blocks, blocks_yz, check_device_id, run, Value};
use crate::status::{fail, guard, Error, Status};
use crate::variant::{check_disjoint, check_rank, check_same_dtype, pick_stage, record_selected};

/// Decode attention o[b, h] = softmax(q[b, h] · k[b, h / G, :len_b]ᵀ · sm_scale) · v[b, h / G, :len_b]
/// with len_b = seq_lens[b] and G = Hq / Hkv query heads per kv head, in two kernels launched in
/// order on `stream`: flash_decode_partial (grid (S, B·Hkv)) writes each split's normalised
/// output and base-2 log-sum-exp into the caller's scratch partial_o (B, Hq, S, D) and
/// partial_lse (B, Hq, S), both float32; flash_decode_combine (grid (B·Hq)) merges them into o.
/// q (B, Hq, D), k and v (B, Hkv, Smax, D), o (B, Hq, D) share one 16-bit dtype; seq_lens (B,)
/// int32. Unit last strides; the other strides of q, k, v, o multiples of 8 elements, of
/// partial_o multiples of 4; q, k, v, o, partial_o, seq_lens 16-byte aligned, partial_lse
/// 4-byte aligned. 1 <= S <= 16. The outputs (partial_o, partial_lse, o) overlap nothing.
/// Prebuilt: bfloat16 D = 128 with G = 1 or 4, float16 D = 64 with G = 8 (else NO_VARIANT).
///
/// seq_lens is device data and not checked here: each must be in [1, Smax], as for the
/// reference kernels (a length 0 makes every split empty and o NaN; a length past Smax reads the
/// zero padding of k and v as keys).
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cutile_flash_decode(
    q: *const TileirTensor,
    k: *const TileirTensor,
    v: *const TileirTensor,
    seq_lens: *const TileirTensor,
    partial_o: *const TileirTensor,
    partial_lse: *const TileirTensor,
    o: *const TileirTensor,
    sm_scale: f32,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (q, k, v, seq_lens, partial_o, partial_lse, o) = unsafe {
            (
                read(q, "q")?,
                read(k, "k")?,
                read(v, "v")?,
                read(seq_lens, "seq_lens")?,
                read(partial_o, "partial_o")?,
                read(partial_lse, "partial_lse")?,
                read(o, "o")?,
            )
        };
        check_device_id(device)?;
        if !sm_scale.is_finite() {
            return fail(Status::InvalidArgument, format!("sm_scale = {sm_scale} must be finite"));
        }
        check_rank(&[&q, &o, &partial_lse], 3)?;
        check_rank(&[&k, &v, &partial_o], 4)?;
        check_rank(&[&seq_lens], 1)?;
        let (b, hq, d) = (q.shape[0], q.shape[1], q.shape[2]);
        let (hkv, smax, s) = (k.shape[1], k.shape[2], partial_lse.shape[2]);
        if k.dims() != [b, hkv, smax, d]
            || v.dims() != k.dims()
            || seq_lens.dims() != [b]
            || partial_o.dims() != [b, hq, s, d]
            || partial_lse.dims() != [b, hq, s]
            || o.dims() != [b, hq, d]
        {
            return fail(
                Status::ShapeMismatch,
                format!(
                    "need q (B, Hq, D), k and v (B, Hkv, Smax, D), seq_lens (B,), partial_o (B, Hq, S, D), \
                     partial_lse (B, Hq, S), o (B, Hq, D); got q {:?}, k {:?}, v {:?}, seq_lens {:?}, partial_o {:?}, \
                     partial_lse {:?}, o {:?}",
                    q.dims(),
                    k.dims(),
                    v.dims(),
                    seq_lens.dims(),
                    partial_o.dims(),
                    partial_lse.dims(),
                    o.dims()
                ),
            );
        }
        if hkv == 0 || hq % hkv != 0 {
            return fail(
                Status::ShapeMismatch,
                format!("Hq = {hq} query heads must be a multiple of Hkv = {hkv} kv heads"),
            );
        }
        check_same_dtype(&[&q, &k, &v, &o])?;
        if !matches!(q.dtype, DType::F16 | DType::BF16) {
            return fail(
                Status::UnsupportedDtype,
                format!("q: flash_decode takes float16 or bfloat16, got {}", q.dtype.torch_name()),
            );
        }
        if seq_lens.dtype != DType::I32 {
            return fail(
                Status::UnsupportedDtype,
                format!("seq_lens: flash_decode takes int32 lengths, got {}", seq_lens.dtype.torch_name()),
            );
        }
        check_same_dtype(&[&partial_o, &partial_lse])?;
        if partial_o.dtype != DType::F32 {
            return fail(
                Status::UnsupportedDtype,
                format!("partial_o: the partials are float32, got {}", partial_o.dtype.torch_name()),
            );
        }
        if b > 0 && hq > 0 && (s == 0 || smax == 0) {
            return fail(
                Status::UnsupportedShape,
                format!("S = {s} splits and Smax = {smax} keys: each sequence needs at least one of both"),
            );
        }
        // Every block of both kernels reads q, k, v, seq_lens and (combine) the partials of others.
        for out in [&partial_o, &partial_lse, &o] {
            for input in [&q, &k, &v, &seq_lens] {
                check_disjoint(out, input)?;
            }
        }
        check_disjoint(&partial_o, &partial_lse)?;
        check_disjoint(&o, &partial_o)?;
        check_disjoint(&o, &partial_lse)?;
        let group = hq / hkv;
        let partial_tensors = [&q, &k, &v, &seq_lens, &partial_o, &partial_lse];
        let partial = pick_stage(OP, &PARTIAL_ENTRIES, &partial_tensors, || {
            choose_partial(q.dtype, d, group).ok_or_else(|| {
                Error::new(
                    Status::NoVariant,
                    format!(
                        "no prebuilt flash_decode_partial for {} with head dim {d} and {group} query heads per kv head",
                        q.dtype.torch_name()
                    ),
                )
            })
        })?;
        let combine_tensors = [&partial_o, &partial_lse, &o];
        let combine = pick_stage(OP, &COMBINE_ENTRIES, &combine_tensors, || {
            choose_combine(q.dtype, d, s).ok_or_else(|| {
                Error::new(
                    Status::NoVariant,
                    format!(
                        "no prebuilt flash_decode_combine for {} with head dim {d} merging S = {s} splits",
                        q.dtype.torch_name()
                    ),
                )
            })
        })?;
        // A forced variant must compute what was asked: head dim, group and split count are its constants.
        if partial.constant("D") != d || partial.constant("QUERY_GROUP") != group {
            return fail(
                Status::InvalidArgument,
                format!(
                    "variant {} is for D = {}, {} query heads per kv head; the call has D = {d}, {group}",
                    partial.name,
                    partial.constant("D"),
                    partial.constant("QUERY_GROUP")
                ),
            );
        }
        if combine.constant("D") != d || s > combine.constant("MAX_SPLITS") {
            return fail(
                Status::InvalidArgument,
                format!(
                    "variant {} is for D = {} and at most {} splits; the call has D = {d}, S = {s}",
                    combine.name,
                    combine.constant("D"),
                    combine.constant("MAX_SPLITS")
                ),
            );
        }
        record_selected(&[partial, combine]);
        if o.numel() == 0 {
            return Ok(());
        }
        let partial_grid = (blocks(s, 1)?, blocks_yz(b * hkv, 1)?, 1);
        let combine_grid = (blocks(b * hq, 1)?, 1, 1);
        let mut partial_values = partial_tensors.map(Value::Tensor).to_vec();
        partial_values.push(Value::F32(sm_scale));
        run(partial, &partial_values, partial_grid, device, stream)?;
        run(combine, &combine_tensors.map(Value::Tensor), combine_grid, device, stream)
    })
}
