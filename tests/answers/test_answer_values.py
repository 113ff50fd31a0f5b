"""Every number an answer file holds is read exactly or refused (issue 28 items 2 and 9).

For each semantics and each answer encoding, a bad entry (huge, negative, null, nested, NaN,
infinite, a string, a number float64 would round) in each column (value, remoteness, move) of
one position is refused by ``verify --answers``, ``verify --answers --linear`` and ``verifier
diff`` alike: exit 2, one stderr line naming the file and the position's JSON path, no
traceback. Item 2's false confirmation (a claim of 2**53 + 1 over a leaf of 2**53) is refused.
"""

from __future__ import annotations

import csv
import io
import json
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from verifier.cli import app, verify_app

runner = CliRunner()

CASES: dict[str, dict[str, Any]] = {
    "minimax": {
        "semantics": "minimax",
        "root": "a",
        "nodes": {
            "a": {"owner": "max", "moves": ["b", "c"]},
            "b": {"owner": "min", "moves": ["d"]},
            "c": {"value": -1},
            "d": {"value": 2},
        },
    },
    "normal": {
        "semantics": "normal",
        "root": "a",
        "nodes": {"a": {"moves": ["b", "c"]}, "b": {"moves": ["c"]}, "c": {}},
    },
    "reachability": {
        "semantics": "reachability",
        "root": "a",
        "targets": ["c"],
        "nodes": {
            "a": {"owner": 0, "moves": ["b", "c"]},
            "b": {"owner": 1, "moves": ["c"]},
            "c": {},
        },
    },
    "impartial": {
        "semantics": "impartial",
        "root": "a",
        "nodes": {"a": {"moves": ["b", "c"]}, "b": {"moves": ["c"]}, "c": {}},
    },
}
POSITION = "b"
"""The position whose entry is damaged (an inner node with one move, in every case)."""

HUGE = [
    "1e300",
    "99999999999999999999",
    "9223372036854775807",
    "9007199254740993",
    "-9007199254740993",
    "9007199254740993.0",
    "9.007199254740993e15",
    "1e400",
    "-1e400",
]
INEXACT = ["1e-400", "1.00000000000000001"]
ODD = [
    "NaN",
    "Infinity",
    "-Infinity",
    "null",
    "[1]",
    '{"v": 1}',
    "true",
    '"x"',
    '""',
    '"1e300"',
    '"9223372036854775807"',
    '"NaN"',
    '"inf(99999999999999999999)"',
]
NEGATIVE = ["-1", "-3.5"]


def bad_literals(sem: str, column: str) -> list[str]:
    """JSON literals that are no entry of ``column`` in ``sem``."""
    if column == "move":
        return [
            "1e300",
            "9223372036854775807",
            "5",
            "-1",
            "[1]",
            '{"v": 1}',
            "true",
            '"zz"',
            '"NaN"',
            "NaN",
        ]
    out = HUGE + INEXACT + ODD
    if column == "remoteness":
        whole = ("9007199254740993", "9007199254740993.0", "9.007199254740993e15")  # read
        return [x for x in out if x != "null" and x not in whole] + NEGATIVE + ["2.5", '"2.5"']
    if sem != "minimax":
        out += NEGATIVE
    return out


def csv_cell(literal: str) -> str:
    value = json.loads(literal)
    return value if isinstance(value, str) else literal


def written(tmp_path: Path, sem: str, suffix: str) -> tuple[Path, Path]:
    """The case file and our own answer file for it (``solve -o``)."""
    case = tmp_path / f"{sem}.json"
    case.write_text(json.dumps(CASES[sem]))
    out = tmp_path / f"ours-{sem}{suffix}"
    r = runner.invoke(app, ["solve", str(case), "-o", str(out)])
    assert r.exit_code == 0, r.output
    return case, out


def damaged(ours: Path, column: str, literal: str, tmp_path: Path) -> tuple[Path, str]:
    """``ours`` with the ``column`` entry of :data:`POSITION` replaced by ``literal``, and the
    JSON path the error must name."""
    bad = tmp_path / f"bad{ours.suffix}"
    if ours.suffix == ".json":
        doc = json.loads(ours.read_text())
        entry = doc["nodes"][POSITION]
        entry[column] = "@@"
        bad.write_text(json.dumps(doc).replace('"@@"', literal))
        return bad, f"$.nodes.{POSITION}.{column}"
    rows = list(csv.reader(io.StringIO(ours.read_text())))
    k = next(i for i, row in enumerate(rows) if row[0] == POSITION)
    rows[k][rows[0].index(column)] = csv_cell(literal)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    bad.write_text(out.getvalue())
    return bad, f"$['line {k + 1}'].{column}"


def assert_one_line_error(case: Path, bad: Path, where: str, exact: bool = True) -> None:
    """``verify --answers``, ``--linear`` and ``diff``: exit 2, one line naming file and path
    (``where`` exactly, or a path starting so)."""
    for name, cli, args in (
        ("verify", verify_app, [str(case), "--answers", str(bad)]),
        ("--linear", verify_app, [str(case), "--answers", str(bad), "--linear"]),
        ("diff", app, ["diff", str(case), str(bad)]),
    ):
        r = runner.invoke(cli, args)
        err = r.stderr.strip()
        context = f"{name} {bad.name}: exit {r.exit_code}, {err!r} {r.stdout!r}"
        assert r.exit_code == 2, context
        assert "\n" not in err and err.startswith(f"{bad}: {where}{': ' * exact}"), context
        assert ("Traceback" not in r.output and r.exception is None) or isinstance(
            r.exception, SystemExit
        ), context


COLUMNS = {
    "minimax": ("value", "remoteness", "move"),
    "normal": ("value", "remoteness", "move"),
    "reachability": ("value", "remoteness", "move"),
    "impartial": ("value", "move"),
}


@pytest.mark.parametrize("suffix", [".json", ".csv"])
@pytest.mark.parametrize("sem", list(CASES))
def test_every_bad_entry_of_a_text_answer_file_is_the_one_line_error(
    sem: str, suffix: str, tmp_path: Path
) -> None:
    case, ours = written(tmp_path, sem, suffix)
    assert runner.invoke(verify_app, [str(case), "--answers", str(ours)]).exit_code == 0
    header = ours.read_text().splitlines()[0] if suffix == ".csv" else ""
    tried = 0
    for column in COLUMNS[sem]:
        if suffix == ".csv" and column not in header.split(","):
            continue
        for literal in bad_literals(sem, column):
            if suffix == ".csv" and column != "value" and csv_cell(literal) == "":
                continue  # an empty remoteness or move cell means none
            bad, where = damaged(ours, column, literal, tmp_path)
            assert_one_line_error(case, bad, where)
            tried += 1
    assert tried >= 30


def test_issue_28_item_2_a_claim_above_2_53_is_refused(tmp_path: Path) -> None:
    """A leaf of 2**53 and a claim of 2**53 + 1 (VERIFIED in both modes before)."""
    case = tmp_path / "big.json"
    case.write_text(
        '{"semantics": "minimax", "root": "a", "nodes": {"a": {"owner": "max", "moves": '
        '["b", "c"]}, "b": {"value": 9007199254740992}, "c": {"value": -1}}}'
    )
    for text, where in (
        ("node,value\na,9007199254740993\nb,9007199254740992\nc,-1\n", "$['line 2'].value"),
        (FORMAT + '"nodes": {"a": 9007199254740993, "b": 9007199254740992, "c": -1}}', "$.nodes.a"),
        (FORMAT + '"nodes": {"a": 9007199254740992.0, "b": 9.007199254740993e15}}', "$.nodes.b"),
        (FORMAT + '"nodes": {"a": 9007199254740992.00000000001}}', "$.nodes.a"),
    ):
        bad = tmp_path / ("a.csv" if text.startswith("node") else "a.json")
        bad.write_text(text)
        assert_one_line_error(case, bad, where)


FORMAT = '{"format": "gamegraph-verifier-answers", '


def test_a_remoteness_is_read_exactly(tmp_path: Path) -> None:
    from verifier.io import load_any
    from verifier.io.answers import load_answers

    case = tmp_path / "c.json"
    case.write_text(json.dumps(CASES["normal"]))
    path = tmp_path / "a.json"
    path.write_text(FORMAT + '"nodes": {"a": {"value": "won", "remoteness": 9007199254740993}}}')
    claims = load_answers(path, load_any(case))
    assert (
        claims.array("remoteness") is not None and int(claims.array("remoteness")[0]) == 2**53 + 1
    )
    path.write_text(FORMAT + '"nodes": {"a": {"value": "won", "remoteness": 3.00000000000000001}}}')
    assert_one_line_error(case, path, "$.nodes.a.remoteness")


def test_claims_float64_holds_are_read(tmp_path: Path) -> None:
    """0.1 written as any printing of its double, 2**53 in any spelling: verified."""
    case = tmp_path / "tenth.json"
    case.write_text(
        '{"semantics": "minimax", "root": "a", "nodes": {"a": {"owner": "max", "moves": '
        '["b", "c"]}, "b": {"value": 0.1}, "c": {"value": 9007199254740992}}}'
    )
    for text in (
        "node,value\na,9007199254740992\nb,0.1\nc,9007199254740992\n",
        "node,value\na,9.007199254740992e15\nb,0.10000000000000001\nc,9007199254740992.0\n",
        "node,value\na,9007199254740992\nb,0.1000000000000000055511151231257827021181583404541015625"
        "\nc,9007199254740992\n",
    ):
        path = tmp_path / "a.csv"
        path.write_text(text)
        for extra in ([], ["--linear"]):
            r = runner.invoke(verify_app, [str(case), "--answers", str(path), *extra])
            assert r.exit_code == 0, (text, r.output)


# ---------------------------------------------------------------------- columnar encodings
BAD_COLUMNS: dict[str, list[Any]] = {
    "value": [
        np.int64(9223372036854775807),
        np.int64(9007199254740993),
        np.int64(-(2**62)),
        1e300,
        -1e300,
        float("nan"),
        float("inf"),
        -float("inf"),
    ],
    "remoteness": [np.int64(-5), np.int64(2**62), 1e300, float("nan"), 2.5],
    "move": [np.int64(99), np.int64(-2), np.int64(9223372036854775807), 1e300, float("nan")],
}


def _columns(sem: str, column: str, bad: Any) -> dict[str, Any]:
    """A valid table over ids 0..2 (a, b, c) with ``column`` of row 1 (b) set to ``bad``."""
    value = {
        "minimax": [2.0, 2.0, -1.0],
        "normal": [-1, 1, -1],
        "reachability": [0, 0, 0],
        "impartial": [0, 1, 0],
    }[sem]
    cols: dict[str, Any] = {
        "ids": np.arange(3),
        "value": np.array(value),
        "remoteness": np.array([2, 1, 0]),
        "move": np.array([1, 2, -1]),
    }
    a = cols[column]
    kind = np.float64 if isinstance(bad, float) else np.int64
    a = a.astype(kind)
    a[1] = bad
    cols[column] = a
    return cols


@pytest.mark.parametrize("suffix", [".npz", *([".parquet"] * bool(find_spec("pyarrow")))])
@pytest.mark.parametrize("sem", list(CASES))
def test_every_bad_entry_of_a_columnar_answer_file_is_the_one_line_error(
    sem: str, suffix: str, tmp_path: Path
) -> None:
    case = tmp_path / f"{sem}.json"
    case.write_text(json.dumps(CASES[sem]))
    for column, bads in BAD_COLUMNS.items():
        if sem == "impartial" and column == "remoteness":
            continue
        for bad in bads:
            cols = _columns(sem, column, bad)
            path = tmp_path / f"bad{suffix}"
            if suffix == ".npz":
                np.savez(path, **cols)
                where = f"$.{column}[1]"
            else:
                import pyarrow as pa
                import pyarrow.parquet as pq

                table = {("id" if k == "ids" else k): pa.array(v) for k, v in cols.items()}
                pq.write_table(pa.table(table), path)
                where = f"$.{column}"  # the Parquet reader names the row or the column
            assert_one_line_error(case, path, where, exact=suffix == ".npz")
