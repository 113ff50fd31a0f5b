"""The writers' text made from columns (issue 44 item 4): a solver's maps in ``--json`` written
from the names and the codes of distinct entries (``writers.json._Flat``), the ``--format csv``
table from ``Coded`` columns (``writers.csv._joined``) and the distinct entries behind both
(``model.solution.shown_codes``) say exactly what the slow references say: ``json.dumps`` of
the dict, the ``csv`` module's rows, ``show`` called entry by entry."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verifier.writers.json as json_writer
from verifier import GameGraph, Semantics
from verifier.model.solution import shown_codes, shown_entries
from verifier.writers.base import Coded, Records
from verifier.writers.csv import write_records

NAMES = st.text(alphabet=st.sampled_from('ab0 é"\\\n\x01,😀'), max_size=3)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, 1, True, "won", 'x"y', "é"]),
    st.text(max_size=3),
)


@contextmanager
def flat_from(n: int) -> Iterator[None]:
    """Every map of ``n`` or more entries written the fast way."""
    old = json_writer.FLAT_FROM
    json_writer.FLAT_FROM = n
    try:
        yield
    finally:
        json_writer.FLAT_FROM = old


def graph(names: list[str] | int) -> GameGraph:
    """A graph without moves: its names are all that is read."""
    return GameGraph.from_edges(names, [], [], semantics=Semantics.NORMAL)


@st.composite
def flats(draw: st.DrawFn) -> tuple[Any, ...]:
    """A graph (named, or "0".."n-1"), and a map over some of its positions: of distinct
    shown entries, or (``shown`` None) of positions by name."""
    named = draw(st.booleans())
    names = draw(st.lists(NAMES, min_size=1, max_size=12, unique=not draw(st.booleans())))
    g = graph(names if named else len(names))
    ids = np.array(sorted(draw(st.sets(st.integers(0, g.n - 1), min_size=1))), dtype=np.int64)
    if draw(st.booleans()):  # positions by name (a move)
        to = draw(st.lists(st.integers(0, g.n - 1), min_size=len(ids), max_size=len(ids)))
        return g, ids, np.array(to, dtype=np.int64), None
    shown = draw(st.lists(SCALARS, min_size=1, max_size=5))
    codes = draw(st.lists(st.integers(0, len(shown) - 1), min_size=len(ids), max_size=len(ids)))
    return g, ids, np.array(codes, dtype=np.intp), shown


@settings(max_examples=400, deadline=None)
@given(flats(), st.sampled_from([1, 2, None]), st.booleans())
def test_a_map_written_from_its_columns_is_json_dumps_of_its_dict(
    parts: tuple[Any, ...], indent: int | None, nested: bool
) -> None:
    """Any names (escaped, non-ASCII, repeated: then through the dict, as before), any scalar
    entries, any indentation: ``dumps``'s text is ``json.dumps``'s of the dict it stands for."""
    flat = json_writer._Flat(*parts)
    want_doc: Any = {"values": flat.as_dict(), "n": 1}
    doc: Any = {"values": flat, "n": 1}
    if nested:  # a folder's document: the maps deeper
        want_doc, doc = {"cases": [want_doc, want_doc]}, {"cases": [doc, doc]}
    with flat_from(1):
        got = json_writer.dumps(doc, indent=indent)
    assert got == json.dumps(want_doc, indent=indent, allow_nan=False) + "\n"


def test_the_columns_are_written_not_a_dict_and_each_entry_in_its_place() -> None:
    """The fast path is taken (no dict of the map is made), and a changed code changes that
    entry's line alone: the text follows the codes, not an order of its own."""
    g = graph([f"p{i}" for i in range(3000)])
    ids = np.arange(0, 3000, 2)
    codes = np.arange(len(ids)) % 3
    flat = json_writer._Flat(g, ids, codes, ["won", "lost", None])
    flat_map: dict[str, Any] = {}
    assert json_writer._with_tokens({"values": flat}, flat_map) != {"values": flat}
    [(written, keys, targets)] = flat_map.values()
    assert written is flat and keys.tolist() == [f"p{i}" for i in ids] and targets is None

    made: list[int] = []
    real = flat.as_dict

    def counted() -> dict[str, Any]:
        made.append(1)
        return real()

    object.__setattr__(flat, "as_dict", counted)
    text = json_writer.dumps({"values": flat})
    assert made == [] and text == json.dumps({"values": real()}, indent=1) + "\n"
    codes[7] = 2  # p14: None, not "lost"
    lines = json_writer.dumps({"values": flat}).splitlines()
    assert [x for x in lines if x not in text.splitlines()] == ['  "p14": null,']


def test_moves_by_name_and_repeated_names_fall_back_to_the_dict() -> None:
    g = graph(["a", "b", "a"])  # repeated: the dict keeps the last entry
    flat = json_writer._Flat(g, np.arange(3), np.array([1, 2, 0]), None)
    with flat_from(1):
        assert json_writer.dumps({"m": flat}) == '{\n "m": {\n  "a": "a",\n  "b": "a"\n }\n}\n'
    g = graph(4)
    flat = json_writer._Flat(g, np.array([0, 3]), np.array([3, 1]), None)
    with flat_from(1):
        assert json_writer.dumps({"m": flat}) == '{\n "m": {\n  "0": "3",\n  "3": "1"\n }\n}\n'


DTYPES = st.sampled_from([np.int8, np.int16, np.int64, np.uint8, np.uint32, np.float64])


@settings(max_examples=300, deadline=None)
@given(DTYPES, st.data())
def test_shown_codes_show_each_entry_as_show_does_one_at_a_time(dtype: Any, data: Any) -> None:
    """Counted (few distinct whole numbers) or sorted, each entry is shown as ``show`` shows it
    alone, ``None`` where not given; ``show`` is called once, on distinct entries only."""
    kind = np.dtype(dtype).kind
    info = np.iinfo(dtype) if kind != "f" else None
    if info is None:
        every = st.sampled_from([0.0, -0.0, 1.5, np.nan, 1.0])
    elif data.draw(st.booleans()):  # few distinct: counted
        every = st.integers(0, 5).map(lambda v: v - 2 if kind == "i" else v)
    else:
        every = st.integers(int(max(info.min, -(2**40))), int(min(info.max, 2**40)))
    entries = data.draw(st.lists(every, max_size=40))
    arr = np.array(entries, dtype=dtype)
    given_ = np.array(
        data.draw(st.lists(st.booleans(), min_size=len(arr), max_size=len(arr))), dtype=bool
    )
    calls: list[list[Any]] = []

    def show(es: Any) -> list[Any]:
        calls.append(es.tolist())
        return [f"<{e!r}:{np.signbit(e)}>" for e in es.tolist()]

    want = [show(arr[i : i + 1])[0] if g else None for i, g in enumerate(given_.tolist())]
    calls.clear()
    assert shown_entries(arr, given_, show) == want
    assert len(calls) <= 1 and len({repr(c) for c in (calls[0] if calls else [])}) == len(
        calls[0] if calls else []
    )
    codes, shown = shown_codes(arr, given_, show)
    assert [shown[c] for c in codes.tolist()] == want


def test_few_whole_numbers_are_counted_without_overflow() -> None:
    """int8 entries from -128 to 127: the codes of ``data - min`` taken in int64."""
    arr = np.array([127, -128, 0, 127] * 100, dtype=np.int8)
    codes, shown = shown_codes(arr, np.ones(400, dtype=bool), lambda es: es.tolist())
    assert shown == [-128, 0, 127, None]
    assert [shown[c] for c in codes.tolist()] == [127, -128, 0, 127] * 100


CELLS = st.one_of(
    st.none(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False),
    st.booleans(),
    st.text(alphabet=st.sampled_from('ab,"\r\n 0-é'), max_size=4),
)


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 5), st.integers(0, 60), st.data())
def test_coded_columns_are_written_as_the_csv_module_writes_their_rows(
    k: int, rows: int, data: Any
) -> None:
    """Columns as ``Coded`` (few or many distinct cells) or lists, in any mix: the text of
    ``write_records`` is the ``csv`` module's, row by row."""
    columns: list[Any] = []
    for _ in range(k):
        distinct = data.draw(st.lists(CELLS, min_size=1, max_size=8))
        if data.draw(st.booleans()):
            codes = data.draw(
                st.lists(st.integers(0, len(distinct) - 1), min_size=rows, max_size=rows)
            )
            columns.append(Coded(np.array(codes, dtype=np.intp), distinct))
        else:
            columns.append(data.draw(st.lists(CELLS, min_size=rows, max_size=rows)))
    head = tuple(f"c{j}" for j in range(k))
    out, want = io.StringIO(), io.StringIO()
    write_records(Records(head, cells=columns), out)
    w = csv.writer(want, lineterminator="\n")
    w.writerow(head)
    plain = [c.tolist() if isinstance(c, Coded) else c for c in columns]
    w.writerows([["" if v is None else v for v in row] for row in zip(*plain, strict=True)])
    assert out.getvalue() == want.getvalue()


def test_columns_of_few_distinct_cells_put_each_row_in_its_place() -> None:
    rows = 400
    value = Coded(np.arange(rows) % 3, ["won", "lost", None])
    word = Coded((np.arange(rows) + 1) % 3, ["win", "loss", "draw"])
    names = [f"n{i}" for i in range(rows)]
    out = io.StringIO()
    write_records(Records(("position", "value", "outcome"), cells=[names, value, word]), out)
    lines = out.getvalue().splitlines()
    assert lines[:4] == ["position,value,outcome", "n0,won,loss", "n1,lost,draw", "n2,,win"]
    assert len(lines) == rows + 1 and lines[-1] == "n399,won,loss"
    value.codes[5] = 0  # n5: won, not None
    out = io.StringIO()
    write_records(Records(("position", "value", "outcome"), cells=[names, value, word]), out)
    assert [x for x in out.getvalue().splitlines() if x not in lines] == ["n5,won,win"]


@pytest.mark.parametrize("n", [1, 7])
def test_coded_column_reads_as_its_cells(n: int) -> None:
    c = Coded(np.array([1, 0, 1] * n), ["a", None])
    assert len(c) == 3 * n and c[0] is None and c[1] == "a" and c[:2] == [None, "a"]
    assert c.tolist() == [None, "a", None] * n
