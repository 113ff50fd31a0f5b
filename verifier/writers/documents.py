"""The results of ``solve --engine dask``, ``grundy`` and ``prove`` as writer ``Document``s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from verifier.model.case import Case
from verifier.writers.base import Document, Records
from verifier.writers.csv import solution_records

if TYPE_CHECKING:
    from verifier.distributed.api import DistributedResult
    from verifier.games.catalog import SequenceReport
    from verifier.smt.theorems import ProofResult

__all__ = ["distributed_document", "proof_document", "sequence_document"]


def distributed_document(case: Case, res: DistributedResult) -> Document:
    """A distributed run: its cost and summary (table, JSON), the answer per node (CSV)."""
    fields: dict[str, Any] = {
        "case": case.id,
        "semantics": case.semantics.value,
        "nodes": case.graph.n,
        "edges": case.graph.m,
        "engine": "dask",
        "shards": res.partitions,
        "seconds": round(res.seconds, 6),
        "summary": dict(res.summary),
        "out": str(res.out) if res.out else None,
    }
    assert res.solution is not None
    return Document(fields, records=solution_records(res.solution))


SHOWN = 200
"""The table shows the values of at most this many heaps (CSV and JSON give them all)."""


def sequence_document(rep: SequenceReport, upto: int) -> Document:
    """A Grundy value sequence and its period; CSV: one ``heap,value`` row per heap size."""
    per = rep.periodicity
    reason = per.reason if per else "no period found in the computed values"
    fields = {
        "game": rep.game,
        "upto": upto,
        "values": list(rep.values),
        "preperiod": per.preperiod if per else None,
        "period": per.period if per else None,
        "certified": per.certified if per else False,
        "reason": reason,
    }
    if rep.computed is not None:
        fields["computed"] = rep.computed
    shown = rep.values if len(rep.values) <= SHOWN else rep.values[:SHOWN]
    lines = [f"{rep.game}: g(0..{upto}) =", " ".join(map(str, shown))]
    if len(shown) < len(rep.values):
        lines[-1] += f" ... ({len(rep.values)} values: --format csv or --json gives them all)"
    if per:
        state = "proved by the periodicity theorem" if per.certified else "observed only"
        lines.append(f"pre-period {per.preperiod}, period {per.period} ({state}: {reason})")
    else:
        lines.append(reason)
    if rep.computed is not None:
        lines.append(
            f"heaps 0..{rep.computed - 1} computed by the mex; the period gives the rest "
            "(the theorem proves g(n + p) = g(n) for every n >= the pre-period)"
        )
    rows = ({"heap": n, "value": v} for n, v in enumerate(rep.values))
    return Document(fields, tuple(lines), Records(("heap", "value"), rows), indent=None)


def proof_document(res: ProofResult) -> Document:
    """A symbolic proof: its verdict and each part's Z3 answer (no CSV form)."""
    fields = {
        "theorem": res.theorem,
        "statement": res.statement,
        "verdict": res.verdict.value,
        "seconds": round(res.seconds, 6),
        "params": dict(res.params),
        "parts": [
            {
                "claim": p.claim,
                "status": p.status,
                "seconds": round(p.seconds, 6),
                "counterexample": p.counterexample,
                "reason": p.reason,
            }
            for p in res.parts
        ],
    }
    lines = [
        f"{res.theorem}: {res.statement}",
        *(f"  {p.claim}: {p.status} ({p.seconds:.2f} s) {p.reason}" for p in res.parts),
        f"{res.verdict.value} in {res.seconds:.2f} s",
    ]
    return Document(fields, tuple(lines), indent=None)
