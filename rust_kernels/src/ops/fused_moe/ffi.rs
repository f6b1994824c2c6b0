//! C ABI: `cutile_fused_moe` (todo).
