"""Fixtures for renderer tests (builders in tests/report/builders.py)."""
from __future__ import annotations

import pytest

from tests.report.builders import build_different_result, build_evil_result


@pytest.fixture
def different_result():
    return build_different_result()


@pytest.fixture
def evil_result():
    return build_evil_result()
