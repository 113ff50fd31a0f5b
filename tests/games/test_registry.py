"""A built-in game is one module (issue 33 item 1): a module of ``verifier.games`` that declares
``GAME = BuiltinGame(...)`` is found by ``generate``, the command line, its help and its errors
with no other edit; the lists read the declarations."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import verifier.games
from verifier.cli import app
from verifier.errors import UsageError
from verifier.games import loader, registry
from verifier.games.generators import generate
from verifier.io import load_any
from verifier.research import study

runner = CliRunner()

TAKE_AWAY = '''
"""Take-away: take 1 or 2 counters; who cannot move loses (a test's game)."""

from verifier.games.protocol import Game, explore
from verifier.games.registry import BuiltinGame, Example, Option


class TakeAway(Game):
    semantics = "impartial"

    def __init__(self, heap: int = 5) -> None:
        self.heap = heap

    def initial(self) -> int:
        return self.heap

    def moves(self, n: int) -> list[int]:
        return [n - k for k in (1, 2) if n >= k]


GAME = BuiltinGame(
    "takeaway",
    "take 1 or 2 counters from one heap",
    lambda heap=5: explore(TakeAway(heap), case_id=f"takeaway-{heap}"),
    options=(Option("heap", int, "counters at the start."),),
    protocol=TakeAway,
    examples=(Example("takeaway-4", "takeaway", {"heap": 4}, study=False),),
)
'''


@pytest.fixture
def takeaway(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``verifier.games`` with one more module, ``takeaway_game``, in a folder of its own."""
    (tmp_path / "takeaway_game.py").write_text(textwrap.dedent(TAKE_AWAY))
    monkeypatch.setattr(verifier.games, "__path__", [*verifier.games.__path__, str(tmp_path)])
    yield tmp_path
    _forget("takeaway_game")


def _forget(*modules: str) -> None:
    """Take the test's modules out of ``sys.modules`` and off the package."""
    for name in modules:
        sys.modules.pop(f"verifier.games.{name}", None)
        vars(verifier.games).pop(name, None)


@pytest.mark.usefixtures("takeaway")
def test_a_module_with_a_declaration_is_a_game_of_generate() -> None:
    case = generate("takeaway", heap=4)
    assert case.id == "takeaway-4" and list(case.graph.names) == ["4", "3", "2", "1", "0"]
    assert case.graph.m == 7
    assert registry.known().endswith(", grundy, takeaway")
    with pytest.raises(UsageError, match=r"^generator 'takeaway' does not take --upto$"):
        generate("takeaway", upto=3)


@pytest.mark.usefixtures("takeaway")
def test_the_command_line_generates_a_declared_game_with_its_own_option(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    r = runner.invoke(app, ["generate", "takeaway", "--param", "heap=6", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert load_any(out).graph.n == 7
    assert not loader.is_game_spec("takeaway:x")
    r = runner.invoke(app, ["generate", "--help"])
    shown = " ".join(r.stdout.replace("│", "").split())
    assert "grundy, takeaway, or your own game class" in shown
    assert "takeaway take 1 or 2 counters from one heap [--param heap=...]" in shown
    assert "random seeded random graph of any semantics [--semantics --nodes" in shown
    assert "--seed --terminal-values --terminal-fraction --acyclic]" in shown
    r = runner.invoke(
        app, ["generate", "takeaway", "--param", "heap=many", "-o", str(out), "--force"]
    )
    assert r.exit_code == 2 and r.stderr.strip() == "option heap: 'many' is not an integer"


def test_without_the_module_the_game_is_unknown(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as err:
        generate("takeaway", heap=4)
    assert str(err.value) == (
        "unknown game 'takeaway'; known: tictactoe, lgame, connect4, kqk, krk, chess:MATERIAL, "
        "ladder, random, "
        "nim, subtraction:S, octal:CODE, grundy"
    )


def test_two_modules_declaring_one_name_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "takeaway_game.py").write_text(textwrap.dedent(TAKE_AWAY))
    (tmp_path / "takeaway_again.py").write_text(textwrap.dedent(TAKE_AWAY))
    monkeypatch.setattr(verifier.games, "__path__", [*verifier.games.__path__, str(tmp_path)])
    try:
        with pytest.raises(RuntimeError, match="two built-in games named 'takeaway': in "):
            registry.builtin_games()
    finally:
        _forget("takeaway_game", "takeaway_again")


def test_the_lists_read_the_declarations() -> None:
    games = registry.builtin_games()
    assert [g.shown for g in games] == [
        "tictactoe",
        "lgame",
        "connect4",
        "kqk",
        "krk",
        "chess:MATERIAL",
        "ladder",
        "random",
        "nim",
        "subtraction:S",
        "octal:CODE",
        "grundy",
    ]
    assert [label for label, _, _ in study.GAMES] == [
        ex.label for g in games for ex in g.examples if ex.study
    ]
    assert study.GAMES[4] == (
        "connect4-3x3",
        "connect4",
        {"width": 3, "height": 3, "symmetry": False},
    )
    assert len(study.GAMES) == 19 and study.GAMES[-1] == ("grundy-30", "grundy", {"upto": 30})


@pytest.mark.parametrize(
    ("name", "shown", "argument"),
    [
        ("subtraction:1,2,3", "subtraction:S", "1,2,3"),
        ("SUBTRACTION:{1, 2}", "subtraction:S", "{1, 2}"),
        (".07", "octal:CODE", ".07"),
        ("4.07", "octal:CODE", "4.07"),
        ("octal:.137", "octal:CODE", ".137"),
        ("grundys-game", "grundy", None),
        (" Nim ", "nim", None),
    ],
)
def test_names_find_their_game(name: str, shown: str, argument: str | None) -> None:
    game, arg = registry.find(name)
    assert (game.shown, arg) == (shown, argument)


@pytest.mark.parametrize(
    "name", ["chess", "subtraction", "subtraction:", "subtraction:0", "octal:.8", "nim:3", "1.9"]
)
def test_names_of_no_game_are_unknown(name: str) -> None:
    with pytest.raises(UsageError, match=rf"^unknown game {name!r}; known: tictactoe, "):
        registry.find(name)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["connect4", "--param", "width=3", "--width", "3"], "--param width=... and its own "),
        (["lgame", "--param", "symmetry=maybe"], "option symmetry: 'maybe' is not yes or no"),
        (["tictactoe", "--param", "depth=3"], "generator 'tictactoe' does not take --depth"),
        (["ladder", "--max-positions", "5"], "--max-positions is for a game class"),
        (["nim", "--piles", "2"], "generator 'nim' needs both --piles and --below"),
        (["nim", "--upto", "3", "--piles", "2", "--below", "3"], "does not take --upto"),
    ],
)
def test_bad_options_are_one_line_errors(args: list[str], message: str, tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    r = runner.invoke(app, ["generate", *args, "-o", str(out)])
    assert r.exit_code == 2 and not out.exists()
    (line,) = r.stderr.splitlines()
    assert message in line


def test_a_declared_option_given_by_param_is_the_flag(tmp_path: Path) -> None:
    by_param, by_flag = tmp_path / "p.json", tmp_path / "f.json"
    r = runner.invoke(
        app,
        ["generate", "connect4", "--param", "width=3", "--param", "height=3", "--param",
         "symmetry=yes", "-o", str(by_param)],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    r = runner.invoke(
        app,
        ["generate", "connect4", "--width", "3", "--height", "3", "--symmetry", "-o", str(by_flag)],
    )
    assert r.exit_code == 0, r.output
    assert by_param.read_text() == by_flag.read_text()
    assert load_any(by_param).graph.n == 452


def test_the_docs_show_the_ladders_declaration() -> None:
    """docs/games.md, "Adding a built-in game": its Python block is in verifier/games/ladder.py."""
    root = Path(__file__).resolve().parents[2]
    doc = (root / "docs" / "games.md").read_text()
    section = doc.split("## Adding a built-in game", 1)[1]
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert block.startswith('GAME = BuiltinGame(\n    "ladder",')
    assert block in (root / "verifier" / "games" / "ladder.py").read_text()


@pytest.mark.parametrize(
    ("symmetric", "plain"),
    [
        (label, label.removesuffix("-symmetric"))
        for label, _, _ in study.GAMES
        if label.endswith("-symmetric")
    ],
)
def test_the_classes_of_a_symmetric_case_add_up_to_the_plain_case(
    symmetric: str, plain: str
) -> None:
    """``class_sizes`` (the summary's) finds the game that made the case by its declaration."""
    from verifier.games.summary import class_sizes

    by_label = {label: (name, opts) for label, name, opts in study.GAMES}
    sym_case = generate(by_label[symmetric][0], **by_label[symmetric][1])
    plain_case = generate(by_label[plain][0], **by_label[plain][1])
    sizes = class_sizes(sym_case)
    assert sizes is not None and len(sizes) == sym_case.graph.n
    assert int(sizes.sum()) == plain_case.graph.n and class_sizes(plain_case) is None
