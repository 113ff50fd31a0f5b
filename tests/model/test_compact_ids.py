"""Successor ids stored as int32 (``index_dtype``) change nothing a run reports: the whole
pipeline (every solver, certificate and Z3 check) on a graph whose move keys ``id * n + id``
pass 2^31, once with the compact ids and once with int64 ids forced, must give the same
verdicts and the same answer, column by column (a key computed in int32 that wraps around in
what these runs exercise shows up as a difference; targeted tests cover paths random graphs may
not reach, e.g. ``test_normal_flip.test_the_flip_is_found_at_ids_whose_keys_pass_int32``)."""

from __future__ import annotations

import numpy as np
import pytest

from verifier.engine import frontier
from verifier.games.random_graphs import random_case
from verifier.model import Semantics
from verifier.model import graph as graph_module
from verifier.model.report import CaseReport
from verifier.pipeline import run_case

N = 70_000  # N * N > 2^32


def _run(semantics: Semantics, nodes: int) -> CaseReport:
    case = random_case(semantics, nodes, 2.5, seed=5, acyclic=False)
    return run_case(case)


def _same(a: CaseReport, b: CaseReport) -> None:
    assert a.verdict == b.verdict
    assert [(c.name, c.verdict) for c in a.checks] == [(c.name, c.verdict) for c in b.checks]
    assert a.solution is not None and b.solution is not None
    assert a.solution.columns.keys() == b.solution.columns.keys()
    for name, col in a.solution.columns.items():
        other = b.solution.columns[name]
        assert np.array_equal(col.given, other.given), name
        assert np.array_equal(col.data[col.given], other.data[other.given]), name


def _compare(semantics: Semantics, nodes: int, monkeypatch: pytest.MonkeyPatch) -> None:
    compact = _run(semantics, nodes)
    assert compact.case.graph.succ_idx.dtype == np.int32
    with monkeypatch.context() as m:
        m.setattr(graph_module, "index_dtype", lambda n: np.int64)
        m.setattr(frontier, "index_dtype", lambda n: np.int64)
        wide = _run(semantics, nodes)
    assert wide.case.graph.succ_idx.dtype == np.int64
    assert compact.verdict.value == "verified"
    _same(compact, wide)


@pytest.mark.parametrize("semantics", [Semantics.NORMAL, Semantics.MINIMAX, Semantics.REACHABILITY])
def test_compact_ids_change_nothing(semantics: Semantics, monkeypatch: pytest.MonkeyPatch) -> None:
    _compare(semantics, N, monkeypatch)


@pytest.mark.slow
def test_compact_ids_change_nothing_impartial(monkeypatch: pytest.MonkeyPatch) -> None:
    _compare(Semantics.IMPARTIAL, N, monkeypatch)
