"""AOT launcher: runs prebuilt reference cubins (cutile_python_v2 convention) through the CUDA driver API.

Importing this package needs neither CUDA nor torch; the driver is loaded on first launch.
"""

from tileir_diff.launch.abi import ArgumentError, ArrayArg, PackedArgs, as_array_arg, pack_arguments
from tileir_diff.launch.driver import CudaError
from tileir_diff.launch.launcher import CubinKernel, LaunchError, grid_for_inputs, launch_variant, prepare_launch

__all__ = ["ArgumentError", "ArrayArg", "CubinKernel", "CudaError", "LaunchError", "PackedArgs", "as_array_arg",
           "grid_for_inputs", "launch_variant", "pack_arguments", "prepare_launch"]
