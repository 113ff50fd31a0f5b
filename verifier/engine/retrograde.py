"""Retrograde analysis (Knuth, TAOCP 2.2.3 ex. 28) on the numpy engine, one layer at a time.

The seed's queue algorithm, frontier by frontier (``verifier.engine.frontier``): the frontier of
layer ``k`` holds the positions of remoteness ``k``. Predecessors of its *lost* positions are won
(case 1 of the seed: one lost successor suffices, an OR trigger); predecessors of its *won*
positions have their counter ``c(x)`` of successors not yet known to be won decremented, and are
lost when it reaches zero (case 2, an AND trigger). Both join at layer ``k + 1``. Because layer
``k`` is complete before layer ``k + 1`` starts, a won node's layer is one more than the least
remoteness of its lost successors, and a lost node's one more than the greatest remoteness of its
successors, which is the definition of remoteness. Same labels, remoteness and moves as the
reference ``verifier.solvers.retrograde``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from verifier.engine.frontier import (
    Propagation,
    first_match_per_source,
    predecessor_csr,
    successor_csr,
)
from verifier.model.graph import GameGraph
from verifier.model.results import RetrogradeResult
from verifier.model.semantics import LOST, UNKNOWN, WON, Semantics

__all__ = [
    "LOST",
    "UNKNOWN",
    "WON",
    "EngineRetrograde",
    "move_keys",
    "retrograde_numpy",
    "terminal_labels",
]


@dataclass(frozen=True, eq=False)
class EngineRetrograde(RetrogradeResult):
    """Labels, remoteness and optimal moves of a ``normal`` game graph, and the rounds."""

    rounds: int
    """Frontiers processed (layers); ``scalar_rounds`` of them by the scalar loop."""
    scalar_rounds: int


def terminal_labels(g: GameGraph) -> NDArray[np.int8]:
    """The label of every terminal (lost unless ``value`` says won (> 0) or draw (0)); 0 on
    inner nodes."""
    v = g.value
    lab = np.where(np.isnan(v) | (v < 0), LOST, np.where(v > 0, WON, UNKNOWN)).astype(np.int8)
    lab[~g.is_terminal] = UNKNOWN
    return lab


def move_keys(
    label: NDArray[np.int8], rem: NDArray[np.int32], terminal: NDArray[np.bool_]
) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
    """``(want, code)`` for ``first_match_per_source``: the optimal successor ``y`` of ``x``.

    ``code[y] = 2 rem[y] + [y lost]`` on decided nodes and -2 on unknown ones. A won ``x``
    wants a lost successor one layer down (its least-remoteness lost successor), a lost ``x``
    a won one one layer down (its greatest-remoteness successor), an unknown inner ``x`` an
    unknown one; terminals want -3, which no code takes.
    """
    r = rem.astype(np.int32)
    code = (2 * r + (label == LOST)).astype(np.int32)
    want = np.where(label == WON, 2 * r - 1, 2 * r - 2).astype(np.int32)
    want[label == UNKNOWN] = -2
    want[terminal] = -3
    return want, code


def retrograde_numpy(g: GameGraph) -> EngineRetrograde:
    """Label every position of a ``normal`` graph won / lost / unknown, O(n + m) vectorized.

    >>> g = GameGraph.from_successors({"a": ["b"], "b": ["c"], "c": []},
    ...                               semantics=Semantics.NORMAL)
    >>> r = retrograde_numpy(g)
    >>> r.label.tolist(), r.remoteness.tolist(), r.move.tolist()
    ([-1, 1, -1], [2, 1, 0], [1, 2, -1])
    """
    g.expect_semantics(Semantics.NORMAL)
    pred = predecessor_csr(g)
    prop = Propagation(
        pred,
        g.out_degree,  # c(x): successors not yet known to be won
        or_on=LOST,  # case 1: a lost successor makes x won
        and_on=WON,  # case 2: a won successor counts c(x) down; at zero x is lost
        or_emit=WON,
        and_emit=LOST,
    )
    term = terminal_labels(g)
    seeds = np.flatnonzero(term != UNKNOWN)  # terminals designated won or lost: layer 0
    prop.run(seeds, term[seeds], keep=False)
    rem = prop.layer
    label = np.where(rem >= 0, prop.signal, UNKNOWN).astype(np.int8)

    move = first_match_per_source(successor_csr(g), *move_keys(label, rem, g.is_terminal))
    return EngineRetrograde(
        label=label,
        remoteness=rem.astype(np.int64),
        move=move,
        rounds=prop.rounds,
        scalar_rounds=prop.scalar_rounds,
        edges_scanned=prop.edges,
    )
