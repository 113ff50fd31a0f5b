"""Issue 28, item 3: the field contract, attacked through answer tables in both modes.

Each corruption of ``answer_corruptions.CONTRACT_KINDS`` (a wrong move at a node of out-degree
<= 2, a normal-play draw moving to a won successor, an impartial draw moving to an N option, a
remoteness given where the rules give none) must be refuted by the table's verdict *and* by the
check that owns the field (``moves``; ``agree`` for an entry one table gives and the other does
not), so that a backup check cannot hide a weakened one. Then each weakening of a check that
once went unnoticed (skipping nodes of out-degree <= 2 in ``moves``, letting a normal-play draw
move anywhere, letting an impartial draw move to any infinite option, ``same_entries`` counting
"given vs missing" as equal) is put in and the sweep must report it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from answer_corruptions import AGREE_KINDS, CONTRACT_KINDS, MOVE_KINDS, contract_corruptions

from verifier.checks import moves
from verifier.claims import run_with_claims
from verifier.games.random_graphs import random_case
from verifier.io import load_any
from verifier.io.answers import Answers, load_answers, save_answers
from verifier.model import Case, Semantics, Verdict
from verifier.model import columns as columns_module
from verifier.model.columns import COLUMNS, Column
from verifier.model.solution import Solution
from verifier.pipeline import run_case
from verifier.registry import Options
from verifier.smt import common as smt_common

CASES = Path(__file__).resolve().parents[2] / "cases"


@dataclass(frozen=True)
class Miss:
    """A corruption some check let through."""

    case: str
    kind: str
    node: str
    what: str
    """``table confirmed`` / ``table unknown`` (the verdict on the table), or the owning check
    that did not refute it."""


def corpus() -> list[Case]:
    """Small random graphs of every semantics and the corpus' draw cases."""
    out = []
    for sem in Semantics:
        for seed in (1, 2, 3, 4):
            values = (-2, -1, 0, 1, 2) if sem is Semantics.MINIMAX else (-1, 0, 1)
            case = random_case(sem, nodes=9, degree=1.8, seed=seed, values=values)
            out.append(replace(case, id=f"random-{sem.value}-{seed}"))
    for name in ("impartial-draw-move", "impartial-loopy-smith", "knuth-won-lost-unknown"):
        out.append(replace(load_any(CASES / f"{name}.json"), expect=None))
    return out


@cache
def _tables(tmp: Path) -> list[tuple[Case, Solution, Answers]]:
    out = []
    for case in corpus():
        sol = run_case(case, Options(), smt=False).solution
        assert sol is not None
        path = save_answers(sol, case, tmp / f"{case.id}.npz")
        out.append((case, sol, load_answers(path, case)))
    return out


def _owner(kind: str) -> str:
    return "moves (answers)" if kind in MOVE_KINDS else "agree "


def sweep(tmp: Path, linear: bool, kinds: tuple[str, ...]) -> tuple[Counter[str], list[Miss]]:
    """Every corruption of ``kinds`` over the corpus: how many of each, and the misses."""
    counts: Counter[str] = Counter()
    missed: list[Miss] = []
    for case, sol, answers in _tables(tmp):
        for c in contract_corruptions(case, sol, answers):
            if c.kind not in kinds:
                continue
            counts[c.kind] += 1
            rep = run_with_claims(case, Options(linear=linear), c.answers)
            name = case.graph.name(c.node)
            judged = next(x for x in rep.checks if x.name.startswith("answers "))
            if judged.verdict is not Verdict.REFUTED:
                missed.append(Miss(case.id, c.kind, name, f"table {judged.verdict.value}"))
            owner = _owner(c.kind)
            mine = [x for x in rep.checks if x.name.startswith(owner) and "answers" in x.name]
            if not any(x.verdict is Verdict.REFUTED for x in mine):
                missed.append(Miss(case.id, c.kind, name, f"{owner.strip()} not refuted"))
    return counts, missed


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("contract")


@pytest.mark.parametrize("linear", [True, False], ids=["linear", "full"])
def test_contract_corruptions_are_refuted_by_their_own_check(linear: bool, tmp: Path) -> None:
    counts, missed = sweep(tmp, linear, CONTRACT_KINDS)
    assert set(counts) == set(CONTRACT_KINDS), counts  # every kind is tried
    assert not missed, missed[:5]


# ---------------------------------------------------------------------- weakened checks
def _skip_small_rows(real: Callable[..., Any]) -> Callable[..., Any]:
    def weak(g: Any, r: Any) -> Any:
        ids, why = real(g, r)
        keep = g.out_degree[ids] > 2
        return ids[keep], [w for w, k in zip(why, keep.tolist(), strict=True) if k]

    return weak


def _normal_draw_anywhere(real: Callable[..., Any]) -> Callable[..., Any]:
    def weak(g: Any, r: Any, y: Any) -> Any:
        ok = real(g, r, y)
        if g.semantics is Semantics.NORMAL:
            v = r.columns["value"]
            ok = ok | (v.given & (v.data == 0))
        return ok

    return weak


def _impartial_draw_to_any_infinite(real: Callable[..., Any]) -> Callable[..., Any]:
    def weak(g: Any, r: Any, y: Any) -> Any:
        ok = real(g, r, y)
        inf = r.columns.get("loopy")
        if g.semantics is Semantics.IMPARTIAL and inf is not None:
            ok = ok | (moves.impartial_draws(g, r) & inf.given[y])
        return ok

    return weak


def _given_vs_missing_equal(a: Column, b: Column) -> Any:
    eq = np.asarray(a.data == b.data) if a.data.dtype != object else np.ones(len(a.given), bool)
    return np.where(a.given & b.given, eq, True)


def _weaken(monkeypatch: pytest.MonkeyPatch, weakening: str) -> None:
    """Put one weakened check in place."""
    if weakening == "moves skips out-degree <= 2":
        monkeypatch.setattr(moves, "move_faults", _skip_small_rows(moves.move_faults))
    elif weakening == "normal draw moves anywhere":
        monkeypatch.setattr(moves, "_optimal", _normal_draw_anywhere(moves._optimal))
    elif weakening == "impartial draw moves to any infinite option":
        monkeypatch.setattr(moves, "_optimal", _impartial_draw_to_any_infinite(moves._optimal))
    else:
        for name, spec in list(COLUMNS.items()):
            monkeypatch.setitem(COLUMNS, name, replace(spec, same=_given_vs_missing_equal))
        monkeypatch.setattr(columns_module, "same_entries", _given_vs_missing_equal)
        monkeypatch.setattr(smt_common, "same_entries", _given_vs_missing_equal)


WEAKENINGS = {
    "moves skips out-degree <= 2": (MOVE_KINDS[0], True),
    "normal draw moves anywhere": (MOVE_KINDS[1], True),
    "impartial draw moves to any infinite option": (MOVE_KINDS[2], False),
    "same_entries: given vs missing equal": (AGREE_KINDS[0], True),
}
"""Each weakening, the kind that exposes it, and whether some wrong table is then even
*confirmed* in ``--linear`` mode (the impartial draw is also the strategy certificate's: only
the owning check misses it)."""


@pytest.mark.parametrize("weakening", list(WEAKENINGS))
def test_the_sweep_reports_each_weakened_check(
    weakening: str, tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kind, confirmed = WEAKENINGS[weakening]
    counts, clean = sweep(tmp, True, (kind,))
    assert counts[kind] > 0 and not clean
    _weaken(monkeypatch, weakening)
    _, missed = sweep(tmp, True, (kind,))
    assert {m.kind for m in missed} == {kind}
    assert any(m.what.endswith("not refuted") for m in missed)
    assert any(m.what.startswith("table ") for m in missed) is confirmed, missed[:3]
