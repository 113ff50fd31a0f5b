"""Answer files are read with the same bounds as case files (issue 15): the arrays an ``.npz``
declares and the size of a text file are checked against ``--max-positions`` before reading."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

import verifier
from verifier import Case, CaseError, GameGraph, Semantics
from verifier.io.answers import load_answers, save_answers
from verifier.io.limits import MIN_BUDGET_BYTES, Limits


def chain() -> Case:
    g = GameGraph.from_successors({"a": ["b"], "b": ["c"]}, semantics=Semantics.NORMAL)
    return Case(graph=g, id="chain")


@pytest.mark.parametrize("suffix", [".json", ".csv", ".npz"])
def test_a_written_answer_file_reads_back_within_the_limits(tmp_path: Path, suffix: str) -> None:
    case = chain()
    path = save_answers(verifier.solve(case), case, tmp_path / f"a{suffix}")
    claims = load_answers(path, case, Limits(max_positions=10))
    assert claims.result().columns["value"].at(0) == -1  # a: lost (a -> b -> c)


def test_an_npz_declaring_too_much_is_refused_before_reading(tmp_path: Path) -> None:
    case = chain()
    path = tmp_path / "big.npz"
    n = MIN_BUDGET_BYTES // 8 + 1  # more int64 ids than the smallest budget holds
    with (
        zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z,
        z.open("ids.npy", "w", force_zip64=True) as f,
    ):
        np.lib.format.write_array(f, np.zeros(n, dtype=np.int64))
    with pytest.raises(CaseError, match=r"the arrays declared of .* bytes: too big to process"):
        load_answers(path, case, Limits(max_positions=1))


def test_an_unknown_array_is_named(tmp_path: Path) -> None:
    case = chain()
    path = tmp_path / "odd.npz"
    np.savez(path, ids=np.array([0]), value=np.array([-1]), extra=np.array([1]))
    with pytest.raises(CaseError, match=r"extra.*unknown array"):
        load_answers(path, case)


def test_a_text_file_too_big_to_parse_is_refused(tmp_path: Path) -> None:
    case = chain()
    path = tmp_path / "big.csv"
    path.write_text("node,value\n" + "a,lost\n" * (MIN_BUDGET_BYTES // 40 // 7))
    with pytest.raises(CaseError, match="too big to process"):
        load_answers(path, case, Limits(max_positions=1))
