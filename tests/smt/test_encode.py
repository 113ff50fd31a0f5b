"""The Boolean order encoding: its solutions are exactly those of the equations; Z3 plumbing."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from smt_reference import all_solutions, figure1, graphs

from verifier.equations.fixpoints import least
from verifier.equations.rules import region_system
from verifier.equations.system import OrderSystem
from verifier.model import GameGraph, Semantics
from verifier.registry import Options
from verifier.smt import cnf as cnf_mod
from verifier.smt.cnf import Cnf, SatStatus, solve
from verifier.smt.encode import Encoding, closure_cnf, prefixpoint_cnf

OPTS = Options()


def _is_solution(sys: OrderSystem, idx: np.ndarray) -> bool:
    enc = Encoding.build(sys)
    enc.pin(idx)
    return solve(enc.cnf, OPTS).status is SatStatus.SAT


@pytest.mark.parametrize("binary", [True, False])
def test_figure1_pins(binary: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cnf_mod, "USE_BINARY", binary)
    monkeypatch.setattr(cnf_mod, "BINARY_MIN_CLAUSES", 0)
    sys = OrderSystem.minimax(figure1(-1, 2))  # levels -1, 0, 2; nodes a, c, b, d
    for a_c in range(3):  # a = c anywhere in [b, d]
        assert _is_solution(sys, np.array([a_c, a_c, 0, 2]))
    assert not _is_solution(sys, np.array([2, 1, 0, 2]))  # a != c
    enc = Encoding.build(sys)
    enc.differs(np.arange(4), np.array([1, 1, 0, 2]))
    out = solve(enc.cnf, OPTS, want_model=True)
    assert out.status is SatStatus.SAT and out.model is not None
    alt = enc.decode(out.model)
    assert alt[0] == alt[1] != 1 and len(sys.violations(alt)) == 0


@settings(max_examples=40, deadline=None)
@given(graphs(Semantics.MINIMAX, max_nodes=5))
def test_encoding_solutions_are_the_equations_solutions(g: GameGraph) -> None:
    sys = OrderSystem.minimax(g)
    sols = {tuple(s) for s in all_solutions(g)}
    inner = np.flatnonzero(~g.is_terminal)
    for combo in itertools.islice(itertools.product(range(sys.top + 1), repeat=len(inner)), 50):
        idx = sys.const.copy()
        idx[inner] = combo
        assert _is_solution(sys, idx) == (tuple(sys.to_values(idx).tolist()) in sols)


@settings(max_examples=30, deadline=None)
@given(graphs(Semantics.NORMAL, max_nodes=5))
def test_negamax_encoding_matches_evaluation(g: GameGraph) -> None:
    sys = OrderSystem.normal(g)
    inner = np.flatnonzero(~g.is_terminal)
    for combo in itertools.islice(itertools.product(range(3), repeat=len(inner)), 40):
        idx = sys.const.copy()
        idx[inner] = combo
        assert _is_solution(sys, idx) == (len(sys.violations(idx)) == 0)


@settings(max_examples=30, deadline=None)
@given(graphs(Semantics.REACHABILITY))
def test_prefixpoint_query_decides_derivability(g: GameGraph) -> None:
    rules = region_system(g)
    w = least(rules)
    assert solve(prefixpoint_cnf(rules, must=w), OPTS).status is SatStatus.UNSAT
    assert solve(prefixpoint_cnf(rules, pin=w), OPTS).status is SatStatus.SAT
    if w.any():  # W without one of its nodes is not closed: some rule puts it back (its pin)
        short = w.copy()
        short[np.flatnonzero(w)[-1]] = False
        assert solve(prefixpoint_cnf(rules, pin=short), OPTS).status is SatStatus.UNSAT
    extra = ~w
    if extra.any():  # nodes outside the attractor are not derivable
        one = np.zeros(g.n, dtype=bool)
        one[np.flatnonzero(extra)[0]] = True
        assert solve(prefixpoint_cnf(rules, must=one), OPTS).status is SatStatus.SAT
        # and the complement of W is a safe set for player 1
        assert solve(closure_cnf(rules.dual(), extra), OPTS).status is SatStatus.SAT


@settings(max_examples=60, deadline=None)
@given(graphs(Semantics.REACHABILITY), st.data())
def test_a_part_of_the_prefixpoint_query_never_proves_too_much(
    g: GameGraph, data: st.DataObject
) -> None:
    """``within``: unsatisfiable only when ``must`` really is derivable (a part of the clauses
    is a weaker formula), and unsatisfiable whenever ``within`` holds the derivation."""
    rules = region_system(g)
    w = least(rules)
    bits = st.lists(st.booleans(), min_size=g.n, max_size=g.n)
    must = np.array(data.draw(bits), dtype=bool)
    within = np.array(data.draw(bits), dtype=bool)
    part = solve(prefixpoint_cnf(rules, must=must, within=within), OPTS).status
    if part is SatStatus.UNSAT:
        assert not (must & ~w).any()
    assert solve(prefixpoint_cnf(rules, must=w, within=w), OPTS).status is SatStatus.UNSAT
    if (must & ~w).any():
        assert part is SatStatus.SAT


def _pigeonhole(n: int) -> Cnf:
    m = n - 1
    cnf = Cnf(n * m + 1)

    def v(i: int, j: int) -> int:
        return 2 + i * m + j

    for i in range(n):
        cnf.add_clause(np.array([v(i, j) for j in range(m)]))
    for j in range(m):
        for a in range(n):
            for b in range(a + 1, n):
                cnf.add_clause(np.array([-v(a, j), -v(b, j)]))
    return cnf


@pytest.mark.parametrize("binary", [True, False])
def test_resource_limit_gives_unknown_with_reason(
    binary: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cnf_mod, "USE_BINARY", binary)
    monkeypatch.setattr(cnf_mod, "BINARY_MIN_CLAUSES", 0)
    out = solve(_pigeonhole(11), Options(rlimit=100))
    assert out.status is SatStatus.UNKNOWN
    assert out.reason
