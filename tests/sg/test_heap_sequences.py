"""The compiled heap-game sequences against the reference table, whatever the sparse space."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.games import heap_sequences
from verifier.games.catalog import analyse_sequence
from verifier.games.grundys_game import grundys_sequence
from verifier.games.heap_sequences import HeapMoves, SparseSpace, heap_sequence, heap_values
from verifier.games.octal import octal_sequence, parse_octal
from verifier.games.periodicity import find_period
from verifier.games.subtraction import subtraction_sequence

# OEIS A002186 (Kayles) and A002188 (Grundy's game), first values
KAYLES = [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2, 1, 4, 6, 7]
GRUNDYS_GAME = [0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0, 4, 3, 0]

codes = st.builds(
    lambda d0, rest: f"{d0}.{rest}",
    st.sampled_from(["", "0", "4"]),
    st.text("01234567", min_size=1, max_size=4),
).filter(lambda c: any(ch not in "0." for ch in c))


def test_known_sequences() -> None:
    assert heap_values(HeapMoves.octal(".77"), len(KAYLES) - 1).tolist() == KAYLES
    assert heap_values(HeapMoves.grundys_game(), len(GRUNDYS_GAME) - 1).tolist() == GRUNDYS_GAME
    assert heap_values(HeapMoves.subtraction([1, 2, 3]), 9).tolist() == [n % 4 for n in range(10)]


@settings(max_examples=60, deadline=None)
@given(code=codes, upto=st.integers(0, 300), prefix=st.integers(2, 64))
def test_octal_games_match_the_reference(code: str, upto: int, prefix: int) -> None:
    """Every octal code, through the sparse search from heap ``prefix`` on."""
    moves = HeapMoves.octal(code)
    got = heap_sequence(moves, upto, prefix=prefix).values.tolist()
    assert got == octal_sequence(parse_octal(code), upto)


@settings(max_examples=40, deadline=None)
@given(
    mask=st.integers(1, 2**62 - 1),
    lam=st.integers(0, 1),
    sigma=st.integers(0, 1),
    game=st.sampled_from([".77", ".137", ".6", "4.07", "grundy"]),
)
def test_any_sparse_space_gives_the_same_values(mask: int, lam: int, sigma: int, game: str) -> None:
    """The sparse space decides the speed only: a bad mask still gives the exact values."""
    moves = HeapMoves.grundys_game() if game == "grundy" else HeapMoves.octal(game)
    want = grundys_sequence(400) if game == "grundy" else octal_sequence(game, 400)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(
            heap_sequences, "choose_sparse_space", lambda v, m: SparseSpace(mask, lam, sigma)
        )
        assert heap_sequence(moves, 400, prefix=8).values.tolist() == want


def test_the_sparse_space_of_grundys_game_is_sparse() -> None:
    """Winning Ways' mask for Grundy's game: all bits but the lowest; few rare heaps."""
    values = heap_values(HeapMoves.grundys_game(), 20000)
    space = heap_sequences.choose_sparse_space(values, HeapMoves.grundys_game())
    assert space.mask == heap_sequences.WIDE & ~1 and space.lam == 0
    assert len(space.rare(values)) < 20000 // 10
    assert values.tolist()[:3001] == grundys_sequence(3000)


def test_subtraction_games_match_the_reference() -> None:
    for s in ([1, 2], [2, 5, 7], [1, 3, 4], [3]):
        want = subtraction_sequence(frozenset(s), 500)
        assert heap_values(HeapMoves.subtraction(s), 500).tolist() == want


def test_the_theorem_gives_the_values_beyond_a_certified_period() -> None:
    """Dawson's chess: period 34 from heap 52; the values past 4095 come from the period and
    equal the ones the mex computes."""
    moves = HeapMoves.octal(".137")
    short = heap_sequence(moves, 20000, max_removal=3)
    assert short.computed == 4096
    assert short.periodicity is not None and short.periodicity.certified
    assert (short.periodicity.preperiod, short.periodicity.period) == (52, 34)
    assert np.array_equal(short.values, heap_values(moves, 20000))


def test_analyse_sequence_says_what_was_computed() -> None:
    rep = analyse_sequence(".77", 10000)
    assert rep.computed == 4096 and rep.period == 12 and len(rep.values) == 10001
    assert analyse_sequence(".77", 200).computed is None  # all computed
    assert analyse_sequence("grundy", 5000).computed is None  # no theorem


def _reference_period(seq: list[int], min_repeats: int = 2) -> tuple[int, int] | None:
    """The least (e + p, p) by brute force."""
    n = len(seq)
    best = None
    for p in range(1, n // 2 + 1):
        e = 0
        for i in range(n - p):
            if seq[i] != seq[i + p]:
                e = i + 1
        if n - e >= min_repeats * p and (best is None or (e + p, p) < (best[0] + best[1], best[1])):
            best = (e, p)
    return best


@settings(max_examples=200, deadline=None)
@given(
    head=st.lists(st.integers(0, 3), max_size=12),
    cycle=st.lists(st.integers(0, 3), min_size=1, max_size=6),
    repeats=st.integers(0, 8),
)
def test_find_period_matches_brute_force(head: list[int], cycle: list[int], repeats: int) -> None:
    seq = head + cycle * repeats
    per = find_period(seq)
    want = _reference_period(seq)
    assert (None if per is None else (per.preperiod, per.period)) == want
