"""Ultimate periodicity of a Grundy sequence, and the octal-game periodicity theorem.

``find_period`` looks for a pre-period ``e`` and a period ``p`` with ``g(n + p) = g(n)`` for every
observed ``n >= e``. An observed pattern is only evidence. For an octal game with finitely many
code digits (last non-zero digit at position ``t``) the periodicity theorem of Guy and Smith
(Winning Ways, ch. 4; also used by CGSuite) turns it into a proof: if ``g(n + p) = g(n)`` for all
``e <= n < 2e + p + t``, then it holds for all ``n >= e``. So the sequence must be known up to
index ``2e + 2p + t - 1``, i.e. have at least ``2e + 2p + t`` values.

Examples
--------
>>> per = find_period([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2], max_removal=2)
>>> per.preperiod, per.period, per.certified
(0, 3, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["Periodicity", "find_period"]


@dataclass(frozen=True)
class Periodicity:
    """A pre-period and period found in an observed sequence."""

    preperiod: int
    """``e``: the least index from which ``g(n + p) = g(n)`` holds on the observed values."""
    period: int
    """``p``: the period."""
    observed: int
    """How many values were examined (indices ``0..observed-1``)."""
    certified: bool
    """True iff the octal periodicity theorem proves the periodicity for all ``n``."""
    reason: str
    """Why it is (or is not) certified, in one sentence."""
    needed: int | None = None
    """How many values the theorem needs (``2e + 2p + t``), when a theorem applies."""

    @property
    def last_exception(self) -> int | None:
        """The last ``n`` with ``g(n) != g(n + p)`` (``e - 1``), or ``None`` if ``e = 0``."""
        return self.preperiod - 1 if self.preperiod else None


def find_period(
    seq: Sequence[int] | NDArray[np.int64],
    *,
    max_removal: int | None = None,
    max_period: int | None = None,
    min_repeats: int = 2,
) -> Periodicity | None:
    """Find ``(e, p)`` in ``seq`` (values at heaps ``0..len(seq)-1``), or ``None``.

    Among the periods ``p <= max_period`` (default ``len(seq) // 2``) whose periodic part covers
    at least ``min_repeats`` full periods, choose the one with the least ``e + p`` (then least
    ``p``). ``max_removal`` is ``t`` of an octal game (``None`` when the periodicity theorem
    does not apply, as for Grundy's game): the result is then ``certified`` iff the sequence is
    long enough for the theorem's check, which the observed equalities then satisfy.
    """
    if min_repeats < 1:
        raise ValueError(f"min_repeats must be >= 1, got {min_repeats}")
    arr = np.asarray(seq, dtype=np.int64)
    n = len(arr)
    limit = n // 2 if max_period is None else min(max_period, n - 1)
    from verifier.engine.sequence_kernels import least_preperiods

    found = np.full(max(limit, 0) + 1, -1, dtype=np.int64)
    if limit >= 1:
        least_preperiods(arr, limit, min_repeats, found)
    best: tuple[int, int] | None = None
    for p in np.flatnonzero(found >= 0).tolist():
        best = (int(found[p]), int(p))  # each one found beats the ones before
    if best is None:
        return None
    e, p = best
    if max_removal is None:
        return Periodicity(e, p, n, False, "no periodicity theorem applies to this game")
    needed = 2 * e + 2 * p + max_removal
    if n >= needed:
        reason = (
            f"octal periodicity theorem: g(n+{p}) = g(n) checked for {e} <= n < "
            f"{2 * e + p + max_removal} (t = {max_removal})"
        )
        return Periodicity(e, p, n, True, reason, needed)
    reason = f"the theorem needs {needed} values, only {n} computed"
    return Periodicity(e, p, n, False, reason, needed)
