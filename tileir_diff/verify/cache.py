"""A content-addressed build cache: artifacts and stage results keyed by the hash of what produced them.

An entry is ``<root>/<kind>/<key[:2]>/<key>/``: the artifact files and ``entry.json`` (what the
key was computed from, the result, and how long producing it took). Kinds: ``ir`` (emitted
bytecode + sidecar; key: the op's crate sources, variant, emit options, toolchain), ``cubin``
(key: the bytecode bytes, arch, tileiras version), ``diff`` (key: both bytecodes, the op's
accepted differences, tileir_diff's sources), ``cargo_test``, ``abi`` and ``numerics`` (key:
their inputs likewise). Every key but ``cubin``'s also holds the environment the stage runs in
(``workspace.environment_fingerprint``: Python, package versions, toolchain, variables), and no
environment failure is stored. A hit saves the recorded time; the counts and seconds saved go into each
attempt's record. Entries are written to a temporary folder and renamed, so a crash never leaves
a half entry that would be read as a hit.
"""
from __future__ import annotations

import json
import os
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Mapping, Optional


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    seconds_saved: float = 0.0
    by_kind: Dict[str, Dict[str, int]] = field(default_factory=dict)

    def count(self, kind: str, hit: bool, saved: float = 0.0) -> None:
        row = self.by_kind.setdefault(kind, {"hits": 0, "misses": 0})
        if hit:
            self.hits += 1
            self.seconds_saved += saved
            row["hits"] += 1
        else:
            self.misses += 1
            row["misses"] += 1

    def to_dict(self) -> Dict[str, Any]:
        return {"hits": self.hits, "misses": self.misses, "seconds_saved": round(self.seconds_saved, 3),
                "by_kind": {k: dict(v) for k, v in sorted(self.by_kind.items())}}

    def add(self, other: "CacheStats") -> None:
        self.hits += other.hits
        self.misses += other.misses
        self.seconds_saved += other.seconds_saved
        for kind, row in other.by_kind.items():
            mine = self.by_kind.setdefault(kind, {"hits": 0, "misses": 0})
            mine["hits"] += row["hits"]
            mine["misses"] += row["misses"]


@dataclass
class Entry:
    folder: Path
    result: Dict[str, Any]
    seconds: float

    def file(self, name: str) -> Path:
        return self.folder / name


class BuildCache:
    """``read=False`` (``verify --no-cache``): every lookup is a miss, so everything is computed
    again; the fresh results are still stored (they replace nothing: an entry's key says what it
    was computed from)."""

    def __init__(self, root: Path, stats: Optional[CacheStats] = None, *, read: bool = True):
        self.root = Path(root)
        self.stats = stats or CacheStats()
        self.read = read

    def _folder(self, kind: str, key: str) -> Path:
        return self.root / kind / key[:2] / key

    def get(self, kind: str, key: str) -> Optional[Entry]:
        """The entry, counted as a hit; None (a miss) when absent."""
        folder = self._folder(kind, key)
        if not self.read:
            self.stats.count(kind, False)
            return None
        try:
            meta = json.loads((folder / "entry.json").read_text())
        except (OSError, ValueError):
            self.stats.count(kind, False)
            return None
        self.stats.count(kind, True, float(meta.get("seconds", 0.0)))
        return Entry(folder, meta.get("result", {}), float(meta.get("seconds", 0.0)))

    def put(self, kind: str, key: str, *, result: Mapping[str, Any], seconds: float,
            files: Optional[Mapping[str, Path]] = None, inputs: Optional[Mapping[str, Any]] = None) -> Entry:
        """Store ``files`` (name -> path, copied) and ``result`` under key; an existing entry is kept."""
        folder = self._folder(kind, key)
        if (folder / "entry.json").is_file():
            if self.read:
                return Entry(folder, dict(result), seconds)
            shutil.rmtree(folder, ignore_errors=True)  # --no-cache: the fresh result replaces it
        tmp = folder.with_name(f".{key}.{uuid.uuid4().hex}")
        tmp.mkdir(parents=True)
        try:
            for name, path in (files or {}).items():
                shutil.copyfile(path, tmp / name)
            (tmp / "entry.json").write_text(json.dumps({"kind": kind, "key": key, "inputs": dict(inputs or {}),
                                                        "result": dict(result), "seconds": seconds}, indent=1))
            try:
                os.replace(tmp, folder)
            except OSError:  # another run stored it first
                pass
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        return Entry(folder, dict(result), seconds)
