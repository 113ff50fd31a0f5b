"""Kars' score of a root by memoized DFS with dependency sets (Kars 1990, Alg. 7.2).

    s r     = pi_1 (c [] r)
    c l p   = if p in l                 -> (0, {p})
              elif (memoed p) subset l  -> getmemo p
              elif p in F               -> putmemo (p, t p, {})
              elif p in V_up/V_down     -> putmemo (p, mms, mmd \\ {p})
                   where mms = max/min of pi_1 over suc, mmd = union of pi_2 over suc,
                         suc = c (p : l) mapped over E p
              fi

``l`` is the current path without ``p``. A memoed value (v, d) is the score of ``p`` computed
while the nodes d, all on the path then, were cut to 0; Kars re-uses it whenever all of d are on
the current path again (Thm. 7.3). As the paper suggests for efficiency, path membership is a
mark per node (the same marks as Alg. 6.7) rather than a list search; ``memoed p`` is ``None``
(the paper's bottom) until ``p`` is first finished.

Counting: one *visit* is one call of ``c``: the root plus every edge followed, whatever the call
then does (return (0, {p}) on the path, hand back a memo, or evaluate). This is the same count as
``kars_dfs``, so the two are compared honestly on the ladder graph (``docs/ladder.md``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

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

__all__ = ["MEMO_VISIT_BUDGET", "MemoTable", "kars_memo", "kars_memo_all", "kars_memo_solver"]

INF = float("inf")
NO_DEPS: frozenset[int] = frozenset()

MEMO_VISIT_BUDGET = 1_000_000
"""Visits the registered solver may spend in all (about 5 s of pure Python: 5x10^6 made a
1,000-node cyclic graph of degree 3 take 27 s; its partial answer is judged on what it covers)."""
MEMO_ALL_ROOTS_LIMIT = 2_000
"""The registered solver takes every node as root only up to this many nodes (the dependency
sets make each visit cost up to O(n), so the visit budget alone does not bound the time)."""
MEMO_ROOT_LIMIT = 20_000
"""Above ``MEMO_ALL_ROOTS_LIMIT`` and up to this many nodes it scores the case's root only."""


@dataclass
class MemoTable:
    """The memo values kept in the nodes: ``putmemo`` writes, ``getmemo`` / ``memoed`` read.

    Mutable on purpose: a table may be shared by the searches from several roots, like a
    transposition table. Dictionaries, so that a fresh table per root costs nothing up front.
    """

    value: dict[int, float] = field(default_factory=dict)
    deps: dict[int, frozenset[int]] = field(default_factory=dict)
    """``memoed p``: the dependency set last entered for ``p``; absent for bottom."""


def kars_memo(
    g: GameGraph, root: int, *, memo: MemoTable | None = None, max_visits: int | None = None
) -> RootScore:
    """The score of ``root`` by Alg. 7.2, and the number of nodes visited (calls of ``c``).

    ``memo`` defaults to a fresh table (the paper's setting: one search). Raises
    ``VisitBudgetExceeded`` when more than ``max_visits`` visits would be needed.

    >>> g = GameGraph.from_successors({"a": ["b", "c"], "b": [], "c": ["d", "a"], "d": []},
    ...     semantics=Semantics.MINIMAX, owner={"a": 0, "c": 1}, value={"b": -1, "d": 2})
    >>> kars_memo(g, 2)
    RootScore(value=0.0, visits=5)
    """
    v = minimax_view(g)
    return _search(v, root, MemoTable() if memo is None else memo, max_visits, [False] * v.n)


def kars_memo_all(
    g: GameGraph, *, shared: bool = False, max_visits: int | None = None
) -> RootScores:
    """Every node as root in turn (increasing ids), within a total visit budget.

    ``shared=False`` gives every root a fresh memo table (each search exactly as in the paper);
    ``shared=True`` keeps one table across the searches (memos with an empty dependency set
    are then plain scores that later roots reuse).
    """
    v = minimax_view(g)
    table = MemoTable()
    on_path = [False] * v.n  # all False again after every finished search
    return score_roots(
        v.n,
        list(range(v.n)),
        lambda r, b: _search(v, r, table if shared else MemoTable(), b, on_path),
        max_visits,
    )


def _search(
    v: MinimaxView, root: int, memo: MemoTable, budget: int | None, on_path: list[bool]
) -> RootScore:
    ptr, idx, is_max, is_leaf, t = v.ptr, v.idx, v.is_max, v.is_leaf, v.t
    memo_val, memo_deps = memo.value, memo.deps
    limit = sys.maxsize if budget is None else budget
    # on_path: the list l, as marks (the caller's all-False list, restored by the search)
    # The current path as parallel stacks: node, next edge, best value so far, union of deps.
    path: list[int] = []
    cursor: list[int] = []
    best: list[float] = []
    deps: list[frozenset[int]] = []
    visits = 0
    q = root  # the node whose call c l q is due
    while True:
        # ---- the call c l q (l = path)
        visits += 1
        if visits > limit:
            raise VisitBudgetExceeded(root, limit)
        d = memo_deps.get(q)
        returned = True  # False when the call descends into q's successors
        if on_path[q]:  # q in l
            val, dep = 0.0, frozenset((q,))
        elif d is not None and all(on_path[x] for x in d):  # memoed q is a subset of l
            val, dep = memo_val[q], d
        elif is_leaf[q]:  # putmemo (q, t q, {})
            val, dep = t[q], NO_DEPS
            memo_val[q], memo_deps[q] = val, dep
        else:  # evaluate suc = c (q : l) over E q
            on_path[q] = True
            path.append(q)
            cursor.append(ptr[q])
            best.append(-INF if is_max[q] else INF)
            deps.append(NO_DEPS)
            returned = False
        # ---- hand results up the path until some frame has an edge left to follow
        while True:
            if returned:
                if not path:
                    return RootScore(val, visits)
                best[-1] = max(best[-1], val) if is_max[path[-1]] else min(best[-1], val)
                deps[-1] = deps[-1] | dep
            p = path[-1]
            pos = cursor[-1]
            if pos < ptr[p + 1]:
                cursor[-1] = pos + 1
                q = idx[pos]
                break
            # E p done: putmemo (p, mms, mmd minus {p}) and return it to the caller
            path.pop()
            cursor.pop()
            on_path[p] = False
            val, dep = best.pop(), deps.pop() - {p}
            memo_val[p], memo_deps[p] = val, dep
            returned = True


@solver("kars-memo", [Semantics.MINIMAX], order=30)
def kars_memo_solver(case: Case, options: Options) -> SolverResult:
    """Registered wrapper: every node as root, each search with its own memo table, within
    ``MEMO_VISIT_BUDGET`` visits in all (roots beyond it are left uncovered)."""
    g = require_reference(case, options, Semantics.MINIMAX)
    r, seconds = search_roots(
        g,
        case.root if g.n <= MEMO_ROOT_LIMIT else None,
        every_root=g.n <= MEMO_ALL_ROOTS_LIMIT,
        search=lambda x, b: kars_memo(g, x, max_visits=b),
        search_all=lambda b: kars_memo_all(g, max_visits=b),
        budget=MEMO_VISIT_BUDGET,
        too_big=f"memoized search of every root: {g.n} nodes > {MEMO_ALL_ROOTS_LIMIT}"
        + ("" if case.root is None else f", of the root: > {MEMO_ROOT_LIMIT}"),
    )
    return r.solver_result("kars-memo", seconds)
