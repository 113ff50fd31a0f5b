"""Issue 43 item 9: the words a person reads are certified. Six source mutants of the printing
code ended VERIFIED (exit 0) while the printed answer was wrong; each is put in place here by
monkeypatch and ``verify`` must now end REFUTED by the ``certificate`` check (the standalone
checker reads the printed lines, or the printed CSV, with its own grammar). Without the
self-check each still slips past every other check, which is why the words need the checker.
The control: the same commands without a mutant verify, and what is printed is exactly what
the certificate holds.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

CASES = Path(__file__).resolve().parents[2] / "cases"
DECIMAL = str(CASES / "dag-decimal-values.json")  # r: Max wins, score 1.75 in 2 plies
SYMMETRIC = str(CASES / "game-tictactoe-symmetric.json")
C4 = "<connect4 4x3 symmetric>"  # made by the fixture below


def _run(*args: str) -> Any:
    from verifier.cli import app

    return CliRunner().invoke(app, list(args))


def _outcomes_swapped(mp: pytest.MonkeyPatch) -> None:
    import verifier.model.solution as solution

    mp.setattr(solution, "OUTCOME_WORDS", {1: "loss", -1: "win", 0: "draw"})


def _max_min_swapped(mp: pytest.MonkeyPatch) -> None:
    import verifier.writers.answer as answer

    real = answer.verdict_of

    def verdict_of(sol: Any, x: int) -> str:
        words = real(sol, x)
        return words.replace("Max", "\0").replace("Min", "Max").replace("\0", "Min")

    mp.setattr(answer, "verdict_of", verdict_of)


def _best_move_second_ply(mp: pytest.MonkeyPatch) -> None:
    import verifier.writers.answer as answer
    import verifier.writers.table as table

    real = answer.answer_lines

    def answer_lines(rep: Any) -> list[str]:
        out = real(rep)
        if out:
            line = rep.solution.line(rep.case.root, answer.LINE_PLIES)
            if len(line) > 2:
                out[0] = out[0].replace(
                    f"best move {line[0]} -> {line[1]}", f"best move {line[0]} -> {line[2]}"
                )
        return out

    mp.setattr(answer, "answer_lines", answer_lines)
    mp.setattr(table, "answer_lines", answer_lines, raising=False)  # where it printed before


def _won_lost_swapped(mp: pytest.MonkeyPatch) -> None:
    from verifier.model.describe import Description

    real = Description.counts_words

    def counts_words(self: Description, s: Any) -> list[str]:
        return real(self, {**s, "won": s["lost"], "lost": s["won"]})

    mp.setattr(Description, "counts_words", counts_words)


def _plies_one_higher(mp: pytest.MonkeyPatch) -> None:
    import verifier.model.views as views

    real = views._plies

    def plies(n: int | None, unit: str = "plies") -> str:
        return real(None if n is None else n + 1, unit)

    mp.setattr(views, "_plies", plies)


def _symmetric_won_lost_swapped(mp: pytest.MonkeyPatch) -> None:
    import verifier.writers.answer as answer

    real = answer.symmetry_line

    def symmetry_line(s: Any) -> str | None:
        sym = s.get("symmetry")
        if not isinstance(sym, dict):
            return real(s)
        return real({**s, "symmetry": {**sym, "won": sym["lost"], "lost": sym["won"]}})

    mp.setattr(answer, "symmetry_line", symmetry_line)


MUTANTS: dict[str, tuple[Callable[[pytest.MonkeyPatch], None], tuple[str, ...], str]] = {
    # name: (the mutant, the command's arguments, a wrong word it prints)
    "outcome words swapped (csv)": (_outcomes_swapped, (DECIMAL, "--format", "csv"), "r,1.75,loss"),
    "Max and Min swapped": (_max_min_swapped, (DECIMAL,), "from r: Min wins, score 1.75"),
    "best move as the second ply": (_best_move_second_ply, (DECIMAL,), "best move r -> b2"),
    "won and lost swapped in the counts": (_won_lost_swapped, (DECIMAL,), "won 2, lost 5"),
    "root plies one higher": (_plies_one_higher, (DECIMAL,), "score 1.75 in 3 plies"),
    "symmetry-weighted won/lost swapped": (
        _symmetric_won_lost_swapped,
        (C4,),
        "won 412, lost 716",
    ),
}


@pytest.fixture(scope="module")
def connect4(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Connect Four 4x3 reduced by symmetry, an ``.npz`` case whose names the game's codec
    codes: its certificate's summary holds the counts over all positions (716 won, 412 lost)."""
    path = tmp_path_factory.mktemp("c4") / "c4-4x3-symmetric.npz"
    made = _run(
        "generate", "connect4", "--width", "4", "--height", "3", "--symmetry", "-o", str(path)
    )
    assert made.exit_code == 0, made.output
    return str(path)


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_a_misprinted_answer_is_refuted_by_the_certificate(
    monkeypatch: pytest.MonkeyPatch, mutant: str, connect4: str
) -> None:
    put, args, wrong = MUTANTS[mutant]
    args = tuple(connect4 if a == C4 else a for a in args)
    put(monkeypatch)
    slipped = _run("verify", *args, "--no-self-check")
    assert slipped.exit_code == 0, slipped.output  # nothing but the checker reads the words
    assert wrong in slipped.output
    res = _run("verify", *args, "--format", "json") if "csv" not in args else None
    if res is not None:  # the verdict and the check that refuted it, read from the report
        doc = json.loads(res.output)
        cert = next(c for c in doc["checks"] if c["name"] == "certificate")
        assert (doc["verdict"], cert["verdict"]) == ("refuted", "refuted"), cert
        assert cert["witness"]["condition"] == "printed", cert
    res = _run("verify", *args)
    assert res.exit_code == 1, res.output
    assert wrong in res.output  # what was printed is what was judged


def test_solve_with_a_certificate_judges_its_words(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _max_min_swapped(monkeypatch)
    res = _run("solve", DECIMAL, "--certificate", str(tmp_path / "c.json"))
    assert res.exit_code == 1, res.output
    assert "printed" in res.output
    res = _run("solve", DECIMAL, "--format", "csv", "--certificate", str(tmp_path / "d.json"))
    assert res.exit_code == 1  # the first line is in the certificate whatever the format


def test_solve_csv_with_an_answer_file_judges_both(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _outcomes_swapped(monkeypatch)
    cert, ans = tmp_path / "c.json", tmp_path / "a.json"
    res = _run("solve", DECIMAL, "--format", "csv", "-o", str(ans), "--certificate", str(cert))
    assert res.exit_code == 1, res.output


@pytest.mark.parametrize("args", [(DECIMAL,), (SYMMETRIC,), (DECIMAL, "--format", "csv")])
def test_control_what_is_printed_is_what_is_certified(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    cert = tmp_path / "c.json"
    res = _run("verify", *args, "--certificate", str(cert))
    assert res.exit_code == 0, res.output
    doc = json.loads(cert.read_text())
    printed = doc["printed"]
    assert printed and printed[-1].startswith(("won ", "up to symmetry"))
    if "csv" in args:  # the CSV printed: one outcome per row, as the certificate's values say
        rows = list(csv.DictReader(io.StringIO(res.output)))
        assert {r["position"]: r["outcome"] for r in rows}["r"] == "win"
        assert len(rows) == doc["case"]["positions"]
    else:
        shown = res.output.splitlines()
        for line in printed:
            assert f"  {line}" in shown


def test_brief_lines_come_from_the_certified_words() -> None:
    res = _run("verify", DECIMAL, "--quiet")
    assert res.exit_code == 0, res.output
    assert "from r: Max wins, score 1.75 in 2 plies; best move r -> b" in res.output
    assert "line r ->" not in res.output
