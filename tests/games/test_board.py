"""The shared generator helpers: exploration, CSR building, symmetries, lazy names."""

from __future__ import annotations

import numpy as np
import pytest

from verifier.games._board import (
    LazyNames,
    explore,
    normal_case,
    sorted_csr,
    square_symmetries,
    unique_keys,
)
from verifier.model import GameGraph, Semantics


def test_explore_breadth_first_with_repeated_successors() -> None:
    # a subtraction game: take 1 or 2 from a heap of 4 (moves to the same heap counted once)
    positions, src, dst = explore([4], lambda k: [k - 1, k - 2, k - 1] if k >= 2 else [k - 1] * k)
    assert positions == [4, 3, 2, 1, 0]
    assert list(zip(src.tolist(), dst.tolist(), strict=True)) == [
        (0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (2, 4), (3, 4),
    ]  # fmt: skip


def test_sorted_csr_matches_from_edges() -> None:
    rng = np.random.default_rng(5)
    key = np.unique(rng.integers(0, 50 * 50, 300))
    src, dst = key // 50, key % 50
    perm = rng.permutation(len(src))
    ptr, idx = sorted_csr(50, src[perm], dst[perm])
    g = GameGraph.from_edges(50, src[perm], dst[perm], semantics=Semantics.NORMAL)
    assert np.array_equal(ptr, g.succ_ptr) and np.array_equal(idx, g.succ_idx)
    with pytest.raises(ValueError, match="repeated move 1 -> 2"):
        sorted_csr(3, np.array([1, 0, 1]), np.array([2, 1, 2]))
    with pytest.raises(ValueError, match="out of range"):
        sorted_csr(3, np.array([0]), np.array([3]))


def test_normal_case_labels() -> None:
    # 0 -> 1, 0 -> 2; 1 labelled draw, 2 unlabelled (lost by default); a label on 0 is dropped
    case = normal_case(["a", "b", "c"], [0, 0], [2, 1], [1.0, 0.0, np.nan], case_id="t", source="s")
    g = case.graph
    assert np.isnan(g.value[0]) and g.value[1] == 0.0 and g.value[2] == -1.0
    assert g.successors(0).tolist() == [1, 2] and g.names == ("a", "b", "c")


def test_square_symmetries_form_a_group() -> None:
    for n in (3, 4):
        perms = {tuple(p) for p in square_symmetries(n)}
        assert len(perms) == 8 and tuple(range(n * n)) in perms
        for p in perms:
            for q in perms:
                assert tuple(p[i] for i in q) in perms


def test_unique_keys_and_lazy_names() -> None:
    keys = np.array([5, 3, 5, 1, 3], dtype=np.uint64)
    uniq, first = unique_keys(keys)
    assert uniq.tolist() == [1, 3, 5] and keys[first].tolist() == [1, 3, 5]
    names = LazyNames(np.array([7, 8, 9]), lambda c: f"p{c}")
    assert len(names) == 3 and names[1] == "p8" and names[1:] == ["p8", "p9"]
    assert names == ["p7", "p8", "p9"] and list(names) == ["p7", "p8", "p9"]
    assert names.codes.tolist() == [7, 8, 9]
