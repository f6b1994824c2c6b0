"""Locating NVIDIA's tools (tileirdisasm, tileiras) from the nvidia-cuda-tileiras wheel."""
from __future__ import annotations

import os
import shutil
import sysconfig
from pathlib import Path
from typing import Optional


def find_tool(name: str) -> Optional[str]:
    """Path of ``tileirdisasm``/``tileiras``: $TILEIRDISASM/$TILEIRAS, the installed wheel's
    ``nvidia/cu13/bin``, then PATH. None when absent."""
    env = os.environ.get(name.upper())
    if env:
        return env
    for base in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        p = Path(base) / "nvidia" / "cu13" / "bin" / name
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    return shutil.which(name)
