"""The numeric bounds the model, the engines and the file formats share, named once.

>>> INT32_MAX, MAX_EXACT
(2147483647, 9007199254740992)
"""

from __future__ import annotations

from typing import Final

__all__ = ["INT32_MAX", "MAX_EXACT", "MAX_REMOTENESS"]

INT32_MAX: Final = 2**31 - 1
"""The largest ``int32``: ids, counts and offsets below it are stored as ``int32``, at or above
it as ``int64`` (:func:`verifier.model.graph.index_dtype`)."""

MAX_EXACT: Final = 2**53
"""float64 holds every integer up to this magnitude: a whole value below it prints as an int,
and no value in a case or answer file may be above it."""

MAX_REMOTENESS: Final = 2**62
"""A claimed remoteness is a whole number ``0 <= r < MAX_REMOTENESS``."""
