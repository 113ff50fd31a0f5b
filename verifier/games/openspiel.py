"""OpenSpiel's games as protocol games: ``verifier generate openspiel:tic_tac_toe``.

Only two-player, zero-sum (or constant-sum), sequential, deterministic games of perfect
information qualify. Player 0 is Max, player 1 is Min, a terminal's value is player 0's return.
A position is named by ``str(state)`` with each newline written as ``/``, then the player to move
(``p0``, ``p1``, or ``end`` at a terminal). ``pyspiel`` is imported only when such a game is
loaded (``pip install 'gamegraph-verifier[openspiel]'``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from verifier.games.protocol import Game, GameError

__all__ = ["PREFIX", "OpenSpielGame", "position_name"]

PREFIX = "openspiel:"
"""A GAME argument naming an OpenSpiel game: ``openspiel:NAME`` or ``openspiel:NAME(k=v,...)``."""

_INSTALL = "pip install 'gamegraph-verifier[openspiel]'"


def position_name(state: Any) -> str:
    """A state's position name: ``str(state)`` on one line (newlines as ``/``) and its mover."""
    board = str(state).rstrip("\n").replace("\n", "/")
    player = state.current_player()
    return f"{board} {'end' if state.is_terminal() else f'p{player}'}"


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence file descriptor 2 (OpenSpiel's C++ code prints each error before raising it)."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no descriptor 2 to silence
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _unfit(game: Any) -> str | None:
    """Why the loaded pyspiel ``game`` cannot be verified, or ``None`` if it can."""
    import pyspiel

    t = game.get_type()
    kind = pyspiel.GameType
    if game.num_players() != 2:
        return f"has {game.num_players()} players; only two-player games can be verified"
    if t.dynamics != kind.Dynamics.SEQUENTIAL:
        return (
            f"is not sequential (OpenSpiel dynamics {t.dynamics.name}); only games where the "
            "players take turns can be verified"
        )
    if t.chance_mode != kind.ChanceMode.DETERMINISTIC:
        return (
            f"has chance nodes (OpenSpiel chance_mode {t.chance_mode.name}); only deterministic "
            "games can be verified"
        )
    if t.information != kind.Information.PERFECT_INFORMATION:
        return (
            f"has hidden information (OpenSpiel information {t.information.name}); only games "
            "of perfect information can be verified"
        )
    if t.utility not in (kind.Utility.ZERO_SUM, kind.Utility.CONSTANT_SUM):
        return (
            f"is not zero-sum (OpenSpiel utility {t.utility.name}); only zero-sum or "
            "constant-sum games can be verified"
        )
    return None


class OpenSpielGame(Game):
    """An OpenSpiel game: Max is player 0, Min player 1, values are player 0's returns."""

    semantics = "minimax"

    def __init__(self, name: str, **params: Any) -> None:
        """Load ``name`` (``NAME`` or ``NAME(k=v,...)``) with ``params`` as game parameters."""
        spec = PREFIX + name
        try:
            import pyspiel
        except ImportError:
            raise GameError(spec, f"OpenSpiel is not installed: {_INSTALL}") from None
        if name.partition("(")[0] not in pyspiel.registered_names():
            raise GameError(spec, f"OpenSpiel has no game {name.partition('(')[0]!r}")
        if params and "(" in name:
            raise GameError(spec, "give the game's parameters in parentheses or as --param")
        if params:  # OpenSpiel's own string form, which it parses by each parameter's type
            name += "(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")"
        try:
            with _quiet_stderr():
                self.game = pyspiel.load_game(name)
        except pyspiel.SpielError as e:
            first = str(e).strip().split("\n")[0]
            raise GameError(spec, f"OpenSpiel cannot load it: {first}") from None
        why = _unfit(self.game)
        if why is not None:
            raise GameError(spec, why)

    def initial(self) -> Any:
        """The game's initial state."""
        return self.game.new_initial_state()

    def moves(self, state: Any) -> list[Any]:
        """The state each legal action leads to."""
        return [state.child(a) for a in state.legal_actions()]

    def outcome(self, state: Any) -> float | None:
        """Player 0's return at a terminal state, else ``None``."""
        return float(state.returns()[0]) if state.is_terminal() else None

    def to_move(self, state: Any) -> int:
        """The player to move: 0 (Max) or 1 (Min)."""
        return int(state.current_player())

    def key(self, state: Any) -> str:
        """The position's name (see :func:`position_name`)."""
        return position_name(state)
