"""Running a kernel: its calling convention, the packing of its arguments, and the launch.

One place knows how a kernel is called, and everything that runs one imports it:

* ``abi``: the cutile_python_v2 calling convention (``array_words``: per array its pointer,
  sizes, strides; per scalar one word; constants none), the host dtypes and their sizes
  (``DTYPE_SIZES``), the index dtypes, and ``pack_arguments``, which checks arrays against the
  export's assumptions and packs them. interp/run.py flattens arguments for the interpreter by
  it, execute/signature.py finds sizes and strides where it puts them, suite/launch_facts.py
  names entry arguments by it, suite/catalog.py validates analysis.json dtypes against it.
* ``driver``: the CUDA driver API through ctypes (the only libcuda loader).
* ``stream``: which device and stream a launch goes to (the cubin launcher and the Rust ports).
* ``launcher``: loads prebuilt reference cubins and launches them (grid from analysis.json).

What stays elsewhere, and why: the IR interpreter (interp/) runs kernels on the CPU by this
convention but is not a launcher; execute/signature.py reads a kernel's parameters from the IR by
their use (an inference for input generation, not a convention); suite/catalog.py parses
analysis.json into the ParamSpec/VariantSpec records read here duck-typed; ports/ binds the Rust
ports' own C ABI (rust_kernels/include/tileir_kernels.h: descriptor, status codes, library
loader) and takes the dtype names and the device/stream choice from here. So this package imports
nothing of the suite or the IR and sits below the interpreter (tests/test_layering.py).

Importing this package needs neither CUDA nor torch; the driver is loaded on first launch.
"""

from tileir_diff.launch.abi import (
    DTYPE_SIZES, INDEX_DTYPES, ArgumentError, ArrayArg, PackedArgs, argument_words, array_values, array_words,
    as_array_arg, host_dtype_name, pack_arguments,
)
from tileir_diff.launch.driver import CudaError
from tileir_diff.launch.launcher import CubinKernel, LaunchError, grid_for_inputs, launch_variant, prepare_launch
from tileir_diff.launch.stream import cuda_device_of, current_stream, stream_handle

__all__ = ["ArgumentError", "ArrayArg", "CubinKernel", "CudaError", "DTYPE_SIZES", "INDEX_DTYPES", "LaunchError",
           "PackedArgs", "argument_words", "array_values", "array_words", "as_array_arg", "cuda_device_of",
           "current_stream", "grid_for_inputs", "host_dtype_name", "launch_variant", "pack_arguments",
           "prepare_launch", "stream_handle"]
