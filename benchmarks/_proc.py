"""What the benchmarks share: child processes that run a checkout of tileir_diff the way a user's
command does, and medians.

A user pays for the whole process: starting Python, importing the package (from its cached
bytecode: an installed package has ``.pyc`` files), reading, comparing, printing. ``python_env``
gives a child that imports the checkout at ``root`` with a bytecode cache of its own (the
environment may set ``PYTHONDONTWRITEBYTECODE``, which would make every run compile every module:
a cost no installed copy pays), and ``warm_up`` fills that cache before anything is timed.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Sequence

ROOT = Path(__file__).resolve().parents[1]
#: Where children run: not a checkout (``python -m``/``-c`` put the working directory first on
#: sys.path, which would shadow the checkout named by PYTHONPATH).
CHILD_CWD = Path(tempfile.gettempdir())


def python_env(root: Path, cache: Path) -> Dict[str, str]:
    """The environment of a child that imports ``root``'s tileir_diff with bytecode cached in ``cache``."""
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONPYCACHEPREFIX=str(cache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def cli_command(*args: str) -> List[str]:
    """``tileir-diff ARGS`` as the console script runs it (the interpreter, then the CLI's main)."""
    return [sys.executable, "-m", "tileir_diff.cli", *args]


def wall(cmd: Sequence[str], env=None, ok=(0,)) -> float:
    """Seconds from starting ``cmd`` to its exit (output discarded); RuntimeError on an exit
    status outside ``ok``."""
    t0 = time.perf_counter()
    done = subprocess.run(list(cmd), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=CHILD_CWD)
    elapsed = time.perf_counter() - t0
    if done.returncode not in ok:
        raise RuntimeError(f"{' '.join(map(str, cmd))}: exit {done.returncode}: {done.stderr.decode()[-400:]}")
    return elapsed


def warm_up(env, root: Path) -> None:
    """Import everything a diff imports once, so the bytecode cache is written before timing;
    RuntimeError unless the child imports the checkout at ``root``."""
    done = subprocess.run([sys.executable, "-c", "import tileir_diff.cli, tileir_diff.api, tileir_diff.compare.engine, "
                           "tileir_diff.text.printer, tileir_diff.summary, tileir_diff.report.text; "
                           "print(tileir_diff.__file__)"], check=True, env=env, cwd=CHILD_CWD,
                          capture_output=True, text=True)
    got = Path(done.stdout.strip()).resolve().parents[1]
    if got != root.resolve():
        raise RuntimeError(f"a child imports tileir_diff from {got}, not {root}")


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def load_line() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min); {os.cpu_count()} cores"
