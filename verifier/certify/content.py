"""What a certificate holds (docs/certificates.md), built from a verified report.

The answer part is spelled by the same code that writes answer files and prints the report
(``answer_entries``, the description's ``show``, the report's summary and line of play): the
certificate exists to catch bugs in those shared layers, so it must go through them, and the
standalone checker, with its own reader, judges what they wrote.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.certify.proofs import (
    CertificateError,
    MinimaxBounds,
    ProofGaveUp,
    fraenkel_counter,
)
from verifier.io.answers import answer_entries, names_of, npz_columns
from verifier.model.columns import LOOPY, VALUE
from verifier.model.describe import PerSemantics, describe
from verifier.model.report import CaseReport
from verifier.model.results import CheckResult, by_check
from verifier.model.semantics import Semantics

__all__ = ["FORMAT", "VERSION", "Certificate", "certificate_of"]

FORMAT = "gamegraph-verifier-certificate"
VERSION = 1

_UNIQUENESS_CHECKS = ("smt-uniqueness", "grundy-z3-mex")


@dataclass(frozen=True, eq=False)
class Certificate:
    """A certificate's header (everything but the per-position entries) and its entries, as
    arrays over the position ids (``columns``) and as the answer file's entries."""

    header: dict[str, Any]
    report: CaseReport
    proofs: Mapping[str, NDArray[Any]] = field(default_factory=dict)
    """The proof columns by id: ``lfp``, ``gfp`` (scores), ``lfp_rank``, ``gfp_rank``,
    ``counter`` (-1 = none)."""

    def json_document(self) -> dict[str, Any]:
        """The ``.json`` encoding: every position by name."""
        rep = self.report
        g, sol = rep.case.graph, rep.solution
        assert sol is not None
        d = describe(g.semantics)
        nodes: dict[str, Any] = {}
        lfp, gfp = self.proofs.get("lfp"), self.proofs.get("gfp")
        ranks = [
            (k, self.proofs[k]) for k in ("lfp_rank", "gfp_rank", "counter") if k in self.proofs
        ]
        name = names_of(g)
        for x, v, more in answer_entries(sol, g, name):
            entry = {"value": v, **more}
            if lfp is not None and gfp is not None:
                entry["lfp"], entry["gfp"] = d.show(lfp[x]), d.show(gfp[x])
            for key, col in ranks:
                if col[x] >= 0:
                    entry[key] = int(col[x])
            nodes[name(x)] = entry
        listed = {"names": list(g.names)} if "names" in self.header else {}
        return {**self.header, **listed, "nodes": nodes}

    def npz_arrays(self) -> dict[str, Callable[[], NDArray[Any]]]:
        """The ``.npz`` encoding: the answer file's arrays, the proof columns and the header."""
        rep = self.report
        assert rep.solution is not None
        arrays = npz_columns(rep.solution, rep.case)
        answer_header = json.loads(arrays["header"]().tobytes())
        header = {**self.header, "loopy": answer_header.get("loopy", {})}
        header.pop("names", None)
        text = json.dumps(header).encode("utf-8")
        out: dict[str, Callable[[], NDArray[Any]]] = {
            "header": lambda: np.frombuffer(text, dtype=np.uint8)
        }
        if "names" in self.header:  # an array of ASCII names (a game's codec decodes them)
            out["names"] = lambda: _encoded_names(rep.case.graph.names)
        for name, make in arrays.items():
            if name not in ("header", "ids"):
                out[name] = make
        for name, col in self.proofs.items():
            out[name] = _made(col)
        return out


def _encoded_names(names: Any) -> NDArray[np.bytes_]:
    whole = names.encoded(0, len(names)) if hasattr(names, "encoded") else None
    return whole if whole is not None else np.array([x.encode("utf-8") for x in names])


def _made(a: NDArray[Any]) -> Callable[[], NDArray[Any]]:
    return lambda: a


def case_digest(path: Path) -> str:
    """SHA-256 (hex) of the case file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def certificate_of(report: CaseReport, printed: Sequence[str] | None = None) -> Certificate:
    """The certificate of a report's answer. ``CertificateError`` when there is none to write:
    no whole answer, no case file, or an answer its proofs refute (naming the position).
    ``printed``: the lines the table prints first, which the checker reads and judges."""
    case, sol = report.case, report.solution
    if sol is None or not bool(sol.covered.all()):
        raise CertificateError("no whole answer to certify")
    if case.path is None:
        raise CertificateError("the case was not read from a file (a certificate is for a file)")
    g = case.graph
    summary = report.summary
    header: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "semantics": case.semantics.value,
        "case": {"sha256": case_digest(case.path), "positions": g.n, "moves": g.m},
        "summary": {k: summary.get(k) for k in ("won", "lost", "drawn", "longest_win")}
        | {"root": summary.get("root"), "root_value": summary.get("root_value")},
    }
    if printed is not None:
        header["printed"] = list(printed)
    codec = getattr(g.names, "codec", None)
    if codec is not None and case.path.suffix.lower() == ".npz":
        # the case file holds a game's codes of its names: the certificate lists them
        # (json_document, npz_arrays), and the checker decodes the codes itself to compare
        header["names"] = "listed"
        if str(codec).endswith(":symmetric") and summary.get("symmetry") is not None:
            # the counts over all positions, each class by its size, which the checker
            # recomputes from the codes (checker/name_codecs.py) and compares with the printed
            header["summary"]["symmetry"] = dict(summary["symmetry"])
        if str(codec).startswith("chess:") and summary.get("chess"):
            header["summary"]["chess"] = summary["chess"]  # recomputed from the codes too
    if case.root is not None:  # the line the report prints, of the report's length
        from verifier.writers.answer import LINE_PLIES

        header["line"] = sol.line(case.root, LINE_PLIES)
    proofs = _PROOFS[g.semantics](report, header)
    uniq = _uniqueness(report)
    if uniq is not None:
        header["uniqueness"] = uniq
    return Certificate(header=header, report=report, proofs=proofs)


Proofs = dict[str, NDArray[Any]]
_PROOFS: PerSemantics[Callable[[CaseReport, dict[str, Any]], Proofs]] = PerSemantics(
    "certificate proof arrays"
)
"""The proof arrays of a certificate (docs/certificates.md), per semantics, given the report and
the header (which they may complete)."""


@_PROOFS.register(Semantics.MINIMAX)
def _bounds(report: CaseReport, header: dict[str, Any]) -> Proofs:
    """Kars' score: the least and greatest solutions with their ranks."""
    b = MinimaxBounds(report.case.graph)
    return {"lfp": b.lfp, "gfp": b.gfp, "lfp_rank": b.lfp_rank, "gfp_rank": b.gfp_rank}


@_PROOFS.register(Semantics.IMPARTIAL)
def _counter(report: CaseReport, header: dict[str, Any]) -> Proofs:
    """Grundy values: Fraenkel's counter of the finite ones, and the sums the report judged."""
    assert report.solution is not None
    sol = report.solution
    val = sol.columns[VALUE]
    inf = sol.columns.get(LOOPY)
    finite = np.asarray(val.given, dtype=np.bool_)
    if inf is not None:
        finite &= ~inf.given
    values = np.asarray(val.data, dtype=np.int64)
    proofs = {"counter": fraenkel_counter(report.case.graph, finite, values)}
    sums = _sums(report)
    if sums is not None:
        header["sums"] = sums
    return proofs


@_PROOFS.register(Semantics.NORMAL, Semantics.REACHABILITY)
def _no_arrays(report: CaseReport, header: dict[str, Any]) -> Proofs:
    """Labels and regions: no proof arrays."""
    return {}


def _sums(report: CaseReport) -> dict[str, Any] | None:
    for c in by_check(report.checks, "grundy-sums"):
        if "sums" in c.data:
            return {k: int(v) if str(v).isdigit() else v for k, v in c.data["sums"].items()}
    return None


def _uniqueness(report: CaseReport) -> dict[str, Any] | None:
    """The report's uniqueness claim with its proof (docs/certificates.md, *Uniqueness*)."""
    for name in _UNIQUENESS_CHECKS:
        for c in by_check(report.checks, name):
            if "unique" not in c.data:
                continue
            claim = "unique" if c.data["unique"] else "not unique"
            return _UNIQUENESS[report.case.semantics](report, c, claim)
    return None


_UNIQUENESS: PerSemantics[Callable[[CaseReport, CheckResult, str], dict[str, Any]]] = PerSemantics(
    "uniqueness proof"
)
"""The proof of a uniqueness claim (docs/certificates.md, *Uniqueness*), per semantics, given
the report, the check that made the claim and the claim."""


@_UNIQUENESS.register(Semantics.MINIMAX)
def _intervals(report: CaseReport, c: CheckResult, claim: str) -> dict[str, Any]:
    return {"claim": claim, "proof": "intervals"}


@_UNIQUENESS.register(Semantics.NORMAL)
def _labels(report: CaseReport, c: CheckResult, claim: str) -> dict[str, Any]:
    from verifier.smt.uniqueness import SHOW_NODES  # only reports with a uniqueness claim

    labels = (c.witness or {}).get("labels")
    whole = isinstance(labels, dict) and len(labels) < SHOW_NODES  # else cut short
    if claim == "not unique" and whole:
        assert isinstance(labels, dict)
        return {"claim": claim, "proof": "witness", "witness": dict(labels)}  # Z3's
    return _won_lost_uniqueness(report, claim)


@_UNIQUENESS.register(Semantics.IMPARTIAL, Semantics.REACHABILITY)
def _mex(report: CaseReport, c: CheckResult, claim: str) -> dict[str, Any]:
    return _mex_uniqueness(report, claim, str(c.data["solutions"]))


def _won_lost_uniqueness(report: CaseReport, claim: str) -> dict[str, Any]:
    """Normal play: "unique" by the ranks alone when nothing is drawn, else by a DRUP proof;
    "not unique" by a second labelling. What the SAT solver finds is written even where it
    contradicts the claim (an empty proof, or no witness), so the checker rejects our output."""
    from verifier.certify.drup import won_lost_proof  # only normal cases with a claim

    assert report.solution is not None
    g = report.case.graph
    labels = [int(v) for v in np.asarray(report.solution.columns[VALUE].data)]
    if claim == "unique" and 0 not in labels:
        return {"claim": claim, "proof": "ranks"}
    found = won_lost_proof(g.succ_ptr, g.succ_idx, labels)
    if found.proof is None and found.other is None:
        reason = f"Z3 says {claim}; no DRUP proof: {found.why}"
        drawn = np.flatnonzero(np.asarray(labels) == 0)
        return _resting_on_z3(claim, reason, "normal", g.succ_ptr, drawn)
    if claim == "unique":
        return {"claim": claim, "proof": "drup", "drup": found.proof or []}
    other = found.other or labels
    words = {1: "won", -1: "lost", 0: "draw"}
    witness = {g.name(x): words[v] for x, v in enumerate(other) if v != labels[x]}
    return {"claim": claim, "proof": "witness", "witness": witness}


def _mex_uniqueness(report: CaseReport, claim: str, count: str) -> dict[str, Any]:
    """Impartial games: the solutions of the mex equations Z3 counted ("0", "1", "several"),
    listed (up to two, by name), and a DRUP proof that there is no other where there are fewer
    than two. What the SAT solver finds is written even where it contradicts Z3's count, so
    the checker rejects our output."""
    from verifier.certify.drup import mex_solutions  # only impartial cases with a claim

    g = report.case.graph
    found, proof = mex_solutions(g.succ_ptr, g.succ_idx)
    if not found and proof is None:
        why = f"Z3 counted {count} solution(s) of the mex equations; the SAT solver gave up"
        return _resting_on_z3(claim, why, "impartial", g.succ_ptr)
    u: dict[str, Any] = {"claim": claim, "proof": "mex", "solutions": count}
    for key, sol in zip(("first", "second"), found, strict=False):
        u[key] = {g.name(x): v for x, v in enumerate(sol)}
    if proof is not None:
        u["drup"] = proof
    return u


def _resting_on_z3(
    claim: str, reason: str, sem: str, ptr: Any, among: Any = None
) -> dict[str, Any]:
    """A claim without a proof: resting on Z3 where the checker allows it (its CNF above the
    limit, as the checker counts it), else ``ProofGaveUp``: the claim is left uncertified and
    the outside check says so (inconclusive), as a stranger's checker would refuse it."""
    from verifier.certify.drup import DRUP_MAX_CLAUSES, clause_count

    if clause_count(sem, ptr, among) <= DRUP_MAX_CLAUSES:
        raise ProofGaveUp(f"the uniqueness claim ({claim}) has no proof: {reason}")
    return {"claim": claim, "proof": "rests-on-z3", "reason": reason}
