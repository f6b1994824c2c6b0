//! C ABI: `cutile_softmax(x, out, device, stream)`.

use super::{ONLINE_ENTRIES, OP, ROW_ENTRIES, candidates};
use crate::descriptor::{TileirTensor, read};
use crate::launch::{Value, blocks, check_device_id, run};
use crate::status::{Status, fail, guard};
use crate::variant::{check_in_place, check_rank, check_same_dtype, check_same_shape, pick, select};

/// out = softmax(x) along the last axis; x, out: (M, N), one dtype (f16, bf16, f32), unit
/// column stride, any non-negative row stride, 16-byte aligned. out may be x (in place).
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_softmax(
    x: *const TileirTensor,
    out: *const TileirTensor,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (x, out) = unsafe { (read(x, "x")?, read(out, "out")?) };
        check_device_id(device)?;
        check_rank(&[&x, &out], 2)?;
        check_same_shape(&[&x, &out])?;
        check_same_dtype(&[&x, &out])?;
        check_in_place(&out, &x)?;
        let tensors = [&x, &out];
        let entries = [&ROW_ENTRIES[..], &ONLINE_ENTRIES[..]].concat();
        let v = pick(OP, &entries, &tensors, || select(&candidates(x.dtype, x.shape[0], x.shape[1]), &tensors))?;
        let online = ONLINE_ENTRIES.contains(&v.entry);
        // softmax_row holds a whole row in one tile: a longer row would be silently truncated.
        if !online && x.shape[1] > v.constant("TILE_N") {
            return fail(
                Status::UnsupportedShape,
                format!("{}: rows of {} columns exceed its tile of {}", v.name, x.shape[1], v.constant("TILE_N")),
            );
        }
        if out.numel() == 0 {
            return Ok(());
        }
        // softmax_row covers TILE_M rows per block, softmax_online one row per block.
        let rows_per_block = if online { 1 } else { v.constant("TILE_M") };
        let grid = (blocks(x.shape[0], rows_per_block)?, 1, 1);
        run(v, &[Value::Tensor(&x), Value::Tensor(&out)], grid, device, stream)
    })
}
