"""The package as a user installs it: `pip wheel .` leaves the repository's build/ alone, and
the installed wheel diffs anywhere but finds the reference suite only from a checkout, --root or
$TILEIR_DIFF_ROOT, saying so in one line otherwise. Slow (a wheel build and a venv)."""
from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MMA = ROOT / "tests" / "corpus" / "data" / "mma_f16_f32acc.v13_4.tileirbc"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A copy of the tracked tree, its wheel, and a venv (seeing this interpreter's numpy and
    networkx) with only that wheel installed."""
    base = tmp_path_factory.mktemp("package")
    tree = base / "tree"
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    tree.mkdir()
    subprocess.run(["tar", "-c", "--null", "-T", "-", "-f", "-"], cwd=ROOT, input=files, check=True,
                   stdout=open(base / "tree.tar", "wb"))
    subprocess.run(["tar", "-x", "-f", str(base / "tree.tar")], cwd=tree, check=True)
    wheels = base / "wheels"
    # an isolated build, as users get it (pip fetches setuptools>=68 and wheel: needs the index)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps",
                            "-q", "-w", str(wheels)], cwd=tree, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    env_dir = base / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    (wheel,) = wheels.glob("tileir_diff-*.whl")
    # pip of this interpreter, installing into the venv's site-packages
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", site, str(wheel)],
                   check=True, capture_output=True)
    return tree, wheel, python, base


def _run(python, *args, cwd, env=None):
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TILEIR_DIFF_ROOT")}
    return subprocess.run([str(python), "-m", "tileir_diff.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env={**environ, **(env or {})}, timeout=300)


def test_wheel_build_leaves_build_folder_alone(installed):
    tree, wheel, _, _ = installed
    assert not (tree / "build").exists()  # setuptools' scratch went to .setuptools-build/
    assert wheel.name.startswith("tileir_diff-") and wheel.stat().st_size > 0


def test_installed_package_diffs_outside_the_repo(installed, tmp_path):
    _, _, python, _ = installed
    where = subprocess.run([str(python), "-c", "import tileir_diff; print(tileir_diff.__file__)"], capture_output=True,
                           text=True, cwd=tmp_path, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert "site-packages" in where.stdout and str(ROOT) not in where.stdout
    r = _run(python, "diff", MMA, MMA, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("IDENTICAL: ")


def test_suite_needs_a_root_and_says_how(installed, tmp_path):
    tree, _, python, _ = installed
    r = _run(python, "suite", "list", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip() == ("error: no tileir_diff checkout found (this installed package has no reference "
                                "suite): run inside a checkout, or pass --root DIR, or set TILEIR_DIFF_ROOT=DIR")
    r = _run(python, "suite", "list", "--op", "vector_add", "--root", tree, cwd=tmp_path)
    assert r.returncode == 0 and "1 ops, " in r.stdout
    r = _run(python, "suite", "list", "--op", "vector_add", cwd=tmp_path, env={"TILEIR_DIFF_ROOT": str(tree)})
    assert r.returncode == 0 and "1 ops, " in r.stdout
    r = _run(python, "suite", "list", "--op", "vector_add", cwd=tree / "docs")  # inside a checkout
    assert r.returncode == 0 and "1 ops, " in r.stdout
    r = _run(python, "suite", "list", "--root", tmp_path, cwd=tmp_path)
    assert r.returncode == 2 and f"{tmp_path}: no reference/ folder there (from --root)" in r.stderr


def test_metadata_is_true(installed):
    _, wheel, _, _ = installed
    import zipfile
    with zipfile.ZipFile(wheel) as z:
        meta = z.read(next(n for n in z.namelist() if n.endswith("/METADATA"))).decode()
        names = z.namelist()
    assert "Summary: Read CUDA Tile IR (bytecode 13.1-13.5 and text)" in meta
    for extra in ("tools", "torch", "gpu", "test", "schema"):
        assert f"Provides-Extra: {extra}" in meta
    assert 'Requires-Dist: torch>=2.4; extra == "torch"' in meta
    assert 'Requires-Dist: jsonschema>=4.18; extra == "schema"' in meta  # what json_schema.validate asks for
    assert "tileir_diff/report/diff.schema.json" in names
    for shipped in ("tileir_diff/verify/verify.schema.json", "tileir_diff/commands/schemas/dump.schema.json",
                    "tileir_diff/commands/schemas/summary.schema.json",
                    "tileir_diff/commands/schemas/analyze.schema.json", "tileir_diff/py.typed"):
        assert shipped in names, shipped
    assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE") for n in names)
    assert "License: Apache-2.0" in meta and "Classifier: License :: OSI Approved :: Apache Software License" in meta
    assert "Classifier: Typing :: Typed" in meta and "Project-URL: Source, " in meta


def test_outside_a_checkout_analyze_and_verify_say_what_to_do(installed, tmp_path):
    tree, _, python, _ = installed
    import shutil
    op = tmp_path / "vector_add"
    shutil.copytree(tree / "reference" / "vector_add", op)
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    r = _run(python, "analyze", op / "kernel.py", "-q", cwd=tmp_path, env=env)
    if "cuda.tile is not installed" in r.stderr:  # without the tools extra: named, a usage error
        assert r.returncode == 2 and "tileir_diff[tools]" in r.stderr
    else:
        assert r.returncode == 0 and "reproduced" in r.stdout, r.stderr
        assert (tmp_path / "cache" / "tileir_diff" / "analyze").is_dir()
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr
    r = _run(python, "verify", "vector_add", cwd=tmp_path)
    assert r.returncode == 2 and "--root DIR" in r.stderr.splitlines()[-1]
    r = _run(python, "verify", "vector_add", "--root", tmp_path, cwd=tmp_path)  # the hint's option exists
    assert r.returncode == 2 and f"{tmp_path}: no reference/ folder there (from --root)" in r.stderr
    r = _run(python, "verify", "no_such_op", "--root", tree, "--stages", "performance", cwd=tmp_path)
    assert r.returncode == 2 and "no_such_op" in r.stderr.splitlines()[-1]
    r = _run(python, "suite", "status", "--op", "vector_add", "--root", tree, cwd=tmp_path)
    assert r.returncode == 3 and "nothing is built" in r.stderr
