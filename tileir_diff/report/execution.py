"""The execution section of the reports, as plain lines (text and markdown) or one HTML block."""
from __future__ import annotations

import html
from typing import List, Optional

from .common import escape_controls


def execution_lines(execution: Optional[dict]) -> List[str]:
    """A few lines: the status message, then for a counterexample its inputs and first difference."""
    if not execution:
        return []
    mode = f" ({execution['mode']})" if execution.get("mode") else ""
    lines = [f"execution{mode}: {execution.get('message') or execution.get('status')}"]
    if execution.get("structural_verdict"):
        lines.append(f"  verdict overruled: the structural diff said {execution['structural_verdict']}; "
                     f"the counterexample below says different")
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
        for note in cex.get("notes") or ():
            lines.append(f"  note: {note}")
        lines.append(f"  reproduce: --execute{'=' + execution['mode'] if execution.get('mode') else ''} "
                     f"--seed {execution.get('seed')} (trial {cex.get('trial')}, {inputs.get('family', 'normal')} values)")
    elif execution.get("skipped_trials"):
        lines.append(f"  ({execution['skipped_trials']} trial(s) skipped: both kernels failed on them)")
    if execution.get("invalid_trials") and execution.get("status") != "no_divergence":
        lines.append(f"  ({execution['invalid_trials']} generated input(s) rejected: {execution.get('invalid_reason')})")
    if execution.get("families") and not cex:
        lines.append("  trials: " + ", ".join(f"{k} {v}" for k, v in execution["families"].items()))
    for note in execution.get("notes") or ():
        if not cex or note not in (cex.get("notes") or ()):
            lines.append(f"  note: {note}")
    return lines


def execution_html(execution: Optional[dict]) -> str:
    lines = execution_lines(execution)
    if not lines or execution is None:
        return ""
    status = html.escape(escape_controls(execution.get("status", "")))
    body = "\n".join(html.escape(escape_controls(x)) for x in lines)
    return (f"<section class=\"execution\" id=\"execution\"><h2>Execution ({status})</h2>"
            f"<pre>{body}</pre></section>\n")
