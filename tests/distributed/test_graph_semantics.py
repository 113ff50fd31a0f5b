"""Stored graphs of the semantics other than normal (``verifier.dataset.round_rules``):
reachability, minimax and impartial graphs in a tiered dataset, solved by rounds on Dask
workers, against answers worked out by hand and against the in-memory engines, node by node.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dist_graphs import solve_beside_stale_states
from tier_cli import dataset_verdict, one_line_error, run_cli

from verifier.engine.attractor import attractor_numpy
from verifier.engine.grundy import grundy_numpy
from verifier.engine.kars import kars_numpy
from verifier.games.random_graphs import random_case
from verifier.io.case_json import dump_case
from verifier.model import Case, GameGraph, Semantics
from verifier.model.semantics import MAX, MIN

distributed = pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from verifier.dataset.errors import DatasetError, RunFailed  # noqa: E402
from verifier.dataset.graph_storage import read_edges, read_node_columns  # noqa: E402
from verifier.dataset.graphs import GraphTiers  # noqa: E402
from verifier.dataset.manifest import load_manifest  # noqa: E402
from verifier.dataset.round_rules import RULES, initial_state, seed, step  # noqa: E402
from verifier.dataset.storage import (  # noqa: E402
    read_rule_answers,
    write_rule_answers,
)
from verifier.dataset.stored_columns import COLUMNS  # noqa: E402
from verifier.distributed.tiers import graph_tasks  # noqa: E402
from verifier.distributed.tiers.driver import prepare_output, solve_dataset  # noqa: E402
from verifier.distributed.tiers.graph_check import check_any as check_dataset  # noqa: E402
from verifier.distributed.tiers.graph_generate import (  # noqa: E402
    dataset_from_graph,
    generate_random_graph,
)

pytestmark = pytest.mark.filterwarnings("ignore:Port 8787 is already in use")


def stored(root: Path, graph: GameGraph, client: Any, shards: int) -> Path:
    prepare_output(root)
    dataset_from_graph(root, graph, client, shards=shards)
    return root


def answers(root: Path) -> dict[str, np.ndarray]:
    """Every node's answers (the semantics' columns), in node-id order."""
    m = load_manifest(root)
    cols = COLUMNS[Semantics(m.semantics)].answer_columns
    got = [
        read_rule_answers(root, 0, s.shard, s.answers_sha256, s.positions, cols)
        for s in m.tiers[0].shards
    ]
    return {k: np.concatenate([g[k] for g in got]) for k in cols}


def graph_of(root: Path) -> GameGraph:
    """The graph a dataset stores, rebuilt in memory with its players, targets and values."""
    m = load_manifest(root)
    sem = Semantics(m.semantics)
    n = m.tiers[0].positions
    columns = {"code": "uint64"} | COLUMNS[sem].node_columns
    nodes, src, dst = [], [], []
    for s in m.tiers[0].shards:
        nodes.append(read_node_columns(root, 0, s.shard, s.sha256, s.positions, columns))
        e = read_edges(root, 0, s.shard, s.edges_sha256, s.edges)
        src.append(e[0])
        dst.append(e[1])
    col = {k: np.concatenate([x[k] for x in nodes]) for k in columns}
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(np.concatenate(src).astype(np.int64), minlength=n), out=ptr[1:])
    return GameGraph(
        semantics=sem,
        succ_ptr=ptr,
        succ_idx=np.concatenate(dst).astype(np.int64),
        owner=col["player"].astype(np.int8) if "player" in col else np.full(n, -1, np.int8),
        value=col["value"].astype(np.float64) if "value" in col else np.full(n, np.nan),
        target=col["target"].astype(np.bool_) if "target" in col else np.zeros(n, np.bool_),
    )


def in_memory(g: GameGraph) -> dict[str, np.ndarray]:
    """The in-memory engine's answers, in the dataset's columns."""
    if g.semantics is Semantics.REACHABILITY:
        r = attractor_numpy(g)
        return {"label": np.where(r.win, 1, -1), "remoteness": r.layer}
    if g.semantics is Semantics.MINIMAX:
        return {"score": kars_numpy(g).score}
    gr = grundy_numpy(g)
    return {"grundy": gr.value, "remoteness": gr.height}


def assert_same(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    for name, w in want.items():
        g = got[name]
        assert len(g) == len(w)
        bad = np.flatnonzero(g != w)
        assert len(bad) == 0, f"node {bad[0]}: {name} {g[bad[0]]}, in memory {w[bad[0]]}"


def by_name(graph: GameGraph, got: dict[str, np.ndarray], names: list[str]) -> dict[str, tuple]:
    return {x: tuple(got[k][graph.id_of(x)].item() for k in got) for x in names}


# --- hand-made graphs, answers worked out by hand ---------------------------------------------

REACH = GameGraph.from_successors(
    {
        "a": ["b", "t"],  # player 0, a move to the target: layer 1
        "b": ["a"],  # player 1, its only move into the region: layer 2
        "t": [],  # the target: layer 0
        "c": ["t", "d"],  # player 1 with a move to a dead end off the target: outside
        "d": [],  # a dead end off the target: player 1's
        "e": ["t"],  # player 1, one move, to the target: layer 1
        "f": ["f"],  # player 0 on a self-loop: infinite play is player 1's
        "g": ["a", "t"],  # player 1, both moves into the region, the last at layer 1: layer 2
        "h": ["d"],  # a target with a move: layer 0 all the same
    },
    semantics=Semantics.REACHABILITY,
    owner={"a": 0, "b": 1, "c": 1, "e": 1, "f": 0, "g": 1},
    target=["t", "h"],
)
REACH_BY_HAND = {"a": (1, 1), "b": (1, 2), "t": (1, 0), "c": (-1, -1), "d": (-1, -1),
                 "e": (1, 1), "f": (-1, -1), "g": (1, 2), "h": (1, 0)}  # fmt: skip

KARS = GameGraph.from_successors(
    {
        "a": ["b", "c"],  # Kars' Figure 1 (b = -1, d = 2): the cycle a -> c -> a is a draw
        "c": ["d", "a"],
        "b": [],
        "d": [],
        "e": ["b", "d"],  # Max: 2
        "f": ["b", "d"],  # Min: -1
        "g": ["g"],  # a self-loop: 0
        "h": ["h", "d"],  # Min on a self-loop with an exit to 2: stays on the loop, 0
        "l": ["m", "b"],  # Max: 3
        "m": [],
        "n": ["l", "e"],  # Min over 3 and 2: 2 (joins in the phase of value 2)
        "o": ["z", "b"],  # Max over a leaf of value 0 and -1: 0
        "z": [],
        "p": ["f", "q"],  # Max over -1 and a Min node with a -5 leaf: -1
        "q": ["r", "p"],  # Min over -5 and p: -5
        "r": [],
    },
    semantics=Semantics.MINIMAX,
    owner={"a": MAX, "c": MIN, "e": MAX, "f": MIN, "g": MAX, "h": MIN, "l": MAX, "n": MIN,
           "o": MAX, "p": MAX, "q": MIN},
    value={"b": -1.0, "d": 2.0, "m": 3.0, "z": 0.0, "r": -5.0},
)  # fmt: skip
KARS_BY_HAND = {"a": 0, "c": 0, "b": -1, "d": 2, "e": 2, "f": -1, "g": 0, "h": 0, "l": 3,
                "m": 3, "n": 2, "o": 0, "z": 0, "p": -1, "q": -5, "r": -5}  # fmt: skip

NIM = GameGraph.from_successors(
    {"a": ["b", "c"], "b": ["c"], "c": [], "d": ["a", "b", "c"], "e": ["d"], "f": [],
     "g": ["e", "f"]},
    semantics=Semantics.IMPARTIAL,
)  # fmt: skip
NIM_BY_HAND = {"a": (2, 2), "b": (1, 1), "c": (0, 0), "d": (3, 3), "e": (0, 4), "f": (0, 0),
               "g": (1, 5)}  # fmt: skip


@pytest.mark.dask
@pytest.mark.parametrize("shards", [1, pytest.param(4, marks=pytest.mark.slow), 9])
def test_hand_made_graphs_answers(client: Any, tmp_path: Path, shards: int) -> None:
    root = stored(tmp_path / "r", REACH, client, shards)
    solve_dataset(root, client)
    assert by_name(REACH, answers(root), list(REACH_BY_HAND)) == REACH_BY_HAND
    t = load_manifest(root).tiers[0]
    assert (t.won, t.lost, t.max_remoteness) == (6, 3, 2)

    root = stored(tmp_path / "m", KARS, client, shards)
    solve_dataset(root, client)
    got = by_name(KARS, answers(root), list(KARS_BY_HAND))
    assert {x: v[0] for x, v in got.items()} == KARS_BY_HAND
    assert got["n"][1] > max(got["l"][1], got["e"][1])  # the rank: after its successors

    root = stored(tmp_path / "i", NIM, client, shards)
    solve_dataset(root, client)
    assert by_name(NIM, answers(root), list(NIM_BY_HAND)) == NIM_BY_HAND
    t = load_manifest(root).tiers[0]
    assert (t.won, t.lost, t.drawn, t.max_remoteness) == (4, 3, 0, 5)


# --- random graphs against the in-memory engines ----------------------------------------------


@pytest.mark.dask
@pytest.mark.parametrize(
    ("semantics", "nodes", "shards", "seed"),
    [("reachability", 300, 3, 1), ("minimax", 300, 3, 2), ("impartial", 200, 2, 3)],
)
def test_random_graphs_equal_the_in_memory_engines(
    client: Any, tmp_path: Path, semantics: str, nodes: int, shards: int, seed: int
) -> None:
    values = (-3, -1, 0, 1, 2, 5) if semantics == "minimax" else (-1, 0, 1)
    g = random_case(semantics, nodes, 2.0, seed, values=values,
                    acyclic=semantics == "impartial").graph  # fmt: skip
    root = stored(tmp_path / "g", g, client, shards)
    solve_dataset(root, client)
    assert_same(answers(root), in_memory(g))


@pytest.mark.dask
@pytest.mark.slow
@pytest.mark.parametrize("semantics", ["reachability", "minimax", "impartial"])
@pytest.mark.parametrize(("nodes", "shards", "seed"), [(50, 1, 4), (2000, 7, 5), (4000, 8, 6)])
def test_more_random_graphs_equal_the_in_memory_engines(
    client: Any, tmp_path: Path, semantics: str, nodes: int, shards: int, seed: int
) -> None:
    values = (-4, -2, -1, 0, 1, 3, 7) if semantics == "minimax" else (-1, 0, 1)
    for degree in (1.0, 3.0):
        g = random_case(semantics, nodes, degree, seed, values=values,
                        acyclic=semantics == "impartial").graph  # fmt: skip
        root = stored(tmp_path / f"g{degree}", g, client, shards)
        solve_dataset(root, client)
        assert_same(answers(root), in_memory(g))


@pytest.mark.dask
@pytest.mark.slow
def test_workers_draw_random_graphs_of_each_semantics(client: Any, tmp_path: Path) -> None:
    for sem, values, acyclic in (
        (Semantics.REACHABILITY, None, None),
        (Semantics.MINIMAX, "-2,0,1,3", None),
        (Semantics.IMPARTIAL, None, True),
    ):
        spec = GraphTiers(1500, 0, seed=4, degree=2.0, terminal_fraction=0.1,
                          terminal_values=values, acyclic_moves=acyclic, semantics=sem)  # fmt: skip
        root = tmp_path / sem.value
        prepare_output(root)
        generate_random_graph(root, spec, client, per_shard=500)
        g = graph_of(root)
        if sem is Semantics.MINIMAX:
            dead = np.diff(g.succ_ptr) == 0
            assert set(np.unique(g.value[dead])) == {-2.0, 0.0, 1.0, 3.0}
            assert set(np.unique(g.owner[~dead])) == {MAX, MIN}
        if sem is Semantics.REACHABILITY:
            assert 0.05 < g.target.mean() < 0.15
        solve_dataset(root, client)
        assert_same(answers(root), in_memory(g))


@pytest.mark.dask
def test_an_impartial_graph_with_a_cycle_fails_in_one_line(client: Any, tmp_path: Path) -> None:
    g = GameGraph.from_successors(
        {"a": ["b"], "b": ["c", "d"], "c": ["b"], "d": []}, semantics=Semantics.IMPARTIAL
    )
    root = stored(tmp_path / "c", g, client, 2)
    with pytest.raises(DatasetError, match=r"a cycle: 3 node\(s\) never finished \(node [012] "):
        solve_dataset(root, client)
    assert not load_manifest(root).tiers[0].solved
    assert not graph_tasks._HELD  # the run's states dropped all the same


# --- the states the workers keep between rounds (as normal's: test_graph_tiers.py) ------------


def small_random(semantics: str, seed: int) -> GameGraph:
    values = (-3, -1, 0, 1, 2, 5) if semantics == "minimax" else (-1, 0, 1)
    return random_case(semantics, 400, 2.0, seed, values=values,
                       acyclic=semantics == "impartial").graph  # fmt: skip


def digests(root: Path) -> list[str | None]:
    return [s.answers_sha256 for s in load_manifest(root).tiers[0].shards]


def made_up_state(root: Path, semantics: str, n: int) -> graph_tasks.Held:
    """A shard's state as a run that died could have left it: every node decided in round 0,
    with values no solve gives (score 7, Grundy value 9)."""
    rule = RULES[Semantics(semantics)]
    nodes = {k: np.zeros(n, dtype=t) for k, t in rule.columns.node_columns.items()}
    state = initial_state(rule, nodes, np.zeros(n, np.int32))
    state["done"][:], state["rank"][:] = 1, 0
    for k, v in (("score", 7.0), ("grundy", 9)):
        if k in state:
            state[k][:] = v
    return graph_tasks.Held(str(root), 0, state)


@pytest.mark.dask
@pytest.mark.parametrize("semantics", ["reachability", "minimax", "impartial"])
def test_a_run_again_gives_the_same_answers_and_reads_no_stale_state(
    client: Any, tmp_path: Path, semantics: str
) -> None:
    g = small_random(semantics, 7)
    root = stored(tmp_path / "g", g, client, 3)
    solve_dataset(root, client)
    first, sha = answers(root), digests(root)
    assert_same(first, in_memory(g))
    assert not graph_tasks._HELD  # the run's states dropped at the tier's end
    assert not [k for k in graph_tasks._KEPT if k[0].startswith(str(root))]  # its reverse edges
    # states other runs left on the workers: this dataset's (a driver that died), another's
    n = load_manifest(root).tiers[0].shards[0].positions
    mine, theirs = (made_up_state(r, semantics, n) for r in (root, tmp_path / "other"))
    solve_beside_stale_states(root, client, mine, theirs)
    assert_same(answers(root), first)
    assert digests(root) == sha


def rule_state(semantics: str, degree: list[int], **nodes: list[float]) -> dict[str, np.ndarray]:
    rule = RULES[Semantics(semantics)]
    cols = {k: np.asarray(nodes[k], dtype=t) for k, t in rule.columns.node_columns.items()}
    return initial_state(rule, cols, np.asarray(degree, np.int32))


def test_the_rules_update_by_hand() -> None:
    """One round of each semantics' update rule (``round_rules.step``, what a worker applies
    to the state it holds), worked out by hand. Messages: per move, the mover (local) and the
    decided successor's value."""
    node = np.array([0, 1, 2, 3], dtype=np.intp)
    # reachability: 0 player 0 with 2 moves (one joined: OR, joins), 1 player 1 with 2 (one
    # left), 2 player 1 with 1 (all joined), 3 a target decided in round 0 (stays)
    st = rule_state("reachability", [2, 2, 1, 1], player=[0, 1, 1, 0], target=[0, 0, 0, 1])
    assert seed(RULES[Semantics.REACHABILITY], st, None, 0, False).tolist() == [3]
    now, _ = step(RULES[Semantics.REACHABILITY], st, node, np.zeros(4), None, 5)
    assert now.tolist() == [0, 2]
    # the engine's join step (``settle``): a node joined by OR counts nothing down, and a
    # message to a node decided before (3) counts nothing
    assert st["rank"].tolist() == [5, -1, 5, 0] and st["counter"].tolist() == [2, 1, 0, 1]
    # minimax, the phase of value 2 (Max joins with one, Min with all), then of value -1 (the
    # counters reset when Min's side starts: Min joins with one)
    st = rule_state("minimax", [2, 2, 1, 0], player=[MAX, MIN, MIN, -1],
                    value=[np.nan, np.nan, np.nan, 2.0])  # fmt: skip
    rule = RULES[Semantics.MINIMAX]
    assert seed(rule, st, (1, 2.0), 0, False).tolist() == [3]
    now, _ = step(rule, st, node[:3], np.zeros(3), (1, 2.0), 1)
    assert now.tolist() == [0, 2] and st["score"].tolist() == [2.0, 0.0, 2.0, 2.0]
    seed(rule, st, (-1, -1.0), 2, True)
    assert st["counter"].tolist() == [2, 2, 1, 0]  # reset to the out-degrees
    now, _ = step(rule, st, node[1:2], np.zeros(1), (-1, -1.0), 3)
    assert now.tolist() == [1] and st["score"][1] == -1.0 and st["rank"].tolist() == [1, 3, 1, 0]
    # impartial: 0 has heard 0 before and now 1 (its last: mex 2), 1 hears 0 with one
    # successor left (kept), 2 hears 3 from its only one (mex 0)
    st = rule_state("impartial", [2, 2, 1, 0])
    st["counter"][0] = 1
    kept = (np.array([0]), np.array([0]))
    now, seen = step(RULES[Semantics.IMPARTIAL], st, node[:3], np.array([1.0, 0.0, 3.0]),
                     None, 4, kept)  # fmt: skip
    assert now.tolist() == [0, 2] and st["grundy"].tolist() == [2, -1, 0, -1]
    assert seen is not None and seen[0].tolist() == [1] and seen[1].tolist() == [0]


def test_a_rule_round_without_its_state_fails_with_one_line(tmp_path: Path) -> None:
    from verifier.dataset.manifest import ShardEntry

    entry = ShardEntry(0, 3, "0" * 64)
    with pytest.raises(RunFailed, match=r"shard 0.s state is not on the worker.*--resume"):
        graph_tasks.rule_round(str(tmp_path), 0, entry, 1, "no-such-run", [], np.array([0, 3]),
                               Semantics.REACHABILITY, None)  # fmt: skip


def test_values_to_a_shard_held_elsewhere_go_through_a_raw_file(tmp_path: Path) -> None:
    """A value message (minimax, impartial) keeps its dtype through the file; to a shard held
    in the same process it goes to its inbox."""
    node = np.array([4, 0, 4], dtype=np.intp)
    value = np.array([2.0, 0.0, 1.0])
    path = graph_tasks._post(tmp_path, "r", 0, 2, 1, 0, node, value)
    assert path is not None and path.endswith(".npy")
    got = graph_tasks.read_messages(Path(path))
    assert got[0].tolist() == node.tolist() and got[1].tolist() == value.tolist()
    assert got[1].dtype == np.float64
    held = made_up_state(tmp_path, "impartial", 5)
    graph_tasks._HELD[("r", 0, 1)] = held
    try:
        assert graph_tasks._post(tmp_path, "r", 0, 2, 1, 0, node, value) is None
        assert [m[1].tolist() for m in held.inbox[3]] == [value.tolist()]
    finally:
        graph_tasks._HELD.clear()


# --- the command line ---------------------------------------------------------------------------


@pytest.mark.dask
def test_cli_generates_solves_and_verifies_each_semantics(client: Any, tmp_path: Path) -> None:
    opts = ("--engine", "dask", "--scheduler", client.scheduler.address)
    col = {"reachability": "label", "minimax": "score", "impartial": "grundy"}
    for sem, extra, word in (
        # the start's answer in a case's words (``ViewForm.verdict``)
        ("reachability", (), r"value: node 0: player (0 reaches|1 keeps play away from) the "),
        ("minimax", ("--terminal-values", "-3,-1,0,2,4"), r"value: node 0: (Max|Min) wins, score "),
        ("impartial", ("--acyclic",), r"value: node 0: Grundy value \d+: the player to move "),
    ):
        root = tmp_path / sem
        r = run_cli("generate", "random", "--semantics", sem, "--nodes", 400, "--seed", 1, "-o",
                    root, *extra, *opts, "--shard-positions", 200)  # fmt: skip
        assert r.exit_code == 0, r.output
        assert f"graph, {sem}, 400 nodes" in r.output
        r = run_cli("solve", root, *opts)
        assert r.exit_code == 0, r.output
        assert re.search(word, r.output), r.output
        assert_same(answers(root), in_memory(graph_of(root)))
        r = run_cli("solve", root, *opts, "--resume", "--json")
        doc = json.loads(r.output[r.output.index("{") :])
        assert doc["semantics"] == sem and doc["root"]["value"].startswith("node 0: ")
        assert doc["tiers"][0]["counts"]
        r = run_cli("verify", root, *opts)
        assert r.exit_code == 0 and dataset_verdict(r)[0] == "VERIFIED", r.output
        assert dataset_verdict(r)[1].startswith("node 0: "), r.output
        table = write_table(tmp_path / f"{sem}.parquet", stranger(answers(root), sem))
        r = run_cli("verify", root, *opts, "--answers", table)
        assert r.exit_code == 0 and dataset_verdict(r)[0] == "VERIFIED", r.output
        assert dataset_verdict(r)[1].startswith("node 0: "), r.output
        bump = 2 if sem == "reachability" else 1  # -1 -> 1, 1 -> 3: either way wrong
        corrupt(root, 0, col[sem], answers(root)[col[sem]][0] + bump)
        r = run_cli("verify", root, *opts, "--json")
        doc = json.loads(r.output[r.output.index("{") :])
        assert r.exit_code == 1 and doc["verdict"] == "refuted", r.output
        assert doc["checks"]["rules"]["first"]["position"] == "node 0"

    # a case file, its start named as the file names it (issue 45 item 1: was "node 10")
    case = tmp_path / "k.json"
    dump_case(Case(graph=KARS, id="kars-hand", root=KARS.id_of("n")), case)
    r = run_cli("generate", case, "-o", tmp_path / "k", *opts)
    assert r.exit_code == 0, r.output
    r = run_cli("solve", tmp_path / "k", *opts)
    assert r.exit_code == 0, r.output
    assert "value: n: Max wins, score 2" in r.output


@pytest.mark.dask
@pytest.mark.parametrize(
    ("sem", "acyclic"),
    [("normal", False), ("reachability", False), ("minimax", False), ("impartial", True)],
)
def test_a_stored_cases_counts_are_worded_as_the_cases(
    client: Any, tmp_path: Path, sem: str, acyclic: bool
) -> None:
    """Issue 45 item 2: a case stored as a dataset, solved and verified, counts its answers in
    the words and numbers of the case's report (``won 21, lost 7, drawn 2``; ``player 0
    reaches the target from ...``; ``N positions ...``), whatever the dataset calls them in its
    manifest (``score > 0``, ``player 0``, ``N``)."""
    from verifier.api import verify
    from verifier.writers.answer import counts_line

    values = (-2, -1, 0, 1, 2) if sem == "minimax" else (-1, 0, 1)
    case = random_case(sem, 60, 2.5, 7, values=values, acyclic=acyclic)
    file = tmp_path / "c.json"
    dump_case(case, file)
    mine = counts_line(verify(file))
    assert mine is not None
    opts = ("--engine", "dask", "--scheduler", client.scheduler.address)
    assert run_cli("generate", file, "-o", tmp_path / "d", *opts).exit_code == 0
    assert run_cli("solve", tmp_path / "d", *opts).exit_code == 0
    r = run_cli("verify", tmp_path / "d", *opts, "--no-self-check")
    assert r.exit_code == 0 and dataset_verdict(r)[0] == "VERIFIED", r.output
    said = r.output.splitlines()[2].strip()
    # the same counts; the longest is the dataset's own (a greatest rank, not a longest win)
    assert (
        said.split(", longest")[0].split(", height")[0].split(", layers")[0]
        == (mine.split(", longest")[0])
    ), (said, mine)
    assert "score" not in said and ": " not in said, said


@pytest.mark.dask
def test_cli_refuses_in_one_line(client: Any, tmp_path: Path) -> None:
    opts = ("--engine", "dask", "--scheduler", client.scheduler.address)
    r = run_cli("generate", "random", "--semantics", "chess", "-o", tmp_path / "x", *opts)
    assert r.exit_code == 2 and "--semantics 'chess'" in r.output
    root = tmp_path / "cyc"
    r = run_cli("generate", "random", "--semantics", "impartial", "--nodes", 100, "-o", root,
                *opts)  # fmt: skip
    assert r.exit_code == 0, r.output
    one_line_error(run_cli("solve", root, *opts), 2, "never finished")
    with pytest.raises(DatasetError, match="one tier"):
        dataset_from_graph(tmp_path / "t", REACH, client, shards=1,
                           tier_of=np.zeros(REACH.n, dtype=np.int64))  # fmt: skip


# --- verify: the dataset's own answers judged, every published field corrupted ----------------


def corrupt(root: Path, node: int, column: str, value: Any) -> None:
    """Set ``column`` of node ``node``'s answer in the dataset's own answers (digest updated)."""
    m = load_manifest(root)
    sem = Semantics(m.semantics)
    bounds = np.cumsum([0, *(s.positions for s in m.tiers[0].shards)])
    j = int(np.searchsorted(bounds, node, side="right") - 1)
    s = m.tiers[0].shards[j]
    cols = read_rule_answers(root, 0, j, s.answers_sha256, s.positions, COLUMNS[sem].answer_columns)
    cols = {k: np.array(v) for k, v in cols.items()}
    cols[column][node - bounds[j]] = value
    s.answers_sha256 = write_rule_answers(root, 0, j, cols)
    m.save(root)


def verdict(root: Path, client: Any) -> tuple[str, dict[str, int]]:
    res = check_dataset(root, client)
    return res.verdict, res.counts


@pytest.mark.dask
def test_verify_judges_each_semantics_and_refutes_every_corrupted_field(
    client: Any, tmp_path: Path
) -> None:
    for sem, graph, fields in (
        (Semantics.REACHABILITY, REACH, {"label": ("a", -1), "remoteness": ("g", 1)}),
        (Semantics.MINIMAX, KARS, {"score": ("a", 2.0), "rank": ("n", 0)}),
        (Semantics.IMPARTIAL, NIM, {"grundy": ("d", 2), "remoteness": ("e", 3)}),
    ):
        root = stored(tmp_path / sem.value, graph, client, 3)
        solve_dataset(root, client)
        assert verdict(root, client)[0] == "verified", sem
        for column, (name, value) in fields.items():
            x = graph.id_of(name)
            before = answers(root)[column][x]
            corrupt(root, x, column, value)
            got, counts = verdict(root, client)
            assert got == "refuted", (sem, column, counts)
            corrupt(root, x, column, before)
        assert verdict(root, client)[0] == "verified"


@pytest.mark.dask
def test_a_cycle_of_scores_that_justifies_itself_is_refuted_by_the_ranks(
    client: Any, tmp_path: Path
) -> None:
    root = stored(tmp_path / "k", KARS, client, 2)
    solve_dataset(root, client)
    a, c = KARS.id_of("a"), KARS.id_of("c")
    corrupt(root, a, "score", 2.0)  # a = max(-1, c) and c = min(2, a) hold at a = c = 2 ...
    corrupt(root, c, "score", 2.0)
    corrupt(root, a, "rank", 50)
    corrupt(root, c, "rank", 60)
    res = check_dataset(root, client)
    assert res.verdict == "refuted" and (res.counts["rules"], res.counts["ranks"]) == (0, 1)
    assert res.counts["counts"] == 2  # ... not ranks; the manifest's counts no longer hold
    assert "node" in res.names["ranks"]


@pytest.mark.dask
@pytest.mark.slow
@pytest.mark.parametrize("semantics", ["reachability", "minimax", "impartial"])
def test_any_corrupted_value_of_a_random_graph_is_refuted(
    client: Any, tmp_path: Path, semantics: str
) -> None:
    """The checks are complete: each answer below is the only one the rules allow (a minimax
    rank is a certificate, not unique: only the score is changed there)."""
    values = (-3, -1, 0, 2, 4) if semantics == "minimax" else (-1, 0, 1)
    g = random_case(semantics, 500, 2.0, 11, values=values,
                    acyclic=semantics == "impartial").graph  # fmt: skip
    root = stored(tmp_path / "g", g, client, 3)
    solve_dataset(root, client)
    assert verdict(root, client)[0] == "verified"
    rng = np.random.default_rng(5)
    fields = [c for c in COLUMNS[Semantics(semantics)].answer_columns if c != "rank"]
    for _ in range(12):
        x = int(rng.integers(g.n))
        column = fields[int(rng.integers(len(fields)))]
        before = answers(root)[column][x]
        if column == "label":
            after = -before
        elif column == "score":
            after = float(rng.choice([v for v in (*values, 1) if v != before]))
        else:
            after = before + int(rng.choice([-1, 1, 2]))
        corrupt(root, x, column, after)
        assert verdict(root, client)[0] == "refuted", (x, column, before, after)
        corrupt(root, x, column, before)


# --- verify --answers: a stranger's table of values judged ------------------------------------


def stranger(got: dict[str, np.ndarray], semantics: str, *, remoteness: bool = True) -> dict:
    """Answers (the dataset's columns, node-id order) as a stranger's table: ``code``, ``value``
    (the winner 0 / 1, the score, the Grundy value) and, for reachability, ``remoteness`` (the
    layer, null outside the region)."""
    import pyarrow as pa

    n = len(next(iter(got.values())))
    cols: dict[str, Any] = {"code": np.arange(n, dtype=np.int64)}
    if semantics == "reachability":
        cols["value"] = np.where(got["label"] == 1, 0, 1).astype(np.int64)
        if remoteness:
            rem = np.asarray(got["remoteness"], dtype=np.int64)
            cols["remoteness"] = pa.array(rem, mask=rem < 0)
    elif semantics == "minimax":
        cols["value"] = np.asarray(got["score"], dtype=np.float64)
    else:
        cols["value"] = np.asarray(got["grundy"], dtype=np.int64)
    return cols


def write_table(path: Path, cols: dict[str, Any]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table(cols), path)
    return path


def changed(cols: dict[str, Any], node: int, column: str, value: Any) -> dict[str, Any]:
    """``cols`` with ``column`` of node ``node``'s row set to ``value`` (null: ``None``)."""
    import pyarrow as pa

    out = dict(cols)
    vals = pa.array(cols[column]).to_pylist()
    vals[node] = value
    out[column] = pa.array(vals, type=pa.array(cols[column]).type)
    return out


def judged(root: Path, client: Any, table: Path) -> Any:
    return check_dataset(root, client, answers=table)


SEMANTICS_CASES = [
    # semantics, graph, the published fields each corrupted at one node: (name, value, check)
    ("reachability", REACH, {"value": ("a", 1, "rules"), "remoteness": ("g", 1, "layers")}),
    ("minimax", KARS, {"value": ("a", 2.0, "rules")}),
    ("impartial", NIM, {"value": ("d", 2, "rules")}),
]


@pytest.mark.dask
@pytest.mark.parametrize(("semantics", "graph", "fields"), SEMANTICS_CASES)
def test_a_strangers_table_is_verified_and_every_corrupted_field_refuted(
    client: Any, tmp_path: Path, semantics: str, graph: GameGraph, fields: dict
) -> None:
    root = stored(tmp_path / "g", graph, client, 3)
    solve_dataset(root, client)
    cols = stranger(answers(root), semantics)
    res = judged(root, client, write_table(tmp_path / "t.parquet", cols))
    assert res.verdict == "verified", res.counts
    assert res.checks[:3] == ("dataset", "coverage", "rules") and not any(res.counts.values())
    for column, (name, value, check) in fields.items():
        x = graph.id_of(name)
        table = write_table(tmp_path / f"bad-{column}.parquet", changed(cols, x, column, value))
        res = judged(root, client, table)
        assert res.verdict == "refuted" and res.counts[check] > 0, (column, res.counts)
        assert res.names[check] == f"node {x}", (column, res.witnesses)
    # a table in a directory of files, one row missing and a code of no node
    folder = tmp_path / "parts"
    folder.mkdir()
    half = len(cols["code"]) // 2
    write_table(folder / "a.parquet", {k: v[:half] for k, v in cols.items()})
    rest = {k: v[half + 1 :] for k, v in cols.items()}
    extra = {"code": np.array([graph.n + 5]), "value": cols["value"][:1]}
    extra |= {k: v[:1] for k, v in cols.items() if k not in extra}
    write_table(folder / "b.parquet", {k: _concat(rest[k], extra[k]) for k in cols})
    res = judged(root, client, folder)
    assert res.verdict == "refuted" and res.counts["coverage"] == 2, res.counts
    assert res.checks[:2] == ("dataset", "coverage")


def _concat(a: Any, b: Any) -> Any:
    import pyarrow as pa

    return pa.concat_arrays([pa.array(a), pa.array(b, type=pa.array(a).type)])


@pytest.mark.dask
def test_a_strangers_values_without_a_certificate_rest_on_the_dataset_s_own(
    client: Any, tmp_path: Path
) -> None:
    """Values that obey the local rules on a cycle (player 0's self-loop claimed won; Kars'
    Figure 1's cycle claimed 2) are the dataset's own answers or refuted where they differ,
    when the dataset is solved; inconclusive when it is not (unless the table's layers prove
    them)."""
    f, a, c = REACH.id_of("f"), KARS.id_of("a"), KARS.id_of("c")
    for sem, graph, bad in (
        ("reachability", REACH, {f: 0}),
        ("minimax", KARS, {a: 2.0, c: 2.0}),
        ("impartial", NIM, {}),
    ):
        truth = in_memory(graph)
        plain = stranger(truth, sem, remoteness=False)
        wrong = plain
        for x, v in bad.items():
            wrong = changed(wrong, x, "value", v)
        good_t = write_table(tmp_path / f"{sem}-good.parquet", plain)
        wrong_t = write_table(tmp_path / f"{sem}-wrong.parquet", wrong)
        root = stored(tmp_path / sem, graph, client, 2)
        # not solved: nothing proves the values
        res = judged(root, client, good_t)
        assert res.verdict == "inconclusive" and "solve the dataset first" in res.inconclusive
        assert res.checks == ("dataset", "coverage", "rules")
        if bad:  # a cycle of claims that justifies itself obeys the rules
            res = judged(root, client, wrong_t)
            assert res.verdict == "inconclusive", res.counts
        solve_dataset(root, client)
        res = judged(root, client, good_t)
        assert res.verdict == "verified"
        assert res.checks == ("dataset", "coverage", "rules", "agreement")
        assert "dataset's own answers" in res.proof
        if bad:
            res = judged(root, client, wrong_t)
            assert res.verdict == "refuted", res.counts
            assert res.counts["rules"] == 0 and res.counts["agreement"] == len(bad)
            x = min(bad)
            assert res.names["agreement"] == f"node {x}"
            assert "the dataset's own answer is" in res.witnesses["agreement"][2]

    # the table's layers prove reachability without a solve; and they refute the self-loop
    root = stored(tmp_path / "r2", REACH, client, 2)
    table = write_table(tmp_path / "r2.parquet", stranger(in_memory(REACH), "reachability"))
    assert judged(root, client, table).verdict == "verified"
    loop = changed(stranger(in_memory(REACH), "reachability"), f, "value", 0)
    res = judged(root, client, write_table(tmp_path / "r3.parquet", loop))
    assert res.verdict == "refuted" and res.counts["rules"] == 0 and res.counts["layers"] == 1
    assert res.names["layers"] == f"node {f}"

    # the dataset's own answers broken: they prove nothing, the table is not refuted by them
    root = tmp_path / "minimax"
    corrupt(root, KARS.id_of("n"), "rank", 0)
    res = judged(root, client, tmp_path / "minimax-good.parquet")
    assert res.verdict == "inconclusive" and "fail their check" in res.inconclusive


@pytest.mark.dask
def test_cli_judges_a_strangers_table_and_refuses_a_bad_one_in_one_line(
    client: Any, tmp_path: Path
) -> None:
    opts = ("--engine", "dask", "--scheduler", client.scheduler.address)
    nim = stored(tmp_path / "i", NIM, client, 2)
    good = stranger(in_memory(NIM), "impartial")
    table = write_table(tmp_path / "nim.parquet", good)
    r = run_cli("verify", nim, *opts, "--answers", table)
    assert r.exit_code == 3 and dataset_verdict(r)[0] == "INCONCLUSIVE", r.output
    assert "solve" in r.output, r.output
    solve_dataset(nim, client)
    r = run_cli("verify", nim, *opts, "--answers", table)
    assert r.exit_code == 0, r.output
    assert dataset_verdict(r) == (
        "VERIFIED",
        "node 0: Grundy value 2: the player to move wins (an N position)",
    ), r.output
    d = NIM.id_of("d")
    path = write_table(tmp_path / "bad.parquet", changed(good, d, "value", 0))
    r = run_cli("verify", nim, *opts, "--answers", path, "--json")
    doc = json.loads(r.output[r.output.index("{") :])
    assert r.exit_code == 1 and doc["verdict"] == "refuted", r.output
    assert doc["checks"]["agreement"]["first"]["position"] == f"node {d}"

    def bad(name: str, cols: dict, *words: str) -> None:
        path = write_table(tmp_path / name, cols)
        one_line_error(run_cli("verify", nim, *opts, "--answers", path), 2, str(path), *words)

    bad("float.parquet", good | {"value": good["value"].astype(np.float64)}, "$.value", "double")
    bad("negative.parquet", changed(good, 1, "value", -1), "$.value[1]", ">= 0")
    bad("novalue.parquet", {"code": good["code"]}, "$.value", "missing")
    bad("remote.parquet", good | {"remoteness": good["value"]}, "$.remoteness")
    reach = stored(tmp_path / "r", REACH, client, 2)
    cols = stranger(in_memory(REACH), "reachability")
    path = write_table(tmp_path / "two.parquet", changed(cols, 2, "value", 2))
    one_line_error(run_cli("verify", reach, *opts, "--answers", path), 2, "$.value[2]", "0 or 1")
    path = write_table(tmp_path / "mv.parquet", cols | {"move": cols["code"]})
    one_line_error(run_cli("verify", reach, *opts, "--answers", path), 2, "$.move")
    kars = stored(tmp_path / "k", KARS, client, 2)
    path = write_table(tmp_path / "s.parquet", {"code": np.arange(KARS.n),
                                                "value": np.array(["x"] * KARS.n)})  # fmt: skip
    one_line_error(run_cli("verify", kars, *opts, "--answers", path), 2, "$.value", "not numbers")


# --- one rule per semantics: the sharded check runs the in-memory check's own rules ---------


def _in_memory_faults(g: GameGraph) -> int:
    """How many nodes the in-memory ``rules`` check finds breaking their rule in the engine's
    own (true) answer."""
    from verifier.checks.rules import rule_faults
    from verifier.model import SolverResult
    from verifier.model.describe import describe

    cols = in_memory(g)  # reachability's label +1 / -1 is the model's region 1 / 0
    got = (cols["label"] == 1).astype(np.int64) if "label" in cols else next(iter(cols.values()))
    return len(rule_faults(g, SolverResult("engine", describe(g.semantics).view, got)))


@pytest.mark.dask
@pytest.mark.parametrize("semantics", ["reachability", "minimax", "impartial"])
def test_a_rule_changed_in_its_one_place_changes_both_routes(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, semantics: str
) -> None:
    """Issue 45 item 3: each semantics' local rule is written once (the equations'
    ``OrderSystem.apply``, the mex's ``mex_failures``); the in-memory ``rules`` check and the
    sharded check both run it. Changed there (Max and Min swapped; every Grundy value read one
    higher), the true answers break it on both routes; unchanged, both routes accept them."""
    g = small_random(semantics, 3)
    root = stored(tmp_path / "g", g, client, 3)
    solve_dataset(root, client)
    assert _in_memory_faults(g) == 0
    res = check_dataset(root, client)
    assert res.verdict == "verified" and res.counts["rules"] == 0
    if semantics == "impartial":
        from verifier.smt import mex

        real = mex.mex_failures
        monkeypatch.setattr(mex, "mex_failures", lambda g, v, nodes: real(g, v + (v >= 0), nodes))
    else:
        from dataclasses import replace

        from verifier.equations.system import AND, OR, OrderSystem

        real_apply = OrderSystem.apply

        def swapped(self: OrderSystem, idx: Any) -> Any:
            kind = np.where(self.kind == OR, AND, np.where(self.kind == AND, OR, self.kind))
            return real_apply(replace(self, kind=kind.astype(np.int8)), idx)

        monkeypatch.setattr(OrderSystem, "apply", swapped)
    assert _in_memory_faults(g) > 0
    res = check_dataset(root, client)
    assert res.verdict == "refuted" and res.counts["rules"] > 0, res.counts


def test_the_start_is_said_in_a_cases_words_and_a_claim_no_rule_allows_as_it_is() -> None:
    """The start's answer as a case's report says it (``ViewForm.verdict``); a stranger's claim
    that no value set holds (a NaN score, Grundy value -1) is said as claimed, not as a win or a
    loss, and naming it does not fail."""
    from verifier.dataset.round_rules import described

    nan = np.array(np.nan)
    assert described(Semantics.MINIMAX, "s", {"score": np.array(-1.0)}) == "s: Min wins, score -1"
    assert described(Semantics.MINIMAX, "s", {"score": np.array(0.0)}) == "s: a draw (score 0)"
    assert described(Semantics.MINIMAX, "s", {"score": nan}) == "s: score nan"
    assert described(Semantics.IMPARTIAL, "s", {"grundy": np.array(0)}) == (
        "s: Grundy value 0: the player to move loses (a P position)"
    )
    assert described(Semantics.IMPARTIAL, "s", {"grundy": np.array(-1)}) == "s: Grundy value -1"
    said = {"label": np.array(1), "remoteness": np.array(3)}
    assert described(Semantics.REACHABILITY, "s", said) == (
        "s: player 0 reaches the target in 3 moves"
    )
