"""The check ``grundy-loopy-classes`` reads the solver's answer through its columns."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sg_graphs import loopy_graph

from verifier.checks.loopy_classes import loopy_classes_check
from verifier.model import Case, SolverResult, Verdict
from verifier.registry import CheckContext, Options
from verifier.solvers.loopy_grundy import loopy_grundy, loopy_grundy_solver, read_answer


def _answer(case: Case) -> SolverResult:
    return loopy_grundy_solver(case, Options())


def test_read_answer_gives_back_the_labelling() -> None:
    g = loopy_graph()
    fresh, read = loopy_grundy(g), read_answer(_answer(Case(graph=g, id="loopy")))
    assert np.array_equal(fresh.values, read.values)
    assert fresh.kset == read.kset
    assert np.array_equal(fresh.counter, read.counter)
    assert fresh.rounds == read.rounds


def test_the_check_reads_the_answer_as_it_computes_it() -> None:
    case = Case(graph=loopy_graph(), id="loopy")
    alone = loopy_classes_check(CheckContext(case=case, results={}))
    given = loopy_classes_check(CheckContext(case=case, results={"grundy-loopy": _answer(case)}))
    assert [(c.name, c.verdict, c.detail) for c in alone] == [
        (c.name, c.verdict, c.detail) for c in given
    ]
    assert [c.verdict for c in given] == [Verdict.CONFIRMED, Verdict.CONFIRMED]


def test_a_wrong_answer_is_refuted_in_words() -> None:
    case = Case(graph=loopy_graph(), id="loopy")
    good = _answer(case)
    t = case.graph.id_of("t")
    values = good.values.copy()
    values[t] = 1  # t is a P position (0): claim N
    bad = replace(good, values=values)
    checks = loopy_classes_check(CheckContext(case=case, results={"grundy-loopy": bad}))
    assert [c.verdict for c in checks] == [Verdict.REFUTED, Verdict.REFUTED]
    assert checks[0].witness == {
        "node": "t",
        "grundy": "1",
        "class": "N",
        "retrograde": "lost",
        "disagreements": 1,
    }
    assert checks[0].detail == "node 't': gamma = 1 (N) but retrograde says lost"
