"""A case file's graph stored as a tiered dataset keeps the case's node names
(``names.parquet``, its digest in the manifest): answer files, ``--format csv``, ``query``,
the start's words and the violations name positions as the in-memory route does for the case
(issue 45, item 1), whatever the semantics; a names table changed after the fact is refused."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
from tier_cli import dataset_verdict, one_line_error, run_cli, stdout

pytest.importorskip("distributed")
pq = pytest.importorskip("pyarrow.parquet")

pytestmark = pytest.mark.filterwarnings("ignore:Port 8787 is already in use")

CASES = Path(__file__).resolve().parents[2] / "cases"
NAMED = {
    "minimax": "dag-paul-carole",  # s, u, v, ...
    "normal": "knuth-won-lost-unknown",  # a, b, c, ... with cycles
    "reachability": "ico-reachability",
    "impartial": "impartial-nim-position-1-2",  # "0,1": a name CSV must quote
}


def _dask(client: Any) -> tuple[str, ...]:
    return ("--engine", "dask", "--scheduler", client.scheduler.address)


@pytest.fixture(scope="module")
def stored(client: Any, tmp_path_factory: Any) -> Path:
    """Each case of ``NAMED`` stored as a dataset (``DIR/SEM``) and solved."""
    d = tmp_path_factory.mktemp("named")
    for sem, stem in NAMED.items():
        r = run_cli("generate", CASES / f"{stem}.json", "-o", d / sem, *_dask(client))
        assert r.exit_code == 0, r.output
        r = run_cli("solve", d / sem, *_dask(client))
        assert r.exit_code == 0, r.output
    return d


def _rows(text: str) -> list[list[str]]:
    rows = list(csv.reader(text.splitlines()))
    return [rows[0], *sorted(rows[1:])]


@pytest.mark.parametrize("sem", list(NAMED))
def test_answer_files_and_csv_name_positions_as_the_case(
    client: Any, stored: Path, sem: str
) -> None:
    case = CASES / f"{NAMED[sem]}.json"
    mem, ds = stored / f"mem-{sem}.csv", stored / f"ds-{sem}.csv"
    assert run_cli("solve", case, "-o", mem).exit_code == 0
    r = run_cli("solve", stored / sem, "-o", ds, *_dask(client))
    assert r.exit_code == 0, r.output
    assert _rows(ds.read_text()) == _rows(mem.read_text())
    r = run_cli("verify", stored / sem, "--format", "csv", *_dask(client))
    m = run_cli("solve", case, "--format", "csv")
    assert r.exit_code == m.exit_code == 0, r.output + m.output
    assert _rows(r.stdout) == _rows(m.stdout)
    assert not any(row[0].startswith("node ") for row in _rows(r.stdout)[1:])


def test_the_start_and_query_use_the_names(client: Any, stored: Path) -> None:
    ds = stored / "minimax"
    r = run_cli("verify", ds, *_dask(client))
    assert r.exit_code == 0, r.output
    assert (
        dataset_verdict(r)[0] == "VERIFIED" and dataset_verdict(r)[1] == "s: Max wins, score 4"
    ), r.output
    r = run_cli("query", ds, "u")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[1] == "u: Max wins, score 3 in 1 ply"
    one_line_error(run_cli("query", ds, "node 1"), 2, "no position named 'node 1'")


def test_a_strangers_wrong_claims_are_named_as_the_case_names_them(
    client: Any, stored: Path
) -> None:
    case, ds = CASES / f"{NAMED['minimax']}.json", stored / "minimax"
    good = run_cli("solve", case, "--format", "csv").stdout
    rows = list(csv.reader(good.splitlines()))
    u = next(r for r in rows if r[0] == "u")
    u[3] = "2"  # u's remoteness is 1 (it moves to l1 = 3 at once)
    bad = stored / "bad-remoteness.csv"
    with bad.open("w") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    r = run_cli("verify", ds, "--answers", bad, *_dask(client))
    assert r.exit_code == 1, r.output
    assert "  remoteness  1 violation(s); first at u in tier 0:" in stdout(r), r.output
    # a value wrong is judged by the sharded rules: its witness named on the driver
    rows = list(csv.reader(good.splitlines()))
    next(r for r in rows if r[0] == "v")[1] = "3"
    with bad.open("w") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    r = run_cli("verify", ds, "--answers", bad, *_dask(client))
    assert r.exit_code == 1, r.output
    assert " first at v in tier 0: " in stdout(r), r.output


def test_a_normal_graphs_violation_is_named(client: Any, stored: Path) -> None:
    case, ds = CASES / f"{NAMED['normal']}.json", stored / "normal"
    rows = list(csv.reader(run_cli("solve", case, "--format", "csv").stdout.splitlines()))
    won = next(r for r in rows[1:] if r[1] == "won")
    won[1], won[2], won[3] = "lost", "loss", ""
    bad = stored / "bad-normal.csv"
    with bad.open("w") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    r = run_cli("verify", ds, "--answers", bad, *_dask(client))
    assert r.exit_code == 1, r.output
    out = stdout(r)
    # found on a worker (the rules of its shard): named there, the move's target too
    assert (
        "  rules       3 violation(s); first at a in tier 0: claimed lost, but the move to "
        f"{won[0]} reaches a position claimed lost" in out
    ), out
    assert "node " not in out, out


def test_a_names_table_changed_after_the_fact_is_refused(client: Any, stored: Path) -> None:
    import pyarrow as pa

    ds = stored / "minimax"
    table = pq.read_table(ds / "names.parquet")
    names = table.column("name").to_pylist()
    try:
        pq.write_table(pa.table({"name": [names[2], names[1], names[0], *names[3:]]}),
                       ds / "names.parquet")  # fmt: skip
        for args in (("verify", ds, *_dask(client)), ("query", ds, "s")):
            one_line_error(run_cli(*args), 2, "names.parquet: corrupt: sha256")
    finally:
        pq.write_table(table, ds / "names.parquet")


def test_a_graph_named_by_its_ids_stores_no_names(client: Any, tmp_path: Path) -> None:
    case = tmp_path / "r.json"
    r = run_cli("generate", "random", "--semantics", "minimax", "--nodes", 30, "-o", case)
    assert r.exit_code == 0, r.output
    r = run_cli("generate", case, "-o", tmp_path / "ds", *_dask(client))
    assert r.exit_code == 0, r.output
    assert not (tmp_path / "ds" / "names.parquet").exists()


def test_the_names_are_read_again_once_the_file_changes(tmp_path: Path) -> None:
    """Read once per process while the file stays as it was; rewritten since (the manifest
    unchanged), it is read and checked again: refused, not served from the first read."""
    import pyarrow as pa

    from verifier.dataset.errors import DatasetError
    from verifier.dataset.graphs import with_names
    from verifier.dataset.rules import game_from_manifest
    from verifier.distributed.tiers.graph_generate import dataset_from_graph
    from verifier.io.formats import load_any

    case = load_any(CASES / "dag-paul-carole.json")
    ds = tmp_path / "ds"
    ds.mkdir()
    m = dataset_from_graph(ds, case.graph, None, shards=1, start=case.root, names=True)
    game = with_names(ds, game_from_manifest(m.game, m.parameters, str(ds)))
    assert [game.position_name(i) for i in range(3)] == ["s", "u", "v"]
    names = pq.read_table(ds / "names.parquet").column("name").to_pylist()
    pq.write_table(pa.table({"name": [names[1], names[0], *names[2:]]}), ds / "names.parquet")
    with pytest.raises(DatasetError, match=r"names\.parquet: corrupt: sha256"):
        game.position_name(0)
