"""What makes the Z3 checks fast at scale must not change a single answer.

- ``cnf.dimacs_text`` (numpy formatting) writes exactly the tokens;
- ``Encoding.pinned`` (pin query without the clauses the pin satisfies) has the same verdict as
  the full encoding with the pin, on every assignment;
- ``run_batches`` with queries in Z3 two at a time gives the sequential outcome;
- ``pin_check`` reuses only equation instances that were proved (a changed value, or a changed
  successor value, is asked again);
- the whole set of checks with sharing and parallel Z3 processes (``forget`` not called, two
  jobs, Z3's executable even for tiny formulas) gives the same verdicts, witnesses and data as
  with nothing shared and one query at a time: on correct answers, a non-unique case and a
  refuted answer.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from smt_reference import case_of, figure1, graphs, reference_results

from verifier.equations.system import OrderSystem
from verifier.errors import NotApplicable
from verifier.model import GameGraph, Semantics, SolverResult
from verifier.model.results import CheckResult, Verdict
from verifier.registry import CheckContext, Options, checks_for
from verifier.smt import cnf as cnf_mod
from verifier.smt import common
from verifier.smt.cnf import Pending, SatOutcome, SatStatus, dimacs_text, solve
from verifier.smt.encode import Encoding

OPTS = Options()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(2**31) + 1, 2**31 - 1), max_size=40))
def test_dimacs_text_writes_exactly_the_tokens(tokens: list[int]) -> None:
    text = dimacs_text(np.array(tokens, dtype=np.int64))
    assert text.split() == [str(t).encode() for t in tokens]
    assert text.count(b"\n") == tokens.count(0)  # one line per clause


def test_dimacs_text_by_hand() -> None:
    assert dimacs_text(np.array([1, 0, -1, 999, 1000, -1000, 0])) == b"1 0\n-1 999 1000 -1000 0\n"
    assert dimacs_text(np.zeros(0, dtype=np.int64)) == b""


def _assignments(sys: OrderSystem, limit: int) -> Iterator[np.ndarray]:
    inner = np.flatnonzero(sys.kind != 0)
    for combo in itertools.islice(itertools.product(range(sys.top + 1), repeat=len(inner)), limit):
        idx = np.where(sys.const >= 0, sys.const, 0)
        idx[inner] = combo
        yield idx


@pytest.mark.parametrize("sem", [Semantics.MINIMAX, Semantics.NORMAL, Semantics.REACHABILITY])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_pinned_encoding_decides_like_the_full_one(sem: Semantics, data: st.DataObject) -> None:
    g = data.draw(graphs(sem, max_nodes=5))
    sys = OrderSystem.for_graph(g)
    for idx in _assignments(sys, 30):
        eq = np.ones(g.n, dtype=np.bool_)
        eq[: g.n // 2] = data.draw(st.booleans())  # also a part of the equations
        full = Encoding.build(sys, eq=eq, fixed=idx)
        full.pin(idx)
        lean = Encoding.pinned(sys, eq, np.ones(g.n, dtype=np.bool_), idx)
        want = not np.isin(sys.violations(idx), np.flatnonzero(eq)).any()
        assert (solve(full.cnf, OPTS).status is SatStatus.SAT) is want
        assert (solve(lean.cnf, OPTS).status is SatStatus.SAT) is want
        assert lean.cnf.n_clauses <= full.cnf.n_clauses


def test_run_batches_in_parallel_reads_answers_in_order() -> None:
    outcomes = [SatStatus.UNSAT, SatStatus.UNKNOWN, SatStatus.SAT, SatStatus.SAT, SatStatus.UNSAT]
    parts = [np.array([i]) for i in range(len(outcomes))]
    asked: list[int] = []

    def query(part: np.ndarray) -> Pending:
        asked.append(int(part[0]))
        return Pending(SatOutcome(outcomes[int(part[0])]))

    res = common.run_batches(parts, query, OPTS, "t")
    assert res.status is SatStatus.SAT and res.batch is not None and int(res.batch[0]) == 2
    assert res.queries == 3 and asked[:3] == [0, 1, 2]  # the first sat batch decides
    res = common.run_batches(parts[:2], query, OPTS, "t")
    assert res.status is SatStatus.UNKNOWN  # unknown, never read as unsat
    res = common.run_batches(parts[:1], query, OPTS, "t", stop_on=SatStatus.UNSAT)
    assert res.status is SatStatus.UNSAT and res.queries == 1


def test_pin_check_reuses_only_proved_instances() -> None:
    common.forget()
    g = figure1(-1, 2)  # a <-> c, a -> b = -1, c -> d = 2; levels -1, 0, 2
    sys = OrderSystem.minimax(g)
    good = np.array([1, 1, 0, 2])  # a = c = 0
    assert common.pin_check(sys, good, OPTS, "t").status is SatStatus.SAT
    assert common.proven_equations(sys, good).all()
    other = np.array([2, 2, 0, 2])  # a = c = 2: a's and c's instances change
    assert common.proven_equations(sys, other).tolist() == [False, False, True, True]
    bad = np.array([2, 1, 0, 2])  # a != c: refuted although b and d were proved before
    assert common.pin_check(sys, bad, OPTS, "t").status is SatStatus.UNSAT
    assert common.pin_check(sys, other, OPTS, "t").status is SatStatus.SAT
    common.forget()
    assert not common.proven_equations(sys, good).any()


# ---------------------------------------------------------------------- whole checks, both ways
def _strip(r: CheckResult) -> tuple[Any, ...]:
    data = {k: v for k, v in r.data.items() if k != "queries"}
    return (r.name, r.verdict, r.witness, data)


def _run(g: GameGraph, results: dict[str, SolverResult], *, shared: bool) -> list[tuple[Any, ...]]:
    common.forget()
    ctx = CheckContext(case_of(g), results, Options())
    out: list[tuple[Any, ...]] = []
    for spec in checks_for(g.semantics):
        if spec.name.startswith("smt-"):
            if not shared:
                common.forget()
            with contextlib.suppress(NotApplicable):
                out.extend(_strip(r) for r in spec.fn(ctx))
    common.forget()
    return out


def _both_ways(g: GameGraph, results: dict[str, SolverResult]) -> list[tuple[Any, ...]]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cnf_mod, "BINARY_MIN_CLAUSES", 0)  # Z3's executable for every query
        mp.setattr(cnf_mod, "Z3_JOBS", 1)
        alone = _run(g, results, shared=False)
        mp.setattr(cnf_mod, "Z3_JOBS", 2)
        together = _run(g, results, shared=True)
    assert together == alone
    return together


def _corrupt(results: dict[str, SolverResult], node: int, value: float) -> dict[str, SolverResult]:
    out = {}
    for name, r in results.items():
        vals = np.asarray(r.values).copy()
        vals[node] = value
        out[name] = SolverResult(name, r.view, vals, remoteness=r.remoteness, move=r.move)
    return out


def test_sharing_and_parallel_z3_give_the_same_answers() -> None:
    if cnf_mod.z3_binary() is None:
        pytest.skip("Z3's executable is not installed")
    g = figure1(-1, 2)  # not unique: a = c anywhere in [-1, 2]
    res = _both_ways(g, reference_results(g))
    by = {r[0]: r for r in res}
    assert by["smt-uniqueness"][3]["unique"] is False
    assert set(by["smt-uniqueness"][2]["cycle"]) == {"a", "c"}
    assert by["smt-kars-least"][1].value == "confirmed"
    # a refuted answer: Kars' score of a set to 2, a solution but not the least one
    res = _both_ways(g, _corrupt(reference_results(g), 0, 2.0))
    by = {r[0]: r for r in res}
    assert by["smt-equations"][1].value == "refuted"  # a = 2 != c = 0
    assert by["smt-kars-least"][1].value == "refuted"


@pytest.mark.parametrize("sem", [Semantics.MINIMAX, Semantics.NORMAL, Semantics.REACHABILITY])
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_sharing_and_parallel_z3_on_random_graphs(sem: Semantics, data: st.DataObject) -> None:
    if cnf_mod.z3_binary() is None:
        pytest.skip("Z3's executable is not installed")
    g = data.draw(graphs(sem))
    _both_ways(g, reference_results(g))
    node = data.draw(st.integers(0, g.n - 1))
    results = reference_results(g)
    levels = OrderSystem.for_graph(g).levels
    now = float(np.asarray(next(iter(results.values())).values)[node])
    wrong = data.draw(st.sampled_from([float(v) for v in levels if v != now] or [now]))
    _both_ways(g, _corrupt(results, node, wrong))


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_kars_least_from_the_intervals_agrees_with_its_own_query(data: st.DataObject) -> None:
    """smt-kars-least reads Z3's interval proof when the answer is the clamp; with the proof
    withheld it asks its own universal query: the verdicts agree, right or wrong answer."""
    from verifier.smt import kars, uniqueness
    from verifier.smt.common import Answer

    g = data.draw(graphs(Semantics.MINIMAX))
    sys = OrderSystem.minimax(g)
    ref = reference_results(g)["ref"]
    vals = np.asarray(ref.values).copy()
    if data.draw(st.booleans()):
        vals[data.draw(st.integers(0, g.n - 1))] = data.draw(st.sampled_from(sys.levels.tolist()))
    ans = Answer.of(("x",), vals, np.ones(g.n, dtype=np.bool_), None, None)
    common.forget()
    shared = kars.kars_least(sys, ans, OPTS)

    def withheld(s: OrderSystem, o: Options) -> uniqueness.Intervals:
        iv = uniqueness.intervals(s, o)
        return uniqueness.Intervals(s, iv.lo, iv.hi, Verdict.UNKNOWN, "withheld", 0)

    common.forget()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kars, "intervals", withheld)
        own = kars.kars_least(sys, ans, OPTS)
    common.forget()
    assert shared.verdict is own.verdict, (shared.detail, own.detail)
    assert shared.data == own.data and shared.witness == own.witness


def test_memo_asks_z3_the_same_question_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``memo``: the same formula (smt-uniqueness and smt-won-lost ask two of them) reaches
    Z3 once; a wanted model is asked for again; an unknown answer is never kept."""
    calls: list[bool] = []
    real = cnf_mod._solve_api

    def counted(cnf: cnf_mod.Cnf, options: Options, want_model: bool) -> SatOutcome:
        calls.append(want_model)
        return real(cnf, options, want_model)

    monkeypatch.setattr(cnf_mod, "USE_BINARY", False)
    monkeypatch.setattr(cnf_mod, "_solve_api", counted)
    common.forget()
    sys = OrderSystem.minimax(figure1(-1, 2))
    enc = Encoding.build(sys)
    enc.differs(np.arange(4), np.array([1, 1, 0, 2]))
    assert solve(enc.cnf, OPTS, memo=True).status is SatStatus.SAT
    assert solve(enc.cnf, OPTS, memo=True).status is SatStatus.SAT
    assert len(calls) == 1
    out = cnf_mod.submit(enc.cnf, OPTS, want_model=True, memo=True).result()
    assert out.model is not None and len(calls) == 2  # the model was not kept: asked again
    assert cnf_mod.submit(enc.cnf, OPTS, want_model=True, memo=True).result() is out
    assert solve(enc.cnf, Options(seed=1), memo=True) is not out  # another seed, another run
    assert len(calls) == 3
    tight = Options(rlimit=1)
    first = solve(_hard(), tight, memo=True)
    assert first.status is SatStatus.UNKNOWN
    solve(_hard(), tight, memo=True)
    assert len(calls) == 5  # unknown: asked again
    common.forget()


def _hard() -> cnf_mod.Cnf:
    """The pigeonhole formula for 9 pigeons: Z3 needs many conflicts."""
    n, m = 9, 8
    cnf = cnf_mod.Cnf(n * m + 1)
    for i in range(n):
        cnf.add_clause(np.array([2 + i * m + j for j in range(m)]))
    for j in range(m):
        for a, b in itertools.combinations(range(n), 2):
            cnf.add_clause(np.array([-(2 + a * m + j), -(2 + b * m + j)]))
    return cnf


@pytest.mark.parametrize("sem", [Semantics.MINIMAX, Semantics.REACHABILITY])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_derivation_query_decides_derivability(sem: Semantics, data: st.DataObject) -> None:
    """``derivation_cnf`` is unsat exactly when its target is derivable: on the least fixpoint
    of every threshold system (whole, or batch by batch of SCCs in reverse topological order)
    and on the complement of the greatest; sat as soon as one more node is added."""
    from verifier.equations.fixpoints import BoolSystem, least
    from verifier.smt.encode import derivation_cnf

    g = data.draw(graphs(sem))
    sys = OrderSystem.for_graph(g)
    _, rank, _ = common.component_order(g)
    for k in range(1, sys.top + 1):
        b = BoolSystem.threshold(sys, k)
        for rules in (b, b.dual()):
            lfp = least(rules)
            assert solve(derivation_cnf(rules, lfp), OPTS).status is SatStatus.UNSAT
            for part in common.batches(g, np.flatnonzero(lfp), rank, limit=2):
                inside = np.zeros(g.n, dtype=np.bool_)
                inside[part] = True
                assert solve(derivation_cnf(rules, lfp, inside), OPTS).status is SatStatus.UNSAT
            if not lfp.all():
                more = lfp.copy()
                more[data.draw(st.sampled_from(np.flatnonzero(~lfp).tolist()))] = True
                assert solve(derivation_cnf(rules, more), OPTS).status is SatStatus.SAT


def test_intervals_refute_a_wrong_least_fixpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    """If the propagation claimed gfp as the least solution of Figure 1 (a = c = 2, also a
    solution), Z3 refutes the derivation: a solution (a = c = -1) lies below it."""
    from verifier.smt import uniqueness

    common.forget()
    sys = OrderSystem.minimax(figure1(-1, 2))
    monkeypatch.setattr(uniqueness, "lfp", uniqueness.gfp)
    iv = uniqueness.intervals(sys, OPTS)
    assert iv.verdict is Verdict.REFUTED and "outside" in iv.detail
    common.forget()


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_closure_query_decides_safety(data: st.DataObject) -> None:
    """``closure_cnf`` (clauses only for the nodes of the pinned set) is sat exactly when the
    set can be kept: no false constant in it, an ``OR`` node has a successor in it, an ``AND``
    node has all its successors in it (checked directly)."""
    from verifier.equations.rules import region_system
    from verifier.equations.system import AND, CONST, OR
    from verifier.smt.encode import closure_cnf

    g = data.draw(graphs(Semantics.REACHABILITY))
    for rules in (region_system(g), region_system(g).dual()):
        stay = np.array(data.draw(st.lists(st.booleans(), min_size=g.n, max_size=g.n)))
        ok = True
        for x in np.flatnonzero(stay):
            ys = rules.idx[rules.ptr[x] : rules.ptr[x + 1]]
            if rules.kind[x] == CONST:
                ok &= bool(rules.const[x])
            elif rules.kind[x] == OR:
                ok &= bool(stay[ys].any())
            else:
                assert rules.kind[x] == AND
                ok &= bool(stay[ys].all())
        assert (solve(closure_cnf(rules, stay), OPTS).status is SatStatus.SAT) is ok


def test_won_lost_refutes_a_circular_labelling_naming_its_node() -> None:
    """a <-> b with no way out: 'a won, b lost' satisfies the rules without ranks (a fixpoint),
    but neither label is derivable; smt-won-lost refutes it (circular reasoning) and
    smt-uniqueness reports that labelling as the second solution."""
    from verifier.smt.common import Answer
    from verifier.smt.uniqueness import uniqueness
    from verifier.smt.wonlost import won_lost

    common.forget()
    g = GameGraph.from_successors({"a": ["b"], "b": ["a"]}, semantics=Semantics.NORMAL)
    sys = OrderSystem.normal(g)
    ans = Answer.of(("x",), np.array([1.0, -1.0]), np.ones(2, dtype=np.bool_), None, None)
    r = won_lost(sys, ans, OPTS)
    assert r.verdict is Verdict.REFUTED and r.witness is not None
    assert "circular reasoning" in r.detail and r.witness["node"] in {"a", "b"}
    u = uniqueness(case_of(g))
    assert u.data["unique"] is False and u.witness is not None
    assert set(u.witness["cycle"]) == {"a", "b"}
    common.forget()


def test_remembered_facts_stay_bounded() -> None:
    """Verifying many graphs in one run keeps the facts of the last few only."""
    common.forget()
    for b in range(-3, 3):  # six different graphs (b < 2: not unique; b >= 2: unique)
        sys = OrderSystem.minimax(figure1(float(b), 2.0))
        assert common.pin_check(sys, sys.const.clip(0), OPTS, "t") is not None
        from verifier.smt.uniqueness import intervals

        intervals(sys, OPTS)
    assert len(common._PROVEN) <= common.KEEP_SYSTEMS
    assert len(common._FACTS) <= common.KEEP_SYSTEMS
    common.forget()
