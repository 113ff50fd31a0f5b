"""A partial answer (Kars' Alg. 6.7 from the root only) is judged on the nodes it covers and never
turns a valid case inconclusive by itself (issue 14, item 1)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from verifier.model import MAX, Case, GameGraph, Semantics, Verdict
from verifier.model.report import CaseVerdict
from verifier.pipeline import run_case
from verifier.registry import CheckContext, Options
from verifier.smt import common
from verifier.smt.kars import check_kars_least


def max_chain(n: int) -> Case:
    """m0 -> m1 -> ... -> m(n-1), every Max node also to a leaf l_i = -1, the last one's leaf
    is +1: Max walks the chain to the end, every m_i scores 1 (remoteness n - i)."""
    succ = {f"m{i}": [f"m{i + 1}", f"l{i}"] for i in range(n - 1)}
    succ[f"m{n - 1}"] = [f"l{n - 1}"]
    g = GameGraph.from_successors(
        succ,
        semantics=Semantics.MINIMAX,
        owner={f"m{i}": MAX for i in range(n)},
        value={f"l{i}": 1 if i == n - 1 else -1 for i in range(n)},
    )
    return Case(graph=g, id=f"max-chain-{n}", root=0)


def test_a_41_node_max_chain_with_a_root_verifies() -> None:
    rep = run_case(max_chain(41), Options())
    assert rep.verdict is CaseVerdict.VERIFIED, [
        (c.name, c.detail) for c in rep.checks if c.verdict is not Verdict.CONFIRMED
    ]
    dfs = [c for c in rep.checks if c.name == "smt-kars-least" and "kars-dfs" in c.detail]
    assert dfs and dfs[0].verdict is Verdict.CONFIRMED and "1 covered node" in dfs[0].detail
    assert rep.results["kars-dfs"].covered_mask().sum() == 1


def test_a_wrong_partial_answer_is_refuted_at_its_node() -> None:
    case = max_chain(41)
    rep = run_case(case, Options(), smt=False)
    dfs = rep.results["kars-dfs"]
    vals = np.array(dfs.values, copy=True)
    vals[0] = -1.0  # the root claimed lost: a value in t(F), but not Kars' score (1)
    common.forget()
    ctx = CheckContext(case, {"kars-dfs": replace(dfs, values=vals)}, Options())
    [res] = check_kars_least(ctx)
    assert res.verdict is Verdict.REFUTED and res.witness is not None
    assert res.witness["node"] == "m0" and res.witness["kars"] == 1.0
    assert res.witness["interval"] == [1.0, 1.0]
