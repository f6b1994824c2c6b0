"""reference/flash_decode/port_call.py lays out a forced combine's call with the partial the
launcher picks: its key tile BN (the split boundaries depend on it) must be that variant's."""
from __future__ import annotations

import ast
import json
from pathlib import Path

from ..launchers import launcher

ROOT = Path(__file__).resolve().parents[2]
OP = ROOT / "reference" / "flash_decode"


def _port_call_constants() -> dict:
    """port_call.py's module-level literals (it imports torch; these need not)."""
    tree = ast.parse((OP / "port_call.py").read_text())
    return {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in ("LAUNCHED_BN", "_BUILT_PARTIALS")}


def test_the_launched_partials_key_tile_is_the_one_port_call_assumes():
    constants = _port_call_constants()
    launched, built = constants["LAUNCHED_BN"], constants["_BUILT_PARTIALS"]
    select = launcher("flash_decode").select_variant
    variants = {v["name"]: v for v in json.loads((OP / "analysis.json").read_text())["variants"]}
    assert set(launched) == {(dt, d, g) for (dt, d), groups in built.items() for g in groups}
    for (dtype, d, group), bn in launched.items():
        partial, _ = select(dtype, d, group, 8).split(",")
        assert variants[partial]["constants"]["BN"] == bn, (dtype, d, group, partial)
