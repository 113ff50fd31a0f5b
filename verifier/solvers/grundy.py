"""Sprague-Grundy values of an acyclic ``impartial`` game graph (the seed: mex, P/N positions).

``sg(x)`` is the mex (least non-negative integer missing) of the values of ``x``'s successors;
a terminal position has ``sg = 0``. Nodes are visited in reverse topological order (leaves
first), so every successor is done before its predecessors: O(n + m), no recursion. The seed's
theorem: ``x`` is a P-position (the player to move loses) iff ``sg(x) = 0``.

Examples
--------
>>> g = GameGraph.from_successors({"2": ["1", "0"], "1": ["0"], "0": []},
...                               semantics=Semantics.IMPARTIAL)
>>> grundy_values(g).tolist(), winning_moves(g, grundy_values(g)).tolist()
([2, 1, 0], [2, 2, -1])
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from verifier.errors import CycleError
from verifier.model import Case, GameGraph, IntArray, Semantics, SolverResult
from verifier.model.mex import mex
from verifier.model.topology import reverse_topological_order
from verifier.registry import Options, solver
from verifier.solvers._common import grundy_result, require_reference, timed_unless

__all__ = ["NEEDS_ACYCLIC", "grundy_solver", "grundy_values", "mex", "pn_classes", "winning_moves"]

NEEDS_ACYCLIC = "the mex recursion needs an acyclic graph: "
"""Why the Grundy solvers skip a graph with a cycle (followed by the cycle)."""


def grundy_values(g: GameGraph) -> IntArray:
    """``sg(x)`` for every node of an acyclic graph; ``CycleError`` naming a cycle otherwise."""
    order = reverse_topological_order(g).tolist()
    ptr, idx = g.succ_ptr.tolist(), g.succ_idx.tolist()
    sg = [0] * g.n
    for x in order:  # every successor of x comes earlier in the order (seed: sg = mex)
        sg[x] = mex(sg[y] for y in idx[ptr[x] : ptr[x + 1]])
    return np.array(sg, dtype=np.int64)


def pn_classes(values: IntArray) -> NDArray[np.int8]:
    """+1 for N-positions (``sg > 0``, the mover wins), -1 for P-positions (``sg = 0``)."""
    return np.where(values > 0, 1, -1).astype(np.int8)


def winning_moves(g: GameGraph, values: IntArray) -> IntArray:
    """For each N-position its first successor of value 0 (a move to a P-position), else -1."""
    ptr, idx = g.succ_ptr.tolist(), g.succ_idx.tolist()
    vals = values.tolist()
    move = [-1] * g.n
    for x in range(g.n):
        if vals[x] != 0:
            move[x] = next((y for y in idx[ptr[x] : ptr[x + 1]] if vals[y] == 0), -1)
    return np.array(move, dtype=np.int64)


@solver("grundy-mex", [Semantics.IMPARTIAL], order=10)
def grundy_solver(case: Case, options: Options) -> SolverResult:
    """Registered solver (view GRUNDY); ``NotApplicable`` if the graph has a cycle."""
    g = require_reference(case, options, Semantics.IMPARTIAL, linear=True)
    values, seconds = timed_unless(lambda: grundy_values(g), CycleError, NEEDS_ACYCLIC)
    work = {"nodes": g.n, "edges_scanned": g.m}
    return grundy_result("grundy-mex", values, seconds, winning_moves(g, values), work)
