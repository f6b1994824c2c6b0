"""Using the pytest plugin's ``tileir`` fixture (installed with the package).

    pytest examples/test_with_fixture.py [--tileir-report-dir reports/]
"""
from pathlib import Path

import tileir_diff

DATA = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "data"
KERNEL = DATA / "mma_f16_f32acc.v13_4.tileirbc"


def test_reencoded_kernel_is_the_same(tileir):
    # The same kernel at two bytecode versions: identical (absent fields read as their defaults).
    result = tileir.assert_equivalent(DATA / "mma_f16_f32acc.v13_3.tileirbc", KERNEL)
    assert result.verdict in ("identical", "equivalent")


def test_swapped_store_index_is_a_memory_difference(tileir):
    text = tileir_diff.print_module(tileir_diff.load(KERNEL))
    buggy = text.replace("[%blockId_x, %blockId_y_14] token", "[%blockId_y_14, %blockId_x] token")
    result = tileir.assert_different(KERNEL, buggy, categories=["memory"])
    assert "swapped" in result.differences[0].message
