"""tileir_diff.verify.confine (the MCP server's path rules) and the worker's own answers, without
a server: relative paths resolve against the root whatever the working directory, a symlinked root
is the folder it names, non-regular files are refused by what they are, a file that grows past
the cap while read is refused, and the worker turns every failure into an answer with a kind."""
from __future__ import annotations

import os

import pytest

from tileir_diff.verify.confine import ConfinementError, Workspace, read_fd
from tileir_diff.verify.mcp_worker import answer


def test_relative_paths_resolve_against_the_root_not_the_cwd(tmp_path, monkeypatch):
    root = tmp_path / "root"
    root.mkdir()
    (root / "k.tileirbc").write_bytes(b"inside")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "k.tileirbc").write_bytes(b"cwd")
    monkeypatch.chdir(elsewhere)
    ws = Workspace(root)
    assert ws.read_bytes("k.tileirbc") == b"inside"
    assert ws.resolve("./sub/../k.tileirbc") == root.resolve() / "k.tileirbc"


def test_a_symlinked_root_is_the_folder_it_names(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "k").write_bytes(b"x")
    os.symlink(real, tmp_path / "link")
    ws = Workspace(tmp_path / "link")
    assert ws.root == real.resolve()
    assert ws.read_bytes(str(tmp_path / "link" / "k")) == b"x"  # through the link: inside
    with pytest.raises(ConfinementError) as e:
        ws.resolve(str(tmp_path))
    assert e.value.kind == "outside_workspace"


@pytest.mark.parametrize("make,what", [
    (lambda p: os.mkfifo(p), "a FIFO"),
    (lambda p: os.mkdir(p), "a directory"),
])
def test_non_regular_files_are_named_and_refused(tmp_path, make, what):
    make(tmp_path / "x")
    with pytest.raises(ConfinementError) as e:
        Workspace(tmp_path).open_regular("x")
    assert e.value.kind == "bad_input" and what in e.value.message


def test_the_root_itself_is_not_a_file(tmp_path):
    with pytest.raises(ConfinementError) as e:
        Workspace(tmp_path).open_regular(".")
    assert "a directory" in e.value.message


def test_size_cap_before_and_while_reading(tmp_path):
    (tmp_path / "big").write_bytes(b"x" * 1000)
    ws = Workspace(tmp_path, max_file_bytes=100)
    with pytest.raises(ConfinementError) as e:
        ws.open_regular("big")
    assert "1000 bytes" in e.value.message
    (tmp_path / "small").write_bytes(b"x" * 50)
    opened = ws.open_regular("small")
    try:
        with open(tmp_path / "small", "ab") as f:  # it grows after the check
            f.write(b"y" * 500)
        with pytest.raises(ConfinementError) as e:
            read_fd(opened.fd, "small", 100)
        assert "100-byte limit" in e.value.message
    finally:
        opened.close()


def test_worker_answers_carry_a_kind():
    assert answer({"tool": "verify", "op": "no_such_op", "kernel_rs": "fn f() {}"})["kind"] == "bad_input"
    assert answer({"tool": "no_such_tool"})["kind"] == "internal"
    unreadable = answer({"tool": "summary", "inputs": {"path": {"index": 0, "label": "k"}}, "fds": [],
                         "max_file_bytes": 10})
    assert unreadable["ok"] is False and unreadable["kind"] == "internal"
