"""Run one tool call in a worker process that can be killed: a deadline, a memory and CPU limit,
its own process group (so a cargo build it started dies with it) and a cap on what it prints.

The server (tileir_diff.verify.mcp_server) awaits ``run_job``; when the deadline passes or the
client cancels the call, the whole process group gets SIGKILL before ``run_job`` returns or
re-raises, so no abandoned call keeps a core busy. The worker (tileir_diff.verify.mcp_worker)
sets its own rlimits as the first thing it does, before it reads the request: the same effect as
a ``preexec_fn`` (which is not safe in a process with threads, as the server is).
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Dict, Mapping, Optional, Sequence

import anyio
import anyio.lowlevel

#: What a worker may print (its JSON answer); past it the worker is killed.
DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024 * 1024
_STDERR_TAIL = 2000
# what a native library prints when an allocation fails under RLIMIT_AS before the worker can answer
_OUT_OF_MEMORY = (b"MemoryError", b"Memory allocation", b"bad_alloc", b"Cannot allocate memory", b"out of memory")


class JobError(Exception):
    """A call that gave no answer: ``kind`` is ``timeout``, ``resource_limit`` or ``internal``."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass
class JobLimits:
    timeout_s: float
    memory_bytes: Optional[int] = None
    # "AS": the whole address space (RLIMIT_AS); "DATA": heap and private writable mappings
    # (RLIMIT_DATA), for work that reserves address space it never touches (CUDA does)
    memory_kind: str = "AS"
    cpu_s: Optional[int] = None
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES


@dataclass
class JobWatch:
    """The live workers (pid -> tool): what ``status`` reports and what a test waits on."""
    live: Dict[int, str] = field(default_factory=dict)
    started: int = 0

    def add(self, pid: int, tool: str) -> None:
        self.live[pid] = tool
        self.started += 1

    def remove(self, pid: int) -> None:
        self.live.pop(pid, None)


def worker_env(extra: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """The environment of a worker: the server's, with this very tileir_diff first on the path
    and one thread per numeric library (a worker is one core of the server's budget)."""
    import site
    env = dict(os.environ)
    package_parent = str(Path(__file__).resolve().parents[2])
    installed = {str(Path(p).resolve()) for p in site.getsitepackages() + [site.getusersitepackages()]}
    if package_parent not in installed:
        # a checkout (PYTHONPATH, an editable install): the worker must import this same one; an
        # installed package is found anyway, and site-packages ahead of the standard library is not wanted
        env["PYTHONPATH"] = os.pathsep.join([package_parent] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                                                                if p])
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
        env[name] = "1"
    env.update(extra or {})
    return env


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Worker:
    """A started worker waiting for its request: the process and the server's end of the socket
    over which the call's open files are passed (SCM_RIGHTS), so a worker started before the
    call (a warm spare) can still be given descriptors the server opens for it."""

    def __init__(self, process, sock: socket.socket, memory_bytes: Optional[int]):
        self.process = process
        self.sock = sock
        self.memory_bytes = memory_bytes
        self.loop = anyio.lowlevel.current_token()

    def usable(self, memory_bytes: Optional[int]) -> bool:
        """Still waiting (not exited), started in this event loop, with this memory limit."""
        return (self.process.returncode is None and self.memory_bytes == memory_bytes
                and self.loop == anyio.lowlevel.current_token())

    async def discard(self) -> None:
        with anyio.CancelScope(shield=True):
            if self.process.returncode is None:
                _kill_group(self.process.pid)
            if self.loop == anyio.lowlevel.current_token():
                await self.process.wait()
                await self.process.aclose()
            self.sock.close()


async def start_worker(*, memory_bytes: Optional[int], cwd: Path, env: Optional[Mapping[str, str]] = None,
                       warm: bool = False, memory_kind: str = "AS") -> Worker:
    """A worker process in its own process group with its memory limit set; ``warm``: it imports
    the diff path while it waits for a request."""
    server_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    argv = [sys.executable, "-m", "tileir_diff.verify.mcp_worker", "--fd-socket", str(worker_end.fileno()),
            "--parent-pid", str(os.getpid())]
    if memory_bytes:
        argv += ["--memory-bytes", str(int(memory_bytes)), "--memory-kind", memory_kind]
    if warm:
        argv.append("--warm")
    try:
        process = await anyio.open_process(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                           cwd=str(cwd), env=dict(env or worker_env()), start_new_session=True,
                                           pass_fds=(worker_end.fileno(),))
    except BaseException:
        server_end.close()
        raise
    finally:
        worker_end.close()
    return Worker(process, server_end, memory_bytes)


async def run_job(tool: str, request: Dict[str, Any], limits: JobLimits, *, cwd: Path,
                  env: Optional[Mapping[str, str]] = None, pass_fds: Sequence[int] = (),
                  watch: Optional[JobWatch] = None, worker: Optional[Worker] = None,
                  on_stderr_line: Optional[Callable[[str], Awaitable[None]]] = None) -> Any:
    """Run ``request`` in ``worker`` (default: a fresh one) and return its result (a JSON value);
    a failure the worker reports is raised as ``JobError`` with its kind (``bad_input`` ...).
    ``pass_fds`` are handed to the worker in this order (the request names them by index).
    ``on_stderr_line`` is awaited with each line the worker prints on stderr (its progress lines).
    The worker is gone when this returns or raises."""
    if worker is None:
        with anyio.CancelScope(shield=True):  # a process started is a process this call owns
            worker = await start_worker(memory_bytes=limits.memory_bytes, cwd=cwd, env=env,
                                        memory_kind=limits.memory_kind)
    assert worker is not None
    process = worker.process
    pid = process.pid
    if watch is not None:
        watch.add(pid, tool)
    out = bytearray()
    tail = bytearray()
    overflow = False
    try:
        try:
            # one message, even with no descriptor: the worker waits for it
            socket.send_fds(worker.sock, [b"F"], list(pass_fds))
        except OSError:
            pass  # the worker died before its call: its exit status says why
        payload = json.dumps(dict(request, tool=tool, cpu_seconds=limits.cpu_s)).encode()
        with anyio.move_on_after(limits.timeout_s) as deadline:
            async with anyio.create_task_group() as tg:
                tg.start_soon(_feed, process, payload)
                tg.start_soon(_drain_stderr, process, tail, on_stderr_line)
                overflow = await _collect(process, out, limits.max_output_bytes)
                await process.wait()
        if overflow:
            raise JobError("resource_limit", f"{tool}: the answer is larger than the {limits.max_output_bytes}-byte "
                                             f"limit: the worker (pid {pid}) was killed")
        if deadline.cancelled_caught:
            raise JobError("timeout", f"{tool}: no answer within the {limits.timeout_s:g}s deadline: the worker "
                                      f"(pid {pid}) was killed")
    finally:
        # deadline, client cancellation or an error: nothing of the call may outlive it
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                # the group, before the worker is reaped: its pid (the group's id) cannot have been reused
                _kill_group(pid)
            await process.wait()
            await process.aclose()
            worker.sock.close()
        if watch is not None:
            watch.remove(pid)
    return _answer(tool, pid, process.returncode, bytes(out), bytes(tail), limits)


async def _feed(process, payload: bytes) -> None:
    try:
        await process.stdin.send(payload)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        pass  # the worker died early: its exit status says why
    finally:
        await process.stdin.aclose()


async def _collect(process, out: bytearray, limit: int) -> bool:
    """The worker's stdout into ``out``; past ``limit`` the worker is killed and True returned
    (raising here would reach the caller wrapped in the task group's exception group)."""
    async for chunk in process.stdout:
        out += chunk
        if len(out) > limit:
            if process.returncode is None:
                _kill_group(process.pid)
            del out[:]
            return True
    return False


async def _drain_stderr(process, tail: bytearray, on_line: Optional[Callable[[str], Awaitable[None]]]) -> None:
    pending = b""
    async for chunk in process.stderr:
        tail += chunk
        del tail[:-_STDERR_TAIL]
        if on_line is None:
            continue
        pending += chunk
        *lines, pending = pending.split(b"\n")
        pending = pending[-_STDERR_TAIL:]
        for line in lines:
            text = line.decode("utf-8", "replace").strip()[:_STDERR_TAIL]
            if text:
                await on_line(text)


def _answer(tool: str, pid: int, status: Optional[int], out: bytes, tail: bytes, limits: JobLimits) -> Any:
    try:
        answer = json.loads(out) if out else None
    except ValueError:
        answer = None
    if isinstance(answer, dict) and "ok" in answer:
        if answer["ok"]:
            return answer.get("result")
        raise JobError(str(answer.get("kind", "internal")), str(answer.get("message", "")))
    if status is not None and status < 0:
        sig = -status
        name = signal.Signals(sig).name if sig in {s.value for s in signal.Signals} else f"signal {sig}"
        if sig in (signal.SIGXCPU, signal.SIGKILL):
            # the CPU limit (soft: SIGXCPU, hard: SIGKILL) or the kernel's OOM killer
            raise JobError("resource_limit", f"{tool}: the worker (pid {pid}) was killed by {name}: "
                                             f"past its CPU ({limits.cpu_s}s) or memory limit")
        raise JobError("internal", f"{tool}: internal error: the worker (pid {pid}) was killed by {name}")
    last = tail.decode("utf-8", "replace").strip().splitlines()
    if limits.memory_bytes and any(m in tail for m in _OUT_OF_MEMORY):
        raise JobError("resource_limit", f"{tool}: the worker (pid {pid}) ran out of memory (its limit: "
                                         f"{limits.memory_bytes // (1024 * 1024)} MiB){': ' + last[-1][:300] if last else ''}")
    raise JobError("internal", f"{tool}: internal error: the worker exited with status {status} and no answer"
                               f"{': ' + last[-1][:300] if last else ''}")
