"""Stored graphs in tiered datasets (``verifier.distributed.tiers.graph_*``): general normal
graphs written as one tier of node ids with their edges, solved by retrograde rounds on Dask
workers, against answers worked out by hand and against the in-memory solver, node by node.

Most tests use an in-process cluster (two one-thread workers); killing a worker needs worker
processes, so that test starts a LocalCluster of its own.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dist_graphs import solve_beside_stale_states
from tier_cli import dataset_verdict, one_line_error, run_cli

from verifier import api
from verifier.games.random_graphs import random_case
from verifier.model import Case, GameGraph, Semantics

distributed = pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from verifier.dataset.errors import DatasetError, RunFailed  # noqa: E402
from verifier.dataset.graph_storage import (  # noqa: E402
    edges_path,
    read_edges,
    read_nodes,
)
from verifier.dataset.graphs import GraphTiers  # noqa: E402
from verifier.dataset.manifest import load_manifest  # noqa: E402
from verifier.dataset.storage import answers_path, read_answers  # noqa: E402
from verifier.distributed.tiers import graph_tasks  # noqa: E402
from verifier.distributed.tiers.driver import prepare_output, solve_dataset  # noqa: E402
from verifier.distributed.tiers.graph_generate import (  # noqa: E402
    dataset_from_graph,
    generate_random_graph,
)

pytestmark = pytest.mark.filterwarnings("ignore:Port 8787 is already in use")

Answers = tuple[np.ndarray, np.ndarray]


def stored(root: Path, graph: GameGraph, client: Any, shards: int) -> Path:
    prepare_output(root)
    dataset_from_graph(root, graph, client, shards=shards)
    return root


def answers(root: Path) -> Answers:
    """Every node's label and remoteness, in node-id order (shards hold id ranges)."""
    m = load_manifest(root)
    got = [read_answers(root, 0, s.shard, s.answers_sha256, s.positions) for s in m.tiers[0].shards]
    return np.concatenate([g[0] for g in got]), np.concatenate([g[1] for g in got])


def in_memory(case: Case) -> Answers:
    """The in-memory solver's labels and remoteness (-1 where it gives none: the draws)."""
    sol = api.solve(case, engine="numpy")
    rem = sol.columns["remoteness"]
    label = sol.columns["value"].data.astype(np.int8)
    return label, np.where(rem.given, rem.data, -1).astype(np.int32)


def assert_same(got: Answers, want: Answers) -> None:
    """Label and remoteness equal node by node (the first difference named)."""
    for name, g, w in (("label", got[0], want[0]), ("remoteness", got[1], want[1])):
        assert len(g) == len(w)
        bad = np.flatnonzero(g != w)
        assert len(bad) == 0, f"node {bad[0]}: {name} {g[bad[0]]}, in memory {w[bad[0]]}"


def graph_of(root: Path) -> Case:
    """The graph a dataset stores, rebuilt in memory (dead ends keep their labels)."""
    m = load_manifest(root)
    n = m.tiers[0].positions
    src, dst, terminal = [], [], []
    for s in m.tiers[0].shards:
        terminal.append(read_nodes(root, 0, s.shard, s.sha256, s.positions)[1])
        e = read_edges(root, 0, s.shard, s.edges_sha256, s.edges)
        src.append(e[0])
        dst.append(e[1])
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(np.concatenate(src).astype(np.int64), minlength=n), out=ptr[1:])
    term = np.concatenate(terminal).astype(np.float64)
    dead = ptr[1:] == ptr[:-1]
    graph = GameGraph(
        semantics=Semantics.NORMAL,
        succ_ptr=ptr,
        succ_idx=np.concatenate(dst).astype(np.int64),
        owner=np.full(n, -1, dtype=np.int8),
        value=np.where(dead, term, np.nan),
        target=np.zeros(n, dtype=np.bool_),
    )
    return Case(graph=graph, id="stored")


# --- hand-made graphs -------------------------------------------------------------------------

HAND = GameGraph.from_successors(
    {
        "a": ["b"],  # a 2-cycle with an exit: b -> c (a dead end) wins, a's only move loses
        "b": ["a", "c"],
        "c": [],
        "d": ["d", "e"],  # a self-loop and an exit to a dead end
        "e": [],
        "f": ["f"],  # a self-loop alone: a draw
        "g": [],  # a dead end on its own
        "w": [],  # a dead end marked won, and its only predecessor, lost
        "v": ["w"],
        "x0": ["x1"],  # a chain x0 -> ... -> x9 crossing the shards
        **{f"x{i}": [f"x{i + 1}"] for i in range(1, 9)},
        "x9": [],
        "u": ["f", "v"],  # a draw and a lost successor: won
        "t": ["f", "c"],  # a draw and a lost successor at once: won in 1
        "s": ["f", "w"],  # a draw and a won successor: drawn
    },
    semantics=Semantics.NORMAL,
    value={"w": 1.0},
)
"""Node ids in the order of the keys."""

BY_HAND: dict[str, tuple[int, int]] = {
    "a": (-1, 2), "b": (1, 1), "c": (-1, 0), "d": (1, 1), "e": (-1, 0), "f": (0, -1),
    "g": (-1, 0), "w": (1, 0), "v": (-1, 1),
    **{f"x{i}": ((-1 if (9 - i) % 2 == 0 else 1), 9 - i) for i in range(10)},
    "u": (1, 2), "t": (1, 1), "s": (0, -1),
}  # fmt: skip


@pytest.mark.dask
@pytest.mark.parametrize("shards", [1, 4, 40])
def test_hand_made_graph_answers(client: Any, tmp_path: Path, shards: int) -> None:
    root = stored(tmp_path / "ds", HAND, client, shards)
    res = solve_dataset(root, client)
    names = [HAND.names[i] for i in range(HAND.n)]
    want = (
        np.array([BY_HAND[x][0] for x in names], dtype=np.int8),
        np.array([BY_HAND[x][1] for x in names], dtype=np.int32),
    )
    got = answers(root)
    assert_same(got, want)
    assert_same(want, in_memory(Case(graph=HAND, id="hand")))  # the hand agrees with it
    assert (res.root_label, res.root_remoteness) == BY_HAND["a"]
    t = res.manifest.tiers[0]
    assert len(t.shards) == shards and t.max_remoteness == 9
    assert (t.won, t.lost, t.drawn) == tuple(int((want[0] == v).sum()) for v in (1, -1, 0))


# --- random graphs against the in-memory solver ---------------------------------------------


@pytest.mark.dask
@pytest.mark.parametrize(
    ("nodes", "degree", "seed", "shards"),
    [(100, 1.5, 1, 1), (50, 1.0, 6, 64), (1000, 2.0, 3, 3), (2000, 3.0, 4, 7), (5000, 2.0, 5, 4)],
)
def test_random_graphs_equal_the_in_memory_solver(
    client: Any, tmp_path: Path, nodes: int, degree: float, seed: int, shards: int
) -> None:
    case = random_case("normal", nodes, degree, seed)
    root = stored(tmp_path / "ds", case.graph, client, shards)
    solve_dataset(root, client)
    want = in_memory(case)
    assert_same(answers(root), want)
    assert (want[0] != 0).sum() > nodes // 10  # enough decided nodes to mean something


@pytest.mark.dask
def test_the_comparison_catches_a_wrong_solver(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = random_case("normal", 1000, 2.0, 3)
    want = in_memory(case)
    root = stored(tmp_path / "ds", case.graph, client, 3)
    solve_dataset(root, client)
    label, rem = answers(root)
    off = int(np.flatnonzero(rem > 1)[0])
    rem[off] += 1  # one remoteness off by one
    with pytest.raises(AssertionError, match=f"node {off}: remoteness"):
        assert_same((label, rem), want)

    real = graph_tasks.rule_round

    def forgets_lost(root: str, tier: int, entry: Any, rnd: int, *rest: Any) -> Any:
        """A broken round: from round 3 on it decides nothing."""
        decided, msgs = real(root, tier, entry, rnd, *rest)
        return (decided, msgs) if rnd < 3 else (0, [])

    monkeypatch.setattr(graph_tasks, "rule_round", forgets_lost)  # workers in this process
    solve_dataset(root, client)
    with pytest.raises(AssertionError):
        assert_same(answers(root), want)


# --- the rounds: the update rule, the state the workers keep between rounds -----------------


@pytest.mark.parametrize("many", [False, True])
def test_the_normal_rule_steps_by_hand(many: bool) -> None:
    """Five nodes: 0 undecided with 2 successors, 1 with 1, 2 already won, 3 with 3, 4 with 1.
    Messages (the successor's label): 0 hears one won successor (counts down to 1), 1 its only
    won one (lost), 2 a lost one (decided before: stays), 3 a won and a lost one (won), 4
    nothing. ``many`` repeats the messages of a node that counts down (once per move). Normal's
    state is its label (``done``), remoteness (``rank``) and counter, nothing else; a node
    decided by a lost successor counts nothing down (the engine's join step, ``settle``)."""
    from verifier.dataset.round_rules import RULES, step

    label = np.array([0, 0, 1, 0, 0], dtype=np.int8)
    rem = np.array([-1, -1, 3, -1, -1], dtype=np.int32)
    counter = np.array([2, 1, 1, 3, 1], dtype=np.int32)
    node = np.array([0, 1, 2, 3, 3], dtype=np.intp)
    said = np.array([1, 1, -1, -1, 1], dtype=np.int8)
    if many:
        counter[0] = 9
        node, said = np.append(node, [0] * 7), np.append(said, [1] * 7).astype(np.int8)
    state = {"done": label, "rank": rem, "counter": counter}
    decided, seen = step(RULES[Semantics.NORMAL], state, node, said, None, 5)
    assert decided.tolist() == [1, 3] and seen is None
    assert label.tolist() == [0, -1, 1, 1, 0]
    assert rem.tolist() == [-1, 5, 3, 5, -1]
    assert counter.tolist() == [1, 0, 1, 3, 1]


@pytest.mark.dask
def test_a_run_again_gives_the_same_answers_and_leaves_no_state(
    client: Any, tmp_path: Path
) -> None:

    case = random_case("normal", 1500, 2.0, 8)
    root = stored(tmp_path / "ds", case.graph, client, 5)
    solve_dataset(root, client)
    first = answers(root)
    digests = [s.answers_sha256 for s in load_manifest(root).tiers[0].shards]
    assert not graph_tasks._HELD  # the run's states dropped at the tier's end
    assert not [k for k in graph_tasks._KEPT if k[0].startswith(str(root))]  # its reverse edges
    # an earlier run's state left on a worker for this dataset (a driver that died), all won:
    n = load_manifest(root).tiers[0].shards[0].positions
    stale = graph_tasks.Held(str(root), 0, {"label": np.ones(n, np.int8),
                             "remoteness": np.zeros(n, np.int32),
                             "counter": np.zeros(n, np.int32)})  # fmt: skip
    other = graph_tasks.Held(str(tmp_path / "other"), 0, {"label": np.ones(1, np.int8),
                             "remoteness": np.zeros(1, np.int32),
                             "counter": np.zeros(1, np.int32)})  # fmt: skip
    solve_beside_stale_states(root, client, stale, other)
    assert_same(answers(root), first)
    assert [s.answers_sha256 for s in load_manifest(root).tiers[0].shards] == digests
    assert_same(first, in_memory(case))


@pytest.mark.dask
@pytest.mark.parametrize(
    ("semantics", "task"), [("normal", "rule_round"), ("minimax", "rule_round")]
)
def test_a_failed_run_drops_its_state(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, semantics: str, task: str
) -> None:
    """A round that fails in a worker: the run fails, no state is left in the workers, the
    tier is not marked solved, and the next run starts afresh and solves it."""
    values = (-3, -1, 0, 1, 2, 5) if semantics == "minimax" else (-1, 0, 1)
    graph = random_case(semantics, 1000, 2.0, 3, values=values).graph
    root = stored(tmp_path / "ds", graph, client, 3)
    real = getattr(graph_tasks, task)

    def breaks(root: str, tier: int, entry: Any, rnd: int, *rest: Any) -> Any:
        if rnd == 2:
            raise DatasetError("a round that breaks")
        return real(root, tier, entry, rnd, *rest)

    monkeypatch.setattr(graph_tasks, task, breaks)
    with pytest.raises(DatasetError, match="a round that breaks"):
        solve_dataset(root, client)
    assert not graph_tasks._HELD
    assert not load_manifest(root).tiers[0].solved
    monkeypatch.undo()
    solve_dataset(root, client)
    assert load_manifest(root).tiers[0].solved and not graph_tasks._HELD


def test_a_round_without_its_state_fails_with_one_line(tmp_path: Path) -> None:
    """A round sent to a worker that does not hold the shard's state of the run (it restarted)
    fails; it never starts from nothing."""
    from verifier.dataset.manifest import ShardEntry

    entry = ShardEntry(0, 3, "0" * 64)
    with pytest.raises(RunFailed, match=r"shard 0.s state is not on the worker.*--resume"):
        graph_tasks.rule_round(str(tmp_path), 0, entry, 1, "no-such-run", [],
                               np.array([0, 3]), Semantics.NORMAL, None)  # fmt: skip


def test_a_task_still_running_when_its_run_is_forgotten_keeps_nothing(tmp_path: Path) -> None:
    """A failed run's other tasks finish after the driver dropped the run's states: what they
    would keep is not kept (it would stay in the worker for good: no later run has its id)."""
    held = graph_tasks.Held(str(tmp_path), 0, {"label": np.zeros(2, np.int8)})
    graph_tasks._hold("late", 0, 0, held)
    assert graph_tasks._HELD.pop(("late", 0, 0)) is held  # kept while the run is on
    assert graph_tasks.forget_run("late") == 0
    graph_tasks._hold("late", 0, 1, held)
    assert ("late", 0, 1) not in graph_tasks._HELD


def test_messages_to_a_shard_held_elsewhere_go_through_a_file(tmp_path: Path) -> None:

    node = np.array([4, 0, 4], dtype=np.intp)
    lost = np.array([True, False, False])
    path = graph_tasks._post(tmp_path, "r", 0, 2, 1, 0, node, lost)
    assert path is not None and Path(path).is_file()
    got = graph_tasks.read_messages(Path(path))
    assert got[0].tolist() == node.tolist() and got[1].tolist() == lost.tolist()
    held = graph_tasks.Held(str(tmp_path), 10, {"label": np.zeros(5, np.int8),
                            "remoteness": np.full(5, -1, np.int32),
                            "counter": np.array([1, 1, 1, 1, 2], np.int32)})  # fmt: skip
    graph_tasks._HELD[("r", 0, 1)] = held
    try:  # the same shard held in this process: its inbox, for round 3
        assert graph_tasks._post(tmp_path, "r", 0, 2, 1, 0, node, lost) is None
        assert [len(m[0]) for m in held.inbox[3]] == [3]
    finally:
        graph_tasks._HELD.clear()


# --- several tiers: moves into a later tier answered from its answers -------------------------


def answers_by_node(root: Path, tier_of: np.ndarray) -> Answers:
    """Every node's label and remoteness in global id order (tier ``k`` numbers its nodes
    from 0 in id order)."""
    m = load_manifest(root)
    order = np.argsort(tier_of, kind="stable")
    label = np.empty(len(tier_of), dtype=np.int8)
    rem = np.empty(len(tier_of), dtype=np.int32)
    at = 0
    for t in m.tiers:
        for s in t.shards:
            lab, r = read_answers(root, t.tier, s.shard, s.answers_sha256, s.positions)
            label[order[at : at + len(lab)]], rem[order[at : at + len(lab)]] = lab, r
            at += len(lab)
    assert at == len(tier_of)
    return label, rem


def forward_only(case: Case, tier_of: np.ndarray) -> Case:
    """``case``'s graph without the moves from a tier back to an earlier one."""
    g = case.graph
    src = np.repeat(np.arange(g.n), np.diff(g.succ_ptr))
    keep = tier_of[g.succ_idx] >= tier_of[src]
    ptr = np.zeros(g.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src[keep], minlength=g.n), out=ptr[1:])
    graph = GameGraph(
        semantics=Semantics.NORMAL,
        succ_ptr=ptr,
        succ_idx=np.asarray(g.succ_idx)[keep],
        owner=np.full(g.n, -1, dtype=np.int8),
        value=np.asarray(g.value),
        target=np.zeros(g.n, dtype=np.bool_),
    )
    return Case(graph=graph, id="forward")


HAND_TIER_1 = {"c", "e", "f", "g", "w", "x5", "x6", "x7", "x8", "x9"}


@pytest.mark.dask
@pytest.mark.parametrize("shards", [1, 3])
def test_hand_made_graph_in_two_tiers(client: Any, tmp_path: Path, shards: int) -> None:
    names = [HAND.names[i] for i in range(HAND.n)]
    tier_of = np.array([int(x in HAND_TIER_1) for x in names])
    root = tmp_path / "ds"
    prepare_output(root)
    m = dataset_from_graph(root, HAND, client, shards=shards, tier_of=tier_of)
    assert len(m.tiers) == 2 and sum(s.exits or 0 for s in m.tiers[0].shards) == 9
    res = solve_dataset(root, client)
    assert res.tiers_solved == 2
    want = (
        np.array([BY_HAND[x][0] for x in names], dtype=np.int8),
        np.array([BY_HAND[x][1] for x in names], dtype=np.int32),
    )
    assert_same(answers_by_node(root, tier_of), want)


@pytest.mark.dask
@pytest.mark.parametrize(("tiers", "seed", "shards"), [(2, 1, 1), (3, 2, 4), (4, 3, 9)])
def test_random_tiered_graphs_equal_the_in_memory_solver(
    client: Any, tmp_path: Path, tiers: int, seed: int, shards: int
) -> None:
    case = random_case("normal", 2000, 3.0, seed)
    tier_of = np.random.default_rng(seed).integers(0, tiers, case.graph.n)
    case = forward_only(case, tier_of)
    root = tmp_path / "ds"
    prepare_output(root)
    dataset_from_graph(root, case.graph, client, shards=shards, tier_of=tier_of)
    part = solve_dataset(root, client, stop_after=1)  # a run that stopped after tier 1
    assert part.tiers_solved == tiers - 1
    res = solve_dataset(root, client, resume=True)
    assert res.tiers_solved == 1
    want = in_memory(case)
    assert_same(answers_by_node(root, tier_of), want)
    assert (want[0] != 0).sum() > 200


@pytest.mark.dask
def test_a_move_back_to_an_earlier_tier_is_refused(client: Any, tmp_path: Path) -> None:
    names = [HAND.names[i] for i in range(HAND.n)]
    tier_of = np.array([int(x not in {"a", "c"}) for x in names])  # b -> a goes back
    with pytest.raises(DatasetError, match="from tier 1 back to tier 0"):
        dataset_from_graph(tmp_path / "ds", HAND, client, shards=2, tier_of=tier_of)


# --- generation on the workers --------------------------------------------------------------


@pytest.mark.dask
def test_workers_draw_a_seeded_random_graph(client: Any, tmp_path: Path) -> None:
    spec = GraphTiers(20_000, 0, seed=7, degree=3.0, terminal_fraction=0.1,
                      terminal_values="-1,0,1")  # fmt: skip
    a, b = tmp_path / "a", tmp_path / "b"
    for root in (a, b):
        prepare_output(root)
        generate_random_graph(root, spec, client, per_shard=6_000)
    ma, mb = load_manifest(a), load_manifest(b)
    assert ma.generated and len(ma.tiers[0].shards) == 4
    assert ma.to_json() == mb.to_json()  # same seed and shards, same files (digests)
    case = graph_of(a)
    g = case.graph
    dead = np.diff(g.succ_ptr) == 0
    assert 0.08 < dead.mean() < 0.12  # random_case's terminal fraction
    assert 2.9 < g.m / g.n <= 3.0  # degree 3, repeats dropped
    owner = g.succ_idx * 4 // g.n
    assert np.bincount(owner, minlength=4).min() > g.m // 5  # targets over all shards
    src = np.repeat(np.arange(g.n), np.diff(g.succ_ptr))
    assert (src == g.succ_idx).any()  # self loops kept
    terminal = g.value[dead]
    assert set(np.unique(terminal)) == {-1.0, 0.0, 1.0}
    res = solve_dataset(a, client)
    assert_same(answers(a), in_memory(case))
    assert res.manifest.tiers[0].drawn is not None


# --- the command line, resume, failures ------------------------------------------------------


@pytest.mark.dask
def test_cli_generates_and_solves_a_random_graph_then_resumes(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VERIFIER_PROGRESS_EVERY", "5")  # the stages' lines, stderr not a terminal
    root = tmp_path / "g"
    addr = client.scheduler.address
    opts = ("--engine", "dask", "--scheduler", addr)
    r = run_cli("generate", "random", "--nodes", 3000, "--degree", 2, "--seed", 3, "-o", root,
                *opts, "--shard-positions", 1000)  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "3,000 nodes" in r.output and "3 shards" in r.output
    r = run_cli("solve", root, *opts)
    assert r.exit_code == 0, r.output
    assert "value: node 0:" in r.output
    ran = re.findall(r"tier 0: round (\d+):", r.output)  # a line per round, its number
    assert len(ran) > 2 and f"tier 0: {len(ran)} retrograde rounds" in r.output
    assert_same(answers(root), in_memory(graph_of(root)))
    r = run_cli("solve", root, *opts, "--resume", "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output[r.output.index("{") :])
    assert doc["tiers_solved_now"] == 0 and doc["game"] == "graph"
    assert doc["parameters"]["sharding"] == "node-id range"

    case = tmp_path / "x.npz"
    assert run_cli("generate", "random", "--nodes", 500, "--seed", 2, "-o", case).exit_code == 0
    r = run_cli("generate", case, "-o", tmp_path / "x", *opts, "--shard-positions", 100)
    assert r.exit_code == 0, r.output
    r = run_cli("solve", tmp_path / "x", *opts)
    assert r.exit_code == 0, r.output
    assert_same(answers(tmp_path / "x"), in_memory(random_case("normal", 500, 3.0, 2)))


@pytest.mark.dask
def test_bad_input_is_one_line(client: Any, tmp_path: Path) -> None:
    addr = client.scheduler.address
    opts = ("--engine", "dask", "--scheduler", addr)
    r = run_cli("generate", "random", "--semantics", "misere", "-o", tmp_path / "m", *opts)
    one_line_error(r, 2, "--semantics 'misere'", "minimax")
    r = run_cli("generate", "random", "--terminal-values", "2", "-o", tmp_path / "v", *opts)
    one_line_error(r, 2, "normal labels must be among -1, 0, 1")
    one_line_error(run_cli("generate", tmp_path / "no.npz", "-o", tmp_path / "n", *opts), 2,
                   "no.npz")  # fmt: skip

    root = stored(tmp_path / "ds", HAND, client, 3)
    path = edges_path(root, 0, 1)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    one_line_error(run_cli("solve", root, *opts), 2, str(path), "corrupt", "sha256")
    manifest = root / "manifest.json"
    doc = json.loads(manifest.read_text())
    doc["game"] = "hex"
    manifest.write_text(json.dumps(doc))
    one_line_error(run_cli("solve", root, *opts), 2, "manifest.json", "'hex'", "graph")
    with pytest.raises(DatasetError, match=r"semantics minimax: .* one tier"):
        dataset_from_graph(tmp_path / "mm", random_case("minimax", 20, 2.0, 1).graph, client,
                           shards=2, tier_of=np.zeros(20, dtype=np.int64))  # fmt: skip


@pytest.mark.dask
def test_a_worker_killed_mid_solve_fails_the_run_then_resume_finishes(tmp_path: Path) -> None:
    case = random_case("normal", 5000, 2.0, 5)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None, memory_limit="1GB",
        ) as cluster,
        distributed.Client(cluster) as c,
    ):  # fmt: skip
        root = stored(tmp_path / "ds", case.graph, c, 6)
        pid = next(iter(c.run(os.getpid).values()))

        def kill_at(line: str) -> None:
            if line.startswith("tier 0: round 2:"):  # between two rounds of the tier
                os.kill(pid, signal.SIGKILL)

        t0 = time.monotonic()
        with pytest.raises(
            RunFailed, match=r"worker tcp://\S+ left the cluster while solving tier 0"
        ):
            solve_dataset(root, c, say=kill_at, poll=0.2)
        assert time.monotonic() - t0 < 30
        assert not load_manifest(root).tiers[0].solved
        assert not answers_path(root, 0, 0).exists()
        c.wait_for_workers(2, timeout=30)  # the nanny restarts the killed worker
        r = run_cli("solve", root, "--engine", "dask", "--scheduler", cluster.scheduler_address,
                    "--resume")  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "1 tier(s) solved by this run" in r.output
    assert_same(answers(root), in_memory(case))


# --- judging the answers of a stored graph (verify DIR --engine dask) -------------------------


def table_of(folder: Path, node: np.ndarray, cols: dict[str, np.ndarray]) -> Path:
    """A stranger's table keyed by node id, in two files, -1 written as null."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    for k, rows in enumerate(np.array_split(np.arange(len(node)), 2)):
        out = {"code": pa.array(node[rows])}
        for name, col in cols.items():
            part = col[rows]
            out[name] = pa.array(part, mask=part == -1) if name != "value" else pa.array(part)
        pq.write_table(pa.table(out), folder / f"part-{k}.parquet")
    return folder


@pytest.mark.dask
def test_a_stored_graphs_answers_are_judged(client: Any, tmp_path: Path) -> None:
    from verifier.distributed.tiers.check import check_dataset

    case = random_case("normal", 3000, 2.0, 5)
    root = stored(tmp_path / "ds", case.graph, client, shards=5)
    solve_dataset(root, client)
    res = check_dataset(root, client)
    assert res.verdict == "verified" and "remoteness checked" in res.proof
    # the dataset's own answers rewritten wrong (the digest updated, so only the check can tell)
    from verifier.dataset.storage import write_answers

    m = load_manifest(root)
    entry = m.tiers[0].shards[2]
    own = read_answers(root, 0, 2, entry.answers_sha256, entry.positions)
    for flip in ("label", "remoteness"):
        lab, r = own[0].copy(), own[1].copy()
        i = int(np.flatnonzero(lab == -1)[1])
        if flip == "label":
            lab[i] = 0
        else:
            r[i] += 1
        entry.answers_sha256 = write_answers(root, 0, 2, (lab, r))
        m.save(root)
        assert check_dataset(root, client).verdict == "refuted", flip
    entry.answers_sha256 = write_answers(root, 0, 2, own)
    m.save(root)
    label, rem = in_memory(case)
    node = np.arange(case.graph.n, dtype=np.int64)
    full = {"value": label.astype(np.int64), "remoteness": rem.astype(np.int64)}
    assert check_dataset(root, client, answers=table_of(tmp_path / "t", node, full)).verdict == (
        "verified"
    )
    # labels alone on a graph with cycles prove nothing when they break no rule
    alone = check_dataset(
        root, client, answers=table_of(tmp_path / "l", node, {"value": full["value"]})
    )
    assert alone.verdict == "inconclusive" and "cycle" in (alone.inconclusive or "")
    for what, i, into in (("value", np.flatnonzero(label == 1)[3], 0),
                          ("remoteness", np.flatnonzero(label == -1)[4], 9)):  # fmt: skip
        bad = {k: v.copy() for k, v in full.items()}
        bad[what][i] = into
        res = check_dataset(root, client, answers=table_of(tmp_path / what, node, bad))
        assert res.verdict == "refuted", what


@pytest.mark.dask
def test_a_cycle_that_justifies_itself_is_inconclusive_without_remoteness(
    client: Any, tmp_path: Path
) -> None:
    """a <-> b alone: both drawn. Claimed a won, b lost, every rule holds (a reaches b, lost;
    b's only move reaches a, won): the labels cannot be told from the truth; the remoteness the
    claim needs (a: 1 + b's, b: 1 + a's) cannot be given, so any is refuted."""
    from verifier.distributed.tiers.check import check_dataset

    cyc = GameGraph.from_successors({"a": ["b"], "b": ["a"]}, semantics=Semantics.NORMAL)
    root = stored(tmp_path / "ds", cyc, client, shards=2)
    solve_dataset(root, client)
    assert check_dataset(root, client).verdict == "verified"  # both drawn
    node = np.array([0, 1], dtype=np.int64)
    lie = {"value": np.array([1, -1], dtype=np.int64)}
    res = check_dataset(root, client, answers=table_of(tmp_path / "lie", node, lie))
    assert res.verdict == "inconclusive"
    for rems in ([1, 0], [3, 2], [1, 2]):
        told = {**lie, "remoteness": np.array(rems, dtype=np.int64)}
        res = check_dataset(root, client, answers=table_of(tmp_path / f"r{rems}", node, told))
        assert res.verdict == "refuted", rems


@pytest.mark.dask
def test_a_graph_in_several_tiers_is_judged_across_them(client: Any, tmp_path: Path) -> None:
    from verifier.distributed.tiers.check import check_dataset

    names = [HAND.names[i] for i in range(HAND.n)]
    tier_of = np.array([int(x in HAND_TIER_1) for x in names])
    root = tmp_path / "ds"
    prepare_output(root)
    dataset_from_graph(root, HAND, client, shards=3, tier_of=tier_of)
    solve_dataset(root, client)
    assert check_dataset(root, client).verdict == "verified"
    r = run_cli("verify", root, "--engine", "dask", "--scheduler", client.scheduler.address)
    assert r.exit_code == 0 and dataset_verdict(r)[0] == "VERIFIED", r.output
    assert dataset_verdict(r)[1] == (
        "node 0: the player to move loses in 2 plies (the longest defence)"
    ), r.output
    with pytest.raises(DatasetError, match="cannot say which tier"):
        check_dataset(
            root,
            client,
            answers=table_of(tmp_path / "t", np.arange(3), {"value": np.zeros(3, np.int64)}),
        )


@pytest.mark.dask
def test_a_stopped_graph_generation_is_marked_and_run_again(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A generation that stops leaves its directory marked as unfinished: ``solve`` says so in
    one line, and the same command with ``--force`` clears it (not "not a tiered dataset")."""
    from verifier.distributed.tiers import graph_generate

    def stop(*_: Any) -> Any:
        raise RunFailed("the run stopped")

    root = tmp_path / "g"
    opts = ("--engine", "dask", "--scheduler", client.scheduler.address)
    make = ("generate", "random", "--semantics", "normal", "--nodes", 3000, "-o", root, *opts)
    monkeypatch.setattr(graph_generate, "_finish", stop)
    one_line_error(run_cli(*make), 3, "the run stopped")
    monkeypatch.undo()
    one_line_error(run_cli("solve", root, *opts), 2, "generation did not finish", "--force")
    one_line_error(run_cli(*make, "--resume"), 2, "not a graph's", "run again with --force")
    r = run_cli(*make, "--force")
    assert r.exit_code == 0, r.output
    assert load_manifest(root).generated


# --- the dataset itself: node ids, moves to existing nodes, counts --------------------------


@pytest.mark.dask
def test_a_stored_graph_unlike_its_manifest_is_refuted(client: Any, tmp_path: Path) -> None:
    """Each change made as a forger would (digests and sizes recomputed): a node id twice (the
    next one lost), the manifest's nodes, edges and per-tier counts altered; a move to a node
    no shard holds is one line."""
    import shutil

    from verifier.dataset.graph_storage import write_edges, write_nodes

    case = random_case("normal", 600, 2.0, 5)
    root = stored(tmp_path / "ds", case.graph, client, shards=3)
    solve_dataset(root, client)
    addr = ("--engine", "dask", "--scheduler", client.scheduler.address)
    r = run_cli("verify", root, *addr)
    assert r.exit_code == 0 and "  dataset     ok" in r.output and "  counts      ok" in r.output

    def copy(name: str) -> tuple[Path, Any]:
        out = tmp_path / name
        shutil.copytree(root, out)
        return out, load_manifest(out)

    def refuted(at: Path, check: str, *words: str) -> None:
        r = run_cli("verify", at, *addr)
        assert r.exit_code == 1 and "Traceback" not in r.output, r.output
        line = next(x for x in r.output.splitlines() if x.startswith(f"  {check} "))
        for w in words:
            assert w in line, line

    twice, m = copy("twice")
    s = m.tiers[0].shards[1]
    codes, terminal = read_nodes(twice, 0, 1, s.sha256, s.positions)
    codes = codes.copy()
    codes[7] = codes[6]
    s.sha256 = write_nodes(twice, 0, 1, codes, terminal)
    m.save(twice)
    lo = int(codes[0])
    refuted(twice, "dataset", f"node {lo + 6} in tier 0", f"row 7 is {lo + 6}, not {lo + 7}")

    for key, delta in (("nodes", 1), ("edges", -2)):
        alt, m = copy(key)
        m.parameters[key] += delta
        m.save(alt)
        said = {"nodes": 601, "edges": m.parameters["edges"]}[key]
        refuted(alt, "counts", f"the manifest says {key} {said}", f"$.parameters.{key}")
    won, m = copy("won")
    m.tiers[0].won = (m.tiers[0].won or 0) + 1
    m.save(won)
    refuted(won, "counts", "first in tier 0: the manifest says won", "$.tiers[0].won")

    far, m = copy("far")
    s = m.tiers[0].shards[2]
    src, dst = read_edges(far, 0, 2, s.edges_sha256, s.edges)
    dst = dst.copy()
    dst[0] = 600 + 5
    s.edges_sha256 = write_edges(far, 0, 2, src, dst)
    m.save(far)
    one_line_error(run_cli("verify", far, *addr), 2, "node 605 of tier 0", "which no shard holds")
