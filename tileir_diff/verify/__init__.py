"""Staged verification of a cuTile Rust port for agent loops: ``verify_port`` runs the stages
(cargo test, IR comparison, tileiras, C ABI, numerics, performance), stops at the first failure,
hands it to a repair and retries, with a content-addressed build cache and a diagnostics folder
per run. See docs/agents.md."""
from .run import SCHEMA_VERSION, Repair, VerifyReport, VerifyUsageError, command_repair, verify_port
from .stages import STAGES

__all__ = ["SCHEMA_VERSION", "STAGES", "Repair", "VerifyReport", "VerifyUsageError", "command_repair", "verify_port"]
