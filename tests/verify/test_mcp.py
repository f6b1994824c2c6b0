"""`tileir-diff mcp` through the official SDK's own stdio client: the four tools are listed with
their annotations, parameter descriptions, enums and output schemas and the server its version;
each returns its versioned JSON as structured content and as compact JSON text; a bad input is a
tool error with a kind after which the server still answers; a call the client abandons
(notifications/cancelled) has its worker killed."""
from __future__ import annotations

import json
import os
import shutil
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pytest

pytest.importorskip("mcp")
import anyio  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "v13_5"


def _params(workspace: Path, *extra: str) -> StdioServerParameters:
    # cwd elsewhere than --root: relative paths must resolve against the root, not the cwd
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "tileir_diff.cli", "mcp", "--root", str(workspace), *extra],
                                 cwd=str(ROOT), env={**os.environ, "PYTHONPATH": str(ROOT)})


def _payload(result) -> dict:
    """The tool's JSON: one text content (compact JSON) equal to the structured content."""
    assert len(result.content) == 1, result.content
    text = result.content[0].text
    assert text.isascii() and "\n" not in text
    body = json.loads(text)
    assert body == result.structured_content
    return body


def _error_kind(result) -> str:
    assert result.is_error
    return _payload(result)["kind"]


def _has_cuda_tile() -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec("cuda.tile") is not None
    except ImportError:
        return False


def test_tools_listed_called_and_bad_input_is_a_tool_error(tmp_path):
    shutil.copy(CORPUS / "load_store_unchecked.v13_5.tileirbc", tmp_path / "a.tileirbc")
    (tmp_path / "garbage.tileirbc").write_bytes(b"\x7fTileIR\x00" + b"\xff" * 40)

    async def session():
        async with Client(_params(tmp_path)) as c:
            info = c.server_info
            listed = (await c.list_tools()).tools
            calls = {
                "same": ("diff", {"left": "a.tileirbc", "right": str(tmp_path / "a.tileirbc")}),
                "lines": ("diff", {"left": "a.tileirbc", "right": "a.tileirbc", "no_lines": False}),
                "missing": ("diff", {"left": "missing.tileirbc", "right": "a.tileirbc"}),
                "garbage": ("diff", {"left": "garbage.tileirbc", "right": "a.tileirbc"}),
                "outside": ("summary", {"path": str(ROOT / "README.md")}),
                "rule": ("diff", {"left": "a.tileirbc", "right": "a.tileirbc", "disable": ["no-such-rule"]}),
                "summary": ("summary", {"path": "a.tileirbc"}),
                "verify_unknown": ("verify", {"op": "no_such_op"}),
                # performance alone: skipped with its reason without a GPU (no build needed for that)
                "verify_perf": ("verify", {"op": "vector_add", "variant": "f32_t1024", "stages": ["performance"]}),
                "again": ("diff", {"left": "a.tileirbc", "right": "a.tileirbc"}),
            }
            if _has_cuda_tile():  # analyze exports the reference kernel with cuda.tile
                calls["analyze"] = ("analyze", {"op": "vector_add"})
            results = {name: await c.call_tool(tool, args) for name, (tool, args) in calls.items()}
            return info, listed, results

    info, listed, r = anyio.run(session)
    deadline = time.monotonic() + 10
    while _workers_in(tmp_path.resolve()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _workers_in(tmp_path.resolve())  # the spare worker ended with the server
    assert info is not None and info.name == "tileir-diff" and info.version == version("tileir_diff")
    tools = {t.name: t for t in listed}
    assert sorted(tools) == ["analyze", "diff", "summary", "verify"]
    assert tools["diff"].annotations.read_only_hint and tools["summary"].annotations.read_only_hint
    assert not tools["verify"].annotations.read_only_hint
    for t in listed:
        assert t.output_schema and t.description
        assert all(p.get("description") for p in t.input_schema["properties"].values()), t.name
    diff_props = tools["diff"].input_schema["properties"]
    assert diff_props["execute"]["enum"] == ["never", "auto", "always"]
    assert "smt-equivalence" in json.dumps(diff_props["disable"])

    same = _payload(r["same"])
    assert not r["same"].is_error and same["verdict"] == "identical" and same["schema_version"]
    assert "left_lines" not in same  # compact by default
    assert _payload(r["lines"])["left_lines"]
    assert _error_kind(r["missing"]) == "bad_input" and "missing.tileirbc" in _payload(r["missing"])["message"]
    assert _error_kind(r["garbage"]) == "bad_input" and "garbage.tileirbc" in _payload(r["garbage"])["message"]
    assert _error_kind(r["outside"]) == "outside_workspace"
    assert _error_kind(r["rule"]) == "bad_input"
    assert _payload(r["summary"])["source"] == "a.tileirbc"
    assert _error_kind(r["verify_unknown"]) == "bad_input" and "no_such_op" in _payload(r["verify_unknown"])["message"]
    report = _payload(r["verify_perf"])
    assert not r["verify_perf"].is_error and report["kind"] == "verify_report" and report["stages"] == ["performance"]
    assert report["result"] in ("skipped", "pass", "fail")
    assert report["attempts"][0]["stages"][0]["status"] in ("skip", "pass", "fail")
    if "analyze" in r:
        analysis = _payload(r["analyze"])
        assert not r["analyze"].is_error and analysis["kind"] == "analyze_report" and analysis["op"] == "vector_add"
    assert _payload(r["again"])["verdict"] == "identical"  # the server outlived every error


def _workers_in(workspace: Path):
    """pids of tileir_diff MCP workers whose working directory is ``workspace``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if b"tileir_diff.verify.mcp_worker" in cmdline and cwd == str(workspace):
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="needs /proc")
def test_abandoned_call_kills_its_worker(tmp_path):
    shutil.copy(CORPUS / "large_flash_attention.v13_5.tileirbc", tmp_path / "slow.tileirbc")
    shutil.copy(CORPUS / "load_store_unchecked.v13_5.tileirbc", tmp_path / "a.tileirbc")
    workspace = tmp_path.resolve()
    seen = []

    async def session():
        # no spare worker: every mcp_worker in the workspace is then the call's
        async with Client(_params(workspace, "--no-spare-worker")) as c:
            async with anyio.create_task_group() as tg:
                async def slow():
                    # the client gives up after 4 s and sends notifications/cancelled
                    with pytest.raises((TimeoutError, MCPError)):
                        await c.call_tool("diff", {"left": "slow.tileirbc", "right": "slow.tileirbc",
                                                   "execute": "always", "trials": 1000}, read_timeout_seconds=4)
                tg.start_soon(slow)
                with anyio.fail_after(30):
                    while not seen:
                        seen.extend(_workers_in(workspace))
                        await anyio.sleep(0.1)
            deadline = time.monotonic() + 15
            while _workers_in(workspace) and time.monotonic() < deadline:
                await anyio.sleep(0.1)
            left = _workers_in(workspace)
            return left, await c.call_tool("diff", {"left": "a.tileirbc", "right": "a.tileirbc"})

    left, after = anyio.run(session)
    assert seen and not left, (seen, left)
    assert _payload(after)["verdict"] == "identical"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_killed_server_leaves_no_worker(tmp_path):
    import subprocess
    shutil.copy(CORPUS / "large_flash_attention.v13_5.tileirbc", tmp_path / "slow.tileirbc")
    workspace = tmp_path.resolve()
    params = _params(workspace, "--no-spare-worker")
    server = subprocess.Popen([params.command, *params.args], cwd=params.cwd, env=params.env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(message):
        server.stdin.write((json.dumps(message) + "\n").encode())
        server.stdin.flush()

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        assert json.loads(server.stdout.readline())["id"] == 1
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "diff", "arguments": {"left": "slow.tileirbc", "right": "slow.tileirbc",
                                                       "execute": "always", "trials": 1000}}})
        deadline = time.monotonic() + 30
        while not _workers_in(workspace) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _workers_in(workspace)
    finally:
        server.kill()
        server.wait()
    deadline = time.monotonic() + 10
    while _workers_in(workspace) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _workers_in(workspace)
