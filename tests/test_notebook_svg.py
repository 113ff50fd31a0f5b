"""Notebook views: the answer table and an SVG of small graphs, the witness highlighted
(checked by parsing the SVG, not by pixels)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import verifier
from verifier.games.random_graphs import random_case

CASES = Path(__file__).resolve().parent.parent / "cases"
SVG = "{http://www.w3.org/2000/svg}"


def _svg(html: str) -> ET.Element:
    start = html.index("<svg")
    return ET.fromstring(html[start : html.index("</svg>") + len("</svg>")])


def test_a_solution_draws_its_graph_with_the_values() -> None:
    sol = verifier.solve(verifier.load(CASES / "dag-paul-carole.json"))
    svg = _svg(sol._repr_html_())
    groups = [g for g in svg.iter(f"{SVG}g") if "position" in (g.get("class") or "")]
    assert len(groups) == 8
    moves = [e for e in svg.iter() if e.get("class") == "move"]
    assert len(moves) == 8
    s = next(g for g in groups if g.get("data-name") == "s")
    assert [t.text for t in s.iter(f"{SVG}text")] == ["s", "4"]
    assert not any("witness" in (g.get("class") or "") for g in groups)


def test_a_refuted_report_highlights_the_witness(tmp_path: Path) -> None:
    doc = json.loads((CASES / "knuth-cycle-with-exit.json").read_text())
    doc["expect"]["labels"]["x"] = "won"  # x is lost in 2 plies
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps(doc))
    rep = verifier.verify(path)
    html = rep._repr_html_()
    assert "REFUTED" in html and "expect labels" in html
    svg = _svg(html)
    marked = [
        g.get("data-name") for g in svg.iter(f"{SVG}g") if "witness" in (g.get("class") or "")
    ]
    assert marked == ["x"]


def test_big_graphs_are_not_drawn() -> None:
    case = random_case("normal", 200, 2.0, seed=0)
    sol = verifier.solve(case)
    assert sol.svg() is None and "<svg" not in sol._repr_html_()
