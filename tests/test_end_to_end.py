"""End to end: on random game graphs of every semantics (cycles, self-loops, dead ends), every
solver agrees with every other and every Z3 / certificate check confirms the answers."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.games.random_graphs import random_case
from verifier.model import Semantics, Verdict
from verifier.model.report import CaseVerdict
from verifier.pipeline import run_case

VALUES = {
    Semantics.MINIMAX: (-2, -1, 0, 1, 3),
    Semantics.NORMAL: (-1, 0, 1),
    Semantics.REACHABILITY: (-1, 0, 1),
    Semantics.IMPARTIAL: (-1, 0, 1),
}


@pytest.mark.parametrize("semantics", list(Semantics), ids=lambda s: s.value)
@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(
    nodes=st.integers(1, 30),
    degree=st.floats(0.5, 3.0),
    seed=st.integers(0, 2**31),
    terminal_fraction=st.sampled_from([0.0, 0.1, 0.3]),
    with_root=st.booleans(),
)
def test_random_cases_are_verified(
    semantics: Semantics,
    nodes: int,
    degree: float,
    seed: int,
    terminal_fraction: float,
    with_root: bool,
) -> None:
    case = random_case(
        semantics, nodes, degree, seed, VALUES[semantics], terminal_fraction=terminal_fraction
    )
    if with_root:
        case = replace(case, root=seed % nodes)
    rep = run_case(case)
    bad = [
        f"{c.name}: {c.verdict.value}: {c.detail}"
        for c in rep.checks
        if c.verdict is not Verdict.CONFIRMED
    ]
    assert rep.verdict is CaseVerdict.VERIFIED, "\n".join(bad)
    ran = [r.name for r in rep.solvers if r.result is not None]
    compared = [c.name for c in rep.checks if c.name.startswith("agree")]
    if semantics is Semantics.IMPARTIAL and len(ran) == 1:
        # a cyclic impartial game: only the loopy solver applies; its P/N/draw classes are
        # compared with retrograde analysis instead
        compared = [c.name for c in rep.checks if c.name.startswith("grundy P/N/D")]
    assert compared, f"solvers {ran} ran, nothing was compared"
