"""The standalone checker's Connect Four rules (``checker/connect4.py``) and its folding of moves
into their positions (``checker/judge.py`` ``_runs``), against plain references written here:
a column-by-column decoding, Python's own bit count, ``np.minimum.at`` / ``np.maximum.at``."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker import connect4, judge
from checker.connect4 import Rules


def reference(rules: Rules, code: int) -> tuple[int, int, bool]:
    """``(cur, mask, ok)`` of one code, a column at a time: the stones lie below the
    column's highest set bit (its marker); no marker, or a bit past the board: not a board."""
    mask, ok = 0, code >> (rules.w * rules.col) == 0
    for c in range(rules.w):
        field = (code >> (c * rules.col)) & ((1 << rules.col) - 1)
        ok &= field != 0
        mask |= ((1 << max(field.bit_length() - 1, 0)) - 1) << (c * rules.col)
    cur = (code - mask - int(rules.bottom)) % (1 << 64)
    return cur, mask, ok


SIZES = st.sampled_from([(4, 4), (5, 4), (6, 5), (7, 6), (3, 7)])


@given(SIZES, st.data())
@settings(max_examples=60, deadline=None)
def test_decode_against_columns(size: tuple[int, int], data: st.DataObject) -> None:
    rules = Rules(*size)
    bits = rules.w * rules.col
    # legal codes (a marker in every column) and codes of any bits, past the board's too
    fields = st.lists(st.integers(1, (1 << rules.col) - 1), min_size=rules.w, max_size=rules.w)
    legal = fields.map(lambda fs: sum(f << (c * rules.col) for c, f in enumerate(fs)))
    anything = st.integers(0, (1 << min(bits + 2, 64)) - 1)
    codes = data.draw(st.lists(st.one_of(legal, anything), min_size=1, max_size=40))
    cur, mask, ok = rules.decode(np.array(codes, np.uint64))
    for i, code in enumerate(codes):
        want = reference(rules, code)
        assert bool(ok[i]) == want[2], code
        if want[2]:
            assert (int(cur[i]), int(mask[i])) == want[:2], code
            assert int(rules.stones(mask[i : i + 1])[0]) == bin(want[1]).count("1")


def test_decode_by_hand() -> None:
    """4x4 (5 bits a column): x in column 0, o on it, x in column 2; o to move (3 stones)."""
    rules = Rules(4, 4)
    # column 0: stones x (bit 0), o (bit 1), marker bit 2; o moves: its stone is bit 1 -> 0b110
    # column 1: empty -> marker 1; column 2: x at bit 0, marker bit 1 -> 0b10; column 3: 1
    code = 0b110 | 1 << 5 | 0b10 << 10 | 1 << 15
    cur, mask, ok = rules.decode(np.array([code, code | 1 << 20, code & ~(1 << 5)], np.uint64))
    assert ok.tolist() == [True, False, False]  # a bit past the board; an empty field
    assert int(mask[0]) == 0b11 | 0b1 << 10 and int(cur[0]) == 0b10
    assert rules.stones(mask[:1]).tolist() == [3] and rules.stones(cur[:1]).tolist() == [1]
    assert rules.board(code) == "..../..../o.../x.x."


@given(st.lists(st.integers(0, 2**64 - 1), max_size=50))
def test_ones_both_ways(values: list[int]) -> None:
    """numpy 2's ``bitwise_count`` and the by-bytes count agree with Python's."""
    a = np.array(values, np.uint64)
    want = [bin(v).count("1") for v in values]
    assert connect4.ones(a).tolist() == want
    assert connect4._BYTE_ONES[a.view(np.uint8).reshape(-1, 8)].sum(axis=1).tolist() == want


@given(st.lists(st.integers(0, 30), max_size=200))
def test_runs_fold_every_move(parent_list: list[int]) -> None:
    """Folding a run at a time (no parent twice in a run) gives what ``ufunc.at`` gives."""
    parent = np.array(parent_list, np.intp)
    runs = judge._runs(parent)
    assert sum(r.stop - r.start for r in runs) == len(parent)
    rem = np.arange(len(parent), dtype=np.int64)[::-1] % 7
    most, want = np.full(31, -1, np.int64), np.full(31, -1, np.int64)
    for run in runs:
        p = parent[run]
        assert len(set(p.tolist())) == len(p)
        most[p] = np.maximum(most[p], rem[run])
    np.maximum.at(want, parent, rem)
    assert most.tolist() == want.tolist()


def test_each_process_keeps_its_share_of_the_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """30% of the memory among the processes, at least 512 MiB; ``CHECKER_CACHE_BYTES`` wins."""
    from checker import dataset

    monkeypatch.delenv("CHECKER_CACHE_BYTES", raising=False)
    monkeypatch.setattr(dataset, "CACHE_BYTES", dataset.CACHE_BYTES)
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for jobs in (1, 2, 10**6):
        dataset.share_memory(jobs)
        assert max(512 << 20, memory * 3 // (10 * jobs)) == dataset.CACHE_BYTES
    assert dataset.CACHE_BYTES == 512 << 20
    monkeypatch.setenv("CHECKER_CACHE_BYTES", "12345")
    dataset.share_memory(2)
    assert dataset.CACHE_BYTES == 12345
