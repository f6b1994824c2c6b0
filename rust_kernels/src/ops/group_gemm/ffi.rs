//! C ABI: `cutile_group_gemm` (todo).
