"""Standalone HTML report: differences first, printed modules side by side, summary tables.

One file, no external assets (inline CSS and JS). Every string taken from the result — op text,
names, paths, messages, summary cells — goes through ``esc`` (html.escape with quotes), and the
script reads only ``data-`` attributes, so nothing from a kernel is ever interpreted as markup
or code.
"""
from __future__ import annotations

import html
import re
from typing import Any, Dict, List, Optional, Tuple

from .common import (VERDICT_MEANING, compact, difference_op_ids, escape_controls, ops_matched, pair_summary,
                     sorted_rules, stats_items)
from .result import DiffResult

SECTION_TITLES = {"signature": "Signature", "hints": "Entry hints", "tile_shapes": "Tile shapes",
                  "memory": "Memory (per view)", "reductions": "Reductions / scans", "mma": "MMA",
                  "loops": "Control flow", "assumptions": "Assumptions", "op_histogram": "Op histogram"}


def esc(value: Any) -> str:
    """HTML-escaped, control characters first written as visible escapes (common.escape_controls)."""
    return html.escape(escape_controls(value, keep="\n"), quote=True)


def render(result: DiffResult, *, title: Optional[str] = None, max_affected: int = 24) -> str:
    lines_of = {"L": _resolver({i for i, _ in result.left_lines if i}),
                "R": _resolver({i for i, _ in result.right_lines if i})}
    roles_l, roles_r = difference_op_ids(result)
    # A difference on something without a line of its own (an entry argument "f0/a3") marks
    # the line that holds it (the entry line "f0").
    left_roles = _resolved_roles(roles_l, lines_of["L"])
    right_roles = _resolved_roles(roles_r, lines_of["R"])
    partner_l = {l: r for l, r, _ in result.mapping}
    partner_r = {r: l for l, r, _ in result.mapping}
    # Entry lines pair in order (the mapping pairs ops, not functions).
    lf = [i for i, _ in result.left_lines if i and "/" not in i]
    rf = [i for i, _ in result.right_lines if i and "/" not in i]
    for a, b in zip(lf, rf):
        partner_l.setdefault(a, b)
        partner_r.setdefault(b, a)
    _pair_region_bodies(partner_l, partner_r, result.left_lines, result.right_lines)
    stage_l = {l: s for l, _, s in result.mapping}
    title = title or f"tileir-diff: {result.verdict} — {result.left_source} vs {result.right_source}"
    parts: List[str] = [
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
        f"<title>{esc(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n",
        _header(result),
        "<main>\n",
        _differences(result, max_affected, lines_of),
        _execution(result),
        _absorbed_overview(result),
        _code(result, left_roles, right_roles, partner_l, partner_r, stage_l),
        _summary(result, lines_of),
        _rules_and_functions(result),
        _stats(result),
        "</main>\n",
        f"<script>{_JS}</script>\n</body>\n</html>\n",
    ]
    return "".join(parts)


# -- sections ---------------------------------------------------------------------------------

def _execution(result: DiffResult) -> str:
    if result.execution is None:
        return ""
    from .execution import execution_html
    return execution_html(result.execution.to_dict())


def _header(result: DiffResult) -> str:
    n_diff = len(result.differences)
    n_aff = sum(len(d.affected) for d in result.differences)
    n_rules = sum(result.rules_applied.values())
    chips = [f"<span class=\"chip\">{n_diff} root difference{'s' if n_diff != 1 else ''}</span>",
             f"<span class=\"chip\">{n_aff} affected op{'s' if n_aff != 1 else ''}</span>",
             f"<span class=\"chip\">{len(result.rules_applied)} rules applied ({n_rules} rewrites)</span>"]
    matched = ops_matched(result)
    if matched is not None:
        chips.append(f"<span class=\"chip\">{matched} ops matched</span>")
    reason = f"<div class=\"reason\">Unknown because: {esc(result.reason)}</div>" if result.reason else ""
    return (f"<header class=\"top v-{esc(result.verdict)}\">\n"
            f"<div class=\"verdict\">{esc(result.verdict.upper())}</div>\n"
            f"<div class=\"head-body\"><div class=\"sources\"><span class=\"side sl\">left</span> "
            f"<code>{esc(result.left_source)}</code> <span class=\"side sr\">right</span> "
            f"<code>{esc(result.right_source)}</code></div>\n"
            f"<div class=\"meaning\">{esc(VERDICT_MEANING.get(result.verdict, ''))}</div>\n"
            f"<div class=\"chips\">{''.join(chips)}</div>{reason}</div>\n"
            f"<nav><a href=\"#differences\">Differences</a><a href=\"#code\">Side by side</a>"
            f"<a href=\"#summary\">Summary</a><a href=\"#rules\">Rules</a><a href=\"#stats\">Stats</a></nav>\n"
            "</header>\n")


def _pair_region_bodies(partner_l: Dict[str, str], partner_r: Dict[str, str], left_lines, right_lines) -> None:
    """Ops inside a matched region op (a reduce combiner, say) that the mapping does not list
    pair by the same relative path under their matched ancestors."""
    right_ids = {i for i, _ in right_lines if i}
    for op_id, _ in left_lines:
        if not op_id or op_id in partner_l:
            continue
        head, _, tail = op_id.rpartition("/")
        suffix = tail
        # Climb to the nearest matched enclosing *op*; a function is not evidence enough.
        while "/" in head and head not in partner_l:
            head, _, step = head.rpartition("/")
            suffix = f"{step}/{suffix}"
        if "/" not in head:
            continue
        candidate = f"{partner_l[head]}/{suffix}"
        if candidate in right_ids and candidate not in partner_r:
            partner_l[op_id] = candidate
            partner_r[candidate] = op_id


def _resolver(ids):
    """Map an op id to itself or its nearest ancestor that has a printed line."""
    def resolve(op_id: str) -> str:
        probe = op_id
        while probe not in ids and "/" in probe:
            probe = probe.rsplit("/", 1)[0]
        return probe if probe in ids else op_id
    return resolve


def _resolved_roles(roles: Dict[str, str], resolve) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for op_id, role in roles.items():
        line = resolve(op_id)
        if out.get(line) != "diff":
            out[line] = role
    return out


def _opref_link(side: str, op_id: str, lines_of: Optional[Dict[str, Any]] = None) -> str:
    """A link showing ``op_id`` that jumps to its line (or the line holding it)."""
    line = lines_of[side](op_id) if lines_of else op_id
    target = f"{side}:{line}"
    return (f"<a class=\"opref o{side}\" href=\"#{esc(target)}\" data-target=\"{esc(target)}\">"
            f"{esc(op_id)}</a>")


#: a root difference's message longer than this shows three lines and a button for the rest
LONG_MESSAGE = 360


def _differences(result: DiffResult, max_affected: int, lines_of: Dict[str, Any]) -> str:
    out = ["<section id=\"differences\">\n"]
    diffs = result.differences
    if not diffs:
        msg = {"identical": "No differences: the kernels are the same after renaming values.",
               "equivalent": "No root differences: the kernels are the same after the rules listed below.",
               "unknown": "No verdict: see the reason above."}.get(result.verdict, "No differences listed.")
        out.append(f"<h2>Root differences</h2>\n<p class=\"none\">{esc(msg)}</p>\n</section>\n")
        return "".join(out)
    out.append(f"<h2>Root differences ({len(diffs)})</h2>\n<ol class=\"diffs\">\n")
    for i, d in enumerate(diffs, 1):
        where = [f"<span class=\"fn\">@{esc(d.function)}</span>"]
        if d.left:
            where.append(_opref_link("L", d.left.op_id, lines_of))
        if d.right:
            where.append(("↔ " if d.left else "") + _opref_link("R", d.right.op_id, lines_of))
        context = d.context
        ctx = f"<div class=\"ctx\">inside {esc(' › '.join(context))}</div>" if context else ""
        sides = []
        for cls, sign, ref in (("dl", "−", d.left), ("dr", "+", d.right)):
            if ref is None:
                sides.append(f"<div class=\"{cls} absent\"><span class=\"sign\">{sign}</span>"
                             f"<span class=\"abs\">absent on this side</span></div>")
            else:
                loc = f"<div class=\"loc\">at {esc(ref.location)}</div>" if ref.location else ""
                sides.append(f"<div class=\"{cls}\"><span class=\"sign\">{sign}</span>"
                             f"<code>{esc(ref.text)}</code>{loc}</div>")
        affected = ""
        if d.affected:
            links = " ".join(_opref_link("L", a, lines_of) for a in d.affected[:max_affected])
            more = len(d.affected) - max_affected
            more_text = f" <span class=\"more\">+{more} more</span>" if more > 0 else ""
            affected = f"<div class=\"aff\">affected downstream: {links}{more_text}</div>"
        hint = f"<div class=\"hint\">{esc(d.rule_hint)}</div>" if d.rule_hint else ""
        accepted = d.accepted
        if accepted:
            hint += (f"<div class=\"accepted\"><span class=\"acc\">accepted</span> by <code>{esc(accepted.get('file'))}"
                     f"</code>: {esc(accepted.get('what'))}<div class=\"why\">{esc(accepted.get('why'))}</div></div>")
        li_class = " class=\"is-accepted\"" if accepted else ""
        long = len(d.message) > LONG_MESSAGE  # e.g. every argument of a reordered signature
        more_button = (f"<button type=\"button\" class=\"more-msg\">show the whole message ({len(d.message):,} "
                       f"characters)</button>") if long else ""
        out.append(f"<li id=\"d{i}\"{li_class}><div class=\"dhead{' long' if long else ''}\">"
                   f"<span class=\"cat c-{esc(d.category)}\">"
                   f"{esc(d.category)}</span><span class=\"msg\">{esc(d.message)}</span></div>{more_button}"
                   f"<div class=\"where\">{' '.join(where)}</div>{ctx}"
                   f"<div class=\"sides\">{''.join(sides)}</div>{affected}{hint}</li>\n")
    out.append("</ol>\n</section>\n")
    return "".join(out)


def _code(result: DiffResult, left_roles: Dict[str, str], right_roles: Dict[str, str],
          partner_l: Dict[str, str], partner_r: Dict[str, str], stage_l: Dict[str, str]) -> str:
    if not result.left_lines and not result.right_lines:
        return ("<section id=\"code\"><h2>Side by side</h2><p class=\"none\">The result carries no "
                "printed modules.</p></section>\n")
    legend = ("<div class=\"legend\"><span class=\"ln diff\">root difference</span>"
              "<span class=\"ln affected\">affected</span>"
              "<span class=\"ln unmatched\">one side only (no partner: added, removed, or absorbed by a rule)</span>"
              "<span class=\"ln moved\">matched, but written elsewhere</span><span class=\"ln hl\">hovered pair</span>"
              "<span class=\"tip\">Matched ops share a row; <mark>marked</mark> tokens differ. Hover a line to see "
              "its partner; click to bring it into view.</span></div>")
    have_mapping = bool(result.mapping)
    absorbed = result.absorbed_by
    left = [_line_cell("L", n, op_id, text, left_roles, partner_l, stage_l, have_mapping,
                       absorbed.get("left", {}))
            for n, (op_id, text) in enumerate(result.left_lines, 1)]
    right = [_line_cell("R", n, op_id, text, right_roles, partner_r, {}, have_mapping,
                        absorbed.get("right", {}))
             for n, (op_id, text) in enumerate(result.right_lines, 1)]
    rows: List[str] = []
    marked: List[bool] = []
    where_l = {op_id: n for n, (op_id, _) in enumerate(result.left_lines) if op_id}
    where_r = {op_id: n for n, (op_id, _) in enumerate(result.right_lines) if op_id}
    for i, j in align_lines(result.left_lines, result.right_lines, partner_l, partner_r):
        lcell = left[i] if i is not None else None
        rcell = right[j] if j is not None else None
        lcell, rcell = _marked_tokens(result, i, j, lcell, rcell, partner_l, partner_r, where_l, where_r)
        rows.append(_code_row(result, i, j, lcell, rcell))
        marked.append(bool((lcell and lcell[2]) or (rcell and rcell[2])))
    has_differences = any(left_roles.values()) or any(right_roles.values())
    body = _fold(rows, marked) if has_differences else "".join(rows)
    head = (f"<div class=\"row phead\"><div class=\"ptitle\"><span class=\"side sl\">left</span> "
            f"<code>{esc(result.left_source)}</code></div><div class=\"ptitle\"><span class=\"side sr\">right</span> "
            f"<code>{esc(result.right_source)}</code></div></div>")
    gutter = len(str(max(len(result.left_lines), len(result.right_lines), 1)))
    switch = ""
    if any(absorbed.get("left", {})) or any(absorbed.get("right", {})):
        switch = ("<label class=\"switch\"><input type=\"checkbox\" id=\"hide-absorbed\"> hide the ops the rules "
                  "absorbed (rows with no partner on either side)</label>")
    return (f"<section id=\"code\"><h2>Side by side</h2>{legend}{switch}\n"
            f"<div class=\"sbs\" style=\"--gutter:{max(gutter, 3)}\">{head}"
            f"<div class=\"code\">{body}</div></div></section>\n")


def _marked_tokens(result: DiffResult, i, j, lcell, rcell, partner_l: Dict[str, str], partner_r: Dict[str, str],
                   where_l: Dict[str, int], where_r: Dict[str, int]):
    """The row's cells with the tokens of a root difference marked against its partner's line:
    on the same row, or (a cell alone on its row) on the row where the partner sits."""
    if lcell is not None and rcell is not None and ("diff" in (lcell[1], rcell[1])):
        # a root difference on both sides: mark the tokens that differ
        ltext, rtext = intraline(result.left_lines[i][1], result.right_lines[j][1])
        return (lcell[0].replace(_SRC_SLOT, ltext), lcell[1], lcell[2]), \
            (rcell[0].replace(_SRC_SLOT, rtext), rcell[1], rcell[2])
    if (lcell is None) != (rcell is None):
        # a root whose partner sits on another row: its tokens are marked all the same
        if lcell is not None and lcell[1] == "diff" and partner_l.get(result.left_lines[i][0] or "") in where_r:
            other = result.right_lines[where_r[partner_l[result.left_lines[i][0]]]][1]
            lcell = (lcell[0].replace(_SRC_SLOT, intraline(result.left_lines[i][1], other)[0]), lcell[1], lcell[2])
        if rcell is not None and rcell[1] == "diff" and partner_r.get(result.right_lines[j][0] or "") in where_l:
            other = result.left_lines[where_l[partner_r[result.right_lines[j][0]]]][1]
            rcell = (rcell[0].replace(_SRC_SLOT, intraline(other, result.right_lines[j][1])[1]), rcell[1], rcell[2])
    return lcell, rcell


def _code_row(result: DiffResult, i, j, lcell, rcell) -> str:
    """One row of the side-by-side view: both cells (a gap where a side has none); a cell alone
    whose partner sits on another row is marked moved; a row of absorbed ops only is marked so."""
    present = [c for c in (lcell, rcell) if c is not None]
    absorbed_row = bool(present) and all(" data-rule=" in c[0] for c in present)
    cells = []
    alone = (lcell is None) != (rcell is None)
    for cell, side, lines, index in ((lcell, "L", result.left_lines, i), (rcell, "R", result.right_lines, j)):
        if cell is None:
            cells.append(f"<div class=\"ln gap g{side}\"></div>")
            continue
        html_text = cell[0].replace(_SRC_SLOT, esc(lines[index][1]))
        if alone and " data-partner=" in html_text:  # its partner sits on another row
            html_text = html_text.replace(f"class=\"ln s{side}", f"class=\"ln s{side} moved", 1)
        cells.append(html_text)
    return f"<div class=\"row{' absorbed' if absorbed_row else ''}\">{''.join(cells)}</div>"


_OPCODE = re.compile(r"^\s*(?:%[\w.$#-]+(?:\s*,\s*%[\w.$#-]+)*\s*=\s*)?([A-Za-z_][\w.]*)")


def _absorbed_overview(result: DiffResult) -> str:
    """What the rules absorbed, grouped: per rule and opcode, how many ops of each side left the
    normalized module under it (absorbed_by), so an equivalent port reads at a glance instead of
    as rows of hatched lines."""
    absorbed = result.absorbed_by
    counts: Dict[Tuple[str, str], List[int]] = {}
    for k, (side, lines) in enumerate((("left", result.left_lines), ("right", result.right_lines))):
        text_of = {op_id: text for op_id, text in lines if op_id}
        for op_id, rule in absorbed.get(side, {}).items():
            m = _OPCODE.match(text_of.get(op_id, ""))
            key = (rule, m.group(1) if m else "?")
            counts.setdefault(key, [0, 0])[k] += 1
    if not counts:
        return ""
    rows = "".join(f"<tr><td><code>{esc(rule)}</code></td><td><code>{esc(op)}</code></td>"
                   f"<td class=\"n\">{n[0]}</td><td class=\"n\">{n[1]}</td></tr>"
                   for (rule, op), n in sorted(counts.items(), key=lambda kv: (-sum(kv[1]), kv[0])))
    total = [sum(n[k] for n in counts.values()) for k in (0, 1)]
    return ("<section id=\"absorbed\"><h2>What the rules absorbed</h2>"
            f"<p>{total[0]} left and {total[1]} right ops have no partner because a rule folded, merged or "
            "rewrote them (the hatched rows of the side by side; its switch hides them). "
            "<code>tileir-diff dump --normalized FILE</code> prints a side as the rules leave it.</p>"
            "<table class=\"absorbed-table\"><tr><th>rule</th><th>op</th><th>left</th><th>right</th></tr>"
            f"{rows}</table></section>\n")


_SRC_SLOT = "\x00src\x00"  # where a line's (escaped, maybe token-marked) text goes


def _line_cell(side: str, n: int, op_id: Optional[str], text: str, roles: Dict[str, str], partners: Dict[str, str],
               stages: Dict[str, str], have_mapping: bool, absorbed: Dict[str, str]):
    """(html with a text slot, role, whether the line stays visible when unchanged runs fold)."""
    classes = ["ln", f"s{side}"]
    attrs = ""
    role = ""
    if op_id:
        role = roles.get(op_id, "")
        partner = partners.get(op_id)
        tip = op_id
        if role:
            classes.append(role)
        elif have_mapping and partner is None:
            classes.append("unmatched")
            rule = absorbed.get(op_id)
            if rule:
                tip += f" — no partner: absorbed by rule {rule}"
                attrs += f" data-rule=\"{esc(rule)}\""
            else:
                # an op the rules left in place: it has no counterpart on the other side
                tip += " — no partner: only on this side"
        attrs += f" id=\"{esc(side)}:{esc(op_id)}\" data-side=\"{side}\" data-op=\"{esc(op_id)}\""
        if partner:
            attrs += f" data-partner=\"{esc(partner)}\""
            tip += f" ↔ {partner}" + (f" (matched by {stages[op_id]})" if op_id in stages else "")
        attrs += f" title=\"{esc(tip)}\""
    keep = bool(op_id and (role or "/" not in op_id))
    return (f"<div class=\"{' '.join(classes)}\"{attrs}><span class=\"no\">{n}</span>"
            f"<span class=\"src\">{_SRC_SLOT}</span></div>", role, keep)


def align_lines(left_lines, right_lines, partner_l: Dict[str, str], partner_r: Dict[str, str]):
    """Rows of the side-by-side: (left index or None, right index or None). A left line and its
    matched partner share a row when the order allows (the longest common subsequence of the
    pairs, difflib); lines without a partner, and partners written in another order, get a row
    of their own with a gap on the other side. Lines without an op (closing braces) pair by text."""
    import difflib
    lk = [f"P{partner_l[i]}" if i and i in partner_l else (f"L{i}" if i else f"T{t.strip()}") for i, t in left_lines]
    rk = [f"P{i}" if i and i in partner_r else (f"R{i}" if i else f"T{t.strip()}") for i, t in right_lines]
    rows: List[Tuple[Optional[int], Optional[int]]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, lk, rk, autojunk=False).get_opcodes():
        if tag == "equal":
            rows.extend(zip(range(i1, i2), range(j1, j2)))
        elif i1 < i2 and j1 < j2:
            rows.extend(_pair_same_text(left_lines, right_lines, lk, rk, range(i1, i2), range(j1, j2)))
        else:
            rows.extend((i, None) for i in range(i1, i2))
            rows.extend((None, j) for j in range(j1, j2))
    return rows


def _pair_same_text(left_lines, right_lines, lk, rk, lefts: range, rights: range):
    """Inside a block the pairs do not align: lines without a partner whose text is the same on
    both sides share a row (shown together, not claimed matched: they keep their own colours);
    lines with a partner elsewhere keep a row of their own."""
    import difflib
    lt = [left_lines[i][1].strip() if not lk[i].startswith("P") else f"\x00{i}" for i in lefts]
    rt = [right_lines[j][1].strip() if not rk[j].startswith("P") else f"\x01{j}" for j in rights]
    out: List[Tuple[Optional[int], Optional[int]]] = []
    for tag, a1, a2, b1, b2 in difflib.SequenceMatcher(None, lt, rt, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(zip(range(lefts[0] + a1, lefts[0] + a2), range(rights[0] + b1, rights[0] + b2)))
        else:
            out.extend((lefts[0] + a, None) for a in range(a1, a2))
            out.extend((None, rights[0] + b) for b in range(b1, b2))
    return out


def intraline(left: str, right: str):
    """Both texts escaped, the tokens that differ wrapped in <mark> (report/tokens.py)."""
    from .tokens import token_diff
    lo, ro = token_diff(left, right)
    return ("".join(f"<mark>{esc(t)}</mark>" if changed else esc(t) for t, changed in lo),
            "".join(f"<mark>{esc(t)}</mark>" if changed else esc(t) for t, changed in ro))


FOLD_CONTEXT = 3   # unchanged rows kept around each marked row
FOLD_MIN_RUN = 6   # shorter unchanged runs are not worth a fold


def _fold(rows: List[str], marked: List[bool]) -> str:
    """Wrap runs of unmarked rows far from any marked row in a closed <details>: a fold spans
    both sides, so they unfold together."""
    keep = [False] * len(rows)
    for i, m in enumerate(marked):
        if m:
            for j in range(max(0, i - FOLD_CONTEXT), min(len(rows), i + FOLD_CONTEXT + 1)):
                keep[j] = True
    if keep:
        keep[-1] = True  # the closing brace
    out: List[str] = []
    i = 0
    while i < len(rows):
        if keep[i]:
            out.append(rows[i])
            i += 1
            continue
        j = i
        while j < len(rows) and not keep[j]:
            j += 1
        if j - i >= FOLD_MIN_RUN:
            out.append(f"<details class=\"fold\"><summary>⋯ {j - i} unchanged rows</summary>"
                       f"{''.join(rows[i:j])}</details>")
        else:
            out.extend(rows[i:j])
        i = j
    return "".join(out)


def _cell(value: Any) -> str:
    if value is None:
        return "<span class=\"abs\">—</span>"
    if isinstance(value, (dict, list)):
        return f"<code>{esc(compact(value))}</code>"
    return f"<code>{esc(value)}</code>"




def _summary(result: DiffResult, lines_of: Dict[str, Any]) -> str:
    pair = pair_summary(result)
    out = ["<section id=\"summary\"><h2>Summary</h2>\n"]
    if not pair:
        out.append("<p class=\"none\">No summary in this result.</p></section>\n")
        return "".join(out)
    # On a page whose verdict says "same", a summary that differs as written is what the rules
    # absorbed: say so in a neutral colour, never in the red of a difference.
    same_page = result.verdict in ("identical", "equivalent")
    bad = "note" if same_page else "bad"
    for fp in pair.get("functions", []):
        name = fp["left"] if fp["left"] == fp["right"] else f"{fp['left']} / {fp['right']}"
        differs = (f"written differently in {esc(', '.join(fp['differing_sections']))} (absorbed by the rules)"
                   if same_page else f"differs in {esc(', '.join(fp['differing_sections']))}")
        status = ("<span class=\"ok\">summaries agree</span>" if fp["same"] else
                  f"<span class=\"{bad}\">{differs}</span>")
        out.append(f"<h3>@{esc(name)} {status}</h3>\n")
        for key, section in fp.get("sections", {}).items():
            if not section.get("rows"):
                continue
            same = section.get("same", True)
            label = "" if same else (" <span class=note>written differently</span>" if same_page
                                     else " <span class=bad>differs</span>")
            klass = "" if same else (" written" if same_page else " neq")
            out.append(f"<details class=\"sec{klass}\"{'' if same or same_page else ' open'}>"
                       f"<summary>{esc(SECTION_TITLES.get(key, key))}{label}</summary>\n")
            out.append(_section_table(key, section, lines_of, "written" if same_page else "neq"))
            out.append("</details>\n")
    out.append("</section>\n")
    return "".join(out)


def _section_table(key: str, section: Dict[str, Any], lines_of: Dict[str, Any], neq: str = "neq") -> str:
    """``neq``: the class of a differing row (``written``, neutral, on a page whose verdict is same)."""
    rows = []
    if key == "op_histogram":
        rows.append("<tr><th>op</th><th>left</th><th>right</th></tr>")
        for r in section["rows"]:
            rows.append(f"<tr class=\"{'' if r['same'] else neq}\"><td><code>{esc(r['op'])}</code></td>"
                        f"<td class=\"num\">{esc(r['left'])}</td><td class=\"num\">{esc(r['right'])}</td></tr>")
        return f"<table class=\"sum hist\">{''.join(rows)}</table>\n"
    rows.append("<tr><th class=\"flag\"></th><th>left</th><th>right</th></tr>")
    for r in section["rows"]:
        flag = "=" if r["same"] else "≠"
        left = _cell(r.get("left"))
        right = _cell(r.get("right"))
        if key == "memory":
            left = f"<b>view {esc(r['view'])}</b> {left}"
            right = f"<b>view {esc(r['view'])}</b> {right}"
        elif r.get("left_op") or r.get("right_op"):
            if r.get("left_op"):
                left = _opref_link("L", r["left_op"], lines_of) + " " + left
            if r.get("right_op"):
                right = _opref_link("R", r["right_op"], lines_of) + " " + right
        rows.append(f"<tr class=\"{'' if r['same'] else neq}\"><td class=\"flag\">{flag}</td>"
                    f"<td>{left}</td><td>{right}</td></tr>")
        for a in r.get("accesses", []):
            la = (_opref_link("L", a["left_op"], lines_of) + " " if a.get("left_op") else "") + _cell(a.get("left"))
            ra = (_opref_link("R", a["right_op"], lines_of) + " " if a.get("right_op") else "") + _cell(a.get("right"))
            rows.append(f"<tr class=\"sub{'' if a['same'] else ' ' + neq}\"><td class=\"flag\">"
                        f"{'=' if a['same'] else '≠'}</td><td>{la}</td><td>{ra}</td></tr>")
    return f"<table class=\"sum\">{''.join(rows)}</table>\n"


def _rules_and_functions(result: DiffResult) -> str:
    out = ["<section id=\"rules\"><h2>Normalization rules</h2>\n"]
    rules = sorted_rules(result)
    if rules:
        out.append("<table class=\"kv\"><tr><th>rule</th><th>rewrites that mattered</th></tr>")
        for name, count in rules:
            out.append(f"<tr><td><code>{esc(name)}</code></td><td class=\"num\">{esc(count)}</td></tr>")
        out.append("</table>\n")
    else:
        out.append("<p class=\"none\">No rule changed anything that mattered.</p>\n")
    disabled = result.rules_disabled
    if disabled:
        out.append("<p>Disabled: " + ", ".join(f"<code>{esc(r)}</code>" for r in disabled) + "</p>\n")
    if result.functions:
        out.append("<h2>Functions</h2><table class=\"kv\"><tr><th>left</th><th>right</th><th>verdict</th>"
                   "<th>matched</th><th>left only</th><th>right only</th></tr>")
        for f in result.functions:
            out.append(f"<tr><td><code>@{esc(f.left)}</code></td><td><code>@{esc(f.right)}</code></td>"
                       f"<td><span class=\"vb v-{esc(f.verdict)}\">{esc(f.verdict)}</span></td>"
                       f"<td class=\"num\">{esc(f.matched)}</td>"
                       f"<td class=\"num\">{esc(f.unmatched_left)}</td>"
                       f"<td class=\"num\">{esc(f.unmatched_right)}</td></tr>")
        out.append("</table>\n")
    out.append("</section>\n")
    return "".join(out)


def _stats(result: DiffResult) -> str:
    items = stats_items(result)
    if not items:
        return "<section id=\"stats\"></section>\n"
    rows = "".join(f"<tr><td><code>{esc(k)}</code></td><td>{esc(v)}</td></tr>" for k, v in items)
    return (f"<section id=\"stats\"><details><summary>Matcher statistics</summary>"
            f"<table class=\"kv\">{rows}</table></details></section>\n")


_CSS = """
:root{--bg:#f6f7f9;--card:#fff;--ink:#1d2330;--mute:#5d6675;--line:#dde1e7;--red:#c62828;--redbg:#fdecea;
--amber:#a86400;--amberbg:#fff6df;--green:#1b7f3b;--teal:#00796b;--blue:#1e5bd6;--bluebg:#e4edff;--grey:#eef0f3}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
code,.src{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:12.5px}
header.top{display:flex;gap:18px;align-items:center;flex-wrap:wrap;padding:14px 22px;background:var(--card);
border-bottom:1px solid var(--line);position:sticky;top:0;z-index:5}
.verdict{font-weight:700;font-size:20px;letter-spacing:.04em;padding:8px 16px;border-radius:8px;color:#fff}
.v-identical .verdict,.vb.v-identical{background:var(--green)}
.v-equivalent .verdict,.vb.v-equivalent{background:var(--teal)}
.v-different .verdict,.vb.v-different{background:var(--red)}
.v-unknown .verdict,.vb.v-unknown{background:var(--amber)}
.vb{color:#fff;background:var(--mute);border-radius:4px;padding:1px 7px;font-size:12px}
.vb.v-same{background:var(--green)}.vb.v-specialized,.v-specialized .verdict{background:#6a4fb3}
.head-body{flex:1;min-width:300px}
.sources code{background:var(--grey);padding:1px 6px;border-radius:4px;margin-right:10px}
.side{font-size:11px;font-weight:700;text-transform:uppercase;border-radius:3px;padding:1px 5px;color:#fff}
.sl{background:#7b3fa0}.sr{background:#0f7c8c}
.meaning{color:var(--mute);font-size:13px;margin-top:2px}
.chips{margin-top:6px}.chip{display:inline-block;background:var(--grey);border-radius:10px;padding:1px 9px;
margin-right:6px;font-size:12px;color:var(--mute)}
.reason{margin-top:6px;color:var(--amber);font-weight:600}
nav a{margin-left:14px;color:var(--blue);text-decoration:none;font-weight:500}
main{padding:8px 22px 40px;max-width:1800px;margin:0 auto}
section{margin-top:18px;scroll-margin-top:120px}
h2{font-size:16px;margin:10px 0 8px}h3{font-size:14px;margin:14px 0 6px}
.none{color:var(--mute)}
ol.diffs{list-style:none;padding:0;margin:0;counter-reset:d}
ol.diffs>li{counter-increment:d;background:var(--card);border:1px solid var(--line);border-left:5px solid var(--red);
border-radius:6px;padding:10px 14px;margin-bottom:10px}
.dhead::before{content:counter(d);display:inline-block;min-width:22px;font-weight:700;color:var(--red)}
.dhead.long:not(.open){display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:3;overflow:hidden}
.more-msg{margin:2px 0 0 22px;padding:0;border:0;background:none;color:var(--blue);font-size:12px;cursor:pointer}
.cat{display:inline-block;font-size:11px;font-weight:700;text-transform:uppercase;letter-spacing:.03em;
background:var(--redbg);color:var(--red);border-radius:4px;padding:1px 7px;margin-right:8px}
.msg{font-weight:600}
.where{margin:4px 0 2px 22px;color:var(--mute);font-size:13px}.where .fn{font-family:ui-monospace,monospace}
.ctx{margin-left:22px;color:var(--mute);font-size:12px}
.sides{margin:6px 0 0 22px}
.dl,.dr{padding:3px 8px;border-radius:4px;margin:2px 0;white-space:pre-wrap;overflow-wrap:anywhere}
.dl{background:#f6eefa}.dr{background:#e8f6f7}
.sign{display:inline-block;width:16px;font-weight:700;color:var(--mute)}
.loc{margin:1px 0 0 16px;color:var(--mute);font-size:12px}
.accepted{margin:6px 0 0 22px;font-size:12.5px}.acc{background:#dafbe1;color:var(--green);font-weight:700;
border-radius:4px;padding:0 6px;text-transform:uppercase;font-size:11px}.why{color:var(--mute);margin-top:2px}
ol.diffs>li.is-accepted{border-left-color:var(--green)}
.note{color:var(--mute);font-size:12px;font-weight:600;margin-left:8px}
details.sec.written{border-left:4px solid #9aa3af}
.abs{color:var(--mute);font-style:italic}
.aff{margin:6px 0 0 22px;font-size:12.5px;color:var(--mute)}
.hint{margin:4px 0 0 22px;font-size:12.5px;color:var(--amber)}
a.opref{font-family:ui-monospace,monospace;font-size:12px;color:var(--blue);text-decoration:none;
background:var(--bluebg);border-radius:3px;padding:0 4px}
.legend{margin:0 0 6px;font-size:12px;color:var(--mute)}
.legend .ln{display:inline-block;padding:1px 8px;margin-right:8px;border-radius:3px}
.legend .tip{margin-left:8px}
.sbs{background:var(--card);border:1px solid var(--line);border-radius:6px}
.row{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr)}
.row>.ln.sR,.row>.gap.gR,.phead>.ptitle+.ptitle{border-left:1px solid var(--line)}
.ptitle{padding:6px 10px;border-bottom:1px solid var(--line);font-size:13px;overflow-wrap:anywhere}
.code{position:relative;max-height:75vh;overflow:auto;padding:4px 0}
.ln{white-space:pre-wrap;overflow-wrap:anywhere;display:flex;border-left:3px solid transparent;min-width:0}
.ln .src{min-width:0}
.gap{background:repeating-linear-gradient(135deg,#fafbfc,#fafbfc 5px,#f1f3f6 5px,#f1f3f6 10px)}
.ln.moved{background:#f3efff;border-left-color:#8a63d2}
mark{background:#ffc9c2;color:inherit;border-radius:2px;padding:0 1px}
.ln.sR.diff mark{background:#b9efc6}
.ln .no{flex:none;width:calc(var(--gutter,3) * 1ch + 12px);text-align:right;padding-right:8px;color:#a3aab5;
user-select:none;font-size:11.5px;font-family:ui-monospace,monospace;line-height:19px;white-space:nowrap;
overflow:visible}
.sbs.hide-absorbed .row.absorbed{display:none}
.absorbed-table td.n{text-align:right;font-variant-numeric:tabular-nums}
#absorbed p code{white-space:nowrap}
.switch{margin-left:12px;font-size:12.5px;white-space:nowrap}
.ln .src{line-height:19px;padding-right:12px}
.ln[data-op]{cursor:pointer}
.ln.diff{background:var(--redbg);border-left-color:var(--red)}
.ln.affected{background:var(--amberbg);border-left-color:#e0a526}
.ln.unmatched{background:repeating-linear-gradient(135deg,#f3f4f6,#f3f4f6 6px,#e9ebef 6px,#e9ebef 12px);
border-left-color:#9aa3af}
.ln.hl{background:var(--bluebg)!important;border-left-color:var(--blue);outline:1px solid #9db8f3}
details.sec{background:var(--card);border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:4px 10px}
details.sec.neq{border-left:4px solid var(--red)}
details summary{cursor:pointer;font-weight:600;padding:3px 0}
.ok{color:var(--green);font-size:12px;font-weight:600;margin-left:8px}
.bad{color:var(--red);font-size:12px;font-weight:600;margin-left:8px}
table{border-collapse:collapse;width:100%;margin:4px 0 8px}
th{text-align:left;font-size:12px;color:var(--mute);font-weight:600;border-bottom:1px solid var(--line);padding:4px 6px}
td{padding:3px 6px;border-bottom:1px solid #eef0f3;vertical-align:top;word-break:break-word}
table.sum td{width:48%}table.sum td.flag,th.flag{width:22px;text-align:center;color:var(--mute)}
tr.neq td{background:var(--redbg)}tr.neq td.flag{color:var(--red);font-weight:700}
tr.written td{background:#f3f4f6}tr.written td.flag{color:var(--mute);font-weight:700}
tr.sub td:nth-child(2),tr.sub td:nth-child(3){padding-left:22px}
table.kv{width:auto}table.kv td,table.kv th{padding-right:24px}
td.num{text-align:right;font-variant-numeric:tabular-nums}
table.hist{width:auto}
details.fold>summary{list-style:none;cursor:pointer;color:var(--blue);font-size:12px;padding:2px 0 2px 50px;text-align:left;
background:#f8f9fb;border-top:1px dashed var(--line);border-bottom:1px dashed var(--line)}
details.fold>summary::-webkit-details-marker{display:none}
details.fold[open]>summary{color:var(--mute)}
"""

_JS = """
(function(){
  var lit=[];
  function other(el){
    var p=el.getAttribute('data-partner'); if(!p) return null;
    return document.getElementById((el.getAttribute('data-side')==='L'?'R:':'L:')+p);
  }
  function clear(){for(var i=0;i<lit.length;i++){lit[i].classList.remove('hl');} lit=[];}
  function light(el){clear(); el.classList.add('hl'); lit.push(el); var p=other(el);
    if(p){p.classList.add('hl'); lit.push(p);} return p;}
  function reveal(el){var fold=el.closest('details.fold'); if(fold){fold.open=true;}
    var pane=el.closest('.code'); if(!pane) return;
    pane.scrollTop=Math.max(0, el.offsetTop-pane.clientHeight/3);}
  var lines=document.querySelectorAll('.ln[data-op]');
  for(var i=0;i<lines.length;i++){(function(el){
    el.addEventListener('mouseenter',function(){light(el);});
    el.addEventListener('click',function(){var p=light(el); if(p){reveal(p);}});
  })(lines[i]);}
  // Open each pane at its first root difference, so the changed code is in view at once.
  var panes=document.querySelectorAll('.code');
  for(var k=0;k<panes.length;k++){var first=panes[k].querySelector('.ln.diff'); if(first){reveal(first);}}
  var mores=document.querySelectorAll('.more-msg');
  for(var m=0;m<mores.length;m++){(function(b){var label=b.textContent;
    b.addEventListener('click',function(){var open=b.previousElementSibling.classList.toggle('open');
      b.textContent=open?'show less':label;});})(mores[m]);}
  var hide=document.getElementById('hide-absorbed');
  if(hide){hide.addEventListener('change',function(){var boxes=document.querySelectorAll('.sbs');
    for(var b=0;b<boxes.length;b++){boxes[b].classList.toggle('hide-absorbed',hide.checked);}});}
  var refs=document.querySelectorAll('a.opref');
  for(var j=0;j<refs.length;j++){(function(a){
    a.addEventListener('click',function(ev){
      var el=document.getElementById(a.getAttribute('data-target')); if(!el) return;
      ev.preventDefault(); document.getElementById('code').scrollIntoView({block:'start'});
      var p=light(el); reveal(el); if(p){reveal(p);}
    });
  })(refs[j]);}
})();
"""
