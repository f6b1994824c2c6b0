"""The worker process of one MCP tool call (``python -m tileir_diff.verify.mcp_worker``).

It sets its memory limit first (and, started as a spare, imports the diff path), then reads one
JSON request from stdin, sets its CPU limit and prints one JSON answer on stdout: ``{"ok": true,
"result": ...}`` or ``{"ok": false, "kind": ..., "message": ...}``. Kernel files come as file
descriptors the server opened (and checked: confined to the workspace, regular, within the size
cap) over a Unix socket (``--fd-socket``), so the worker never resolves a client's path itself.
The server kills the worker's process group at the call's deadline (tileir_diff.verify.sandbox).
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable, Dict, List, Optional


class WorkerFailure(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


def apply_memory_limit(memory_bytes: Optional[int], kind: str = "AS") -> None:
    """RLIMIT_AS (``kind`` "AS") or RLIMIT_DATA ("DATA") for this process and everything it
    starts (cargo, rustc; z3 runs in-process); no core files. Set before anything else, as a
    ``preexec_fn`` would."""
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if memory_bytes:
        which = resource.RLIMIT_DATA if kind == "DATA" else resource.RLIMIT_AS
        resource.setrlimit(which, (memory_bytes, memory_bytes))


def apply_cpu_limit(cpu_seconds: Optional[int]) -> None:
    """RLIMIT_CPU: ``cpu_seconds`` more than this process has used (a warm worker used some to
    import); soft: SIGXCPU, hard 5 s later: SIGKILL."""
    import resource
    if cpu_seconds:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        limit = int(usage.ru_utime + usage.ru_stime) + int(cpu_seconds)
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))


def die_with_parent(parent_pid: Optional[int]) -> None:
    """SIGKILL for this worker when the server dies (Linux: PR_SET_PDEATHSIG), and an exit now if
    it died before that was set: a worker must not outlive the server that bounds it."""
    import os
    if parent_pid is None:
        return
    if sys.platform.startswith("linux"):
        import ctypes
        import signal
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:
        os._exit(0)


def warm_up() -> None:
    """Import the diff path while waiting for a request (a spare worker): a call then starts in
    milliseconds instead of the second an import takes. A failure here is the call's to report."""
    try:
        import tileir_diff.api  # noqa: F401
        import tileir_diff.compare.engine  # noqa: F401
        import tileir_diff.ir.verify  # noqa: F401
        import tileir_diff.report.json_schema  # noqa: F401
        import tileir_diff.summary  # noqa: F401
        import tileir_diff.text.printer  # noqa: F401
    except Exception:  # noqa: BLE001 - the call imports again and answers with the error
        pass


def receive_fds(fd_socket: Optional[int]) -> List[int]:
    """The descriptors the server passed for this call (SCM_RIGHTS, one message)."""
    import socket
    if fd_socket is None:
        return []
    with socket.socket(fileno=fd_socket) as sock:
        _, fds, _, _ = socket.recv_fds(sock, 16, 16)
    return list(fds)


def _input(request: Dict[str, Any], name: str) -> tuple:
    """``(bytes, label)`` of one input file the server passed as a descriptor."""
    from .confine import ConfinementError, read_fd
    spec = request["inputs"][name]
    try:
        return read_fd(request["fds"][int(spec["index"])], spec["label"], int(request["max_file_bytes"])), spec["label"]
    except ConfinementError as e:
        raise WorkerFailure(e.kind, e.message) from None


def run_diff(request: Dict[str, Any]) -> Dict[str, Any]:
    from argparse import Namespace

    from ..api import diff
    from ..check.smt import launch_fact
    from ..commands import UsageError
    from ..commands.diff import _accept_plan
    from ..normalize import UnknownRuleError
    from ..options import diff_kwargs
    from ..report.json_schema import to_dict
    options = request["options"]
    left, left_label = _input(request, "left")
    right, right_label = _input(request, "right")
    defaults: Dict[str, Any] = {"rules": None, "disable": [], "execute": None, "trials": 20, "seed": 0}
    try:
        given = {name: options[name] for name in defaults if options.get(name) is not None}
        kwargs = diff_kwargs({**defaults, **given}.__getitem__)
    except ValueError as e:
        raise WorkerFailure("bad_input", str(e)) from None
    if options.get("smt_timeout_s") is not None:
        kwargs["limits"] = {"smt_timeout_s": float(options["smt_timeout_s"])}
    facts = list(options.get("launch_facts") or [])
    for text in facts:
        try:
            launch_fact(text)  # refused here as the CLI refuses it
        except (ValueError, RecursionError) as e:
            raise WorkerFailure("bad_input", f"launch fact {text[:200]!r}: {e or 'nested too deeply'}") from None
    accept = options.get("accept")
    plan = None
    try:
        if accept:
            plan = _accept_plan(Namespace(accept=accept["path"], variant=options.get("variant"),
                                          left=left_label, right=right_label))
        kwargs["launch"] = facts + (plan[2] if plan else [])
        result = diff(left, right, labels=[left_label, right_label], **kwargs)
    except (UsageError, UnknownRuleError) as e:
        raise WorkerFailure("bad_input", str(e)) from None
    if plan:
        from ..suite.accept import apply_accepted
        result = apply_accepted(result, plan[0], plan[1], accept["label"])[0]
    return to_dict(result, lines=not options.get("no_lines", True))


def run_summary(request: Dict[str, Any]) -> Dict[str, Any]:
    from ..api import summarize
    data, label = _input(request, "path")
    return summarize(data, label=label)


def run_verify(request: Dict[str, Any]) -> Dict[str, Any]:
    from . import VerifyUsageError, verify_port
    kernel_rs = request.get("kernel_rs")
    try:
        report = verify_port(request["op"], request.get("variant"), stages=request.get("stages"),
                             sources={"kernel.rs": kernel_rs} if kernel_rs is not None else None,
                             progress=lambda line: print(line, file=sys.stderr, flush=True))
    except VerifyUsageError as e:
        raise WorkerFailure("bad_input", str(e)) from None
    return report.to_dict()


def run_analyze(request: Dict[str, Any]) -> Dict[str, Any]:
    from pathlib import Path

    from .analyze import AnalyzeError, analyze
    try:
        return analyze(Path(request["kernel_py"]),
                       progress=lambda line: print(line, file=sys.stderr, flush=True)).to_dict()
    except AnalyzeError as e:
        raise WorkerFailure("bad_input", str(e)) from None


TOOLS: Dict[str, Callable[[Dict[str, Any]], Any]] = {
    "diff": run_diff, "summary": run_summary, "verify": run_verify, "analyze": run_analyze}


def answer(request: Dict[str, Any]) -> Dict[str, Any]:
    """The answer to one request; never raises (a bug is an ``internal`` answer)."""
    from ..errors import TileIRFormatError
    try:
        return {"ok": True, "result": TOOLS[request["tool"]](request)}
    except WorkerFailure as e:
        return {"ok": False, "kind": e.kind, "message": e.message}
    except (TileIRFormatError, OSError) as e:
        return {"ok": False, "kind": "bad_input", "message": str(e)}
    except MemoryError:
        return {"ok": False, "kind": "resource_limit", "message": f"{request.get('tool')}: out of memory (the "
                                                                   "worker's memory limit)"}
    except RecursionError:
        return {"ok": False, "kind": "resource_limit", "message": f"{request.get('tool')}: nested too deeply"}
    except Exception as e:  # noqa: BLE001 - the server answers every call; a bug is reported as one
        return {"ok": False, "kind": "internal", "message": f"{request.get('tool')}: internal error: "
                                                            f"{type(e).__name__}: {e}"}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tileir_diff.verify.mcp_worker")
    parser.add_argument("--memory-bytes", type=int, default=None)
    parser.add_argument("--memory-kind", choices=("AS", "DATA"), default="AS")
    parser.add_argument("--fd-socket", type=int, default=None)
    parser.add_argument("--warm", action="store_true")
    parser.add_argument("--parent-pid", type=int, default=None)
    args = parser.parse_args(argv)
    die_with_parent(args.parent_pid)
    apply_memory_limit(args.memory_bytes, args.memory_kind)
    if args.warm:
        warm_up()
    raw = sys.stdin.buffer.read()
    if not raw:
        return 0  # a spare the server no longer needs (it closed our stdin)
    request = json.loads(raw)
    request["fds"] = receive_fds(args.fd_socket)
    apply_cpu_limit(request.get("cpu_seconds"))
    reply = answer(request)
    try:
        text = json.dumps(reply, ensure_ascii=True, separators=(",", ":"))
    except (TypeError, ValueError) as e:
        text = json.dumps({"ok": False, "kind": "internal", "message": f"internal error: answer not JSON: {e}"})
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
