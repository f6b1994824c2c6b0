#!/usr/bin/env python3
"""Export a few corpus kernels as bytecode 13.5 with cuda-tile 1.7.0's own (dev-only) 13.5 encoder.

    python3 tests/corpus/v13_5/export.py [NAME ...]

``export_kernel(bytecode_version="13.5")`` refuses the version (only 13.1-13.4 are public), but
``BytecodeVersion.V_13_5`` exists and ``compile_tile`` accepts a version object: we make the call
``export_kernel`` makes, with that object. Nothing installed is modified. No GPU or tileiras needed.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent
DEFAULT_CASES = ("load_store_unchecked", "hinted_by_target", "view_atomic_reduce_float", "printf_and_print",
                 "nested_for_loops", "multi_entry_layouts", "large_flash_attention")


def export(name: str, case) -> Path:
    from cuda.tile._bytecode.version import BytecodeVersion
    from cuda.tile._compile import compile_tile

    result = compile_tile(case.kernel._annotated_function, case.signatures(), sm_arch=case.gpu_code,
                          compiler_options=case.kernel._compiler_options, return_bytecode=True,
                          return_cubin=False, bytecode_version=BytecodeVersion.V_13_5)
    path = HERE / f"{name}.v13_5.tileirbc"
    path.write_bytes(bytes(result.bytecode))
    return path


def main(names) -> None:
    sys.path.insert(0, str(CORPUS))
    from kernels import all_cases
    cases = {c.name: c for _, c in all_cases()}
    unknown = sorted(set(names) - cases.keys())
    if unknown:
        raise SystemExit(f"unknown case name(s): {', '.join(unknown)}")
    for name in names:
        print(export(name, cases[name]))


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT_CASES)
