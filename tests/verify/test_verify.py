"""tileir_diff.verify without a build: the cache, stage selection, usage errors, the JSON schema
(every record a run writes validates; broken records do not), the workspace's per-op hashes and
the scripted agent's rules (each undoes its planted fault, none touches a correct port)."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tileir_diff.verify.cache import BuildCache
from tileir_diff.verify.run import VerifyUsageError, normalize_stages, verify_port
from tileir_diff.verify.stages import STAGES
from tileir_diff.verify.workspace import Crate, apply_files, sync_tree

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "tileir_diff" / "verify" / "verify.schema.json").read_text())


def _agent_module():
    spec = importlib.util.spec_from_file_location("_agent_loop", ROOT / "examples" / "agent_loop.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


AGENT = _agent_module()


def validate(doc) -> None:
    jsonschema.validate(doc, SCHEMA, cls=jsonschema.Draft202012Validator)


# --- cache ---------------------------------------------------------------------------------------

def test_cache_counts_hits_misses_and_time_saved(tmp_path):
    cache = BuildCache(tmp_path)
    assert cache.get("ir", "ab" * 32) is None
    src = tmp_path / "x.bin"
    src.write_bytes(b"\x01\x02")
    cache.put("ir", "ab" * 32, result={"n": 1}, seconds=2.5, files={"x.bin": src})
    src.write_bytes(b"changed after storing")
    hit = cache.get("ir", "ab" * 32)
    assert hit is not None and hit.result == {"n": 1} and hit.file("x.bin").read_bytes() == b"\x01\x02"
    assert cache.get("ir", "cd" * 32) is None
    stats = cache.stats.to_dict()
    assert (stats["hits"], stats["misses"], stats["seconds_saved"]) == (1, 2, 2.5)
    assert stats["by_kind"]["ir"] == {"hits": 1, "misses": 2}


def test_cache_entry_without_its_record_is_a_miss(tmp_path):
    """A half-written entry (no entry.json) never counts as a hit."""
    cache = BuildCache(tmp_path)
    (tmp_path / "ir" / "ef" / ("ef" * 32)).mkdir(parents=True)
    assert cache.get("ir", "ef" * 32) is None


# --- stages and usage ----------------------------------------------------------------------------

def test_stages_by_name_or_number_in_run_order():
    assert normalize_stages(None) == list(STAGES)
    assert normalize_stages(["numerics", "1", 3]) == ["cargo_test", "tileiras", "numerics"]
    with pytest.raises(VerifyUsageError, match="unknown stage 'linting'"):
        normalize_stages(["linting"])
    with pytest.raises(VerifyUsageError, match="unknown stage '7'"):
        normalize_stages([7])


UNPORTED = sorted(p.name for p in (ROOT / "reference").iterdir()
                  if (p / "analysis.json").is_file() and not (ROOT / "rust_kernels" / "src" / "ops" / p.name).is_dir())


@pytest.mark.parametrize("args, message", [
    (("no_such_op",), "no such op"),
    (("vector_add", "no_such_variant"), "has no variant 'no_such_variant'"),
    ((UNPORTED[0] if UNPORTED else "",), "has no cuTile Rust port"),
])
def test_usage_errors(tmp_path, args, message):
    if not args[0]:
        pytest.skip("every reference operator has a port")
    with pytest.raises(VerifyUsageError, match=message):
        verify_port(*args, workdir=tmp_path)


def test_cli_usage_error_is_an_error_line_exit_2(tmp_path):
    r = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "verify", "no_such_op", "--workdir", str(tmp_path)],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    last = r.stderr.splitlines()[-1]  # after the subcommand's usage, as every usage error
    assert r.returncode == 2 and last.startswith("tileir-diff verify: error: ") and "no_such_op" in last, r.stderr
    assert "Traceback" not in r.stderr


def test_performance_alone_skips_without_a_gpu_and_validates(tmp_path):
    """A real run (the one stage that needs no build here): report, record, diagnostics, schema.
    Nothing ran, so nothing is claimed: result skipped, exit status 3, not a pass."""
    if importlib.util.find_spec("torch") is not None:
        import torch
        if torch.cuda.is_available():
            pytest.skip("a GPU is present: the stage would measure")
    r = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "verify", "vector_add", "f32_t1024", "--stages",
                        "performance", "--json", "--workdir", str(tmp_path)], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
    assert r.returncode == 3, r.stderr
    report = json.loads(r.stdout)
    validate(report)
    assert report["result"] == "skipped" and not report["converged"]
    (stage,) = report["attempts"][0]["stages"]
    assert stage["name"] == "performance" and stage["status"] == "skip" and "GPU" in stage["reason"]
    run_dir = Path(report["diagnostics"])
    record = json.loads((run_dir / "attempt-1" / "record.json").read_text())
    validate(record)
    assert record == report["attempts"][0]
    html = (run_dir / "report.html").read_text()
    assert "performance" in html and "<script" not in html


# --- schema ----------------------------------------------------------------------------------------

def _record(**changes):
    stage = {"name": "ir_compare", "index": 2, "status": "fail", "seconds": 1.0, "reason": "1 variant(s) differ",
             "artifacts": [], "details": {}, "cache": {}}
    doc = {"schema_version": "1.0", "kind": "verify_attempt", "op": "gelu", "variant": "tanh_f32", "attempt": 1,
           "result": "fail", "failed_stage": "ir_compare", "stages": [stage],
           "failure": {"stage": "ir_compare", "message": "1 variant(s) differ", "differences": [
               {"category": "constant", "message": "constant <f32: 0.1> -> <f32: 0.2>"}]},
           "sources": {"kernel.rs": "0" * 64}, "changes": None,
           "cache": {"hits": 0, "misses": 3, "seconds_saved": 0.0}, "seconds": 1.0, "diagnostics": "/tmp/x"}
    doc.update(changes)
    return doc


def test_schema_accepts_a_failed_attempt_and_rejects_broken_ones():
    validate(_record())
    broken = [
        _record(schema_version="2.0"),
        _record(result="maybe"),
        _record(failure=None),  # a failed attempt must say why
        _record(result="pass"),  # ... and a passing one must not carry a failure
        _record(stages=[]),
        _record(sources={"kernel.rs": "not a hash"}),
        _record(stages=[{**_record()["stages"][0], "reason": ""}]),  # a failed stage gives its reason
    ]
    for doc in broken:
        with pytest.raises(jsonschema.ValidationError):
            validate(doc)


# --- workspace ---------------------------------------------------------------------------------------

def _mini_crate(root: Path) -> Crate:
    for rel, text in {"Cargo.toml": "[package]\n", "src/lib.rs": "mod ops;\n", "src/ops/mod.rs": "ops!{}\n",
                      "src/ops/a/kernel.rs": "fn a() {}\n", "src/ops/b/kernel.rs": "fn b() {}\n",
                      "tests/abi.rs": "#[test] fn a_x() {}\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return Crate(root)


def test_op_hash_changes_only_with_that_op_and_shared_sources(tmp_path):
    crate = _mini_crate(tmp_path / "c")
    a, b = crate.op_hash("a"), crate.op_hash("b")
    apply_files(crate, "b", {"kernel.rs": "fn b() { changed }\n"})
    assert crate.op_hash("a") == a and crate.op_hash("b") != b
    (crate.root / "src" / "lib.rs").write_text("mod ops; // shared\n")
    assert crate.op_hash("a") != a
    before = crate.op_hash("a")
    (crate.root / "tests" / "abi.rs").write_text("#[test] fn a_y() {}\n")
    assert crate.op_hash("a") == before and crate.op_hash("a", with_tests=True) != before


def test_repairs_write_only_rust_files_of_the_op(tmp_path):
    crate = _mini_crate(tmp_path / "c")
    for bad in ("../lib.rs", "sub/kernel.rs", ".hidden.rs", "notes.txt"):
        with pytest.raises(ValueError, match="only write .rs files"):
            apply_files(crate, "a", {bad: "x"})


def test_sync_writes_only_changed_files_and_removes_extra(tmp_path):
    src = _mini_crate(tmp_path / "src").root
    dest = tmp_path / "dest"
    assert sync_tree(src, dest) == 6
    (dest / "src" / "ops" / "a" / "stale.rs").write_text("x")
    (dest / "target").mkdir()
    (dest / "target" / "keep").write_text("build output")
    (src / "src" / "ops" / "b" / "kernel.rs").write_text("fn b2() {}\n")
    assert sync_tree(src, dest) == 2  # b's kernel.rs rewritten, stale.rs removed
    assert (dest / "target" / "keep").is_file() and not (dest / "src" / "ops" / "a" / "stale.rs").exists()


# --- the scripted agent's rules ----------------------------------------------------------------------

@pytest.mark.parametrize("fault", [f for f in AGENT.FAULTS if f.fixable], ids=lambda f: f.kind)
def test_each_rule_undoes_its_fault_and_leaves_a_correct_port_alone(fault):
    path = ROOT / "rust_kernels" / "src" / "ops" / fault.op / fault.file
    original = path.read_text()
    broken = original.replace(fault.old, fault.new, 1)
    assert broken != original
    rules = {
        "swapped index": lambda text: AGENT.fix_index_order(text),
        "wrong reduce axis": lambda text: AGENT.fix_reduce_axes(text),
        "missing mask": lambda text: AGENT.fix_padding(text, "NegInf"),
        "wrong stride in the wrapper": lambda text: AGENT.fix_view_strides(text),
        "wrong constant": lambda text: AGENT.fix_constant(text, {"failure": {"differences": [
            {"category": "constant", "message": "constant <f32: 0.044714998453855515> : tile<16x256xf32> -> "
                                                "<f32: 0.04715000092983246> : tile<16x256xf32>"}]}}),
    }
    rule = rules[fault.kind]
    assert rule(broken) == original
    assert rule(original) is None  # the mutant it must not absorb: a correct source stays as it is


def test_agent_gives_up_without_a_rule():
    request = {"failure": {"stage": "cargo_test", "message": "1 of 3 Rust test(s) failed: vector_add_structure",
                           "test_output": "assertion `left == right` failed: f16_t1024"},
               "sources": {"kernel.rs": (ROOT / "rust_kernels/src/ops/vector_add/kernel.rs").read_text()}}
    assert AGENT.agent(request) is None


def test_the_padding_rule_reads_an_ir_difference_too():
    """With the IR stage first, the missing mask arrives as an IR difference, not a test message."""
    fault = next(f for f in AGENT.FAULTS if f.kind == "missing mask")
    original = (ROOT / "rust_kernels" / "src" / "ops" / fault.op / fault.file).read_text()
    broken = original.replace(fault.old, fault.new, 1)
    request = {"failure": {"stage": "ir_compare", "message": "1 variant(s) differ from the reference: f32_row_m4_n1024",
                           "differences": [{"category": "memory",
                                            "message": "make_partition_view result padding neg_inf -> none"}]},
               "sources": {"kernel.rs": broken}}
    assert AGENT.padding_from_differences(request) == "NegInf"
    assert AGENT.agent(request) == {"kernel.rs": original}
    request["failure"]["differences"][0]["message"] = "make_partition_view result padding none -> zero"
    assert AGENT.padding_from_differences(request) is None  # the reference has none: nothing to restore


def test_the_index_rule_reads_an_ir_difference_too():
    fault = next(f for f in AGENT.FAULTS if f.kind == "swapped index")
    original = (ROOT / "rust_kernels" / "src" / "ops" / fault.op / fault.file).read_text()
    request = {"failure": {"stage": "ir_compare", "message": "1 variant(s) differ from the reference: fwd_f32",
                           "differences": [{"category": "memory", "message":
                                            "load_view_tko operands index[0] and index[1] swapped: "
                                            "(%blockId_x, %blockId_y) -> (%blockId_y, %blockId_x)"}]},
               "sources": {"kernel.rs": original.replace(fault.old, fault.new, 1)}}
    assert AGENT.agent(request) == {"kernel.rs": original}
