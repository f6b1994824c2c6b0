"""``tileir-diff mcp``: serve diff, summary, verify and analyze as MCP tools over stdio (docs/agents.md)."""
from __future__ import annotations

import argparse


def register(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("mcp", help="Model Context Protocol server over stdio (diff, summary, verify, analyze)",
                              description=__doc__.splitlines()[0])
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    from . import UsageError
    import importlib.util
    if importlib.util.find_spec("mcp") is None:
        raise UsageError("the MCP server needs the mcp SDK; pip install 'tileir_diff[mcp]'")
    try:
        from ..verify.mcp_server import serve
    except ModuleNotFoundError as e:
        raise UsageError(f"the MCP server needs the mcp SDK ({e}); pip install 'tileir_diff[mcp]'") from None
    serve()
    return 0
