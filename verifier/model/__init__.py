"""The typed, immutable core model: game graphs, cases, results."""

from verifier.model.case import Case, Expect, GrundyValue, SumSpec
from verifier.model.graph import GameGraph, IntArray
from verifier.model.results import CheckResult, SolverResult, Verdict
from verifier.model.semantics import MAX, MIN, NOBODY, PLAYER0, PLAYER1, Semantics

__all__ = [
    "MAX",
    "MIN",
    "NOBODY",
    "PLAYER0",
    "PLAYER1",
    "Case",
    "CheckResult",
    "Expect",
    "GameGraph",
    "GrundyValue",
    "IntArray",
    "Semantics",
    "SolverResult",
    "SumSpec",
    "Verdict",
]
