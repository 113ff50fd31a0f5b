"""A stored graph's certificate judged by the standalone checker (``checker/stored.py``, issue
46): random graphs of each semantics in 3 shards accepted; an answer value, a remoteness (rank,
height), an edge removed or duplicated and a count each rejected naming the node and the
condition, the digests written again after the corruption (so that only a condition can catch
it); each condition turned off lets its corruption through; ``verify DIR --engine dask`` runs
the checker before VERIFIED."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import certified
import numpy as np
import pytest
from tier_cli import run_cli

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from checker.stored import ANSWERS
from verifier.distributed.tiers import certificate as writer
from verifier.distributed.tiers.driver import prepare_output, solve_dataset
from verifier.distributed.tiers.graph_generate import dataset_from_graph
from verifier.distributed.tiers.graph_storage import read_edges, write_edges
from verifier.distributed.tiers.manifest import load_manifest
from verifier.distributed.tiers.storage import read_rule_answers, write_rule_answers
from verifier.games.random_graphs import random_case

pytestmark = [pytest.mark.dask, pytest.mark.filterwarnings("ignore:Port 8787 is already in use")]
SEMANTICS = ("normal", "reachability", "minimax", "impartial")


@pytest.fixture(scope="module")
def made(client: Any, tmp_path_factory: Any) -> dict[str, Path]:
    """A random graph of 120 nodes of each semantics in 3 shards, solved (cycles and
    self-loops but under impartial, which values acyclic graphs only)."""
    out = {}
    for sem in SEMANTICS:
        root = tmp_path_factory.mktemp("g") / sem
        g = random_case(sem, 120, 2.0, 7, acyclic=sem == "impartial").graph
        prepare_output(root)
        dataset_from_graph(root, g, client, shards=3)
        solve_dataset(root, client)
        out[sem] = root
    return out


def copy(made: dict[str, Path], sem: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(made[sem], tmp_path / sem))


def judged(root: Path, *weak: str) -> Any:
    return certified.judged(root, *weak, out=root.parent / f"{root.name}.cert.json")


def answers(root: Path) -> tuple[list[int], dict[str, np.ndarray]]:
    m = load_manifest(root)
    cols = ANSWERS[m.semantics]
    got = [read_rule_answers(root, 0, s.shard, None, s.positions, cols) for s in m.tiers[0].shards]
    bounds = list(np.cumsum([0, *(s.positions for s in m.tiers[0].shards)]))
    return bounds, {c: np.concatenate([g[c] for g in got]) for c in cols}


def set_answer(root: Path, node: int, column: str, value: Any) -> None:
    """One answer changed, its file's digest written into the manifest (the counts kept)."""
    bounds, a = answers(root)
    j = int(np.searchsorted(bounds, node, side="right") - 1)
    m = load_manifest(root)
    cols = {c: np.array(v[bounds[j] : bounds[j + 1]]) for c, v in a.items()}
    cols[column][node - bounds[j]] = value
    m.tiers[0].shards[j].answers_sha256 = write_rule_answers(root, 0, j, cols)
    m.save(root)


def set_edges(root: Path, j: int, change: Callable[[Any, Any], tuple[Any, Any]]) -> None:
    """Shard ``j``'s edges changed, their digest and count written into the manifest."""
    m = load_manifest(root)
    s = m.tiers[0].shards[j]
    src, dst = change(*read_edges(root, 0, j, None, None))
    s.edges_sha256, s.edges = write_edges(root, 0, j, src, dst), len(src)
    m.save(root)


def a_node(root: Path, column: str, want: Callable[[Any], Any]) -> int:
    return int(np.flatnonzero(want(answers(root)[1][column]))[0])


# Each corruption: (semantics, column, which node, new value from the old, conditions).
CORRUPT = {
    "normal-label": ("normal", "label", lambda v: v != 0, lambda v: -v, {"N1", "N2", "N3"}),
    "normal-remoteness": (
        "normal",
        "remoteness",
        lambda v: v > 0,
        lambda v: v + 1,
        {"N1", "N2", "N3"},
    ),
    "reach-label": ("reachability", "label", lambda v: v == 1, lambda v: -v, {"region"}),
    "reach-layer": ("reachability", "remoteness", lambda v: v > 0, lambda v: v + 1, {"layers"}),
    "minimax-score": ("minimax", "score", lambda v: v == 1, lambda v: v - 2, {"scores"}),
    "minimax-rank": ("minimax", "rank", lambda v: v > 0, lambda v: -1, {"ranks"}),
    "impartial-value": ("impartial", "grundy", lambda v: v >= 0, lambda v: v + 1, {"mex"}),
    "impartial-height": ("impartial", "remoteness", lambda v: v > 0, lambda v: v + 1, {"heights"}),
}


def corrupted(made: dict[str, Path], tmp_path: Path, name: str) -> tuple[Path, int, set[str]]:
    sem, column, which, new, conds = CORRUPT[name]
    root = copy(made, sem, tmp_path)
    x = a_node(root, column, which)
    set_answer(root, x, column, new(answers(root)[1][column][x]))
    return root, x, conds


def test_each_semantics_is_accepted(made: dict[str, Path]) -> None:
    for sem in SEMANTICS:
        got = judged(made[sem])
        assert got.status == "ACCEPTED", got.message
        assert got.message == f"ACCEPTED (120 nodes of a stored graph, {sem})"
        assert json.loads(Path(f"{made[sem]}.cert.json").read_text())["semantics"] == sem


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_each_corrupted_answer_is_rejected_naming_the_node(
    made: dict[str, Path], tmp_path: Path, name: str
) -> None:
    root, x, conds = corrupted(made, tmp_path, name)
    got = judged(root)
    assert got.status == "REJECTED" and got.condition in conds, got.message
    assert got.position == f"node {got.code}" and f"node {got.code}: {got.condition}" in got.message
    assert (
        got.condition in ("N1", "N2", "N3") or got.code <= x
    )  # its own, or a predecessor before it


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_each_condition_turned_off_lets_its_corruption_through(
    made: dict[str, Path], tmp_path: Path, name: str
) -> None:
    """Turn off what rejects the corruption, condition by condition, until it is accepted:
    the condition aimed at it is among them (so it matters), and nothing else catches it."""
    root, _, conds = corrupted(made, tmp_path, name)
    off: list[str] = []
    while (got := judged(root, *off)).status == "REJECTED":
        assert got.condition not in off and len(off) < 4, got.message
        off.append(got.condition)
    assert got.status == "ACCEPTED" and conds & set(off), (off, got.message)


def test_an_edge_duplicated_or_removed_is_rejected(made: dict[str, Path], tmp_path: Path) -> None:
    root = copy(made, "normal", tmp_path)
    set_edges(root, 1, lambda s, d: (np.insert(s, 3, s[3]), np.insert(d, 3, d[3])))
    got = judged(root)
    assert (got.status, got.condition) == ("REJECTED", "edges"), got.message
    assert judged(root, "edges").status == "ACCEPTED"
    root = copy(made, "normal", tmp_path / "removed")
    src, _ = read_edges(root, 0, 1, None, None)
    _, a = answers(root)
    once = [int(v) for v in np.unique(src) if (src == v).sum() == 1 and a["label"][v] != 0]
    keep = src != once[0]
    set_edges(root, 1, lambda s, d: (s[keep], d[keep]))
    got = judged(root)
    assert got.status == "REJECTED" and got.condition == "N1", got.message
    assert f"node {once[0]}" in got.message


def test_a_count_is_rejected(made: dict[str, Path], tmp_path: Path) -> None:
    root = copy(made, "minimax", tmp_path)
    kept = writer.certificate_of

    def wrong(r: Path, m: Any = None) -> dict[str, Any]:
        doc = kept(r, m)
        doc["tiers"][0]["drawn"] += 1
        return doc

    writer.certificate_of = wrong  # type: ignore[assignment]
    try:
        got = judged(root)
        assert got.status == "REJECTED" and got.condition == "counts", got.message
        assert "drawn: the certificate says" in got.message
        assert judged(root, "counts").condition == "manifest"
    finally:
        writer.certificate_of = kept  # type: ignore[assignment]


def test_verify_runs_the_checker_on_a_stored_graph(
    client: Any, made: dict[str, Path], tmp_path: Path
) -> None:
    address = client.scheduler.address
    for sem in ("reachability", "impartial"):
        r = run_cli("verify", made[sem], "--engine", "dask", "--scheduler", address)
        assert r.exit_code == 0 and "  certificate ok" in r.output and "VERIFIED" in r.output
    root, _, _ = corrupted(made, tmp_path, "minimax-rank")
    out = tmp_path / "c.json"
    r = run_cli(
        "check-certificate", made["minimax"], writer.write_certificate(made["minimax"], out)
    )
    assert r.exit_code == 0 and "ACCEPTED (120 nodes" in r.output
    r = run_cli("check-certificate", root, writer.write_certificate(root, tmp_path / "bad.json"))
    assert r.exit_code == 1 and "ranks" in r.output, r.output
