"""Mutation tests: corrupt one value / label / rank / move of a correct answer and the checks
must refute it with a witness naming the corrupted node.

Run over hand-made graphs, the whole corpus (``cases/*.json``) and random graphs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from smt_reference import as_semantics, case_of, figure1, graphs, reference_results

from verifier.errors import NotApplicable
from verifier.model import Case, GameGraph, Semantics, SolverResult, Verdict
from verifier.model.results import CheckResult
from verifier.registry import CheckContext, Options, checks_for
from verifier.smt import common

CASES = sorted((Path(__file__).resolve().parents[2] / "cases").glob("*.json"))
WATCH = {
    "value": {"smt-equations", "smt-kars-least", "smt-won-lost", "smt-attractor"},
    "rank": {"smt-won-lost", "smt-attractor"},
    "move": {"smt-strategy"},
}


def _checks(case: Case, results: dict[str, SolverResult]) -> list[CheckResult]:
    common.forget()
    ctx = CheckContext(case, results, Options())
    out: list[CheckResult] = []
    for spec in checks_for(case.semantics):
        if spec.name.startswith("smt-") and spec.name != "smt-uniqueness":
            with contextlib.suppress(NotApplicable):
                out.extend(spec.fn(ctx))
    return out


def _names(w: object) -> set[str]:
    if not isinstance(w, dict):
        return set()
    return (
        {w.get("node", "")} | set(w.get("failing_nodes", [])) | set(w.get("differs_from_least", []))
    )


def sample(g: GameGraph, k: int | None) -> list[int]:
    """``k`` node ids spread over the graph (all of them when ``k`` is None or larger)."""
    if k is None or k >= g.n:
        return list(range(g.n))
    return sorted({int(i) for i in np.linspace(0, g.n - 1, k)})


def mutants(
    g: GameGraph, ref: SolverResult, nodes: list[int]
) -> Iterator[tuple[str, int, SolverResult]]:
    """Single-node corruptions of the answer at ``nodes``: its value, its rank, its move."""
    vals = np.asarray(ref.values)
    choices = (
        np.unique(np.concatenate([g.value_levels(), [-1.0, 0.0, 1.0]]))
        if g.semantics is Semantics.MINIMAX
        else np.array([-1, 0, 1])
        if g.semantics is Semantics.NORMAL
        else np.array([0, 1])
    )
    for x in nodes:
        for v in choices:
            if v != vals[x]:
                bad = vals.copy()
                bad[x] = v
                yield "value", x, replace(ref, values=bad)
                break
        if ref.remoteness is not None:
            rk = ref.remoteness.copy()
            rk[x] = rk[x] + 1 if rk[x] >= 0 else 0
            yield "rank", x, replace(ref, remoteness=rk)
        if ref.move is not None and g.out_degree[x] > 0:
            mv = ref.move.copy()
            others = [int(y) for y in g.successors(x) if y != mv[x]]
            for y in [*others, -1, *(z for z in range(g.n) if z not in g.successors(x))]:
                mv2 = mv.copy()
                mv2[x] = y
                yield "move", x, replace(ref, move=mv2)
                break


def assert_mutations_caught(case: Case, k: int | None = None) -> int:
    g = case.graph
    results = reference_results(g)
    base = _checks(case, results)
    assert all(r.verdict is Verdict.CONFIRMED for r in base), [
        (r.name, r.detail, r.witness) for r in base if r.verdict is not Verdict.CONFIRMED
    ]
    ref = results["ref"]
    caught = 0
    for kind, x, bad in mutants(g, ref, sample(g, k)):
        res = [r for r in _checks(case, {"ref": bad}) if r.name in WATCH[kind]]
        refuted = [r for r in res if r.verdict is Verdict.REFUTED]
        if kind == "move" and not refuted:
            continue  # another successor may be optimal too: no error to find
        assert refuted, (kind, g.name(x), [(r.name, r.verdict, r.detail) for r in res])
        named = {n for r in refuted for n in _names(r.witness)}
        if kind == "move":  # on a cycle of moves any node of it may be blamed: x must be on it
            named = {g.name(y) for n in named if g.has_node(n) for y in _path(g, bad, n)}
        assert g.name(x) in named, (kind, g.name(x), [(r.name, r.witness) for r in refuted])
        caught += 1
    return caught


def _path(g: GameGraph, r: SolverResult, start: str) -> list[int]:
    """The nodes reached from ``start`` by following ``r``'s moves (until one repeats)."""
    assert r.move is not None
    out, x = [], g.id_of(start)
    while x >= 0 and x not in out:
        out.append(x)
        x = int(r.move[x])
    return out


HAND = [
    figure1(-1, 2),
    figure1(3, 2),
    figure1(1, 2),
    GameGraph.from_successors(
        {"a": ["b", "c"], "b": ["d"], "c": ["c2"], "c2": ["c", "e"]}, semantics=Semantics.NORMAL
    ),
    GameGraph.from_successors(
        {"x": ["y", "t"], "y": ["y", "z"], "z": ["t"]},
        semantics=Semantics.REACHABILITY,
        owner={"x": 0, "y": 1, "z": 0, "t": 0},
        target=["t"],
    ),
]


@pytest.mark.parametrize("g", HAND, ids=lambda g: repr(g))
def test_mutations_on_hand_made_graphs(g: GameGraph) -> None:
    assert assert_mutations_caught(case_of(g)) > 0


def _corpus_case(path: Path) -> Case:
    from verifier.io import load_case

    case = load_case(path)
    if case.semantics not in (Semantics.MINIMAX, Semantics.NORMAL, Semantics.REACHABILITY):
        pytest.skip("impartial cases are checked by the Sprague-Grundy checks")
    return replace(case, expect=None)


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_mutations_on_the_corpus(path: Path) -> None:
    """Fast: the small cases of the corpus, four nodes each."""
    case = _corpus_case(path)
    if case.graph.n > 300:
        pytest.skip("large game: mutated in the slow run")
    assert assert_mutations_caught(case, k=4) > 0


@pytest.mark.slow
@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_mutations_on_the_whole_corpus(path: Path) -> None:
    """Slow: every case, twelve nodes each (all nodes of the small ones)."""
    case = _corpus_case(path)
    k = None if case.graph.n <= 30 else 12
    assert assert_mutations_caught(case, k=k) > 0


def test_wrong_move_is_refuted_naming_the_node() -> None:
    g = GameGraph.from_successors(
        {"a": ["b", "c"], "b": [], "c": ["d"], "d": []}, semantics=Semantics.NORMAL
    )  # a wins by moving to b (lost); c is won (d lost)
    ref = reference_results(g)["ref"]
    assert ref.move is not None and g.name(int(ref.move[0])) == "b"
    mv = ref.move.copy()
    mv[0] = g.id_of("c")
    res = [
        r for r in _checks(case_of(g), {"ref": replace(ref, move=mv)}) if r.name == "smt-strategy"
    ]
    assert res[0].verdict is Verdict.REFUTED and res[0].witness is not None
    assert res[0].witness["node"] == "a"


@pytest.mark.parametrize("sem", [Semantics.MINIMAX, Semantics.NORMAL, Semantics.REACHABILITY])
@settings(max_examples=6, deadline=None)
@given(data=graphs(Semantics.MINIMAX, max_nodes=5))
def test_mutations_on_random_graphs(sem: Semantics, data: GameGraph) -> None:
    g = data if sem is Semantics.MINIMAX else as_semantics(sem, data)
    assert assert_mutations_caught(case_of(g)) >= 0


def test_a_move_that_closes_a_cycle_is_blamed_on_the_cycle() -> None:
    """Found by hypothesis: Max nodes 0 -> 2, 3; 2 -> 0, 1; 3 -> 1 (leaf 1): every node scores
    1. Moving 2 back to 0 lets Max cycle forever; smt-strategy names 0, whose move leads to 2:
    either move of the cycle can be blamed."""
    g = GameGraph(
        semantics=Semantics.MINIMAX,
        succ_ptr=np.array([0, 2, 2, 4, 5]),
        succ_idx=np.array([2, 3, 0, 1, 1]),
        owner=np.array([0, -1, 0, 0], dtype=np.int8),
        value=np.array([np.nan, 1.0, np.nan, np.nan]),
        target=np.zeros(4, dtype=np.bool_),
    )
    assert assert_mutations_caught(case_of(g)) > 0
