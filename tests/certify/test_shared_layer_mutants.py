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


@pytest.fixture(scope="module")
def random_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    """Random cases without an ``expect`` block, per semantics, as files."""
    from verifier.games.random_graphs import random_case
    from verifier.io.case_json import dump_case

    root = tmp_path_factory.mktemp("random-cases")
    out: dict[str, list[Path]] = {}
    for sem in ("minimax", "normal", "reachability", "impartial"):
        for seed in range(3):
            values = (-2, -1, 0, 1, 2.5) if sem == "minimax" else (-1, 0, 1)
            case = random_case(sem, 24, 2.0, seed, values=values)
            out.setdefault(sem, []).append(dump_case(case, root / f"{sem}-{seed}.json"))
    # a normal case without expect whose terminal carries no label (lost, by the format)
    plain = root / "normal-unlabelled.json"
    plain.write_text(
        '{"semantics": "normal", "nodes": {"a": {"moves": ["b"]}, "b": {}, '
        '"c": {"moves": ["c", "a"]}, "d": {"moves": ["c", "d"]}}}'
    )
    out["normal"].append(plain)
    return out


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
        # the reader stores an unlabelled terminal as lost (-1): read it as a draw instead
        v[(np.isnan(v) | (v == -1)) & (case.graph.out_degree == 0)] = 0.0
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


CORPUS = {
    sem: sorted(p.name for p in CASES.glob("*.json") if f'"semantics": "{sem}"' in p.read_text())
    for sem in ("minimax", "normal", "reachability", "impartial")
}
READER_MUTANTS: dict[str, tuple[Callable[[Case], Case], str]] = {
    "owner codes max/min swapped": (_swap_owners, "minimax"),
    "reachability owners swapped": (_swap_owners, "reachability"),
    "unlabelled normal terminal read as a draw": (_unlabelled_as_draw, "normal"),
    "self-loops dropped (normal)": (_drop_self_loops, "normal"),
    "self-loops dropped (minimax)": (_drop_self_loops, "minimax"),
    "CSR pointers off by one (minimax)": (_csr_off_by_one, "minimax"),
    "CSR pointers off by one (impartial)": (_csr_off_by_one, "impartial"),
}


@pytest.mark.parametrize("mutant", sorted(READER_MUTANTS))
def test_reader_mutant_is_refuted(
    monkeypatch: pytest.MonkeyPatch, mutant: str, random_files: dict[str, list[Path]]
) -> None:
    change, sem = READER_MUTANTS[mutant]
    _graph_mutant(monkeypatch, change)
    caught = _refuted_by_certificate(*CORPUS[sem], *random_files[sem])
    # each slips past every other check somewhere (measured: on 2 to 4 of the random cases),
    # but for the shifted moves of minimax cases, which the solvers' disagreement catches
    assert caught or mutant == "CSR pointers off by one (minimax)"


def _refuted_by_certificate(*paths: Path | str) -> list[str]:
    """``verify`` refutes the mutant on some candidate; every candidate that slips past the
    other checks (verified without the outside check) is refuted by the certificate check.
    The names of those the certificate alone caught."""
    refuted, caught = [], []
    for p in paths:
        path = p if isinstance(p, Path) else CASES / p
        rep = api.verify(path)
        if rep.verdict is not CaseVerdict.REFUTED:
            continue
        refuted.append(path.name)
        if api.verify(path, self_check=False).verdict is CaseVerdict.VERIFIED:
            cert = _certificate_check(rep)
            assert cert is not None and cert.verdict is Verdict.REFUTED, path.name
            assert "our own output" in cert.detail
            caught.append(path.name)
    assert refuted, "verify did not refute the mutant on any candidate"
    return caught


def test_label_words_swapped(
    monkeypatch: pytest.MonkeyPatch, random_files: dict[str, list[Path]]
) -> None:
    from verifier.model.describe import Description

    real = Description.word

    def word(self: Description, stored: int) -> str:
        return real(self, -int(stored))

    monkeypatch.setattr(Description, "word", word)
    assert _refuted_by_certificate(*CORPUS["normal"], *random_files["normal"])


@pytest.mark.parametrize(
    ("mutant", "name"),
    [("sign", "minimax"), ("round", "minimax")],
)
def test_score_printing(
    monkeypatch: pytest.MonkeyPatch, mutant: str, name: str, random_files: dict[str, list[Path]]
) -> None:
    import verifier.model.views as views

    real = views._plain_number

    def plain(v: Any) -> Any:
        x = real(v)
        if not isinstance(x, (int, float)) or x == 0:
            return x
        return -x if mutant == "sign" else round(x)

    monkeypatch.setattr(views, "_plain_number", plain)
    assert _refuted_by_certificate(*CORPUS[name], *random_files[name])


def test_infinite_value_loses_an_element(
    monkeypatch: pytest.MonkeyPatch, random_files: dict[str, list[Path]]
) -> None:
    import verifier.model.views as views

    real = views.grundy_text

    def text(k: Any, finite: int | None = None) -> str:
        ks = sorted(k or ())
        return real(ks[:-1] if ks else ks, finite)

    monkeypatch.setattr(views, "grundy_text", text)
    assert _refuted_by_certificate(*CORPUS["impartial"], *random_files["impartial"])


def test_summary_counts_draws_as_won(
    monkeypatch: pytest.MonkeyPatch, random_files: dict[str, list[Path]]
) -> None:
    import verifier.games.summary as summary

    real = summary._counts

    def counts(lab: Any, weight: Any) -> dict[str, int]:
        out = real(lab, weight)
        return {**out, "won": out["won"] + out["drawn"], "drawn": 0}

    monkeypatch.setattr(summary, "_counts", counts)
    assert _refuted_by_certificate(*CORPUS["minimax"], *random_files["minimax"])


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
    assert _refuted_by_certificate(*CORPUS["normal"], *CORPUS["minimax"])


def test_csv_writer_blanking_zeros(monkeypatch: pytest.MonkeyPatch) -> None:
    import verifier.writers.csv as csv_writer
    from verifier.cli import app

    real = csv_writer._cell

    def cell(v: Any) -> Any:
        return "" if isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0 else real(v)

    monkeypatch.setattr(csv_writer, "_cell", cell)  # the writer's cells, row by row or
    monkeypatch.setattr(csv_writer, "_column_cells", lambda c: list(map(cell, c)))  # by column
    path = str(CASES / "kars-figure1-b-lt-d.json")
    slipped = CliRunner().invoke(app, ["verify", path, "--format", "csv", "--no-self-check"])
    assert slipped.exit_code == 0, slipped.output  # nothing else reads what the CSV says
    res = CliRunner().invoke(app, ["verify", path, "--format", "csv"])
    assert res.exit_code == 1, res.output
    assert "a,,draw,,c" in res.output  # the zero the writer blanked


def test_control_every_corpus_case_verifies_with_its_certificate(tmp_path: Path) -> None:
    """Without a mutant: every corpus case verified, its certificate accepted (and written)."""
    for path in sorted(CASES.glob("*.json")):
        rep = api.verify(path, certificate=tmp_path / f"{path.stem}.cert.json")
        cert = _certificate_check(rep)
        assert rep.verdict is CaseVerdict.VERIFIED, (path.name, rep.findings)
        assert cert is not None and cert.verdict is Verdict.CONFIRMED, path.name
    assert len(list(tmp_path.glob("*.cert.json"))) == len(list(CASES.glob("*.json")))
