"""The outside check of a case too big for its in-memory certificate, through a dataset.

Above ``outside.SELF_CHECK_POSITIONS`` (``SELF_CHECK_NPZ_POSITIONS`` on the checker's numpy
path) ``verify CASE`` writes the case and our answers as a temporary stored-graph dataset (one
tier, several shards: ``distributed.tiers.graph_generate.dataset_from_graph``, in this process,
no cluster), writes its dataset certificate (``dataset.certificate``) and hands both
to the standalone checker's dataset route (``checker/stored.py`` through ``checker.judge``),
which judges every node's answers by the conditions of the semantics and recounts the counts
(docs/certificates.md, "When certificates are written and checked"). The folder is removed
afterwards, whatever the verdict.

The answers columns are our answer's (``report.solution``), spelled as the sharded solver
writes them (``label``/``remoteness``, ``score``/``rank``, ``grundy``/``remoteness``). Two
columns are witnesses the checker demands and our answer does not carry, computed here from
our values: a minimax ``rank`` (the layers of the attractor that makes each non-zero score:
the side ahead needs one successor of its score ranked before it, the side behind all of its
successors) and an impartial ``remoteness`` (the height). A wrong witness can only make the
checker reject, never accept a wrong value. Impartial graphs with cycles have no heights: the
dataset route does not judge them (skipped, said why).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.certify.proofs import kept_layers
from verifier.errors import VerifierError
from verifier.io.limits import SELF_CHECK_BYTES_PER_POSITION, default_max_positions
from verifier.model.columns import LOOPY, REMOTENESS, VALUE
from verifier.model.describe import PerSemantics
from verifier.model.graph import GameGraph
from verifier.model.report import CaseReport
from verifier.model.semantics import MAX, WON, Semantics

__all__ = [
    "SHARD_POSITIONS",
    "Judged",
    "dataset_answers",
    "dataset_limit",
    "judged_through_dataset",
    "unavailable",
]

SHARD_POSITIONS = 1 << 22
"""Nodes per shard of the temporary dataset (at least two shards: the route is the one a
sharded dataset takes)."""


def dataset_limit() -> int:
    """The most positions (nodes + moves) the dataset route judges by default: 60% of the
    machine's memory at :data:`~verifier.io.limits.SELF_CHECK_BYTES_PER_POSITION`."""
    return default_max_positions(SELF_CHECK_BYTES_PER_POSITION)


def unavailable() -> str | None:
    """Why the dataset route cannot run here (pyarrow missing), else ``None``."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return "pyarrow is needed for the dataset route of the self-check"
    return None


@dataclass(frozen=True)
class Judged:
    """The checker's verdict through the dataset: ``status`` ACCEPTED / REJECTED / BAD, its
    ``message``, the rejected position by the case's name (``position``), the condition."""

    status: str
    message: str
    position: str | None = None
    condition: str | None = None
    shards: int = 0


def _given(col: Any, fill: int) -> NDArray[np.int64]:
    return np.where(col.given, np.asarray(col.data, dtype=np.int64), fill)


def _minimax_ranks(g: GameGraph, score: NDArray[np.float64]) -> NDArray[np.int32]:
    """A rank per node (-1 at score 0): leaves of a non-zero score first; the side ahead (Max
    above 0, Min below) after one successor of its score, the side behind after all of its
    successors (``checker/stored.py``'s ``ranks``)."""
    src = np.repeat(np.arange(g.n, dtype=np.int64), g.out_degree)
    dst = np.asarray(g.succ_idx, dtype=np.int64)
    dead = g.out_degree == 0
    owner = np.asarray(g.owner)
    ahead = np.where(score > 0, owner == MAX, owner != MAX)
    keep = np.where(ahead[src], score[dst] == score[src], True)
    layer = kept_layers(g, keep, ahead, dead & (score != 0), score == 0)
    return layer.astype(np.int32)


def _heights(g: GameGraph) -> NDArray[np.int64]:
    """Each node's height (a dead end's 0, another's 1 + the greatest of its successors';
    -1 on a cycle or leading to one)."""
    dead = g.out_degree == 0
    none = np.zeros(g.n, dtype=np.bool_)
    return kept_layers(g, np.ones(g.m, dtype=np.bool_), none, dead, none)


Columns = dict[str, NDArray[Any]]
_ANSWERS: PerSemantics[Callable[[CaseReport], Columns | str]] = PerSemantics(
    "the answers columns of a stored graph"
)
"""Our answer as a stored graph's answers columns, per semantics (or why the route cannot)."""


def dataset_answers(report: CaseReport) -> Columns | str:
    """Our answer as the answers columns of a stored graph of its semantics, or why the
    dataset route cannot judge it."""
    assert report.solution is not None
    return _ANSWERS[report.case.semantics](report)


def _remoteness(report: CaseReport) -> NDArray[np.int32]:
    """Our remoteness where given, -1 elsewhere (drawn, outside the region)."""
    assert report.solution is not None
    col = report.solution.columns.get(REMOTENESS)
    return (np.full(report.case.graph.n, -1) if col is None else _given(col, -1)).astype(np.int32)


def _value(report: CaseReport) -> NDArray[Any]:
    assert report.solution is not None
    return np.asarray(report.solution.columns[VALUE].data)


@_ANSWERS.register(Semantics.NORMAL)
def _normal(report: CaseReport) -> Columns:
    """``label`` (+1 won, -1 lost, 0 drawn: ours as they are) and ``remoteness``."""
    return {"label": _value(report).astype(np.int8), REMOTENESS: _remoteness(report)}


@_ANSWERS.register(Semantics.REACHABILITY)
def _region(report: CaseReport) -> Columns:
    """``label`` +1 in player 0's region (ours: won), -1 outside; ``remoteness`` the layer."""
    label = np.where(_value(report) == WON, 1, -1).astype(np.int8)
    return {"label": label, REMOTENESS: _remoteness(report)}


@_ANSWERS.register(Semantics.MINIMAX)
def _scores(report: CaseReport) -> Columns:
    """``score`` (ours) and ``rank`` (the witness ``_minimax_ranks``)."""
    score = _value(report).astype(np.float64)
    return {"score": score, "rank": _minimax_ranks(report.case.graph, score)}


@_ANSWERS.register(Semantics.IMPARTIAL)
def _grundy(report: CaseReport) -> Columns | str:
    """``grundy`` (ours) and ``remoteness`` the height; none on a graph with cycles."""
    assert report.solution is not None
    loopy = report.solution.columns.get(LOOPY)
    height = _heights(report.case.graph)
    if (loopy is not None and bool(loopy.given.any())) or bool((height < 0).any()):
        return "the dataset route judges impartial graphs without cycles only"
    value = report.solution.columns[VALUE]
    return {"grundy": _given(value, -1), REMOTENESS: height.astype(np.int32)}


def _counts(sem: Semantics, a: Columns) -> tuple[int, int, int, int]:
    """The tier's counts as the manifest keeps them (``StoredColumns.counts``)."""
    from verifier.dataset.stored_columns import COLUMNS

    return COLUMNS[sem].counts(a)


def write_dataset(root: Path, report: CaseReport, answers: Columns, shards: int) -> None:
    """Write the case's graph and ``answers`` as a solved one-tier stored-graph dataset."""
    from verifier.dataset.storage import write_rule_answers
    from verifier.distributed.tiers.graph_generate import dataset_from_graph

    g, case = report.case.graph, report.case
    start = case.root if case.root is not None else 0
    m = dataset_from_graph(root, g, None, shards=shards, start=start, reverse=False,
                           source=str(case.path))  # fmt: skip
    tier = m.tiers[0]
    lo = 0
    for s in tier.shards:
        part = {k: v[lo : lo + s.positions] for k, v in answers.items()}
        s.answers_sha256 = write_rule_answers(root, 0, s.shard, part)  # normal's columns too
        lo += s.positions
    tier.won, tier.lost, tier.drawn, tier.max_remoteness = _counts(g.semantics, answers)
    tier.status = "solved"
    m.save(root)


def judged_through_dataset(report: CaseReport) -> Judged | str:
    """The standalone checker's verdict on our answer through a temporary dataset (removed
    afterwards), or why the route cannot judge it."""
    from checker.judge import check
    from verifier.dataset.certificate import certificate_of

    answers = dataset_answers(report)
    if isinstance(answers, str):
        return answers
    g = report.case.graph
    shards = max(2, -(-g.n // SHARD_POSITIONS))
    with tempfile.TemporaryDirectory(prefix="gamegraph-selfcheck-") as tmp:
        root = Path(tmp) / "dataset"
        cert = Path(tmp) / "certificate.json"
        try:
            root.mkdir()
            write_dataset(root, report, answers, shards)
            del answers
            cert.write_text(json.dumps(certificate_of(root), indent=1) + "\n")
        except (OSError, VerifierError) as e:  # a full disk, say: not judged, said why
            why = str(e).replace(tmp, "the temporary dataset")
            return f"the temporary dataset could not be written: {why}"
        out = check(str(root), str(cert), 1)
    code = getattr(out, "code", None)
    position = None
    if out.status == "REJECTED" and isinstance(code, int) and 0 <= code < g.n:
        position = g.name(code)  # one tier: a node's code is its id in the case
    message = str(out.message).replace(tmp, "the temporary dataset")
    if position is not None:
        message = f"position {position!r}: {message}"
    return Judged(out.status, message, position, getattr(out, "condition", None), shards)
