#!/usr/bin/env python3
"""Write tileir_diff/record_inits.py: the ``__init__`` template of every record shape the package
uses, as source, so that its bytecode comes from the import cache instead of an ``exec`` per
shape at every start-up (tileir_diff/record.py explains the templates).

    python3 scripts/record_inits.py           # rewrite the file
    python3 scripts/record_inits.py --check   # exit 1 if a shape the package uses is missing

The shapes are those ``record`` asks for while every module of the package is imported (a
module that cannot be imported here, for a missing optional dependency, is skipped: its shapes
are compiled at run time as before). tests/ir/test_record.py runs ``--check`` and compares the
precompiled code with what ``exec`` makes.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "tileir_diff" / "record_inits.py"

HEAD = '''"""The ``__init__`` templates of the record shapes the package uses, compiled ahead: written by
``python3 scripts/record_inits.py`` from ``record.template_source`` (do not edit; see record.py)."""
# ruff: noqa
# mypy: ignore-errors
from __future__ import annotations

from types import CodeType
from typing import Dict, Tuple

#: (shape, has __post_init__, mutable) -> the template's code
PRECOMPILED: Dict[Tuple[str, bool, bool], CodeType] = {}
'''


def used_shapes():
    """Every (shape, post_init, mutable) ``record`` asks for while the package is imported."""
    sys.path.insert(0, str(ROOT))
    import tileir_diff
    from tileir_diff import record
    for info in pkgutil.walk_packages(tileir_diff.__path__, "tileir_diff."):
        try:
            importlib.import_module(info.name)
        except ImportError:
            continue
    return sorted(record._SHAPES)


def render(shapes) -> str:
    from tileir_diff.record import template_source
    parts = [HEAD]
    for key in shapes:
        parts.append("\n\n" + template_source(*key) + f"\n\n\nPRECOMPILED[{key!r}] = __init__.__code__\n")
    parts.append("\n\ndel __init__\n" if shapes else "")
    return "".join(parts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="only report shapes missing from the file")
    args = ap.parse_args(argv)
    shapes = used_shapes()
    if args.check:
        from tileir_diff.record_inits import PRECOMPILED
        missing = [key for key in shapes if key not in PRECOMPILED]
        for key in missing:
            print(f"missing: {key!r}")
        return 1 if missing else 0
    TARGET.write_text(render(shapes), encoding="utf-8")
    print(f"{TARGET.relative_to(ROOT)}: {len(shapes)} shapes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
