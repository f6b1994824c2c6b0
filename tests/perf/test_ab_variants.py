"""scripts/gpu/ab_variants.py without a GPU: the two sides alternate which runs first, and every
round's times land on the right side whatever the order (a swap would invert the verdict)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("ab_variants", ROOT / "scripts" / "gpu" / "ab_variants.py")
ab = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ab)


def test_sides_alternate_and_keep_their_times():
    calls = []
    # the base takes 100 us, the candidate 90 us; whichever runs first is slowed by 5 % (a clock
    # drop), so only the alternation cancels the position
    speed = {"base": 100.0, "candidate": 90.0}

    def pair(first, second, names):
        calls.append((first, second, names))
        return {"a": {"cupti_median_us": speed[first] * 1.05}, "b": {"cupti_median_us": speed[second]}}

    got = ab.interleaved(pair, {"base": "base", "candidate": "candidate"}, {"k"}, rounds=4)
    assert [c[:2] for c in calls] == [("base", "candidate"), ("candidate", "base")] * 2
    assert [r["first"] for r in got["rounds"]] == ["base", "candidate", "base", "candidate"]
    assert [round(r, 4) for r in got["ratios"]] == [round(90 / 105, 4), round(94.5 / 100, 4)] * 2
    assert got["base_us"] == 102.5 and got["candidate_us"] == 92.25  # medians of each side
    assert 0.85 < got["ratio"] < 0.95 and all(c[2] == {"k"} for c in calls)


class _FakeClock:
    """torch.cuda for events_pair: a launch advances a clock by its side's time; an event records
    the clock; the flush costs 1000 us that must not land on either side."""

    def __init__(self):
        self.now_us = 0.0
        self.synced = 0
        outer = self

        class Event:
            def __init__(self, enable_timing):
                assert enable_timing

            def record(self):
                self.t = outer.now_us

            def elapsed_time(self, end):
                return (end.t - self.t) / 1000.0

        class Flush:
            def zero_(self):
                outer.now_us += 1000.0

        self.cuda = type("cuda", (), {"Event": Event, "synchronize": staticmethod(self._sync)})
        self.flush = Flush()

    def _sync(self):
        self.synced += 1

    def launcher(self, us, log, name):
        def launch():
            log.append(name)
            self.now_us += us
        return launch


def test_events_pair_times_each_side_by_its_own_events():
    clock, log = _FakeClock(), []
    timer = type("T", (), {"warmup": 2, "reps": 6, "flush": clock.flush})()
    group = ab._bench_ports().GROUP
    got = ab.events_pair(clock, timer, clock.launcher(50.0, log, "a"), clock.launcher(80.0, log, "b"), group)
    # warm-up alternates, then cycles of GROUP launches a side
    assert log[:4] == ["a", "b", "a", "b"]
    assert log[4:4 + 2 * group] == ["a"] * group + ["b"] * group
    assert got["a"]["cupti_median_us"] == 50.0 and got["b"]["cupti_median_us"] == 80.0  # no flush time
    assert got["a"]["reps"] == got["b"]["reps"] == 6 and clock.synced >= 2
