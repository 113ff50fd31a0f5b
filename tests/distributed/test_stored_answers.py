"""A dataset's answer files go through one entry per semantics (``stored_answers.STORED``):
``answers.py`` writes and reads them for all four with no branch of its own (issue 45: one
rule per semantics). The answers themselves are compared with the in-memory route's files in
``test_answer_files.py`` (bytes, every format); here, what holds them together."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from verifier.dataset import answers
from verifier.dataset.stored_answers import STORED
from verifier.model.columns import MOVE, REMOTENESS
from verifier.model.semantics import Semantics


@pytest.mark.parametrize("sem", list(Semantics), ids=lambda s: s.value)
def test_every_semantics_has_its_stored_answers(sem: Semantics) -> None:
    entry = STORED[sem]
    assert callable(entry.result) and callable(entry.table)
    assert entry.in_memory <= {MOVE, REMOTENESS}


def test_what_each_table_cannot_carry_is_judged_in_memory() -> None:
    """Normal play's table carries its remoteness and moves (``check`` judges them); a stored
    graph's carries none of its moves, and minimax's not its remoteness (plies of optimal
    play, where the dataset stores a round): those are ``extra_faults``'."""
    assert STORED[Semantics.NORMAL].in_memory == frozenset()
    assert STORED[Semantics.REACHABILITY].in_memory == {MOVE}
    assert STORED[Semantics.MINIMAX].in_memory == {MOVE, REMOTENESS}
    assert STORED[Semantics.IMPARTIAL].in_memory == {MOVE}
    assert [STORED[s].whole for s in Semantics] == [s is not Semantics.NORMAL for s in Semantics]


def test_the_answer_files_name_no_semantics() -> None:
    """``answers.py`` neither names a semantics nor asks whether one is normal play's
    (``stored_columns.own_columns``): what differs is ``STORED``'s."""
    tree = ast.parse(Path(answers.__file__).read_text())
    named = [
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
        if n.value.id == "Semantics"
    ]
    called = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert named == [] and "own_columns" not in called
