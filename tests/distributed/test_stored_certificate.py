"""A stored graph's certificate judged by the standalone checker (``checker/stored.py``, issue
46): random graphs of each semantics in 3 shards accepted; an answer value, a remoteness (rank,
height), an edge removed or duplicated and a count each rejected naming the node and the
condition, the digests written again after the corruption (so that only a condition can catch
it); each condition turned off lets its corruption through; ``verify DIR --engine dask`` runs
the checker before VERIFIED."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import certified
import numpy as np
import pytest
from tier_cli import run_cli

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from checker import stored
from checker.stored import ANSWERS
from verifier.dataset import certificate as writer
from verifier.dataset.graph_storage import read_edges, write_edges
from verifier.dataset.manifest import load_manifest
from verifier.dataset.storage import read_rule_answers, write_rule_answers
from verifier.distributed.tiers.driver import prepare_output, solve_dataset
from verifier.distributed.tiers.graph_generate import dataset_from_graph
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


def judged(root: Path, *weak: str, jobs: int = 1) -> Any:
    return certified.judged(root, *weak, out=root.parent / f"{root.name}.cert.json", jobs=jobs)


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
    assert "np." not in got.message  # plain numbers for people, not numpy's reprs
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


def test_the_checker_holds_a_shard_and_what_it_reaches_not_the_graph(
    client: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """A graph in 6 shards: each job holds its shard's files and the answers its moves reach
    (with no cache: one other shard's answers at a time), never every shard at once; with
    the default cache, the answers kept but not the other shards' nodes and moves."""
    root = tmp_path / "six"
    prepare_output(root)
    dataset_from_graph(root, random_case("normal", 600, 2.0, 3).graph, client, shards=6)
    solve_dataset(root, client)
    assert judged(root).status == "ACCEPTED"
    kept = dict(stored.PEAK)
    assert 2 <= kept["shards"] <= 6 and kept["bytes"] < kept["graph"] / 2, kept
    monkeypatch.setenv("CHECKER_CACHE_BYTES", "0")
    assert judged(root).status == "ACCEPTED"
    assert stored.PEAK["shards"] == 2 and stored.PEAK["graph"] == kept["graph"], stored.PEAK
    assert stored.PEAK["bytes"] < kept["graph"] / 3, stored.PEAK


def test_jobs_2_gives_the_verdict_of_jobs_1(made: dict[str, Path], tmp_path: Path) -> None:
    """Accepted, a wrong answer in shards 2 and 0 (node order: shard 0's reported), an edge
    twice in shard 2 beside them (well formed first: shard 2's edges reported): the same
    verdict with two worker processes as with one."""
    one = judged(made["minimax"])
    assert one.status == "ACCEPTED" and judged(made["minimax"], jobs=2) == one
    root = copy(made, "normal", tmp_path)
    bounds, a = answers(root)
    for j in (2, 0):
        x = int(np.flatnonzero(a["label"][bounds[j] : bounds[j + 1]] != 0)[0]) + bounds[j]
        set_answer(root, x, "label", -a["label"][x])
    one = judged(root)
    assert one.status == "REJECTED" and one.code < bounds[1], one.message
    assert judged(root, jobs=2) == one
    set_edges(root, 2, lambda s, d: (np.insert(s, 3, s[3]), np.insert(d, 3, d[3])))
    one = judged(root)
    assert (one.status, one.condition) == ("REJECTED", "edges") and "shard 2" in one.message
    assert judged(root, jobs=2) == one


def test_the_script_judges_in_2_processes_with_a_line_per_tier(
    made: dict[str, Path], tmp_path: Path
) -> None:
    """``check_certificate.py DIR CERT --jobs 2 --progress``: ACCEPTED, a progress line per
    tier on stderr; without ``--progress`` (stderr not a terminal) nothing there."""
    cert = writer.write_certificate(made["normal"], tmp_path / "c.json")
    script = Path(__file__).parents[2] / "checker" / "check_certificate.py"
    run = [sys.executable, str(script), str(made["normal"]), str(cert), "--jobs", "2"]
    env = {k: v for k, v in os.environ.items() if k != "CHECKER_PROGRESS"}
    shown = subprocess.run([*run, "--progress"], capture_output=True, text=True, env=env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == "ACCEPTED (120 nodes of a stored graph, normal)\n"
    lines = shown.stderr.splitlines()
    assert lines[0].startswith("checker: tier 0/1: 3 shards judged: 120 positions after "), lines
    assert len(lines) == 2 and lines[1].startswith("checker: done: 120 positions after ")
    quiet = subprocess.run(run, capture_output=True, text=True, env=env)
    assert (quiet.returncode, quiet.stderr) == (0, ""), quiet.stderr


def test_verify_says_a_refuted_datasets_certificate_is_not_written(
    client: Any, made: dict[str, Path], tmp_path: Path
) -> None:
    root, _, _ = corrupted(made, tmp_path, "normal-label")
    out = tmp_path / "refuted.cert.json"
    address = client.scheduler.address
    r = run_cli("verify", root, "--engine", "dask", "--scheduler", address, "--certificate", out)
    assert r.exit_code == 1 and "REFUTED" in r.output, r.output
    assert f"{out}: certificate not written: the dataset is REFUTED" in r.output
    assert not out.exists()
    r = run_cli("verify", made["normal"], "--engine", "dask", "--scheduler", address,
                "--certificate", out)  # fmt: skip
    assert r.exit_code == 0 and out.exists() and "not written" not in r.output, r.output
