"""case.json: valid cases of every semantics in both encodings, malformed ones, round trips."""

from __future__ import annotations

import copy
import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from io_examples import (
    IMPARTIAL_COMPACT,
    IMPARTIAL_READABLE,
    MINIMAX_COMPACT,
    MINIMAX_READABLE,
    NORMAL_COMPACT,
    NORMAL_READABLE,
    REACH_COMPACT,
    REACH_READABLE,
    VALID,
    assert_same_case,
    assert_same_graph,
    edges,
    text,
)

from verifier.errors import CaseError, UsageError
from verifier.io import case_to_dict, case_to_text, dump_case, load_any, load_case, parse_case
from verifier.model import MAX, MIN, NOBODY, Case, GameGraph, Semantics


def _nan_or(values: list[float | None]) -> list[float]:
    return [math.nan if v is None else v for v in values]


# ====================================================================== valid cases
@pytest.mark.parametrize("doc", [MINIMAX_READABLE, MINIMAX_COMPACT], ids=["readable", "compact"])
def test_minimax_example(doc: dict[str, Any]) -> None:
    case = parse_case(text(doc), "fig1.json")
    g = case.graph
    assert g.semantics is Semantics.MINIMAX
    assert list(g.names) == ["a", "b", "c", "d", "e"]
    assert edges(g) == {("a", "b"), ("a", "c"), ("c", "d"), ("c", "a")}
    assert g.successors(0).tolist() == [1, 2]  # sorted by id, whatever the input order
    assert g.owner.tolist() == [MAX, NOBODY, MIN, NOBODY, NOBODY]
    np.testing.assert_array_equal(g.value, [math.nan, -1.0, math.nan, 2.5, 1.0])
    assert not g.target.any()
    assert case.root == 0
    assert case.sums == ()
    assert case.expect is not None
    assert dict(case.expect.values) == {0: 0.0, 1: -1.0, 2: 0.0, 3: 2.5}
    assert dict(case.expect.intervals) == {0: (-1.0, 0.0)}
    assert case.expect.root_value == 0.0
    assert case.expect.unique is False
    assert case.expect.labels == {}


def test_minimax_metadata_and_default_id() -> None:
    readable = parse_case(text(MINIMAX_READABLE), "x/fig1.json")
    assert readable.id == "kars-figure-1-b-lt-d"
    assert readable.source == "Kars 1990, Example 3.2 / Figure 1, with b = -1, d = 2"
    assert readable.description == "a cycle through a Max and a Min node"
    assert parse_case(text(MINIMAX_COMPACT), "x/fig1.json").id == "fig1"
    assert parse_case(text(MINIMAX_COMPACT)).id == "case"


@pytest.mark.parametrize("doc", [NORMAL_READABLE, NORMAL_COMPACT], ids=["readable", "compact"])
def test_normal_example(doc: dict[str, Any]) -> None:
    case = parse_case(text(doc), "normal.json")
    g = case.graph
    assert g.semantics is Semantics.NORMAL
    assert g.n == 6
    assert g.edge_src.tolist() == [0, 0, 1]
    assert g.succ_idx.tolist() == [1, 2, 0]
    assert (g.owner == NOBODY).all()
    # an unlabelled terminal (r) is lost: -1; s won, t draw, u lost explicitly
    np.testing.assert_array_equal(g.value, [math.nan, math.nan, -1.0, 1.0, 0.0, -1.0])
    assert case.root is None
    assert case.expect is not None
    assert case.expect.labels[0] == "won"
    assert case.expect.labels[2] == "lost"
    assert case.expect.remoteness[0] == 1


def test_normal_readable_names_and_expect() -> None:
    case = parse_case(text(NORMAL_READABLE))
    assert list(case.graph.names) == ["p", "q", "r", "s", "t", "u"]
    assert case.expect is not None
    assert dict(case.expect.labels) == {
        0: "won",
        1: "lost",
        2: "lost",
        3: "won",
        4: "draw",
    }  # "unknown" in the file: Knuth's word for a draw
    assert case.expect.unique is True


@pytest.mark.parametrize("doc", [REACH_READABLE, REACH_COMPACT], ids=["readable", "compact"])
def test_reachability_example(doc: dict[str, Any]) -> None:
    case = parse_case(text(doc), "reach.json")
    g = case.graph
    assert g.semantics is Semantics.REACHABILITY
    assert list(g.names) == ["x", "y", "z", "g", "w"]
    assert edges(g) == {("x", "y"), ("x", "g"), ("y", "x"), ("y", "z"), ("g", "g")}
    assert g.owner.tolist() == [0, 1, NOBODY, NOBODY, 1]
    assert g.target.tolist() == [False, False, False, True, False]
    assert np.isnan(g.value).all()
    assert case.root == 0
    assert case.expect is not None
    assert dict(case.expect.winner) == {0: 0, 1: 1, 2: 1, 3: 0}
    assert case.expect.root_value == 0.0


@pytest.mark.parametrize(
    "doc", [IMPARTIAL_READABLE, IMPARTIAL_COMPACT], ids=["readable", "compact"]
)
def test_impartial_example(doc: dict[str, Any]) -> None:
    case = parse_case(text(doc), "nim.json")
    g = case.graph
    assert g.semantics is Semantics.IMPARTIAL
    assert g.n == 4
    assert [g.successors(i).tolist() for i in range(4)] == [[1, 2], [2], [], [3]]
    assert (g.owner == NOBODY).all()
    assert np.isnan(g.value).all()
    assert len(case.sums) == 1
    assert case.sums[0].name == "two-heaps"
    assert case.sums[0].positions == (0, 1)
    assert case.expect is not None
    assert case.expect.grundy[0] == 2
    assert dict(case.expect.sums) == {"two-heaps": 3}


def test_impartial_readable_names_and_loopy_values() -> None:
    case = parse_case(text(IMPARTIAL_READABLE))
    assert list(case.graph.names) == ["h2", "h1", "h0", "loop"]
    assert case.expect is not None
    assert dict(case.expect.grundy) == {0: 2, 1: 1, 2: 0, 3: "inf"}
    assert parse_case(text(IMPARTIAL_COMPACT)).expect.grundy[3] == "inf(0)"  # type: ignore[union-attr]


def test_compact_without_names_uses_ids() -> None:
    case = parse_case(text(NORMAL_COMPACT))
    assert list(case.graph.names) == ["0", "1", "2", "3", "4", "5"]
    assert case.graph.id_of("2") == 2


def test_value_words_and_decimals() -> None:
    doc = {
        "semantics": "minimax",
        "nodes": {
            "r": {"owner": "min", "moves": ["w", "d", "l", "x"]},
            "w": {"value": "win"},
            "d": {"value": "draw"},
            "l": {"value": "loss"},
            "x": {"value": -0.25},
        },
    }
    g = parse_case(text(doc)).graph
    np.testing.assert_array_equal(g.value, [math.nan, 1.0, 0.0, -1.0, -0.25])


def test_reachability_target_and_dead_end_need_no_owner() -> None:
    doc = {
        "semantics": "reachability",
        "targets": ["t"],
        "nodes": {"t": {"moves": ["d"]}, "d": {}},
    }
    g = parse_case(text(doc)).graph
    assert g.owner.tolist() == [NOBODY, NOBODY]


def test_reachability_without_targets_is_allowed() -> None:
    doc = {"semantics": "reachability", "nodes": {"a": {"owner": 1, "moves": ["a"]}}}
    assert not parse_case(text(doc)).graph.target.any()


def test_expect_keys_become_ids_in_compact_too() -> None:
    case = parse_case(text(REACH_COMPACT))
    assert case.expect is not None
    assert set(case.expect.winner) == {0, 1, 2, 3}


def test_huge_but_exact_values_are_accepted() -> None:
    doc = {"semantics": "minimax", "nodes": {"a": {"value": 2**53}, "b": {"value": -(2**53)}}}
    assert parse_case(text(doc)).graph.value.tolist() == [2.0**53, -(2.0**53)]


# ====================================================================== malformed cases
def _with(base: dict[str, Any], *edits: tuple[tuple[Any, ...], Any]) -> str:
    """``base`` with each ``(path, value)`` set (value ``DELETE`` removes the key)."""
    doc = copy.deepcopy(base)
    for path, value in edits:
        node = doc
        for step in path[:-1]:
            node = node[step]
        if value is DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = value
    return json.dumps(doc)


DELETE = object()
MM, NM, RE, IM = MINIMAX_READABLE, NORMAL_READABLE, REACH_READABLE, IMPARTIAL_READABLE
MC, NC, RC, IC = MINIMAX_COMPACT, NORMAL_COMPACT, REACH_COMPACT, IMPARTIAL_COMPACT

MALFORMED: list[tuple[str, str | bytes, str]] = [
    # --- JSON itself
    ("invalid-json", '{"semantics": "minimax", "nodes": {', "$"),
    ("trailing-comma", '{"semantics": "impartial", "nodes": {"a": {}},}', "$"),
    ("not-utf8", b'{"semantics": "impartial", "nodes": {"\xff": {}}}', "$"),
    ("not-an-object", "[1, 2, 3]", "$"),
    ("empty-text", "", "$"),
    ("duplicate-node-name", '{"semantics": "impartial", "nodes": {"a": {}, "a": {}}}', "$.nodes.a"),
    (
        "duplicate-key-in-expect",
        '{"semantics": "impartial", "nodes": {"a": {}}, "expect": {"grundy": {"a": 0, "a": 1}}}',
        "$.expect.grundy.a",
    ),
    # --- top level
    ("unknown-semantics", _with(MM, (("semantics",), "chess")), "$.semantics"),
    ("missing-semantics", _with(MM, (("semantics",), DELETE)), "$.semantics"),
    ("semantics-not-string", _with(MM, (("semantics",), 3)), "$.semantics"),
    ("unknown-encoding", _with(MM, (("encoding",), "binary")), "$.encoding"),
    ("unknown-top-field", _with(MM, (("colour",), "red")), "$.colour"),
    ("missing-nodes", _with(MM, (("nodes",), DELETE)), "$.nodes"),
    (
        "empty-graph",
        _with(MM, (("nodes",), {}), (("expect",), DELETE), (("root",), DELETE)),
        "$.nodes",
    ),
    ("root-not-a-node", _with(MM, (("root",), "zz")), "$.root"),
    ("id-not-string", _with(MM, (("id",), 7)), "$.id"),
    # --- nodes and moves
    (
        "move-to-unknown-node",
        _with(MM, (("nodes", "a", "moves"), ["c", "z"])),
        "$.nodes.a.moves[1]",
    ),
    ("duplicate-move", _with(MM, (("nodes", "a", "moves"), ["c", "c"])), "$.nodes.a.moves[1]"),
    (
        "unknown-move-after-terminal",
        _with(IM, (("nodes", "loop", "moves"), ["loop", "zz"])),
        "$.nodes.loop.moves[1]",
    ),
    (
        "duplicate-move-after-terminal",
        _with(IM, (("nodes", "loop", "moves"), ["h0", "loop", "h0"])),
        "$.nodes.loop.moves[2]",
    ),
    ("moves-not-a-list", _with(MM, (("nodes", "a", "moves"), "c")), "$.nodes.a.moves"),
    ("move-not-a-string", _with(MM, (("nodes", "a", "moves"), ["c", 1])), "$.nodes.a.moves[1]"),
    ("node-not-an-object", _with(MM, (("nodes", "b"), -1)), "$.nodes.b"),
    ("unknown-node-field", _with(MM, (("nodes", "b", "colour"), "red")), "$.nodes.b.colour"),
    ("empty-node-name", _with(IM, (("nodes", ""), {})), "$.nodes['']"),
    # --- minimax owners and values
    ("terminal-without-value", _with(MM, (("nodes", "b"), {})), "$.nodes.b.value"),
    ("value-on-inner-node", _with(MM, (("nodes", "a", "value"), 3)), "$.nodes.a.value"),
    ("owner-missing", _with(MM, (("nodes", "c", "owner"), DELETE)), "$.nodes.c.owner"),
    ("owner-wrong-word", _with(MM, (("nodes", "a", "owner"), "maxi")), "$.nodes.a.owner"),
    ("minimax-owner-number", _with(MM, (("nodes", "a", "owner"), 0)), "$.nodes.a.owner"),
    ("owner-on-terminal", _with(MM, (("nodes", "b", "owner"), "max")), "$.nodes.b.owner"),
    ("label-in-minimax", _with(MM, (("nodes", "b", "label"), "won")), "$.nodes.b.label"),
    ("value-word-unknown", _with(MM, (("nodes", "b", "value"), "lose")), "$.nodes.b.value"),
    ("value-boolean", _with(MM, (("nodes", "b", "value"), True)), "$.nodes.b.value"),
    ("value-nan", '{"semantics": "minimax", "nodes": {"b": {"value": NaN}}}', "$.nodes.b.value"),
    (
        "value-infinity",
        '{"semantics": "minimax", "nodes": {"b": {"value": -Infinity}}}',
        "$.nodes.b.value",
    ),
    (
        "value-overflows-to-inf",
        '{"semantics": "minimax", "nodes": {"b": {"value": 1e999}}}',
        "$.nodes.b.value",
    ),
    ("value-beyond-2-53", _with(MM, (("nodes", "b", "value"), 2**53 + 1)), "$.nodes.b.value"),
    ("value-huge-int", _with(MM, (("nodes", "b", "value"), 10**400)), "$.nodes.b.value"),
    # --- normal
    ("label-on-inner-node", _with(NM, (("nodes", "p", "label"), "won")), "$.nodes.p.label"),
    ("normal-label-word", _with(NM, (("nodes", "s", "label"), "win")), "$.nodes.s.label"),
    ("value-in-normal", _with(NM, (("nodes", "s"), {"value": 1})), "$.nodes.s.value"),
    ("owner-in-normal", _with(NM, (("nodes", "p", "owner"), "max")), "$.nodes.p.owner"),
    # --- reachability
    ("reach-owner-missing", _with(RE, (("nodes", "y", "owner"), DELETE)), "$.nodes.y.owner"),
    ("reach-owner-word", _with(RE, (("nodes", "x", "owner"), "max")), "$.nodes.x.owner"),
    ("reach-owner-two", _with(RE, (("nodes", "x", "owner"), 2)), "$.nodes.x.owner"),
    ("reach-owner-float", _with(RE, (("nodes", "x", "owner"), 1.0)), "$.nodes.x.owner"),
    ("reach-owner-bool", _with(RE, (("nodes", "x", "owner"), True)), "$.nodes.x.owner"),
    ("reach-value", _with(RE, (("nodes", "z", "value"), 1)), "$.nodes.z.value"),
    ("target-not-a-node", _with(RE, (("targets",), ["g", "nope"])), "$.targets[1]"),
    ("duplicate-target", _with(RE, (("targets",), ["g", "g"])), "$.targets[1]"),
    ("targets-outside-reachability", _with(MM, (("targets",), ["b"])), "$.targets"),
    # --- impartial and sums
    ("owner-in-impartial", _with(IM, (("nodes", "h0", "owner"), 0)), "$.nodes.h0.owner"),
    (
        "sum-position-missing",
        _with(IM, (("sums", 0, "positions"), ["h2", "h9"])),
        "$.sums[0].positions[1]",
    ),
    ("sum-empty", _with(IM, (("sums", 0, "positions"), [])), "$.sums[0].positions"),
    ("sum-without-name", _with(IM, (("sums", 0, "name"), DELETE)), "$.sums[0].name"),
    (
        "duplicate-sum-name",
        _with(
            IM,
            (("sums",), [{"name": "s", "positions": ["h1"]}, {"name": "s", "positions": ["h2"]}]),
            (("expect",), DELETE),
        ),
        "$.sums[1].name",
    ),
    (
        "sums-outside-impartial",
        _with(MM, (("sums",), [{"name": "s", "positions": ["a"]}])),
        "$.sums",
    ),
    # --- expect
    ("expect-unknown-node", _with(MM, (("expect", "values", "z"), 1)), "$.expect.values.z"),
    ("expect-unknown-field", _with(MM, (("expect", "valuez"), {})), "$.expect.valuez"),
    (
        "expect-field-wrong-semantics",
        _with(MM, (("expect", "grundy"), {"a": 0})),
        "$.expect.grundy",
    ),
    (
        "expect-labels-in-impartial",
        _with(IM, (("expect", "labels"), {"h0": "lost"})),
        "$.expect.labels",
    ),
    ("expect-label-word", _with(NM, (("expect", "labels", "p"), "win")), "$.expect.labels.p"),
    ("expect-winner-two", _with(RE, (("expect", "winner", "x"), 2)), "$.expect.winner.x"),
    (
        "expect-grundy-bad-word",
        _with(IM, (("expect", "grundy", "h0"), "infinite")),
        "$.expect.grundy.h0",
    ),
    ("expect-grundy-negative", _with(IM, (("expect", "grundy", "h0"), -1)), "$.expect.grundy.h0"),
    ("expect-sum-undeclared", _with(IM, (("expect", "sums", "other"), 1)), "$.expect.sums.other"),
    (
        "expect-interval-empty",
        _with(MM, (("expect", "intervals", "a"), [1, 0])),
        "$.expect.intervals.a",
    ),
    (
        "expect-interval-length",
        _with(MM, (("expect", "intervals", "a"), [1])),
        "$.expect.intervals.a",
    ),
    ("expect-root-value-no-root", _with(IM, (("expect", "root_value"), 0)), "$.expect.root_value"),
    ("expect-root-value-type", _with(MM, (("expect", "root_value"), "won")), "$.expect.root_value"),
    ("expect-unique-string", _with(MM, (("expect", "unique"), "no")), "$.expect.unique"),
    ("expect-not-object", _with(MM, (("expect",), [])), "$.expect"),
    # --- compact
    ("compact-edge-lengths", _with(MC, (("edges", "dst"), [2, 3, 1])), "$.edges.dst"),
    ("compact-id-out-of-range", _with(MC, (("edges", "src"), [0, 2, 5, 2])), "$.edges.src[2]"),
    ("compact-id-negative", _with(MC, (("edges", "dst"), [2, 3, -1, 0])), "$.edges.dst[2]"),
    ("compact-id-huge", _with(MC, (("edges", "dst"), [2, 3, 2**70, 0])), "$.edges.dst[2]"),
    ("compact-id-float", _with(MC, (("edges", "src"), [0, 2.0, 0, 2])), "$.edges.src[1]"),
    ("compact-id-bool", _with(MC, (("edges", "src"), [0, True, 0, 2])), "$.edges.src[1]"),
    (
        "compact-duplicate-edge",
        _with(MC, (("edges",), {"src": [0, 2, 0, 2], "dst": [2, 3, 2, 0]})),
        "$.edges.dst[2]",
    ),
    ("compact-edges-missing", _with(MC, (("edges",), DELETE)), "$.edges"),
    (
        "compact-edges-unknown-field",
        _with(MC, (("edges", "weight"), [1, 1, 1, 1])),
        "$.edges.weight",
    ),
    ("compact-nodes-zero", _with(MC, (("nodes",), 0)), "$.nodes"),
    ("compact-nodes-string", _with(MC, (("nodes",), "5")), "$.nodes"),
    ("compact-names-length", _with(MC, (("names",), ["a", "b"])), "$.names"),
    ("compact-duplicate-names", _with(MC, (("names",), ["a", "b", "a", "d", "e"])), "$.names[2]"),
    ("compact-owner-length", _with(MC, (("owner",), [0, -1, 1])), "$.owner"),
    ("compact-owner-out-of-range", _with(MC, (("owner",), [0, -1, 2, -1, -1])), "$.owner[2]"),
    ("compact-owner-missing-on-inner", _with(MC, (("owner",), [0, -1, -1, -1, -1])), "$.owner[2]"),
    ("compact-value-length", _with(MC, (("value",), [None, -1])), "$.value"),
    ("compact-value-on-inner", _with(MC, (("value",), [1, -1, None, 2.5, 1])), "$.value[0]"),
    ("compact-value-missing", _with(MC, (("value",), [None, None, None, 2.5, 1])), "$.value[1]"),
    (
        "compact-value-beyond-2-53",
        _with(MC, (("value",), [None, -1, None, 2**53 + 1, 1])),
        "$.value[3]",
    ),
    ("compact-value-string", _with(MC, (("value",), [None, "win", None, 2.5, 1])), "$.value[1]"),
    ("compact-value-nan", _with(MC, (("value",), [None, -1, None, math.nan, 1])), "$.value[3]"),
    (
        "compact-normal-label-two",
        _with(NC, (("value",), [None, None, None, 2, 0, -1])),
        "$.value[3]",
    ),
    ("compact-root-out-of-range", _with(MC, (("root",), 5)), "$.root"),
    ("compact-root-name", _with(MC, (("root",), "a")), "$.root"),
    ("compact-target-out-of-range", _with(RC, (("targets",), [9])), "$.targets[0]"),
    (
        "compact-sum-position",
        _with(IC, (("sums", 0, "positions"), [0, 4])),
        "$.sums[0].positions[1]",
    ),
    ("compact-expect-key-name", _with(MC, (("expect", "values", "a"), 1)), "$.expect.values.a"),
    ("compact-expect-key-range", _with(MC, (("expect", "values", "9"), 1)), "$.expect.values['9']"),
    (
        "compact-expect-key-leading-zero",
        _with(MC, (("expect", "values", "01"), 1)),
        "$.expect.values['01']",
    ),
    ("compact-readable-field", _with(MC, (("moves",), [])), "$.moves"),
    ("readable-with-compact-field", _with(MM, (("edges",), {"src": [], "dst": []})), "$.edges"),
]


def test_table_is_large_and_ids_unique() -> None:
    assert len(MALFORMED) >= 30
    assert len({name for name, _, _ in MALFORMED}) == len(MALFORMED)


@pytest.mark.parametrize(
    ("text_", "path"), [(t, p) for _, t, p in MALFORMED], ids=[n for n, _, _ in MALFORMED]
)
def test_malformed_case_is_one_line_with_path(text_: str | bytes, path: str) -> None:
    with pytest.raises(CaseError) as info:
        parse_case(text_, "cases/bad-case.json")
    err = info.value
    message = str(err)
    assert "\n" not in message
    assert message.startswith("cases/bad-case.json: ")
    assert err.file == "cases/bad-case.json"
    assert err.path == path, message
    assert message == f"cases/bad-case.json: {path}: {err.message}"
    assert err.message


def test_messages_name_the_problem() -> None:
    def msg(t: str) -> str:
        with pytest.raises(CaseError) as info:
            parse_case(t, "f.json")
        return str(info.value)

    assert msg(_with(MM, (("nodes", "a", "moves"), ["c", "z"]))) == (
        'f.json: $.nodes.a.moves[1]: move to unknown node "z"'
    )
    assert "line 1 column" in msg('{"semantics": "minimax", "nodes": {')
    assert "duplicate key" in msg('{"semantics": "impartial", "nodes": {"a": {}, "a": {}}}')
    assert "unknown field" in msg(_with(MM, (("colour",), "red")))
    assert "needs a value" in msg(_with(MM, (("nodes", "b"), {})))
    assert "duplicate edge 0 -> 2" in msg(
        _with(MC, (("edges",), {"src": [0, 2, 0, 2], "dst": [2, 3, 2, 0]}))
    )
    assert "out of range" in msg(_with(MC, (("edges", "src"), [0, 2, 5, 2])))


def test_load_case_reports_file_name(tmp_path: Path) -> None:
    p = tmp_path / "broken.json"
    p.write_text(_with(MM, (("root",), "zz")))
    with pytest.raises(CaseError, match=r"broken\.json: \$\.root: "):
        load_case(p)
    with pytest.raises(CaseError, match="cannot read"):
        load_case(tmp_path / "missing.json")


# ====================================================================== writing, round trips
@pytest.mark.parametrize("name", list(VALID))
@pytest.mark.parametrize("encoding", ["readable", "compact"])
def test_round_trip(name: str, encoding: str, tmp_path: Path) -> None:
    src = tmp_path / f"{name}.json"
    src.write_text(text(VALID[name]))
    case = load_case(src)
    out = dump_case(case, tmp_path / "out.json", encoding)  # type: ignore[arg-type]
    again = load_case(out)
    assert_same_case(case, again)
    assert again.path == out
    # and a second trip gives the same text
    assert case_to_text(again, encoding) == out.read_text()  # type: ignore[arg-type]


def test_round_trip_between_encodings() -> None:
    for doc in VALID.values():
        case = parse_case(text(doc), "c.json")
        compact = parse_case(json.dumps(case_to_dict(case, "compact")), "c.json")
        readable = parse_case(json.dumps(case_to_dict(compact, "readable")), "c.json")
        assert_same_case(case, compact)
        assert_same_case(case, readable)


def test_dict_shapes() -> None:
    case = parse_case(text(MINIMAX_READABLE))
    r = case_to_dict(case, "readable")
    assert r["nodes"]["a"] == {"owner": "max", "moves": ["b", "c"]}
    assert r["nodes"]["d"] == {"value": 2.5}
    assert r["expect"]["values"] == {"a": 0, "b": -1, "c": 0, "d": 2.5}
    c = case_to_dict(case, "compact")
    assert c["encoding"] == "compact"
    assert c["edges"] == {"src": [0, 0, 2, 2], "dst": [1, 2, 0, 3]}
    assert c["value"] == [None, -1, None, 2.5, 1]
    assert c["expect"]["intervals"] == {"0": [-1, 0]}
    assert "names" not in case_to_dict(parse_case(text(NORMAL_COMPACT)), "compact")


def test_auto_encoding_switches_on_size() -> None:
    small = Case(GameGraph.from_edges(3, [0], [1], semantics=Semantics.IMPARTIAL), id="s")
    big = Case(GameGraph.from_edges(10_001, [0], [1], semantics=Semantics.IMPARTIAL), id="b")
    assert "encoding" not in case_to_dict(small, "auto")
    assert case_to_dict(big, "auto")["encoding"] == "compact"
    with pytest.raises(UsageError):
        case_to_dict(small, "yaml")  # type: ignore[arg-type]


def test_normal_labels_written_as_words() -> None:
    r = case_to_dict(parse_case(text(NORMAL_COMPACT)), "readable")
    assert r["nodes"]["3"] == {"label": "won"}
    assert r["nodes"]["4"] == {"label": "draw"}
    assert r["nodes"]["5"] == {}  # lost is the default


def test_unicode_names_round_trip(tmp_path: Path) -> None:
    doc = {"semantics": "impartial", "nodes": {"é ü": {"moves": ["∞"]}, "∞": {}}}
    case = parse_case(text(doc))
    out = dump_case(case, tmp_path / "u.json", "readable")
    assert "é ü" in out.read_text(encoding="utf-8")
    assert_same_graph(case.graph, load_case(out).graph)


# ====================================================================== the input is untouched
def test_loading_and_writing_never_touch_the_input(tmp_path: Path) -> None:
    src = tmp_path / "in.json"
    src.write_text(text(MINIMAX_READABLE))
    os.utime(src, ns=(1_000_000_000, 1_000_000_000))
    before = (src.read_bytes(), src.stat().st_mtime_ns)
    case = load_case(src)
    load_any(src)
    dump_case(case, tmp_path / "copy.json")
    with pytest.raises(UsageError, match="refusing"):
        dump_case(case, src)
    with pytest.raises(UsageError, match="refusing"):
        dump_case(case, tmp_path / "." / "in.json", "compact")
    assert (src.read_bytes(), src.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.json", "in.json"]  # no temp left


def test_failed_load_leaves_input_alone(tmp_path: Path) -> None:
    src = tmp_path / "bad.json"
    src.write_bytes(b'{"semantics": "minimax", "nodes": {"a": {}}}')
    before = (src.read_bytes(), src.stat().st_mtime_ns)
    with pytest.raises(CaseError):
        load_case(src)
    assert (src.read_bytes(), src.stat().st_mtime_ns) == before


def test_compact_arrays_are_read_only_numpy() -> None:
    g = parse_case(text(MINIMAX_COMPACT)).graph
    assert g.succ_idx.dtype == np.int32  # the graph's index_dtype
    assert not g.succ_idx.flags.writeable
    assert _nan_or([None])[0] != 0
