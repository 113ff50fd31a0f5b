"""The ``summary`` block of a ``verify`` report on a game: counts, longest win, root value.

Examples
--------
>>> from verifier.games import tictactoe
>>> import numpy as np
>>> case = tictactoe.generate()
>>> labels = np.zeros(case.graph.n, dtype=np.int64)  # pretend every position is drawn
>>> summarize(case, labels, np.full(case.graph.n, -1))["drawn"]
5478
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from verifier.model import Case
from verifier.model.columns import REMOTENESS, Column
from verifier.model.solution import Solution

__all__ = ["ROOT_VALUE_NAMES", "class_sizes", "summarize", "summarize_solution"]

ROOT_VALUE_NAMES = {1: "won", -1: "lost", 0: "draw"}
"""How a root label reads in the summary (label 0 in a game graph: a draw, by a drawn end or
by play that never ends; ``unknown`` in the words of the case format)."""


def class_sizes(case: Case) -> NDArray[np.int64] | None:
    """For a case reduced by symmetry: how many positions each node stands for, else ``None``.

    The id of such a case ends in ``-symmetric`` (``tictactoe-symmetric``,
    ``connect4-WxH-symmetric``, ...); the game that made it recognises it and recomputes the
    sizes from the node names (its declaration's ``class_sizes``,
    :mod:`verifier.games.registry`).
    """
    if not case.id.endswith("-symmetric"):
        return None
    from verifier.games.registry import builtin_games

    for game in builtin_games():
        sizes = None if game.class_sizes is None else game.class_sizes(case)
        if sizes is not None:
            return sizes
    return None


def summarize(case: Case, labels: ArrayLike, remoteness: ArrayLike | Column) -> dict[str, Any]:
    """Counts of a solved game: ``positions``, ``won``, ``lost``, ``drawn`` (for the side to
    move; ``drawn`` counts label 0: drawn ends and play that never ends), ``max_remoteness``
    (the longest win or loss in plies, -1 if none), ``longest_win`` (over the won positions
    only, None if none is won), ``root_value`` (``won`` / ``lost`` /
    ``draw``, ``None`` without a root) and ``root_remoteness``.

    ``labels`` are +1 / -1 / 0 per node (a score works too: its sign is used). When the case is
    reduced by symmetry the counts are of classes (nodes) and ``symmetry`` adds the same counts
    over all positions, each class weighted by its size. ``remoteness`` is a masked ``Column``
    (a ``Solution``'s) or an array with -1 where there is none (a solver's own result).
    """
    given = np.asarray(labels)
    lab = (given > 0).astype(np.int8)  # the sign, one byte per node (NaN counts as 0)
    lab -= given < 0
    if isinstance(remoteness, Column):  # read in place: no copy with -1 filled in
        rem, has = np.asarray(remoteness.data), np.asarray(remoteness.given, dtype=np.bool_)
    else:
        rem = np.asarray(remoteness, dtype=np.int64)
        has = rem >= 0
    n = case.graph.n
    if lab.shape != (n,) or rem.shape != (n,):
        raise ValueError(f"labels and remoteness need one entry per node ({n})")
    out: dict[str, Any] = _counts(lab, None)
    # maxima under a mask, without copying the selected entries (10^8 positions)
    out["max_remoteness"] = int(rem.max(where=has & (lab != 0), initial=-1))
    won = has & (lab > 0)
    out["longest_win"] = int(rem.max(where=won, initial=-1)) if won.any() else None
    if case.root is None:
        out["root_value"] = None
        out["root_remoteness"] = None
    else:
        out["root_value"] = ROOT_VALUE_NAMES[int(lab[case.root])]
        out["root_remoteness"] = int(rem[case.root]) if has[case.root] else -1
    sizes = class_sizes(case)
    if sizes is not None:
        out["symmetry"] = {"classes": n, **_counts(lab, sizes)}
    from verifier.games.registry import builtin_games

    for game in builtin_games():  # a game's own block (chess: the longest win per side)
        facts = game.facts
        if facts is not None and facts.owns(case):
            out[facts.key] = facts.compute(case, lab, np.where(has, rem, -1))
    return out


def summarize_solution(case: Case, solution: Solution) -> dict[str, Any]:
    """The ``summary`` block of a case's answer: ``summarize`` over the solution's outcomes
    (won / lost / drawn from its point of view) and its own remoteness column, plus ``moves``,
    ``covered`` (for a partial answer), ``root`` and ``root_value`` in the case format's words."""
    g = case.graph
    rem = solution.columns.get(REMOTENESS)
    if rem is None:  # made only when missing: 9 bytes per position
        rem = Column(np.zeros(g.n, dtype=np.int64), np.zeros(g.n, dtype=np.bool_))
    out = summarize(case, solution.outcome(), rem)
    out["moves"] = g.m
    if not solution.covered.all():
        out["covered"] = int(solution.covered.sum())
    out["root"] = g.name(case.root) if case.root is not None else None
    out["root_value"] = solution.value(case.root) if case.root is not None else None
    return out


def _counts(lab: NDArray[np.int8], weight: NDArray[np.int64] | None) -> dict[str, int]:
    """Positions won (label > 0), lost (< 0) and drawn, each node counted ``weight`` times
    (``None``: once; counting masks costs a tenth of selecting by them at 10^7 nodes)."""
    if weight is None:
        won, lost = int(np.count_nonzero(lab > 0)), int(np.count_nonzero(lab < 0))
        total = len(lab)
    else:
        won, lost = int(weight[lab > 0].sum()), int(weight[lab < 0].sum())
        total = int(weight.sum())
    return {"positions": total, "won": won, "lost": lost, "drawn": total - won - lost}
