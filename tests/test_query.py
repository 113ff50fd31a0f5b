"""``verifier query``: a position's value, its moves best first, the line, the interval, the
checks that vouch for it (answers worked out by hand for the corpus cases used)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from verifier.cli import app

CASES = Path(__file__).resolve().parent.parent / "cases"
runner = CliRunner()


def query(*args: str) -> tuple[int, str, str]:
    r = runner.invoke(app, ["query", *args], terminal_width=400)
    return r.exit_code, r.stdout, r.stderr


def test_a_draw_on_kars_cycle() -> None:
    # Figure 1, b = -1 < d = 2: a draws by c (the cycle), loses by b (-1, a leaf: 0 plies)
    code, out, _ = query(str(CASES / "kars-figure1-b-lt-d.json"), "a")
    assert code == 0
    lines = [line.strip() for line in out.splitlines()]
    assert lines[1:5] == [
        "a: a draw (score 0)",
        "best move c; line a -> c -> a",
        "move to c: value 0 (the mover draws)",
        "move to b: value -1, remoteness 0 (the mover loses)",
    ]
    assert "over all solutions of the equations: [-1.0, 2.0]" in lines
    assert any(line.startswith("move vouched for by: moves") for line in lines)


def test_moves_best_first_in_json() -> None:
    # Knuth's graph: d moves to a (lost in 2) or e (lost in 4): both win for d's mover, the
    # quicker first; d is won in 3
    code, out, _ = query(str(CASES / "knuth-won-lost-unknown.json"), "d", "--json")
    assert code == 0
    [d] = json.loads(out)["positions"]
    assert (d["value"], d["remoteness"], d["move"]) == ("won", 3, "a")
    assert [(m["to"], m["remoteness"], m["mover"]) for m in d["moves"]] == [
        ("a", 2, "wins"),
        ("e", 4, "wins"),
    ]
    assert d["line"] == ["d", "a", "b", "c"]
    assert "smt-won-lost" in d["vouched_by"]["remoteness"]


def test_an_unknown_position_is_one_line_exit_2() -> None:
    code, out, err = query(str(CASES / "kars-figure1-b-lt-d.json"), "zz")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        f"{CASES / 'kars-figure1-b-lt-d.json'}: $.nodes: no position named 'zz'"
    ]
