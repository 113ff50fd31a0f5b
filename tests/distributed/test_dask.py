"""``solve_distributed`` (a case stored as a dataset of one tier and solved by the tiered route)
on a two-worker LocalCluster (loopback only), against the in-memory solvers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dist_graphs import (
    SEMANTICS,
    SMALL_CASES,
    assert_same_answer,
    figure_1,
    load_corpus_case,
    random_graph,
    reference,
)
from tier_cli import one_line_error, run_cli

from verifier.distributed import solve_distributed
from verifier.model import Case, GameGraph, Semantics

distributed = pytest.importorskip("distributed")
pq = pytest.importorskip("pyarrow.parquet")

from verifier.dataset.parquet_io import read_parquet_graph, write_parquet_graph  # noqa: E402

pytestmark = [
    pytest.mark.dask,
    # the scheduler's HTTP server (loopback) moves off 8787 when another cluster holds it
    pytest.mark.filterwarnings("ignore:Port 8787 is already in use"),
]


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def check_against_reference(g: GameGraph, client: Any, parts: int, large: bool = False) -> None:
    r = solve_distributed(g, client=client, partitions=parts)
    want_values, want_rem = reference(g, large=large)
    assert np.array_equal(r.values, want_values)
    assert r.remoteness is not None and np.array_equal(r.remoteness, want_rem)


@pytest.mark.parametrize(
    ("b", "d", "a_val", "c_val"),
    [(-1, 2, 0, 0), (1, 2, 1, 1), (2, -1, 2, -1), (-2, -1, -1, -1)],
)
def test_kars_figure_1(client: Any, b: float, d: float, a_val: float, c_val: float) -> None:
    # a = max(b, min(d, 0)), c = min(d, max(b, 0))
    r = solve_distributed(figure_1(b, d), client=client, partitions=3)
    assert r.values.tolist() == [a_val, c_val, b, d]
    assert r.workers == 2 and r.partitions == 3


CORPUS = sorted((Path(__file__).parents[2] / "cases").glob("*.json"))
LABELS = {"won": 1, "lost": -1, "draw": 0}


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_corpus(client: Any, path: Path) -> None:
    from verifier.io.formats import load_any

    case = load_any(path)
    if case.semantics not in SEMANTICS:
        pytest.skip(f"no distributed program for {case.semantics.value}")
    r = solve_distributed(path, client=client, partitions=3)
    want_values, want_rem = reference(case.graph)
    assert np.array_equal(r.values, want_values)
    assert r.remoteness is not None and np.array_equal(r.remoteness, want_rem)
    exp = case.expect
    if exp is None:
        return
    for x, v in exp.values.items():
        assert r.values[x] == v
    for x, word in exp.labels.items():
        assert r.values[x] == LABELS[word]
    for x, w in exp.winner.items():
        assert r.values[x] == (1 if w == 0 else 0)
    for x, k in exp.remoteness.items():
        assert r.remoteness[x] == k


@pytest.mark.parametrize("sem", SEMANTICS)
def test_random_small_graphs(client: Any, sem: Semantics) -> None:
    # seeded, not hypothesis: the cluster's threads use ``random`` while hypothesis would draw
    # (the hypothesis property tests of the same programs are in test_programs.py)
    for seed in range(12):
        n = 1 + seed % 12
        check_against_reference(random_graph(sem, n, seed), client, 1 + seed % 4)


@pytest.mark.parametrize("sem", SEMANTICS)
def test_random_graph_of_30k_nodes(client: Any, sem: Semantics) -> None:
    # 30,000 nodes take the reference's large path and tens of supersteps in a few seconds
    # (the sharded route's larger graphs: test_graph_tiers.py, benchmarks/bench_scaleout.py)
    check_against_reference(random_graph(sem, 30_000, seed=2026), client, 4, large=True)


def test_parquet_in_and_out(client: Any, tmp_path: Path) -> None:
    g = random_graph(Semantics.NORMAL, 2000, seed=3)
    src = write_parquet_graph(g, tmp_path / "graph", root=5)
    back, root = read_parquet_graph(src)
    assert root == 5 and back.semantics is Semantics.NORMAL
    assert np.array_equal(back.succ_idx, g.succ_idx) and np.array_equal(back.succ_ptr, g.succ_ptr)
    out = tmp_path / "out"
    r = solve_distributed(src, client=client, out=out)
    # the folder is the case stored and solved as a dataset: its answers are the reference's
    from verifier.dataset.answers import catalog

    label, rem = catalog(out).answers()
    want_label, want_rem = reference(g)
    assert np.array_equal(label, want_label)
    assert np.array_equal(np.where(label != 0, rem, -1), want_rem)
    assert np.array_equal(r.values, want_label)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["positions"] == 2000 and summary["root"] == "5"
    assert summary["root_value"] == {1: "won", -1: "lost", 0: "draw"}[int(want_label[5])]
    assert summary["won"] + summary["lost"] + summary["drawn"] == 2000
    assert summary == dict(r.summary)


@pytest.mark.parametrize("stem", SMALL_CASES)
def test_solution_equals_the_pipelines(client: Any, stem: str) -> None:
    case = load_corpus_case(stem)
    assert_same_answer(solve_distributed(case, client=client, partitions=3), case)


def test_case_json_through_the_command_line(client: Any, tmp_path: Path) -> None:
    from verifier.io.case_json import dump_case

    path = dump_case(Case(graph=figure_1(1, 2), id="fig1", root=0), tmp_path / "fig1.json")
    address = client.scheduler.address
    r = run_cli("solve", path, "--engine", "dask", "--scheduler", address, "--partitions", 3,
                "--format", "json")  # fmt: skip
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)["summary"]
    assert summary["root_value"] == 1.0 and summary["won"] == 4
    assert summary["max_remoteness"] == 2 and summary["shards"] == 3


def test_parquet_tables_through_the_command_line(client: Any, tmp_path: Path) -> None:
    # a folder of nodes.parquet and edges.parquet is a case for solve and verify, any engine;
    # tables that store no semantics take --semantics (and a case file refuses it)
    g = random_graph(Semantics.NORMAL, 300, seed=4)
    src = write_parquet_graph(g, tmp_path / "graph", root=5)
    want_label, _ = reference(g)
    won, lost = int((want_label == 1).sum()), int((want_label == -1).sum())
    address = client.scheduler.address
    for engine in ("dask", "numpy"):
        r = run_cli("solve", src, "--engine", engine, "--scheduler", address, "--format", "json")
        if engine != "dask":
            r = run_cli("solve", src, "--engine", engine, "--format", "json")
        assert r.exit_code == 0, r.output
        summary = json.loads(r.stdout)["summary"]
        assert (summary["won"], summary["lost"], summary["root"]) == (won, lost, "5")
    bare = tmp_path / "bare"
    bare.mkdir()
    for table in ("nodes", "edges"):
        t = pq.read_table(src / f"{table}.parquet")
        pq.write_table(t.replace_schema_metadata(None), bare / f"{table}.parquet")
    one_line_error(run_cli("solve", bare), 2, "nodes.parquet: $.metadata: no semantics stored")
    r = run_cli("verify", bare, "--semantics", "normal", "--format", "json")
    assert r.exit_code == 0, r.output
    case = json.loads(r.stdout)
    assert case["verdict"] == "verified" and case["summary"]["won"] == won
    assert case["summary"]["certificate"] == "checked through a dataset"
    one_line_error(run_cli("solve", tmp_path / "x.json", "--semantics", "normal"), 2,
                   "no such file")  # fmt: skip


def test_worker_error_reaches_the_caller(client: Any) -> None:
    g = GameGraph.from_successors({"a": ["b"]}, semantics=Semantics.MINIMAX, value={"b": 1.0})
    with pytest.raises(ValueError, match="'a'"):  # raised on a worker by the program
        solve_distributed(g, client=client, partitions=2)
    # the cluster is still usable afterwards
    assert solve_distributed(figure_1(2, -1), client=client).values.tolist() == [2, -1, 2, -1]


def test_acyclic_impartial_is_solved(client: Any) -> None:
    # the superstep route refused impartial graphs; the stored rule computes Grundy values
    from verifier.io.formats import load_any
    from verifier.pipeline import run_case

    case = load_any(Path(__file__).parents[2] / "cases" / "impartial-kayles-5.json")
    r = solve_distributed(case, client=client, partitions=2)
    mem = run_case(case, smt=False).solution
    assert r.solver == "dask-grundy" and r.solution is not None and mem is not None
    assert [r.solution.value(x) for x in range(case.graph.n)] == [
        mem.value(x) for x in range(case.graph.n)
    ]


def test_the_reported_seconds_include_starting_the_cluster(client: Any) -> None:
    """A run that starts its own LocalCluster reports that start-up as the ``cluster`` stage
    (the report's seconds are the stages' sum, the whole run); a run on a given client has
    nothing to start."""
    from verifier.distributed.api import distributed_report

    g = GameGraph.from_edges(3, [0, 1], [1, 2], semantics=Semantics.NORMAL)
    case = Case(graph=g, id="chain")
    own = solve_distributed(case, workers=1)
    assert own.cluster_seconds > 0.1  # a LocalCluster takes about a second or more
    rep = distributed_report(case, own)
    assert list(rep.stages) == ["cluster", "solve"]
    assert rep.stages["cluster"] == own.cluster_seconds
    assert rep.seconds == pytest.approx(own.cluster_seconds + own.seconds)
    given = solve_distributed(case, client=client)
    assert given.cluster_seconds == 0.0
    assert list(distributed_report(case, given).stages) == ["solve"]
