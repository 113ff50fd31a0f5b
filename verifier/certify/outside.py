"""The outside check: ``verify`` says VERIFIED only when the standalone checker
(``checker/check_certificate.py``: its own reader, no code of this package) accepts the
certificate of our answer as written to a file (docs/certificates.md, *When certificates are
written and checked*). A rejection is a refuted ``certificate`` check that names the position
and says it is our own output that is wrong: a bug in our reader, the per-semantics
description or a writer can no longer be confirmed by the rest of our code.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from pathlib import Path
from typing import Any

from verifier.certify.content import certificate_of
from verifier.certify.files import save_certificate
from verifier.certify.proofs import CertificateError, ProofGaveUp
from verifier.model.columns import LOOPY, VALUE, answer_columns
from verifier.model.report import CaseReport, CaseVerdict
from verifier.model.results import CheckResult, Verdict
from verifier.writers.answer import answer_block

__all__ = ["CHECK", "SELF_CHECK_POSITIONS", "Outcome", "run_checker", "self_checked"]

CHECK = "certificate"
SELF_CHECK_POSITIONS = 1_000_000
"""Cases up to this many positions are checked from outside by default (``--self-check``
asks for it above; ``--no-self-check`` turns it off)."""

SELF_CHECK_NPZ_POSITIONS = 10_000_000
"""The same for an ``.npz`` case of ``normal``, ``reachability`` or ``minimax`` judged with no
answer file or an ``.npz`` one: the certificate is written as ``.npz`` and the checker's numpy
path judges it (10^7 positions: 5-7 s, about the linear verify's time; benchmarks/
bench_certificates.py)."""

_NUMPY_PATH = frozenset({"normal", "reachability", "minimax"})

Outcome = Any
"""``checker.check_certificate.Outcome``: ``status`` (ACCEPTED / REJECTED / BAD), ``message``,
``position``, ``condition``."""


def run_checker(case: Path, cert: Path, answers: Path | None = None) -> Outcome:
    """The standalone checker's verdict on ``cert`` (and ``answers``) for the case file."""
    from checker.check_certificate import check

    return check(str(case), str(cert), None if answers is None else str(answers))


def self_checked(
    report: CaseReport,
    *,
    keep: Path | None = None,
    csv: bool = False,
    force: bool = False,
    answers: Path | None = None,
) -> CaseReport:
    """``report`` with the outside check added and its verdict decided again.

    Runs on a verified report whose case was read from a file: up to
    ``SELF_CHECK_POSITIONS`` on the certificate, above it through a temporary dataset
    (``_through_dataset``) up to the memory that takes, unless ``force`` (without pyarrow: the
    certificate at any size); ``keep``: write the certificate there (else to
    a temporary file); ``csv``: also hand the checker the answer as ``--format csv`` prints it;
    ``answers``: an answer file written from the same report, which must say the same. The
    lines the table prints first (``answer_block``) go into the certificate as ``printed``, and
    the report keeps them (and the CSV text) for the writers to print as certified.
    A report it does not run on is returned as it is (``summary["certificate"]`` says so when
    the case was too big)."""
    case = report.case
    fast = _numpy_path(report, csv, answers)
    why = _not_run(report, keep is not None, fast)
    if why is not None:
        if not why.startswith("skipped"):  # nothing to certify: the report as it is
            return report
        tables = report.case.path is not None and report.case.path.is_dir()  # no case file
        routed = _through_dataset(report, why, force and not tables)
        if routed is not None:
            return routed  # else asked for, and no dataset route: the certificate, any size
    t0 = time.perf_counter()
    printed = tuple(answer_block(report))  # rendered once: certified here, printed as they are
    text = None
    with tempfile.TemporaryDirectory(prefix="gamegraph-cert-") as tmp:
        name = "certificate.npz" if fast else "certificate.json"
        cert_path = keep if keep is not None else Path(tmp) / name
        try:
            save_certificate(certificate_of(report, printed=printed), cert_path)
        except CertificateError as e:
            failed = _with(report, _refuted(str(e), None, "proof", t0))
            return failed.timed("certificate", time.perf_counter() - t0)
        except ProofGaveUp as e:  # not wrong, not certified: the outside check cannot decide
            open_ = CheckResult(CHECK, Verdict.UNKNOWN, str(e), seconds=time.perf_counter() - t0)
            return _with(report, open_).timed("certificate", time.perf_counter() - t0)
        rows, more = answers, None
        if csv:  # the CSV as it will be printed, judged with its outcome column
            text = _csv_text(report)
            rows, more = Path(tmp) / "answers.csv", answers
            rows.write_bytes(text.encode("utf-8"))
        assert case.path is not None
        t_cert = time.perf_counter()
        out = run_checker(case.path, cert_path, rows)
        if out.status == "ACCEPTED" and more is not None:  # the answer file beside it too
            out = run_checker(case.path, cert_path, more)
    t_end = time.perf_counter()
    if out.status == "ACCEPTED":
        trusted = int("rests on Z3" in out.message)  # the claims without a linear certificate
        detail = "the standalone checker (its own reader) accepts the certificate of our answer"
        if trusted:
            detail += "; 1 claim rests on Z3 (uniqueness: too big for the SAT solver's proof)"
        result = CheckResult(
            CHECK,
            Verdict.CONFIRMED,
            detail,
            seconds=t_end - t_cert,
            data={"rests_on_z3": trusted},
        )
    else:
        result = _refuted(out.message, out.position, out.condition, t0)
    summary = {**report.summary, CHECK: "written" if keep is not None else "checked"}
    checked = dataclasses.replace(
        _with(report, result), summary=summary, printed=printed, printed_csv=text
    )
    return checked.timed("certificate", t_cert - t0).timed("self-check", t_end - t_cert)


def _through_dataset(report: CaseReport, above: str, force: bool) -> CaseReport | None:
    """``report`` judged by the checker through a temporary dataset (``through_dataset``: a
    case above the in-memory certificate's size ``above`` says), up to the memory the route
    takes (any size when ``force``); else with ``summary["certificate"]`` saying why not.
    ``None`` when the route cannot judge the case (no pyarrow, an impartial graph with cycles)
    and ``force`` asks for the self-check: the certificate judges it then."""
    from verifier.certify import through_dataset as route

    g = report.case.graph
    missing = route.unavailable()
    if missing is not None:
        why = f"{above.removesuffix(')')}; {missing})"
        return None if force else _skipped(report, why)
    limit = route.dataset_limit()
    if g.n + g.m > limit and not force:
        why = (
            f"skipped: {g.n:,} positions and {g.m:,} moves, above the {limit:,} nodes + moves "
            "the memory admits to the self-check through a dataset (--self-check asks for it)"
        )
        return _skipped(report, why)
    t0 = time.perf_counter()
    out = route.judged_through_dataset(report)
    t_end = time.perf_counter()
    if isinstance(out, str):  # a graph the route cannot judge
        return None if force else _skipped(report, f"{above.removesuffix(')')}; {out})")
    if out.status == "ACCEPTED":
        detail = (
            "the standalone checker (its own reader) accepts our answer through a temporary "
            f"dataset ({g.n:,} positions in {out.shards} shards: every position's answer by "
            f"the conditions of {g.semantics.value}, and the counts)"
        )
        result = CheckResult(CHECK, Verdict.CONFIRMED, detail, seconds=t_end - t0)
    else:
        result = _refuted(out.message, out.position, out.condition, t0)
    summary = {**report.summary, CHECK: "checked through a dataset"}
    checked = dataclasses.replace(_with(report, result), summary=summary)
    return checked.timed("self-check", t_end - t0)


def _skipped(report: CaseReport, why: str) -> CaseReport:
    """``report`` with ``summary["certificate"]`` saying why the outside check did not run."""
    return dataclasses.replace(report, summary={**report.summary, CHECK: why})


def _numpy_path(report: CaseReport, csv: bool, answers: Path | None) -> bool:
    """Whether the checker's numpy path will judge (an ``.npz`` case and certificate; the CSV
    printed, or an ``.npz`` answer file, or none)."""
    path = report.case.path
    npz = path is not None and path.suffix.lower() == ".npz"
    rows = csv or answers is None or answers.suffix.lower() == ".npz"
    return npz and rows and report.case.semantics.value in _NUMPY_PATH


def _not_run(report: CaseReport, force: bool, fast: bool = False) -> str | None:
    if report.verdict not in (CaseVerdict.VERIFIED, CaseVerdict.SOLVED):
        return f"not written: the case is {report.verdict.value}"
    if report.case.path is None:
        return "not written: the case was not read from a file"
    if report.solution is None or not bool(report.solution.covered.all()):
        return "not written: no whole answer"
    if report.case.path.is_dir():
        return "skipped: Parquet tables, not a case file (a certificate is for a case file)"
    n, limit = report.case.graph.n, SELF_CHECK_NPZ_POSITIONS if fast else SELF_CHECK_POSITIONS
    if n > limit and not force:
        return f"skipped: {n:,} positions, above {limit:,} (--self-check asks for it)"
    return None


def _refuted(message: str, position: str | None, condition: str | None, t0: float) -> CheckResult:
    detail = f"our own output is wrong: the standalone checker rejects it: {message}"
    witness: dict[str, Any] = {"reason": "our own output", "message": message}
    if position is not None:
        witness["node"] = position
    if condition is not None:
        witness["condition"] = condition
    return CheckResult(
        CHECK, Verdict.REFUTED, detail, witness=witness, seconds=time.perf_counter() - t0
    )


def _with(report: CaseReport, result: CheckResult) -> CaseReport:
    from verifier.pipeline import decide, stamped

    every = frozenset({VALUE, LOOPY, *(s.name for s in answer_columns())})
    checks = [*report.checks, *stamped([result], CHECK, every)]
    verdict = decide(checks)
    if report.verdict is CaseVerdict.SOLVED and verdict is CaseVerdict.VERIFIED:
        verdict = CaseVerdict.SOLVED  # solved, not proved: the outside check adds no Z3
    return dataclasses.replace(report, checks=tuple(checks), verdict=verdict)


def _csv_text(report: CaseReport) -> str:
    """The ``--format csv`` text of this case alone (``CsvWriter`` prints it as it is)."""
    import io

    from verifier.io.jsonpath import paused_gc
    from verifier.writers.csv import solution_records, write_records

    out = io.StringIO()
    with paused_gc():  # a row's strings a node: no cycles for the collector to look for
        write_records(solution_records(report.solution), out)
    return out.getvalue()
