"""The cuTile Rust ports (rust_kernels/) from Python: a ctypes binding of libtileir_kernels.so.

    from tileir_diff import ports
    ports.matmul(a, b, c)                       # torch CUDA tensors; current stream
    ports.rms_norm(x, w, out, rstd, eps=1e-6)
    ports.gelu(x, out, approximate="tanh")

The ported ops and their C functions are listed once, in tileir_diff.ports.registry (FUNCTIONS).

Each call validates in the library (shapes, dtypes, strides, alignment, device) and raises a
PortError subclass per return code (ShapeMismatchError, BadStrideError, ... — argument errors
are also ValueError/TypeError). Build the library with rust_kernels/build_ports.sh; see
docs/rust_ports.md. torch is imported only to read the current CUDA stream.
"""
import contextlib

from tileir_diff.ports._abi import (
    ABI_VERSION, DTYPE_CODES, BadRankError, BadStrideError, DeviceMismatchError, DriverError,
    DriverUnavailableError, InvalidArgumentError, InvalidDeviceError, InvalidShapeError, KernelImageMissingError,
    LaunchFailedError, LibraryNotFoundError, MisalignedError, NoVariantError, NullPointerError, OutOfBoundsError,
    PortError, ShapeMismatchError, Status, TileirTensor, UnsupportedDtypeError, UnsupportedShapeError, check, descriptor,
    library_candidates, load_library,
)
from tileir_diff.ports.registry import FUNCTIONS, PORTED_OPS, PortFunction, function_for, wrapper_kwargs
from tileir_diff.ports.torch_ops import (
    RMS_NORM_BWD_ROWS_PER_BLOCK, dropout, gelu, matmul, matmul_fp8, rms_norm, rms_norm_bwd, rope, silu_and_mul,
    softmax, swiglu, swiglu_bwd, vector_add,
)
from tileir_diff.ports.torch_ops import (
    LAYER_NORM_BWD_ROWS_PER_BLOCK, fp8_quantize, layer_norm, layer_norm_bwd, transpose,
)


@contextlib.contextmanager
def force_variant(op: str, variant: str, library=None):
    """Within the block, calls of `op` on this thread launch `variant` (still validated against
    it) instead of the one the library would choose. For testing each prebuilt variant."""
    lib = load_library(library)
    check(lib, lib.tileir_kernels_force_variant(op.encode(), variant.encode()))
    try:
        yield
    finally:
        lib.tileir_kernels_force_variant(op.encode(), None)


def has_kernel_image(op: str, variant: str, library=None) -> bool:
    """Whether the loaded library embeds the sm_90 cubin of op/variant."""
    lib = load_library(library)
    return bool(lib.tileir_kernels_has_kernel_image(op.encode(), variant.encode()))


__all__ = [
    "ABI_VERSION", "DTYPE_CODES", "Status", "TileirTensor", "PortError", "LibraryNotFoundError",
    "NullPointerError", "UnsupportedDtypeError", "BadRankError", "InvalidShapeError", "ShapeMismatchError",
    "BadStrideError", "MisalignedError", "InvalidDeviceError", "DeviceMismatchError", "InvalidArgumentError",
    "UnsupportedShapeError", "NoVariantError", "OutOfBoundsError", "DriverUnavailableError", "DriverError", "KernelImageMissingError",
    "LaunchFailedError", "check", "descriptor", "library_candidates", "load_library", "has_kernel_image", "force_variant",
    "vector_add", "softmax", "rms_norm", "rms_norm_bwd", "matmul", "matmul_fp8", "silu_and_mul", "swiglu",
    "swiglu_bwd", "gelu", "dropout", "rope", "RMS_NORM_BWD_ROWS_PER_BLOCK",
    "FUNCTIONS", "PORTED_OPS", "PortFunction", "function_for", "wrapper_kwargs",
    "transpose", "fp8_quantize", "layer_norm", "layer_norm_bwd", "LAYER_NORM_BWD_ROWS_PER_BLOCK",
]

from tileir_diff.ports.torch_ops import argmax, cross_entropy, cumsum, embedding  # noqa: E402
from tileir_diff.ports.torch_ops import attention_sink, flash_attention  # noqa: E402

__all__ += ["argmax", "cross_entropy", "cumsum", "embedding"]
__all__ += ["flash_attention", "attention_sink"]

from tileir_diff.ports.torch_ops import bmm, splitk_matmul  # noqa: E402

__all__ += ["bmm", "splitk_matmul"]

from tileir_diff.ports.torch_ops import fused_moe, group_gemm  # noqa: E402

__all__ += ["group_gemm", "fused_moe"]
from tileir_diff.ports.torch_ops import flash_decode, moe_align_block_size, moe_align_block_size_tiled  # noqa: E402

__all__ += ["flash_decode", "moe_align_block_size", "moe_align_block_size_tiled"]
