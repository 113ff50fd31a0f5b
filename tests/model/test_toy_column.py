"""A new published field is one registered column plus the solvers that fill it: agreement, the
``Solution``, the report and the writers pick it up with no other change (issue 12's proof of
the point); registered with an ``AnswerCodec``, the four answer-file encodings write it, read it
back and the claims are judged on it (issue 30 item 2). The toy column is the number of moves at
each node."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from verifier import Case, GameGraph, Semantics, registry
from verifier.checks.agreement import agreement_checks
from verifier.claims import run_with_claims
from verifier.io.answers import load_answers, save_answers
from verifier.io.answers_schema import entry_properties
from verifier.model import MAX, MIN, SolverResult, Verdict
from verifier.model import columns as columns_mod
from verifier.model.columns import AnswerCodec, Column, ColumnSpec
from verifier.model.report import CaseVerdict
from verifier.model.results import View
from verifier.pipeline import run_case
from verifier.registry import Options
from verifier.writers.json import report_to_dict

TOY = "moves_available"


def case() -> Case:
    g = GameGraph.from_successors(
        {"a": ["b", "c"], "c": ["d"]},
        semantics=Semantics.MINIMAX,
        owner={"a": MAX, "c": MIN},
        value={"b": 1, "d": -1},
    )
    return Case(graph=g, id="toy", root=0)


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the toy column and two toy solvers that publish it (undone after the test)."""
    monkeypatch.setitem(columns_mod.COLUMNS, TOY, ColumnSpec(TOY, "moves available"))
    monkeypatch.setattr(registry, "_SOLVERS", dict(registry.all_registered()["solvers"]))
    base = registry.solvers_for(Semantics.MINIMAX)[0].fn

    for name, corrupt in (("toy-a", False), ("toy-b", True)):

        def toy_solver(
            c: Case, o: Options, name: str = name, corrupt: bool = corrupt
        ) -> SolverResult:
            degree = c.graph.out_degree.copy()
            if corrupt and c.id == "toy-corrupt":
                degree[c.graph.id_of("c")] += 1
            more = {TOY: Column.full(degree)}
            return dataclasses.replace(base(c, o), solver=name, more=more)

        registry.solver(name, [Semantics.MINIMAX], order=200)(toy_solver)


@pytest.mark.usefixtures("toy")
def test_a_registered_column_is_compared_reported_and_answered() -> None:
    rep = run_case(case(), Options(engine="reference"), smt=False)
    assert rep.verdict is CaseVerdict.SOLVED  # the solvers agree; no proofs were asked for
    [agree] = [c for c in rep.checks if c.name.endswith("toy-a = toy-b")]
    assert TOY in agree.detail
    s = rep.solution
    assert s is not None and s.sources[TOY] == "toy-a"
    assert s.at("a")[TOY] == 2 and s.at("c")[TOY] == 1 and s.at("b")[TOY] == 0
    assert [r[TOY] for r in s.records()] == [2, 1, 0, 0]  # a, c, b, d
    doc = report_to_dict(rep)
    assert doc["solvers"]["toy-b"][TOY] == {"a": 2, "c": 1, "b": 0, "d": 0}


@pytest.mark.usefixtures("toy")
def test_a_corrupted_toy_column_is_refuted_at_its_node() -> None:
    rep = run_case(dataclasses.replace(case(), id="toy-corrupt"), Options(engine="reference"))
    assert rep.verdict is CaseVerdict.REFUTED
    [bad] = [c for c in rep.checks if c.verdict is Verdict.REFUTED]
    assert bad.name.endswith("toy-a = toy-b") and bad.witness is not None
    assert bad.witness["node"] == "c" and bad.witness[TOY] == {"toy-a": 1, "toy-b": 2}


def test_an_unregistered_column_is_still_compared_plainly() -> None:
    c = case()
    base = SolverResult("x", View.SCORE, np.zeros(4))
    a = dataclasses.replace(base, more={"extra": Column.full([1, 2, 3, 4])})
    b = dataclasses.replace(base, solver="y", more={"extra": Column.full([1, 2, 3, 5])})
    [r] = agreement_checks(c, {"x": a, "y": b})
    assert r.verdict is Verdict.REFUTED and r.witness is not None and r.witness["node"] == "d"


@pytest.fixture
def toy_in_answers(toy: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy column registered with a codec: answer files hold it too."""
    spec = ColumnSpec(TOY, "moves available", codec=AnswerCodec("count", "a number of moves"))
    monkeypatch.setitem(columns_mod.COLUMNS, TOY, spec)


@pytest.mark.usefixtures("toy_in_answers")
@pytest.mark.parametrize("suffix", [".json", ".csv", ".npz", ".parquet"])
def test_a_registered_column_round_trips_through_answer_files_and_is_judged(
    suffix: str, tmp_path: Path
) -> None:
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    c = case()
    rep = run_case(c, Options(engine="reference"), smt=False)
    assert rep.solution is not None
    path = save_answers(rep.solution, c, tmp_path / f"toy{suffix}")
    claims = load_answers(path, c)
    assert claims[TOY].data.tolist() == [2, 1, 0, 0]  # a, c, b, d by id
    assert TOY in claims and TOY in entry_properties()  # the answer file's schema has it too
    judged = run_with_claims(c, Options(engine="reference"), claims)
    assert judged.verdict is CaseVerdict.VERIFIED
    assert any(TOY in r.detail for r in judged.checks if r.name.endswith("answers"))

    wrong = claims.with_column(TOY, np.array([2, 5, 0, 0]))  # c has one move, not 5
    bad = run_with_claims(c, Options(engine="reference"), wrong)
    assert bad.verdict is CaseVerdict.REFUTED
    [agree] = [r for r in bad.checks if r.verdict is Verdict.REFUTED and TOY in r.detail]
    assert agree.witness is not None and agree.witness["node"] == "c"
