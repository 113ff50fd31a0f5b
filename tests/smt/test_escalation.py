"""Escalation instead of ``unknown`` (issue 14, item 4): a query Z3 leaves unknown at the first
resource limit is asked again with four times the limit, up to ``--rlimit``, the ceiling."""

from __future__ import annotations

from verifier.games.generators import generate
from verifier.model.report import CaseVerdict
from verifier.pipeline import run_case
from verifier.registry import Options
from verifier.smt import common
from verifier.smt.cnf import SatOutcome, SatStatus, escalating, limits


def test_limits_grow_fourfold_up_to_the_ceiling() -> None:
    assert limits(Options(rlimit=800_000_000, first_rlimit=50_000_000)) == [
        50_000_000,
        200_000_000,
        800_000_000,
    ]
    assert limits(Options(rlimit=300, first_rlimit=100)) == [100, 300]
    assert limits(Options(rlimit=1)) == [1]  # the ceiling below the first limit: one attempt


def test_escalating_stops_at_the_first_decided_answer_and_names_every_limit() -> None:
    seen: list[int] = []

    def attempt(o: Options) -> SatOutcome:
        seen.append(o.rlimit)
        ok = o.rlimit >= 1600
        return SatOutcome(SatStatus.UNSAT if ok else SatStatus.UNKNOWN, "canceled")

    out = escalating(attempt, Options(rlimit=10_000, first_rlimit=100))
    assert out.status is SatStatus.UNSAT and seen == [100, 400, 1600]
    seen.clear()
    out = escalating(attempt, Options(rlimit=1000, first_rlimit=100))
    assert out.status is SatStatus.UNKNOWN and seen == [100, 400, 1000]
    assert out.reason == "canceled; tried rlimit 100, 400, 1,000 (--rlimit is the ceiling)"


def test_krk_4_symmetric_verifies_at_the_default_settings() -> None:
    """Inconclusive before: smt-won-lost was 'Z3 unknown (canceled)' at rlimit 5x10^7."""
    case = generate("krk", size=4, symmetry=True)
    common.forget()
    assert run_case(case, Options()).verdict is CaseVerdict.VERIFIED
