"""Where the exported reference suite is, for the tests and the mutation engine (no pytest here:
the engine also runs on machines without it)."""
from __future__ import annotations

import os
from pathlib import Path

# scripts/test.sh exports and compiles the reference suite once (`tileir-diff suite export`) and
# names the folder here; tests read it and never write into the repo.
REFERENCE_BUILD_ENV = "TILEIR_REFERENCE_BUILD"


def built_reference_dir() -> Path:
    """The reference suite's exported bytecode and cubins, read only: $TILEIR_REFERENCE_BUILD, else
    the repo's build/reference (what `tileir-diff suite export` writes)."""
    from tileir_diff.suite.export import default_build_root
    return Path(os.environ.get(REFERENCE_BUILD_ENV) or default_build_root())
