"""The mutation and invariance engines: kernels, validity, classification.

A **mutant** of a kernel is evaluated in these steps (``evaluate_mutation``):

1. build it (operators.py); an operator that cannot apply at the site -> discarded ``build``;
2. write it with the project's bytecode writer at the kernel's version -> else ``writer``;
3. run ``tileirdisasm`` (NVIDIA's reader and MLIR verifier) on the bytes -> else ``disasm``;
   the same text as the original's disassembly -> ``no-op`` (nothing changed);
4. read the bytes back (what is diffed is exactly what tileirdisasm accepted) -> else ``reader``;
5. ``tileir_diff.diff(original, mutant)``: ``different``/``unknown`` -> **caught**
   (an exception in the diff -> ``crash``, listed, not a false "same");
6. for an ``identical``/``equivalent`` verdict, ``tileir_diff.execute.check`` runs both on the
   CPU interpreter: ``diverged`` -> **false same**; ``no_divergence`` -> **maybe equivalent**
   (kept out of the false-same count, listed); ``unsupported`` -> **false same (unverified)**
   (the interpreter cannot run it and nothing proves it equivalent).

An **invariance** transformation is evaluated the same way up to step 4, then the interpreter
must show no divergence (else the transformation itself is wrong: discarded ``not-invariant``),
and the verdict must be ``identical``/``equivalent``; ``different``/``unknown`` is a false alarm.
"""
from __future__ import annotations

import os
import random
import re
import subprocess
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import tileir_diff
from tileir_diff.bytecode import read_bytecode
from tileir_diff.bytecode.writer import write_bytecode
from tileir_diff.tools import find_tool

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "data"
CORPUS_KERNELS_SRC = ROOT / "tests" / "corpus" / "kernels"
RUST = ROOT / "tests" / "corpus" / "rust"
SYNTHETIC = Path(__file__).resolve().parent / "data"
# the reference suite exported for the mutation run (scripts/mutation_on_device.sh pack)
REFERENCE_CACHE = ROOT / "build" / "mutation" / "reference"

SAME = ("identical", "equivalent")
#: What a mutant must not get unchecked: a same verdict, or ``specialized`` (the same computation
#: under other assumptions), which a caller may accept with allow="specialization". The oracles
#: check all three; a mutant of an assumption or hint alone is then "maybe equivalent".
MUTANT_SAME = SAME + ("specialized",)
MUTANT_STATUSES = ("caught", "maybe-equivalent", "false-same", "false-same-unverified", "crash")
DISCARD_REASONS = ("build", "writer", "disasm", "no-op", "reader")

#: interpreter settings: enough trials for branches that depend on scalar arguments
TRIALS = 6
EXEC_BUDGET_S = 20.0
DIFF_LIMITS = {"time_budget_s": 60}


# --- kernels --------------------------------------------------------------------------------------

@dataclass
class Kernel:
    name: str          # unique: "corpus/rms_norm", "reference/softmax/f32_row_m4_n1024", "rust/..."
    family: str        # the "operator" of the report: a reference op or a corpus theme
    path: Path

    @property
    def module(self):
        return _load(str(self.path))


@lru_cache(maxsize=1024)
def _load(path: str):
    return tileir_diff.load(path)


def _corpus_themes() -> Dict[str, str]:
    out = {}
    for p in sorted(CORPUS_KERNELS_SRC.glob("*.py")):
        if p.name.startswith("_"):
            continue
        for name in re.findall(r'(?:case|multi_case|Case)\(\s*"([a-z0-9_]+)"', p.read_text()):
            out[name] = p.stem
    return out


def corpus_kernels() -> List[Kernel]:
    """One version per corpus kernel: 13.4 when exported, else the newest."""
    themes = _corpus_themes()
    by_name: Dict[str, Path] = {}
    for p in sorted(CORPUS.glob("*.tileirbc")):
        name, ver = p.name.split(".v13_")
        ver = ver.split(".")[0]
        if name not in by_name or ver == "4" or (by_name[name].name.split(".v13_")[1][0] != "4"
                                                  and ver > by_name[name].name.split(".v13_")[1][0]):
            by_name[name] = p
    return [Kernel(f"corpus/{n}", f"corpus:{themes.get(n, 'other')}", p) for n, p in sorted(by_name.items())]


def rust_kernels() -> List[Kernel]:
    return [Kernel(f"rust/{p.name[:-len('.tileirbc')]}", f"rust:{p.name.split('.')[0]}", p)
            for p in sorted(RUST.glob("*.tileirbc"))]


def synthetic_kernels() -> List[Kernel]:
    return [Kernel(f"synthetic/{p.name.split('.')[0]}", "synthetic", p) for p in sorted(SYNTHETIC.glob("*.tileirbc"))]


def reference_kernels(cache: Optional[Path] = None, one_per_op: bool = False) -> List[Kernel]:
    """The reference suite's bytecode (13.3), read only: ``cache``; else REFERENCE_CACHE when it
    holds any (what ``export_reference`` wrote: scripts/mutation_on_device.sh packs it); else the
    built suite (tests/conftest.py built_reference_dir); else exported once into a temporary folder
    (needs cuda.tile). Nothing is written into the repo. [] when it cannot be exported."""
    if cache is None:
        from tests.reference_build import built_reference_dir
        cache = next((c for c in (REFERENCE_CACHE, built_reference_dir()) if any(c.glob("*/*.tileirbc"))), None)
        if cache is None:
            cache = _exported_reference()
    if cache is None or not any(cache.glob("*/*.tileirbc")):
        return []
    out = []
    for op_dir in sorted(p for p in cache.iterdir() if p.is_dir()):
        files = sorted(op_dir.glob("*.tileirbc"))
        if one_per_op and files:
            files = files[:1]
        out.extend(Kernel(f"reference/{op_dir.name}/{p.stem}", op_dir.name, p) for p in files)
    return out


@lru_cache(maxsize=None)
def _exported_reference() -> Optional[Path]:
    """The reference suite exported into a temporary folder (once per process); None without cuda.tile."""
    cache = Path(tempfile.mkdtemp(prefix="tileir_mutation_reference_"))
    try:
        export_reference(cache)
    except Exception:  # cuda.tile missing: the reference suite is skipped
        return None
    return cache


def export_reference(cache: Path = REFERENCE_CACHE) -> int:
    """Export the reference suite's bytecode into ``cache`` (scripts/mutation_on_device.sh packs
    REFERENCE_CACHE for a machine without cuda.tile); how many variants were exported."""
    from tileir_diff.suite.catalog import load_catalog
    from tileir_diff.suite.export import export_all
    return sum(r.ok for r in export_all(load_catalog(), archs=(), build_root=cache, jobs=1))


def all_kernels(reference: bool = True) -> List[Kernel]:
    ks = corpus_kernels() + rust_kernels() + synthetic_kernels()
    if reference:
        ks += reference_kernels()
    return ks


# --- validity ---------------------------------------------------------------------------------------

_DISASM = None


def disasm_tool() -> str:
    global _DISASM
    if _DISASM is None:
        _DISASM = find_tool("tileirdisasm")
        if _DISASM is None:
            raise RuntimeError("tileirdisasm not found (pip install nvidia-cuda-tileiras==13.5.37)")
    return _DISASM


def disassemble(data: bytes) -> Tuple[bool, str]:
    """(accepted, text or error) from tileirdisasm."""
    with tempfile.NamedTemporaryFile(suffix=".tileirbc", delete=False) as f:
        f.write(data)
        name = f.name
    try:
        p = subprocess.run([disasm_tool(), name], capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(name)
    if p.returncode != 0:
        return False, (p.stderr or p.stdout).strip().splitlines()[0] if (p.stderr or p.stdout).strip() else \
            f"exit {p.returncode}"
    return True, p.stdout


@lru_cache(maxsize=1024)
def original_text(path: str) -> str:
    ok, text = disassemble(Path(path).read_bytes())
    if not ok:
        raise RuntimeError(f"{path}: tileirdisasm rejects the original: {text}")
    return text


@dataclass
class Validated:
    ok: bool
    reason: str = ""          # discard reason
    detail: str = ""
    data: bytes = b""
    text: str = ""
    module: object = None


def validate(kernel: Kernel, build, version=None) -> Validated:
    try:
        mod = build()
    except Exception as exc:
        return Validated(False, "build", f"{type(exc).__name__}: {exc}"[:200])
    try:
        data = write_bytecode(mod, version or mod.version)
    except Exception as exc:
        return Validated(False, "writer", f"{type(exc).__name__}: {exc}"[:200])
    ok, text = disassemble(data)
    if not ok:
        return Validated(False, "disasm", text[:300])
    if version is None and text == original_text(str(kernel.path)):
        return Validated(False, "no-op", "tileirdisasm prints the original's text")
    try:
        back = read_bytecode(data, "<mutant>")
    except Exception as exc:
        return Validated(False, "reader", f"{type(exc).__name__}: {exc}"[:200])
    return Validated(True, data=data, text=text, module=back)


# --- evaluation ---------------------------------------------------------------------------------------

@dataclass
class Outcome:
    kernel: str
    family: str
    kind: str
    cls: str
    key: str
    desc: str
    status: str                       # a MUTANT_STATUSES value, or "discarded"
    discard: str = ""                 # the DISCARD_REASONS value when discarded
    verdict: str = ""
    detail: str = ""                  # why discarded / the diff's first root / interpreter message
    interp: str = ""                  # interpreter status
    seconds: float = 0.0
    text: str = field(default="", repr=False)     # the mutant's tileirdisasm text (kept for dumps)
    data: bytes = field(default=b"", repr=False)

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in ("kernel", "family", "kind", "cls", "key", "desc", "status", "discard",
                                            "verdict", "detail", "interp", "seconds")}
        d["seconds"] = round(self.seconds, 3)
        return d


def run_diff(a, b):
    return tileir_diff.diff(a, b, with_summary=False, with_lines=False, limits=DIFF_LIMITS)


def interp_check(a, b, seed: int = 0):
    from tileir_diff.execute import check
    try:
        return check(a, b, trials=TRIALS, seed=seed, time_budget=EXEC_BUDGET_S)
    except Exception as exc:  # an interpreter crash is "cannot run"
        class _R:
            status = "unsupported"
            message = f"interpreter raised {type(exc).__name__}: {exc}"[:200]
        return _R()


def evaluate_mutation(kernel: Kernel, mut, execute_caught: bool = False) -> Outcome:
    t0 = time.perf_counter()
    out = Outcome(kernel.name, kernel.family, mut.kind, mut.klass, mut.key, mut.desc, "discarded")
    v = validate(kernel, mut.build)
    if not v.ok:
        out.discard, out.detail = v.reason, v.detail
        out.seconds = time.perf_counter() - t0
        return out
    out.text, out.data = v.text, v.data
    original = kernel.module
    try:
        r = run_diff(original, v.module)
        out.verdict = r.verdict
        if r.differences:
            out.detail = r.differences[0].message[:200]
        elif r.reason:
            out.detail = r.reason[:200]
    except Exception as exc:
        out.status, out.verdict = "crash", "crash"
        out.detail = f"diff raised {type(exc).__name__}: {exc}"[:200]
        out.seconds = time.perf_counter() - t0
        return out
    if out.verdict == "specialized" and any("calling_convention" in d.detail for d in r.differences):
        # the mutant is the original with its arguments in another order, and the report says so
        # as a signature difference (which allow="specialization" alone does not accept)
        out.status = "caught"
        out.detail = "reported as a calling-convention difference: " + out.detail
    elif out.verdict in MUTANT_SAME or execute_caught:
        e = interp_check(original, v.module)
        out.interp = e.status
        if out.verdict in MUTANT_SAME:
            out.status, out.detail = same_verdict_status(mut, e, original, v.module)
        else:
            out.status = "caught"
    else:
        out.status = "caught"
    out.seconds = time.perf_counter() - t0
    return out


def same_verdict_status(mut, e, original, mutant) -> Tuple[str, str]:
    """What a mutant reported identical/equivalent is: shown different (false-same), not shown
    different by any oracle (maybe-equivalent), or not decidable (false-same-unverified)."""
    if e.status == "diverged":
        return "false-same", e.message[:200]
    oracle = getattr(mut, "oracle", "interp")
    if oracle == "token":
        from .ir_tools import token_orderings
        removed = token_orderings(original) - token_orderings(mutant)
        if removed:
            return "false-same-unverified", (f"token model: {len(removed)} ordering(s) between accesses to one "
                                             f"array removed, e.g. {sorted(removed)[0]} (the interpreter runs in "
                                             f"program order and cannot show it)")
        return "maybe-equivalent", "token model: no ordering between accesses to one array removed"
    if oracle == "blind":
        return "false-same-unverified", "the interpreter does not model this attribute (" + e.message[:120] + ")"
    if e.status == "no_divergence":
        return "maybe-equivalent", e.message[:200]
    return "false-same-unverified", e.message[:200]


def evaluate_invariance(kernel: Kernel, tr) -> Outcome:
    t0 = time.perf_counter()
    out = Outcome(kernel.name, kernel.family, tr.kind, tr.klass, tr.key, tr.desc, "discarded")
    v = validate_invariance(kernel, tr)
    if not v.ok:
        out.discard, out.detail = v.reason, v.detail
        out.seconds = time.perf_counter() - t0
        return out
    out.text, out.data = v.text, v.data
    original = kernel.module
    e = interp_check(original, v.module)
    out.interp = e.status
    if e.status == "diverged":
        out.status, out.discard, out.detail = "discarded", "not-invariant", e.message[:200]
        out.seconds = time.perf_counter() - t0
        return out
    try:
        r = run_diff(original, v.module)
        out.verdict = r.verdict
        out.status = "ok" if r.verdict in SAME else "false-alarm"
        if r.differences:
            out.detail = "; ".join(d.message for d in r.differences[:2])[:300]
        elif r.reason:
            out.detail = r.reason[:200]
    except Exception as exc:
        out.status, out.verdict = "false-alarm", "crash"
        out.detail = f"diff raised {type(exc).__name__}: {exc}"[:200]
    out.seconds = time.perf_counter() - t0
    return out


def validate_invariance(kernel: Kernel, tr) -> Validated:
    try:
        mod = tr.build()
    except Exception as exc:
        return Validated(False, "build", f"{type(exc).__name__}: {exc}"[:200])
    version = getattr(tr, "version", None) or mod.version
    try:
        data = write_bytecode(mod, version)
    except Exception as exc:
        return Validated(False, "writer", f"{type(exc).__name__}: {exc}"[:200])
    ok, text = disassemble(data)
    if not ok:
        return Validated(False, "disasm", text[:300])
    try:
        back = read_bytecode(data, "<transformed>")
    except Exception as exc:
        return Validated(False, "reader", f"{type(exc).__name__}: {exc}"[:200])
    return Validated(True, data=data, text=text, module=back)


# --- sampling ------------------------------------------------------------------------------------------

def rng_for(*parts) -> random.Random:
    return random.Random(zlib.crc32("/".join(map(str, parts)).encode()))


def sample(items: Sequence, n: Optional[int], *seed_parts) -> List:
    """A deterministic sample of ``n`` of ``items`` in their original order (all when n is None)."""
    items = list(items)
    if n is None or len(items) <= n:
        return items
    idx = sorted(rng_for(*seed_parts).sample(range(len(items)), n))
    return [items[i] for i in idx]
