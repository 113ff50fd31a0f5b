"""A built-in game on the game protocol gives the identical graph to its fast generator:
the same named positions, each with the same successors, terminal labels and owners; every
example every built-in game declares is checked so (``verifier.games.registry``)."""

from __future__ import annotations

import pytest

from verifier.games import (
    chess_endgames,
    connect4,
    grundys_game,
    ladder,
    lgame,
    nim,
    octal,
    subtraction,
    tictactoe,
)
from verifier.games.generators import generate
from verifier.games.protocol import explore
from verifier.games.registry import BuiltinGame, Example, builtin_games, find
from verifier.model import Case


def _by_name(case: Case) -> dict[str, tuple[frozenset[str], float | None, int]]:
    g = case.graph
    out = {}
    for x in range(g.n):
        v = float(g.value[x])
        out[g.name(x)] = (
            frozenset(g.name(int(y)) for y in g.successors(x)),
            None if v != v else v,
            int(g.owner[x]),
        )
    return out


@pytest.mark.parametrize("symmetry", [False, True])
def test_tictactoe_on_the_protocol_is_the_generated_graph(symmetry: bool) -> None:
    fast = tictactoe.generate(symmetry=symmetry)
    slow = explore(tictactoe.TicTacToe(symmetry=int(symmetry)))
    assert (slow.graph.n, slow.graph.m) == (fast.graph.n, fast.graph.m)
    assert _by_name(slow) == _by_name(fast)
    assert slow.graph.name(slow.root) == fast.graph.name(fast.root) == "........."


@pytest.mark.parametrize(
    ("width", "height", "symmetry"),
    [(3, 3, False), (4, 3, False), (3, 4, True), pytest.param(4, 4, True, marks=pytest.mark.slow)],
)
def test_connect_four_on_the_protocol_is_the_generated_graph(
    width: int, height: int, symmetry: bool
) -> None:
    fast = connect4.generate(width, height, symmetry=symmetry)
    slow = explore(connect4.ConnectFour(width, height, symmetry=int(symmetry)))
    assert (slow.graph.n, slow.graph.m) == (fast.graph.n, fast.graph.m)
    assert _by_name(slow) == _by_name(fast)
    assert slow.graph.name(slow.root) == fast.graph.name(fast.root)


@pytest.mark.parametrize("s", ["1,2,3", "2,3", "2", "3,5,8"])
def test_a_subtraction_game_on_the_protocol_is_the_generated_graph(s: str) -> None:
    """Every heap 0..30 is a start (``initials()``): with S = {2} the odd heaps are not
    reachable from 30, and are still positions of the case, as the generator makes them."""
    fast = subtraction.subtraction_game(subtraction.parse_subtraction_set(s), 30)
    slow = explore(subtraction.SubtractionGame(s, upto=30))
    assert (slow.graph.n, slow.graph.m) == (fast.graph.n, fast.graph.m) == (31, slow.graph.m)
    assert _by_name(slow) == _by_name(fast)
    assert list(slow.graph.names) == [str(h) for h in range(31)] and slow.root is None


@pytest.mark.parametrize("heaps", ["1,2", "3,4,5", "0,2,2", "6"])
def test_nim_on_the_protocol_is_the_generated_graph(heaps: str) -> None:
    sizes = [int(h) for h in heaps.split(",")]
    fast = nim.nim_position(sizes)
    slow = explore(nim.Nim(heaps))
    assert (slow.graph.n, slow.graph.m) == (fast.graph.n, fast.graph.m)
    assert _by_name(slow) == _by_name(fast)
    assert slow.graph.name(slow.root) == fast.graph.name(fast.root) == heaps


@pytest.mark.parametrize("code", [".07", ".137", "4.07", ".6"])
def test_an_octal_game_on_the_protocol_is_the_generated_graph(code: str) -> None:
    fast = octal.octal_game(code, 14)
    slow = explore(octal.OctalGame(code, upto=14))
    assert (slow.graph.n, slow.graph.m) == (fast.graph.n, fast.graph.m)
    assert _by_name(slow) == _by_name(fast)
    assert list(slow.graph.names)[:15] == [str(h) for h in range(15)]


def test_grundys_game_on_the_protocol_is_the_generated_graph() -> None:
    fast, slow = grundys_game.grundys_game(16), explore(grundys_game.GrundysGame(16))
    assert (slow.graph.n, slow.graph.m) == (fast.graph.n, fast.graph.m)
    assert _by_name(slow) == _by_name(fast)


@pytest.mark.parametrize(
    ("endgame", "size", "symmetry"),
    [
        ("KQK", 3, False),
        ("KRK", 3, False),
        ("KQK", 4, False),
        ("KRK", 5, False),
        ("KQK", 5, True),
        ("KRK", 5, True),
        pytest.param("KQK", 8, False, marks=pytest.mark.slow),
    ],
)
def test_kqk_and_krk_on_the_protocol_are_the_generated_graphs(
    endgame: str, size: int, symmetry: bool
) -> None:
    """The rules written square by square (the protocol class) and the vectorized generator
    give the same positions, moves, mates and stalemates (and the same classes under the 8
    symmetries of the board)."""
    fast = chess_endgames.generate(endgame, size, symmetry=symmetry)
    slow = explore(chess_endgames.KingPieceKing(endgame, size, symmetry=int(symmetry)))
    assert (slow.graph.n, slow.graph.m) == (fast.graph.n, fast.graph.m)
    assert _by_name(slow) == _by_name(fast)


SLOW = {"lgame"}
"""Examples whose protocol version takes long: the L-game's 1,632,800 moves (30 s)."""
EXAMPLES = [
    pytest.param(game, ex, id=ex.label, marks=[pytest.mark.slow] if ex.label in SLOW else [])
    for game in builtin_games()
    for ex in game.examples
]


@pytest.mark.parametrize(("game", "example"), EXAMPLES)
def test_every_declared_game_on_the_protocol_is_its_generated_graph(
    game: BuiltinGame, example: Example
) -> None:
    """Each example a game declares, by its protocol class and by ``verifier generate``'s
    fast path: the same named positions and moves."""
    found, argument = find(example.name)
    assert found is game
    slow = game.build_protocol(argument, example.options)
    assert slow is not None, f"{game.name} has no protocol version"
    fast, explored = generate(example.name, **example.options), explore(slow)
    assert (explored.graph.n, explored.graph.m) == (fast.graph.n, fast.graph.m)
    assert explored.semantics == fast.semantics
    assert _by_name(explored) == _by_name(fast)


def test_every_game_but_random_graphs_has_a_protocol_and_an_example() -> None:
    with_examples = {game.name for game in builtin_games() if game.examples}
    with_protocol = {game.name for game in builtin_games() if game.protocol is not None}
    # random graphs are no game; chess has python-chess as its oracle (tests/games/test_chess.py)
    every_but_random = {g.name for g in builtin_games()} - {"random", "chess"}
    assert with_examples == with_protocol == every_but_random and len(with_protocol) == 10


@pytest.mark.slow  # 6 s; the declared example lgame-symmetric is compared in the default run
def test_the_symmetric_l_game_on_the_protocol_is_the_generated_graph() -> None:
    """Its size, and its start among the classes (the plain L-game is a slow example above)."""
    fast = lgame.generate(symmetry=True)
    slow = explore(lgame.LGame(symmetry=1))
    assert (slow.graph.n, slow.graph.m) == (fast.graph.n, fast.graph.m) == (2296, 204100)
    assert _by_name(slow) == _by_name(fast)
    assert slow.root is None and lgame.board_name(lgame.canonical(lgame.START)) in slow.graph.names


@pytest.mark.parametrize(("n", "dense"), [(1, False), (4, False), (4, True), (7, True)])
def test_the_ladder_on_the_protocol_is_the_generated_graph(n: int, dense: bool) -> None:
    fast = ladder.ladder(n, dense=dense)
    slow = explore(ladder.Ladder(n, dense=int(dense)))
    assert (slow.graph.n, slow.graph.m) == (fast.graph.n, fast.graph.m)
    assert slow.graph.n == 4 * n + 2
    assert _by_name(slow) == _by_name(fast)
    assert slow.graph.name(slow.root) == fast.graph.name(fast.root) == "t"
