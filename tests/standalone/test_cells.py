"""The checker's CSV cells read by numpy (checker/cells.py) say exactly what the cell-by-cell
reading says: the same numbers, or the same first odd cell named."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.cells import counts, digits, named, natural
from checker.reading import csv_columns

CELLS = st.lists(
    st.one_of(
        st.integers(0, 10**20).map(str),
        st.sampled_from(["", "0", "00", "07", "-1", "+3", " 4", "²", "٣", "1.0", "1e3", "x"]),
    ),
    max_size=30,
)


def _slow(column: list[str], blank: float) -> Any:
    try:
        return [natural(v) if v else blank for v in column]
    except ValueError as e:
        return str(e)


def _fast(column: list[str], blank: float) -> Any:
    try:
        got = counts(column, blank)  # an array by numpy, else the cell-by-cell list
        got = got.tolist() if isinstance(got, np.ndarray) else got
        return [float(x) if x != x else int(x) for x in got]
    except ValueError as e:
        return str(e)


@settings(max_examples=300, deadline=None)
@given(CELLS)
def test_counts_read_a_column_as_cell_by_cell(column: list[str]) -> None:
    slow, fast = _slow(column, -1), _fast(column, -1)
    assert fast == slow


@pytest.mark.parametrize(
    ("column", "want"),
    [
        (["0", "12", "", "999999999999999999"], [0, 12, -1, 999999999999999999]),
        (["", ""], [-1, -1]),
        (["1000000000000000000"], None),  # 19 digits: cell by cell
        (["3", "٣"], None),  # an Arabic-Indic digit is no ASCII digit
        (["3", "-1"], None),
        ([], None),
    ],
)
def test_digits_by_hand(column: list[str], want: list[int] | None) -> None:
    got = digits(column)
    assert (None if got is None else got.tolist()) == want


def test_canonical_digits_refuse_a_leading_zero_but_keep_zero() -> None:
    assert digits(["0", "10", ""], canonical=True).tolist() == [0, 10, -1]
    assert digits(["0", "010"], canonical=True) is None
    assert digits(["007"], canonical=True) is None
    assert digits(["007"]).tolist() == [7]


@settings(max_examples=300, deadline=None)
@given(CELLS, st.integers(0, 40))
def test_named_positions_of_a_case_without_names_as_a_dict_reads_them(
    column: list[str], n: int
) -> None:
    index = {str(i): i for i in range(n)}

    def read(blank: Any) -> Any:
        try:
            return np.asarray(named(column, True, n, lambda: index, blank)).tolist()
        except KeyError as e:
            return repr(e)

    def by_dict(blank: Any) -> Any:
        look = index if blank is None else {**index, "": blank}
        try:
            return [look[v] for v in column]
        except KeyError as e:
            return repr(e)

    assert read(None) == by_dict(None)
    assert read(-1) == by_dict(-1)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("a,b\n1,2\n3,4\n", {"a": ["1", "3"], "b": ["2", "4"]}),
        ("a,b\n1,2\n3,4", {"a": ["1", "3"], "b": ["2", "4"]}),
        ("a,b\n", {"a": [], "b": []}),
        ("", {"": []}),
        ("a\n\n", {"a": [""]}),
        ("a,b\n1,\n,4\n", {"a": ["1", ""], "b": ["", "4"]}),
        ('a,b\n"x,y",2\n', {"a": ["x,y"], "b": ["2"]}),
    ],
)
def test_csv_columns_by_hand(tmp_path: Any, text: str, want: dict[str, list[str]]) -> None:
    path = tmp_path / "a.csv"
    path.write_text(text)
    assert csv_columns(str(path)) == want


@pytest.mark.parametrize("text", ["a,b\n1,2\n3\n", "a,b\n1,2,3\n", "a,b\n1,2\n\n", "a,b\n\n1,2\n"])
def test_a_ragged_csv_is_unreadable(tmp_path: Any, text: str) -> None:
    from checker.reading import Unreadable

    path = tmp_path / "a.csv"
    path.write_text(text)
    with pytest.raises(Unreadable, match="header's number of cells"):
        csv_columns(str(path))


def _csv_columns_line_by_line(whole: str) -> Any:
    """The reading before the one split (each line split, its commas counted): the slow
    reference of ``csv_columns`` for a text with nothing quoted."""
    lines = whole.removesuffix("\n").split("\n")
    k = lines[0].count(",") + 1
    if set(map(str.count, lines, [","] * len(lines))) != {k - 1}:
        return "ragged"
    cells = whole.removesuffix("\n").replace("\n", ",").split(",")
    return {h: cells[k + j :: k] for j, h in enumerate(cells[:k])}


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab0,\n"), max_size=40))
def test_csv_columns_split_once_read_as_line_by_line(tmp_path_factory: Any, text: str) -> None:
    from checker.reading import Unreadable

    path = tmp_path_factory.mktemp("csv") / "a.csv"
    path.write_text(text)
    try:
        got: Any = csv_columns(str(path))
    except Unreadable:
        got = "ragged"
    assert got == _csv_columns_line_by_line(text)
