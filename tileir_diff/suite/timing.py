"""Device time of each port against its reference, read from the GPU benchmark's results.

``scripts/gpu/bench_ports.py`` writes ``docs/results/ports_bench.json``: one record per
configuration (variant x shape) with the Rust / Python ratio of CUPTI median device times. The
port table shows, per variant, the geometric mean of its configurations' ratios, their count and
range, and whether the measurement is about the cubins on disk now (records name the two sm_90
cubins by sha256; a record without hashes is ``untied``, one with other hashes ``stale``).
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

BENCH_FILE = "docs/results/ports_bench.json"


def load_timing(root: Path) -> Dict[Tuple[str, str], Dict[str, Any]]:
    """(op, variant) -> {ratio (geomean), configs, min, max, date, cubin pairs measured}; {} when
    no benchmark was committed or the file is not a benchmark document."""
    path = root / BENCH_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        return {}
    date = (data.get("environment") or {}).get("date")
    ratios: Dict[Tuple[str, str], List[float]] = {}
    measured: Dict[Tuple[str, str], List[Tuple[Optional[str], Optional[str]]]] = {}
    for rec in data["results"]:
        try:
            key, ratio = (str(rec["op"]), str(rec["variant"])), float(rec["ratio"])
        except (KeyError, TypeError, ValueError):
            continue
        if not (ratio > 0 and math.isfinite(ratio)):
            continue
        ratios.setdefault(key, []).append(ratio)
        pair = (rec.get("reference_cubin_sha256"), rec.get("cubin_sha256"))
        if pair not in measured.setdefault(key, []):
            measured[key].append(pair)
    out = {}
    for key, values in ratios.items():
        out[key] = {"ratio": math.exp(sum(map(math.log, values)) / len(values)), "configs": len(values),
                    "min": min(values), "max": max(values), "date": date, "measured": measured[key]}
    return out


def timing_state(timing: Optional[Dict[str, Any]], cubins: Optional[Tuple[str, str]]) -> str:
    """``current`` (every configuration timed the cubin pair on disk), ``stale`` (some timed
    another build), ``untied`` (the records name no cubins), ``not_run``."""
    if not timing:
        return "not_run"
    pairs = timing.get("measured") or []
    if not pairs or all(p == (None, None) for p in pairs):
        return "untied"
    return "current" if cubins is not None and all(tuple(p) == tuple(cubins) for p in pairs) else "stale"


def timing_cell(timing: Optional[Dict[str, Any]]) -> str:
    """``0.998x (6 configs, 0.990-1.004)``, with `` stale``/`` untied`` when it is not about the
    cubins on disk; ``–`` when not measured."""
    if not timing:
        return "–"
    text = f"{timing['ratio']:.3f}x ({timing['configs']} configs, {timing['min']:.3f}-{timing['max']:.3f})"
    state = timing.get("state", "current")
    return text if state == "current" else f"{text} {state}"
