"""scripts/gpu/device_call.sh's card guard: under REQUIRE_CARD it runs nothing on another card (a
claim is one card's run, and the device tool may lend an H100 for an H200 request) and goes on on
that card; TAG names the archive. nvidia-smi is a stand-in on PATH, and the script runs in a
scratch folder, so nothing here needs a GPU or touches the checkout."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gpu" / "device_call.sh"


def _call(tmp_path: Path, card: str, part: str, **env: str) -> subprocess.CompletedProcess:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    smi = bin_dir / "nvidia-smi"
    smi.write_text(f"#!/bin/sh\necho '{card}, 1980 MHz, 1980 MHz, 580.159.04'\n")
    smi.chmod(0o755)
    (tmp_path / "carry").mkdir(exist_ok=True)
    (tmp_path / "out").mkdir(exist_ok=True)
    full = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "OUT": str(tmp_path / "out"), **env}
    return subprocess.run(["bash", str(SCRIPT), str(tmp_path / "carry"), part, "vector_add"], cwd=tmp_path,
                          env=full, capture_output=True, text=True, timeout=120)


def test_another_card_runs_nothing(tmp_path):
    got = _call(tmp_path, "NVIDIA H100 80GB HBM3", "a", REQUIRE_CARD="H200")
    assert got.returncode == 0, got.stderr
    assert "not an H200 (REQUIRE_CARD): nothing run" in got.stdout
    assert not (tmp_path / "build").exists() and not any((tmp_path / "out").iterdir())


def test_the_named_card_goes_on_and_tag_names_the_archive(tmp_path):
    # past the guard the part runs: prof's step fails here (no checkout in the scratch folder), and
    # the archive written after every step is named by TAG
    got = _call(tmp_path, "NVIDIA H200", "prof", REQUIRE_CARD="H200", TAG="_x")
    assert got.returncode == 0, got.stderr
    assert "nothing run" not in got.stdout and "== prof at" in got.stdout
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["results_x.tgz"]


def test_an_unknown_part_is_refused(tmp_path):
    got = _call(tmp_path, "NVIDIA H200", "no-such-part")
    assert got.returncode == 2 and "part: a, b, ab or prof" in got.stderr
