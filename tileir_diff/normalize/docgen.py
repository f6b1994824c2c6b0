"""Generate docs/rules.md from the rule registry (docstrings and mutants are the single source).

    python3 -m tileir_diff.normalize.docgen > docs/rules.md
"""
from __future__ import annotations

import sys

from . import REGISTRY

HEADER = """# Normalization rules

Generated from the rule registry by `python3 -m tileir_diff.normalize.docgen > docs/rules.md`
(tests/normalize/test_docs.py fails when this file is stale). Do not edit by hand.

A diff runs the rules in the order below on both modules, then compares their dataflow graphs.
The verdict is `identical` when the modules match with no optional rule, `equivalent` when they
match after the enabled rules (the result's `rules_applied` lists each rule that rewrote
something, with the number of rewrites on both sides together), and `different` otherwise.
Switch a rule off with `disable=["rule-name"]` (API) or the CLI's rule options; a difference
that a disabled rule would absorb carries that rule's name as `rule_hint`.

Every rule has a test that it absorbs its case and a test that it does **not** absorb its
mutant (tests/normalize/test_rules.py). A rule that can only rewrite certain ops ("acts on"
below) is skipped, with 0 rewrites, on a module that has none of them; a test runs each such
rule on every corpus kernel without those ops and checks it would have changed nothing.

| rule | can be switched off | mutant it must not absorb |
|---|---|---|
"""


def rules_markdown() -> str:
    out = [HEADER]
    for name, rule in REGISTRY.items():
        out.append(f"| `{name}` | {'yes' if rule.optional else 'no'} | {rule.mutant} |\n")
    for name, rule in REGISTRY.items():
        out.append(f"\n## `{name}`\n\n")
        for para in rule.doc().split("\n\n"):
            out.append(para.strip() + "\n\n")
        if rule.acts_on is not None:
            out.append(f"**Acts on:** {', '.join(f'`{n}`' for n in sorted(rule.acts_on))}\n\n")
        out.append(f"**Mutant (must stay different):** {rule.mutant}\n")
    out.append("\n## Assumptions\n\n`assume` ops (`div_by`, `bounded`, `same_elements`) are specialization facts: "
               "a different set of facts is reported as a `specialization` difference. Only two things "
               "about them are normalized: assumptions the value's own definition already implies "
               "(`implied-assumptions`, e.g. `bounded<0, ?>` on a block id) and the way several facts on "
               "one value are chained (`assume-chains`).\n")
    return "".join(out)


if __name__ == "__main__":
    sys.stdout.write(rules_markdown())
