"""Every Z3 query of the checks in ``verifier/smt/``, tested on its own (issue 13, item 4b).

Several checks run a linear certificate checker beside Z3, so a vacuous Z3 query could hide
behind it. Here each query is built exactly as its check builds it (the formula builder of its
module) and handed to Z3 (``cnf.solve`` and ``cnf.submit``, through the Python API and through
Z3's executable), on a small hand-made graph: once where it must confirm, once where its status
must flip. The expected answers are worked out by hand in the comments.

The queries (what they prove; the status that confirms):

- pin (``Encoding.pinned``, ``common.pin_check``): an assignment satisfies the equations; SAT.
- extension (``equations.extension_query``): some solution extends a partial answer; SAT.
- closer (``kars.closer_query``): no solution is closer to the draw than Kars' score in a batch
  whose successors outside are above it; UNSAT.
- interval derivations (``derivation_cnf`` batches of ``uniqueness.intervals``): every solution
  lies in [lfp, gfp]; UNSAT.
- sources (``uniqueness._sources``): a free cyclic component has another solution; SAT = a source.
- levels (``uniqueness._solutions_by_level``): each clamp max(lfp, min(gfp, v)) is a solution; SAT.
- circular (``circular.circular_query``, for smt-won-lost and smt-uniqueness): another labelling
  of the unknown nodes satisfies the rules; SAT = a circular labelling (a finding).
- derivation (``derivation_cnf`` over ``derivation_system``): won/lost labels are derivable; UNSAT.
- region (``region.derivable_query``: W derivable, UNSAT; ``region.trap_query``: the complement
  of W is a trap, SAT); integer ranks (``ranks.ranked_derivable``: SAT;
  ``ranks.ranked_maximal``: UNSAT).
- strategy (``strategy.QUERIES``): the winner wins by its moves (label), player 0 reaches /
  player 1 stays out (region), Max / Min forces each threshold and Max / Min keep the draw
  (score); UNSAT for the "wins / reaches / forces" queries, SAT for the "stays / keeps" ones.
- mex (``mex.check_values``, ``count_solutions``, ``check_counter``): Z3's Python API directly.
- the proof cache (``common.pin_check``'s ``_PINNED`` / ``proven_equations``, ``remember`` /
  ``recall``, ``forget``, ``system_digest``): a fact is reused only for identical equations.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from smt_reference import case_of, figure1

from verifier.equations.fixpoints import BoolSystem, gfp, lfp
from verifier.equations.rules import derivation_system, labelled_nodes, region_system
from verifier.equations.system import OrderSystem
from verifier.model import MAX, MIN, GameGraph, Semantics, Verdict
from verifier.model.describe import describe
from verifier.model.results import View
from verifier.registry import Options
from verifier.smt import cnf as cnf_mod
from verifier.smt import common, uniqueness
from verifier.smt.circular import circular_query
from verifier.smt.cnf import Cnf, SatStatus, solve, submit
from verifier.smt.common import (
    pin_check,
    proven_equations,
    recall,
    remember,
    successors_of,
    system_digest,
)
from verifier.smt.encode import Encoding, derivation_cnf
from verifier.smt.equations import extension_query
from verifier.smt.kars import closer_query
from verifier.smt.mex import check_counter, check_values, count_solutions
from verifier.smt.ranks import ranked_derivable, ranked_maximal
from verifier.smt.region import derivable_query, trap_query
from verifier.smt.strategy import QUERIES
from verifier.smt.uniqueness import Intervals, intervals

OPTS = Options()
SAT, UNSAT = SatStatus.SAT, SatStatus.UNSAT


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    """Every test starts and ends without remembered proofs."""
    common.forget()
    yield
    common.forget()


@pytest.fixture(params=["api", "binary"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Z3 through its Python API, or through its executable (every formula, however small)."""
    if request.param == "binary":
        if cnf_mod.z3_binary() is None:
            pytest.skip("no z3 executable")
        monkeypatch.setattr(cnf_mod, "BINARY_MIN_CLAUSES", 0)
    monkeypatch.setattr(cnf_mod, "USE_BINARY", request.param == "binary")
    return str(request.param)


def ask(cnf: Cnf) -> SatStatus:
    """Z3's status on ``cnf``, the same by ``solve`` and by ``submit``."""
    now = solve(cnf, OPTS).status
    later = submit(cnf, OPTS).result().status
    assert now is later
    return now


def ids(g: GameGraph, *names: str) -> np.ndarray:
    """Node ids by name."""
    return np.array([g.id_of(x) for x in names], dtype=np.int64)


def mask(g: GameGraph, *names: str) -> np.ndarray:
    """The mask of the named nodes."""
    out = np.zeros(g.n, dtype=np.bool_)
    out[ids(g, *names)] = True
    return out


def levels_of(sys: OrderSystem, **values: float) -> np.ndarray:
    """Value indices of the named values (every node named)."""
    g = sys.graph
    out = np.full(g.n, -1, dtype=np.int64)
    for x, v in values.items():
        out[g.id_of(x)] = int(np.searchsorted(sys.levels, v))
    assert (out >= 0).all() and np.allclose(sys.levels[out], [values[x] for x in g.names])
    return out


# ---------------------------------------------------------------------------- graphs
def leaf_graph(edge: str = "u", u: float = 2, w: float = -1) -> GameGraph:
    """r (Max) -> ``edge``; u and w are leaves (same nodes, same order, for every variant)."""
    return GameGraph.from_successors(
        {"r": [edge], "u": [], "w": []},
        semantics=Semantics.MINIMAX,
        owner={"r": MAX},
        value={"u": u, "w": w},
    )


def region_graph() -> GameGraph:
    """x (player 0) -> t, y; y (player 1) -> y; t target. W = {x, t}: x moves to t, y stays."""
    return GameGraph.from_successors(
        {"x": ["t", "y"], "y": ["y"], "t": []},
        semantics=Semantics.REACHABILITY,
        owner={"x": 0, "y": 1, "t": 0},
        target=["t"],
    )


def normal(succ: dict[str, list[str]], value: dict[str, float]) -> GameGraph:
    """A ``normal`` graph (terminal labels in ``value``)."""
    return GameGraph.from_successors(succ, semantics=Semantics.NORMAL, value=value)


# ---------------------------------------------------------------------------- pin
def test_pin_query_confirms_a_solution_and_refutes_a_non_solution(engine: str) -> None:
    # Figure 1 (b = -1, d = 2): a = max(b, c), c = min(d, a): every a = c in {-1, 0, 2}
    sys = OrderSystem.minimax(figure1(-1, 2))
    everything = np.ones(sys.n, dtype=np.bool_)
    good = levels_of(sys, a=0, c=0, b=-1, d=2)
    bad = levels_of(sys, a=2, c=0, b=-1, d=2)  # a = max(-1, 0) = 0, not 2
    assert ask(Encoding.pinned(sys, everything, everything, good).cnf) is SAT
    assert ask(Encoding.pinned(sys, everything, everything, bad).cnf) is UNSAT
    assert pin_check(sys, good, OPTS, "test").status is SAT
    assert pin_check(sys, bad, OPTS, "test").status is UNSAT


def test_pin_query_asks_only_the_equations_of_eq(engine: str) -> None:
    # r = max(u) = 2 is claimed -1: r's equation fails, the leaves' hold
    sys = OrderSystem.minimax(leaf_graph())
    g = sys.graph
    idx = levels_of(sys, r=-1, u=2, w=-1)
    for eq, want in ((mask(g, "u", "w"), SAT), (mask(g, "r"), UNSAT)):
        var = eq | successors_of(g, eq)
        assert ask(Encoding.pinned(sys, eq, var, idx).cnf) is want
        assert pin_check(sys, idx, OPTS, "test", eq).status is want


@pytest.mark.parametrize("sem", [Semantics.NORMAL, Semantics.REACHABILITY])
def test_pin_query_negamax_and_region(engine: str, sem: Semantics) -> None:
    # x -> t; normal: t lost (-1), so x is won (+1); reachability: t target, so x is in W (1)
    g = GameGraph.from_successors(
        {"x": ["t"], "t": []},
        semantics=sem,
        owner={"x": 0, "t": 0} if sem is Semantics.REACHABILITY else None,
        value={"t": -1} if sem is Semantics.NORMAL else None,
        target=["t"] if sem is Semantics.REACHABILITY else (),
    )
    sys = OrderSystem.for_graph(g)
    t = sys.const[g.id_of("t")]
    top = sys.top
    assert pin_check(sys, np.array([top, t]), OPTS, "test").status is SAT
    assert pin_check(sys, np.array([top - 1, t]), OPTS, "test").status is UNSAT


# ---------------------------------------------------------------------------- extension
def test_extension_query_some_solution_extends_the_partial_answer(engine: str) -> None:
    # Figure 1 with b = 3, d = 2: a = max(3, c) >= 3, so a = 3 and c = min(2, 3) = 2: unique
    sys = OrderSystem.minimax(figure1(3, 2))
    g = sys.graph
    covered = mask(g, "a")
    assert ask(extension_query(sys, levels_of(sys, a=3, c=2, b=3, d=2), covered)) is SAT
    assert ask(extension_query(sys, levels_of(sys, a=2, c=2, b=3, d=2), covered)) is UNSAT


# ---------------------------------------------------------------------------- kars closer
def test_closer_query_kars_score_has_no_solution_closer_to_the_draw(engine: str) -> None:
    # Figure 1 (b = -1, d = 2): the solutions are a = c in {-1, 0, 2}; Kars' score a = c = 0
    # is the closest to the draw; a = c = 2 is a solution, but 0 is closer
    sys = OrderSystem.minimax(figure1(-1, 2))
    every = np.arange(sys.n)
    kars = levels_of(sys, a=0, c=0, b=-1, d=2)
    far = levels_of(sys, a=2, c=2, b=-1, d=2)
    assert ask(closer_query(sys, kars, every).cnf) is UNSAT
    assert ask(closer_query(sys, far, every).cnf) is SAT


def test_closer_query_reads_the_boundary_above_kars(engine: str) -> None:
    # p (Max) -> q; q (Max) -> q, d; d = 2. The batch {p}: its successor q is outside, proved
    # above Kars' score (q >= 2 when q's score is 2), so p = q >= 2 cannot come closer (unsat).
    # With q's score 0, q may be 0 and then p = 0 is closer than p's claimed 2 (sat).
    g = GameGraph.from_successors(
        {"p": ["q"], "q": ["q", "d"], "d": []},
        semantics=Semantics.MINIMAX,
        owner={"p": MAX, "q": MAX},
        value={"d": 2},
    )
    sys = OrderSystem.minimax(g)
    part = ids(g, "p")
    assert ask(closer_query(sys, levels_of(sys, p=2, q=2, d=2), part).cnf) is UNSAT
    assert ask(closer_query(sys, levels_of(sys, p=2, q=0, d=2), part).cnf) is SAT


# ---------------------------------------------------------------------------- intervals
def test_interval_derivations_confirm_lfp_and_gfp(engine: str) -> None:
    # Figure 1 (b = -1, d = 2): lfp a = c = -1, gfp a = c = 2, every solution in between
    sys = OrderSystem.minimax(figure1(-1, 2))
    iv = intervals(sys, OPTS)
    assert iv.verdict is Verdict.CONFIRMED
    assert recall("intervals", sys) is iv


@pytest.mark.parametrize("wrong", ["lfp", "gfp"])
def test_interval_derivations_refute_a_wrong_end(
    engine: str, wrong: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # claim lfp = gfp (a = c = 2: a solution, pinned fine, but a = max(-1, c) and
    # c = min(2, a) only reach 2 through each other: not derivable), or gfp = lfp (a = c = -1:
    # not derivable in the dual system): the derivation query finds a closed set missing it
    sys = OrderSystem.minimax(figure1(-1, 2))
    if wrong == "lfp":
        monkeypatch.setattr(uniqueness, "lfp", gfp)
    else:
        monkeypatch.setattr(uniqueness, "gfp", lfp)
    iv = intervals(sys, OPTS)
    assert iv.verdict is Verdict.REFUTED and "outside [lfp, gfp]" in iv.detail
    assert recall("intervals", sys) is None


def test_derivation_cnf_inside_a_batch(engine: str) -> None:
    # threshold "s >= 2" of Figure 1 (b = -1, d = 2): d is a true constant; a and c are in
    # gfp_k only through each other: the target {d} is derivable, {a, c, d} is not
    sys = OrderSystem.minimax(figure1(-1, 2))
    g = sys.graph
    b = BoolSystem.threshold(sys, 2)
    assert ask(derivation_cnf(b, mask(g, "d"))) is UNSAT
    assert ask(derivation_cnf(b, mask(g, "a", "c", "d"))) is SAT
    # a batch {a, c} whose target successor d is outside (proved by an earlier batch)
    assert ask(derivation_cnf(b, mask(g, "a", "c", "d"), mask(g, "a", "c"))) is SAT


# ---------------------------------------------------------------------------- sources, levels
def _figure1_intervals(b: float, d: float, hi: dict[str, float] | None = None) -> Intervals:
    """Intervals of Figure 1 by propagation (``hi`` overrides gfp: a wrong claim)."""
    sys = OrderSystem.minimax(figure1(b, d))
    top = gfp(sys) if hi is None else levels_of(sys, **hi)
    return Intervals(sys, lfp(sys), top, Verdict.CONFIRMED, "by hand", 0)


def test_sources_query_finds_the_free_component(engine: str) -> None:
    # Figure 1 (b = -1, d = 2): the cycle a <-> c is free (a = c anywhere in [-1, 2])
    iv = _figure1_intervals(-1, 2)
    found, witness, asked, _ = uniqueness._sources(iv, OPTS)
    g = iv.sys.graph
    assert asked == 1 and len(found) == 1 and witness is not None
    assert set(found[0].component) == set(ids(g, "a", "c").tolist())
    assert len(iv.sys.violations(witness)) == 0


def test_sources_query_finds_no_freedom_where_there_is_none(engine: str) -> None:
    # Figure 1 (b = 3, d = 2) is unique (a = 3, c = 2); claim c free in [2, 3]: Z3 finds no
    # solution where c differs (c = min(2, a) = 2)
    iv = _figure1_intervals(3, 2, hi=dict(a=3, c=3, b=3, d=2))
    found, witness, asked, _ = uniqueness._sources(iv, OPTS)
    assert asked == 1 and found == [] and witness is None


def test_levels_query_confirms_every_clamp(engine: str) -> None:
    # Figure 1 (b = -1, d = 2): a = c = v is a solution for v = -1, 0, 2
    by_level = uniqueness._solutions_by_level(_figure1_intervals(-1, 2), OPTS)
    assert by_level == {v: {"a": float(v), "c": float(v)} for v in ("-1", "0", "2")}


def test_levels_query_refutes_a_clamp_that_is_no_solution(engine: str) -> None:
    # claim c free in [2, 3] on the unique Figure 1 (b = 3, d = 2): c = 3 is no solution
    iv = _figure1_intervals(3, 2, hi=dict(a=3, c=3, b=3, d=2))
    assert uniqueness._solutions_by_level(iv, OPTS) is None


# ---------------------------------------------------------------------------- won/lost
def test_derivation_query_won_lost_labels_are_derivable(engine: str) -> None:
    # x -> a, b; a terminal lost; b -> b: x won (moves to a), a lost, b unknown
    g = normal({"x": ["a", "b"], "a": [], "b": ["b"]}, {"a": -1})
    labels = np.array([1, -1, 0])
    assert ask(derivation_cnf(derivation_system(g), labelled_nodes(labels))) is UNSAT
    # claiming b won too: b is won only if b is lost, circular: not derivable
    more = np.array([1, -1, 1])
    assert ask(derivation_cnf(derivation_system(g), labelled_nodes(more))) is SAT


def test_derivation_query_refutes_a_circular_labelling(engine: str) -> None:
    # x <-> y: x won, y lost satisfies "won iff some successor lost, lost iff all won", but
    # only through each other: no ranks
    g = normal({"x": ["y"], "y": ["x"]}, {})
    assert ask(derivation_cnf(derivation_system(g), labelled_nodes(np.array([1, -1])))) is SAT


def test_circular_query_finds_another_labelling_of_a_cycle(engine: str) -> None:
    # x <-> y, both unknown: x won, y lost also satisfies the rules (no ranks)
    sys = OrderSystem.normal(normal({"x": ["y"], "y": ["x"]}, {}))
    idx = np.array([1, 1])
    enc, pending = circular_query(sys, idx, np.ones(2, dtype=np.bool_), OPTS)
    out = pending.result()
    assert out.status is SAT and out.model is not None
    assert sorted(enc.decode(out.model).tolist()) == [0, 2]


def test_circular_query_finds_none_where_the_draw_is_forced(engine: str) -> None:
    # x -> y, y -> y: y = max(-y) forces y = 0, then x = -y = 0: no other labelling
    sys = OrderSystem.normal(normal({"x": ["y"], "y": ["y"]}, {}))
    _, pending = circular_query(sys, np.array([1, 1]), np.ones(2, dtype=np.bool_), OPTS)
    assert pending.result().status is UNSAT


def test_normal_uniqueness_queries() -> None:
    # the same two graphs through normal_uniqueness (derivation, pin and circular queries)
    cyc = uniqueness.uniqueness(case_of(normal({"x": ["y"], "y": ["x"]}, {})), OPTS)
    assert cyc.verdict is Verdict.CONFIRMED and cyc.data["unique"] is False
    loop = uniqueness.uniqueness(case_of(normal({"x": ["y"], "y": ["y"]}, {})), OPTS)
    assert loop.verdict is Verdict.CONFIRMED and loop.data["unique"] is True


# ---------------------------------------------------------------------------- region, ranks
def test_region_derivable_query(engine: str) -> None:
    # W = {x, t} is derivable (t target, x -> t); {x, y, t} is not: y only reaches y
    g = region_graph()
    rules = region_system(g)
    assert ask(derivable_query(rules, mask(g, "x", "t"))) is UNSAT
    assert ask(derivable_query(rules, mask(g, "x", "y", "t"))) is SAT


def test_region_trap_query(engine: str) -> None:
    # W = {x, t} is closed (y's only move stays out); {t} is not: x has a move into it, so
    # the complement {x, y} is no trap for player 0
    g = region_graph()
    rules = region_system(g)
    assert ask(trap_query(rules, mask(g, "x", "t"))) is SAT
    assert ask(trap_query(rules, mask(g, "t"))) is UNSAT


def test_ranked_derivable_query() -> None:
    g = region_graph()
    rules = region_system(g)
    assert ranked_derivable(rules, mask(g, "x", "t"), OPTS).status is SAT
    assert ranked_derivable(rules, mask(g, "x", "y", "t"), OPTS).status is UNSAT


def test_ranked_maximal_query() -> None:
    # nothing outside {x, t} is derivable; outside {t}, x is (x -> t)
    g = region_graph()
    rules = region_system(g)
    out, node = ranked_maximal(rules, mask(g, "x", "t"), OPTS)
    assert out.status is UNSAT and node is None
    out, node = ranked_maximal(rules, mask(g, "t"), OPTS)
    assert out.status is SAT and node == g.id_of("x")


# ---------------------------------------------------------------------------- strategy
def strategy_statuses(sys: OrderSystem, idx: np.ndarray, moves: dict[str, str]) -> dict[str, str]:
    """Each query of ``strategy.QUERIES`` on the named moves: what -> "ok" / "no" (its status
    is / is not the one that confirms)."""
    g = sys.graph
    mv = np.full(g.n, -1, dtype=np.int64)
    for x, y in moves.items():
        mv[g.id_of(x)] = g.id_of(y)
    d = describe(g.semantics)
    out = {}
    for q in QUERIES[d.view](d, sys, idx, mv):
        status = ask(q.cnf)
        if q.whole is not None:  # a part of the formula: right when it confirms, else the whole
            whole = ask(q.whole())
            assert whole is q.ok or status is not q.ok  # the part never proves more
            status = whole
        out[q.what] = "ok" if status is q.ok else "no"
    return out


def test_strategy_label_query_winner_wins_by_its_moves(engine: str) -> None:
    # x -> a, b; a terminal lost; b -> b: x wins by moving to a, not to b (b is a draw)
    g = normal({"x": ["a", "b"], "a": [], "b": ["b"]}, {"a": -1})
    sys = OrderSystem.normal(g)
    idx = np.array([2, 0, 1])
    what = "following the moves the winner wins"
    assert strategy_statuses(sys, idx, {"x": "a", "b": "b"}) == {what: "ok"}
    assert strategy_statuses(sys, idx, {"x": "b", "b": "b"}) == {what: "no"}


def test_strategy_region_queries_reach_and_stay_outside(engine: str) -> None:
    # x (player 0) -> y, t; y (player 1) -> x, z; z (player 0) -> z; t target.
    # W = {x, t}: player 0 reaches t by x -> t; player 1 stays outside by y -> z
    g = GameGraph.from_successors(
        {"x": ["y", "t"], "y": ["x", "z"], "z": ["z"], "t": []},
        semantics=Semantics.REACHABILITY,
        owner={"x": 0, "y": 1, "z": 0, "t": 0},
        target=["t"],
    )
    sys = OrderSystem.reachability(g)
    idx = np.array([1, 0, 0, 1])
    reach, stay = "player 0's moves reach the targets", "player 1's moves stay outside W"
    good = {"x": "t", "y": "z"}
    assert strategy_statuses(sys, idx, good) == {reach: "ok", stay: "ok"}
    assert strategy_statuses(sys, idx, {**good, "x": "y"}) == {reach: "no", stay: "ok"}
    assert strategy_statuses(sys, idx, {**good, "y": "x"}) == {reach: "ok", stay: "no"}


def score_graph() -> GameGraph:
    """m (Max) -> p, q, o; n (Min) -> p, q, o; a (Max) -> a, q; c (Min) -> c, p; leaves p = 1,
    q = -1, o = 0.

    Values: m = 1 (Max moves to p), n = -1 (Min moves to q), a = 0 and c = 0 (Kars' score:
    a = max(a, -1) and c = min(c, 1) allow anything in [-1, 1]; Max keeps a at 0 by a -> a,
    Min keeps c at 0 by c -> c)."""
    return GameGraph.from_successors(
        {
            "m": ["p", "q", "o"],
            "n": ["p", "q", "o"],
            "a": ["a", "q"],
            "c": ["c", "p"],
            "p": [],
            "q": [],
            "o": [],
        },
        semantics=Semantics.MINIMAX,
        owner={"m": MAX, "n": MIN, "a": MAX, "c": MIN},
        value={"p": 1, "q": -1, "o": 0},
    )


SCORE_GOOD = {"m": "p", "n": "q", "a": "a", "c": "c"}
MIN_FORCES, MAX_FORCES = "Min forces <= -1", "Max forces >= 1"
MAX_KEEPS, MIN_KEEPS = "Max keeps the value >= 0", "Min keeps the value <= 0"


@pytest.mark.parametrize(
    ("change", "fails"),
    [
        ({}, set()),
        ({"n": "o"}, {MIN_FORCES}),  # n -> o = 0 keeps the draw but does not force <= -1
        ({"n": "p"}, {MIN_FORCES, MIN_KEEPS}),  # n -> p = 1: neither
        ({"m": "o"}, {MAX_FORCES}),  # m -> o = 0 keeps the draw but does not force >= 1
        ({"m": "q"}, {MAX_FORCES, MAX_KEEPS}),  # m -> q = -1: neither
        ({"a": "q"}, {MAX_KEEPS}),  # Max lets a drop to -1
        ({"c": "p"}, {MIN_KEEPS}),  # Min lets c rise to 1
    ],
)
def test_strategy_score_queries_forces_and_keeps(
    engine: str, change: dict[str, str], fails: set[str]
) -> None:
    sys = OrderSystem.minimax(score_graph())
    idx = levels_of(sys, m=1, n=-1, a=0, c=0, p=1, q=-1, o=0)
    got = strategy_statuses(sys, idx, {**SCORE_GOOD, **change})
    every = (MIN_FORCES, MAX_FORCES, MAX_KEEPS, MIN_KEEPS)
    assert got == {w: "no" if w in fails else "ok" for w in every}


def test_strategy_queries_cover_every_view() -> None:
    assert set(QUERIES) == {View.LABEL, View.REGION, View.SCORE}


# ---------------------------------------------------------------------------- mex (Python API)
def _impartial(succ: dict[str, list[str]]) -> GameGraph:
    return GameGraph.from_successors(succ, semantics=Semantics.IMPARTIAL)


def test_mex_values_query() -> None:
    # x -> y -> z: z = 0, y = mex{0} = 1, x = mex{1} = 0
    g = _impartial({"x": ["y"], "y": ["z"], "z": []})
    assert check_values(g, np.array([0, 1, 0]), OPTS).verdict is Verdict.CONFIRMED
    assert check_values(g, np.array([1, 1, 0]), OPTS).verdict is Verdict.REFUTED


def test_mex_count_query() -> None:
    # a path has exactly one solution; a <-> b has two (0/1 and 1/0)
    path = count_solutions(_impartial({"x": ["y"], "y": []}), OPTS)
    assert path.verdict is Verdict.CONFIRMED and path.data["solutions"] == "1"
    two = count_solutions(_impartial({"a": ["b"], "b": ["a"]}), OPTS, np.array([0, 1]))
    assert two.data["solutions"] == "several"


def test_mex_counter_query() -> None:
    # a <-> b, a -> t, b -> u: a = 1, b = 2 solves the mex equations, but b's option a
    # reverses only through a itself: no counter; the generalized values inf, inf have one
    g = _impartial({"a": ["b", "t"], "b": ["a", "u"], "t": [], "u": []})
    assert check_counter(g, np.array([1, 2, 0, 0]), OPTS).verdict is Verdict.REFUTED
    assert check_counter(g, np.array([-1, -1, 0, 0]), OPTS).verdict is Verdict.CONFIRMED


# ---------------------------------------------------------------------------- the proof cache
def test_proof_cache_is_not_reused_after_the_successors_change(engine: str) -> None:
    # r -> u (u = 2): r = 2 holds. Same nodes, r -> w (w = -1): r = 2 fails
    a = OrderSystem.minimax(leaf_graph("u"))
    b = OrderSystem.minimax(leaf_graph("w"))
    idx = levels_of(a, r=2, u=2, w=-1)
    assert np.array_equal(a.levels, b.levels) and np.array_equal(a.kind, b.kind)
    assert np.array_equal(a.const, b.const) and np.array_equal(a.graph.succ_ptr, b.graph.succ_ptr)
    assert pin_check(a, idx, OPTS, "test").status is SAT
    assert proven_equations(a, idx).all()
    assert system_digest(a) != system_digest(b)
    assert not proven_equations(b, idx).any()
    assert pin_check(b, idx, OPTS, "test").status is UNSAT


def test_proof_cache_is_not_reused_after_the_values_change(engine: str) -> None:
    # same edges r -> u; the leaf values swapped (u = -1, w = 2): r = 2 now fails
    a = OrderSystem.minimax(leaf_graph("u"))
    b = OrderSystem.minimax(leaf_graph("u", u=-1, w=2))
    idx = levels_of(a, r=2, u=2, w=-1)
    assert pin_check(a, idx, OPTS, "test").status is SAT
    assert system_digest(a) != system_digest(b)
    assert pin_check(b, idx, OPTS, "test").status is UNSAT


def test_proof_cache_reuses_only_equations_whose_successors_kept_their_values(
    engine: str,
) -> None:
    # Figure 1 (b = -1, d = 2), a = c = 0 proved. Then a = c = 2: no equation of a (reads c)
    # or c (reads a) is the same instance; b and d are. With a = 0, c = 2 a keeps its value
    # but its successor c does not: a = max(-1, 2) = 2 fails, and a's old proof must not count
    sys = OrderSystem.minimax(figure1(-1, 2))
    g = sys.graph
    zero = levels_of(sys, a=0, c=0, b=-1, d=2)
    two = levels_of(sys, a=2, c=2, b=-1, d=2)
    moved = levels_of(sys, a=0, c=2, b=-1, d=2)
    assert pin_check(sys, zero, OPTS, "test").status is SAT
    assert proven_equations(sys, two).tolist() == mask(g, "b", "d").tolist()
    assert proven_equations(sys, moved).tolist() == mask(g, "b", "d").tolist()
    assert pin_check(sys, moved, OPTS, "test", mask(g, "a")).status is UNSAT
    assert pin_check(sys, two, OPTS, "test").status is SAT


def test_proof_cache_facts_follow_the_equations() -> None:
    a = OrderSystem.minimax(leaf_graph("u"))
    same = OrderSystem.minimax(leaf_graph("u"))  # another object, the same equations
    other = OrderSystem.minimax(leaf_graph("w"))
    remember("fact", a, "proved for a")
    assert recall("fact", same) == "proved for a"
    assert recall("fact", other) is None


def test_forget_clears_every_proof(engine: str) -> None:
    sys = OrderSystem.minimax(leaf_graph("u"))
    idx = levels_of(sys, r=2, u=2, w=-1)
    assert pin_check(sys, idx, OPTS, "test").status is SAT
    remember("fact", sys, 1)
    solve(
        Encoding.pinned(sys, np.ones(3, dtype=np.bool_), np.ones(3, dtype=np.bool_), idx).cnf,
        OPTS,
        memo=True,
    )
    assert proven_equations(sys, idx).any() and recall("fact", sys) == 1
    common.forget()
    assert not proven_equations(sys, idx).any() and recall("fact", sys) is None
    assert not common._PINNED and not common._PROVEN and not cnf_mod._MEMO
