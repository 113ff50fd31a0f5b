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

import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.errors import NotApplicable
from verifier.model.case import Case

if TYPE_CHECKING:
    from verifier.io.answer_base import Answers
    from verifier.io.limits import Command
    from verifier.model.report import CaseReport
    from verifier.model.solution import Solution
    from verifier.registry import ProgressFn

__all__ = ["load", "solve", "solve_report", "verify"]


def load(path: str | Path, *, command: Command = "solve", max_positions: int | None = None) -> Case:
    """Read a case file of any supported kind (``.json``, ``.npz``, ``.graphml``, ``.gml``);
    bad input raises ``CaseError`` whose message is the command line's one-line error. The
    largest case read is ``command``'s (``verifier solve``'s by default, the lightest: what
    :func:`solve` takes; :func:`verify` refuses what ``verify`` would); ``max_positions``
    (nodes + moves) when given, as ``--max-positions``."""
    from verifier.io import load_any
    from verifier.io.limits import Limits

    return load_any(path, limits=Limits.for_command(command, max_positions))


def _case(case: Case | str | Path, command: Command, max_positions: int | None = None) -> Case:
    """The case given, or read at ``command``'s limit (``max_positions`` when given: the
    command line's ``--max-positions``); a case given is held to that limit too (the command
    line's refusal: one line, the ways on)."""
    if not isinstance(case, Case):
        return load(case, command=command, max_positions=max_positions)
    from verifier.io.limits import Limits

    g = case.graph
    what = f"{g.n:,} nodes and {g.m:,} moves"
    limits = Limits.for_command(command, max_positions)
    limits.check_positions(g.n + g.m, str(case.path or case.id), what=what)
    return case


def _lend_drawings() -> None:
    """Lend the model the notebook's drawings (``model.display``), so that what ``solve`` and
    ``verify`` return shows itself in a notebook (its table, its picture)."""
    import verifier.writers.notebook  # noqa: F401  (registers them when first imported)


def solve(
    case: Case | str | Path, *, engine: str = "auto", max_positions: int | None = None
) -> Solution:
    """Solve with every applicable solver of ``engine`` (``auto`` / ``reference`` / ``numpy``
    / ``compiled``) and compare them, without the Z3 proofs: the answer as a ``Solution``
    keyed by position name (``sol["a"].value``, ``.remoteness``, ``.move``, ``.line()``,
    ``sol.to_dict()``, ``sol.to_pandas()``). ``NotApplicable`` if no solver answers."""
    c = _case(case, "solve", max_positions)
    rep = solve_report(c, engine=engine, max_positions=max_positions)
    if rep.solution is None:
        skipped = "; ".join(f"{r.name}: {r.skipped}" for r in rep.solvers if r.skipped)
        raise NotApplicable(f"{c.id}: no solver answered ({skipped})")
    return rep.solution


def solve_report(
    case: Case | str | Path,
    *,
    engine: str = "auto",
    progress: ProgressFn | None = None,
    max_positions: int | None = None,
) -> CaseReport:
    """What :func:`solve` runs, as the whole report ``verifier solve`` writes: every solver's
    run, their agreement and the ``expect`` block (verdict ``solved``, ``refuted`` or
    ``inconclusive``), no Z3. ``progress``: called with ``(task, done, total)`` now and then.
    ``max_positions``: the largest case (nodes + moves) taken, as ``--max-positions``
    (default: solve's, sized to the machine)."""
    from verifier.pipeline import run_case
    from verifier.registry import Options

    _lend_drawings()
    c = _case(case, "solve", max_positions)
    return run_case(c, Options(engine=engine, progress=progress), smt=False)


def verify(
    case: Case | str | Path,
    *,
    engine: str = "auto",
    rlimit: int | None = None,
    seed: int = 0,
    answers: str | Path | Answers | None = None,
    budget: float | None = None,
    linear: bool = False,
    progress: ProgressFn | None = None,
    self_check: bool | None = None,
    certificate: str | Path | None = None,
    max_positions: int | None = None,
) -> CaseReport:
    """Solve, cross-check with Z3 and compare with the case's ``expect`` block, as ``verify``
    does: a report with ``.verdict`` (``verified`` / ``refuted`` / ``inconclusive``),
    ``.checks``, ``.witness`` (the first refuted check's) and ``.solution``. ``rlimit`` is the
    Z3 resource-limit ceiling (default: the command line's). ``answers``: an answer file
    (docs/answers.md), or its ``Answers`` as read, judged alongside the solvers, as ``verify
    --answers``. ``budget``: the seconds the case may take (``verify --budget``). ``linear``:
    with ``answers``, judge them by the linear checks alone (``verify --answers --linear``: no
    Z3). ``progress``: called with ``(task, done, total)`` now and then. ``self_check``: the
    standalone checker judges the certificate of our answer before it is called verified
    (docs/certificates.md): ``None`` up to ``SELF_CHECK_POSITIONS`` positions on its
    certificate, above through a temporary dataset as far as the memory allows
    (``certify.through_dataset``), ``True`` at any size, ``False`` never. ``certificate``:
    also write that certificate to this file (``.json`` or ``.npz``). ``max_positions``: the
    largest case (nodes + moves) taken, as ``--max-positions`` (default: the command's)."""
    from verifier.certify.outside import self_checked
    from verifier.claims import run_with_claims
    from verifier.io.answer_base import Answers
    from verifier.io.answers import load_answers
    from verifier.registry import Options

    if linear and answers is None:
        raise ValueError("linear=True judges an answer table: give answers=")
    _lend_drawings()
    opts = Options(engine=engine, seed=seed, budget=budget, linear=linear, progress=progress)
    if rlimit is not None:
        opts = replace(opts, rlimit=rlimit)
    t0 = time.perf_counter()
    c = _case(case, "linear" if linear else "verify", max_positions)
    if answers is None or isinstance(answers, Answers):
        claims = answers
    else:
        claims = load_answers(answers, c)
    read = time.perf_counter() - t0
    rep = run_with_claims(c, opts, claims).timed("read", read, first=True)
    if self_check is False and certificate is None:
        return rep
    keep = None if certificate is None else Path(certificate)
    return self_checked(rep, keep=keep, force=bool(self_check))
