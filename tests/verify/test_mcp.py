"""`tileir-diff mcp` through the official SDK's own stdio client: the four tools are listed, each
returns its versioned JSON, and a bad input is a tool error after which the server still answers."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "tests" / "corpus" / "v13_5" / "load_store_unchecked.v13_5.tileirbc"


def _payload(result) -> dict:
    """The tool's JSON: one text content, exactly what the CLI prints with --json."""
    assert len(result.content) == 1, result.content
    return json.loads(result.content[0].text)


async def _session_run(calls):
    params = StdioServerParameters(command=sys.executable, args=["-m", "tileir_diff.cli", "mcp"], cwd=str(ROOT),
                                   env={"PYTHONPATH": str(ROOT)})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return [await call(session) for call in calls]


def run(calls):
    import anyio
    return anyio.run(_session_run, calls)


def test_tools_listed_called_and_bad_input_is_a_tool_error(tmp_path):
    a = str(KERNEL)
    missing = str(tmp_path / "missing.tileirbc")
    garbage = tmp_path / "garbage.tileirbc"
    garbage.write_bytes(b"\x7fTileIR\x00" + b"\xff" * 40)

    async def tools(s):
        return sorted(t.name for t in (await s.list_tools()).tools)

    async def diff_same(s):
        return await s.call_tool("diff", {"left": a, "right": a})

    async def diff_missing(s):
        return await s.call_tool("diff", {"left": missing, "right": a})

    async def diff_garbage(s):
        return await s.call_tool("diff", {"left": str(garbage), "right": a})

    async def summary(s):
        return await s.call_tool("summary", {"path": a})

    async def verify_unknown(s):
        return await s.call_tool("verify", {"op": "no_such_op"})

    async def verify_stage_subset(s):
        # performance alone: skipped with its reason without a GPU (no build needed for that)
        return await s.call_tool("verify", {"op": "vector_add", "variant": "f32_t1024", "stages": ["performance"]})

    async def analyze_bad(s):
        return await s.call_tool("analyze", {"kernel_py": str(tmp_path / "kernel.py")})

    async def analyze_ok(s):
        return await s.call_tool("analyze", {"kernel_py": str(ROOT / "reference" / "vector_add" / "kernel.py")})

    listed, same, miss, garb, summ, vunk, vperf, abad, aok, again = run(
        [tools, diff_same, diff_missing, diff_garbage, summary, verify_unknown, verify_stage_subset, analyze_bad,
         analyze_ok, diff_same])
    assert listed == ["analyze", "diff", "summary", "verify"]
    body = _payload(same)
    assert not same.is_error and body["verdict"] == "identical" and body["schema_version"]
    assert miss.is_error and "missing.tileirbc" in miss.content[0].text
    assert garb.is_error and "garbage.tileirbc" in garb.content[0].text
    assert not summ.is_error and _payload(summ)
    assert vunk.is_error and "no_such_op" in vunk.content[0].text
    report = _payload(vperf)
    assert not vperf.is_error and report["kind"] == "verify_report" and report["stages"] == ["performance"]
    assert report["result"] in ("skipped", "pass", "fail")
    assert report["attempts"][0]["stages"][0]["status"] in ("skip", "pass", "fail")
    assert abad.is_error and "analysis.json" in abad.content[0].text
    analysis = _payload(aok)
    assert not aok.is_error and analysis["kind"] == "analyze_report" and analysis["op"] == "vector_add"
    assert _payload(again)["verdict"] == "identical"  # the server outlived every error
