//! C ABI: `cutile_fp8_quantize(x, q, scales, device, stream)`.

use super::{BF16_LOOPED_M1_N2048, ENTRIES, OP, candidates};
use crate::descriptor::{DType, TileirTensor, read};
use crate::launch::{Value, blocks, check_device_id, run};
use crate::status::{Error, Status, fail, guard};
use crate::variant::{check_disjoint, check_rank, check_rows_have_columns, pick, select};

/// Per-row fp8 quantization: scales[r] = max(max_c |x[r, c]|, 1e-12) / 448 and
/// q = clamp(x / scales[r], -448, 448) rounded to float8_e4m3fn. x: (M, N) f16 (N <= 1024) or
/// bf16 (any N); q: (M, N) float8_e4m3fn; scales: (M,) float32. Unit last strides, row
/// strides of x multiples of 8 elements and of q multiples of 16 bytes, 16-byte aligned bases.
/// No output may overlap x or the other output.
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_fp8_quantize(
    x: *const TileirTensor,
    q: *const TileirTensor,
    scales: *const TileirTensor,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (x, q, scales) = unsafe { (read(x, "x")?, read(q, "q")?, read(scales, "scales")?) };
        check_device_id(device)?;
        check_rank(&[&x, &q], 2)?;
        check_rank(&[&scales], 1)?;
        let (m, n) = (x.shape[0], x.shape[1]);
        if q.dims() != x.dims() || scales.shape[0] != m {
            return fail(
                Status::ShapeMismatch,
                format!("need x (M, N), q (M, N), scales (M,); got x {:?}, q {:?}, scales {:?}", x.dims(), q.dims(), scales.dims()),
            );
        }
        check_rows_have_columns(&x, "absmax")?;
        for (t, want) in [(&q, DType::F8E4M3FN), (&scales, DType::F32)] {
            if t.dtype != want {
                return fail(
                    Status::UnsupportedDtype,
                    format!("{} must be {}, got {}", t.name, want.torch_name(), t.dtype.torch_name()),
                );
            }
        }
        // Blocks read all of their rows before writing them, but a q or scales element on top of
        // x could be another block's row.
        check_disjoint(&q, &x)?;
        check_disjoint(&scales, &x)?;
        check_disjoint(&scales, &q)?;
        let tensors = [&x, &q, &scales];
        let v = pick(OP, ENTRIES, &tensors, || match (x.dtype, candidates(x.dtype, m, n)) {
            (DType::F16, []) => Err(Error::new(
                Status::UnsupportedShape,
                format!("x: f16 rows of {n} columns exceed the f16 variants' tile of 1024 (no looped f16 variant)"),
            )),
            (_, []) => Err(Error::new(Status::UnsupportedDtype, format!("x: no fp8_quantize variant for {}", x.dtype.torch_name()))),
            (_, list) => select(list, &tensors),
        })?;
        // fp8_quant_rows holds a whole row in one tile: a longer row would be silently truncated.
        if v.entry != BF16_LOOPED_M1_N2048.entry && n > v.constant("TILE_N") {
            return fail(
                Status::UnsupportedShape,
                format!("{}: rows of {n} columns exceed its tile of {}", v.name, v.constant("TILE_N")),
            );
        }
        let grid = (blocks(m, v.constant("TILE_M"))?, 1, 1);
        run(v, &[Value::Tensor(&x), Value::Tensor(&q), Value::Tensor(&scales)], grid, device, stream)
    })
}
