"""Chess endgames generated on the workers into a stored-graph tiered dataset
(``verifier.games.tiered.chess``): solved on the cluster, equal position by position
(by material code, hence by FEN) to the in-memory ``chess.generate`` and its retrograde solve,
judged by ``verify DIR --engine dask``, and a corrupted answer refuted with its FEN.

The default run uses KQK up to the board's symmetries (47,061 classes in two tiers, a few
seconds each); KPK (2 million positions in six tiers, promotions into four of them) runs with
``-m slow``.
"""

from __future__ import annotations

import itertools
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tier_cli import dataset_verdict, one_line_error, run_cli

from verifier import api
from verifier.games import chess

distributed = pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from verifier.dataset.manifest import load_manifest  # noqa: E402
from verifier.dataset.storage import read_answers, write_answers  # noqa: E402
from verifier.distributed.tiers.driver import prepare_output, solve_dataset  # noqa: E402
from verifier.games.tiered.chess import (  # noqa: E402
    dataset_order,
    generate_chess,
    position_codes,
)

pytestmark = pytest.mark.filterwarnings("ignore:Port 8787 is already in use")

Answers = tuple[np.ndarray, np.ndarray, np.ndarray]
"""Global chess codes (sorted), labels, remoteness."""


@cache
def in_memory(material: str, symmetric: bool) -> Answers:
    """The in-memory case's codes and its solve (remoteness -1 at the draws)."""
    case = chess.generate(material, symmetry=symmetric)
    sol = api.solve(case, engine="numpy")
    rem = sol.columns["remoteness"]
    label = sol.columns["value"].data.astype(np.int8)
    codes = np.asarray(case.graph.names.codes).view(np.int64)  # type: ignore[attr-defined]
    return codes, label, np.where(rem.given, rem.data, -1).astype(np.int32)


def sharded(root: Path) -> Answers:
    """Every node of a solved chess dataset as (global code, label, remoteness), sorted."""
    m = load_manifest(root)
    p = m.parameters
    t = chess.tiers(p["material"], bool(p.get("symmetric")))
    order = dataset_order(p["material"], bool(p.get("symmetric")))
    codes, labels, rems = [], [], []
    for tier in m.tiers:
        for s in tier.shards:
            pos = position_codes(root, m, tier.tier, s.shard)
            codes.append(pos.astype(np.int64) + t.base[order[tier.tier]])
            lab, rem = read_answers(root, tier.tier, s.shard, s.answers_sha256, s.positions)
            labels.append(lab)
            rems.append(rem)
    code = np.concatenate(codes)
    o = np.argsort(code)
    return code[o], np.concatenate(labels)[o], np.concatenate(rems)[o]


def assert_same(got: Answers, want: Answers, material: str, symmetric: bool) -> None:
    """The same positions with the same label and remoteness (the first difference by FEN)."""
    assert len(got[0]) == len(want[0])
    assert (got[0] == want[0]).all()
    t = chess.tiers(material, symmetric)
    for name, g, w in (("label", got[1], want[1]), ("remoteness", got[2], want[2])):
        bad = np.flatnonzero(g != w)
        if len(bad):
            fen = chess._Namer(t, want[0].astype(np.uint64)).one(int(want[0][bad[0]]))
            raise AssertionError(f"{fen}: {name} {g[bad[0]]}, in memory {w[bad[0]]}")


def generated(root: Path, client: Any, material: str, symmetric: bool, shards: int) -> Path:
    prepare_output(root)
    generate_chess(root, material, client, symmetric=symmetric, shards=shards, span=60_000)
    return root


def test_materials_are_numbered_so_that_moves_go_to_later_tiers() -> None:
    """A capture or a promotion leads to a later tier (KPKP's BFS order would not do)."""
    for material in ("KPK", "KQKR", "KPKP", "KRKP"):
        t = chess.tiers(material)
        order = dataset_order(material)
        assert order[0] == 0 and sorted(order) == list(range(len(t.materials)))
        rank = {t.materials[i]: k for k, i in enumerate(order)}
        for men, k in rank.items():
            assert all(rank[m] > k for m in chess._smaller(men)), chess.material_name(men)


def test_the_ranged_kernel_cuts_the_material_into_pieces() -> None:
    from verifier.games import _chess_kernels as ck

    t = chess.tiers("KQK", True)
    k, men, group = int(t.k[0]), t.men[0], int(t.group[0])
    whole = ck.tier_positions(k, men, group)
    cuts = [0, 1, 77_777, 300_001, len(whole)]
    parts = [ck.tier_positions_range(k, men, group, a, b) for a, b in itertools.pairwise(cuts)]
    assert (np.concatenate(parts) == whole).all()


@pytest.mark.dask
@pytest.mark.parametrize("shards", [pytest.param(1, marks=pytest.mark.slow), 7])
def test_kqk_up_to_symmetry_equals_in_memory(client: Any, tmp_path: Path, shards: int) -> None:
    root = generated(tmp_path / "ds", client, "KQK", True, shards)
    m = load_manifest(root)
    assert [len(t.shards) for t in m.tiers] == [shards, shards]
    res = solve_dataset(root, client)
    assert_same(sharded(root), in_memory("KQK", True), "KQK", True)
    assert res.description is not None and "White to move wins, mate in" in res.description


@pytest.mark.dask
def test_cli_generates_solves_verifies_and_refutes_kqk(client: Any, tmp_path: Path) -> None:
    root = tmp_path / "kqk"
    opts = ("--engine", "dask", "--scheduler", client.scheduler.address)
    r = run_cli("generate", "chess:KQK", "-o", root, "--symmetry", *opts,
                "--shard-positions", 20_000)  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "47,061 classes" in r.output and "2 tiers (materials)" in r.output, r.output
    r = run_cli("solve", root, *opts)
    assert r.exit_code == 0, r.output
    assert "KQK 8/8/8/8/8/8/3k4/KQ6 w - - 0 1: White to move wins, mate in 5" in r.output
    assert "longest win: White to move mate in 10 (19 plies" in r.output, r.output
    assert_same(sharded(root), in_memory("KQK", True), "KQK", True)
    r = run_cli("verify", root, *opts)
    assert r.exit_code == 0 and dataset_verdict(r)[0] == "VERIFIED", r.output
    assert dataset_verdict(r)[1].startswith("KQK "), r.output

    m = load_manifest(root)  # claim a won position lost
    s = m.tiers[0].shards[1]
    label, rem = (a.copy() for a in read_answers(root, 0, 1, s.answers_sha256, s.positions))
    i = int(np.flatnonzero(label == 1)[0])
    label[i] = -1
    s.answers_sha256 = write_answers(root, 0, 1, (label, rem))
    m.save(root)
    r = run_cli("verify", root, *opts)
    assert r.exit_code == 1 and "REFUTED" in r.output, r.output
    line = next(x for x in r.output.splitlines() if x.startswith("  rules "))
    named = line.split("first at ")[1]  # "FEN (node N of KQK) in tier 0: ..."
    node = int(named.split("(node ")[1].split()[0])
    shard = 0 if node < m.tiers[0].shards[0].positions else 1
    pos = position_codes(root, m, 0, shard)[node - shard * m.tiers[0].shards[0].positions]
    fen = chess._Namer(chess.tiers("KQK", True), np.zeros(0, np.uint64)).one(int(pos))
    assert named.startswith(f"{fen} (node {node} of KQK) in tier 0"), line
    # the move's target in the reason is named by its FEN too, not by a bare id
    to = named.split("the move to ")[1].split(" (node ")[0]
    assert to.count("/") == 7 and to.split()[1] in "wb", line
    assert "reaches a position claimed lost" in line and "of KQK)" in named.split("move to")[1]


@pytest.mark.slow
@pytest.mark.parametrize(("symmetric", "shards"), [(True, 1), (True, 3), (True, 7), (False, 3)])
def test_kpk_equals_in_memory(client: Any, tmp_path: Path, symmetric: bool, shards: int) -> None:
    """KPK: a pawn promoting into four materials, captures into KK, cycles in every tier."""
    from verifier.distributed.tiers.check import check_dataset

    root = generated(tmp_path / "ds", client, "KPK", symmetric, shards)
    solve_dataset(root, client)
    assert_same(sharded(root), in_memory("KPK", symmetric), "KPK", symmetric)
    assert check_dataset(root, client).verdict == "verified"


@pytest.mark.slow
def test_krk_seven_shards_equals_in_memory(client: Any, tmp_path: Path) -> None:
    root = generated(tmp_path / "ds", client, "KRK", False, 7)
    solve_dataset(root, client)
    assert_same(sharded(root), in_memory("KRK", False), "KRK", False)


def test_bad_chess_input_is_one_line(tmp_path: Path) -> None:
    """Refused before a cluster starts, nothing written."""
    for args, words in (
        (("chess:KXK",), "unknown piece 'X'"),
        (("chess:KQK", "--resume"), "x: no such file or directory"),
    ):
        r = run_cli("generate", *args, "-o", tmp_path / "x", "--engine", "dask")
        one_line_error(r, 2, words)
        assert not (tmp_path / "x").exists()


def stopped_in_step_3(
    tmp_path: Path, client: Any, monkeypatch: pytest.MonkeyPatch
) -> tuple[Any, Path]:
    """KQK (symmetric, 3 shards a tier) generated whole, and again into ``tmp_path / "ds"`` by
    a run that stopped in step 3 (``resolve``): the whole run's manifest and the stopped root."""
    from verifier.dataset.errors import RunFailed
    from verifier.games.tiered import chess as chess_tiers

    whole = load_manifest(generated(tmp_path / "whole", client, "KQK", True, 3)).to_json()
    root = tmp_path / "ds"
    prepare_output(root)
    real = chess_tiers._step

    def stop_in_step_3(at: Path, steps: dict[str, Any], name: str, make: Any) -> Any:
        if name == "resolve":
            raise RunFailed("the run stopped")
        return real(at, steps, name, make)

    monkeypatch.setattr(chess_tiers, "_step", stop_in_step_3)
    with pytest.raises(RunFailed):
        generate_chess(root, "KQK", client, symmetric=True, shards=3, span=60_000)
    monkeypatch.setattr(chess_tiers, "_step", real)
    return whole, root


@pytest.mark.dask
def test_a_stopped_generation_resumes_after_its_last_finished_step(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that stops in step 3 leaves a dataset marked unfinished; ``--resume`` keeps the
    scan and the expansion (they are not run again), takes the stopped run's shard sizes, and
    writes the same files as a generation that never stopped."""
    from verifier.dataset.errors import DatasetError
    from verifier.games.tiered import chess as chess_tiers

    whole, root = stopped_in_step_3(tmp_path, client, monkeypatch)
    m = load_manifest(root)
    assert not m.generated and m.tiers == []
    with pytest.raises(DatasetError, match="the generation did not finish"):
        m.need_generated(root)
    with pytest.raises(DatasetError, match="continues the same material"):
        generate_chess(root, "KRK", client, symmetric=True, resume=True)

    def again(*_: Any) -> Any:
        raise AssertionError("a kept step ran again")

    monkeypatch.setattr(chess_tiers, "scan_chunk", again)
    monkeypatch.setattr(chess_tiers, "expand_shard", again)
    said: list[str] = []
    got = generate_chess(root, "KQK", client, symmetric=True, resume=True, say=said.append)
    assert got.to_json() == whole  # every shard's files and digests, 3 shards per tier
    assert said[0] == "resuming: step(s) scan, expand kept from the run that stopped"
    # the steps run again say how far they are (shown with VERIFIER_PROGRESS_EVERY)
    assert said[2].startswith("numbering the moves' targets: 47,061 positions in "), said
    rates = [x for x in said if x.startswith("writing the edges: done in ")]
    assert len(rates) == 1 and rates[0].endswith(" positions a second)"), said
    assert not (root / "tmp").exists()
    assert generate_chess(root, "KQK", client, symmetric=True, resume=True).to_json() == whole


@pytest.mark.dask
def test_a_resumed_expansion_runs_only_the_shards_that_had_not_finished(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A generation stopped during step 2 (``expand``): the shards it finished recorded their
    results, the resumed run expands only the others (two kernel passes each: count, fill)
    and writes the uninterrupted run's files."""
    import json

    from verifier.games import _chess_kernels as ck
    from verifier.games.tiered import chess as chess_tiers

    whole, root = stopped_in_step_3(tmp_path, client, monkeypatch)
    # as if stopped in step 2, after every shard but tier 0's shard 1 finished
    steps = json.loads((root / chess_tiers.STEPS).read_text())
    del steps["expand"]
    (root / chess_tiers.STEPS).write_text(json.dumps(steps))
    records = sorted((root / "tmp" / "done" / "expand").iterdir())
    assert [p.name for p in records] == [f"{k}-{s}.json" for k in (0, 1) for s in range(3)]
    (root / "tmp" / "done" / "expand" / "0-1.json").unlink()
    calls: list[int] = []
    kernel = ck.tier_successors

    def counted(*args: Any) -> Any:
        calls.append(len(args[0]))
        return kernel(*args)

    monkeypatch.setattr(ck, "tier_successors", counted)
    got = generate_chess(root, "KQK", client, symmetric=True, resume=True)
    shard_1 = load_manifest(root).tiers[0].shards[1].positions
    assert calls == [shard_1, shard_1]  # tier 0's shard 1 alone, counted then filled
    assert got.to_json() == whole


# --- the dataset itself: exactly the legal positions of its materials, and their moves -----


@pytest.fixture(scope="module")
def kqk(client: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """KQK up to symmetry in two shards a tier, solved (read-only: the tests copy it)."""
    root = generated(tmp_path_factory.mktemp("kqk") / "ds", client, "KQK", True, 2)
    solve_dataset(root, client)
    return root


def forged_chess(kqk: Path, tmp_path: Path, client: Any, change: Any) -> Path:
    """A copy of ``kqk`` whose files ``change(root, manifest)`` rewrites (updating the
    manifest's digests and sizes), then solved again as a forger would: answers and counts
    that agree with the stored graph, so that only the check of the graph can tell."""
    import shutil

    root = tmp_path / "forged"
    shutil.copytree(kqk, root)
    m = load_manifest(root)
    change(root, m)
    m.save(root)
    solve_dataset(root, client)
    return root


def refuted_dataset(client: Any, root: Path, *words: str) -> str:
    """``verify DIR`` ends REFUTED (exit 1, no traceback) on the ``dataset`` check, whose line
    holds ``words``; that line."""
    r = run_cli("verify", root, "--engine", "dask", "--scheduler", client.scheduler.address)
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert dataset_verdict(r)[0] == "REFUTED", r.output
    line = next(x for x in r.output.splitlines() if x.startswith("  dataset "))
    for w in words:
        assert w in line, line
    return line


def test_the_untouched_chess_dataset_is_verified_with_its_positions(client: Any, kqk: Path) -> None:
    r = run_cli("verify", kqk, "--engine", "dask", "--scheduler", client.scheduler.address)
    assert r.exit_code == 0 and dataset_verdict(r)[0] == "VERIFIED", r.output
    assert dataset_verdict(r)[1].startswith("KQK "), r.output
    assert "  dataset     ok" in r.output and "  counts      ok" in r.output, r.output


@pytest.mark.parametrize("where", ["between", "beyond"])
def test_an_illegal_chess_position_is_refuted(
    client: Any, kqk: Path, tmp_path: Path, where: str
) -> None:
    from verifier.dataset.graph_storage import read_node_columns, write_nodes

    def change(root: Path, m: Any) -> None:
        s = m.tiers[0].shards[1]
        cols = read_node_columns(
            root,
            0,
            1,
            s.sha256,
            s.positions,
            {"code": "uint64", "terminal": "int8", "position": "uint64"},
        )
        pos = cols["position"].copy()
        if where == "between":
            r = int(np.flatnonzero(np.diff(pos) > 1)[0]) + 1  # pos[r - 1] + 1 is no legal code
            pos[r] = pos[r - 1] + 1
        else:  # a code past the material's last (64^3 codes a side to move, 2 sides)
            pos[-1] = 2 * 64**3 + 7
        s.sha256 = write_nodes(root, 0, 1, cols["code"], cols["terminal"], {"position": pos})

    line = refuted_dataset(client, forged_chess(kqk, tmp_path, client, change), "in tier 0")
    # the row itself, the legal position it replaced, or a move to it no longer a legal move
    words = ("is missing", "no legal position of KQK", "in no shard", "are not the legal moves")
    assert any(w in line for w in words), line


def test_a_chess_move_removed_is_refuted(client: Any, kqk: Path, tmp_path: Path) -> None:
    from verifier.dataset.graph_storage import (
        read_edges,
        read_reverse,
        write_edges,
        write_reverse,
    )
    from verifier.dataset.graphs import range_bounds, range_owner

    def change(root: Path, m: Any) -> None:
        s = m.tiers[0].shards[0]
        src, dst = read_edges(root, 0, 0, s.edges_sha256, s.edges)
        i = int(np.flatnonzero(src[1:] == src[:-1])[0])  # a node with two moves: drop one
        gone = (src[i], dst[i])
        keep = np.arange(len(src)) != i
        s.edges, s.edges_sha256 = len(src) - 1, write_edges(root, 0, 0, src[keep], dst[keep])
        bounds = range_bounds([x.positions for x in m.tiers[0].shards])
        j = int(range_owner(np.array([gone[1]], np.uint64), bounds)[0])
        t = m.tiers[0].shards[j]
        r_dst, r_src = read_reverse(root, 0, j, t.reverse_sha256, t.reverse_edges)
        keep = ~((r_dst == gone[1]) & (r_src == gone[0]))
        t.reverse_edges = int(keep.sum())
        t.reverse_sha256 = write_reverse(root, 0, j, r_dst[keep], r_src[keep])
        m.parameters["edges"] -= 1

    refuted_dataset(client, forged_chess(kqk, tmp_path, client, change),
                    "its stored moves (", "are not the legal moves")  # fmt: skip


def test_a_chess_dead_end_relabelled_is_refuted(client: Any, kqk: Path, tmp_path: Path) -> None:
    from verifier.dataset.graph_storage import read_node_columns, write_nodes

    def change(root: Path, m: Any) -> None:  # a dead KK position (no mating material) mated
        s = m.tiers[1].shards[0]
        cols = read_node_columns(
            root,
            1,
            0,
            s.sha256,
            s.positions,
            {"code": "uint64", "terminal": "int8", "position": "uint64"},
        )
        term = cols["terminal"].copy()
        term[0] = -1
        s.sha256 = write_nodes(root, 1, 0, cols["code"], term, {"position": cols["position"]})

    refuted_dataset(client, forged_chess(kqk, tmp_path, client, change), "in tier 1",
                    "stored as a dead end mated (lost), but the position is drawn")  # fmt: skip


def test_a_chess_count_altered_is_refuted(client: Any, kqk: Path, tmp_path: Path) -> None:
    import json
    import shutil

    root = tmp_path / "counts"
    shutil.copytree(kqk, root)
    doc = json.loads((root / "manifest.json").read_text())
    doc["tiers"][0]["won"] += 3
    (root / "manifest.json").write_text(json.dumps(doc))
    r = run_cli("verify", root, "--engine", "dask", "--scheduler", client.scheduler.address)
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    line = next(x for x in r.output.splitlines() if x.startswith("  counts "))
    assert "first in tier 0: the manifest says won" in line and "$.tiers[0].won" in line, line
