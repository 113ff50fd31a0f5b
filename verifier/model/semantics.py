"""The four game semantics a case can be played by, the owner codes and the won/lost labels."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["LOST", "MAX", "MIN", "NOBODY", "PLAYER0", "PLAYER1", "UNKNOWN", "WON", "Semantics"]

MAX = 0
"""Owner code of a Max node (``minimax``); the same code is player 0 of ``reachability``."""
MIN = 1
"""Owner code of a Min node (``minimax``); the same code is player 1 of ``reachability``."""
PLAYER0 = MAX
PLAYER1 = MIN
NOBODY = -1
"""Owner code of a terminal minimax node, and of every node where the mover alternates."""

WON = 1
"""Label of a won position (``normal``, mover's view; ``View.LABEL``)."""
LOST = -1
"""Label of a lost position."""
UNKNOWN = 0
"""Label of a position the won/lost rules leave undecided (cycles, draw terminals)."""


class Semantics(StrEnum):
    """Which rules a game graph is played by (the ``semantics`` field of a case)."""

    MINIMAX = "minimax"
    """Kars / the DAG notes: Max and Min nodes, valued terminals, divergence is a draw (0)."""
    NORMAL = "normal"
    """Knuth's exercise: the mover alternates, won/lost labels from the mover's view."""
    REACHABILITY = "reachability"
    """ICO notes: player 0 wins iff play reaches the target set; infinite play is player 1's."""
    IMPARTIAL = "impartial"
    """Sprague-Grundy: moves only, no moves means the mover loses."""
