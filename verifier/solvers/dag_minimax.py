"""DFS minimax on a DAG (the Paul and Carole notes, "Game Analysis", extra material to DFS).

Paul (Max) and Carole (Min) move until an end position v is reached; Carole then pays Paul
VALUE[v]. DFS-VISIT colours a node grey when it is discovered and black when all its successors
are finished; at blackening every successor is already black, so VALUE[v] is the max (Paul) or
min (Carole) of the successors' values. Each edge is examined once: Theta(V + E).

The DFS is iterative (an explicit stack of (node, next edge) pairs), so a long path does not hit
Python's recursion limit. Meeting a grey successor means a cycle: the grey nodes on the stack from
that successor up to the current node are one, and ``CycleError`` names them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from verifier.errors import CycleError
from verifier.model import Case, GameGraph, IntArray, Semantics, SolverResult
from verifier.model.results import View
from verifier.registry import Options, solver
from verifier.solvers._common import minimax_view, require_reference, timed_unless

__all__ = ["DagMinimaxResult", "dag_minimax", "dag_minimax_solver"]

WHITE, GREY, BLACK = 0, 1, 2


@dataclass(frozen=True, eq=False)
class DagMinimaxResult:
    """Minimax values of an acyclic ``minimax`` graph."""

    value: NDArray[np.float64]
    """VALUE[v] (NaN on nodes the search did not reach, when a root was given)."""
    move: IntArray
    """A successor attaining VALUE[v] (ties: smallest id); -1 on end positions and unreached
    nodes."""
    visited: NDArray[np.bool_]
    """Nodes the DFS blackened."""
    edges_scanned: int


def dag_minimax(g: GameGraph, root: int | None = None) -> DagMinimaxResult:
    """Values of every node (or of the nodes reachable from ``root``) of an acyclic graph.

    Raises ``CycleError`` naming the nodes of one cycle if the DFS meets one.

    >>> g = GameGraph.from_successors({"s": ["u", "w"], "u": ["w"], "w": []},
    ...     semantics=Semantics.MINIMAX, owner={"s": 0, "u": 1}, value={"w": 3.0})
    >>> r = dag_minimax(g)
    >>> r.value.tolist(), r.move.tolist()
    ([3.0, 3.0, 3.0], [1, 2, -1])
    """
    v = minimax_view(g)
    ptr, idx = v.ptr, v.idx
    colour = [WHITE] * v.n
    value = [float("nan")] * v.n
    move = [-1] * v.n
    scanned = 0
    for s in range(v.n) if root is None else (root,):
        if colour[s] != WHITE:
            continue
        colour[s] = GREY  # DFS-VISIT(G, s)
        path = [s]
        cursor = [ptr[s]]
        while path:
            x = path[-1]
            c = cursor[-1]
            if c < ptr[x + 1]:
                cursor[-1] = c + 1
                y = idx[c]
                scanned += 1
                if colour[y] == WHITE:
                    colour[y] = GREY
                    path.append(y)
                    cursor.append(ptr[y])
                elif colour[y] == GREY:  # a back edge: path[i:] is a cycle through y
                    cyc = path[path.index(y) :]
                    raise CycleError([g.name(i) for i in cyc])
                continue
            colour[x] = BLACK  # every successor is black: VALUE[x] is determined
            path.pop()
            cursor.pop()
            if v.is_leaf[x]:
                value[x] = v.t[x]
                continue
            best = -1
            for y in idx[ptr[x] : ptr[x + 1]]:  # increasing ids: strict comparison keeps first
                if best < 0 or (value[y] > value[best] if v.is_max[x] else value[y] < value[best]):
                    best = y
            value[x] = value[best]
            move[x] = best
    return DagMinimaxResult(
        value=np.array(value, dtype=np.float64),
        move=np.array(move, dtype=np.int64),
        visited=np.array([c == BLACK for c in colour], dtype=np.bool_),
        edges_scanned=scanned,
    )


@solver("dag-minimax", [Semantics.MINIMAX], order=50)
def dag_minimax_solver(case: Case, options: Options) -> SolverResult:
    """Registered wrapper: view SCORE with the chosen moves; not applicable on a cycle."""
    g = require_reference(case, options, Semantics.MINIMAX, linear=True)
    r, seconds = timed_unless(lambda: dag_minimax(g), CycleError)
    return SolverResult(
        solver="dag-minimax",
        view=View.SCORE,
        values=r.value,
        seconds=seconds,
        move=r.move,
        work={"edges_scanned": r.edges_scanned, "nodes_visited": int(r.visited.sum())},
    )
