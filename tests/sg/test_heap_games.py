"""Game families: known value sequences, code parsing, and the explicit multiset graphs solved
by the mex solver against the direct sequences."""

from __future__ import annotations

import pytest

from verifier.games.catalog import analyse_sequence, game_case, grundy_sequence, parse_game
from verifier.games.grundys_game import grundys_sequence
from verifier.games.nim import nim_position
from verifier.games.octal import octal_sequence, parse_octal
from verifier.games.subtraction import parse_subtraction_set
from verifier.solvers.grundy import grundy_values

KAYLES = [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2, 1, 4, 6, 7, 4, 1, 2, 8]
DAWSONS_KAYLES = [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3, 0, 1, 1, 3]
GRUNDYS_GAME = [0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0, 4, 3, 0, 4, 3]
"""Kayles and Dawson's Kayles as in Winning Ways ch. 4; Grundy's game: OEIS A002188."""


def test_known_sequences() -> None:
    assert octal_sequence(".77", len(KAYLES) - 1) == KAYLES
    assert octal_sequence("0.07", len(DAWSONS_KAYLES) - 1) == DAWSONS_KAYLES
    assert grundys_sequence(len(GRUNDYS_GAME) - 1) == GRUNDYS_GAME
    # Dawson's chess .137 is Dawson's Kayles shifted by one heap
    assert octal_sequence(".137", 40)[:-1] == octal_sequence(".07", 41)[1:-1]
    assert grundy_sequence("subtraction:1,2,3", 9) == [n % 4 for n in range(10)]
    assert grundy_sequence("nim", 4) == [0, 1, 2, 3, 4]
    assert grundy_sequence(".333", 9) == grundy_sequence("subtraction", 9, s=[1, 2, 3])


def test_octal_code_semantics() -> None:
    code = parse_octal("4.07")
    assert code.digits == (4, 0, 7)
    # heap 3: split without removing (2+1), remove 2 leaving 1, no "remove 2 leaving 0" here
    assert sorted(code.options(3)) == [(1,), (2, 1)]
    assert sorted(parse_octal(".1").options(1)) == [()]  # 1: only when it takes the heap
    assert parse_octal(".1").options(2) == []
    assert parse_octal(".2").options(1) == []  # 2: must leave a non-empty heap
    assert parse_octal(".4").options(3) == [(1, 1)]  # 4: must leave two non-empty heaps
    for bad in ("07", ".08", "1.07", "2.0", ".", "x.07"):
        with pytest.raises(ValueError):
            parse_octal(bad)


def test_game_names() -> None:
    assert str(parse_game("subtraction:3,1")) == "subtraction:1,3"
    assert str(parse_game("octal:.07")) == "octal:.07"
    assert str(parse_game(".77")) == "octal:.77"
    assert parse_game("grundy").family == "grundy"
    assert parse_subtraction_set("{1, 4}") == frozenset({1, 4})
    for bad in ("chess", "subtraction", "subtraction:0,1", "octal:"):
        with pytest.raises(ValueError):
            parse_game(bad)


@pytest.mark.parametrize("game", ["nim", "subtraction:1,3,4", ".07", ".77", "4.07", "grundy"])
def test_multiset_graph_solved_equals_sequence(game: str) -> None:
    case = game_case(game, 14)
    values = grundy_values(case.graph)
    assert values[:15].tolist() == grundy_sequence(game, 14)
    assert case.expect is not None
    assert [case.expect.grundy[n] for n in range(15)] == grundy_sequence(game, 14)


def test_nim_position_graph() -> None:
    case = nim_position([2, 2])
    assert case.graph.n == 9 and case.root is not None
    assert case.graph.name(case.root) == "2,2"
    assert sorted(case.graph.name(int(y)) for y in case.graph.successors(case.root)) == [
        "0,2",
        "1,2",
        "2,0",
        "2,1",
    ]


def test_analyse_sequence_periods() -> None:
    kayles = analyse_sequence(".77", 200)
    assert kayles.periodicity is not None
    assert (kayles.periodicity.period, kayles.periodicity.last_exception) == (12, 70)
    assert kayles.periodicity.certified
    grundy = analyse_sequence("grundy", 120)
    assert grundy.periodicity is None or not grundy.periodicity.certified
