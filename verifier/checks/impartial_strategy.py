"""Check ``grundy-strategy``: the strategy certificate of an impartial game, cyclic or not.

Per solver that publishes moves: its outcome classes (P: value 0; N: finite value > 0, or
``inf(K)`` with 0 in ``K``; D: ``inf(K)`` with 0 not in ``K``) with its moves must pass
``iter_strategy_impartial`` (``verifier.certificates``, over arrays above ``PLAIN_LIMIT``
nodes): P / N / D are the won / lost / unknown labels of the same moves played as a ``normal``
game (its won/lost rules, and every N and P position derived in the restricted game below, which
stands in for ranks), each N position moves to a P one and each draw to a draw, and in the game
where every N position may only make its move, retrograde analysis finds every N position won
and every P position lost: following the moves the N player wins whatever the opponent does,
and the player who keeps to the draw moves never loses.

Moving from N to some P option keeps the win move by move, but on a cycle such moves can go
round for ever (``b -> {a, t}``, ``a -> b``: ``b -> a -> b ...`` is a draw); ``moves`` judges
each move, this check the strategy they make. Linear (one retrograde pass), no Z3: it runs in
the full run and with ``--linear``.
"""

from __future__ import annotations

import time

import numpy as np
from numpy.typing import NDArray

from verifier import certificates
from verifier.certificate_arrays import checker
from verifier.checks.common import per_solver, result
from verifier.model import CheckResult, GameGraph, Semantics, SolverResult, Verdict
from verifier.model.columns import LOOPY, MOVE, VALUE
from verifier.model.describe import describe
from verifier.model.results import View
from verifier.model.semantics import LOST, UNKNOWN, WON
from verifier.registry import CheckContext, check

__all__ = ["NAME", "impartial_classes"]

NAME = "grundy-strategy"

_WORDS = {WON: "N", LOST: "P", UNKNOWN: "D"}


def impartial_classes(g: GameGraph, r: SolverResult) -> NDArray[np.int64] | None:
    """Per node +1 (N), -1 (P) or 0 (D) from the solver's values (``None`` unless it gives a
    value, finite or infinite, at every node)."""
    cols = r.columns
    val = cols[VALUE]
    inf = cols.get(LOOPY)
    inf_given = inf.given if inf is not None else np.zeros(g.n, dtype=np.bool_)
    finite = val.given & ~inf_given
    if not (finite | inf_given).all():
        return None
    data = np.where(finite, np.asarray(val.data), 0).astype(np.int64)
    out = np.where(data > 0, WON, LOST).astype(np.int64)
    if inf is not None:
        for x in np.flatnonzero(inf_given).tolist():
            out[x] = WON if 0 in inf.data[x] else UNKNOWN
    return out


@check(NAME, [Semantics.IMPARTIAL], order=56, linear=True, proves={MOVE})
def check_impartial_strategy(ctx: CheckContext) -> list[CheckResult]:
    """The strategy certificate for every impartial solver that names moves."""
    return per_solver(ctx, View.GRUNDY, MOVE, _judge)


def _judge(g: GameGraph, r: SolverResult) -> CheckResult:
    t0 = time.perf_counter()
    name = f"{NAME} ({r.solver})"
    classes = impartial_classes(g, r)
    if classes is None:
        return result(name, Verdict.UNKNOWN, "not every position has a value: no strategy", t0)
    col = r.columns[MOVE]
    move = np.where(col.given, np.asarray(col.data, dtype=np.int64), -1)
    bad = certificates.first(checker(g.n).iter_strategy_impartial(g, classes, move))
    if bad is None:
        counts = {w: int(np.sum(classes == c)) for c, w in _WORDS.items()}
        return result(
            name,
            Verdict.CONFIRMED,
            f"following the moves N wins from all {counts['N']} N positions, the "
            f"{counts['P']} P positions lose whatever they do, the {counts['D']} draws keep "
            "the draw; P/N/D = won/lost/unknown of the won/lost rules (derived, rank-free)",
            t0,
        )
    x = bad.id
    y = int(move[x])
    d = describe(g.semantics)
    witness = {
        "node": bad.node,
        "reason": bad.reason,
        "class": _WORDS.get(int(classes[x]), str(int(classes[x]))),
        "value": d.show_node(r.columns, x),
        "move": g.name(y) if 0 <= y < g.n else None,
        "successors": {g.name(int(s)): d.show_node(r.columns, int(s)) for s in g.successors(x)},
    }
    return result(name, Verdict.REFUTED, f"at {bad.node!r}: {bad.reason}", t0, witness)
