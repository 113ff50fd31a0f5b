"""Z3 proofs of Bouton's theorem and of the XOR rule's induction step."""

from __future__ import annotations

import pytest
import z3

from verifier.model import Verdict
from verifier.registry import Options
from verifier.smt.theorems import _solve_negation, prove_bouton, prove_xor_rule


def test_bouton_three_piles_of_eight_bits() -> None:
    res = prove_bouton(3, 8)
    assert res.verdict is Verdict.CONFIRMED
    assert [p.status for p in res.parts] == ["unsat", "unsat"]
    assert res.params["piles"] == 3 and res.params["bits"] == 8


def test_bouton_quantified_small() -> None:
    res = prove_bouton(2, 4, method="quantified")
    assert res.verdict is Verdict.CONFIRMED


def test_xor_rule_small_bits() -> None:
    res = prove_xor_rule(3)
    assert res.verdict is Verdict.CONFIRMED
    assert res.parts[0].status == "sat"  # the hypotheses are satisfiable: not vacuous


def test_a_false_claim_is_refuted_with_a_counterexample() -> None:
    # "x xor y = 0 implies x = 0" is false: the negation is satisfiable
    x, y = z3.BitVec("x", 4), z3.BitVec("y", 4)
    part = _solve_negation("false claim", z3.And(x ^ y == 0, x != 0), Options(), {"x": x})
    assert part.status == "sat" and part.counterexample is not None


def test_unknown_is_not_a_proof() -> None:
    res = prove_bouton(3, 8, Options(rlimit=1), method="quantified")
    assert res.verdict is Verdict.UNKNOWN


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="piles"):
        prove_bouton(0, 8)
    with pytest.raises(ValueError, match="method"):
        prove_bouton(2, 2, method="guess")
    with pytest.raises(ValueError, match="bits"):
        prove_xor_rule(20)
