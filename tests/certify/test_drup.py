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


def _ranked(succ: list[list[int]], leaf: list[int]) -> tuple[int, ...]:
    """The labelling retrograde analysis derives (the one with ranks the checker accepts):
    won and lost only where forced, drawn elsewhere."""
    lab = [leaf[x] if not ys else 0 for x, ys in enumerate(succ)]
    changed = True
    while changed:
        changed = False
        for x, ys in enumerate(succ):
            v = 1 if any(lab[y] == -1 for y in ys) else -1 if all(lab[y] == 1 for y in ys) else 0
            if ys and not lab[x] and v:
                lab[x], changed = v, True
    return tuple(lab)


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_the_sat_answer_and_its_proof_match_brute_force(
    g: tuple[list[list[int]], list[int]],
) -> None:
    succ, leaf = g
    solutions = _solutions(succ, leaf)
    labels = _ranked(succ, leaf)
    assert labels in solutions  # the least fixpoint is always one
    assert all(o[x] == v for o in solutions for x, v in enumerate(labels) if v)  # forced
    cnf = won_lost_cnf(succ, list(labels))
    ptr, idx, _ = _csr(succ, leaf)
    as_sets = sorted(sorted(c) for c in package_cnf(ptr, idx, labels))
    assert as_sets == sorted(sorted(c) for c in cnf)  # the same formula, built twice
    drawn = {v for x, v in enumerate(labels) if not v for v in (2 * x + 1, 2 * x + 2)}
    assert {abs(b) for c in cnf for b in c} <= drawn  # only the drawn positions' variables
    found = won_lost_proof(ptr, idx, labels)
    if len(solutions) == 1:
        assert found.proof is not None and refuted(cnf, found.proof)
        assert not refuted(cnf, []) or not found.proof  # an empty proof when UP suffices
    else:
        assert found.other is not None and tuple(found.other) in solutions
        assert tuple(found.other) != labels and broken(cnf, found.other) is None
        assert not refuted(cnf, ["0"])  # no proof of a satisfiable formula
    for other in solutions:  # the clause "differs" is the only one another solution breaks
        k = broken(cnf, other)
        assert (k == len(cnf) - 1) if other == labels else k is None


@st.composite
def impartial_graphs(draw: st.DrawFn) -> list[list[int]]:
    """Up to 5 positions, any moves (cycles, self-loops)."""
    n = draw(st.integers(1, 5))
    return [sorted(set(draw(st.lists(st.integers(0, n - 1), max_size=3)))) for _ in range(n)]


def _mex_solutions(succ: list[list[int]]) -> list[tuple[int, ...]]:
    """Every solution of the mex equations, by brute force (a value is at most the degree)."""
    out = []
    for vals in itertools.product(*(range(len(ys) + 1) for ys in succ)):
        opts = [{vals[y] for y in ys} for ys in succ]
        if all(min(set(range(len(o) + 1)) - o) == vals[x] for x, o in enumerate(opts)):
            out.append(vals)
    return out


@settings(max_examples=300, deadline=None)
@given(impartial_graphs())
def test_the_mex_equations_solutions_and_proofs_match_brute_force(succ: list[list[int]]) -> None:
    from checker.drup import claim_fault, mex_cnf
    from verifier.certify.drup import mex_cnf as package_mex_cnf
    from verifier.certify.drup import mex_solutions

    ptr = np.cumsum([0] + [len(ys) for ys in succ])
    idx = np.array([y for ys in succ for y in ys], dtype=np.int64)
    assert sorted(map(sorted, package_mex_cnf(ptr, idx))) == sorted(
        map(sorted, mex_cnf(succ, None))
    )
    truth = _mex_solutions(succ)
    found, proof = mex_solutions(ptr, idx)
    assert all(tuple(s) in truth for s in found) and len(found) == min(len(truth), 2)
    count = {0: "0", 1: "1"}.get(len(truth), "several")
    index = {str(x): x for x in range(len(succ))}
    u: dict = {"claim": "unique" if count == "1" else "not unique", "proof": "mex"}
    u |= {"solutions": count, "drup": proof}
    for key, sol in zip(("first", "second"), found, strict=False):
        u[key] = {str(x): v for x, v in enumerate(sol)}
    no_leaf = [-1] * len(succ)
    assert claim_fault("impartial", succ, no_leaf, [], u, [], index) is None
    if count == "1":  # the claim turned round: no proof refutes a second solution
        wrong = {**u, "claim": "not unique", "solutions": "0", "drup": proof}
        del wrong["first"]
        assert claim_fault("impartial", succ, no_leaf, [], wrong, [], index) is not None
    if found:  # a listed solution changed to a non-solution breaks an equation
        bad = dict(u["first"])
        bad["0"] += 1
        if tuple(bad.values()) not in truth:
            assert claim_fault("impartial", succ, no_leaf, [], {**u, "first": bad}, [], index)
