"""gamegraph-verifier: solve finite two-player game graphs and prove the answers with Z3."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from verifier.api import load, solve, verify
from verifier.errors import CaseError, CycleError, NotApplicable, VerifierError
from verifier.model import Case, Expect, GameGraph, Semantics, SumSpec

__all__ = [
    "Case",
    "CaseError",
    "CaseReport",
    "CycleError",
    "Expect",
    "GameGraph",
    "NotApplicable",
    "Semantics",
    "Solution",
    "SumSpec",
    "VerifierError",
    "load",
    "solve",
    "verify",
]

__version__ = "0.1.0"

if TYPE_CHECKING:
    from verifier.model.report import CaseReport
    from verifier.model.solution import Solution


def __getattr__(name: str) -> Any:
    """``verifier.Solution`` and ``verifier.CaseReport`` load on first use, so that ``import
    verifier`` stays light (the pipeline pulls in numpy and the solvers)."""
    if name == "Solution":
        from verifier.model.solution import Solution

        return Solution
    if name == "CaseReport":
        from verifier.model.report import CaseReport

        return CaseReport
    raise AttributeError(f"module 'verifier' has no attribute {name!r}")
