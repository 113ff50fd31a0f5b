"""Check 6: strategy certificates, in Z3 and in the plain-Python checker.

The optimal moves a solver reports (its ``move`` column) are restricted into the rule system
(``BoolSystem.restrict``: the winner keeps only its chosen move) and Z3 proves, without ranks:

- the winner wins by following them: every set closed under the restricted rules contains the
  winning nodes (so the winner's rank strictly decreases along its moves, and the loser, whose
  every move is kept, cannot escape);
- a draw (or trap) strategy keeps play inside its safe set: for ``minimax`` Max never lets the
  value drop below 0 and Min never lets it rise above 0; for ``reachability`` player 1 stays
  outside W.

The linear checker of ``verifier.certificates`` checks the same certificate node by node (ranks
strictly decrease along the winner's moves), so it can be verified without Z3.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from verifier import certificates
from verifier.certificate_arrays import checker
from verifier.checks.common import about
from verifier.equations.fixpoints import BoolSystem
from verifier.equations.rules import derivation_system, labelled_nodes, region_system
from verifier.equations.system import OrderSystem
from verifier.errors import NotApplicable
from verifier.model.columns import MOVE
from verifier.model.describe import Description, describe
from verifier.model.graph import IntArray
from verifier.model.results import CheckResult, Verdict, View
from verifier.model.semantics import MAX, MIN, PLAYER0, PLAYER1, Semantics
from verifier.model.views import PerView
from verifier.registry import CheckContext, Options, check
from verifier.smt.cnf import Cnf, SatStatus, solve, submit
from verifier.smt.common import Answer, answers, node_witness, result
from verifier.smt.encode import closure_cnf, prefixpoint_cnf

__all__ = ["QUERIES", "RANKED", "RANKLESS", "check_strategies", "strategy_certificate"]

NAME = "smt-strategy"


class Query(NamedTuple):
    """One Z3 question of a strategy certificate."""

    what: str
    """What it proves."""
    cnf: Cnf
    """The formula."""
    ok: SatStatus
    """The status that confirms."""
    must: np.ndarray | None
    """The nodes that must be in the model's set (naming a culprit when refuted)."""
    whole: Callable[[], Cnf] | None = None
    """When ``cnf`` is a part of the formula (``prefixpoint_cnf``'s ``within``): the whole one,
    asked before anything is refuted."""


def _win_query(what: str, rules: BoolSystem, move: IntArray, must: np.ndarray) -> Query:
    """Z3 refutes a set closed under the rules restricted to ``move`` that misses ``must``:
    first over the rules of ``must`` alone (enough when the answer is right), then whole."""
    kept = rules.restrict(move)
    return Query(
        what,
        prefixpoint_cnf(kept, must=must, within=must),
        SatStatus.UNSAT,
        must,
        lambda: prefixpoint_cnf(kept, must=must),
    )


QUERIES: PerView[Callable[[Description, OrderSystem, IntArray, IntArray], list[Query]]] = PerView(
    "strategy queries"
)
"""The Z3 queries of a strategy certificate, per view (the algorithm of each semantics)."""


@QUERIES.register(View.LABEL)
def _label_queries(d: Description, sys: OrderSystem, idx: IntArray, mv: IntArray) -> list[Query]:
    """``normal``: following its moves the mover wins from its won nodes: the won nodes stay
    derivable when the mover keeps only its move there, the lost ones with all their moves."""
    g = sys.graph
    vals = sys.to_values(idx)
    rules = derivation_system(g)
    move2 = np.full(2 * g.n, -1, dtype=np.int64)
    chosen = d.wins(vals) & (mv >= 0)
    move2[0::2][chosen] = 2 * mv[chosen] + 1
    must = labelled_nodes(vals)
    return [_win_query("following the moves the winner wins", rules, move2, must)]


@QUERIES.register(View.REGION)
def _region_queries(d: Description, sys: OrderSystem, idx: IntArray, mv: IntArray) -> list[Query]:
    """``reachability``: player 0's moves reach the targets from W, player 1's keep play
    outside W."""
    g = sys.graph
    w = d.wins(sys.to_values(idx))
    rules = region_system(g)
    m0 = np.where(w & d.to_move(g.owner, PLAYER0), mv, -1)
    m1 = np.where(~w & d.to_move(g.owner, PLAYER1), mv, -1)
    stay = closure_cnf(rules.dual().restrict(m1), ~w)
    return [
        _win_query(f"{d.owner_name(PLAYER0)}'s moves reach the targets", rules, m0, w),
        Query(f"{d.owner_name(PLAYER1)}'s moves stay outside W", stay, SatStatus.SAT, None),
    ]


@QUERIES.register(View.SCORE)
def _score_queries(d: Description, sys: OrderSystem, idx: IntArray, mv: IntArray) -> list[Query]:
    """``minimax``: each threshold a side forces it forces by its moves; each side keeps the
    draw where it holds one."""
    g = sys.graph
    mmax = np.where(d.to_move(g.owner, MAX), mv, -1)
    mmin = np.where(d.to_move(g.owner, MIN), mv, -1)
    return [
        *_threshold_queries(d, sys, idx, mmax, mmin),
        *_draw_queries(d, sys, idx, mmax, mmin),
    ]


def _threshold_queries(
    d: Description, sys: OrderSystem, idx: IntArray, mmax: IntArray, mmin: IntArray
) -> list[Query]:
    """Per threshold k: Max's moves force >= levels[k] where the value is, Min's force
    <= levels[k - 1] where the value is."""
    out: list[Query] = []
    top, bottom = d.owner_name(MAX), d.owner_name(MIN)
    for k in range(1, sys.top + 1):
        b = BoolSystem.threshold(sys, k)
        if sys.levels[k] > 0 and (idx >= k).any():
            out.append(_win_query(f"{top} forces >= {sys.levels[k]:g}", b, mmax, idx >= k))
        if sys.levels[k - 1] < 0 and (idx < k).any():
            what = f"{bottom} forces <= {sys.levels[k - 1]:g}"
            out.append(_win_query(what, b.dual(), mmin, idx < k))
    return out


def _draw_queries(
    d: Description, sys: OrderSystem, idx: IntArray, mmax: IntArray, mmin: IntArray
) -> list[Query]:
    """The draw strategies: Max's moves never let the value drop below 0, Min's never let it
    rise above 0."""
    out: list[Query] = []
    z = sys.zero
    if z > 0:
        b = BoolSystem.threshold(sys, z)
        keep = closure_cnf(b.restrict(mmax), idx >= z)
        out.append(Query(f"{d.owner_name(MAX)} keeps the value >= 0", keep, SatStatus.SAT, None))
    if z < sys.top:
        b = BoolSystem.threshold(sys, z + 1).dual()
        keep = closure_cnf(b.restrict(mmin), idx <= z)
        out.append(Query(f"{d.owner_name(MIN)} keeps the value <= 0", keep, SatStatus.SAT, None))
    return out


RANKLESS: PerView[str] = PerView("linear strategy checker without ranks")
"""The linear strategy checkers that need no ranks (graph, values, moves), per view."""
RANKLESS.register(View.SCORE)("iter_strategy_minimax")
RANKED: PerView[str] = PerView("linear strategy checker with ranks")
"""The linear strategy checkers that read the ranks (graph, values, ranks, moves), per view."""
RANKED.register(View.LABEL)("iter_strategy_normal")
RANKED.register(View.REGION)("iter_strategy_region")


def _plain(
    sys: OrderSystem, ans: Answer, idx: IntArray, view: View
) -> certificates.Violation | None:
    """The linear certificate checker on the answer's moves (``None``: no violation, or no
    ranks for a checker that needs them); plain Python on small graphs, arrays on large ones."""
    g = sys.graph
    mv = ans.moves
    assert mv is not None
    vals = sys.to_values(idx)
    linear = checker(g.n)
    if view in RANKLESS:
        return certificates.first(getattr(linear, RANKLESS[view])(g, vals, mv))
    ranks = ans.ranks
    if ranks is None:
        return None
    return certificates.first(getattr(linear, RANKED[view])(g, vals.astype(np.int64), ranks, mv))


def _bad_move(sys: OrderSystem, mv: IntArray) -> int | None:
    """The first node whose reported move is not one of its moves (``None`` if all are)."""
    g = sys.graph
    x = np.flatnonzero(mv >= 0)
    if len(x) == 0:
        return None
    # edges are sorted by (source, target): look each move up among them
    n = max(g.n, 1)
    edges = g.edge_src * n + g.succ_idx
    want = x * n + mv[x]
    pos = np.minimum(np.searchsorted(edges, want), max(len(edges) - 1, 0))
    ok = edges[pos] == want if len(edges) else np.zeros(len(x), dtype=np.bool_)
    bad = x[~ok | (mv[x] >= g.n)]
    return int(bad[0]) if len(bad) else None


def strategy_certificate(sys: OrderSystem, ans: Answer, options: Options) -> CheckResult:
    """Z3 and the linear checker confirm the answer's moves are a winning / drawing strategy."""
    t0 = time.perf_counter()
    g = sys.graph
    who = ans.label
    d = describe(g.semantics)
    idx, bad = sys.to_index(ans.values)
    mv = ans.moves
    if mv is None or not ans.covered.all() or bad.any():
        return result(NAME, Verdict.UNKNOWN, f"{who}: no complete answer with moves", t0)

    def refuted(i: int, why: str) -> CheckResult:
        return result(
            NAME,
            Verdict.REFUTED,
            f"{who}: at {g.name(i)!r} {why}",
            t0,
            node_witness(g, i, why, move=g.name(int(mv[i])) if 0 <= mv[i] < g.n else None),
            solvers=list(ans.solvers),
        )

    i = _bad_move(sys, mv)
    if i is not None:
        return refuted(i, "the move is not a move of the position")
    proved: list[str] = []
    # independent queries: all handed to Z3 at once (two run at a time); the plain checker
    # runs meanwhile; answers are read in order, so the outcome is the sequential one
    queries = QUERIES[d.view](d, sys, idx, mv)
    asked = [
        (q.what, submit(q.cnf, options, want_model=q.must is not None), q.ok, q.must)
        for q in queries
    ]
    plain = _plain(sys, ans, idx, d.view)
    for k, (what, pending, ok, must) in enumerate(asked):
        out = pending.result()
        whole = queries[k].whole
        if out.status is not ok and out.status is not SatStatus.UNKNOWN and whole is not None:
            out = solve(whole(), options, want_model=must is not None)  # the part proves nothing
        if out.status is SatStatus.UNKNOWN or out.status is not ok:
            for _, later, _, _ in asked[k + 1 :]:
                later.cancel()
        if out.status is SatStatus.UNKNOWN:
            return result(
                NAME, Verdict.UNKNOWN, f"{who}: Z3 unknown on {what!r}", t0, reason=out.reason
            )
        if out.status is not ok:
            node = _culprit(sys, must, out.model, plain)
            return refuted(node, f"the moves fail: Z3 shows it is not so that {what}")
        proved.append(what)
    if plain is not None:
        return refuted(plain.id, f"the moves fail the certificate: {plain.reason}")
    note = (
        ""
        if ans.ranks is not None or d.view in RANKLESS
        else (" (no ranks given: rank decrease proved by Z3 only)")
    )
    return result(
        NAME,
        Verdict.CONFIRMED,
        (f"{who}: Z3 proves " + "; ".join(proved) if proved else f"{who}: no node to force")
        + "; linear certificate checked"
        + note,
        t0,
        solvers=list(ans.solvers),
        proved=proved,
    )


def _culprit(
    sys: OrderSystem,
    must: np.ndarray | None,
    model: np.ndarray | None,
    plain: certificates.Violation | None,
) -> int:
    """A node to blame: a node Z3's counter-model leaves out, mapped to a graph node, preferably
    the one whose move is at fault (the plain checker's node)."""
    if plain is not None:
        return plain.id
    if must is not None and model is not None:
        closed = model[np.arange(len(must)) + 2]
        miss = np.flatnonzero(must & ~closed)
        if len(miss):
            node = int(miss[0])
            return node // 2 if len(must) == 2 * sys.n else node
    return 0  # pragma: no cover - Z3 refuted a query the certificate accepts


@check(
    NAME,
    [Semantics.MINIMAX, Semantics.NORMAL, Semantics.REACHABILITY],
    order=50,
    proves={MOVE},
)
def check_strategies(ctx: CheckContext) -> list[CheckResult]:
    """Strategy certificates for every distinct answer that reports moves."""
    g = ctx.case.graph
    found = [a for a in answers(ctx, describe(g.semantics).view) if MOVE in a.columns]
    if not found:
        raise NotApplicable("no solver reported moves")
    sys = OrderSystem.for_graph(g)
    return [about(strategy_certificate(sys, a, ctx.options), *a.solvers) for a in found]
