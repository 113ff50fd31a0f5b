"""Check 6: strategy certificates, in Z3 and in the plain-Python checker.

The optimal moves a solver reports (``SolverResult.move``) are restricted into the rule system
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

import numpy as np

from verifier import certificates
from verifier.errors import NotApplicable
from verifier.model.graph import IntArray
from verifier.model.results import CheckResult, Verdict
from verifier.model.semantics import MAX, MIN, Semantics
from verifier.registry import CheckContext, Options, check
from verifier.smt.cnf import Cnf, SatStatus, submit
from verifier.smt.common import Answer, answers, node_witness, result
from verifier.smt.encode import closure_cnf, prefixpoint_cnf
from verifier.smt.equations import VIEW_OF
from verifier.smt.fixpoints import BoolSystem
from verifier.smt.rules import derivation_system, region_system
from verifier.smt.system import OrderSystem

__all__ = ["check_strategies", "strategy_certificate"]

NAME = "smt-strategy"

Query = tuple[str, Cnf, SatStatus, np.ndarray | None]
"""(what it proves, formula, status that confirms, nodes that must be in the model's set)."""


def _win_query(what: str, rules: BoolSystem, move: IntArray, must: np.ndarray) -> Query:
    return (what, prefixpoint_cnf(rules.restrict(move), must=must), SatStatus.UNSAT, must)


def _queries(sys: OrderSystem, ans: Answer, idx: IntArray) -> list[Query]:
    g = sys.graph
    assert ans.move is not None
    mv = np.asarray(ans.move, dtype=np.int64)
    out: list[Query] = []
    if g.semantics is Semantics.NORMAL:
        lab = idx - 1
        rules = derivation_system(g)
        move2 = np.full(2 * g.n, -1, dtype=np.int64)
        won = (lab == 1) & (mv >= 0)
        move2[0::2][won] = 2 * mv[won] + 1
        must = np.zeros(2 * g.n, dtype=np.bool_)
        must[0::2], must[1::2] = lab == 1, lab == -1
        out.append(_win_query("following the moves the winner wins", rules, move2, must))
    elif g.semantics is Semantics.REACHABILITY:
        w = idx == 1
        rules = region_system(g)
        m0 = np.where(w & (g.owner != MIN), mv, -1)
        out.append(_win_query("player 0's moves reach the targets", rules, m0, w))
        m1 = np.where(~w & (g.owner == MIN), mv, -1)
        stay = closure_cnf(rules.dual().restrict(m1), ~w)
        out.append(("player 1's moves stay outside W", stay, SatStatus.SAT, None))
    else:
        z = sys.zero
        for k in range(1, sys.top + 1):
            b = BoolSystem.threshold(sys, k)
            if sys.levels[k] > 0 and (idx >= k).any():
                mmax = np.where(g.owner == MAX, mv, -1)
                out.append(_win_query(f"Max forces >= {sys.levels[k]:g}", b, mmax, idx >= k))
            if sys.levels[k - 1] < 0 and (idx < k).any():
                mmin = np.where(g.owner == MIN, mv, -1)
                out.append(
                    _win_query(f"Min forces <= {sys.levels[k - 1]:g}", b.dual(), mmin, idx < k)
                )
        if z > 0:  # Max's draw strategy: the value never drops below 0
            b = BoolSystem.threshold(sys, z)
            mmax = np.where(g.owner == MAX, mv, -1)
            out.append(
                (
                    "Max keeps the value >= 0",
                    closure_cnf(b.restrict(mmax), idx >= z),
                    SatStatus.SAT,
                    None,
                )
            )
        if z < sys.top:  # Min's: the value never rises above 0
            b = BoolSystem.threshold(sys, z + 1).dual()
            mmin = np.where(g.owner == MIN, mv, -1)
            out.append(
                (
                    "Min keeps the value <= 0",
                    closure_cnf(b.restrict(mmin), idx <= z),
                    SatStatus.SAT,
                    None,
                )
            )
    return out


def _plain(sys: OrderSystem, ans: Answer, idx: IntArray) -> certificates.Violation | None:
    g = sys.graph
    assert ans.move is not None
    mv = ans.move.tolist()
    if g.semantics is Semantics.MINIMAX:
        return certificates.check_strategy_minimax(g, sys.to_values(idx).tolist(), mv)
    if ans.remoteness is None:
        return None
    rk = ans.remoteness.tolist()
    if g.semantics is Semantics.NORMAL:
        return certificates.check_strategy_normal(g, (idx - 1).tolist(), rk, mv)
    return certificates.check_strategy_region(g, (idx == 1).astype(int).tolist(), rk, mv)


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
    idx, bad = sys.to_index(ans.values)
    if ans.move is None or not ans.covered.all() or bad.any():
        return result(NAME, Verdict.UNKNOWN, f"{who}: no complete answer with moves", t0)
    mv = np.asarray(ans.move, dtype=np.int64)

    def refuted(i: int, why: str) -> CheckResult:
        return result(
            NAME,
            Verdict.REFUTED,
            f"{who}: {why} at {g.name(i)!r}",
            t0,
            node_witness(
                g, i, why, move=int(mv[i]), move_to=g.name(int(mv[i])) if mv[i] >= 0 else None
            ),
            solvers=list(ans.solvers),
        )

    i = _bad_move(sys, mv)
    if i is not None:
        return refuted(i, "the move is not a move of the node")
    proved: list[str] = []
    # independent queries: all handed to Z3 at once (two run at a time); the plain checker
    # runs meanwhile; answers are read in order, so the outcome is the sequential one
    asked = [
        (what, submit(cnf, options, want_model=must is not None), ok, must)
        for what, cnf, ok, must in _queries(sys, ans, idx)
    ]
    plain = _plain(sys, ans, idx)
    for k, (what, pending, ok, must) in enumerate(asked):
        out = pending.result()
        if out.status is SatStatus.UNKNOWN or out.status is not ok:
            for _, later, _, _ in asked[k + 1 :]:
                later.cancel()
        if out.status is SatStatus.UNKNOWN:
            return result(
                NAME, Verdict.UNKNOWN, f"{who}: Z3 unknown on {what!r}", t0, reason=out.reason
            )
        if out.status is not ok:
            node = _culprit(sys, must, out.model, plain)
            return refuted(node, f"Z3 refutes: {what}")
        proved.append(what)
    if plain is not None:
        return refuted(plain.id, f"certificate: {plain.reason}")
    note = (
        ""
        if ans.remoteness is not None or g.semantics is Semantics.MINIMAX
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


@check(NAME, [Semantics.MINIMAX, Semantics.NORMAL, Semantics.REACHABILITY], order=50)
def check_strategies(ctx: CheckContext) -> list[CheckResult]:
    """Strategy certificates for every distinct answer that reports moves."""
    g = ctx.case.graph
    found = [a for a in answers(ctx, VIEW_OF[g.semantics]) if a.move is not None]
    if not found:
        raise NotApplicable("no solver reported moves")
    sys = OrderSystem.for_graph(g)
    return [strategy_certificate(sys, a, ctx.options) for a in found]
