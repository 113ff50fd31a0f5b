"""``verifier diff`` reads answer files through the reader of ``verify --answers`` (issue 28
item 8): a minimal ``{"nodes": ...}`` file is an answer file for both commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app
from verifier.io.answers import is_answer_file

CASES = Path(__file__).resolve().parents[2] / "cases"
CASE = str(CASES / "knuth-won-lost-unknown.json")
runner = CliRunner()


def _minimal(tmp_path: Path, name: str, nodes: dict[str, object]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"nodes": nodes}))
    return path


def test_a_minimal_answer_file_is_diffed_against_the_case(tmp_path: Path) -> None:
    right = _minimal(tmp_path, "right.json", {"d": {"value": "won", "remoteness": 3, "move": "a"}})
    assert runner.invoke(app, ["verify", CASE, "--answers", str(right)]).exit_code == 0
    for args in ([CASE, str(right)], [str(right), CASE]):
        r = runner.invoke(app, ["diff", *args])
        assert r.exit_code == 0, r.stdout + r.stderr
        assert "identical where both answer" in r.stdout + r.stderr
    wrong = _minimal(tmp_path, "wrong.json", {"d": "lost"})
    r = runner.invoke(app, ["diff", CASE, str(wrong)])
    assert r.exit_code == 1, r.stdout + r.stderr
    assert "d: value: won != lost" in r.stdout + r.stderr


def test_two_minimal_answer_files_with_the_case(tmp_path: Path) -> None:
    a = _minimal(tmp_path, "a.json", {"d": "won", "a": "lost"})
    b = _minimal(tmp_path, "b.json", {"d": "lost"})
    r = runner.invoke(app, ["diff", str(a), str(b), "--case", CASE])
    assert r.exit_code == 1, r.stdout + r.stderr
    assert "d: value: won != lost" in r.stdout + r.stderr
    r = runner.invoke(app, ["diff", str(a), str(b)])
    assert r.exit_code == 2 and "--case" in r.stdout + r.stderr


@pytest.mark.parametrize(
    ("doc", "answers"),
    [
        ({"nodes": {"a": "won"}}, True),
        ({"nodes": {"a": {"value": 1, "remoteness": 2}}}, True),
        ({"semantics": "normal", "nodes": {"a": {"value": "won", "move": "b"}}}, True),
        ({"semantics": "minimax", "nodes": {"a": {"value": 1}}}, True),  # values, no moves
        ({"semantics": "normal", "nodes": {"a": {"moves": ["b"]}, "b": {}}}, False),
        ({"semantics": "normal", "root": "a", "nodes": {"a": {"value": 1}}}, False),
        ({"nodes": {"a": {"moves": ["b"]}}}, False),
        ({"nodes": {"a": "won"}, "colour": "red"}, False),
        ({"format": "gamegraph-verifier-answers", "nodes": {}}, True),
    ],
)
def test_answer_files_are_told_from_cases_as_folder_discovery_does(
    doc: dict[str, object], answers: bool, tmp_path: Path
) -> None:
    from verifier.io.discover import kind_of

    path = tmp_path / "x.json"
    path.write_text(json.dumps(doc))
    assert is_answer_file(path) is answers
    assert (kind_of(path) == "answers") is answers  # one classification for both


def test_case_files_of_the_corpus_are_cases() -> None:
    assert not any(is_answer_file(p) for p in sorted(CASES.glob("*.json")))
