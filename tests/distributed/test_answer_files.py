"""A tiered dataset's answers in the answer files of ``docs/answers.md`` (issue 45, item 1):
``solve DIR --engine dask -o FILE`` writes the rows the in-memory route writes for the same
game (Connect Four 4x4, a random graph with cycles), and ``verify DIR --engine dask --answers
FILE`` judges any of them, keyed by names or ids, whole or partial."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tier_cli import dataset_verdict, one_line_error, run_cli, stdout

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from verifier.dataset.answers import write_answer_file

pytestmark = pytest.mark.filterwarnings("ignore:Port 8787 is already in use")


def _dask(client: Any) -> tuple[str, ...]:
    return ("--engine", "dask", "--scheduler", client.scheduler.address)


@pytest.fixture(scope="module")
def c44(client: Any, tmp_path_factory: Any) -> dict[str, Path]:
    """Connect Four 4x4 both ways: the case file solved in memory (``mem.csv``,
    ``mem.json``, ``mem.parquet``) and the tiered dataset ``DS``, solved."""
    d = tmp_path_factory.mktemp("c44")
    case, ds = d / "c44.json", d / "DS"
    ok = run_cli("generate", "connect4", "--width", 4, "--height", 4, "-o", case)
    assert ok.exit_code == 0, ok.output
    for suffix in ("csv", "json", "parquet", "npz"):
        r = run_cli("solve", case, "-o", d / f"mem.{suffix}")
        assert r.exit_code == 0, r.output
    r = run_cli("generate", "connect4", "--width", 4, "--height", 4, "-o", ds, *_dask(client))
    assert r.exit_code == 0, r.output
    r = run_cli("solve", ds, *_dask(client))
    assert r.exit_code == 0, r.output
    return {"dir": d, "ds": ds}


def _sorted_lines(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    return [lines[0], *sorted(lines[1:])]


def test_connect4_csv_and_json_are_the_in_memory_rows(client: Any, c44: dict[str, Path]) -> None:
    d, ds = c44["dir"], c44["ds"]
    for suffix in ("csv", "json"):
        r = run_cli("solve", ds, "-o", d / f"ds.{suffix}", *_dask(client))
        assert r.exit_code == 0, r.output
    assert _sorted_lines(d / "ds.csv") == _sorted_lines(d / "mem.csv")
    head = (d / "mem.csv").read_text().splitlines()[0]
    assert head == "node,value,remoteness,move"
    assert len((d / "ds.csv").read_text().splitlines()) == 161_030
    # in the game's order, a piece at a time or whole: the in-memory file's very bytes
    assert (d / "ds.csv").read_bytes() == (d / "mem.csv").read_bytes()
    write_answer_file(ds, d / "pieces.csv", rows=7_000)  # 24 pieces
    assert (d / "pieces.csv").read_bytes() == (d / "mem.csv").read_bytes()
    write_answer_file(ds, d / "pieces.json", rows=7_000)
    assert (d / "pieces.json").read_bytes() == (d / "ds.json").read_bytes()
    mine, theirs = json.loads((d / "ds.json").read_text()), json.loads((d / "mem.json").read_text())
    assert mine["nodes"] == theirs["nodes"]
    assert mine["semantics"] == "normal" and mine["graph"] == {"positions": 161_029}


def test_connect4_columnar_files_are_the_in_memory_columns(
    client: Any, c44: dict[str, Path]
) -> None:
    """Keyed by ids: the dataset numbers its positions as ``generate`` numbers the case's."""
    import pyarrow.parquet as pq

    d, ds = c44["dir"], c44["ds"]
    for suffix in ("parquet", "npz"):
        r = run_cli("solve", ds, "-o", d / f"ds.{suffix}", *_dask(client))
        assert r.exit_code == 0, r.output
    mine, theirs = pq.read_table(d / "ds.parquet"), pq.read_table(d / "mem.parquet")
    assert mine.schema.names == theirs.schema.names == ["id", "value", "remoteness", "move"]
    assert all(mine[c].equals(theirs[c]) for c in mine.schema.names)
    a, b = np.load(d / "ds.npz"), np.load(d / "mem.npz")
    for k in ("ids", "value", "remoteness", "move"):
        assert np.array_equal(a[k], b[k]), k


@pytest.mark.parametrize("suffix", ["csv", "json", "parquet", "npz"])
def test_the_in_memory_files_are_verified_against_the_dataset(
    client: Any, c44: dict[str, Path], suffix: str
) -> None:
    """Every encoding the in-memory route writes (the Parquet keyed by ``id`` included) is
    read by the dataset route."""
    file = c44["dir"] / f"mem.{suffix}"
    r = run_cli("verify", c44["ds"], "--answers", file, *_dask(client))
    assert r.exit_code == 0, r.output
    out = stdout(r)
    assert dataset_verdict(r)[0] == "VERIFIED", out
    assert f"answers judged: {file} (161,029 of 161,029 positions claimed)" in out


def _stranger(c44: dict[str, Path], name: str, row: tuple[str, str], cell: int, to: str) -> Any:
    """The in-memory CSV, a stranger's table keyed by names, with one cell changed: cell
    ``cell`` of the first row whose value and remoteness are ``row``, made ``to``. Returns
    the file and the position whose row changed."""
    rows = list(csv.reader((c44["dir"] / "mem.csv").open()))
    changed = _row(rows, *row)
    changed[cell] = to
    out = c44["dir"] / name
    with out.open("w") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return out, changed[0]


def _row(rows: list[list[str]], value: str, remoteness: str) -> list[str]:
    return next(r for r in rows if r[1] == value and r[2] == remoteness)


def test_a_strangers_csv_with_one_remoteness_wrong_is_refuted_naming_it(
    client: Any, c44: dict[str, Path]
) -> None:
    table, named = _stranger(c44, "rem.csv", ("won", "5"), 2, "7")
    r = run_cli("verify", c44["ds"], "--answers", table, *_dask(client))
    assert r.exit_code == 1, r.output
    out = stdout(r)
    assert dataset_verdict(r)[0] == "REFUTED", out
    line = next(x for x in out.splitlines() if x.startswith("  remoteness "))
    assert f"first at {named} (code " in line and "claimed won with remoteness 7" in line


def test_a_strangers_csv_with_one_value_wrong_is_refuted_naming_it(
    client: Any, c44: dict[str, Path]
) -> None:
    """... under --format csv: the rows, and the one stderr line naming the position."""
    table, named = _stranger(c44, "val.csv", ("lost", "2"), 1, "won")
    r = run_cli("verify", c44["ds"], "--answers", table, "--format", "csv", *_dask(client))
    assert r.exit_code == 1, r.output
    assert r.stdout.startswith("position,value,outcome,remoteness,move\n")
    (line,) = [x for x in r.stderr.splitlines() if not x.startswith(("progress:", "violation:"))]
    assert line.startswith(f"{c44['ds']}: REFUTED: rules: at {named} (code "), line
    assert "claimed won" in line


def test_a_partial_table_is_judged_with_the_datasets_answers_around_it(
    client: Any, c44: dict[str, Path]
) -> None:
    """A few rows, some without remoteness or move: what is given is judged, the dataset's
    own answers fill the rest (and are judged in the same run)."""
    rows = list(csv.reader((c44["dir"] / "mem.csv").open()))
    won, lost = _row(rows, "won", "5"), _row(rows, "lost", "2")
    right = c44["dir"] / "part.csv"
    right.write_text(
        f"node,value,move\n{rows[1][0]},draw,\n{won[0]},won,{won[3]}\n{lost[0]},lost,\n"
    )
    r = run_cli("verify", c44["ds"], "--answers", right, *_dask(client))
    assert r.exit_code == 0, r.output
    out = stdout(r)
    assert dataset_verdict(r)[0] == "VERIFIED" and "3 of 161,029 positions claimed" in out, out
    wrong = c44["dir"] / "part-wrong.csv"
    wrong.write_text(f"node,value,remoteness\n{won[0]},won,3\n")
    r = run_cli("verify", c44["ds"], "--answers", wrong, *_dask(client))
    assert r.exit_code == 1, r.output
    assert f"first at {won[0]} (code " in stdout(r)


def test_a_name_of_no_position_is_one_line(client: Any, c44: dict[str, Path]) -> None:
    bad = c44["dir"] / "bad.csv"
    bad.write_text("node,value\n..x./..../..../....,won\n")  # a stone floating in the air
    r = run_cli("verify", c44["ds"], "--answers", bad, *_dask(client))
    one_line_error(r, 2, "bad.csv", "line 2", "no position named")


def test_solve_o_takes_answer_files_only(client: Any, c44: dict[str, Path]) -> None:
    r = run_cli("solve", c44["ds"], "-o", c44["dir"] / "x.txt", *_dask(client))
    one_line_error(r, 2, "answer files are .json, .csv, .npz or .parquet")


def test_a_random_graph_csv_is_the_in_memory_rows(client: Any, tmp_path: Path) -> None:
    """The same random graph (with cycles: draws) in memory and stored as a dataset of
    several shards: the same rows, names and moves included; and each route's file verifies
    against the dataset."""
    case, ds = tmp_path / "r.json", tmp_path / "RG"
    r = run_cli("generate", "random", "--semantics", "normal", "--nodes", 600, "--degree", 2.5,
                "--seed", 7, "-o", case)  # fmt: skip
    assert r.exit_code == 0, r.output
    assert run_cli("solve", case, "-o", tmp_path / "mem.csv").exit_code == 0
    r = run_cli("generate", case, "-o", ds, "--shard-positions", 150, *_dask(client))
    assert r.exit_code == 0, r.output
    r = run_cli("solve", ds, "-o", tmp_path / "ds.csv", *_dask(client))
    assert r.exit_code == 0, r.output
    rows = _sorted_lines(tmp_path / "ds.csv")
    assert rows == _sorted_lines(tmp_path / "mem.csv")
    assert any(",draw," in x for x in rows) and any(",won," in x for x in rows)
    write_answer_file(ds, tmp_path / "pieces.csv", rows=50)  # moves into other pieces
    assert (tmp_path / "pieces.csv").read_bytes() == (tmp_path / "mem.csv").read_bytes()
    r = run_cli("verify", ds, "--answers", tmp_path / "mem.csv", *_dask(client))
    assert r.exit_code == 0, r.output


def test_verify_format_csv_prints_the_rows_verify_prints_for_the_case(
    client: Any, c44: dict[str, Path]
) -> None:
    """The dataset's answers under the case's header (position, value, outcome, remoteness,
    move): the rows a case's ``--format csv`` prints (``solve``'s, which ``verify`` prints too,
    without the proofs here), after sorting."""
    r = run_cli("verify", c44["ds"], "--format", "csv", *_dask(client))
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0] == "position,value,outcome,remoteness,move"
    assert lines[1] == "..../..../..../....,draw,draw,,..../..../..../x..."
    assert len(lines) == 161_030
    mem = run_cli("solve", c44["dir"] / "c44.json", "--format", "csv")
    assert mem.exit_code == 0, mem.output
    assert sorted(mem.stdout.splitlines()) == sorted(lines)


def test_query_a_dataset_prints_what_query_prints_for_the_case(
    client: Any, c44: dict[str, Path]
) -> None:
    """The start (or named positions): the same lines as ``query c44.json --no-smt`` but for
    the case's name in the first and the checks that vouch (a dataset's query runs none:
    ``verify`` judges its answers)."""
    ds, case = c44["ds"], c44["dir"] / "c44.json"
    asked = ("..../o.o./xxx./oxo.", "x.../ox../oxx./oxo.")
    for words in ((), asked):
        r = run_cli("query", ds, *words)
        m = run_cli("query", case, *words, "--no-smt")
        assert r.exit_code == m.exit_code == 0, r.output + m.output
        mine, theirs = r.stdout.splitlines(), m.stdout.splitlines()
        assert (
            mine[0] == f"{ds.name}: normal, values from the view of the player to move, "
            "verdict solved"
        )
        assert mine[1:] == [x for x in theirs[1:] if "vouched for by" not in x]
    r = run_cli("query", ds, "zz")
    one_line_error(r, 2, "no position named 'zz'")


@pytest.fixture(scope="module")
def rules(client: Any, tmp_path_factory: Any) -> dict[str, Path]:
    """A random graph of each other semantics (with cycles; impartial acyclic, as the
    sharded route solves it), solved in memory (``mem-SEM.csv``) and stored in three shards,
    solved."""
    d = tmp_path_factory.mktemp("rules")
    for sem in ("reachability", "minimax", "impartial"):
        case, ds = d / f"{sem}.json", d / sem
        more = ("--acyclic",) if sem == "impartial" else ()
        r = run_cli("generate", "random", "--semantics", sem, "--nodes", 400, "--degree", 2.5,
                    "--seed", 4, *more, "-o", case)  # fmt: skip
        assert r.exit_code == 0, r.output
        assert run_cli("solve", case, "-o", d / f"mem-{sem}.csv").exit_code == 0
        r = run_cli("generate", case, "-o", ds, "--shard-positions", 150, *_dask(client))
        assert r.exit_code == 0, r.output
        assert run_cli("solve", ds, *_dask(client)).exit_code == 0
    return {"dir": d}


HEADS = {
    "reachability": "node,value,remoteness,move",
    "minimax": "node,value,remoteness,move",
    "impartial": "node,value,move",
}


@pytest.mark.parametrize("sem", ["reachability", "minimax", "impartial"])
def test_another_semantics_files_are_the_in_memory_files(
    client: Any, rules: dict[str, Path], sem: str
) -> None:
    """The in-memory writer's columns for the semantics (winner and layer; score, plies of
    optimal play and move; Grundy value and move), byte for byte; the in-memory file verifies
    against the dataset, its remoteness and moves judged too."""
    d = rules["dir"]
    r = run_cli("solve", d / sem, "-o", d / f"ds-{sem}.csv", *_dask(client))
    assert r.exit_code == 0, r.output
    assert (d / f"ds-{sem}.csv").read_bytes() == (d / f"mem-{sem}.csv").read_bytes()
    assert (d / f"ds-{sem}.csv").read_text().splitlines()[0] == HEADS[sem]
    r = run_cli("verify", d / sem, "--answers", d / f"mem-{sem}.csv", *_dask(client))
    assert r.exit_code == 0, r.output
    out = stdout(r)
    assert dataset_verdict(r)[0] == "VERIFIED" and "400 of 400 positions claimed" in out, out
    assert "  moves       ok" in out
    r = run_cli("verify", d / sem, "--format", "csv", *_dask(client))
    assert r.exit_code == 0, r.output
    assert len(r.stdout.splitlines()) == 401


def _edit(src: Path, out: Path, pick: Any, cell: int, to: Any) -> str:
    """``src`` with cell ``cell`` of the first row ``pick`` accepts made ``to(row)``."""
    rows = list(csv.reader(src.open()))
    row = next(r for r in rows[1:] if pick(r))
    row[cell] = to(row)
    with out.open("w") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return row[0]


@pytest.mark.parametrize(
    ("sem", "pick", "to", "check"),
    [
        ("reachability", lambda r: r[1] == "0" and r[2] not in ("", "0"), "1", "rules"),
        ("minimax", lambda r: r[1] == "1" and r[2] != "0", "-1", "rules"),
        ("impartial", lambda r: r[1] == "0", "3", "rules"),
    ],
)
def test_a_strangers_value_wrong_is_refuted_naming_it(
    client: Any, rules: dict[str, Path], sem: str, pick: Any, to: str, check: str
) -> None:
    d = rules["dir"]
    named = _edit(d / f"mem-{sem}.csv", d / f"bad-{sem}.csv", pick, 1, lambda r: to)
    r = run_cli("verify", d / sem, "--answers", d / f"bad-{sem}.csv", "--format", "csv",
                *_dask(client))  # fmt: skip
    assert r.exit_code == 1, r.output
    (line,) = [x for x in r.stderr.splitlines() if not x.startswith(("progress:", "violation:"))]
    assert line.startswith(f"{d / sem}: REFUTED: {check}: at node {named}"), line


def test_a_minimax_remoteness_or_move_wrong_is_refuted_in_memory(
    client: Any, rules: dict[str, Path]
) -> None:
    """The columns the sharded table does not carry are judged by the in-memory checks."""
    d = rules["dir"]
    src = d / "mem-minimax.csv"
    named = _edit(src, d / "rem.csv", lambda r: r[2] not in ("", "0"), 2,
                  lambda r: str(int(r[2]) + 2))  # fmt: skip
    r = run_cli("verify", d / "minimax", "--answers", d / "rem.csv", *_dask(client))
    assert r.exit_code == 1, r.output
    line = next(x for x in stdout(r).splitlines() if x.startswith("  remoteness "))
    assert f"first at node {named} in tier 0: claimed score" in line, line
    rows = list(csv.reader(src.open()))
    draws = [r[0] for r in rows[1:] if r[1] == "0" and r[3]]
    won = next(r for r in rows[1:] if r[1] == "1" and r[2] not in ("", "0"))
    table = d / "move.csv"
    table.write_text(f"node,value,move\n{won[0]},1,{draws[0]}\n")
    r = run_cli("verify", d / "minimax", "--answers", table, *_dask(client))
    assert r.exit_code == 1, r.output
    line = next(x for x in stdout(r).splitlines() if x.startswith("  moves "))
    assert f"first at node {won[0]} in tier 0: claimed value 1 with move to" in line, line


@pytest.mark.parametrize("sem", ["reachability", "minimax", "impartial"])
def test_query_of_another_semantics_prints_what_query_prints_for_the_case(
    client: Any, rules: dict[str, Path], sem: str
) -> None:
    """``query DIR POSITION...`` on a stored graph of reachability, minimax or impartial: the
    lines of ``query CASE --no-smt`` on the case file it was stored from, but for the name in
    the first and the checks that vouch (none run); no position named: the start, node 0."""
    d = rules["dir"]
    ds, case = d / sem, d / f"{sem}.json"
    for words in (("0", "5", "17", "399"), ()):
        r = run_cli("query", ds, *words)
        m = run_cli("query", case, *(words or ("0",)), "--no-smt")
        assert r.exit_code == m.exit_code == 0, r.output + m.output
        mine, theirs = r.stdout.splitlines(), m.stdout.splitlines()
        assert mine[0] == theirs[0].replace(f"random-{sem}-400-2.5-4", sem).replace(
            "-acyclic", ""
        ), (mine[0], theirs[0])
        assert mine[1:] == [x for x in theirs[1:] if "vouched for by" not in x]
        assert any(x.startswith("  move to ") for x in mine), mine
    one_line_error(run_cli("query", ds, "zz"), 2, "no position named 'zz'")
    r = run_cli("query", ds, "5", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["positions"][0]["position"] == "5"


# --- chess and graphs stored in several tiers (issue 45, item 1) ----------------------------


@pytest.fixture(scope="module")
def kqk(client: Any, tmp_path_factory: Any) -> dict[str, Path]:
    """KQK up to the board's symmetries (47,061 classes, two tiers) both ways: the case
    solved in memory (``mem.csv``, ``mem.parquet``, ``mem.npz``) and the dataset ``DS``,
    generated in two shards a tier and solved."""
    d = tmp_path_factory.mktemp("kqk")
    case, ds = d / "kqk.npz", d / "DS"
    assert run_cli("generate", "chess:KQK", "--symmetry", "-o", case).exit_code == 0
    for suffix in ("csv", "parquet", "npz"):
        r = run_cli("solve", case, "-o", d / f"mem.{suffix}")
        assert r.exit_code == 0, r.output
    r = run_cli("generate", "chess:KQK", "--symmetry", "-o", ds, "--shard-positions", 25_000,
                *_dask(client))  # fmt: skip
    assert r.exit_code == 0, r.output
    r = run_cli("solve", ds, *_dask(client))
    assert r.exit_code == 0, r.output
    return {"dir": d, "ds": ds, "case": case}


def test_chess_files_are_the_in_memory_files(client: Any, kqk: dict[str, Path]) -> None:
    """Named by FEN, numbered as the case (``chess.tiers``' order of materials, not the
    dataset's): the CSV's very bytes, the Parquet's and the npz's columns."""
    import pyarrow.parquet as pq

    d, ds = kqk["dir"], kqk["ds"]
    for suffix in ("csv", "parquet", "npz"):
        r = run_cli("solve", ds, "-o", d / f"ds.{suffix}", *_dask(client))
        assert r.exit_code == 0, r.output
    assert (d / "ds.csv").read_bytes() == (d / "mem.csv").read_bytes()
    lines = (d / "ds.csv").read_text().splitlines()
    assert len(lines) == 47_062
    assert lines[1] == "8/8/8/8/8/8/3k4/KQ6 w - - 0 1,won,9,8/8/8/8/4Q3/8/3k4/K7 b - - 0 1"
    write_answer_file(ds, d / "pieces.csv", rows=5_000)
    assert (d / "pieces.csv").read_bytes() == (d / "mem.csv").read_bytes()
    mine, theirs = pq.read_table(d / "ds.parquet"), pq.read_table(d / "mem.parquet")
    assert mine.schema.names == theirs.schema.names
    assert all(mine[c].equals(theirs[c]) for c in mine.schema.names)
    a, b = np.load(d / "ds.npz"), np.load(d / "mem.npz")
    for k in ("ids", "value", "remoteness", "move"):
        assert np.array_equal(a[k], b[k]), k


@pytest.mark.parametrize("suffix", ["csv", "npz"])
def test_the_in_memory_chess_files_are_verified(
    client: Any, kqk: dict[str, Path], suffix: str
) -> None:
    """Keyed by FENs or by ids, moves into the other tier (captures) included."""
    file = kqk["dir"] / f"mem.{suffix}"
    r = run_cli("verify", kqk["ds"], "--answers", file, *_dask(client))
    assert r.exit_code == 0, r.output
    out = stdout(r)
    assert dataset_verdict(r)[0] == "VERIFIED" and dataset_verdict(r)[1].startswith("KQK "), out
    assert f"answers judged: {file} (47,061 of 47,061 positions claimed)" in out
    assert "moves       ok" in out


def test_a_strangers_chess_csv_with_one_value_wrong_is_refuted_by_fen(
    client: Any, kqk: dict[str, Path]
) -> None:
    rows = list(csv.reader((kqk["dir"] / "mem.csv").open()))
    lost = _row(rows, "lost", "4")
    lost[1] = "won"
    table = kqk["dir"] / "val.csv"
    with table.open("w") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    r = run_cli("verify", kqk["ds"], "--answers", table, "--format", "csv", *_dask(client))
    assert r.exit_code == 1, r.output
    (line,) = [x for x in r.stderr.splitlines() if not x.startswith(("progress:", "violation:"))]
    assert line.startswith(f"{kqk['ds']}: REFUTED: rules: at {lost[0]} (node "), line
    assert "claimed won" in line


def test_a_chess_move_to_the_wrong_tier_is_refuted(client: Any, kqk: dict[str, Path]) -> None:
    """A move names its position by FEN; one to a position no move reaches is refuted (the
    node id it has in another tier does not make it legal)."""
    rows = list(csv.reader((kqk["dir"] / "mem.csv").open()))
    won = _row(rows, "won", "1")  # mate in one: its move is a KQK position
    kk = next(r for r in rows[1:] if "Q" not in r[0] and "q" not in r[0])  # a KK draw
    table = kqk["dir"] / "move.csv"
    table.write_text(f"node,value,remoteness,move\n{won[0]},won,1,{kk[0]}\n")
    r = run_cli("verify", kqk["ds"], "--answers", table, *_dask(client))
    assert r.exit_code == 1, r.output
    line = next(x for x in stdout(r).splitlines() if x.startswith("  moves "))
    assert f"first at {won[0]} (node " in line and "which no legal move reaches" in line, line


def test_chess_format_csv_and_query_are_the_cases(client: Any, kqk: dict[str, Path]) -> None:
    ds, case = kqk["ds"], kqk["case"]
    r = run_cli("verify", ds, "--format", "csv", *_dask(client))
    assert r.exit_code == 0, r.output
    mem = run_cli("solve", case, "--format", "csv")
    assert sorted(r.stdout.splitlines()) == sorted(mem.stdout.splitlines())
    asked = ("8/8/8/8/3Q4/1k6/8/1K6 b - - 0 1", "8/8/8/8/8/8/3k4/KQ6 w - - 0 1")
    mine, theirs = run_cli("query", ds, *asked), run_cli("query", case, *asked, "--no-smt")
    assert mine.exit_code == theirs.exit_code == 0, mine.output + theirs.output
    assert mine.stdout.splitlines()[1:] == [
        x for x in theirs.stdout.splitlines()[1:] if "vouched for by" not in x
    ]


def test_a_graph_in_three_tiers_gives_the_in_memory_rows(client: Any, tmp_path: Path) -> None:
    """A random graph whose nodes are numbered tier by tier (ids in the dataset's order),
    stored in three tiers of two shards: the same CSV bytes and npz columns, and the case's
    files verify against the dataset (moves into later tiers: exits)."""
    from verifier.distributed.tiers.driver import prepare_output, solve_dataset
    from verifier.distributed.tiers.graph_generate import dataset_from_graph
    from verifier.games.random_graphs import random_case
    from verifier.io import save_any
    from verifier.model import Case, GameGraph

    g = random_case("normal", 900, 3.0, 5).graph
    tier_of = np.arange(g.n) * 3 // g.n
    src = np.repeat(np.arange(g.n), np.diff(g.succ_ptr))
    keep = tier_of[g.succ_idx] >= tier_of[src]  # no move back to an earlier tier
    ptr = np.zeros(g.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src[keep], minlength=g.n), out=ptr[1:])
    graph = GameGraph(semantics=g.semantics, succ_ptr=ptr, succ_idx=np.asarray(g.succ_idx)[keep],
                      owner=np.asarray(g.owner), value=np.asarray(g.value),
                      target=np.asarray(g.target))  # fmt: skip
    case = tmp_path / "t3.npz"
    save_any(Case(graph=graph, id="t3", root=0), case)
    for suffix in ("csv", "npz"):
        assert run_cli("solve", case, "-o", tmp_path / f"mem.{suffix}").exit_code == 0
    ds = tmp_path / "T3"
    prepare_output(ds)
    dataset_from_graph(ds, graph, client, shards=2, tier_of=tier_of)
    solve_dataset(ds, client)
    for suffix in ("csv", "npz"):
        r = run_cli("solve", ds, "-o", tmp_path / f"ds.{suffix}", *_dask(client))
        assert r.exit_code == 0, r.output
    assert (tmp_path / "ds.csv").read_bytes() == (tmp_path / "mem.csv").read_bytes()
    text = (tmp_path / "ds.csv").read_text()
    assert ",draw," in text and ",won," in text
    a, b = np.load(tmp_path / "ds.npz"), np.load(tmp_path / "mem.npz")
    for k in ("ids", "value", "remoteness", "move"):
        assert np.array_equal(a[k], b[k]), k
    for suffix in ("csv", "npz"):
        r = run_cli("verify", ds, "--answers", tmp_path / f"mem.{suffix}", *_dask(client))
        assert r.exit_code == 0, r.output
        assert "900 of 900 positions claimed" in stdout(r)
