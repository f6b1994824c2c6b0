#!/usr/bin/env python3
"""Write tileir_diff/bytecode/op_reader_shapes.py: the compiled op readers of every shape of the op
table (tileir_diff/bytecode/op_readers.py). Run after changing the op table or the generator;
tests/bytecode/test_op_readers.py checks the file is current."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tileir_diff.bytecode import op_readers  # noqa: E402

if __name__ == "__main__":
    target = Path(op_readers.__file__).with_name("op_reader_shapes.py")
    target.write_text(op_readers.generate_shapes(op_readers.table_plans()))
    print(f"wrote {target}")
