"""Graphs for the aligner tests: a text kernel, or a third-party-style corpus pair."""
from __future__ import annotations

from pathlib import Path
from typing import Tuple

import tileir_diff
from tileir_diff.graph import FunctionGraph
from tileir_diff.match.alignment import Signatures
from tileir_diff.normalize import normalize, tag_origins

TPS = Path(__file__).resolve().parents[1] / "corpus" / "third_party_style"


def graph(text: str) -> FunctionGraph:
    return FunctionGraph(normalize(tag_origins(tileir_diff.load(text)))[0].functions[0], 0)


def corpus_pair(name: str) -> Tuple[FunctionGraph, FunctionGraph]:
    return graph((TPS / f"{name}.left.tir").read_text()), graph((TPS / f"{name}.right.tir").read_text())


def signatures(left: str, right: str) -> Signatures:
    return Signatures(graph(left), graph(right))
