"""Grundy's game: a move splits one heap into two non-empty heaps of different sizes.

Examples
--------
>>> grundys_sequence(12)
[0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1]
"""

from __future__ import annotations

from verifier.games.heaps import DEFAULT_MAX_NODES, HeapGame, heap_case, sequence_from_rule
from verifier.games.registry import UPTO, BuiltinGame, Example
from verifier.model import Case

__all__ = ["GAME", "GrundysGame", "grundys_game", "grundys_rule", "grundys_sequence"]


def grundys_rule(n: int) -> list[tuple[int, ...]]:
    """Options of a heap of ``n``: ``(n - a, a)`` for ``1 <= a < n - a``."""
    return [(n - a, a) for a in range(1, (n + 1) // 2) if a < n - a]


def grundys_sequence(upto: int) -> list[int]:
    """Grundy values of heaps ``0..upto`` of Grundy's game (OEIS A002188)."""
    return sequence_from_rule(grundys_rule, upto)


def grundys_game(upto: int, *, max_nodes: int = DEFAULT_MAX_NODES) -> Case:
    """Heaps ``0..upto`` of Grundy's game as a case on multisets of heaps."""
    return heap_case(
        grundys_rule,
        upto,
        case_id=f"grundys-game-{upto}",
        source="Grundy's game (generator verifier.games.grundys_game)",
        expect_values=grundys_sequence(upto),
        max_nodes=max_nodes,
    )


class GrundysGame(HeapGame):
    """Grundy's game on the game protocol, heaps ``0..upto`` (``verifier generate
    verifier.games.grundys_game:GrundysGame --param upto=30``): the same graph as
    :func:`grundys_game`."""

    def __init__(self, upto: int = 20) -> None:
        super().__init__(grundys_rule, upto)


GAME = BuiltinGame(
    "grundy",
    "Grundy's game: split a heap into two unequal heaps",
    grundys_game,
    options=(UPTO,),
    protocol=GrundysGame,
    aliases=("grundys", "grundys-game"),
    examples=(Example("grundy-30", "grundy", {"upto": 30}),),
    order=110,
)
