"""The answer comes first: each case's table opens with who wins from the root, by what, in how
many plies, the best move and the line of play, in the words of its semantics (worked out by
hand for each corpus case below); the checks follow, one row per kind."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import verify_app

CASES = Path(__file__).resolve().parent.parent / "cases"
runner = CliRunner()

ANSWERS = {
    # Kars' Figure 1, b = -1 < d = 2: Max and Min can both keep play on a -> c -> a
    "kars-figure1-b-lt-d": [
        "from a: a draw (score 0); best move a -> c; line a -> c -> a",
        "why: from a both sides can keep play on the cycle a -> c -> a; a solution of the rules "
        "can put a anywhere in [-1, 2], Kars' rule takes the draw 0",
    ],
    # x -> y -> z, z a dead end: z lost, y won in 1, x lost in 2
    "knuth-cycle-with-exit": [
        "from x: the player to move loses in 2 plies (the longest defence); best move x -> y; "
        "line x -> y -> z"
    ],
    # infinite play belongs to player 1
    "ico-reachability-infinite-play": ["from v: player 1 keeps play away from the target"],
    # nim heaps 1 and 2: 1 xor 2 = 3, and the move to heaps 1, 1 (1 xor 1 = 0) wins
    "impartial-nim-position-1-2": [
        "from 1,2: Grundy value 3: the player to move wins (an N position); best move 1,2 -> 1,1"
    ],
}


def _table(case: str, *args: str) -> list[str]:
    r = runner.invoke(verify_app, [str(CASES / f"{case}.json"), *args], terminal_width=400)
    assert r.exit_code == 0, r.stdout
    return [line.strip() for line in r.stdout.splitlines()]


@pytest.mark.parametrize("case", sorted(ANSWERS))
def test_the_answer_opens_the_table(case: str) -> None:
    lines = _table(case)
    assert lines[0].startswith(case) and "VERIFIED" in lines[0]
    assert lines[1 : 1 + len(ANSWERS[case])] == ANSWERS[case]


def test_checks_are_grouped_by_kind_and_expanded_with_verbose() -> None:
    short = _table("kars-figure1-b-lt-d")
    assert any(line.startswith("agree score (4)") for line in short)
    assert any(line.startswith("solvers (5)") for line in short)
    assert not any(line.startswith("agree score: kars-iteration = kars-levels") for line in short)
    full = _table("kars-figure1-b-lt-d", "-v")
    assert any(line.startswith("agree score: kars-iteration = kars-levels") for line in full)
    assert any(line.startswith("kars-iteration") and " ran " in line for line in full)
