"""``verifier.distinct``: the sorted distinct values, equal to ``np.unique`` (the function it
stands in for) on any integer array, empty and one-element arrays included."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from verifier.distinct import distinct, distinct_union

DTYPES = st.sampled_from([np.uint64, np.int64, np.int32, np.uint16, np.intp])


@given(DTYPES.flatmap(lambda d: arrays(d, st.integers(0, 60))))
def test_distinct_is_np_unique(x: np.ndarray) -> None:
    got = distinct(x)
    assert got.dtype == x.dtype
    assert np.array_equal(got, np.unique(x))


@given(
    arrays(np.int64, st.integers(0, 40), elements=st.integers(-5, 5)),
    arrays(np.int64, st.integers(0, 40), elements=st.integers(-5, 5)),
)
def test_distinct_union_is_np_union1d(a: np.ndarray, b: np.ndarray) -> None:
    assert np.array_equal(distinct_union(a, b), np.union1d(a, b))


def test_distinct_by_hand() -> None:
    x = np.array([5, 1, 5, 3, 1, 1], dtype=np.uint64)
    assert distinct(x).tolist() == [1, 3, 5]
    assert distinct(np.zeros(0, dtype=np.int64)).tolist() == []
    assert distinct(np.array([7])).tolist() == [7]
    assert x.tolist() == [5, 1, 5, 3, 1, 1]  # the input is left as it was
