"""Periodicity detection and the octal periodicity theorem's certificate."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.games.octal import octal_sequence
from verifier.games.periodicity import find_period


def test_pure_period() -> None:
    per = find_period([0, 1, 2] * 5, max_removal=2)
    assert per is not None and (per.preperiod, per.period, per.last_exception) == (0, 3, None)
    assert per.certified and per.needed == 2 * 0 + 2 * 3 + 2


def test_preperiod_and_too_short_for_the_theorem() -> None:
    seq = [5, 4] + [0, 1] * 6
    per = find_period(seq, max_removal=1)
    assert per is not None and (per.preperiod, per.period) == (2, 2)
    assert per.certified  # needs 2*2 + 2*2 + 1 = 9 <= 14 values
    per = find_period(seq, max_removal=9)
    assert per is not None and not per.certified and per.needed == 17


def test_no_period() -> None:
    assert find_period(list(range(50))) is None
    assert find_period([0, 1, 2, 3]) is None


@pytest.mark.parametrize(
    ("code", "t", "period", "last_exception"),
    [(".07", 2, 34, 52), (".137", 3, 34, 51), (".77", 2, 12, 70)],
)
def test_known_octal_periods(code: str, t: int, period: int, last_exception: int) -> None:
    per = find_period(octal_sequence(code, 300), max_removal=t)
    assert per is not None
    assert (per.period, per.last_exception) == (period, last_exception)
    assert per.certified


def test_uncertified_without_a_theorem() -> None:
    per = find_period([0, 1] * 10)
    assert per is not None and not per.certified


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, 3), max_size=6),
    st.lists(st.integers(0, 3), min_size=1, max_size=5),
    st.integers(3, 6),
)
def test_constructed_sequences(prefix: list[int], pattern: list[int], repeats: int) -> None:
    seq = prefix + pattern * repeats
    per = find_period(seq)
    assert per is not None
    assert per.preperiod + per.period <= len(prefix) + len(pattern)
    e, p = per.preperiod, per.period
    assert all(seq[n] == seq[n + p] for n in range(e, len(seq) - p))
