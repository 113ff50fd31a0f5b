"""gamegraph-verifier: solve finite two-player game graphs and prove the answers with Z3."""

from verifier.api import load, solve, verify
from verifier.errors import CaseError, CycleError, NotApplicable, VerifierError
from verifier.model import Case, Expect, GameGraph, Semantics, SumSpec

__all__ = [
    "Case",
    "CaseError",
    "CycleError",
    "Expect",
    "GameGraph",
    "NotApplicable",
    "Semantics",
    "SumSpec",
    "VerifierError",
    "load",
    "solve",
    "verify",
]

__version__ = "0.1.0"
