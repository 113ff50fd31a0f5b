"""The generated games in ``cases/``: in step with their generators, and their expectations
confirmed by the independent solver of these tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gamesolve import retrograde

from verifier.games.corpus import CORPUS
from verifier.io.case_json import load_case

CASES = Path(__file__).resolve().parents[2] / "cases"
WORDS = {1: "won", -1: "lost", 0: "draw"}  # Knuth's "unknown" in the files reads as "draw"


@pytest.mark.parametrize("stem", sorted(CORPUS))
def test_corpus_file_matches_generator_and_independent_solver(stem: str) -> None:
    case = load_case(CASES / f"{stem}.json")
    fresh = CORPUS[stem][0]()
    g, h = case.graph, fresh.graph
    assert list(g.names) == list(h.names)
    assert np.array_equal(g.succ_ptr, h.succ_ptr) and np.array_equal(g.succ_idx, h.succ_idx)
    assert np.array_equal(g.value, h.value, equal_nan=True)
    assert case.root == fresh.root and case.source == fresh.source
    labels, rem = retrograde(g)
    exp = case.expect
    assert exp is not None
    assert len(exp.labels) == g.n
    assert all(exp.labels[i] == WORDS[int(v)] for i, v in enumerate(labels.tolist()))
    assert dict(exp.remoteness) == {i: int(r) for i, r in enumerate(rem.tolist()) if r >= 0}
    if case.root is not None:
        assert exp.root_value == WORDS[int(labels[case.root])]
