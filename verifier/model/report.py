"""What ``verify`` and ``solve`` report about a case: the verdict, every solver's run, every
check's result, the findings (refuted checks, root causes first) and the answer as a
``Solution``. Plain data of the model: the pipeline builds it, the writers, the API and the CLI
read it.

``CaseReport._repr_html_`` (a notebook's view) is ``writers.notebook.report_html``, lent through
``model.display``: nothing here imports a layer above the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from verifier.model.case import Case
from verifier.model.display import displayed
from verifier.model.results import CheckResult, SolverResult, Verdict
from verifier.model.solution import Solution

__all__ = ["CaseReport", "CaseVerdict", "Finding", "SolverRun", "findings"]


class CaseVerdict(StrEnum):
    VERIFIED = "verified"
    """Every check confirmed, the Z3 proofs included."""
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"
    SOLVED = "solved"
    """``solve`` (no proofs run): an answer, and nothing refuted or undecided among the solvers'
    agreement and the ``expect`` block. Never ``verified``: nothing was proved."""


@dataclass(frozen=True)
class SolverRun:
    """One solver's run: its result, or why it was skipped."""

    name: str
    result: SolverResult | None
    skipped: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class Finding:
    """A refuted check that leads, and the refuted checks that fail because of it.

    A check that sums others up (the judgment of an answer file: its ``data["refuted_by"]``
    names the checks that refuted the claims) is the root cause: it names the claim that breaks
    its own rule, and the checks it names are its consequences, folded under it."""

    check: CheckResult
    because: tuple[CheckResult, ...] = ()


def findings(checks: tuple[CheckResult, ...] | list[CheckResult]) -> list[Finding]:
    """The refuted checks as findings: each root cause first with its consequences (in the
    order of ``checks``), then every other refuted check alone, in order."""
    refuted = [c for c in checks if c.verdict is Verdict.REFUTED]
    roots = [c for c in refuted if c.data.get("refuted_by")]
    taken = {id(c) for c in roots}
    out: list[Finding] = []
    for root in roots:
        names = set(root.data["refuted_by"])
        because = tuple(c for c in refuted if id(c) not in taken and c.name in names)
        taken |= {id(c) for c in because}
        out.append(Finding(root, because))
    out += [Finding(c) for c in refuted if id(c) not in taken]
    return out


@dataclass(frozen=True)
class CaseReport:
    case: Case
    solvers: tuple[SolverRun, ...]
    checks: tuple[CheckResult, ...]
    verdict: CaseVerdict
    seconds: float
    stages: Mapping[str, float] = field(default_factory=dict)
    summary: Mapping[str, Any] = field(default_factory=dict)
    solution: Solution | None = None
    """The answer (``None`` when no solver answered in the semantics' view)."""
    printed: tuple[str, ...] | None = None
    """The answer's lines as the table prints them first (who wins, the score, plies, best
    move, line, counts: ``writers.answer.answer_block``), set by the outside check that
    certified them: the writers print these, never a second rendering (``None``: not
    certified, the writers render them)."""
    printed_csv: str | None = None
    """The ``--format csv`` text of this case alone as certified by the outside check (the
    CSV writer prints it as it is); ``None``: not certified."""

    @property
    def witness(self) -> Mapping[str, Any] | None:
        """The witness of the first finding (``None`` when nothing was refuted)."""
        return next((f.check.witness for f in self.findings), None)

    @property
    def findings(self) -> list[Finding]:
        """The refuted checks, root causes first with their consequences (``findings``)."""
        return findings(self.checks)

    @property
    def results(self) -> dict[str, SolverResult]:
        return {r.name: r.result for r in self.solvers if r.result is not None}

    def __repr__(self) -> str:
        """Short: ``<CaseReport figure-1 minimax: verified, 12 checks (12 confirmed)>``."""
        ok = sum(c.verdict is Verdict.CONFIRMED for c in self.checks)
        return (
            f"<CaseReport {self.case.id} {self.case.semantics.value}: {self.verdict.value}, "
            f"{len(self.checks)} check{'' if len(self.checks) == 1 else 's'} ({ok} confirmed)>"
        )

    def timed(self, stage: str, seconds: float, *, first: bool = False) -> CaseReport:
        """This report with ``seconds`` more wall time, spent in ``stage`` (added to what it
        already holds; ``first``: a new stage goes before the others, as reading the files
        does): ``seconds`` stays the sum of ``stages``."""
        spent = {stage: self.stages.get(stage, 0.0) + seconds}
        stages = {**spent, **self.stages} if first else {**self.stages}
        stages.update(spent)
        return replace(self, seconds=self.seconds + seconds, stages=stages)

    def _repr_html_(self) -> str | None:
        """A notebook's view: verdict, answer, open checks, answer table, picture
        (``writers.notebook.report_html``, lent through ``model.display``)."""
        return displayed("report_html", self)
