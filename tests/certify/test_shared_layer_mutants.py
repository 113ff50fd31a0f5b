"""Issue 31's shared-layer mutants: bugs in the one reader every solver and check reads the case
through, in the per-semantics description, in the writers and in the summary, that the rest of
the package confirms (they slipped past every check before certificates). With the default
self-check (the standalone checker, its own reader, judging the certificate as written) each
turns ``verify`` into REFUTED, by the ``certificate`` check, on the corpus or random cases.

Each mutant is put in place by monkeypatch, one at a time; the control (no mutant) verifies the
same cases with the certificate accepted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import verifier.io
from verifier import api
from verifier.model import MAX, MIN, Case
from verifier.model.case import Semantics
from verifier.model.report import CaseReport, CaseVerdict
from verifier.model.results import Verdict

CASES = Path(__file__).resolve().parents[2] / "cases"


def _certificate_check(rep: CaseReport) -> Any:
    return next((c for c in rep.checks if c.check == "certificate"), None)


def _verify(name: str) -> CaseReport:
    return api.verify(CASES / name)


def _graph_mutant(monkeypatch: pytest.MonkeyPatch, change: Callable[[Case], Case]) -> None:
    """The reader returns ``change(case)`` instead of the case in the file."""
    real = verifier.io.load_any

    def load_any(path: Any, *args: Any, **kwargs: Any) -> Case:
        return change(real(path, *args, **kwargs))

    monkeypatch.setattr(verifier.io, "load_any", load_any)


def _with_graph(case: Case, **arrays: Any) -> Case:
    return dataclasses.replace(case, graph=dataclasses.replace(case.graph, **arrays))


def _swap_owners(case: Case) -> Case:
    o = case.graph.owner.copy()
    o[case.graph.owner == MAX], o[case.graph.owner == MIN] = MIN, MAX
    return _with_graph(case, owner=o)


def _unlabelled_as_draw(case: Case) -> Case:
    v = case.graph.value.copy()
    if case.semantics is Semantics.NORMAL:
        v[np.isnan(v) & (case.graph.out_degree == 0)] = 0.0
    return _with_graph(case, value=v)


def _drop_self_loops(case: Case) -> Case:
    g = case.graph
    src = np.repeat(np.arange(g.n), np.diff(g.succ_ptr))
    dst = np.asarray(g.succ_idx, dtype=np.int64)
    keep = src != dst
    ptr = np.zeros(g.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src[keep], minlength=g.n), out=ptr[1:])
    return _with_graph(case, succ_ptr=ptr, succ_idx=g.succ_idx[keep])


def _csr_off_by_one(case: Case) -> Case:
    ptr = case.graph.succ_ptr.copy()
    ptr[1:-1] = np.minimum(ptr[1:-1] + 1, ptr[-1])
    return _with_graph(case, succ_ptr=ptr)


def test_control_every_mutated_case_verifies_with_its_certificate() -> None:
    for name in NAMES:
        rep = _verify(name)
        cert = _certificate_check(rep)
        assert rep.verdict is CaseVerdict.VERIFIED, (name, rep.findings)
        assert cert is not None and cert.verdict is Verdict.CONFIRMED, name


READER_MUTANTS: dict[str, tuple[Callable[[Case], Case], str]] = {
    "owner codes max/min swapped": (_swap_owners, "kars-figure1-b-lt-d.json"),
    "reachability owners swapped": (_swap_owners, "ico-reachability.json"),
    "unlabelled normal terminal read as a draw": (
        _unlabelled_as_draw,
        "knuth-won-lost-unknown.json",
    ),
    "self-loops dropped": (_drop_self_loops, "self-loops-win-draw-loss.json"),
    "CSR pointers off by one": (_csr_off_by_one, "dag-paul-carole.json"),
}


@pytest.mark.parametrize("mutant", sorted(READER_MUTANTS))
def test_reader_mutant_is_refuted(monkeypatch: pytest.MonkeyPatch, mutant: str) -> None:
    change, name = READER_MUTANTS[mutant]
    _graph_mutant(monkeypatch, change)
    _refuted_by_certificate(name)


def _refuted_by_certificate(name: str) -> None:
    rep = _verify(name)
    cert = _certificate_check(rep)
    assert rep.verdict is CaseVerdict.REFUTED, (name, rep.verdict)
    assert cert is not None and cert.verdict is Verdict.REFUTED, [
        (c.check, c.verdict.value, c.detail) for c in rep.checks
    ]
    assert "our own output" in cert.detail


def test_label_words_swapped(monkeypatch: pytest.MonkeyPatch) -> None:
    from verifier.model.describe import Description

    real = Description.word

    def word(self: Description, stored: int) -> str:
        return real(self, -int(stored))

    monkeypatch.setattr(Description, "word", word)
    _refuted_by_certificate("knuth-won-lost-unknown.json")


@pytest.mark.parametrize(
    ("mutant", "name"),
    [("sign", "kars-figure1-b-lt-d.json"), ("round", "dag-decimal-values.json")],
)
def test_score_printing(monkeypatch: pytest.MonkeyPatch, mutant: str, name: str) -> None:
    import verifier.model.describe as describe

    real = describe._plain_number

    def plain(v: Any) -> Any:
        x = real(v)
        if not isinstance(x, (int, float)) or x == 0:
            return x
        return -x if mutant == "sign" else round(x)

    monkeypatch.setattr(describe, "_plain_number", plain)
    _refuted_by_certificate(name)


def test_infinite_value_loses_an_element(monkeypatch: pytest.MonkeyPatch) -> None:
    import verifier.model.describe as describe

    real = describe.grundy_text

    def text(k: Any, finite: int | None = None) -> str:
        ks = sorted(k or ())
        return real(ks[:-1] if ks else ks, finite)

    monkeypatch.setattr(describe, "grundy_text", text)
    _refuted_by_certificate("impartial-loopy-smith.json")


def test_summary_counts_draws_as_won(monkeypatch: pytest.MonkeyPatch) -> None:
    import verifier.games.summary as summary

    real = summary._counts

    def counts(lab: Any, weight: Any) -> dict[str, int]:
        out = real(lab, weight)
        return {**out, "won": out["won"] + out["drawn"], "drawn": 0}

    monkeypatch.setattr(summary, "_counts", counts)
    _refuted_by_certificate("kars-figure1-b-lt-d.json")


def test_line_of_play_names_the_wrong_position(monkeypatch: pytest.MonkeyPatch) -> None:
    from verifier.model.solution import Solution

    real = Solution.line

    def line(self: Solution, position: Any, plies: int = 20) -> list[str]:
        out = real(self, position, plies)
        if len(out) > 1:
            others = [self.graph.name(x) for x in range(self.graph.n)]
            out[1] = next(n for n in others if n != out[1])
        return out

    monkeypatch.setattr(Solution, "line", line)
    _refuted_by_certificate("game-tictactoe.json")


def test_csv_writer_blanking_zeros(monkeypatch: pytest.MonkeyPatch) -> None:
    import verifier.writers.csv as csv_writer
    from verifier.cli import app

    real = csv_writer._cell

    def cell(v: Any) -> Any:
        return "" if isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0 else real(v)

    monkeypatch.setattr(csv_writer, "_cell", cell)
    path = str(CASES / "kars-figure1-b-lt-d.json")
    res = CliRunner().invoke(app, ["verify", path, "--format", "csv"])
    assert res.exit_code == 1, res.output
    assert "certificate" in res.output + (res.stderr if res.stderr_bytes else "")


NAMES = sorted(
    {name for _, name in READER_MUTANTS.values()}
    | {
        "knuth-won-lost-unknown.json",
        "kars-figure1-b-lt-d.json",
        "dag-decimal-values.json",
        "impartial-loopy-smith.json",
        "game-tictactoe.json",
    }
)
