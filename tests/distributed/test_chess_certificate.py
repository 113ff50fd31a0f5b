"""A chess endgame dataset's certificate judged by the standalone checker (``checker/chess.py``,
python-chess its move generator, issue 46): KQK up to symmetry in two shards a tier accepted
(without symmetry under ``-m slow``); a stored move removed, a move added to a target no legal
move reaches, a position replaced by an illegal one or by a non-canonical image, a terminal
flag changed and a label changed each rejected naming the position's FEN and the condition,
the digests written again after the corruption (so that only a condition can catch it); each
new condition turned off lets its corruption through; the chess conditions judged shard by
shard (a job holds one shard's moves, not the graph's) with the same first violation for any
``--jobs``; ``verify DIR --engine dask`` runs the checker before VERIFIED, and says so where
python-chess is missing."""

from __future__ import annotations

import json
import shutil
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
pytest.importorskip("chess")

from checker import chess
from checker.chess import Materials
from verifier.dataset.graph_storage import GRAPH_CODEC, read_edges, write_edges
from verifier.dataset.manifest import load_manifest
from verifier.dataset.storage import (
    read_answers,
    read_parquet,
    shard_path,
    write_answers,
    write_parquet,
)
from verifier.distributed.tiers.driver import prepare_output, solve_dataset
from verifier.games.tiered.chess import generate_chess

pytestmark = [pytest.mark.dask, pytest.mark.filterwarnings("ignore:Port 8787 is already in use")]
NODES = {"code": "uint64", "terminal": "int8", "position": "uint64"}


def made_kqk(client: Any, root: Path, symmetric: bool) -> Path:
    prepare_output(root)
    generate_chess(root, "KQK", client, symmetric=symmetric, shards=2)
    solve_dataset(root, client)
    return root


@pytest.fixture(scope="module")
def kqk(client: Any, tmp_path_factory: Any) -> Path:
    """KQK up to the board's symmetries (47,061 classes in KQK and KK), two shards a tier."""
    return made_kqk(client, tmp_path_factory.mktemp("c") / "kqk", True)


def judged(root: Path, *weak: str, jobs: int = 1) -> Any:
    return certified.judged(root, *weak, out=root.parent / f"{root.name}.cert.json", jobs=jobs)


def copy(kqk: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(kqk, tmp_path / "kqk"))


def nodes(root: Path, j: int = 0) -> dict[str, Any]:
    return read_parquet(shard_path(root, 0, j), None, NODES)


def set_nodes(root: Path, change: Callable[[dict[str, Any]], None], j: int = 0) -> None:
    """Tier 0 shard ``j``'s nodes file changed, its digest written into the manifest."""
    cols = {c: np.array(v) for c, v in nodes(root, j).items()}
    change(cols)
    m = load_manifest(root)
    m.tiers[0].shards[j].sha256 = write_parquet(shard_path(root, 0, j), cols, GRAPH_CODEC)
    m.save(root)


def set_edges(root: Path, change: Callable[[Any, Any], tuple[Any, Any]]) -> None:
    """Tier 0 shard 0's edges changed, their digest and count written into the manifest."""
    m = load_manifest(root)
    s = m.tiers[0].shards[0]
    src, dst = change(*read_edges(root, 0, 0, None, None))
    s.edges_sha256, s.edges = write_edges(root, 0, 0, src, dst), len(src)
    m.save(root)


def fen(root: Path, node: int) -> str:
    pos = np.concatenate([nodes(root, j)["position"] for j in range(2)])
    return Materials("KQK", True).fens(0, pos[node : node + 1])[0]


def remove_a_move(root: Path) -> int:
    src, _ = read_edges(root, 0, 0, None, None)
    x = int(src[0])
    keep = np.arange(len(src)) != 0
    set_edges(root, lambda s, d: (s[keep], d[keep]))
    return x


def add_a_move(root: Path) -> int:
    """A move from node 0 to a node of tier 0 none of its moves reaches (KQK to KQK: the same
    side to move is never a legal move's target)."""
    src, dst = read_edges(root, 0, 0, None, None)
    pos = nodes(root)["position"]
    mover = (pos.astype(np.int64) >> 18) & 1  # KQK: 3 men, the side to move above 18 bits
    y = int(np.flatnonzero(mover == mover[0])[1])
    at = int(np.searchsorted(dst[src == 0], y))
    s, d = np.insert(src, at, np.uint64(0)), np.insert(dst, at, np.uint64(y))
    set_edges(root, lambda *_: (s, d))
    return 0


def illegal_position(root: Path) -> int:
    """Node 1's position: White's king a1, queen c3, Black's king b2, White to move (the kings
    side by side), canonical."""
    m = Materials("KQK", True)
    sq = np.array([[0, 18, 9]])
    code = int(m.canonical(0, sq, np.zeros(1, np.int64), np.zeros(1, np.int64))[0])
    set_nodes(root, lambda c: c["position"].__setitem__(1, code))
    return 1


def not_canonical(root: Path) -> int:
    """A position replaced by its image under a symmetry (legal, the same moves up to symmetry,
    not the least code of its class)."""
    m = Materials("KQK", True)
    pos = nodes(root)["position"]
    sq, side, ep = m.decoded(0, pos)
    image = m.codec._image((0, 0, 1), m.men[0], sq.copy(), side, ep)  # files mirrored
    x = int(np.flatnonzero(image != pos.astype(np.int64))[0])
    set_nodes(root, lambda c: c["position"].__setitem__(x, image[x]))
    return x


def mated_to_drawn(root: Path) -> int:
    """The first mated position of tier 0 (in either shard) stored as a drawn dead end."""
    j = next(j for j in range(2) if (nodes(root, j)["terminal"] == -1).any())
    cols = nodes(root, j)
    x = int(np.flatnonzero(cols["terminal"] == -1)[0])
    set_nodes(root, lambda c: c["terminal"].__setitem__(x, 0), j)
    return int(cols["code"][x])


def label_flipped(root: Path) -> int:
    m = load_manifest(root)
    s = m.tiers[0].shards[0]
    label, rem = (np.array(a) for a in read_answers(root, 0, 0, None, s.positions))
    x = int(np.flatnonzero(label == 1)[0])
    label[x] = -1
    s.answers_sha256 = write_answers(root, 0, 0, (label, rem))
    m.save(root)
    return x


# Each corruption: what it does (its node), the conditions aimed at it.
CORRUPT: dict[str, tuple[Callable[[Path], int], set[str], str]] = {
    "move-removed": (remove_a_move, {"moves"}, "is not among its stored moves"),
    "move-added": (add_a_move, {"moves"}, "is no legal move"),
    "illegal": (illegal_position, {"position"}, "python-chess: not a legal position"),
    "not-canonical": (not_canonical, {"canonical", "complete"}, "an image of it has"),
    "terminal": (mated_to_drawn, {"terminal"}, "python-chess: checkmate"),
    "label": (label_flipped, {"N2", "N3"}, "the dataset says"),
}


def test_kqk_is_accepted(kqk: Path) -> None:
    got = judged(kqk)
    assert got.status == "ACCEPTED", got.message
    assert got.message == (
        "ACCEPTED (47,061 positions of a chess endgame: KQK, KK; moves by python-chess)"
    )


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_each_corruption_is_rejected_naming_the_fen(kqk: Path, tmp_path: Path, name: str) -> None:
    corrupt, conds, words = CORRUPT[name]
    root = copy(kqk, tmp_path)
    x = corrupt(root)
    got = judged(root)
    assert got.status == "REJECTED" and got.condition in conds, got.message
    assert words in got.message
    if name != "label":  # N2/N3 may name a predecessor of the node changed
        assert (got.tier, got.code) == (0, x) and got.position == fen(root, x), got.message
    assert got.position is not None and got.position.count("/") == 7, got.message
    assert f"tier 0: {got.position}: {got.condition}: " in got.message


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_each_condition_turned_off_lets_its_corruption_through(
    kqk: Path, tmp_path: Path, name: str
) -> None:
    """Turn off what rejects the corruption, condition by condition, until it is accepted:
    the condition aimed at it is among them (so it matters)."""
    corrupt, conds, _ = CORRUPT[name]
    root = copy(kqk, tmp_path)
    corrupt(root)
    off: list[str] = []
    while (got := judged(root, *off)).status == "REJECTED":
        assert got.condition not in off and len(off) < 5, got.message
        off.append(got.condition)
    assert got.status == "ACCEPTED" and conds & set(off), (off, got.message)


def test_a_tier_too_many_is_rejected(kqk: Path, tmp_path: Path) -> None:
    """A certificate listing a third, empty tier (KQK leads to KK alone): ``complete``, and
    turned off, the manifest's count of tiers."""
    root = copy(kqk, tmp_path)
    kept = certified.writer.certificate_of

    def more(r: Path, m: Any = None) -> dict[str, Any]:
        doc = kept(r, m)
        counts = {"positions": 0, "won": 0, "lost": 0, "drawn": 0, "longest": -1}
        doc["tiers"].append({"tier": 2, **counts, "shards": []})
        return doc

    certified.writer.certificate_of = more  # type: ignore[assignment]
    try:
        got = judged(root)
        assert (got.status, got.condition) == ("REJECTED", "complete"), got.message
        assert "3 tiers; KQK leads to 2: KQK, KK" in got.message
        assert judged(root, "complete").condition == "manifest"
    finally:
        certified.writer.certificate_of = kept  # type: ignore[assignment]


def test_a_job_holds_one_shards_moves_not_the_graphs(kqk: Path) -> None:
    """Each job reads its own shard's moves (edges and exits) and no other's: the most moves a
    job held is the largest shard's (KQK: 518,084 of 609,873), below the graph's."""
    m = load_manifest(kqk)
    rows = [s.edges + (s.exits or 0) for t in m.tiers for s in t.shards]
    assert judged(kqk).status == "ACCEPTED"
    assert chess.PEAK["graph"] == sum(rows) == 609_873, chess.PEAK
    assert chess.PEAK["moves"] == max(rows) < sum(rows), (chess.PEAK, rows)
    extra = 8 << 20  # beside its moves as read (16 bytes each): a block's keyed, positions
    assert 16 * max(rows) < chess.PEAK["bytes"] < 16 * max(rows) + extra, chess.PEAK


def test_jobs_2_names_the_first_violation_of_jobs_1(kqk: Path, tmp_path: Path) -> None:
    """Tier 0's first mate (in shard 1, the second job's, done first) stored as a drawn dead
    end, and shard 0's last position (not mated) as mated: one and two jobs
    both name shard 0's FEN; shard 1's alone is named too."""
    root = copy(kqk, tmp_path)
    x = int(np.flatnonzero(nodes(root, 1)["terminal"] == -1)[0])
    mated = terminal_flipped(root, 1, x)
    one = judged(root)
    assert (one.status, one.condition, one.code) == ("REJECTED", "terminal", mated), one.message
    assert judged(root, jobs=2) == one
    last = terminal_flipped(root, 0, len(nodes(root, 0)["terminal"]) - 1)
    one = judged(root)
    assert (one.status, one.condition, one.code) == ("REJECTED", "terminal", last), one.message
    assert one.position == fen(root, last) and "python-chess: not checkmate" in one.message
    assert judged(root, jobs=2) == one


def terminal_flipped(root: Path, j: int, x: int) -> int:
    """Row ``x`` of tier 0's shard ``j`` stored as mated if it was not, else as a drawn dead
    end: its node."""
    cols = nodes(root, j)
    set_nodes(root, lambda c: c["terminal"].__setitem__(x, -1 - c["terminal"][x]), j)
    return int(cols["code"][x])


def test_without_python_chess_it_is_one_line_exit_2(
    kqk: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setitem(sys.modules, "chess", None)  # import chess: ImportError
    cert = certified.writer.write_certificate(kqk, tmp_path / "c.json")
    r = run_cli("check-certificate", kqk, cert)
    assert r.exit_code == 2, r.output
    assert "python-chess is needed to judge chess datasets" in r.output
    assert len(r.output.strip().splitlines()) == 1, r.output


def test_verify_runs_the_checker_on_a_chess_dataset(
    client: Any, kqk: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    address = client.scheduler.address
    r = run_cli("verify", kqk, "--engine", "dask", "--scheduler", address)
    assert r.exit_code == 0 and "  certificate ok" in r.output and "VERIFIED" in r.output, r.output
    monkeypatch.setitem(sys.modules, "chess", None)
    r = run_cli("verify", kqk, "--engine", "dask", "--scheduler", address)
    assert "certificate ok" not in r.output, r.output
    assert "python-chess is needed" in r.output, r.output
    r = run_cli("verify", kqk, "--engine", "dask", "--scheduler", address, "--format", "json")
    got = json.loads(r.output)
    assert "certificate" not in got["checks"], got["checks"]  # not run: not listed as passed
    assert "python-chess is needed" in got["skipped"]["certificate"], got


@pytest.mark.slow
def test_kqk_without_symmetry_is_accepted(client: Any, tmp_path: Path) -> None:
    root = made_kqk(client, tmp_path / "kqk", False)
    got = judged(root)
    assert got.status == "ACCEPTED" and "375,676 positions" in got.message, got.message
