"""The tokens of two printed ops that differ: one tokenizer and one diff for the HTML report's
<mark>s and the terminal's word-diff colouring, so both mark the same tokens."""
from __future__ import annotations

import difflib
import re
from typing import List, Tuple

# SSA names, symbols, identifiers, numbers (with exponents and type suffixes), whitespace runs, one
# character otherwise
TOKEN = re.compile(r"%[\w.$#-]+|@[\w.$-]+|[A-Za-z_][\w.]*|-?\d[\w.+-]*|\s+|.")

#: a run of text and whether it differs from the other side
Span = Tuple[str, bool]


def token_diff(left: str, right: str) -> Tuple[List[Span], List[Span]]:
    """Both texts as runs, each marked when its tokens differ from the other side (whitespace
    runs are never marked)."""
    lt, rt = TOKEN.findall(left), TOKEN.findall(right)
    lo: List[Span] = []
    ro: List[Span] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, lt, rt, autojunk=False).get_opcodes():
        a, b = "".join(lt[i1:i2]), "".join(rt[j1:j2])
        changed = tag != "equal"
        if a:
            lo.append((a, changed and bool(a.strip())))
        if b:
            ro.append((b, changed and bool(b.strip())))
    return lo, ro
