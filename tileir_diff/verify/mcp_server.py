"""``tileir-diff mcp``: diff, summary, verify and analyze as MCP tools over stdio.

Built on the official ``mcp`` SDK (2.x, ``MCPServer``). Each tool returns the same versioned JSON
as the command line, as one text content (``diff``: docs/json-format.md; ``summary``; ``verify``:
docs/verify.schema.json; ``analyze``: the analyze report). Bad input (an unreadable file, an unknown op) is a tool error
with the one-line message the CLI prints; the server stays up.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

INSTRUCTIONS = ("Check cuTile Rust ports against the cuTile Python reference by their Tile IR. `verify` runs "
                "the staged verification of a port (cargo test, IR comparison, tileiras, C ABI, numerics, "
                "performance) and returns its JSON report; `diff` compares two kernels; `summary` describes one; "
                "`analyze` finds a reference kernel's structural variants.")


def build_server():
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    from tileir_diff.errors import TileIRFormatError

    server = MCPServer("tileir-diff", instructions=INSTRUCTIONS)

    def bad_input(e: Exception):
        return ToolError(str(e))

    @server.tool(structured_output=False,
                 description="Structurally compare two Tile IR kernels (bytecode or tileirdisasm text files). "
                             "Returns the diff JSON: verdict, differences, rules applied.")
    def diff(left: str, right: str, execute: Optional[str] = None) -> Dict[str, Any]:
        from tileir_diff.api import diff as run_diff
        if execute not in (None, "auto", "always"):
            raise ToolError(f"execute must be auto or always, not {execute!r}")
        try:
            return run_diff(left, right, execute=execute).to_dict()
        except (TileIRFormatError, OSError) as e:
            raise bad_input(e) from None

    @server.tool(structured_output=False,
                 description="Summarize one Tile IR kernel: signature, tile shapes, memory ops, reductions, loops.")
    def summary(path: str) -> Dict[str, Any]:
        from tileir_diff.api import summarize
        try:
            return summarize(path)
        except (TileIRFormatError, OSError) as e:
            raise bad_input(e) from None

    @server.tool(structured_output=False,
                 description="Verify the cuTile Rust port of a reference op (optionally one variant): stages "
                             "cargo_test, ir_compare, tileiras, abi, numerics, performance, stopping at the first "
                             "failure. `kernel_rs`: a candidate kernel.rs verified on a copy of the crate. Returns "
                             "the verify report JSON (docs/verify.schema.json).")
    def verify(op: str, variant: Optional[str] = None, stages: Optional[List[str]] = None,
               kernel_rs: Optional[str] = None) -> Dict[str, Any]:
        from tileir_diff.verify import VerifyUsageError, verify_port
        try:
            report = verify_port(op, variant, stages=stages, sources={"kernel.rs": kernel_rs} if kernel_rs else None)
        except VerifyUsageError as e:
            raise bad_input(e) from None
        return report.to_dict()

    @server.tool(structured_output=False,
                 description="Analyze reference/<op>/kernel.py: which ct.Constant parameters change the IR "
                             "structure, the structural variants, checked against analysis.json.")
    def analyze(kernel_py: str) -> Dict[str, Any]:
        from pathlib import Path

        from tileir_diff.verify.analyze import AnalyzeError, analyze as run_analyze
        try:
            return run_analyze(Path(kernel_py)).to_dict()
        except (AnalyzeError, OSError) as e:
            raise bad_input(e) from None

    return server


def serve() -> None:
    build_server().run("stdio")
