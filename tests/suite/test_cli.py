"""`suite list` / `suite export` command lines."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from tileir_diff.suite.catalog import load_catalog

from tileir_diff.suite import command

REFERENCE = Path(__file__).resolve().parents[2] / "reference"


def test_list_json_has_every_variant(capsys, tmp_path):
    assert command.main(["list", "--format", "json", "--build-root", str(tmp_path)]) == 0
    rows = json.loads(capsys.readouterr().out)
    ops = sorted(p.name for p in REFERENCE.iterdir() if (p / "analysis.json").is_file())
    assert sorted({r["op"] for r in rows}) == ops
    r = next(r for r in rows if r["op"] == "softmax" and r["variant"] == "f16_online_n1024")
    assert r["dtypes"] == {"x": "float16", "out": "float16"}
    assert r["constants"] == {"TILE_N": 1024}
    assert r["bytecode"] == str(tmp_path / "softmax" / "f16_online_n1024.tileirbc")
    assert r["bytecode_exists"] is False
    assert set(r["cubins"]) == {"sm_90", "sm_100"}


def test_list_text_and_main_cli_spelling(capsys):
    assert command.main(["suite", "list", "--op", "vector_add"]) == 0
    out = capsys.readouterr().out
    n = len(load_catalog(ops=["vector_add"])[0].variants)
    assert "vector_add" in out and "f32_strided_t1024" in out and f"1 ops, {n} variants" in out


def test_unknown_op_is_exit_2(capsys):
    assert command.main(["list", "--op", "nope"]) == 2
    assert "no such op" in capsys.readouterr().err


def test_register_adds_suite_command():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    command.register(sub)
    args = parser.parse_args(["suite", "export", "--op", "vector_add", "--arch", "sm_90", "--arch", "sm_100"])
    assert args.archs == ["sm_90", "sm_100"] and args.ops == ["vector_add"]
    assert args.func is command.run


def test_export_one_op(capsys, tmp_path):
    pytest.importorskip("cuda.tile", reason="cuda-tile not installed")
    rc = command.main(["export", "--op", "vector_add", "--variant", "f16_t1024", "--arch", "sm_90",
                   "--build-root", str(tmp_path), "--format", "json"])
    assert rc == 0
    (rec,) = json.loads(capsys.readouterr().out)
    assert rec["ok"] and rec["cubin_status"] == {"sm_90": "compiled"}
    assert (tmp_path / "vector_add" / "f16_t1024.sm_90.cubin").is_file()


def test_export_jobs_not_capped_but_positive(capsys):
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers(dest="command"))
    assert parser.parse_args(["suite", "export", "--jobs", "8"]).jobs == 8
    with pytest.raises(SystemExit):
        parser.parse_args(["suite", "export", "--jobs", "0"])
    assert "must be at least 1" in capsys.readouterr().err


def test_status_progress_on_stderr_only_when_asked(capsys, tmp_path):
    # No Rust build in tmp_path: every row is "missing", quickly; the bar still counts them.
    n = len(load_catalog(ops=["vector_add"])[0].variants)
    args = ["status", "--op", "vector_add", "--rust-build", str(tmp_path), "--build-root", str(tmp_path)]
    # nothing built: the table is printed, then the error says so; nothing compared, status 3
    assert command.main(args + ["--progress"]) == command.EXIT_NOTHING_BUILT
    out, err = capsys.readouterr()
    assert f"{n}/{n}" in err and "status:" in err and "variant" in err  # count done/total, unit
    assert "status:" not in out and f"0 of {n} variants ported" in out
    nothing = f"error: nothing is built: no port IR under {tmp_path} for any of the {n} variant(s)"
    assert nothing in err
    assert command.main(args) == command.EXIT_NOTHING_BUILT  # stderr is not a terminal here: no bar
    out2, err2 = capsys.readouterr()
    assert err2.startswith(nothing) and err2.count("\n") == 1 and out2 == out


def test_suite_subcommands_have_descriptions(capsys):
    for name in ("list", "export", "status"):
        with pytest.raises(SystemExit):
            command.main([name, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert {"list": "validated on the way", "export": "compile it to cubins with tileiras",
                "status": "The port table"}[name] in text


def test_sass_progress_counts_the_comparisons(capsys, tmp_path):
    from tileir_diff.suite.sass import find_tool
    if find_tool("nvdisasm") is None or find_tool("cuobjdump") is None:
        pytest.skip("nvdisasm/cuobjdump not installed (pip install -e .[sass])")
    # two variants with (unreadable) cubins on both sides: two comparisons, each an error row
    variants = [v.name for v in load_catalog(ops=["vector_add"])[0].variants][:2]
    for side in ("ref", "rust"):
        for name in variants:
            (tmp_path / side / "vector_add").mkdir(parents=True, exist_ok=True)
            (tmp_path / side / "vector_add" / f"{name}.sm_90.cubin").write_bytes(b"not an ELF")
    args = ["sass", "--op", "vector_add", "--build-root", str(tmp_path / "ref"), "--rust-build", str(tmp_path / "rust")]
    command.main(args + ["--progress"])
    out, err = capsys.readouterr()
    assert "sass:" in err and "2/2" in err and "sass:" not in out
    assert sum(name in out for name in variants) == 2


def test_status_outputs_that_cannot_be_written_are_one_line_before_the_table(capsys, tmp_path):
    base = ["status", "--op", "vector_add", "--rust-build", str(tmp_path), "--build-root", str(tmp_path)]
    missing = tmp_path / "no" / "such" / "PORTS.md"
    assert command.main(base + ["--markdown", str(missing)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"error: cannot write {missing}: No such file or directory\n"  # no table computed
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    assert command.main(base + ["--report-dir", str(blocker / "reports")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"error: cannot write {blocker / 'reports'}: ") and err.count("\n") == 1
