"""The graphs pass (compare/passes.py graphs_pass): the graphs are built once, the arguments
aligned once; ties rebuild only the graph of a side whose function they change, and the
alignment handed to the matcher is the one of the graphs it matches."""
from __future__ import annotations

from tileir_diff.compare import passes
from tileir_diff.graph import FunctionGraph
from tileir_diff.match import alignment as alignment_module
from tileir_diff.normalize import normalize, tag_origins
from tileir_diff.text.parser import parse_text

from .test_static_ties import _CDIV, _kernel


def _function(extent: str, bound: str):
    return normalize(tag_origins(parse_text(_kernel(extent, bound), version=(13, 3))))[0].functions[0]


def _counting(monkeypatch):
    built, aligned = [], []

    class Counted(FunctionGraph):
        def __init__(self, function, index, text_ids=None):
            built.append(function)
            super().__init__(function, index, text_ids)

    def counted_align(L, R, *a):
        aligned.append((L, R))
        return alignment_module.align(L, R, *a)
    monkeypatch.setattr(passes, "FunctionGraph", Counted)
    monkeypatch.setattr(passes, "align", counted_align)
    return built, aligned


def test_without_ties_each_graph_is_built_once_and_aligned_once(monkeypatch):
    built, aligned = _counting(monkeypatch)
    lf, rf = _function("?", _CDIV), _function("?", _CDIV)
    g = passes.graphs_pass(lf, rf, 0, 0)
    assert built == [lf, rf] and aligned == [(g.L, g.R)]
    assert g.ties == [] and g.alignment.is_for(g.L, g.R) and (g.left, g.right) == (lf, rf)


def test_a_tie_rebuilds_only_the_side_it_changes(monkeypatch):
    # the right fixes y's extent to 4096: the left's extent argument is tied to it (the left changes)
    built, aligned = _counting(monkeypatch)
    lf, rf = _function("?", _CDIV), _function("4096", "  %tiles = constant <i32: 32> : tile<i32>\n")
    g = passes.graphs_pass(lf, rf, 0, 0)
    assert [t.side for t in g.ties] == ["left"] and g.ties[0].kept is None
    assert g.left is not lf and g.right is rf
    assert built == [lf, rf, g.left]  # the right's graph is not built again
    assert aligned[-1] == (g.L, g.R) and g.alignment.is_for(g.L, g.R) and len(aligned) == 2
    assert g.R.function is rf and g.L.function is g.left
