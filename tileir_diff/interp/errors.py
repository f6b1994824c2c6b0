"""Errors the interpreter raises. Each names the op and where it is when it comes from executing
an op: ``f0/o12/r0/o3`` is the op id the reports use (function 0, op 12, its region 0, op 3)."""
from __future__ import annotations


class InterpreterError(RuntimeError):
    """The kernel cannot be executed as written (bad arguments, an ill-typed op, a trap)."""

    located: bool = False  # the message already names the op where it happened (set by the interpreter)


class UnsupportedOpError(InterpreterError):
    """An op (or an op variant) the interpreter has no semantics for. Never guessed at."""

    def __init__(self, op_name: str, where: str = "?", detail: str = ""):
        self.op_name = op_name
        self.where = where
        super().__init__(f"unsupported op {op_name} at {where}" + (f": {detail}" if detail else ""))


class MemoryAccessError(InterpreterError):
    """A pointer access outside every allocation, or misaligned."""


class KernelAssertionError(InterpreterError):
    """An ``assert`` op found a false element."""


class AssumeViolation(InterpreterError):
    """An ``assume`` op found a value outside its predicate: the input is invalid for the kernel
    (undefined behaviour on the device), not a result to compare."""

    def __init__(self, message: str, predicate: str = "", where: str = "?"):
        self.predicate = predicate
        self.where = where
        super().__init__(message)


class BudgetExceeded(InterpreterError):
    """A run spent more interpreter steps, bytes or time than its ``Budget`` allows. Says nothing
    about the kernel: a differential check that hits it could not check (docs/interpreter.md)."""
