"""A user's own game in one Python file (issue 33 item 1): the ``Game`` protocol, ``explore``,
``verifier generate FILE.py:Class --param``, and a one-line error for each mistake in the game's
code (exit 2, the position's key and the method named, no traceback)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import verifier
from verifier.cli import app
from verifier.games import Game, GameError, explore
from verifier.games.loader import is_game_spec, load_game, parse_params
from verifier.io import save_any

ROOT = Path(__file__).resolve().parents[2]
KAYLES = ROOT / "examples" / "games" / "dawsons_kayles.py"
SPEC = f"{KAYLES}:DawsonsKayles"
runner = CliRunner()

DAWSON = [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3]
"""Grundy values of Dawson's Kayles on a row of n pins, n = 0, 1, ... (OEIS A002187)."""


def _root_value(case: verifier.Case) -> object:
    assert case.root is not None
    return verifier.solve(case)[case.graph.name(case.root)].value


def test_tutorial_game_lives_outside_the_package_and_needs_no_registration() -> None:
    assert ROOT / "verifier" not in KAYLES.parents
    names = "\n".join(p.read_text() for p in (ROOT / "verifier").rglob("*.py"))
    assert "dawsons_kayles" not in names and "DawsonsKayles" not in names
    assert len(KAYLES.read_text().splitlines()) <= 45


@pytest.mark.parametrize("n", range(13))
def test_dawsons_kayles_grundy_values(n: int, tmp_path: Path) -> None:
    case = explore(load_game(SPEC, {"n": n}))
    assert case.graph.name(0) == ("|" * n or "-")
    assert _root_value(case) == DAWSON[n]
    for suffix in (".json", ".npz"):  # the written case says the same
        written = verifier.load(save_any(case, tmp_path / f"k{suffix}"))
        assert list(written.graph.names) == list(case.graph.names)
        assert _root_value(written) == DAWSON[n]


def test_generate_then_verify_and_a_wrong_answer_refuted(tmp_path: Path) -> None:
    out = tmp_path / "kayles.json"
    r = runner.invoke(app, ["generate", SPEC, "--param", "n=7", "-o", str(out)])
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    assert doc["semantics"] == "impartial" and doc["root"] == "|||||||"
    assert len(doc["nodes"]) == 12  # mirror images joined by canonical()
    r = runner.invoke(app, ["verify", str(out), "-q"])
    assert r.exit_code == 0 and "VERIFIED" in r.stdout, r.output
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("node,value\n|||||||,0\n")
    r = runner.invoke(app, ["verify", str(out), "--answers", str(wrong), "-q"])
    assert r.exit_code == 1 and "REFUTED" in r.stdout, r.output
    r = runner.invoke(app, ["query", str(out), "--no-smt"])
    assert r.exit_code == 0 and "Grundy value 1" in r.stdout, r.output


def test_builtin_forms_stay_builtin() -> None:
    assert not is_game_spec("subtraction:1,2,3")
    assert not is_game_spec("octal:.07")
    assert not is_game_spec("tictactoe")
    assert is_game_spec("games/mine.py:Mine")
    assert is_game_spec("mypkg.games:Mine")
    assert parse_params(["n=4", "name=x", "neg=-2"]) == {"n": 4, "name": "x", "neg": -2}


TAKEAWAY = '''
class TakeAway:
    """One pile, Max and Min take 1 or 2 counters in turn; who cannot move loses."""

    semantics = "minimax"

    def __init__(self, n=5):
        self.n = n

    def initial(self):
        return (self.n, "max")

    def moves(self, state):
        n, who = state
        other = "min" if who == "max" else "max"
        return [(n - k, other) for k in (1, 2) if k <= n]

    def to_move(self, state):
        return state[1]

    def outcome(self, state):
        n, who = state
        if n == 0:
            return "loss" if who == "max" else "win"
        return None

    def key(self, state):
        return f"{state[0]}{state[1][1]}"
'''


def _module(tmp_path: Path, text: str, name: str = "mygame") -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    return path


@pytest.mark.parametrize(("n", "value"), [(3, -1.0), (4, 1.0), (5, 1.0), (6, -1.0)])
def test_a_minimax_game_duck_typed(tmp_path: Path, n: int, value: float) -> None:
    game = load_game(f"{_module(tmp_path, TAKEAWAY)}:TakeAway", {"n": n})
    case = explore(game)
    assert case.semantics.value == "minimax"
    assert _root_value(case) == value


def test_module_colon_class_form(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "mygames"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    _module(pkg, TAKEAWAY, "takeaway")
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "t.npz"
    try:
        r = runner.invoke(
            app, ["generate", "mygames.takeaway:TakeAway", "--param", "n=6", "-o", str(out)]
        )
        assert r.exit_code == 0, r.output
        case = verifier.load(out)
        assert case.graph.name(case.root or 0) == "6a"
        assert _root_value(case) == -1.0
    finally:
        for m in ("mygames", "mygames.takeaway"):
            sys.modules.pop(m, None)


NORMAL = """
class Bad:
    semantics = "normal"

    def initial(self):
        return 3

    def moves(self, n):
        {moves}

    def outcome(self, n):
        {outcome}

    def key(self, n):
        {key}
"""
GOOD = {"moves": "return [n - 1] if n else []", "outcome": "return None", "key": "return n"}

MISTAKES = {
    "moves raises": (
        {"moves": "return [n - 1] if n != 2 else [1 // 0]"},
        "position '2': moves(): raised ZeroDivisionError: integer division or modulo by zero",
    ),
    "unhashable key": ({"key": "return [n]"}, "position '[3]': key(): the key is not hashable"),
    "terminal with moves": (
        {"outcome": "return 'won' if n == 1 else None"},
        "position '1': outcome(): gave 'won' but moves() gave 1 move(s)",
    ),
    "outcome of the wrong type": (
        {"outcome": "return 1 if n == 0 else None"},
        "position '0': outcome(): gave 1: a normal game's outcome is 'won', 'lost' or 'draw'",
    ),
    "key not stable": (
        {"key": "import random; return (n, random.random())"},
        "key(): the key is not stable",
    ),
    "an empty name": ({"key": "return '' if n == 1 else str(n)"}, "the key prints as an empty"),
    "outcome raises": (
        {"outcome": "raise KeyError(n)"},
        "position '3': outcome(): raised KeyError: 3",
    ),
}


@pytest.mark.parametrize("kind", MISTAKES)
def test_each_mistake_is_one_line_exit_2(tmp_path: Path, kind: str) -> None:
    change, message = MISTAKES[kind]
    path = _module(tmp_path, NORMAL.format(**{**GOOD, **change}))
    out = tmp_path / "bad.json"
    r = runner.invoke(app, ["generate", f"{path}:Bad", "-o", str(out)])
    assert r.exit_code == 2, r.output
    assert message in " ".join(r.stderr.split()), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output
    assert not out.exists()


def test_the_good_version_of_the_bad_game_runs(tmp_path: Path) -> None:
    path = _module(tmp_path, NORMAL.format(**GOOD))
    case = explore(load_game(f"{path}:Bad"))
    assert list(case.graph.names) == ["3", "2", "1", "0"]
    assert _root_value(case) == "won"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--param", "n=40", "--max-positions", "10"], "more than 10 positions (--max-positions)"),
        (["--param", "size=3"], "DawsonsKayles(size=3) raised TypeError"),
        (["--param", "n"], "'n' is not NAME=VALUE"),
    ],
)
def test_cli_limits_and_params(tmp_path: Path, args: list[str], message: str) -> None:
    r = runner.invoke(app, ["generate", SPEC, *args, "-o", str(tmp_path / "k.json")])
    assert r.exit_code == 2, r.output
    assert message in " ".join(r.stderr.split()) and "Traceback" not in r.output


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nowhere/mine.py:Mine", "no such file: nowhere/mine.py"),
        (f"{KAYLES}:Kayles", "has no class 'Kayles'; it defines DawsonsKayles"),
        ("no_such_module_xyz:Mine", "no module named 'no_such_module_xyz'"),
    ],
)
def test_missing_file_class_module(tmp_path: Path, spec: str, message: str) -> None:
    r = runner.invoke(app, ["generate", spec, "-o", str(tmp_path / "k.json")])
    assert r.exit_code == 2, r.output
    assert message in " ".join(r.stderr.split()) and "Traceback" not in r.output


def test_param_refused_for_builtin_games(tmp_path: Path) -> None:
    r = runner.invoke(app, ["generate", "ladder", "--n", "2", "--param", "n=3", "-o", "x.json"])
    assert r.exit_code == 2 and "--param" in r.stderr


def test_an_unhashable_state_without_key() -> None:
    class Lists:
        semantics = "impartial"

        def initial(self) -> list[int]:
            return [2]

        def moves(self, s: list[int]) -> list[list[int]]:
            return [[s[0] - 1]] if s[0] else []

    with pytest.raises(GameError, match=r"initial\(\): the start state is not hashable.*key"):
        explore(Lists())

    class FromTwo(Lists):
        def initial(self) -> int:  # type: ignore[override]
            return 2

        def moves(self, s: object) -> list[list[int]]:
            return [[1]]

    with pytest.raises(GameError, match=r"position '2': moves\(\): a successor is not hashable"):
        explore(FromTwo())


class Chase:
    """Reachability on a cycle of 6 cells: player 0 wins on reaching cell 3."""

    semantics = "reachability"

    def initial(self) -> tuple[int, int]:
        return (0, 0)

    def moves(self, s: tuple[int, int]) -> list[tuple[int, int]]:
        cell, who = s
        steps = (1, 2) if who == 0 else (1,)
        return [((cell + k) % 6, 1 - who) for k in steps]

    def to_move(self, s: tuple[int, int]) -> int:
        return s[1]

    def is_target(self, s: tuple[int, int]) -> bool:
        return s[0] == 3

    def key(self, s: tuple[int, int]) -> str:
        return f"c{s[0]}p{s[1]}"


def test_a_reachability_game() -> None:
    case = explore(Chase())
    assert case.semantics.value == "reachability"
    assert int(case.graph.target.sum()) == 2  # c3p0 and c3p1
    assert verifier.verify(case).verdict.value == "verified"


def test_symmetries_join_positions() -> None:
    class Mirror:
        semantics = "impartial"

        def initial(self) -> str:
            return "|" * 6

        def moves(self, row: str) -> list[str]:
            pairs = range(len(row) - 1)
            return [row[:i] + ".." + row[i + 2 :] for i in pairs if row[i : i + 2] == "||"]

        def symmetries(self, row: str) -> list[str]:
            return [row[::-1]]

    with_sym = explore(Mirror())
    plain = explore(load_game(SPEC, {"n": 6}))
    assert with_sym.graph.n == plain.graph.n
    assert _root_value(with_sym) == DAWSON[6]


class Count:
    semantics = "impartial"

    def initial(self) -> int:
        return 10_000

    def moves(self, n: int) -> list[int]:
        return [n - 1] if n else []


def test_progress_is_reported() -> None:
    seen: list[tuple[int, int]] = []
    explore(Count(), progress=lambda positions, frontier: seen.append((positions, frontier)))
    assert seen[0] == (4097, 1) and seen[-1] == (10_001, 0)


def test_progress_lines_on_stderr(tmp_path: Path) -> None:
    path = tmp_path / "count.py"
    path.write_text(
        "class Count:\n"
        "    semantics = 'impartial'\n"
        "    def initial(self):\n        return 10_000\n"
        "    def moves(self, n):\n        return [n - 1] if n else []\n"
    )
    r = runner.invoke(
        app,
        ["generate", f"{path}:Count", "-o", str(tmp_path / "c.npz")],
        env={"VERIFIER_PROGRESS_EVERY": "0"},
    )
    assert r.exit_code == 0, r.output
    assert "progress: generating" in r.stderr and "positions, frontier 1," in r.stderr


MINIMAX_MISTAKES = {
    "to_move not max/min": (
        "return state[1]",
        "return 'me'",
        "position '5a': to_move(): gave 'me': expected 'max' or 'min'",
    ),
    "no value at the end": (
        'return "loss" if who == "max" else "win"',
        "return None",
        "position '0i': outcome(): a minimax position with no moves needs a value",
    ),
    "a value that is no number": (
        'return "loss" if who == "max" else "win"',
        "return True",
        "position '0i': outcome(): gave True: a minimax game's outcome is a finite number",
    ),
    "initial raises": (
        'return (self.n, "max")',
        "return self.missing",
        "the start state: initial(): raised AttributeError:",
    ),
}


@pytest.mark.parametrize("kind", MINIMAX_MISTAKES)
def test_minimax_mistakes(tmp_path: Path, kind: str) -> None:
    old, new, message = MINIMAX_MISTAKES[kind]
    assert old in TAKEAWAY
    path = _module(tmp_path, TAKEAWAY.replace(old, new, 1))
    r = runner.invoke(app, ["generate", f"{path}:TakeAway", "-o", str(tmp_path / "t.json")])
    assert r.exit_code == 2, r.output
    assert message in " ".join(r.stderr.split()), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output


def test_a_game_file_imports_its_neighbours_and_import_errors_are_one_line(
    tmp_path: Path,
) -> None:
    (tmp_path / "kayles_rules.py").write_text("PAIR = '||'\n")
    path = _module(
        tmp_path,
        "from kayles_rules import PAIR\n\n"
        "class K:\n"
        "    semantics = 'impartial'\n"
        "    def initial(self):\n        return PAIR * 2\n"
        "    def moves(self, r):\n"
        "        pairs = range(len(r) - 1)\n"
        "        return [r[:i] + '..' + r[i + 2:] for i in pairs if r[i:i+2] == PAIR]\n",
    )
    try:
        assert _root_value(explore(load_game(f"{path}:K"))) == DAWSON[4]
    finally:
        sys.modules.pop("kayles_rules", None)
    broken = _module(tmp_path, "import no_such_thing_here\n", "broken")
    r = runner.invoke(app, ["generate", f"{broken}:K", "-o", str(tmp_path / "b.json")])
    assert r.exit_code == 2 and "raised ModuleNotFoundError" in r.stderr, r.output
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output


def test_several_start_states_with_initials() -> None:
    """``initials()``: every start is a position (in the order given, repeats joined), what
    they reach is explored, and the case has no root."""

    class Heaps(Game):
        semantics = "impartial"

        def __init__(self, starts: object) -> None:
            self.starts = starts

        def initials(self) -> object:
            return self.starts

        def moves(self, n: int) -> list[int]:
            return [n - 2] if n >= 2 else []

    case = explore(Heaps([5, 2, 5, 1]))  # 5 -> 3 -> 1; 2 -> 0
    assert list(case.graph.names) == ["5", "2", "1", "3", "0"] and case.root is None
    assert case.graph.m == 3
    with pytest.raises(GameError, match=r"^Heaps: initials\(\): gave no state"):
        explore(Heaps([]))
    with pytest.raises(GameError, match=r"^Heaps: initials\(\): did not return an iterable"):
        explore(Heaps(7))
