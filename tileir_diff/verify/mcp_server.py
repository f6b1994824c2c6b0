"""``tileir-diff mcp``: diff, summary, verify and analyze as MCP tools over stdio (docs/agents.md).

Built on the official ``mcp`` SDK (2.x, ``MCPServer``). The client is not trusted (docs/agents.md,
"Threat model"): every path is resolved against the workspace root and refused outside it,
opened without blocking and only as a regular file under a size cap (tileir_diff.verify.confine);
``analyze`` runs only the configured reference suite's kernel.py and ``verify`` only the suite's
own Rust unless the server was started with ``--allow-user-code``; every call runs in a worker
process with a deadline, a memory and a CPU limit, killed on the deadline or when the client
cancels (tileir_diff.verify.sandbox); at most ``max_jobs`` workers run at once.

A tool's answer is its JSON twice: as structured content (checked by clients against the tool's
output schema) and as one text content (compact JSON, every non-ASCII character escaped). A
refused or failed call is a tool error whose content is ``{"kind": ..., "message": ...}`` with
kind one of ``ERROR_KINDS``.
"""
# no `from __future__ import annotations`: the SDK reads the tool functions' annotations, which name locals

import json
import os
import re
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Dict, List, Literal, Optional

from .confine import DEFAULT_MAX_FILE_BYTES, ConfinementError, Workspace
from .sandbox import DEFAULT_MAX_OUTPUT_BYTES, JobError, JobLimits, JobWatch, Worker, run_job, start_worker, worker_env

INSTRUCTIONS = ("Check cuTile Rust ports against the cuTile Python reference by their Tile IR. `diff` compares two "
                "kernels (bytecode or text); `summary` describes one; `verify` runs the staged verification of a "
                "port of the reference suite and returns its JSON report; `analyze` finds a reference kernel's "
                "structural variants. Paths are relative to the server's workspace root (absolute paths must lie "
                "inside it). Errors are JSON: {\"kind\": ..., \"message\": ...}.")

#: The kinds of a tool error.
ERROR_KINDS = ("bad_input", "outside_workspace", "not_permitted", "timeout", "busy", "resource_limit", "internal")

GIB = 1024 ** 3
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
MAX_KERNEL_RS_CHARS = 1024 * 1024


@dataclass
class ServerConfig:
    """What the server serves and how much it may spend (the ``tileir-diff mcp`` options)."""
    root: Path = field(default_factory=Path.cwd)
    suite: Optional[Path] = None  # the checkout holding reference/ (default: tileir_diff.paths.find_root)
    allow_user_code: bool = False
    max_jobs: int = 2
    max_waiting: int = 8
    timeout_s: float = 300.0
    verify_timeout_s: float = 3600.0
    memory_bytes: int = 4 * GIB
    verify_memory_bytes: int = 16 * GIB
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    spare_worker: bool = True  # keep one worker started and imported for the next diff/summary/analyze


class ToolFailure(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


def _json_text(value: Any) -> str:
    """Compact JSON with every non-ASCII and control character escaped (nothing a terminal or a
    viewer would act on reaches the client raw)."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


def failure_result(kind: str, message: str):
    from mcp_types import CallToolResult, TextContent
    error = {"kind": kind, "message": message}
    return CallToolResult(content=[TextContent(type="text", text=_json_text(error))], structured_content=error,
                          is_error=True)


def success_result(value: Any):
    from mcp_types import CallToolResult, TextContent
    return CallToolResult(content=[TextContent(type="text", text=_json_text(value))], structured_content=value)


def server_version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("tileir_diff")
    except PackageNotFoundError:
        return "0+unknown"


class Runner:
    """The server's state: the workspace, the suite, the worker slots and the live workers."""

    def __init__(self, config: ServerConfig):
        self.config = config
        self.workspace = Workspace(config.root, config.max_file_bytes)
        self.watch = JobWatch()
        self.running = 0
        self.waiting = 0
        self._slots: Any = None
        self._spare: Optional[Worker] = None

    # -- the suite -------------------------------------------------------------------------
    def suite_root(self) -> Optional[Path]:
        if self.config.suite is not None:
            return Path(os.path.realpath(self.config.suite))
        from ..paths import find_root
        found = find_root()
        return Path(os.path.realpath(found)) if found is not None else None

    def suite_ops(self) -> Dict[str, Path]:
        """The reference suite's ops: name -> reference/<op> (resolved)."""
        root = self.suite_root()
        reference = root / "reference" if root is not None else None
        if reference is None or not reference.is_dir():
            return {}
        return {p.name: Path(os.path.realpath(p)) for p in sorted(reference.iterdir())
                if p.is_dir() and not p.name.startswith(("_", ".")) and (p / "analysis.json").is_file()}

    # -- worker slots ----------------------------------------------------------------------
    async def run(self, tool: str, request: Dict[str, Any], *, timeout_s: Optional[float], verify: bool = False,
                  pass_fds=(), progress: Optional[Callable[[str], Awaitable[None]]] = None) -> Any:
        import anyio
        limit = self.config.verify_timeout_s if verify else self.config.timeout_s
        deadline_s = limit if timeout_s is None else min(float(timeout_s), limit)
        if self._slots is None:
            self._slots = anyio.Semaphore(self.config.max_jobs)
        if self._slots.value == 0 and self.waiting >= self.config.max_waiting:
            raise ToolFailure("busy", f"{tool}: busy: {self.running} call(s) running and {self.waiting} waiting "
                                      f"(at most {self.config.max_jobs} at once); try again later")
        started = time.monotonic()
        self.waiting += 1
        try:
            with anyio.move_on_after(deadline_s) as waited:
                await self._slots.acquire()
        finally:
            self.waiting -= 1
        if waited.cancelled_caught:
            raise ToolFailure("busy", f"{tool}: busy: no worker free within the call's {deadline_s:g}s deadline "
                                      f"({self.config.max_jobs} at once)")
        self.running += 1
        try:
            left = max(0.5, deadline_s - (time.monotonic() - started))
            memory = self.config.verify_memory_bytes if verify else self.config.memory_bytes
            # verify's numerics and performance stages open CUDA, which reserves far more address
            # space than it uses and fails under RLIMIT_AS: its limit counts the data it writes
            limits = JobLimits(timeout_s=left, memory_bytes=memory, cpu_s=int(left) + 10,
                               max_output_bytes=self.config.max_output_bytes, memory_kind="DATA" if verify else "AS")
            worker = await self._take_spare(memory) if not verify else None
            try:
                return await run_job(tool, request, limits, cwd=self.workspace.root, env=self._env(),
                                     pass_fds=pass_fds, watch=self.watch, worker=worker, on_stderr_line=progress)
            except JobError as e:
                raise ToolFailure(e.kind, e.message) from None
        finally:
            self.running -= 1
            self._slots.release()

    def _env(self) -> Dict[str, str]:
        suite = self.suite_root()
        return worker_env({"TILEIR_DIFF_ROOT": str(suite)} if suite is not None else None)

    async def _take_spare(self, memory_bytes: int) -> Optional[Worker]:
        """The waiting spare worker for this call (None: start a fresh one), and a new spare
        started for the next call. At most one spare exists; it holds no slot."""
        if not self.config.spare_worker:
            return None
        spare, self._spare = self._spare, None
        if spare is not None and not spare.usable(memory_bytes):
            await spare.discard()
            spare = None
        await self.start_spare()
        return spare

    async def start_spare(self) -> None:
        import anyio
        if not self.config.spare_worker or self._spare is not None:
            return
        with anyio.CancelScope(shield=True):
            try:
                self._spare = await start_worker(memory_bytes=self.config.memory_bytes, cwd=self.workspace.root,
                                                 env=self._env(), warm=True)
            except OSError:
                self._spare = None

    async def close(self) -> None:
        """Stop the spare worker (the server is shutting down)."""
        spare, self._spare = self._spare, None
        if spare is not None:
            await spare.discard()

    # -- the tools -------------------------------------------------------------------------
    async def diff(self, left: str, right: str, options: Dict[str, Any], timeout_s: Optional[float],
                   progress=None) -> Any:
        opened = []
        try:
            opened.append(self.workspace.open_regular(left, "left"))
            opened.append(self.workspace.open_regular(right, "right"))
            accept = options.pop("accept", None)
            if accept is not None:
                options["accept"] = {"path": str(self._accept_file(accept)), "label": accept}
            request = {"inputs": {"left": {"index": 0, "label": left}, "right": {"index": 1, "label": right}},
                       "options": options, "max_file_bytes": self.config.max_file_bytes}
            return await self.run("diff", request, timeout_s=timeout_s, pass_fds=[f.fd for f in opened],
                                  progress=progress)
        finally:
            for f in opened:
                f.close()

    def _accept_file(self, given: str) -> Path:
        """An --accept analysis.json: confined and regular, and so are the kernel.py and ref.py
        beside it (read for launch facts: their text must not come from outside the workspace)."""
        checked = self.workspace.open_regular(given, "accept")
        checked.close()
        for name in ("kernel.py", "ref.py"):
            beside = checked.real.parent / name
            if os.path.lexists(beside):
                self.workspace.open_regular(str(beside), f"accept ({name} beside it)").close()
        return checked.real

    async def summary(self, path: str, timeout_s: Optional[float], progress=None) -> Any:
        opened = self.workspace.open_regular(path, "path")
        try:
            request = {"inputs": {"path": {"index": 0, "label": path}},
                       "max_file_bytes": self.config.max_file_bytes}
            return await self.run("summary", request, timeout_s=timeout_s, pass_fds=[opened.fd], progress=progress)
        finally:
            opened.close()

    async def verify(self, op: str, variant: Optional[str], stages: Optional[List[str]], kernel_rs: Optional[str],
                     timeout_s: Optional[float], progress=None) -> Any:
        _check_name(op, "op")
        if variant is not None:
            _check_name(variant, "variant")
        if kernel_rs is not None and not self.config.allow_user_code:
            raise ToolFailure("not_permitted", "verify: kernel_rs is code to build and run; this server was not "
                                               "started with --allow-user-code (it verifies the suite's own ports only)")
        if kernel_rs is not None and len(kernel_rs) > MAX_KERNEL_RS_CHARS:
            raise ToolFailure("bad_input", f"verify: kernel_rs is {len(kernel_rs)} characters, more than "
                                           f"{MAX_KERNEL_RS_CHARS}")
        ops = self.suite_ops()
        if op not in ops:
            where = self.suite_root()
            raise ToolFailure("bad_input", f"verify: no reference operator {op!r} in "
                                           f"{where / 'reference' if where else 'the suite (no suite configured)'}")
        request = {"op": op, "variant": variant, "stages": stages, "kernel_rs": kernel_rs}
        return await self.run("verify", request, timeout_s=timeout_s, verify=True, progress=progress)

    async def analyze(self, op: Optional[str], kernel_py: Optional[str], timeout_s: Optional[float],
                      progress=None) -> Any:
        if (op is None) == (kernel_py is None):
            raise ToolFailure("bad_input", "analyze: give exactly one of op (a reference operator) and kernel_py")
        ops = self.suite_ops()
        if op is not None:
            _check_name(op, "op")
            if op not in ops:
                raise ToolFailure("bad_input", f"analyze: no reference operator {op!r} in the suite "
                                               f"({len(ops)} ops: {', '.join(sorted(ops)[:8])}{', ...' if len(ops) > 8 else ''})")
            target = ops[op] / "kernel.py"
        else:
            assert kernel_py is not None
            target = self.workspace.open_regular(kernel_py, "kernel_py").real
            in_suite = target.name == "kernel.py" and ops.get(target.parent.name) == target.parent
            if not in_suite and not self.config.allow_user_code:
                raise ToolFailure("not_permitted", f"analyze: {kernel_py} is not a kernel.py of the reference suite "
                                                   "and analyze imports and runs it; this server was not started "
                                                   "with --allow-user-code")
            if not in_suite:
                for name in ("analysis.json", "ref.py"):
                    beside = target.parent / name
                    if os.path.lexists(beside):
                        self.workspace.open_regular(str(beside), f"kernel_py ({name} beside it)").close()
        return await self.run("analyze", {"kernel_py": str(target)}, timeout_s=timeout_s, progress=progress)


def _check_name(value: str, what: str) -> None:
    if not _NAME.match(value) or len(value) > 200:
        raise ToolFailure("bad_input", f"{what}: {value!r} is not a name (letters, digits, _ . -)")


# -- the MCP surface -------------------------------------------------------------------------

def _validation_message(tool: str, error: Any) -> str:
    """Pydantic's errors without the rejected values (those are the caller's own data)."""
    parts = []
    for e in error.errors():
        where = ".".join(str(p) for p in e.get("loc", ())) or "arguments"
        parts.append(f"{where}: {e.get('msg', 'invalid')}")
    return f"{tool}: bad arguments: " + "; ".join(parts)


def _output_schemas() -> Dict[str, Dict[str, Any]]:
    from ..report.json_schema import load_schema
    diff_schema = {k: v for k, v in load_schema().items() if k not in ("$id", "$schema")}
    loose = {"type": "object", "additionalProperties": True}
    return {
        "diff": diff_schema,
        "summary": dict(loose, required=["source"]),
        "verify": dict(loose, required=["schema_version", "kind", "result"],
                       properties={"kind": {"const": "verify_report"},
                                   "result": {"enum": ["pass", "fail", "skipped", "not_converged"]}}),
        "analyze": dict(loose, required=["kind", "op"], properties={"kind": {"const": "analyze_report"}}),
    }


def build_server(config: Optional[ServerConfig] = None):
    """The MCPServer; ``server.tileir_runner`` is its state (the live workers: ``.watch.live``)."""
    from typing import Annotated

    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from mcp.server.mcpserver.tools import Tool
    from mcp_types import CallToolResult, ToolAnnotations
    from pydantic import Field, ValidationError

    from ..normalize import REGISTRY
    from .stages import STAGES

    runner = Runner(config or ServerConfig())

    def progress_of(ctx: Context):
        """The worker's progress lines as MCP progress notifications (sent when the client asked
        for progress with a progressToken); a notification that cannot be sent never fails the call."""
        count = 0

        async def forward(line: str) -> None:
            nonlocal count
            count += 1
            try:
                await ctx.report_progress(count, None, line)
            except Exception:  # noqa: BLE001 - progress is a courtesy
                pass
        return forward

    async def guarded(call) -> CallToolResult:
        try:
            return success_result(await call)
        except ToolFailure as e:
            return failure_result(e.kind, e.message)
        except ConfinementError as e:
            return failure_result(e.kind, e.message)

    Timeout = Annotated[Optional[float], Field(default=None, gt=0, description=(
        "seconds this call may take, waiting for a worker included; capped at the server's limit "
        f"(--timeout, default {ServerConfig.timeout_s:g}s; verify: --verify-timeout). Past it the worker is killed"))]
    Path_ = Annotated[str, Field(min_length=1, max_length=4096, description=(
        "a .tileirbc bytecode or tileirdisasm text file: relative to the workspace root, or absolute inside it"))]
    rule_names = sorted(REGISTRY)

    async def diff(
        left: Annotated[str, Field(min_length=1, max_length=4096, description=(
            "reference kernel: .tileirbc bytecode or tileirdisasm text, relative to the workspace root or absolute "
            "inside it"))],
        right: Annotated[str, Field(min_length=1, max_length=4096, description=(
            "kernel compared with it (e.g. the Rust port); same rules as left"))],
        execute: Annotated[Literal["never", "auto", "always"], Field(description=(
            "run both kernels in the CPU interpreter on generated inputs: never; auto (only for a different or "
            "unknown verdict, as the CLI's bare --execute); always (a divergence on an identical/equivalent pair "
            "makes it different)"))] = "never",
        trials: Annotated[int, Field(ge=1, le=1000, description="execute: inputs to try")] = 20,
        seed: Annotated[int, Field(ge=0, le=2 ** 63 - 1, description="execute: random seed")] = 0,
        rules: Annotated[Optional[List[str]], Field(max_length=64, description=(
            "run only these normalization rules (default: the default set)"),
            json_schema_extra={"items": {"type": "string", "enum": rule_names}})] = None,
        disable: Annotated[Optional[List[str]], Field(max_length=64, description="switch these rules off",
                                                      json_schema_extra={"items": {"type": "string", "enum": rule_names}})] = None,
        accept: Annotated[Optional[str], Field(max_length=4096, description=(
            "an analysis.json (inside the workspace) whose accepted_differences apply to this diff"))] = None,
        variant: Annotated[Optional[str], Field(max_length=200, description=(
            "accept: the variant compared (default: from the file names)"))] = None,
        launch_facts: Annotated[Optional[List[Annotated[str, Field(max_length=1000)]]], Field(max_length=32, description=(
            "smt-equivalence: facts of the launch, e.g. 'grid.x == cdiv(arg11, 128)' (names arg<k>, bid.x, grid.x; "
            "reported when a proof uses one)"))] = None,
        smt_timeout_s: Annotated[Optional[float], Field(default=None, gt=0, le=60, description=(
            "smt-equivalence: the wall-clock safety net of one proof in seconds (default 60; the budget itself is "
            "z3's work, the same under any load); past it the verdict is unknown"))] = None,
        no_lines: Annotated[bool, Field(description=(
            "leave out the printed modules (left_lines/right_lines), most of a report's size; false to include them"))] = True,
        timeout_s: Timeout = None,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> CallToolResult:
        options = {"execute": None if execute == "never" else execute, "trials": trials, "seed": seed,
                   "rules": rules, "disable": disable or [], "accept": accept, "variant": variant, "no_lines": no_lines,
                   "launch_facts": launch_facts, "smt_timeout_s": smt_timeout_s}
        return await guarded(runner.diff(left, right, options, timeout_s, progress_of(ctx)))

    async def summary(path: Path_, timeout_s: Timeout = None, ctx: Context = None) -> CallToolResult:  # type: ignore[assignment]
        return await guarded(runner.summary(path, timeout_s, progress_of(ctx)))

    async def verify(
        op: Annotated[str, Field(min_length=1, max_length=200, description="a reference operator of the suite, e.g. softmax")],
        variant: Annotated[Optional[str], Field(max_length=200, description="only this variant of analysis.json")] = None,
        stages: Annotated[Optional[List[Literal[STAGES]]], Field(description=(  # type: ignore[valid-type]
            "stages to run, in their fixed order (default all six)"))] = None,
        kernel_rs: Annotated[Optional[str], Field(max_length=MAX_KERNEL_RS_CHARS, description=(
            "a candidate kernel.rs, verified on a copy of the crate (needs a server started with --allow-user-code)"))] = None,
        timeout_s: Timeout = None,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> CallToolResult:
        return await guarded(runner.verify(op, variant, stages, kernel_rs, timeout_s, progress_of(ctx)))

    async def analyze(
        op: Annotated[Optional[str], Field(max_length=200, description="a reference operator of the suite, e.g. softmax")] = None,
        kernel_py: Annotated[Optional[str], Field(max_length=4096, description=(
            "reference/<op>/kernel.py of the suite (anything else needs a server started with --allow-user-code)"))] = None,
        timeout_s: Timeout = None,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> CallToolResult:
        return await guarded(runner.analyze(op, kernel_py, timeout_s, progress_of(ctx)))

    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
    builds = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
    schemas = _output_schemas()
    tools = []
    for fn, title, description, annotations in (
        (diff, "Compare two kernels",
         "Structurally compare two Tile IR kernels (bytecode or tileirdisasm text). Returns the diff JSON "
         "(docs/json-format.md): verdict, root differences, rules applied; compact (no printed modules) unless "
         "no_lines is false.", read_only),
        (summary, "Summarize a kernel",
         "Summarize one Tile IR kernel: signature, tile shapes, memory ops, reductions, loops.", read_only),
        (verify, "Verify a Rust port",
         "Verify the cuTile Rust port of a reference op (optionally one variant): stages cargo_test, ir_compare, "
         "tileiras, abi, numerics, performance, stopping at the first failure. Builds into the verify work folder "
         "(build/verify). Returns the verify report JSON (docs/verify.schema.json).", builds),
        (analyze, "Analyze a reference kernel",
         "Analyze a reference operator's kernel.py: which ct.Constant parameters change the IR structure, the "
         "structural variants, checked against analysis.json. Exports through cuda.tile into build/verify/analyze.",
         builds),
    ):
        tool = Tool.from_function(fn, name=fn.__name__, title=title, description=description, annotations=annotations)
        tool.fn_metadata.output_schema = schemas[fn.__name__]
        tools.append(tool)

    class TileIRDiffServer(MCPServer):
        async def call_tool(self, name, arguments, context=None):
            try:
                return await super().call_tool(name, arguments, context)
            except UnexpectedToolError as e:
                cause = e.__cause__
                return failure_result("internal", f"{name}: internal error: {type(cause).__name__}: {cause}"[:500])
            except ToolError as e:
                if isinstance(e.__cause__, ValidationError):
                    return failure_result("bad_input", _validation_message(name, e.__cause__))
                return failure_result("bad_input", str(e))

    @asynccontextmanager
    async def lifespan(_server):
        await runner.start_spare()
        try:
            yield {}
        finally:
            await runner.close()

    server = TileIRDiffServer("tileir-diff", title="tileir-diff", instructions=INSTRUCTIONS,
                              version=server_version(), tools=tools, lifespan=lifespan)
    server.tileir_runner = runner  # type: ignore[attr-defined]
    return server


def serve(config: Optional[ServerConfig] = None) -> None:
    build_server(config).run("stdio")
