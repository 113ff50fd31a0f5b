"""Kars' score of a root by depth-first search with back links scored 0 (Kars 1990, Alg. 6.7).

    s r = if marked r -> 0
          elif r in F -> t r
          elif r in V_up/V_down -> mark r; ss := max/min of s over E r; unmark r; ss
          fi

(the scan lost the Max line; read it with (MM) of Sec. 3). By the cutoff theorem (Thm. 6.6) a node
that is already on the current path may be scored 0. Nothing is remembered between branches, so
the search walks every simple path from the root: time O(|W|), W the nodes of the unravelled
graph (Thm. 6.8), exponential in general (Ex. 7.4).

Counting: one *visit* is one call of ``s``, i.e. the root plus every edge followed, whatever the
call then does (return 0 on a marked node, return t on a leaf, or recurse). This is the count
compared with Kars' formula for the ladder graph in ``docs/ladder.md``.

The search is iterative: an explicit stack of frames (node, next edge, best so far); ``mark`` is
a flag per node set when its frame is pushed and cleared when it is popped.
"""

from __future__ import annotations

import sys

from verifier.model import Case, GameGraph, Semantics, SolverResult
from verifier.registry import Options, solver
from verifier.solvers._common import (
    MinimaxView,
    RootScore,
    RootScores,
    VisitBudgetExceeded,
    minimax_view,
    require_reference,
    score_roots,
    search_roots,
)

__all__ = ["DFS_VISIT_BUDGET", "kars_dfs", "kars_dfs_all", "kars_dfs_solver"]

INF = float("inf")

DFS_VISIT_BUDGET = 2_000_000
"""Visits the registered solver may spend in all (about two seconds of pure Python)."""


def kars_dfs(g: GameGraph, root: int, *, max_visits: int | None = None) -> RootScore:
    """The score of ``root`` by Alg. 6.7, and the number of nodes visited.

    Raises ``VisitBudgetExceeded`` when more than ``max_visits`` visits would be needed.

    >>> g = GameGraph.from_successors({"a": ["b", "c"], "b": [], "c": ["d", "a"], "d": []},
    ...     semantics=Semantics.MINIMAX, owner={"a": 0, "c": 1}, value={"b": -1, "d": 2})
    >>> kars_dfs(g, 0)
    RootScore(value=0.0, visits=5)
    """
    v = minimax_view(g)
    return _search(v, root, max_visits, [False] * v.n)


def kars_dfs_all(g: GameGraph, *, max_visits: int | None = None) -> RootScores:
    """Every node as root in turn (ids in increasing order) within a total visit budget."""
    v = minimax_view(g)
    marked = [False] * v.n  # all False again after every finished search
    return score_roots(v.n, list(range(v.n)), lambda r, b: _search(v, r, b, marked), max_visits)


def _search(v: MinimaxView, root: int, budget: int | None, marked: list[bool]) -> RootScore:
    ptr, idx, is_max, is_leaf, t = v.ptr, v.idx, v.is_max, v.is_leaf, v.t
    limit = sys.maxsize if budget is None else budget
    visits = 1  # the call s r
    if visits > limit:
        raise VisitBudgetExceeded(root, limit)
    if is_leaf[root]:
        return RootScore(t[root], visits)
    marked[root] = True
    # The current path as parallel stacks: node, position of its next edge, best value so far.
    path, cursor, best = [root], [ptr[root]], [-INF if is_max[root] else INF]
    while True:
        p = path[-1]
        pos = cursor[-1]
        if pos < ptr[p + 1]:
            cursor[-1] = pos + 1
            q = idx[pos]
            visits += 1  # the call s q
            if visits > limit:
                raise VisitBudgetExceeded(root, limit)
            if marked[q]:  # a back link: q is on the current path
                val = 0.0
            elif is_leaf[q]:
                val = t[q]
            else:  # mark q; evaluate its successors
                marked[q] = True
                path.append(q)
                cursor.append(ptr[q])
                best.append(-INF if is_max[q] else INF)
                continue
        else:  # all of E p done: unmark p and return ss
            path.pop()
            cursor.pop()
            val = best.pop()
            marked[p] = False
            if not path:
                return RootScore(val, visits)
        best[-1] = max(best[-1], val) if is_max[path[-1]] else min(best[-1], val)


@solver("kars-dfs", [Semantics.MINIMAX], order=40)
def kars_dfs_solver(case: Case, options: Options) -> SolverResult:
    """Registered wrapper: every node as root when n <= ``options.exponential_limit``, else the
    case's root alone; nodes whose search would exceed the visit budget are left uncovered."""
    g = require_reference(case, options, Semantics.MINIMAX)
    r, seconds = search_roots(
        g,
        case.root,
        every_root=g.n <= options.exponential_limit,
        search=lambda x, b: kars_dfs(g, x, max_visits=b),
        search_all=lambda b: kars_dfs_all(g, max_visits=b),
        budget=DFS_VISIT_BUDGET,
        too_big=f"exponential search: {g.n} nodes > exponential_limit "
        f"{options.exponential_limit} and the case has no root",
    )
    return r.solver_result("kars-dfs", seconds)
