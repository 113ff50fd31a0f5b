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
    assert "over all solutions of the equations: [-1, 2]" in lines
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


def _chain(tmp_path: Path, n: int) -> Path:
    # p0 -> p1 -> ... -> p{n}: normal play, p{n} terminal (lost), so p0 is won iff n is odd
    nodes = {f"p{i}": {"moves": [f"p{i + 1}"]} for i in range(n)}
    nodes[f"p{n}"] = {"moves": []}
    path = tmp_path / "chain.json"
    case = {"id": "chain", "semantics": "normal", "root": "p0", "nodes": nodes}
    path.write_text(json.dumps(case))
    return path


def test_a_long_line_says_it_goes_on_and_plies_shows_more(tmp_path: Path) -> None:
    case = str(_chain(tmp_path, 50))
    code, out, _ = query(case, "p0", "--no-smt")
    assert code == 0
    line = next(s.strip() for s in out.splitlines() if "best move" in s)
    assert line == "best move p1; line " + " -> ".join(f"p{i}" for i in range(41)) + " -> ..."
    code, out, _ = query(case, "p0", "--no-smt", "--plies", "60")
    line = next(s.strip() for s in out.splitlines() if "best move" in s)
    assert line == "best move p1; line " + " -> ".join(f"p{i}" for i in range(51))
    code, out, _ = query(case, "p0", "--no-smt", "--plies", "3", "--json")
    pos = json.loads(out)["positions"][0]
    assert pos["line"] == ["p0", "p1", "p2", "p3"] and pos["line_goes_on"] is True


def test_without_positions_the_root_is_asked(tmp_path: Path) -> None:
    code, out, _ = query(str(_chain(tmp_path, 3)), "--no-smt")
    assert code == 0
    assert out.splitlines()[1] == "p0: the player to move wins in 3 plies"


def test_without_positions_or_root_is_one_line_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "noroot.json"
    nodes = {"a": {"moves": ["b"]}, "b": {}}
    path.write_text(json.dumps({"id": "x", "semantics": "normal", "nodes": nodes}))
    code, _, err = query(str(path))
    assert code == 2
    assert err.strip().splitlines() == [
        f"{path}: $.root: the case names no root: give the positions to ask about"
    ]
