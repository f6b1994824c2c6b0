"""What one interpreter run may spend: steps (ops executed, nested loops included), bytes (of the
op results it produces, a measure of the work NumPy does) and time (a deadline checked while it
runs, not only between runs), and the largest single value it may build.

The deadline is read before every op, so a run stops within one op of it (one op itself is not
interrupted: the largest tile an op may build has 2^24 elements). A ``Budget`` may have a ``parent`` (the budget of a whole call, across runs): every charge counts
against both, so a loop nest cannot multiply past either. Exceeding any limit raises
``BudgetExceeded`` with a message that starts ``budget exceeded:`` and names the limit and how to
raise it.
"""
from __future__ import annotations

import time
from typing import Optional

from .errors import BudgetExceeded

def _mib(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MiB"


class Budget:
    """Limits (None: unlimited) and what has been spent; ``what`` names the run in messages
    ("trial", "call"), ``setting`` the option that raises the limit."""

    def __init__(self, max_steps: Optional[int] = None, max_bytes: Optional[int] = None,
                 deadline: Optional[float] = None, max_value_bytes: Optional[int] = None,
                 parent: Optional["Budget"] = None, what: str = "run", setting: str = "execute_options"):
        self.max_steps = max_steps
        self.max_bytes = max_bytes
        self.deadline = deadline
        self.max_value_bytes = max_value_bytes
        self.parent = parent
        self.what = what
        self.setting = setting
        self.steps = 0
        self.bytes = 0
        self._started = time.perf_counter()

    def charge(self, nbytes: int, where: str = "") -> None:
        """One op executed, producing ``nbytes`` of results; raises ``BudgetExceeded`` past a limit
        (before the op builds its results)."""
        self.steps += 1
        self.bytes += nbytes
        at = f" (at {where})" if where else ""
        if self.max_value_bytes is not None and nbytes > self.max_value_bytes:
            raise BudgetExceeded(f"budget exceeded: an op would build {_mib(nbytes)} of results{at}, over the "
                                 f"{_mib(self.max_value_bytes)} one value may take ({self.setting} max_value_bytes)")
        if self.max_steps is not None and self.steps > self.max_steps:
            raise BudgetExceeded(f"budget exceeded: more than {self.max_steps:,} interpreter steps in one "
                                 f"{self.what}{at} ({self.setting} max_steps_per_{self.what})")
        if self.max_bytes is not None and self.bytes > self.max_bytes:
            raise BudgetExceeded(f"budget exceeded: more than {_mib(self.max_bytes)} of op results in one "
                                 f"{self.what}{at} ({self.setting} max_bytes_per_{self.what})")
        if self.deadline is not None and time.perf_counter() > self.deadline:  # ~0.1 µs of a step's >= 5 µs
            raise BudgetExceeded(f"budget exceeded: the time budget ran out after "
                                 f"{time.perf_counter() - self._started:.1f} s in one {self.what}{at} "
                                 f"({self.setting} time_budget)")
        if self.parent is not None:
            self.parent.charge(nbytes, where)
