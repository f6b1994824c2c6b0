"""The package's layering (README, "Layout"): a module imports only from its own layer or the
layers below it, at module level or inside a function. In-function imports used to hold import
cycles together (ir -> text -> bytecode -> ir); this test keeps them out. A crossing would
be listed with its reason in ALLOWED_UPWARD; none is left (the result model moved below compare/,
into report/, beside its renderers)."""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tileir_diff"

# lowest first: the data path of the README
LAYERS = [
    {"dialect", "errors", "paths", "options", "progress", "gc_pause", "record", "record_inits"},
    {"ir"},
    {"bytecode", "text"},
    # a kernel's calling convention, argument packing and launching (CUDA driver, stream): below
    # the interpreter, which runs kernels by the same convention, and the ports, which launch
    {"launch"},
    {"normalize", "summary", "interp"},
    {"graph", "check", "execute"},
    {"match"},
    # the result model and its renderers: compare/ builds a DiffResult, report/ defines and renders
    # it and imports nothing of the engine (reports re-render from saved JSON)
    {"report"},
    {"compare"},
    {"loader", "api", "suite", "ports", "__init__"},
    {"verify", "commands", "cli", "pytest_plugin", "tools"},
]
LAYER = {unit: i for i, units in enumerate(LAYERS) for unit in units}

# (importer, imported) -> why it still crosses upwards
ALLOWED_UPWARD: dict = {}  # none left: keep it empty


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _is_module(parts) -> bool:
    path = PACKAGE.parent.joinpath(*parts)
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imports():
    """(importer unit, imported unit, where) for every tileir_diff import across units."""
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).with_suffix("")
        module = ".".join(("tileir_diff",) + rel.parts)
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        if path.name == "__init__.py":
            module = module.rsplit(".", 1)[0]
            package = module
        me = _unit(module)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                    targets = [".".join(base + ([node.module] if node.module else []))]
                    if not node.module:  # from . import x, y: a name is a module, or a name in the package
                        targets = [".".join(base + [a.name]) if _is_module(base + [a.name]) else ".".join(base)
                                   for a in node.names]
                else:
                    targets = [node.module or ""]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for t in targets:
                if t == "tileir_diff" or t.startswith("tileir_diff."):
                    other = _unit(t)
                    if other != me:
                        yield me, other, f"{rel.as_posix()}.py:{node.lineno}"


def test_every_unit_has_a_layer():
    units = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
             if (p.suffix == ".py") or (p.is_dir() and (p / "__init__.py").is_file())}
    assert units - set(LAYER) == set(), f"place these in LAYERS: {sorted(units - set(LAYER))}"


def test_imports_go_down_the_layers():
    upward, seen = [], defaultdict(list)
    for me, other, where in _imports():
        if LAYER[other] > LAYER[me]:
            seen[(me, other)].append(where)
            if (me, other) not in ALLOWED_UPWARD:
                upward.append(f"{where}: {me} (layer {LAYER[me]}) imports {other} (layer {LAYER[other]})")
    assert not upward, "imports against the layering (README, Layout):\n" + "\n".join(upward)
    stale = set(ALLOWED_UPWARD) - set(seen)
    assert not stale, f"allowed crossings that no longer happen (drop them): {sorted(stale)}"


def test_the_ir_core_imports_no_reader_printer_or_later_stage():
    below_ir = LAYERS[0] | {"ir"}
    for me, other, where in _imports():
        if me == "ir":
            assert other in below_ir, f"{where}: the IR core imports {other}"


def test_the_launch_package_stands_alone():
    """launch/ is the one description of how a kernel is called and launched; it reads the suite's
    variants duck-typed, so the interpreter, execute/, the suite and the ports can all import it."""
    crossings = [f"{where}: launch imports {other}" for me, other, where in _imports() if me == "launch"]
    assert not crossings, "\n".join(crossings)
    users = {me for me, other, _ in _imports() if other == "launch"}
    assert {"interp", "execute", "suite", "ports"} <= users, f"launch/ is imported by {sorted(users)} only"


def test_the_trusted_checker_reads_only_the_ir_and_the_op_table():
    """check/ is the trust boundary (docs/matching.md): what it proves must not rest on the graph,
    the matcher, the normalizer or the interpreter, which its layer would otherwise allow. It
    reads the IR, the op table, the error types (a time limit) and, for a caller-stated launch
    fact, the grammar of its text (launch/facts.py, ``smt.launch_fact``); nothing else."""
    allowed = {"ir", "dialect", "errors", "launch"}
    crossings = [f"{where}: check imports {other}" for me, other, where in _imports()
                 if me == "check" and other not in allowed]
    assert not crossings, "\n".join(crossings)
