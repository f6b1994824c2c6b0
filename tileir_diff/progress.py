"""Progress for long commands (``suite export``, ``suite status``): a tqdm bar on stderr with the
count done, the rate and the ETA. tqdm (a dependency: well kept, pure Python, what pip and
Hugging Face use) rather than our own: it handles terminal width, redraw rates and non-TTY
streams. Shown only when stderr is a terminal, unless asked for (``--progress``) or switched off
(``--no-progress``); stdout stays the command's result."""
from __future__ import annotations

import argparse
import sys
from typing import Optional


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="show progress (count, rate, ETA) on stderr; default: only when stderr is a terminal")


def progress_bar(total: int, description: str, enabled: Optional[bool] = None, unit: str = "variant"):
    """A progress bar over ``total`` items (``.update(1)`` per item done; a context manager).
    ``enabled`` None: shown when stderr is a terminal."""
    from tqdm import tqdm
    if enabled is None:
        isatty = getattr(sys.stderr, "isatty", None)
        enabled = bool(isatty and isatty())
    # mininterval: redraw at most ~4 times a second; the final bar stays (count, elapsed time)
    return tqdm(total=total, desc=description, unit=unit, file=sys.stderr, disable=not enabled,
                dynamic_ncols=True, mininterval=0.25)


class Eta:
    """Elapsed time and an ETA for progress *lines* (verify's stages, analyze), where a bar would
    mix with the stage messages: ``eta.line(i, n)`` -> ``" [12s, ~30s left]"`` after item i of n."""

    def __init__(self, clock=None):
        import time
        self._clock = clock or time.monotonic
        self._t0 = self._clock()

    def line(self, done: int, total: int) -> str:
        elapsed = self._clock() - self._t0
        if done <= 1 or total <= 0:
            return f" [{elapsed:.0f}s]"
        left = elapsed / (done - 1) * (total - done + 1)  # item `done` is starting now
        return f" [{elapsed:.0f}s, ~{left:.0f}s left]"
