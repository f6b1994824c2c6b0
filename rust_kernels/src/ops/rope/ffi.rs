//! C ABI: `cutile_rope(positions, q, k, cos_table, sin_table, q_out, k_out, is_neox, device, stream)`.

use super::{OP, choose, is_neox_of};
use crate::descriptor::{DType, TileirTensor, read};
use crate::launch::{Value, blocks, check_device_id, run};
use crate::status::{Error, Status, fail, guard};
use crate::variant::{check_disjoint, check_in_place, check_rank, check_same_dtype, pick};

/// q_out[t, h] = RoPE(q[t, h]) and k_out[t, h] = RoPE(k[t, h]) with the angles of table row
/// positions[t]: positions (T,) int32; q, q_out (T, Hq, D) and k, k_out (T, Hkv, D) of one dtype
/// (float16 or bfloat16) with unit last stride and the other strides multiples of 8 elements;
/// cos_table, sin_table (P, D/2) float32 with unit last stride and the row stride a multiple of
/// 4; all 16-byte aligned. is_neox: 1 rotate-half pairs (GPT-NeoX, Llama), 0 interleaved
/// (GPT-J). q_out may be exactly q and k_out exactly k; outputs overlap nothing else, judged
/// by byte range (so an in-place call on q and k viewing one fused QKV buffer is refused).
/// Positions are device data and not checked here: each must be in [0, P), the rows the
/// caller's tables hold, as for the reference kernel (whether the gather view masks a
/// position outside the table is not established here; do not rely on it).
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cutile_rope(
    positions: *const TileirTensor,
    q: *const TileirTensor,
    k: *const TileirTensor,
    cos_table: *const TileirTensor,
    sin_table: *const TileirTensor,
    q_out: *const TileirTensor,
    k_out: *const TileirTensor,
    is_neox: i32,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (positions, q, k, cos_table, sin_table, q_out, k_out) = unsafe {
            (
                read(positions, "positions")?,
                read(q, "q")?,
                read(k, "k")?,
                read(cos_table, "cos_table")?,
                read(sin_table, "sin_table")?,
                read(q_out, "q_out")?,
                read(k_out, "k_out")?,
            )
        };
        check_device_id(device)?;
        if !(0..=1).contains(&is_neox) {
            return fail(Status::InvalidArgument, format!("is_neox = {is_neox} must be 0 or 1"));
        }
        check_rank(&[&positions], 1)?;
        check_rank(&[&q, &k, &q_out, &k_out], 3)?;
        check_rank(&[&cos_table, &sin_table], 2)?;
        let (t, d) = (q.shape[0], q.shape[2]);
        if positions.shape[0] != t
            || k.shape[0] != t
            || k.shape[2] != d
            || q_out.dims() != q.dims()
            || k_out.dims() != k.dims()
            || cos_table.dims() != sin_table.dims()
            || 2 * cos_table.shape[1] != d
        {
            return fail(
                Status::ShapeMismatch,
                format!(
                    "need positions (T,), q and q_out (T, Hq, D), k and k_out (T, Hkv, D), cos_table and sin_table \
                     (P, D/2); got positions {:?}, q {:?}, k {:?}, cos_table {:?}, sin_table {:?}, q_out {:?}, k_out {:?}",
                    positions.dims(),
                    q.dims(),
                    k.dims(),
                    cos_table.dims(),
                    sin_table.dims(),
                    q_out.dims(),
                    k_out.dims()
                ),
            );
        }
        if positions.dtype != DType::I32 {
            return fail(
                Status::UnsupportedDtype,
                format!("positions: rope takes int32 positions, got {}", positions.dtype.torch_name()),
            );
        }
        check_same_dtype(&[&q, &k, &q_out, &k_out])?;
        if !matches!(q.dtype, DType::F16 | DType::BF16) {
            return fail(
                Status::UnsupportedDtype,
                format!("q: rope takes float16 or bfloat16, got {}", q.dtype.torch_name()),
            );
        }
        check_same_dtype(&[&cos_table, &sin_table])?;
        if cos_table.dtype != DType::F32 {
            return fail(
                Status::UnsupportedDtype,
                format!("cos_table: rope takes float32 tables, got {}", cos_table.dtype.torch_name()),
            );
        }
        // Each block reads only the (token, head) tiles it writes: exactly in place is safe.
        check_in_place(&q_out, &q)?;
        check_in_place(&k_out, &k)?;
        check_disjoint(&q_out, &k_out)?;
        for input in [&positions, &cos_table, &sin_table] {
            check_disjoint(&q_out, input)?;
            check_disjoint(&k_out, input)?;
        }
        check_disjoint(&q_out, &k)?;
        check_disjoint(&k_out, &q)?;
        let tensors = [&positions, &q, &k, &cos_table, &sin_table, &q_out, &k_out];
        let v = pick(OP, &["rope", "rope_neox_split", "rope_o8", "rope_neox_split_o8"], &tensors, || {
            choose(q.dtype, d, is_neox == 1).ok_or_else(|| {
                Error::new(
                    Status::NoVariant,
                    format!("no prebuilt rope for {} with head dim {d} and is_neox = {is_neox}", q.dtype.torch_name()),
                )
            })
        })?;
        // A forced variant must compute what was asked: the pairing and the head dim are its constants.
        if is_neox_of(v) != is_neox as i64 || v.constant("D") != d {
            return fail(
                Status::InvalidArgument,
                format!("variant {} is for is_neox = {}, D = {}", v.name, is_neox_of(v), v.constant("D")),
            );
        }
        let grid = (blocks(t, v.constant("BT"))?, 1, 1);
        let values = tensors.map(Value::Tensor);
        run(v, &values, grid, device, stream)
    })
}
