"""Drawing a case: dot text with values, owners, verdicts and the highlighted witness."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from verifier.model import MAX, MIN, Case, GameGraph, Semantics
from verifier.render import RenderError, render, to_dot


def _figure1() -> Case:
    g = GameGraph.from_successors(
        {"a": ["b", "c"], "c": ["d", "a"]},
        semantics=Semantics.MINIMAX,
        owner={"a": MAX, "c": MIN},
        value={"b": -1, "d": 2},
    )
    return Case(g, "fig1")


def test_dot_of_a_verified_report_highlights_the_witness(tmp_path: Path) -> None:
    from verifier.pipeline import run_case

    report = run_case(_figure1())
    text = to_dot(report.case, report)
    assert text.startswith('digraph "fig1" {')
    assert "[-1, 2]" in text  # a and c are free in [b, d]
    assert 'color="#e67e00", penwidth=3' in text  # witness nodes and cycle edges
    assert "Max" in text and "Min" in text and "leaf" in text
    assert "0 -> 1" in text or "0 -> 2" in text
    out = render(report.case, report, tmp_path / "fig1.dot")
    assert out.read_text() == text


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz not installed")
def test_svg(tmp_path: Path) -> None:
    case = _figure1()
    out = render(case, {}, tmp_path / "fig1.svg")
    assert out.read_text().lstrip().startswith(("<?xml", "<svg"))


def test_bad_suffix(tmp_path: Path) -> None:
    with pytest.raises(RenderError, match="png"):
        render(_figure1(), {}, tmp_path / "x.png")


def test_svg_without_graphviz_is_our_own_drawing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from verifier.pipeline import run_case

    monkeypatch.setattr(shutil, "which", lambda name: None)
    report = run_case(_figure1())
    out = render(report.case, report, tmp_path / "fig1.svg")
    svg = out.read_text()
    assert svg.startswith("<svg") and 'class="game-graph"' in svg
    # every position with its value: a and c draw (0), b = -1, d = 2
    for text in (">a<", ">b<", ">c<", ">d<", ">-1<", ">2<"):
        assert text in svg, text


def test_svg_without_graphviz_of_a_big_graph_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    chain = {f"p{i}": [f"p{i + 1}"] for i in range(100)}
    case = Case(GameGraph.from_successors(chain, semantics=Semantics.NORMAL), "chain")
    with pytest.raises(RenderError, match=r"only up to 60 positions, not 101; write a \.dot"):
        render(case, {}, tmp_path / "x.svg")
    assert not (tmp_path / "x.svg").exists()
