"""The writers behind ``--format table|json|csv``: the JSON report unchanged, the CSV rows worked
out by hand, a folder's CSV with its case column, ``--json`` as ``--format json``, conflicts."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from verifier.cli import app, verify_app

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "cases"
runner = CliRunner()

MAX_A = {
    "semantics": "minimax",
    "id": "max-a",
    "root": "a",
    "nodes": {
        "a": {"owner": "max", "moves": ["b", "c"]},
        "b": {"value": 1},
        "c": {"value": -1},
    },
}
"""A Max node ``a`` with leaf successors ``b = 1`` and ``c = -1``."""

MAX_A_ROWS = [
    ["position", "value", "outcome", "remoteness", "move"],
    ["a", "1", "win", "1", "b"],  # max(1, -1) = 1, won in one move, by moving to b
    ["b", "1", "win", "0", ""],  # leaves: their own value, no move
    ["c", "-1", "loss", "0", ""],
]


def _write_case(folder: Path, doc: dict[str, Any], name: str | None = None) -> Path:
    f = folder / (name or f"{doc['id']}.json")
    f.write_text(json.dumps(doc))
    return f


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def _without_times(x: Any) -> Any:
    """A JSON document without its timings (``seconds``, ``stages``)."""
    if isinstance(x, dict):
        return {k: _without_times(v) for k, v in x.items() if k not in ("seconds", "stages")}
    if isinstance(x, list):
        return [_without_times(v) for v in x]
    return x


def test_json_report_keys_and_values_unchanged() -> None:
    r = runner.invoke(verify_app, [str(CASES / "knuth-won-lost-unknown.json"), "--format", "json"])
    assert r.exit_code == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    assert list(doc) == [
        "case",
        "file",
        "source",
        "semantics",
        "nodes",
        "edges",
        "root",
        "verdict",
        "seconds",
        "stages",
        "summary",
        "solvers",
        "skipped",
        "checks",
    ]
    assert (doc["case"], doc["semantics"], doc["nodes"], doc["edges"]) == (
        "knuth-won-lost-unknown",
        "normal",
        12,
        12,
    )
    assert doc["verdict"] == "verified"
    assert {k: doc["summary"][k] for k in ("positions", "won", "lost", "drawn")} == {
        "positions": 12,
        "won": 4,
        "lost": 4,
        "drawn": 4,
    }
    retro = doc["solvers"]["retrograde"]
    assert set(retro) >= {"view", "seconds", "covered", "values", "remoteness", "moves", "work"}
    assert retro["values"]["e"] == "lost" and retro["remoteness"]["e"] == 4
    assert retro["moves"]["e"] == "d"
    for c in doc["checks"]:
        assert list(c)[:5] == ["name", "verdict", "detail", "witness", "seconds"]


def test_json_flag_is_format_json() -> None:
    case = str(CASES / "kars-figure1-b-lt-d.json")
    a = runner.invoke(verify_app, [case, "--json"])
    b = runner.invoke(verify_app, [case, "--format", "json"])
    c = runner.invoke(verify_app, [case, "--json", "--format", "json"])
    assert a.exit_code == b.exit_code == c.exit_code == 0
    docs = [_without_times(json.loads(r.stdout)) for r in (a, b, c)]
    assert docs[0] == docs[1] == docs[2]


@pytest.mark.parametrize("other", ["table", "csv"])
@pytest.mark.parametrize("command", ["verify", "solve", "grundy"])
def test_json_with_another_format_is_a_usage_error(command: str, other: str) -> None:
    arg = "nim" if command == "grundy" else str(CASES / "kars-figure1-b-lt-d.json")
    r = runner.invoke(app, [command, arg, "--json", "--format", other])
    assert r.exit_code == 2
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert lines == [f"--json and --format {other}: give one of them"]
    assert r.stdout == "" and "Traceback" not in r.stderr


def test_prove_writes_no_csv() -> None:
    r = runner.invoke(app, ["prove", "bouton", "--piles", "2", "--bits", "2", "--format", "csv"])
    assert r.exit_code == 2
    assert [ln for ln in r.stderr.splitlines() if ln.strip()] == [
        "--format csv: this command writes table or json"
    ]


def test_prove_format_json_is_json() -> None:
    r = runner.invoke(app, ["prove", "bouton", "--piles", "2", "--bits", "2", "--format", "json"])
    assert r.exit_code == 0
    assert json.loads(r.stdout)["verdict"] == "confirmed"


@pytest.mark.parametrize("command", ["verify", "solve"])
def test_csv_of_a_small_minimax_case(tmp_path: Path, command: str) -> None:
    f = _write_case(tmp_path, MAX_A)
    r = runner.invoke(app, [command, str(f), "--format", "csv"])
    assert r.exit_code == 0, r.stdout + r.stderr
    assert _rows(r.stdout) == MAX_A_ROWS
    assert r.stdout.startswith("position,value,outcome,remoteness,move\n")


def test_csv_quotes_names_rfc4180(tmp_path: Path) -> None:
    doc = {
        "semantics": "minimax",
        "id": "quoted",
        "nodes": {
            "a": {"owner": "max", "moves": ['b,"1"']},
            'b,"1"': {"value": 1},
        },
    }
    r = runner.invoke(verify_app, [str(_write_case(tmp_path, doc)), "--format", "csv"])
    assert r.exit_code == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[1:] == ['a,1,win,1,"b,""1"""', '"b,""1""",1,win,0,']


def test_csv_of_a_folder_has_a_case_column(tmp_path: Path) -> None:
    _write_case(tmp_path, MAX_A)
    shutil.copy(CASES / "knuth-won-lost-unknown.json", tmp_path / "knuth.json")
    (tmp_path / "bad.json").write_text('{"semantics": "normal", "nodes": 3}')  # a broken case
    r = runner.invoke(verify_app, [str(tmp_path), "--format", "csv"])
    assert r.exit_code == 2  # the bad file: its one line is on stderr, the others are written
    assert "bad.json" in r.stderr and "Traceback" not in r.stderr
    rows = _rows(r.stdout)
    assert rows[0] == ["case", *MAX_A_ROWS[0]]
    knuth = [row for row in rows[1:] if row[0] == "knuth-won-lost-unknown"]
    assert len(knuth) == 12
    assert ["knuth-won-lost-unknown", "e", "lost", "loss", "4", "d"] in knuth
    assert [row[1:] for row in rows[1:] if row[0] == "max-a"] == MAX_A_ROWS[1:]


def test_csv_of_a_folder_names_a_refuted_case_on_stderr(tmp_path: Path) -> None:
    """Issue 44 (7): the CSV is the answer, so a refuted case's verdict and first reason go to
    stderr (it used to exit 1 saying nothing)."""
    shutil.copy(CASES / "dag-paul-carole.json", tmp_path / "good.json")
    doc = json.loads((CASES / "dag-paul-carole.json").read_text())
    doc["expect"]["root_value"] = 5  # the root's value is 4
    (tmp_path / "wrong.json").write_text(json.dumps(doc))
    r = runner.invoke(verify_app, [str(tmp_path), "--format", "csv"])
    assert r.exit_code == 1
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{tmp_path / 'wrong.json'}: REFUTED: expect")
    assert "expected 5" in lines[0] and "good.json" not in r.stderr
    assert len(_rows(r.stdout)) == 1 + 2 * 8  # both answers are still written


def test_csv_header_without_any_case(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"semantics": "normal", "nodes": 3}')
    r = runner.invoke(verify_app, [str(tmp_path), "--format", "csv"])
    assert r.exit_code == 2
    assert r.stdout == "case,position,value,outcome\n"


def test_grundy_csv_heap_value_rows() -> None:
    r = runner.invoke(app, ["grundy", "subtraction:1,2,3", "--upto", "9", "--format", "csv"])
    assert r.exit_code == 0
    assert _rows(r.stdout) == [["heap", "value"]] + [[str(n), str(n % 4)] for n in range(10)]


def test_csv_of_a_loopy_impartial_case_writes_infinite_values() -> None:
    r = runner.invoke(verify_app, [str(CASES / "impartial-loopy-smith.json"), "--format", "csv"])
    assert r.exit_code == 0, r.stdout + r.stderr
    rows = _rows(r.stdout)
    assert rows[0][:3] == ["position", "value", "outcome"]
    assert any(row[1].startswith("inf") for row in rows[1:])
    assert {row[2] for row in rows[1:]} <= {"win", "loss", "draw"}


@pytest.mark.dask
def test_distributed_document_csv_matches_the_in_memory_answer() -> None:
    pytest.importorskip("distributed")
    from verifier.distributed import solve_distributed
    from verifier.io import load_any
    from verifier.writers.csv import write_records
    from verifier.writers.documents import distributed_document

    case = load_any(CASES / "knuth-won-lost-unknown.json")
    doc = distributed_document(case, solve_distributed(case, workers=1))
    assert doc.fields["engine"] == "dask" and doc.fields["nodes"] == 12
    assert doc.records is not None
    out = io.StringIO()
    write_records(doc.records, out)
    knuth = str(CASES / "knuth-won-lost-unknown.json")
    mem = runner.invoke(app, ["solve", knuth, "--format", "csv"])
    assert mem.exit_code == 0
    assert _rows(out.getvalue()) == _rows(mem.stdout)  # the moves too


_CELLS = st.one_of(
    st.none(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False),
    st.booleans(),
    st.text(alphabet=st.sampled_from('ab,"\r\n 0-'), max_size=4),
)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda k: st.lists(st.lists(_CELLS, min_size=k, max_size=k), max_size=40)
    )
)
def test_csv_written_a_column_at_a_time_is_what_the_csv_module_writes(rows: list[Any]) -> None:
    """``write_records`` over columns (lines joined whole where no cell needs quoting) writes
    the very text the ``csv`` module writes row by row (``None`` an empty cell)."""
    from verifier.writers.base import Records
    from verifier.writers.csv import write_records

    k = len(rows[0]) if rows else 2
    head = tuple(f"c{j}" for j in range(k))
    columns = [[row[j] for row in rows] for j in range(k)]
    out, want = io.StringIO(), io.StringIO()
    write_records(Records(head, cells=columns), out)
    w = csv.writer(want, lineterminator="\n")
    w.writerow(head)
    w.writerows([["" if v is None else v for v in row] for row in rows])
    assert out.getvalue() == want.getvalue()


def test_a_table_with_nothing_to_quote_is_written_without_the_csv_modules_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The joined lines are the path a million-row answer takes (the csv module's rows took
    seconds): nothing to quote, no ``writerows``; a comma in a name, the csv module's."""
    import verifier.writers.csv as csv_writer
    from verifier.writers.base import Records

    rows_written: list[int] = []
    real = csv.writer

    class Writer:
        def __init__(self, out: Any, **kw: Any) -> None:
            self.w = real(out, **kw)
            self.writerow = self.w.writerow

        def writerows(self, rows: Any) -> None:
            rows_written.append(1)
            self.w.writerows(rows)

    monkeypatch.setattr(csv_writer.csv, "writer", Writer)
    out = io.StringIO()
    csv_writer.write_records(Records(("a", "b"), cells=[["x", "y"], [1, None]]), out)
    assert out.getvalue() == "a,b\nx,1\ny,\n" and rows_written == []
    out = io.StringIO()
    csv_writer.write_records(Records(("a", "b"), cells=[["x,1", "y"], [1, None]]), out)
    assert out.getvalue() == 'a,b\n"x,1",1\ny,\n' and rows_written == [1]


_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, 1, True]),
    st.text(max_size=5),
)
_DOC = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=5)
    ),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None)
@given(_DOC, st.sampled_from([1, 2]))
def test_json_written_a_flat_map_at_a_time_is_the_standard_librarys_text(
    doc: Any, indent: int
) -> None:
    """``dumps`` writes large flat maps itself (the indented encoder of the standard library
    is pure Python): the text is ``json.dumps``'s, byte for byte, with every map of 2 or more
    scalars written that way here."""
    import verifier.writers.json as json_writer

    want = json.dumps(doc, indent=indent, allow_nan=False) + "\n"
    old = json_writer.FLAT_FROM
    json_writer.FLAT_FROM = 2
    try:
        assert json_writer.dumps(doc, indent=indent) == want
    finally:
        json_writer.FLAT_FROM = old


def test_a_large_flat_map_is_written_by_the_fast_path() -> None:
    import verifier.writers.json as json_writer

    kinds = [1, -0.0, None, True, 'é"x', 0.0, 1.0]
    m = {f"n{i}": kinds[i % 7] for i in range(json_writer.FLAT_FROM)}
    flat: dict[str, Any] = {}
    doc = {"solvers": {"a": {"values": m}}, "n": 1}
    assert json_writer._with_tokens(doc, flat) != doc and list(flat.values()) == [m]
    assert json_writer.dumps(doc) == json.dumps(doc, indent=1, allow_nan=False) + "\n"
