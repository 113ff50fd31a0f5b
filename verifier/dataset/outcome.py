"""What a tier's expansion says of a position (``rules.Expansion.outcome``): a label where the
game is over, or ``INNER``. Its own module: the rules' protocol and the games' own tiered code
(``verifier.games.tiered``) both read it."""

from __future__ import annotations

import numpy as np

__all__ = ["INNER"]

INNER = np.int8(2)
"""``Expansion.outcome`` of a position that is not terminal."""
