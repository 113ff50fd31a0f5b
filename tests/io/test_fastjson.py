"""The numpy fast path for long integer arrays gives exactly what the plain parser gives."""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from io_examples import VALID, assert_same_case, text
from io_mutations import mutate

import verifier.io.fastjson as fastjson
from verifier.errors import CaseError
from verifier.io import parse_case
from verifier.io.fastjson import parse_json_arrays
from verifier.io.jsonpath import parse_json


@contextlib.contextmanager
def threshold(n: int) -> Iterator[None]:
    """Use the fast path for arrays of at least ``n`` bytes (0: every array)."""
    old = fastjson.MIN_ARRAY_BYTES
    fastjson.MIN_ARRAY_BYTES = n
    try:
        yield
    finally:
        fastjson.MIN_ARRAY_BYTES = old


def _plain(x: Any) -> Any:
    """numpy arrays back to lists, for comparing with ``json.loads``."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_plain(v) for v in x]
    return x


def _outcome(fn: Any, t: str | bytes) -> Any:
    try:
        return ("ok", _plain(fn(t, "f.json")))
    except CaseError as e:
        return ("error", str(e))


def _same_as_plain(t: str | bytes) -> None:
    with threshold(0):
        fast = _outcome(parse_json_arrays, t)
    slow = _outcome(parse_json, t)
    assert fast[0] == slow[0], (fast, slow)
    if fast[0] == "error":
        assert fast == slow
    else:
        # NaN != NaN: compare the JSON texts instead
        assert json.dumps(fast[1]) == json.dumps(slow[1])


TRICKY = [
    '{"encoding": "compact", "edges": {"src": [0, 1, 2], "dst": [1,2,0]}, "owner": [-1,0,1]}',
    '{"encoding": "compact", "description": "[1, 2, 3]", "edges": {"src": [1], "dst": [0]}}',
    '{"encoding": "compact", "description": "a \\" [1, 2]", "edges": {"src": [1]}}',
    '{"encoding": "compact", "description": "a \\\\", "edges": {"src": [1, 2]}}',
    '{"encoding": "compact", "description": "a \\\\\\" [4]", "x": [5]}',
    '{"encoding": "compact", "nested": [[1, 2], [3]], "deep": {"a": [1, -0, 7]}}',
    '{"encoding": "readable", "edges": {"src": [0, 1]}, "owner": [1]}',
    '{"encoding": "compact", "owner": [01, 2]}',
    '{"encoding": "compact", "owner": [1 2]}',
    '{"encoding": "compact", "owner": [- 1]}',
    '{"encoding": "compact", "owner": [1,]}',
    '{"encoding": "compact", "owner": [,1]}',
    '{"encoding": "compact", "owner": [--1]}',
    '{"encoding": "compact", "owner": [1-2]}',
    '{"encoding": "compact", "owner": [1,,2]}',
    '{"encoding": "compact", "owner": [1.5, 2]}',
    '{"encoding": "compact", "owner": [true, 2]}',
    '{"encoding": "compact", "owner": [1e3]}',
    '{"encoding": "compact", "owner": [123456789012345678901234567890]}',
    '{"encoding": "compact", "owner": [999999999999999999, -999999999999999999]}',
    '{"encoding": "compact", "owner": [ ]}',
    '{"encoding": "compact", "owner": [\n 1 ,\t2\r\n]}',
    '{"encoding": "compact", "owner": [1, 2], "owner": [3]}',
    '{"encoding": "compact", "owner": [1, 2]',
    '{"encoding": "compact", "a": "[1, 2]',
    '{"encoding": "compact", "owner": [00, ,1]}',
    '{"encoding": "compact", "owner": [1, ,2]}',
    '{"encoding": "compact", "owner": [1,-]}',
    '{"encoding": "compact", "owner": [-,1]}',
    '{"encoding": "compact", "owner": [ ,1]}',
    '{"encoding": "compact", "owner": [-0, 0, -5]}',
    '{"encoding": "compact", "owner": [+1]}',
    '{"encoding": "compact", "owner": [9223372036854775807, 9223372036854775808]}',
    '{"encoding": "compact", "owner": [1000000000000000000, -1000000000000000000]}',
    '{"encoding": "compact", "owner": [100, 20, 3, 0, -40]}',
    '{"encoding": "readable", "nodes": {"compact": {}}, "owner": [1, 2], "x": [[3, 4]]}',
    '{"nodes": {"compact": {"moves": []}}, "semantics": "impartial", "y": [5, 6]}',
    "[1, 2, 3]",
    "[[1, 2], 3]",
    '"[1]"',
    '{"encoding": "compact", "edges": [1, 2], "owner": 3}',
    '{"encoding": "compact", "edges": {"src": [1], "src": [2]}}',
]


@pytest.mark.parametrize("t", TRICKY)
def test_tricky_texts_parse_as_json_does(t: str) -> None:
    _same_as_plain(t)


def test_compact_slots_become_read_only_int64_arrays() -> None:
    with threshold(0):
        data = parse_json_arrays(text(VALID["reachability-compact"]), "f.json")
    for a in (data["edges"]["src"], data["edges"]["dst"], data["owner"], data["targets"]):
        assert isinstance(a, np.ndarray)
        assert a.dtype == np.int64
        assert not a.flags.writeable
    assert data["targets"].tolist() == [3]
    assert data["names"] == ["x", "y", "z", "g", "w"]


def test_only_long_arrays_by_default() -> None:
    n = 20_000
    doc = {
        "semantics": "impartial",
        "encoding": "compact",
        "nodes": n,
        "edges": {"src": list(range(n - 1)), "dst": list(range(1, n))},
        "sums": [{"name": "s", "positions": [0, 1]}],
    }
    data = parse_json_arrays(json.dumps(doc), "f.json")
    assert isinstance(data["edges"]["src"], np.ndarray)  # > 64 KiB of text
    assert data["sums"][0]["positions"] == [0, 1]  # short: plain list
    fast = parse_case(json.dumps(doc), "big.json")
    with threshold(1 << 62):
        slow = parse_case(json.dumps(doc), "big.json")
    assert_same_case(fast, slow)
    assert fast.graph.m == n - 1


@pytest.mark.parametrize("name", sorted(k for k in VALID if k.endswith("compact")))
def test_valid_compact_cases_load_the_same(name: str) -> None:
    with threshold(0):
        fast = parse_case(text(VALID[name]), "f.json")
    assert_same_case(fast, parse_case(text(VALID[name]), "f.json"))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(k for k in VALID if k.endswith("compact"))), st.data())
def test_mutated_compact_cases_give_the_same_result(name: str, data: st.DataObject) -> None:
    doc: Any = copy.deepcopy(VALID[name])
    for _ in range(data.draw(st.integers(1, 2))):
        doc = mutate(doc, data)
    t = json.dumps(doc)

    def run() -> Any:
        try:
            return ("ok", parse_case(t, "m.json"))
        except CaseError as e:
            return ("error", str(e))

    with threshold(0):
        fast = run()
    with threshold(1 << 62):
        slow = run()
    assert fast[0] == slow[0], (fast, slow)
    if fast[0] == "error":
        assert fast == slow
    else:
        assert_same_case(fast[1], slow[1])


ints = st.integers(-(10**20), 10**20)
spaces = st.sampled_from(["", " ", "\n", "\t", "  ", "\r\n"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(spaces, ints, spaces), max_size=6), st.data())
def test_random_integer_array_texts(items: list[tuple[str, int, str]], data: st.DataObject) -> None:
    body = ",".join(f"{a}{v}{b}" for a, v, b in items)
    if data.draw(st.booleans()) and body:  # damage it
        k = data.draw(st.integers(0, len(body)))
        body = (
            body[:k]
            + data.draw(st.sampled_from(["-", ",", " ", "0", "00", ".", "e", ", ,", "- ", "+"]))
            + body[k:]
        )
    t = '{"encoding": "compact", "owner": [' + body + '], "x": "[' + body + ']"}'
    _same_as_plain(t)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"1,2", [1, 2]),
        (b" -1 ,\n0\t, 17 ", [-1, 0, 17]),
        (b"999999999999999999", [999999999999999999]),
        (b"-0", None),  # valid JSON, but not canonical: left to json
        (b"00, ,1", None),
        (b"1, ,2", None),
        (b"01", None),
        (b"1,-", None),
        (b"- 1", None),
        (b"1 2", None),
        (b"1,", None),
        (b"", None),
        (b" ", None),
        (b"1.5", None),
        (b"1e3", None),
        (b"1000000000000000000", None),
        (b"null", None),
    ],
)
def test_parse_ints_accepts_only_canonical_json_integers(
    body: bytes, expected: list[int] | None
) -> None:
    got = fastjson._parse_ints(body)
    assert (None if got is None else got.tolist()) == expected
