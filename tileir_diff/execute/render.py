"""The execution section of the reports, as plain lines (text and markdown) or one HTML block."""
from __future__ import annotations

import html
from typing import Any, List, Optional


def execution_lines(execution: Optional[dict]) -> List[str]:
    """A few lines: the status message, then for a counterexample its inputs and first difference."""
    if not execution:
        return []
    lines = [f"execution: {execution.get('message') or execution.get('status')}"]
    cex = execution.get("counterexample")
    if cex:
        inputs = cex.get("inputs") or {}
        parts = [f"grid {tuple(inputs.get('grid', ()))}"]
        for a in inputs.get("arrays", ()):
            dims = "x".join(str(n) for n in a.get("shape", ())) or "scalar"
            data = f" = {a['data']}" if "data" in a else ""
            parts.append(f"{a['name']}: {a['dtype']}[{dims}] strides {a.get('strides')} {a.get('values')}{data}")
        if inputs.get("scalars"):
            parts.append(f"scalars {inputs['scalars']}")
        lines.append("  inputs: " + "; ".join(parts))
        if cex.get("kind") in ("values", "print"):
            extra = f", max |diff| {cex['max_abs_diff']}" if cex.get("max_abs_diff") is not None else ""
            lines.append(f"  first difference: {cex['output']}{cex['index']}: left {cex['left']} vs right "
                         f"{cex['right']} ({cex['differing_elements']} element(s) differ{extra})")
        else:
            lines.append(f"  left: {cex.get('left_error') or 'ran'}; right: {cex.get('right_error') or 'ran'}")
        lines.append(f"  reproduce: --execute --seed {execution.get('seed')} (trial {cex.get('trial')})")
    elif execution.get("skipped_trials"):
        lines.append(f"  ({execution['skipped_trials']} trial(s) skipped: both kernels failed on them)")
    return lines


def execution_html(execution: Optional[dict]) -> str:
    lines = execution_lines(execution)
    if not lines:
        return ""
    status = html.escape(str(execution.get("status", "")))
    body = "\n".join(html.escape(x) for x in lines)
    return (f"<section class=\"execution\" id=\"execution\"><h2>Execution ({status})</h2>"
            f"<pre>{body}</pre></section>\n")
