"""Uniqueness in normal play without Z3: the package's CNF and SAT call (verifier/certify/drup.py)
against the standalone checker's own CNF and DRUP replay (checker/drup.py), and both against
every labelling of small random graphs enumerated by brute force."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.drup import broken, refuted, won_lost_cnf
from verifier.certify.drup import won_lost_cnf as package_cnf
from verifier.certify.drup import won_lost_proof


@st.composite
def graphs(draw: st.DrawFn) -> tuple[list[list[int]], list[int]]:
    """Up to 6 positions, any moves (cycles and self-loops), terminals labelled at random."""
    n = draw(st.integers(1, 6))
    succ = [sorted(set(draw(st.lists(st.integers(0, n - 1), max_size=3)))) for _ in range(n)]
    leaf = [draw(st.sampled_from([1, -1, 0])) if not ys else 0 for ys in succ]
    return succ, leaf


def _solutions(succ: list[list[int]], leaf: list[int]) -> list[tuple[int, ...]]:
    """Every labelling keeping the rules of normal play, by brute force."""
    out = []
    for lab in itertools.product((1, -1, 0), repeat=len(succ)):
        rule = [
            leaf[x] if not ys else 1 if -1 in [lab[y] for y in ys] else
            -1 if all(lab[y] == 1 for y in ys) else 0
            for x, ys in enumerate(succ)
        ]  # fmt: skip
        out += [lab] if list(lab) == rule else []
    return out


def _csr(succ: list[list[int]], leaf: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ptr = np.cumsum([0] + [len(ys) for ys in succ])
    idx = np.array([y for ys in succ for y in ys], dtype=np.int64)
    value = np.array([np.nan if v == -1 else float(v) for v in leaf])  # unlabelled: lost
    return ptr, idx, value


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_the_sat_answer_and_its_proof_match_brute_force(
    g: tuple[list[list[int]], list[int]],
) -> None:
    succ, leaf = g
    solutions = _solutions(succ, leaf)
    assert solutions  # the least fixpoint is always one
    for labels in solutions:
        cnf = won_lost_cnf(succ, leaf, labels)
        ptr, idx, value = _csr(succ, leaf)
        as_sets = sorted(sorted(c) for c in package_cnf(ptr, idx, value, labels))
        assert as_sets == sorted(sorted(c) for c in cnf)  # the same formula, built twice
        found = won_lost_proof(ptr, idx, value, labels)
        if len(solutions) == 1:
            assert found.proof is not None and refuted(cnf, found.proof)
            assert not refuted(cnf, []) or not found.proof  # an empty proof when UP suffices
        else:
            assert found.other is not None and tuple(found.other) in solutions
            assert tuple(found.other) != tuple(labels) and broken(cnf, found.other) is None
            assert not refuted(cnf, ["0"])  # no proof of a satisfiable formula
        for other in solutions:  # the clause "differs" is the only one another solution breaks
            k = broken(cnf, other)
            assert (k == len(cnf) - 1) if other == labels else k is None
