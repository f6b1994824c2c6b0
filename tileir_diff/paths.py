"""Where the repository (the reference suite, build/, rust_kernels/) is, and file names as a
reader of a report wants them: relative to that root.

The root is, in order: an explicit ``--root``, ``$TILEIR_DIFF_ROOT``, the checkout this package
is imported from (an editable install or ``PYTHONPATH``), or the nearest folder above the
working directory that holds ``reference/`` and a ``pyproject.toml`` naming ``tileir_diff``. An
installed wheel has no suite of its own: ``require_root`` then says how to point at one.
"""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Optional, Union

ROOT_ENV = "TILEIR_DIFF_ROOT"


class RootNotFound(Exception):
    """No repository root: the message says where it looked and how to give one."""


def is_root(path: Path) -> bool:
    """A tileir_diff checkout: ``reference/`` next to a pyproject.toml of this project."""
    try:
        pyproject = path / "pyproject.toml"
        return (path / "reference").is_dir() and pyproject.is_file() and \
            'name = "tileir_diff"' in pyproject.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def find_root(explicit: Union[str, os.PathLike, None] = None) -> Optional[Path]:
    """The repository root, or None (see the module docstring for the order)."""
    if explicit is not None:
        return Path(explicit).resolve()
    env = os.environ.get(ROOT_ENV)
    if env:
        return Path(env).resolve()
    checkout = Path(__file__).resolve().parents[1]
    if is_root(checkout):
        return checkout
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if is_root(folder):
            return folder
    return None


def require_root(explicit: Union[str, os.PathLike, None] = None) -> Path:
    """The repository root; RootNotFound (one clear sentence) when there is none, or when the
    one given has no reference/ folder."""
    root = find_root(explicit)
    if root is None:
        raise RootNotFound("no tileir_diff checkout found (this installed package has no reference suite): "
                           f"run inside a checkout, or pass --root DIR, or set {ROOT_ENV}=DIR")
    if not (root / "reference").is_dir():
        given = "--root" if explicit is not None else (ROOT_ENV if os.environ.get(ROOT_ENV) else "the checkout")
        raise RootNotFound(f"{root}: no reference/ folder there (from {given}); point --root or {ROOT_ENV} "
                           "at a tileir_diff checkout")
    return root


def repo_relative(file: str, root: Optional[Path]) -> str:
    """See ``_repo_relative``; memoized per (file, root): a report names the same few source files
    for every op (each lookup builds paths and asks the file system; hundreds per diff). A file
    created or removed under the root while a process runs may be seen late (the cache keeps the
    4,096 names used last)."""
    if root is None or not file or file.startswith("<"):
        return file
    return _repo_relative(file, root)


@lru_cache(maxsize=4096)
def _repo_relative(file: str, root: Path) -> str:
    """``file`` (as a debug location or a tool wrote it) relative to the repository root when it is
    one of its files: an absolute path under the root; an absolute path from another checkout
    whose tail names a file of this one (``/elsewhere/tests/corpus/kernels/mma.py``); a path
    relative to the Rust crate (cuTile Rust writes ``src/ops/...`` from rust_kernels/). Anything
    else is returned as written."""
    if root is None or not file or file.startswith("<"):
        return file
    path = PurePosixPath(file.replace("\\", "/"))
    try:
        if path.is_absolute():
            resolved = Path(file)
            try:
                return resolved.relative_to(root).as_posix()
            except ValueError:
                pass
            parts = path.parts[1:]
            # longest tail first; two components at least, so a bare file name never matches
            for start in range(len(parts) - 1):
                tail = PurePosixPath(*parts[start:])
                if len(tail.parts) >= 2 and (root / tail).is_file():
                    return tail.as_posix()
            return file
        if (root / path).is_file():
            return path.as_posix()
        if (root / "rust_kernels" / path).is_file():
            return (PurePosixPath("rust_kernels") / path).as_posix()
    except OSError:
        pass
    return file
