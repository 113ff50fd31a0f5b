"""The self-check above the in-memory certificate's size: ``verify CASE`` hands our answer to
the standalone checker through a temporary stored-graph dataset (``certify/through_dataset.py``),
with the limits lowered here so that small cases take that route (no cluster)."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from verifier import api
from verifier.certify import outside
from verifier.certify import through_dataset as route
from verifier.games.random_graphs import random_case
from verifier.io.binary import save_npz
from verifier.model.report import CaseReport

pytest.importorskip("pyarrow")

CASES = Path(__file__).resolve().parents[2] / "cases"


@pytest.fixture
def above(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every case above the in-memory limits; the roots of the datasets written (to see them
    gone)."""
    monkeypatch.setattr(outside, "SELF_CHECK_POSITIONS", 2)
    monkeypatch.setattr(outside, "SELF_CHECK_NPZ_POSITIONS", 2)
    roots: list[Path] = []
    real = route.write_dataset

    def spy(root: Path, *a: Any) -> None:
        roots.append(root)
        real(root, *a)
        assert len(list(root.rglob("*.parquet"))) >= 2 * 3  # nodes, edges, answers per shard

    monkeypatch.setattr(route, "write_dataset", spy)
    return roots


def _certificate(rep: CaseReport) -> list[tuple[str, str]]:
    return [(c.verdict.value, c.detail) for c in rep.checks if c.check == "certificate"]


def _copy(case: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The case copied into a folder of the user's; the folder's files and digests."""
    user = tmp_path / "user"
    user.mkdir()
    path = user / case.name
    path.write_bytes(case.read_bytes())
    return path, _files(user)


def _files(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


CYCLIC = [
    ("knuth-cycle-with-exit.json", "normal"),
    ("ico-reachability-infinite-play.json", "reachability"),
    ("kars-figure1-b-lt-d.json", "minimax"),
    ("impartial-kayles-5.json", "impartial"),  # acyclic: impartial graphs with cycles are not
]


@pytest.mark.parametrize(("name", "semantics"), CYCLIC)
def test_each_semantics_is_accepted_through_a_dataset_and_the_folder_removed(
    above: list[Path], tmp_path: Path, name: str, semantics: str
) -> None:
    case, before = _copy(CASES / name, tmp_path)
    rep = api.verify(case)
    assert rep.case.semantics.value == semantics
    [(verdict, detail)] = _certificate(rep)
    assert (rep.verdict.value, verdict) == ("verified", "confirmed"), detail
    assert "through a temporary dataset" in detail and f"conditions of {semantics}" in detail
    assert rep.summary["certificate"] == "checked through a dataset"
    assert len(above) == 1 and not above[0].exists() and not above[0].parent.exists()
    assert _files(case.parent) == before  # the user's files untouched, nothing added


@pytest.mark.parametrize("semantics", ["normal", "reachability", "minimax"])
def test_random_graphs_with_cycles_are_accepted(
    above: list[Path], tmp_path: Path, semantics: str
) -> None:
    c = random_case(semantics, 300, 1.8, seed=4)
    assert c.graph.m > 0
    rep = api.verify(save_npz(c, tmp_path / "g.npz"))
    [(verdict, detail)] = _certificate(rep)
    assert verdict == "confirmed", detail
    assert "300 positions in 2 shards" in detail


def _corrupt(column: str, x: int) -> Any:
    """``dataset_answers`` with position ``x``'s ``column`` changed (what every solver said:
    agreement between them cannot save it)."""
    real = route.dataset_answers

    def wrong(rep: CaseReport) -> Any:
        a = real(rep)
        v = a[column]
        v[x] = (-v[x] if v[x] != 0 else 1) if column == "label" else v[x] + 1
        return a

    return wrong


@pytest.mark.parametrize(
    ("name", "column"),
    [
        ("game-tictactoe.json", "label"),
        ("ico-reachability-infinite-play.json", "label"),
        ("kars-figure1-b-lt-d.json", "score"),
        ("impartial-kayles-5.json", "grundy"),
    ],
)
def test_a_wrong_answer_is_refuted_naming_the_position(
    above: list[Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, column: str
) -> None:
    case, before = _copy(CASES / name, tmp_path)
    g = api.load(case).graph
    x = g.n // 2
    monkeypatch.setattr(route, "dataset_answers", _corrupt(column, x))
    rep = api.verify(case)
    assert rep.verdict.value == "refuted"
    [(verdict, detail)] = _certificate(rep)
    [refuted] = [c for c in rep.checks if c.check == "certificate"]
    assert verdict == "refuted" and "our own output is wrong" in detail
    preds = {int(s) for s in np.repeat(np.arange(g.n), g.out_degree)[g.succ_idx == x]}
    near = {g.name(y) for y in preds | {x}}  # the first break: x, or a move into it
    assert refuted.witness is not None and refuted.witness["node"] in near
    assert f"position {refuted.witness['node']!r}" in detail
    assert not above[0].exists() and _files(case.parent) == before


def test_impartial_with_cycles_is_skipped_and_said_unless_asked(above: list[Path]) -> None:
    case = CASES / "impartial-loopy-smith.json"
    rep = api.verify(case)
    assert not _certificate(rep) and not above
    assert rep.summary["certificate"].startswith("skipped: ")
    assert "impartial graphs without cycles only" in rep.summary["certificate"]
    forced = api.verify(case, self_check=True)  # the certificate judges it, at any size
    assert [v for v, _ in _certificate(forced)] == ["confirmed"]
    assert forced.summary["certificate"] == "checked" and not above


def test_above_the_memory_it_is_skipped_unless_asked(
    above: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    case = CASES / "knuth-cycle-with-exit.json"
    monkeypatch.setattr(route, "dataset_limit", lambda: 3)
    rep = api.verify(case)
    assert not _certificate(rep) and not above
    why = rep.summary["certificate"]
    assert why.startswith("skipped: ") and "above the 3 nodes + moves" in why
    forced = api.verify(case, self_check=True)
    assert [v for v, _ in _certificate(forced)] == ["confirmed"] and len(above) == 1
    assert api.verify(case, self_check=False).summary.get("certificate") is None


def test_without_pyarrow_it_is_skipped_never_passed(
    above: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow: ImportError
    rep = api.verify(CASES / "knuth-cycle-with-exit.json")
    assert not _certificate(rep) and not above
    assert rep.summary["certificate"].startswith("skipped: ")
    assert "pyarrow is needed for the dataset route" in rep.summary["certificate"]
    forced = api.verify(CASES / "knuth-cycle-with-exit.json", self_check=True)
    assert [v for v, _ in _certificate(forced)] == ["confirmed"]
    assert forced.summary["certificate"] == "checked" and not above  # the certificate's route


def test_a_dataset_that_cannot_be_written_is_skipped_and_said(
    above: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from verifier.dataset import storage

    def full(*_: Any) -> str:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(storage, "write_rule_answers", full)
    case = CASES / "knuth-cycle-with-exit.json"
    rep = api.verify(case)
    assert not _certificate(rep) and rep.verdict.value == "verified"
    why = rep.summary["certificate"]
    assert why.startswith("skipped: ") and "could not be written: " in why
    assert "No space left on device" in why and len(above) == 1 and not above[0].exists()
    forced = api.verify(case, self_check=True)  # the certificate judges it then
    assert [v for v, _ in _certificate(forced)] == ["confirmed"]


def test_the_command_line_refutes_a_wrong_answer_through_the_dataset(
    above: list[Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import json

    from typer.testing import CliRunner

    from verifier.cli import app

    case, before = _copy(CASES / "knuth-cycle-with-exit.json", tmp_path)
    ok = CliRunner().invoke(app, ["verify", str(case), "--json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["summary"]["certificate"] == "checked through a dataset"
    monkeypatch.setattr(route, "dataset_answers", _corrupt("label", 0))
    r = CliRunner().invoke(app, ["verify", str(case)])
    assert r.exit_code == 1, r.output  # refuted
    assert "REFUTED" in r.output and "our own output is wrong" in r.output
    assert "Traceback" not in r.output and _files(case.parent) == before
