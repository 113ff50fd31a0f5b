"""Issue 14's sweep: valid cases end `verified` at the default settings, whatever their size.

Random graphs of the four semantics, cyclic and acyclic, 10 to 1,000 nodes in the default run,
10^4 and 10^5 in the slow run, and every generator at its documented default size (slow). A
case that does not verify prints the checks that did not confirm. `benchmarks/bench_sweep.py`
runs the same at 10^6 nodes by hand.
"""

from __future__ import annotations

import pytest

from verifier.games.generators import generate
from verifier.games.random_graphs import random_case
from verifier.model import Case, Verdict
from verifier.model.report import CaseVerdict
from verifier.pipeline import run_case
from verifier.registry import Options

SEMANTICS = ("minimax", "normal", "reachability", "impartial")


def assert_verified(case: Case) -> None:
    rep = run_case(case, Options())
    open_ = [(c.name, c.detail) for c in rep.checks if c.verdict is not Verdict.CONFIRMED]
    assert rep.verdict is CaseVerdict.VERIFIED, (case.id, open_)


@pytest.mark.parametrize("acyclic", [False, True], ids=["cyclic", "acyclic"])
@pytest.mark.parametrize("semantics", SEMANTICS)
@pytest.mark.parametrize("nodes", [10, 100, 1000])
@pytest.mark.parametrize("seed", [0, 1])
def test_random_graphs_verify(nodes: int, semantics: str, acyclic: bool, seed: int) -> None:
    assert_verified(random_case(semantics, nodes, 2.5, seed=seed, acyclic=acyclic))


@pytest.mark.slow
@pytest.mark.parametrize("acyclic", [False, True], ids=["cyclic", "acyclic"])
@pytest.mark.parametrize("semantics", SEMANTICS)
@pytest.mark.parametrize("nodes", [10_000, 100_000])
def test_large_random_graphs_verify(nodes: int, semantics: str, acyclic: bool) -> None:
    assert_verified(random_case(semantics, nodes, 3.0, seed=0, acyclic=acyclic))


GENERATED = [
    ("tictactoe", {}),
    ("tictactoe", {"symmetry": True}),
    ("lgame", {}),
    ("connect4", {}),
    ("kqk", {"size": 8, "symmetry": True}),
    ("krk", {"size": 8, "symmetry": True}),
    ("krk", {"size": 4, "symmetry": True}),
    ("ladder", {"n": 30}),
    ("nim", {"piles": 3, "below": 16}),
    ("octal:.77", {"upto": 30}),
    ("grundy", {"upto": 30}),
    ("subtraction:1,2,3", {"upto": 200}),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "options"), GENERATED, ids=[g for g, _ in GENERATED])
def test_generated_games_verify(name: str, options: dict[str, object]) -> None:
    assert_verified(generate(name, **options))
