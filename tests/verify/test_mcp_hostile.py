"""The MCP server against a client it must not trust (issue 27, docs/agents.md "Threat model"),
through the official SDK's in-process client: paths outside the workspace root, FIFOs, devices and
escaping symlinks are refused quickly without being read; user code is refused without
--allow-user-code; a deadline or a cancellation kills the worker process; a flood of hostile
calls leaves the server answering."""
from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")
import anyio  # noqa: E402
from mcp import Client  # noqa: E402

from tileir_diff.verify.mcp_server import ERROR_KINDS, ServerConfig, build_server  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "corpus" / "v13_5"
SMALL = CORPUS / "load_store_unchecked.v13_5.tileirbc"
SLOW = CORPUS / "large_flash_attention.v13_5.tileirbc"  # execute=always, 1000 trials: minutes


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    shutil.copy(SMALL, root / "a.tileirbc")
    shutil.copy(SLOW, root / "slow.tileirbc")
    (root / "garbage.tileirbc").write_bytes(b"\x7fTileIR\x00" + b"\xff" * 40)
    os.mkfifo(root / "pipe.tileirbc")
    (root / "dir.tileirbc").mkdir()
    os.symlink("/etc/passwd", root / "escape.tileirbc")
    os.symlink("/dev/zero", root / "zero.tileirbc")
    os.symlink("../outside.tileirbc", root / "up.tileirbc")
    os.symlink("loop2.tileirbc", root / "loop1.tileirbc")
    os.symlink("loop1.tileirbc", root / "loop2.tileirbc")
    os.symlink("a.tileirbc", root / "inside_link.tileirbc")
    for op in ("matmul", "vector_add"):
        shutil.copytree(REPO / "reference" / op, root / op)
    leaky = root / "leaky"
    leaky.mkdir()
    shutil.copy(REPO / "reference" / "matmul" / "analysis.json", leaky / "analysis.json")
    os.symlink("/etc/shadow", leaky / "kernel.py")
    shutil.copy(SMALL, tmp_path / "outside.tileirbc")
    user_op = root / "user_op"
    user_op.mkdir()
    (user_op / "kernel.py").write_text("import os\nos.system('touch PWNED')\n")
    (user_op / "analysis.json").write_text("{}")
    (user_op / "ref.py").write_text("")
    return root


def _server(root, **options):
    # no spare worker unless a test asks: a test that never reaches a worker need not start one
    options.setdefault("spare_worker", False)
    return build_server(ServerConfig(root=root, **options))


def _error(result) -> dict:
    assert result.is_error, result.content
    body = json.loads(result.content[0].text)
    assert body == result.structured_content
    assert body["kind"] in ERROR_KINDS and body["message"]
    return body


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def run(fn, *args):
    return anyio.run(fn, *args)


HOSTILE_DIFFS = [
    ({"left": "/etc/shadow", "right": "a.tileirbc"}, "outside_workspace"),
    ({"left": "/dev/zero", "right": "a.tileirbc"}, "outside_workspace"),
    ({"left": "a.tileirbc", "right": "escape.tileirbc"}, "outside_workspace"),
    ({"left": "zero.tileirbc", "right": "a.tileirbc"}, "outside_workspace"),
    ({"left": "up.tileirbc", "right": "a.tileirbc"}, "outside_workspace"),
    ({"left": "../outside.tileirbc", "right": "a.tileirbc"}, "outside_workspace"),
    ({"left": "pipe.tileirbc", "right": "a.tileirbc"}, "bad_input"),
    ({"left": "dir.tileirbc", "right": "a.tileirbc"}, "bad_input"),
    ({"left": "missing.tileirbc", "right": "a.tileirbc"}, "bad_input"),
    ({"left": "a\0b", "right": "a.tileirbc"}, "bad_input"),
    ({"left": "a.tileirbc", "right": "a.tileirbc", "execute": "sometimes"}, "bad_input"),
    ({"left": "a.tileirbc", "right": "a.tileirbc", "trials": 0}, "bad_input"),
    ({"left": "a.tileirbc", "right": "a.tileirbc", "accept": "/etc/passwd"}, "outside_workspace"),
    ({"left": "a.tileirbc", "right": "a.tileirbc", "accept": "pipe.tileirbc"}, "bad_input"),
    ({"left": "a.tileirbc", "right": "a.tileirbc", "accept": "leaky/analysis.json"}, "outside_workspace"),
    ({"left": "loop1.tileirbc", "right": "a.tileirbc"}, "bad_input"),
    ({"left": "x" * 4000, "right": "a.tileirbc"}, "bad_input"),
    ({"left": "a.tileirbc", "right": "a.tileirbc", "rules": ["not-a-rule"] * 65}, "bad_input"),
]


@pytest.mark.parametrize("arguments,kind", HOSTILE_DIFFS, ids=[f"{a['left'][:20]}|{a.get('accept', '')}|{k}"
                                                                for a, k in HOSTILE_DIFFS])
def test_hostile_paths_are_refused_quickly_without_a_worker(workspace, arguments, kind):
    server = _server(workspace)

    async def go():
        async with Client(server) as c:
            started = time.monotonic()
            with anyio.fail_after(10):  # a FIFO or /dev/zero read would hang or never end
                result = await c.call_tool("diff", arguments)
            return result, time.monotonic() - started

    result, _ = run(go)
    body = _error(result)
    assert body["kind"] == kind, body
    assert server.tileir_runner.watch.started == 0  # refused before any worker ran


def test_shadow_and_passwd_content_never_echoed(workspace):
    server = _server(workspace)
    secrets = []
    for name in ("/etc/shadow", "/etc/passwd"):
        try:
            secrets += [line.split(":")[1] for line in Path(name).read_text().splitlines() if line.count(":") > 2]
        except OSError:
            pass

    async def go():
        async with Client(server) as c:
            return [await c.call_tool(tool, args) for tool, args in (
                ("diff", {"left": "/etc/shadow", "right": "/etc/shadow"}),
                ("summary", {"path": "/etc/shadow"}),
                ("summary", {"path": "escape.tileirbc"}),
                ("diff", {"left": "a.tileirbc", "right": "a.tileirbc", "accept": "escape.tileirbc"}))]

    for result in run(go):
        text = _error(result)["message"]
        assert "got '" not in text and "'root'" not in text
        assert not any(len(s) > 1 and s in text for s in secrets)


def test_fifo_summary_refused_and_server_keeps_answering(workspace):
    server = _server(workspace)

    async def go():
        async with Client(server) as c:
            with anyio.fail_after(20):
                refused = [await c.call_tool("summary", {"path": "pipe.tileirbc"}) for _ in range(40)]
                ok = await c.call_tool("summary", {"path": "a.tileirbc"})
            return refused, ok

    refused, ok = run(go)
    assert all("FIFO" in _error(r)["message"] for r in refused)
    assert not ok.is_error and ok.structured_content["source"] == "a.tileirbc"


def test_file_size_cap(workspace):
    server = _server(workspace, max_file_bytes=100)

    async def go():
        async with Client(server) as c:
            return await c.call_tool("summary", {"path": "slow.tileirbc"})

    body = _error(run(go))
    assert body["kind"] == "bad_input" and "100-byte limit" in body["message"]


def test_user_code_needs_the_flag(workspace):
    server = _server(workspace)

    async def go():
        async with Client(server) as c:
            return (await c.call_tool("analyze", {"kernel_py": "user_op/kernel.py"}),
                    await c.call_tool("analyze", {"op": "no_such_op"}),
                    await c.call_tool("analyze", {"op": "../user_op"}),
                    await c.call_tool("analyze", {}),
                    await c.call_tool("verify", {"op": "vector_add", "kernel_rs": "fn main() {}"}),
                    await c.call_tool("verify", {"op": "../../etc"}))

    analyze_user, analyze_unknown, analyze_traversal, analyze_none, verify_user, verify_traversal = run(go)
    assert _error(analyze_user)["kind"] == "not_permitted"
    assert "--allow-user-code" in _error(analyze_user)["message"]
    assert _error(analyze_unknown)["kind"] == "bad_input"
    assert _error(analyze_traversal)["kind"] == "bad_input"
    assert _error(analyze_none)["kind"] == "bad_input"
    assert _error(verify_user)["kind"] == "not_permitted"
    assert _error(verify_traversal)["kind"] == "bad_input"
    assert not (workspace / "PWNED").exists() and not (REPO / "PWNED").exists()
    assert server.tileir_runner.watch.started == 0


def _slow_diff(timeout_s=None):
    args = {"left": "slow.tileirbc", "right": "slow.tileirbc", "execute": "always", "trials": 1000}
    if timeout_s is not None:
        args["timeout_s"] = timeout_s
    return args


def test_deadline_kills_the_worker(workspace):
    server = _server(workspace)
    runner = server.tileir_runner
    seen = []

    async def go():
        async with Client(server) as c:
            async with anyio.create_task_group() as tg:
                async def spy():
                    while not runner.watch.live:
                        await anyio.sleep(0.02)
                    seen.extend(runner.watch.live)
                tg.start_soon(spy)
                result = await c.call_tool("diff", _slow_diff(timeout_s=3))
            return result

    body = _error(run(go))
    assert body["kind"] == "timeout", body
    assert seen and all(_gone(pid) for pid in seen)
    assert not runner.watch.live


def test_cancellation_kills_the_worker(workspace):
    server = _server(workspace, spare_worker=True)
    runner = server.tileir_runner
    seen = []

    async def go():
        async with Client(server) as c:
            with anyio.move_on_after(60) as scope:
                async with anyio.create_task_group() as tg:
                    async def call():
                        await c.call_tool("diff", _slow_diff())
                    tg.start_soon(call)
                    while not runner.watch.live:
                        await anyio.sleep(0.02)
                    seen.extend(runner.watch.live)
                    await anyio.sleep(0.5)
                    tg.cancel_scope.cancel()
            assert not scope.cancelled_caught
            # the server still answers after the cancelled call
            return await c.call_tool("diff", {"left": "a.tileirbc", "right": "a.tileirbc"})

    after = run(go)
    assert seen and all(_gone(pid) for pid in seen), seen
    assert not runner.watch.live
    assert not after.is_error and after.structured_content["verdict"] == "identical"


def test_busy_when_every_worker_is_taken(workspace):
    server = _server(workspace, max_jobs=1, max_waiting=0)
    runner = server.tileir_runner

    async def go():
        async with Client(server) as c:
            async with anyio.create_task_group() as tg:
                async def call():
                    await c.call_tool("diff", _slow_diff(timeout_s=30))
                tg.start_soon(call)
                while not runner.watch.live:
                    await anyio.sleep(0.02)
                busy = await c.call_tool("diff", {"left": "a.tileirbc", "right": "a.tileirbc"})
                tg.cancel_scope.cancel()
            return busy

    body = _error(run(go))
    assert body["kind"] == "busy" and "at most 1" in body["message"]
    assert not runner.watch.live


def test_hundred_concurrent_hostile_calls_then_a_normal_diff(workspace):
    server = _server(workspace, max_jobs=2, max_waiting=2, spare_worker=True)
    runner = server.tileir_runner
    hostile = [("diff", args) for args, _ in HOSTILE_DIFFS] + [
        ("summary", {"path": "pipe.tileirbc"}),
        ("summary", {"path": "/proc/self/environ"}),
        ("analyze", {"kernel_py": "user_op/kernel.py"}),
        ("verify", {"op": "vector_add", "kernel_rs": "x"}),
        ("diff", {"left": "garbage.tileirbc", "right": "a.tileirbc"}),  # reaches a worker: bad_input or busy
        ("no_such_tool", {}),
    ]
    calls = [hostile[i % len(hostile)] for i in range(100)]
    results = [None] * len(calls)

    async def go():
        async with Client(server) as c:
            with anyio.fail_after(120):
                async with anyio.create_task_group() as tg:
                    for i, (tool, args) in enumerate(calls):
                        async def one(i=i, tool=tool, args=args):
                            results[i] = await c.call_tool(tool, args)
                        tg.start_soon(one)
                return await c.call_tool("diff", {"left": "a.tileirbc", "right": "a.tileirbc", "no_lines": False})

    normal = run(go)
    kinds = [_error(r)["kind"] for r in results]
    assert "internal" not in kinds and kinds.count("outside_workspace") >= 30
    assert set(kinds) <= {"bad_input", "outside_workspace", "not_permitted", "busy"}
    assert not normal.is_error and normal.structured_content["verdict"] == "identical"
    assert normal.structured_content["left_lines"]  # no_lines=False keeps the printed modules
    assert not runner.watch.live and runner.running == 0 and runner.waiting == 0


def test_memory_limit_applies_to_the_worker(workspace):
    # 96 MiB of address space: too little for the interpreter's numeric libraries (numpy with its
    # BLAS reserves well over that); 150 MiB was borderline once the diff path stopped importing
    # numpy before the interpreter does
    server = _server(workspace, memory_bytes=96 * 1024 * 1024)

    async def go():
        async with Client(server) as c:
            return await c.call_tool("diff", {"left": "slow.tileirbc", "right": "slow.tileirbc", "execute": "always",
                                              "trials": 1})

    body = _error(run(go))
    assert body["kind"] == "resource_limit" and "memory" in body["message"], body
    assert not server.tileir_runner.watch.live


def test_allow_user_code_passes_the_gate_into_a_worker(workspace):
    server = _server(workspace, allow_user_code=True)

    async def go():
        async with Client(server) as c:
            return await c.call_tool("analyze", {"kernel_py": "user_op/kernel.py"})

    body = _error(run(go))
    # past the permission check: the worker read the (invalid) analysis.json before importing anything
    assert body["kind"] == "bad_input" and "analysis.json" in body["message"], body
    assert server.tileir_runner.watch.started == 1
    assert not (workspace / "PWNED").exists()


def test_progress_lines_reach_the_client(workspace):
    pytest.importorskip("cuda.tile")  # analyze exports the reference kernel with cuda.tile
    server = _server(workspace)
    lines = []

    async def go():
        async with Client(server) as c:
            async def on_progress(progress, total, message):
                lines.append((progress, message))
            return await c.call_tool("analyze", {"op": "vector_add"}, progress_callback=on_progress)

    result = run(go)
    assert not result.is_error and result.structured_content["op"] == "vector_add"
    assert lines and all(m.startswith("analyze vector_add: ") for _, m in lines)
    assert [p for p, _ in lines] == list(range(1, len(lines) + 1))


def test_the_spare_worker_serves_the_next_call_and_dies_with_the_server(workspace):
    server = _server(workspace, spare_worker=True)
    runner = server.tileir_runner
    pids = {}

    async def go():
        async with Client(server) as c:
            pids["spare"] = runner._spare.process.pid  # started with the server
            used = []
            async with anyio.create_task_group() as tg:
                async def spy():
                    while not runner.watch.live:
                        await anyio.sleep(0.005)
                    used.extend(runner.watch.live)
                tg.start_soon(spy)
                first = await c.call_tool("diff", {"left": "a.tileirbc", "right": "a.tileirbc"})
            pids["used"] = used
            pids["next"] = runner._spare.process.pid
            return first

    first = run(go)
    assert first.structured_content["verdict"] == "identical"
    assert pids["used"] == [pids["spare"]] and pids["next"] != pids["spare"]
    assert _gone(pids["spare"]) and _gone(pids["next"])  # the server's end killed the waiting spare


def test_concurrent_diffs_answer_as_one_diff_does(workspace):
    # six concurrent diffs once killed the server (z3's global context used from several threads);
    # each now runs in its own worker process
    server = _server(workspace, max_jobs=3, spare_worker=True)
    args = {"left": "slow.tileirbc", "right": "slow.tileirbc"}

    async def go():
        async with Client(server) as c:
            serial = await c.call_tool("diff", args)
            results = [None] * 6
            async with anyio.create_task_group() as tg:
                for i in range(6):
                    async def one(i=i):
                        results[i] = await c.call_tool("diff", args)
                    tg.start_soon(one)
            return serial, results

    def without_timings(result):
        body = dict(result.structured_content)
        body.pop("stats")  # seconds spent
        return body

    serial, results = run(go)
    assert serial.structured_content["verdict"] == "identical"
    assert all(not r.is_error and without_timings(r) == without_timings(serial) for r in results)


def test_symlink_inside_the_root_and_accept_are_served(workspace):
    server = _server(workspace)

    async def go():
        async with Client(server) as c:
            return (await c.call_tool("diff", {"left": "inside_link.tileirbc", "right": str(workspace / "a.tileirbc")}),
                    await c.call_tool("diff", {"left": "a.tileirbc", "right": "a.tileirbc",
                                               "accept": "vector_add/analysis.json", "variant": "f32_t1024"}),
                    await c.call_tool("diff", {"left": "a.tileirbc", "right": "a.tileirbc",
                                               "accept": "vector_add/analysis.json", "variant": "no_such_variant"}))

    linked, accepted, bad_variant = run(go)
    assert not linked.is_error and linked.structured_content["verdict"] == "identical"
    assert linked.structured_content["left_source"] == "inside_link.tileirbc"  # named as the caller wrote it
    assert not accepted.is_error and accepted.structured_content["verdict"] == "identical"
    body = _error(bad_variant)
    assert body["kind"] == "bad_input" and "no_such_variant" in body["message"]


def test_an_answer_past_the_output_cap_is_refused(workspace):
    server = _server(workspace, max_output_bytes=100)

    async def go():
        async with Client(server) as c:
            return await c.call_tool("diff", {"left": "a.tileirbc", "right": "a.tileirbc"})

    body = _error(run(go))
    assert body["kind"] == "resource_limit" and "100-byte limit" in body["message"], body
    assert not server.tileir_runner.watch.live


def test_launch_facts_are_checked_as_the_cli_checks_them(workspace):
    server = _server(workspace)
    base = {"left": "a.tileirbc", "right": "a.tileirbc"}

    async def go():
        async with Client(server) as c:
            return (await c.call_tool("diff", dict(base, launch_facts=["grid.x == cdiv(arg1, 128)"], smt_timeout_s=1)),
                    await c.call_tool("diff", dict(base, launch_facts=["import os"])),
                    await c.call_tool("diff", dict(base, launch_facts=["(" * 900 + "1" + ")" * 90])))

    fine, statement, nested = run(go)
    assert not fine.is_error and fine.structured_content["verdict"] == "identical"
    for refused in (statement, nested):
        body = _error(refused)
        assert body["kind"] == "bad_input" and body["message"].startswith("launch fact"), body
