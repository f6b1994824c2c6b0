//! One module per operator: `kernel.rs` (the cuTile Rust port), `ffi.rs` (its C entry),
//! and the variant table in `mod.rs`.

pub mod matmul;
pub mod rms_norm;
pub mod softmax;
pub mod vector_add;

use crate::variant::Variant;

/// Every variant of every op, in a stable order.
pub fn all_variants() -> Vec<&'static Variant> {
    let tables: [&[&'static Variant]; 4] =
        [vector_add::VARIANTS, softmax::VARIANTS, rms_norm::VARIANTS, matmul::VARIANTS];
    tables.iter().flat_map(|t| t.iter().copied()).collect()
}

pub fn find(op: &str, variant: &str) -> Option<&'static Variant> {
    all_variants().into_iter().find(|v| v.op == op && v.name == variant)
}
