"""What a tier's expansion says of a position (``rules.Expansion.outcome``): a label where the
game is over, or ``INNER``. Its own module: the rules (which name every game, chess among them)
and chess's own checks both read it, without importing each other."""

from __future__ import annotations

import numpy as np

__all__ = ["INNER"]

INNER = np.int8(2)
"""``Expansion.outcome`` of a position that is not terminal."""
