//! The fused_moe port is the entry `fused_moe` of group_gemm's cuTile module
//! (src/ops/group_gemm/kernel.rs): both kernels gather A rows and write C with the same masked
//! row scatter, so they share one module (`scatter_rows`, `weight_tiles`, `row_stride`).

pub use crate::ops::group_gemm::kernel::group_gemm_kernel;
