"""The Python API: load a case, solve it, verify it — the same work as the command line.

>>> import verifier
>>> from verifier import GameGraph, Semantics, Case
>>> g = GameGraph.from_successors({"a": ["b"], "b": ["c"]}, semantics=Semantics.NORMAL)
>>> case = Case(graph=g, id="chain", root=g.id_of("a"))
>>> sol = verifier.solve(case)
>>> sol["a"].value, sol["a"].remoteness, sol["a"].move, sol["a"].line()
('lost', 2, 'b', ['a', 'b', 'c'])
>>> rep = verifier.verify(case)
>>> rep.verdict.value, rep.witness is None
('verified', True)

Heavy modules (numpy kernels, Z3, the solvers) load on the first call, not on ``import verifier``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.errors import NotApplicable
from verifier.model.case import Case

if TYPE_CHECKING:
    from verifier.model.report import CaseReport
    from verifier.model.solution import Solution

__all__ = ["load", "solve", "verify"]


def load(path: str | Path) -> Case:
    """Read a case file of any supported kind (``.json``, ``.npz``, ``.graphml``, ``.gml``);
    bad input raises ``CaseError`` whose message is the command line's one-line error."""
    from verifier.io import load_any

    return load_any(path)


def _case(case: Case | str | Path) -> Case:
    return case if isinstance(case, Case) else load(case)


def solve(case: Case | str | Path, *, engine: str = "auto") -> Solution:
    """Solve with every applicable solver of ``engine`` (``auto`` / ``reference`` / ``numpy``
    / ``compiled``) and compare them, without the Z3 proofs: the answer as a ``Solution``
    keyed by position name (``sol["a"].value``, ``.remoteness``, ``.move``, ``.line()``,
    ``sol.to_dict()``, ``sol.to_pandas()``). ``NotApplicable`` if no solver answers."""
    from verifier.pipeline import run_case
    from verifier.registry import Options

    c = _case(case)
    rep = run_case(c, Options(engine=engine), smt=False)
    if rep.solution is None:
        skipped = "; ".join(f"{r.name}: {r.skipped}" for r in rep.solvers if r.skipped)
        raise NotApplicable(f"{c.id}: no solver answered ({skipped})")
    return rep.solution


def verify(
    case: Case | str | Path,
    *,
    engine: str = "auto",
    rlimit: int | None = None,
    seed: int = 0,
    answers: str | Path | None = None,
    budget: float | None = None,
    linear: bool = False,
) -> CaseReport:
    """Solve, cross-check with Z3 and compare with the case's ``expect`` block, as ``verify``
    does: a report with ``.verdict`` (``verified`` / ``refuted`` / ``inconclusive``),
    ``.checks``, ``.witness`` (the first refuted check's) and ``.solution``. ``rlimit`` is the
    Z3 resource-limit ceiling (default: the command line's). ``answers``: an answer file
    (docs/answers.md) judged alongside the solvers, as ``verify --answers``. ``budget``: the
    seconds the case may take (``verify --budget``). ``linear``: with ``answers``, judge them by
    the linear checks alone (``verify --answers --linear``: no Z3)."""
    from verifier.claims import run_with_claims
    from verifier.io.answers import load_answers
    from verifier.registry import Options

    if linear and answers is None:
        raise ValueError("linear=True judges an answer table: give answers=")
    opts = Options(engine=engine, seed=seed, budget=budget, linear=linear)
    if rlimit is not None:
        opts = replace(opts, rlimit=rlimit)
    c = _case(case)
    claims = load_answers(answers, c) if answers is not None else None
    return run_with_claims(c, opts, claims)
