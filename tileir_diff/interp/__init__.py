"""A NumPy interpreter for Tile IR: run an entry function over a grid of tile blocks on the CPU.

    from tileir_diff import load
    from tileir_diff.interp import run_kernel
    x = np.arange(1000, dtype=np.float32); y = np.empty_like(x)
    run_kernel(load("k.tileirbc"), [x, y], grid=(8, 1, 1))   # y now holds the output

See docs/interpreter.md for the semantics, the memory model and the known gaps.
"""
from .run import HostArray, RunResult, flatten_args, run_kernel, run_variant, variant_args
from .budget import Budget
from .errors import BudgetExceeded, InterpreterError, KernelAssertionError, MemoryAccessError, UnsupportedOpError
from .machine import SUPPORTED_OPS, Interpreter, Options
from .memory import Memory

__all__ = ["run_kernel", "run_variant", "variant_args", "flatten_args", "HostArray", "RunResult",
           "Interpreter", "Options", "Memory", "SUPPORTED_OPS", "InterpreterError", "UnsupportedOpError",
           "MemoryAccessError", "KernelAssertionError", "Budget", "BudgetExceeded"]
