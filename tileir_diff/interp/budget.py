"""What one interpreter run may spend: steps (ops executed, nested loops included), bytes (of the
op results it produces, a measure of the work NumPy does), and the largest single value it may
build: work, counted the same on any machine. Time is only a safety net (a deadline far past what
the step budgets take, checked while it runs, not only between runs): its message says ``time
limit (machine too slow/overloaded)``, and the diff that sees it is ``unknown``.

The deadline is read before every op, so a run stops within one op of it (one op itself is not
interrupted: the largest tile an op may build has 2^24 elements). A ``Budget`` may have a
``parent`` (the budget of a whole call, across runs): every charge counts against both, so a loop
nest cannot multiply past either. Exceeding any limit raises ``BudgetExceeded`` with a message
that starts ``budget exceeded:`` and names the limit and how to raise it (the interpreter adds
the op it stopped at).
"""
from __future__ import annotations

import time
from typing import Optional

from .errors import BudgetExceeded

_UNLIMITED = 1 << 62
#: How a safety net's expiry is named in every message (the diff then says ``unknown``).
TIME_LIMIT = "time limit (machine too slow/overloaded)"


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
        # the limits as plain numbers, so that a charge is a few comparisons
        self._steps_cap = _UNLIMITED if max_steps is None else max_steps
        self._bytes_cap = _UNLIMITED if max_bytes is None else max_bytes
        self._value_cap = _UNLIMITED if max_value_bytes is None else max_value_bytes

    def charge(self, nbytes: int) -> None:
        """One op about to run, building ``nbytes`` of results; raises ``BudgetExceeded`` past a
        limit of this budget or its parent's (before the op builds anything)."""
        b: Optional[Budget] = self
        while b is not None:
            b.steps += 1
            b.bytes += nbytes
            if b.steps > b._steps_cap or b.bytes > b._bytes_cap or nbytes > b._value_cap or \
                    (b.deadline is not None and time.perf_counter() > b.deadline):
                b._exceeded(nbytes)
            b = b.parent

    def _exceeded(self, nbytes: int) -> None:
        if nbytes > self._value_cap:
            raise BudgetExceeded(f"budget exceeded: an op would build {_mib(nbytes)} of results, over the "
                                 f"{_mib(self._value_cap)} one value may take ({self.setting} max_value_bytes)")
        if self.steps > self._steps_cap:
            raise BudgetExceeded(f"budget exceeded: more than {self._steps_cap:,} interpreter steps in one "
                                 f"{self.what} ({self.setting} max_steps_per_{self.what})")
        if self.bytes > self._bytes_cap:
            raise BudgetExceeded(f"budget exceeded: more than {_mib(self._bytes_cap)} of op results in one "
                                 f"{self.what} ({self.setting} max_bytes_per_{self.what})")
        raise BudgetExceeded(f"budget exceeded: {TIME_LIMIT}: the wall-clock safety net ran out after "
                             f"{time.perf_counter() - self._started:.1f} s in one {self.what} "
                             f"({self.setting} time_budget)")
