"""OpenSpiel's games (issue 33 item 2): ``verifier generate openspiel:NAME``, values compared
with OpenSpiel's own solvers, and a one-line refusal of each kind of game that cannot be
verified (exit 2, the property named, no traceback)."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import verifier
from verifier.cli import app
from verifier.games import GameError, explore
from verifier.games.loader import is_game_spec, load_game
from verifier.games.openspiel import position_name

runner = CliRunner()

# game, positions, moves, value of the initial state for player 0 (OpenSpiel's alpha-beta agrees)
GAMES = [
    ("tic_tac_toe", 5478, 16167, 0.0),
    ("nim(pile_sizes=1;2;3)", 40, 108, -1.0),
    ("connect_four(rows=3,columns=4)", 12031, 23372, 0.0),
    ("dots_and_boxes(num_rows=1,num_cols=2)", 143, 466, 0.0),
    ("breakthrough(rows=3,columns=3)", 723, 987, 1.0),
    ("clobber(rows=2,columns=3)", 57, 83, -1.0),
    ("hex(board_size=3)", 5514, 16167, 1.0),
]


@pytest.fixture(scope="module")
def pyspiel() -> Any:
    """The pyspiel module, or skip: OpenSpiel is an optional extra."""
    return pytest.importorskip(
        "pyspiel", reason="OpenSpiel not installed (pip install 'gamegraph-verifier[openspiel]')"
    )


def _values(case: verifier.Case) -> dict[str, float]:
    """Our value of every position, by name."""
    solution = verifier.solve(case)
    return {name: float(solution[name].value) for name in case.graph.names}  # type: ignore[arg-type]


def _openspiel_value_iteration(game: Any) -> dict[str, float]:
    """OpenSpiel's value iteration: player 0's value of each state, keyed by ``str(state)``."""
    try:
        from open_spiel.python.algorithms import value_iteration
    except ImportError:  # its lp_solver needs cvxpy, only for simultaneous moves (none here)
        sys.modules["open_spiel.python.algorithms.lp_solver"] = types.ModuleType("lp_solver")
        from open_spiel.python.algorithms import value_iteration
    return value_iteration.value_iteration(game, depth_limit=-1, threshold=0)  # type: ignore[no-any-return]


@pytest.mark.parametrize(("name", "n", "m", "value"), GAMES)
def test_initial_value_equals_openspiel_alpha_beta(
    pyspiel: Any, name: str, n: int, m: int, value: float
) -> None:
    from open_spiel.python.algorithms.minimax import alpha_beta_search

    game = load_game(f"openspiel:{name}")
    case = explore(game)
    assert (case.graph.n, case.graph.m) == (n, m)
    root = case.graph.name(0)
    assert root == position_name(game.game.new_initial_state())
    ours = _values(case)[root]
    theirs, _ = alpha_beta_search(game.game, maximum_depth=1000, maximizing_player_id=0)
    assert ours == theirs == value


@pytest.mark.parametrize(
    "name",
    ["tic_tac_toe", "breakthrough(rows=3,columns=3)", "dots_and_boxes(num_rows=1,num_cols=2)"],
)
def test_every_value_equals_openspiel_value_iteration(pyspiel: Any, name: str) -> None:
    from open_spiel.python.algorithms.get_all_states import get_all_states

    game = load_game(f"openspiel:{name}")
    ours = _values(explore(game))
    theirs = _openspiel_value_iteration(game.game)
    states = get_all_states(game.game, -1, True, False, to_string=str)
    assert len(states) == len(theirs) == len(ours)
    named = {position_name(s): theirs[key] for key, s in states.items()}
    assert named == ours
    assert len(set(ours.values())) > 1  # not all draws: the comparison means something


def test_names_are_one_line_with_the_player_to_move(pyspiel: Any) -> None:
    case = explore(load_game("openspiel:tic_tac_toe"))
    names = list(case.graph.names)
    assert names[0] == ".../.../... p0" and names[1] == "x../.../... p1"
    assert "xxx/oo./... end" in names
    assert not any("\n" in nm for nm in names)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "kuhn_poker",
            "openspiel:kuhn_poker: has chance nodes (OpenSpiel chance_mode EXPLICIT_STOCHASTIC); "
            "only deterministic games can be verified",
        ),
        ("pig", "has chance nodes (OpenSpiel chance_mode EXPLICIT_STOCHASTIC)"),
        ("matrix_rps", "is not sequential (OpenSpiel dynamics SIMULTANEOUS)"),
        ("goofspiel", "is not sequential (OpenSpiel dynamics SIMULTANEOUS)"),
        ("phantom_ttt", "has hidden information (OpenSpiel information IMPERFECT_INFORMATION)"),
        ("chinese_checkers(players=3)", "has 3 players; only two-player games can be verified"),
        ("no_such_game", "OpenSpiel has no game 'no_such_game'"),
        ("connect_four(depth=3)", "OpenSpiel cannot load it: Unknown parameter 'depth'"),
    ],
)
def test_refusals_are_one_line_exit_2(
    pyspiel: Any, tmp_path: Path, capfd: pytest.CaptureFixture[str], spec: str, message: str
) -> None:
    out = tmp_path / "x.npz"
    r = runner.invoke(app, ["generate", f"openspiel:{spec}", "-o", str(out)])
    assert r.exit_code == 2, r.output
    assert message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output
    assert "OpenSpiel exception" not in capfd.readouterr().err  # pyspiel's own print silenced
    assert not out.exists()


def test_general_sum_refused(pyspiel: Any) -> None:
    """No registered deterministic two-player game of perfect information is general-sum, so
    one is made by changing tic-tac-toe's declared utility."""
    from verifier.games import openspiel

    real = pyspiel.load_game("tic_tac_toe")

    class GeneralSum:
        def __getattr__(self, attr: str) -> Any:
            return getattr(real, attr)

        def get_type(self) -> Any:
            t = real.get_type()
            return types.SimpleNamespace(
                dynamics=t.dynamics,
                chance_mode=t.chance_mode,
                information=t.information,
                utility=pyspiel.GameType.Utility.GENERAL_SUM,
            )

    assert openspiel._unfit(real) is None
    assert openspiel._unfit(GeneralSum()) == (
        "is not zero-sum (OpenSpiel utility GENERAL_SUM); only zero-sum or constant-sum games "
        "can be verified"
    )


def test_generate_then_verify(pyspiel: Any, tmp_path: Path) -> None:
    out = tmp_path / "t.npz"
    r = runner.invoke(app, ["generate", "openspiel:tic_tac_toe", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "tic_tac_toe, minimax, 5478 nodes, 16167 moves" in r.stderr
    r = runner.invoke(app, ["verify", str(out), "-q"])
    assert r.exit_code == 0 and "VERIFIED" in r.stdout, r.output
    assert "from .../.../... p0: a draw (score 0)" in r.stdout


def test_param_and_max_positions(pyspiel: Any, tmp_path: Path) -> None:
    out = tmp_path / "c.npz"
    args = ["generate", "openspiel:connect_four", "--param", "rows=3", "--param", "columns=4"]
    r = runner.invoke(app, [*args, "-o", str(out)])
    assert r.exit_code == 0 and "12031 nodes, 23372 moves" in r.stderr, r.output
    r = runner.invoke(app, [*args, "--max-positions", "100", "-o", str(tmp_path / "d.npz")])
    assert r.exit_code == 2 and "more than 100 positions (--max-positions)" in r.stderr
    with pytest.raises(GameError, match="in parentheses or as --param"):
        load_game("openspiel:connect_four(rows=3)", {"columns": 4})


@pytest.mark.slow
def test_connect_four_4x4_equals_alpha_beta(pyspiel: Any) -> None:
    from open_spiel.python.algorithms.minimax import alpha_beta_search

    game = load_game("openspiel:connect_four(rows=4,columns=4)")
    case = explore(game)
    assert (case.graph.n, case.graph.m) == (161029, 304574)
    theirs, _ = alpha_beta_search(game.game, maximum_depth=1000, maximizing_player_id=0)
    assert _values(case)[case.graph.name(0)] == theirs == 0.0


def test_spec_routing_and_lazy_import() -> None:
    assert is_game_spec("openspiel:tic_tac_toe")
    assert is_game_spec("openspiel:connect_four(rows=4,columns=4)")
    code = (
        "import sys, verifier.cli, verifier.games.loader, verifier.games.openspiel; "
        "assert 'pyspiel' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_openspiel_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now raises ImportError
    r = runner.invoke(app, ["generate", "openspiel:tic_tac_toe", "-o", str(tmp_path / "t.npz")])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert r.stderr.strip() == (
        "openspiel:tic_tac_toe: OpenSpiel is not installed: "
        "pip install 'gamegraph-verifier[openspiel]'"
    )


def test_tic_tac_toe_matches_the_builtin_generator(pyspiel: Any) -> None:
    """OpenSpiel's tic-tac-toe and ``verifier generate tictactoe``: same positions, same moves,
    same numbers of won, lost and drawn positions (the built-in one is labelled for the mover)."""
    from verifier.games import tictactoe

    ours = explore(load_game("openspiel:tic_tac_toe"))
    builtin = tictactoe.generate()
    assert (ours.graph.n, ours.graph.m) == (builtin.graph.n, builtin.graph.m) == (5478, 16167)
    values = _values(ours)
    mover = {  # player 0's value seen by the player to move (a terminal: by the one who would)
        nm: v
        if nm.endswith(" p0") or (nm.endswith(" end") and nm.count("x") == nm.count("o"))
        else -v
        for nm, v in values.items()
    }
    solution = verifier.solve(builtin)
    word = {"won": 1.0, "lost": -1.0, "draw": 0.0}
    labels = [word[str(solution[nm].value)] for nm in builtin.graph.names]
    assert sorted(mover.values()) == sorted(labels)


def test_a_strangers_answers_keyed_by_openspiel_states_are_judged(
    pyspiel: Any, tmp_path: Path
) -> None:
    """Issue 33 item 4: OpenSpiel's own value iteration, written as an answer file keyed by the
    game's positions (OpenSpiel's state strings, as every output names them), is verified; one
    value changed is refuted at that position."""
    import json

    case = tmp_path / "ttt.npz"
    assert runner.invoke(app, ["generate", "openspiel:tic_tac_toe", "-o", str(case)]).exit_code == 0
    theirs = _openspiel_value_iteration(load_game("openspiel:tic_tac_toe").game)

    def state_string(name: str) -> str:  # our name: str(state) on one line, then the mover
        board = name.rsplit(" ", 1)[0].replace("/", "\n")
        return board if board in theirs else board + "\n"

    names = list(verifier.load(case).graph.names)
    values = {name: theirs[state_string(name)] for name in names}
    head = {"format": "gamegraph-verifier-answers", "version": 1, "semantics": "minimax"}
    answers = tmp_path / "openspiel-vi.json"
    answers.write_text(json.dumps({**head, "nodes": values}))
    r = runner.invoke(app, ["verify", str(case), "--answers", str(answers), "-q"])
    assert r.exit_code == 0 and "VERIFIED" in r.stdout, r.output
    wrong = next(n for n in names if values[n] == 1.0)  # a win for player 0, claimed a draw
    answers.write_text(json.dumps({**head, "nodes": {**values, wrong: 0.0}}))
    r = runner.invoke(app, ["verify", str(case), "--answers", str(answers), "-q"])
    assert r.exit_code == 1 and "REFUTED" in r.stdout, r.output
    assert repr(wrong) in r.stdout or wrong in r.stdout
