"""Dawson's Kayles on a row of n pins: a move knocks down two adjacent pins.

A position is the row as a string, ``|`` a standing pin and ``.`` a fallen one, e.g.
``"||.||"``. The player who cannot move loses (an impartial game), so the verifier computes
each position's Grundy value.

    verifier generate examples/games/dawsons_kayles.py:DawsonsKayles --param n=7 -o kayles.json
"""

from verifier.games import Game


class DawsonsKayles(Game):
    """Dawson's Kayles: knock down two adjacent pins; who cannot move loses."""

    semantics = "impartial"

    def __init__(self, n: int = 7) -> None:
        self.n = n

    def initial(self) -> str:
        return "|" * self.n

    def moves(self, row: str) -> dict[str, str]:
        """Knock down pins i and i+1, for each pair still standing (named ``"i,i+1"``)."""
        return {
            f"{i},{i + 1}": row[:i] + ".." + row[i + 2 :]
            for i in range(len(row) - 1)
            if row[i : i + 2] == "||"
        }

    def canonical(self, row: str) -> str:
        """A row and its mirror image are the same game: keep the smaller string."""
        return min(row, row[::-1])

    def key(self, row: str) -> str:
        """The position's name: the row itself (the empty row of no pins is "-")."""
        return row or "-"
