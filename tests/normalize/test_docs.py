"""docs/rules.md is generated from the registry and must be current."""
from pathlib import Path

from tileir_diff.normalize import REGISTRY
from tileir_diff.normalize.docgen import rules_markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_rules_doc_is_current():
    assert DOC.read_text() == rules_markdown(), "regenerate: python3 -m tileir_diff.normalize.docgen > docs/rules.md"


def test_rules_doc_covers_every_rule():
    text = DOC.read_text()
    for name in REGISTRY:
        assert f"## `{name}`" in text
