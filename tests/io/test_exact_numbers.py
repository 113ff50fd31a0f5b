"""Issue 28 item 5: a value literal the engine cannot hold is refused, naming the position,
instead of rounded: underflow to 0, an integer beyond 2**53 however written, two different
literals of one case that are the same float64. Decimals such as 0.1 stay accepted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from verifier.cli import verify_app
from verifier.errors import CaseError
from verifier.io import parse_case

runner = CliRunner()


def readable(b: str, c: str = "-1") -> str:
    """A Max node ``a`` choosing between leaves ``b`` and ``c`` (values as literal text)."""
    return (
        '{"semantics": "minimax", "root": "a", "nodes": {"a": {"owner": "max", "moves": '
        f'["b", "c"]}}, "b": {{"value": {b}}}, "c": {{"value": {c}}}}}}}'
    )


def compact(b: str, c: str = "-1") -> str:
    return (
        '{"semantics": "minimax", "encoding": "compact", "nodes": 3, "root": 0, '
        '"edges": {"src": [0, 0], "dst": [1, 2]}, "owner": [0, -1, -1], '
        f'"value": [null, {b}, {c}]}}'
    )


REFUSED = [
    # (b, c, the position named, words of the message)
    ("1e-400", "-1", "b", "underflows"),
    ("-2.5e-330", "-1", "b", "underflows"),
    ("9007199254740993.0", "-1", "b", "magnitude above 2**53"),
    ("9.007199254740993e15", "-1", "b", "magnitude above 2**53"),
    ("-9007199254740994.0", "-1", "b", "magnitude above 2**53"),
    ("9007199254740992.5", "-1", "b", "magnitude above 2**53"),
    (
        "1.00000000000000001",
        "1.00000000000000002",
        "c",
        "the same float64 (1.0) as 1.00000000000000001",
    ),
    ("1", "1.00000000000000001", "c", "the same float64 (1.0) as 1"),
    ("0.1", "0.10000000000000001", "c", "the same float64 (0.1) as 0.1"),
    ('"win"', "1.00000000000000001", "c", "the same float64 (1.0) as 1"),
]


@pytest.mark.parametrize(("b", "c", "node", "words"), REFUSED)
@pytest.mark.parametrize("encoding", ["readable", "compact"])
def test_a_literal_float64_would_change_is_refused_naming_its_position(
    b: str, c: str, node: str, words: str, encoding: str
) -> None:
    if encoding == "compact" and b.startswith('"'):
        pytest.skip("words are readable-only")
    text = readable(b, c) if encoding == "readable" else compact(b, c)
    with pytest.raises(CaseError) as e:
        parse_case(text, "x.json")
    where = (
        f"$.nodes.{node}.value" if encoding == "readable" else f"$.value[{'bc'.index(node) + 1}]"
    )
    assert e.value.path == where
    assert words in str(e.value)


ACCEPTED = [
    # (b, c, the root's score): values float64 rounds but keeps apart and in order
    ("0.1", "0.2", 0.2),
    ("0.3", "0.1", 0.3),
    ("1e-300", "-1", 1e-300),
    ("4.9406564584124654e-324", "-1", 5e-324),  # the smallest subnormal: not 0
    ("1", "1.0", 1.0),
    ("1e0", "1.00", 1.0),
    ("9007199254740992", "9.007199254740992e15", 2.0**53),
    ("9007199254740992.0", "-9007199254740992", 2.0**53),
    ("0.10000000000000001", "-1", 0.1),  # alone: no other literal of 0.1
    ("-0.0", "0", 0.0),
]


@pytest.mark.parametrize(("b", "c", "root"), ACCEPTED)
@pytest.mark.parametrize("encoding", ["readable", "compact"])
def test_literals_float64_keeps_apart_are_read(b: str, c: str, root: float, encoding: str) -> None:
    text = readable(b, c) if encoding == "readable" else compact(b, c)
    case = parse_case(text, "x.json")
    assert max(case.graph.value[1:].tolist()) == root


def test_issue_28_item_5_on_the_command_line(tmp_path: Path) -> None:
    """The three files of the issue: one stderr line naming file and position, exit 2."""
    for name, text, where in (
        ("under.json", readable("1e-400"), "$.nodes.b.value"),
        ("big.json", readable("9007199254740993.0"), "$.nodes.b.value"),
        ("same.json", readable("1.00000000000000001", "1.00000000000000002"), "$.nodes.c.value"),
    ):
        path = tmp_path / name
        path.write_text(text)
        before = path.read_bytes()
        r = runner.invoke(verify_app, [str(path)])
        assert r.exit_code == 2, r.stdout
        line = r.stderr.strip()
        assert "\n" not in line and line.startswith(f"{path}: {where}: ")
        assert "Traceback" not in r.stderr
        assert path.read_bytes() == before


def test_expect_numbers_are_held_to_the_same_rules() -> None:
    case: dict[str, Any] = json.loads(readable("2"))
    case["expect"] = {"values": {"b": 2}}
    text = json.dumps(case).replace('{"b": 2}', '{"b": 1e-400}')
    with pytest.raises(CaseError, match=r"underflows") as e:
        parse_case(text, "x.json")
    assert e.value.path == "$.expect.values.b"


def test_npz_header_numbers_are_held_to_the_same_rules(tmp_path: Path) -> None:
    from verifier.io import load_any, save_any

    case = parse_case(readable("2"), "x.json")
    path = save_any(case, tmp_path / "c.npz")
    assert load_any(path).graph.value[1] == 2.0
    import zipfile

    import numpy as np

    with zipfile.ZipFile(path) as z:
        arrays = {n.removesuffix(".npy"): np.load(z.open(n)) for n in z.namelist()}
    header = json.loads(arrays["header"].tobytes())
    header["root"] = 0
    text = json.dumps({**header, "expect": {"root_value": 2}}).replace(
        '"root_value": 2', '"root_value": 9.007199254740993e15'
    )
    arrays["header"] = np.frombuffer(text.encode(), dtype=np.uint8)
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    with pytest.raises(CaseError, match=r"magnitude above 2\*\*53") as e:
        load_any(bad)
    assert e.value.path == "$.header.expect.root_value"


@pytest.mark.parametrize(
    ("text", "f", "ok"),
    [
        ("0.1", 0.1, True),
        ("0.10000000000000001", 0.1, True),  # %.17g
        ("0.1000000000000000055511151231257827021181583404541015625", 0.1, True),  # exact
        ("0.125", 0.125, True),
        ("1.0000000000000001", 1.0, False),  # 17 digits, but not the nearest to 1.0
        ("1.00000000000000001", 1.0, False),
        ("1." + "0" * 3000 + "1", 1.0, False),
        ("5e-324", 5e-324, True),
        ("9007199254740992", 2.0**53, True),
        ("9007199254740993", 2.0**53, False),
        ("1e-400", 0.0, False),
    ],
)
def test_the_printing_rule_of_answer_files(text: str, f: float, ok: bool) -> None:
    from decimal import Decimal

    from verifier.io.numbers import printing_problem

    assert float(text) == f or not ok
    assert (printing_problem(Decimal(text), float(text)) is None) is ok
