"""``verify DIR --engine dask``: a tiered dataset's answers, or a stranger's Parquet table,
judged shard by shard on the workers (``verifier.distributed.tiers.check``).

Every published field is corrupted and must be refuted: the label, the remoteness and the move
of a stranger's table (written from the in-memory solver, an independent engine), a row
dropped or added; and the dataset's own answers corrupted where the tiered solver writes them,
so that no agreement between solvers can hide the fault. Connect Four 4x3 (12,031 positions,
answers worked out by the in-memory solver) keeps every test fast.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tier_cli import EMPTY_DRAW, dataset_verdict, one_line_error, run_cli, stdout

from verifier import api
from verifier.games.connect4 import Board, generate

distributed = pytest.importorskip("distributed")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import verifier.dataset.shard_tasks as tasks  # noqa: E402
from verifier.dataset.errors import DatasetError  # noqa: E402
from verifier.distributed.tiers.check import check_dataset  # noqa: E402
from verifier.distributed.tiers.driver import (  # noqa: E402
    generate_dataset,
    prepare_output,
    solve_dataset,
)
from verifier.games.tiered.connect4 import ConnectFourTiers  # noqa: E402

pytestmark = [pytest.mark.dask, pytest.mark.filterwarnings("ignore:Port 8787 is already in use")]

W, H = 4, 3
NONE = -1


@pytest.fixture(scope="module")
def solved(client: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Connect Four 4x3 generated and solved in 31 shards (read-only for the tests)."""
    root = tmp_path_factory.mktemp("c43") / "ds"
    prepare_output(root)
    generate_dataset(root, ConnectFourTiers(W, H), client, per_shard=1_000)
    solve_dataset(root, client)
    return root


@pytest.fixture(scope="module")
def table() -> dict[str, np.ndarray]:
    """The in-memory solver's answers as a stranger would hand them in: one row per position,
    ``code``, ``value``, ``remoteness`` (-1 none) and ``move`` (the code the move reaches, -1
    none), rows in a scrambled order."""
    case = generate(W, H)
    sol = api.solve(case, engine="numpy")
    codes = np.asarray(case.graph.names.codes, dtype=np.int64)  # type: ignore[attr-defined]
    rem, move = sol.columns["remoteness"], sol.columns["move"]
    order = np.random.default_rng(7).permutation(len(codes))
    return {
        "code": codes[order],
        "value": sol.columns["value"].data.astype(np.int64)[order],
        "remoteness": np.where(rem.given, rem.data, NONE).astype(np.int64)[order],
        "move": np.where(move.given, codes[np.maximum(move.data, 0)], NONE)[order],
    }


def write_table(folder: Path, cols: dict[str, np.ndarray], parts: int = 3) -> Path:
    """``cols`` as ``parts`` Parquet files, -1 written as null (as a stranger might)."""
    folder.mkdir(parents=True, exist_ok=True)
    for k, rows in enumerate(np.array_split(np.arange(len(cols["code"])), parts)):
        out = {}
        for name, col in cols.items():
            part = col[rows]
            nullable = name in ("remoteness", "move")
            out[name] = pa.array(part, mask=part == NONE) if nullable else pa.array(part)
        pq.write_table(pa.table(out), folder / f"part-{k}.parquet")
    return folder


def at(cols: dict[str, np.ndarray], code: int) -> int:
    return int(np.flatnonzero(cols["code"] == code)[0])


def pick(cols: dict[str, np.ndarray], label: int, nth: int = 3) -> int:
    """The row of the ``nth`` position of value ``label`` that is not terminal (it has a move)."""
    rows = np.flatnonzero((cols["value"] == label) & (cols["move"] != NONE))
    return int(rows[nth])


def judged(client: Any, root: Path, cols: dict[str, np.ndarray], tmp: Path) -> Any:
    return check_dataset(root, client, answers=write_table(tmp / "theirs", cols))


def copy(cols: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {k: v.copy() for k, v in cols.items()}


def test_the_datasets_own_answers_are_verified(client: Any, solved: Path) -> None:
    res = check_dataset(solved, client)
    assert not res.refuted
    assert res.checks == ("dataset", "reachable", "rules", "remoteness", "counts")
    assert res.counts == dict.fromkeys(res.checks, 0)
    assert res.positions == 12_031
    assert res.root_claim == (0, -1)
    assert res.description == "the empty board: draw (neither player can force four in a row)"


def test_each_stage_of_the_check_says_what_it_does(
    client: Any, solved: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``verify DIR --engine dask`` was silent for 24 s on Connect Four 4x4: each stage says
    its positions and shards, what is done now and then, and its time and rate at the end."""
    monkeypatch.setenv("VERIFIER_PROGRESS_EVERY", "0")
    lines: list[str] = []
    assert not check_dataset(solved, client, say=lines.append).refuted
    for what in ("checking the answers", "checking that every position is reachable"):
        assert f"{what}: 12,031 positions in 31 shard(s)" in lines, lines
        ends = [x for x in lines if x.startswith(f"{what}: done in ")]
        assert len(ends) == 1 and ends[0].endswith(" positions a second)"), lines


class _Recording:
    """A client whose ``submit`` records the pickled size of each task's arguments (the
    futures among them count as their key: their values are on the workers already)."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.sizes: dict[str, list[int]] = {}

    def submit(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        plain = [a.key if isinstance(a, distributed.Future) else a for a in args]
        self.sizes.setdefault(fn.__name__, []).append(len(pickle.dumps(plain)))
        return self._client.submit(fn, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def test_no_task_carries_every_shards_list(
    client: Any, solved: Path, table: dict[str, np.ndarray], tmp_path: Path
) -> None:
    # every shard's task once carried the list of every shard (digests, sizes): the driver
    # held shards x shards of them, 1.33 GB for Connect Four 6x5's 1,469 shards
    manifest = json.loads((solved / "manifest.json").read_text())
    every = [(s["positions"], s["sha256"]) for t in manifest["tiers"] for s in t["shards"]]
    assert len(every) == 31
    rec = _Recording(client)
    assert not check_dataset(solved, rec).refuted
    assert not check_dataset(solved, rec, answers=write_table(tmp_path / "t", table)).refuted
    assert set(rec.sizes) >= {"check_shard", "route_file", "align_shard"}
    assert max(max(v) for v in rec.sizes.values()) < len(pickle.dumps(every))


def test_an_independent_solvers_table_with_moves_is_verified(
    client: Any, solved: Path, table: dict[str, np.ndarray], tmp_path: Path
) -> None:
    res = judged(client, solved, table, tmp_path)
    assert res.checks == ("dataset", "reachable", "coverage", "rules", "remoteness", "moves")
    assert not res.refuted, res.witnesses
    assert res.root_claim == (0, -1)


def test_a_table_of_labels_alone_is_judged_on_the_rules(
    client: Any, solved: Path, table: dict[str, np.ndarray], tmp_path: Path
) -> None:
    cols = {k: table[k] for k in ("code", "value")}
    res = judged(client, solved, cols, tmp_path)
    assert res.checks == ("dataset", "reachable", "coverage", "rules") and not res.refuted
    cols["value"] = cols["value"].copy()
    cols["value"][pick(table, -1)] = 1
    assert judged(client, solved, cols, tmp_path / "bad").counts["rules"] >= 1


@pytest.mark.parametrize(("label", "into"), [(1, 0), (1, -1), (-1, 1), (-1, 0), (0, 1), (0, -1)])
def test_a_wrong_value_is_refuted_at_that_position(
    client: Any,
    solved: Path,
    table: dict[str, np.ndarray],
    tmp_path: Path,
    label: int,
    into: int,
) -> None:
    cols = copy(table)
    i = pick(cols, label)
    cols["value"][i] = into
    res = judged(client, solved, cols, tmp_path)
    assert res.refuted and res.counts["rules"] >= 1
    assert res.counts["coverage"] == 0
    # the first violation is at the corrupted position or at a position moving to it
    code = int(cols["code"][i])
    first = res.witnesses["rules"][1]
    assert first == code or code in children(first), (first, code)


def children(code: int) -> list[int]:
    """The codes the moves of position ``code`` reach."""
    game = ConnectFourTiers(W, H)
    c = np.array([code], dtype=np.uint64)
    return [int(x) for x in game.expand(c, int(game.tier_of(c)[0])).children]


@pytest.mark.parametrize(("label", "delta"), [(1, 2), (1, -2), (-1, 1), (-1, -1)])
def test_a_wrong_remoteness_is_refuted(
    client: Any,
    solved: Path,
    table: dict[str, np.ndarray],
    tmp_path: Path,
    label: int,
    delta: int,
) -> None:
    cols = copy(table)
    i = pick(cols, label)
    cols["remoteness"][i] += delta
    res = judged(client, solved, cols, tmp_path)
    assert res.counts["rules"] == 0 and res.counts["remoteness"] >= 1


def test_a_remoteness_at_a_draw_or_missing_at_a_win_is_refuted(
    client: Any, solved: Path, table: dict[str, np.ndarray], tmp_path: Path
) -> None:
    cols = copy(table)
    cols["remoteness"][pick(cols, 0)] = 4
    assert judged(client, solved, cols, tmp_path / "a").counts["remoteness"] >= 1
    cols = copy(table)
    cols["remoteness"][pick(cols, 1)] = NONE
    assert judged(client, solved, cols, tmp_path / "b").counts["remoteness"] >= 1


def test_wrong_moves_are_refuted(
    client: Any, solved: Path, table: dict[str, np.ndarray], tmp_path: Path
) -> None:
    def with_move(i: int, move: int, name: str) -> Any:
        cols = copy(table)
        cols["move"][i] = move
        res = judged(client, solved, cols, tmp_path / name)
        assert res.counts["rules"] == 0 and res.counts["remoteness"] == 0
        return res

    # a won position that moves to a child not claimed lost (a legal but losing move)
    won = next(
        i
        for i in np.flatnonzero((table["value"] == 1) & (table["move"] != NONE))
        if any(table["value"][at(table, c)] != -1 for c in children(int(table["code"][i])))
    )
    slack = [c for c in children(int(table["code"][won])) if table["value"][at(table, c)] != -1]
    res = with_move(int(won), slack[0], "losing")
    assert res.counts["moves"] >= 1 and res.witnesses["moves"][1] == int(table["code"][won])
    # a move that no legal move makes (the position itself)
    res = with_move(int(won), int(table["code"][won]), "illegal")
    assert "which no legal move reaches" in res.witnesses["moves"][2]
    # no move at an inner position; a move at a terminal position
    res = with_move(pick(table, 0), NONE, "none")
    assert "names no move" in res.witnesses["moves"][2]
    end = int(np.flatnonzero((table["value"] == -1) & (table["remoteness"] == 0))[0])
    res = with_move(end, int(table["code"][pick(table, 0)]), "terminal")
    assert "the game is over" in res.witnesses["moves"][2]
    # a lost position whose move is not the longest defence
    lost = next(
        i
        for i in np.flatnonzero((table["value"] == -1) & (table["move"] != NONE))
        if len({int(table["remoteness"][at(table, c)]) for c in children(int(table["code"][i]))})
        > 1
    )
    short = min(children(int(table["code"][lost])), key=lambda c: table["remoteness"][at(table, c)])
    res = with_move(int(lost), short, "short")
    assert res.counts["moves"] >= 1


def test_missing_and_extra_rows_are_refuted(
    client: Any, solved: Path, table: dict[str, np.ndarray], tmp_path: Path
) -> None:
    cols = {k: v[1:] for k, v in table.items()}
    res = judged(client, solved, cols, tmp_path / "missing")
    assert res.counts["coverage"] == 1
    assert res.witnesses["coverage"][1] == int(table["code"][0])
    assert "no answer" in res.witnesses["coverage"][2]
    # a code no position has, and a board that cannot arise (three x stones, no o)
    board = Board(W, H)
    three_x = int(board.code(np.array([0], np.uint64), np.array([0b111], np.uint64))[0])
    for name, code in [("nothing", 0), ("unreachable", three_x)]:
        cols = {k: np.append(v, v[0]) for k, v in table.items()}
        cols["code"][-1] = code
        res = judged(client, solved, cols, tmp_path / name)
        assert res.counts["coverage"] == 1, name
        assert (
            res.witnesses["coverage"][1] == code and f"code {code}" in res.witnesses["coverage"][2]
        )


def test_the_datasets_own_answers_corrupted_where_the_solver_writes_them(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tiered solver itself writes a wrong label, then a wrong remoteness: no other solver
    is consulted, and the check refutes each."""
    real = tasks.write_answers

    def flip(which: str) -> Any:
        def write(root: Path, tier: int, shard: int, answers: Any) -> str:
            label, rem = answers
            if tier == 6 and shard == 0:
                label, rem = label.copy(), rem.copy()
                i = int(np.flatnonzero(label == 1)[0])
                if which == "label":
                    label[i] = 0
                else:
                    rem[i] += 2
            return real(root, tier, shard, (label, rem))

        return write

    root = tmp_path / "ds"
    prepare_output(root)
    generate_dataset(root, ConnectFourTiers(W, H), client, per_shard=1_000)
    for which, check in (("label", "rules"), ("remoteness", "remoteness")):
        monkeypatch.setattr(tasks, "write_answers", flip(which))
        solve_dataset(root, client)
        monkeypatch.undo()
        res = check_dataset(root, client)
        assert res.refuted and res.counts[check] >= 1, which
    solve_dataset(root, client)
    assert not check_dataset(root, client).refuted


def test_cli_verdicts_and_exit_codes(
    client: Any,
    solved: Path,
    table: dict[str, np.ndarray],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VERIFIER_PROGRESS_EVERY", "5")  # the stages' lines, stderr not a terminal
    addr = ("--engine", "dask", "--scheduler", client.scheduler.address)
    r = run_cli("verify", solved, "--linear", *addr)
    assert r.exit_code == 0, r.output
    assert dataset_verdict(r) == ("VERIFIED", EMPTY_DRAW)
    said = f"progress: {solved}: checking the answers: 12,031 positions in 31 shard(s)"
    assert said in r.output.splitlines()  # the stages on stderr
    theirs = write_table(tmp_path / "theirs", table)
    r = run_cli("verify", solved, "--answers", theirs, "--json", *addr)
    assert r.exit_code == 0, r.output
    doc = json.loads(stdout(r))
    assert doc["verdict"] == "verified" and doc["checks"]["moves"]["violations"] == 0
    cols = copy(table)
    i = pick(cols, 1)
    cols["value"][i] = 0
    bad = write_table(tmp_path / "bad", cols)
    r = run_cli("verify", solved, "--answers", bad, *addr)
    assert r.exit_code == 1, r.output
    assert dataset_verdict(r)[0] == "REFUTED" and "rules" in r.output and "first at" in r.output
    doc = json.loads(stdout(run_cli("verify", solved, "--answers", bad, "--json", *addr)))
    assert doc["verdict"] == "refuted" and doc["checks"]["rules"]["first"]["why"]


def test_bad_tables_and_wrong_uses_are_one_line_errors(
    client: Any, solved: Path, table: dict[str, np.ndarray], tmp_path: Path
) -> None:
    addr = ("--engine", "dask", "--scheduler", client.scheduler.address)

    def table_with(name: str, **change: Any) -> Path:
        cols = dict(table)
        cols.update(change)
        return write_table(tmp_path / name, {k: v for k, v in cols.items() if v is not None})

    dup = {k: np.append(v, v[5]) for k, v in table.items()}
    one_line_error(
        run_cli("verify", solved, "--answers", write_table(tmp_path / "dup", dup), *addr),
        2, "duplicate entry for position code", "$.code[",
    )  # fmt: skip
    value = table["value"].copy()
    value[9] = 5
    one_line_error(
        run_cli("verify", solved, "--answers", table_with("five", value=value), *addr),
        2, "$.value[", "+1 (won)",
    )  # fmt: skip
    one_line_error(
        run_cli("verify", solved, "--answers", table_with("novalue", value=None), *addr),
        2, "$.value: missing column",
    )  # fmt: skip
    mixed = write_table(tmp_path / "mixed", table)
    pq.write_table(pa.table({"code": table["code"][:1], "value": table["value"][:1]}),
                   mixed / "part-9.parquet")  # fmt: skip
    one_line_error(run_cli("verify", solved, "--answers", mixed, *addr), 2, "the same columns")
    (tmp_path / "empty").mkdir()
    one_line_error(
        run_cli("verify", solved, "--answers", tmp_path / "empty", *addr), 2, "no .parquet"
    )
    (tmp_path / "junk.parquet").write_text("not parquet")
    one_line_error(run_cli("verify", solved, "--answers", tmp_path / "junk.parquet", *addr), 2,
             "junk.parquet")  # fmt: skip
    one_line_error(run_cli("verify", solved, "--linear"), 2, "verify it with --engine dask")
    one_line_error(run_cli("verify", solved, solved, *addr), 2, "one tiered dataset")
    case = tmp_path / "c.json"
    case.write_text('{"nodes": {"a": []}, "semantics": "normal"}')
    one_line_error(run_cli("verify", case, *addr), 2, "not a tiered dataset")
    unsolved = tmp_path / "unsolved"
    prepare_output(unsolved)
    generate_dataset(unsolved, ConnectFourTiers(3, 3), client, per_shard=1_000)
    one_line_error(run_cli("verify", unsolved, *addr), 2, "no answers to judge")


def test_a_table_for_another_game_is_a_dataset_error(client: Any, solved: Path) -> None:
    with pytest.raises(DatasetError, match="a tiered dataset"):
        check_dataset(solved, client, answers=solved)


def test_a_dataset_up_to_the_mirror_is_verified_and_takes_either_code(
    client: Any, tmp_path: Path
) -> None:
    root = tmp_path / "sym"
    prepare_output(root)
    game = ConnectFourTiers(W, H, symmetric=True)
    generate_dataset(root, game, client, per_shard=1_000)
    solve_dataset(root, client)
    assert not check_dataset(root, client).refuted
    case = generate(W, H, symmetry=True)
    sol = api.solve(case, engine="numpy")
    codes = np.asarray(case.graph.names.codes, dtype=np.uint64)  # type: ignore[attr-defined]
    rem = sol.columns["remoteness"]
    # a stranger names each class by either of its codes: here the mirror image's
    mirrored = Board(W, H).mirror(codes)
    cols = {
        "code": mirrored.astype(np.int64),
        "value": sol.columns["value"].data.astype(np.int64),
        "remoteness": np.where(rem.given, rem.data, NONE).astype(np.int64),
    }
    res = check_dataset(root, client, answers=write_table(tmp_path / "theirs", cols))
    assert not res.refuted and res.positions == len(codes)
    cols["value"][pick({**cols, "move": cols["remoteness"]}, 1)] = -1
    assert check_dataset(root, client, answers=write_table(tmp_path / "bad", cols)).refuted


def test_a_move_into_another_tier_is_named_with_its_tier() -> None:
    """A stored graph numbers each tier's nodes from 0: a violation's reason names a move's
    target in another tier with that tier, one in the witness's own tier by its id alone."""
    from verifier.dataset.graphs import GraphTiers
    from verifier.dataset.judge import ShardMoves, _child_name

    exp = ShardMoves(
        codes=np.array([0], dtype=np.uint64),
        outcome=np.zeros(1, dtype=np.int8),
        children=np.array([7, 7], dtype=np.uint64),
        child_tier=np.array([0, 2], dtype=np.int64),
        parent=np.zeros(2, dtype=np.intp),
    )
    game = GraphTiers(nodes=10, edges=2, tiers=3)
    assert _child_name(game, exp, 0, 0) == "node 7"
    assert _child_name(game, exp, 1, 0) == "node 7 of tier 2"


def test_another_dataset_of_the_game_is_judged_as_a_table(
    client: Any, solved: Path, tmp_path: Path
) -> None:
    """The same board generated and solved again with another shard size stands for a dataset
    solved elsewhere: verified; each of its published fields corrupted where its solver wrote
    them (digest updated, so only the check can tell) is refuted; one of another board, or not
    solved, is one line."""
    from verifier.dataset.manifest import load_manifest
    from verifier.dataset.storage import read_answers, write_answers

    addr = ("--engine", "dask", "--scheduler", client.scheduler.address)
    other = tmp_path / "other"
    prepare_output(other)
    generate_dataset(other, ConnectFourTiers(W, H), client, per_shard=3_000)
    one_line_error(run_cli("verify", solved, "--answers", other, *addr), 2, "solve it first")
    solve_dataset(other, client)
    r = run_cli("verify", solved, "--answers", other, *addr)
    assert r.exit_code == 0, r.output
    assert dataset_verdict(r) == ("VERIFIED", EMPTY_DRAW)
    assert f"answers judged: {other} (another dataset's answers" in r.output
    assert not list((solved / "tmp").glob("export-*"))  # the exported table is removed

    m = load_manifest(other)
    s = m.tiers[6].shards[0]
    label, rem = read_answers(other, 6, 0, s.answers_sha256, s.positions)
    i = int(np.flatnonzero(label == 1)[0])
    for field, check in (("label", "rules"), ("remoteness", "remoteness")):
        bad_label, bad_rem = label.copy(), rem.copy()
        if field == "label":
            bad_label[i] = -1
        else:
            bad_rem[i] += 2
        s.answers_sha256 = write_answers(other, 6, 0, (bad_label, bad_rem))
        m.save(other)
        r = run_cli("verify", solved, "--answers", other, "--json", *addr)
        doc = json.loads(stdout(r))
        assert r.exit_code == 1 and doc["verdict"] == "refuted", r.output
        assert doc["checks"][check]["violations"] >= 1, (field, doc["checks"])

    small = tmp_path / "small"
    prepare_output(small)
    generate_dataset(small, ConnectFourTiers(3, 3), client, per_shard=1_000)
    one_line_error(run_cli("verify", solved, "--answers", small, *addr), 2, "$.parameters")


# --- the dataset itself: exactly the positions reachable from the start --------------------


def forged(solved: Path, tmp_path: Path, tier: int, change: Any) -> Path:
    """A copy of the solved dataset whose shards of ``tier`` are rewritten by
    ``change(codes, label, rem, shard, shards)`` (new ``(codes, label, rem)``), as a forger
    would: every digest, size and count of the manifest recomputed to match, so that nothing
    but the check of the data can tell."""
    import shutil

    from verifier.dataset.manifest import load_manifest
    from verifier.dataset.storage import (
        read_answers,
        read_codes,
        write_answers,
        write_codes,
    )

    root = tmp_path / "forged"
    shutil.copytree(solved, root)
    m = load_manifest(root)
    t = m.tiers[tier]
    labels, rems = [], []
    for s in t.shards:
        codes = read_codes(root, tier, s.shard, s.sha256, s.positions)
        label, rem = read_answers(root, tier, s.shard, s.answers_sha256, s.positions)
        codes, label, rem = change(codes, label, rem, s.shard, len(t.shards))
        s.positions = len(codes)
        s.sha256 = write_codes(root, tier, s.shard, codes)
        s.answers_sha256 = write_answers(root, tier, s.shard, (label, rem))
        labels.append(label)
        rems.append(rem)
    label, rem = np.concatenate(labels), np.concatenate(rems)
    t.won, t.lost, t.drawn = (int((label == v).sum()) for v in (1, -1, 0))
    t.max_remoteness = int(rem.max())
    m.save(root)
    return root


def insert(code: int, label: int, rem: int) -> Any:
    """A change for ``forged``: ``code`` added, in order, to the shard owning it, with the
    claim ``(label, rem)``."""
    from verifier.dataset.storage import shard_of

    def change(codes: Any, lab: Any, r: Any, shard: int, shards: int) -> Any:
        if int(shard_of(np.array([code], np.uint64), shards)[0]) != shard:
            return codes, lab, r
        i = int(np.searchsorted(codes, np.uint64(code)))
        return (np.insert(codes, i, np.uint64(code)), np.insert(lab, i, np.int8(label)),
                np.insert(r, i, np.int32(rem)))  # fmt: skip

    return change


def refuted_at(client: Any, root: Path, check: str, *words: str) -> dict[str, Any]:
    """``verify DIR`` ends REFUTED (exit 1, no traceback) with violations of ``check``, whose
    first names ``words``; the JSON document's ``checks``."""
    addr = ("--engine", "dask", "--scheduler", client.scheduler.address)
    r = run_cli("verify", root, *addr)
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert dataset_verdict(r)[0] == "REFUTED", r.output
    line = next(x for x in r.output.splitlines() if x.startswith(f"  {check} "))
    for w in words:
        assert w in line, line
    doc = json.loads(stdout(run_cli("verify", root, "--json", *addr)))
    assert doc["verdict"] == "refuted" and doc["checks"][check]["violations"] >= 1
    return dict(doc["checks"])


def test_a_duplicated_code_is_refuted(client: Any, solved: Path, tmp_path: Path) -> None:
    # issue 43 item 10: a code and its row twice in a shard: "every one of N + 1 claims"
    def twice(codes: Any, label: Any, rem: Any, shard: int, shards: int) -> Any:
        if shard:
            return codes, label, rem
        return (
            np.insert(codes, 5, codes[5]),
            np.insert(label, 5, label[5]),
            np.insert(rem, 5, rem[5]),
        )

    root = forged(solved, tmp_path, 6, twice)
    code = int(read_tier(root, 6, 0)[5])
    checks = refuted_at(client, root, "dataset", f"code {code}", "a duplicate", "in tier 6")
    assert checks["dataset"]["first"]["code"] == code and checks["dataset"]["violations"] == 1
    assert checks["rules"]["violations"] == 0  # the claims themselves obey the rules


def read_tier(root: Path, tier: int, shard: int) -> Any:
    from verifier.dataset.manifest import load_manifest
    from verifier.dataset.storage import read_codes

    s = load_manifest(root).tiers[tier].shards[shard]
    return read_codes(root, tier, shard, s.sha256, s.positions)


def unreachable_full_board(root: Path) -> int:
    """A full board no game reaches, whose last mover has four in a row (so "lost" obeys the
    rules): x's stones fill the bottom row and more, none of it in the dataset."""
    from itertools import combinations

    board = Board(W, H)
    last = W * H
    stored = np.concatenate(
        [read_tier(root, last, s) for s in range(len(json.loads(
            (root / "manifest.json").read_text())["tiers"][last]["shards"]))]
    )  # fmt: skip
    full = sum(((1 << H) - 1) << (c * board.col) for c in range(W))
    cells = [c * board.col + r for c in range(W) for r in range(H)]
    for xs in combinations(cells, W * H // 2):
        x = sum(1 << b for b in xs)
        o = full ^ x  # x moved first, so x is to move on a full board: o moved last
        code = int(board.code(np.array([x], np.uint64), np.array([full], np.uint64))[0])
        if bool(board.has_four(np.array([o], np.uint64))[0]) and code not in stored:
            return code
    raise AssertionError("no unreachable full board")


def test_an_unreachable_position_is_refuted(client: Any, solved: Path, tmp_path: Path) -> None:
    # issue 43 item 11: a board no play reaches, in the last tier, claimed lost (as the rules
    # would have it): every claim obeys the rules, the dataset is still not the game's
    code = unreachable_full_board(solved)
    root = forged(solved, tmp_path, W * H, insert(code, -1, 0))
    checks = refuted_at(client, root, "reachable", f"code {code}", "not reachable from the start",
                        f"in tier {W * H}")  # fmt: skip
    assert checks["reachable"]["violations"] == 1 and checks["rules"]["violations"] == 0
    assert checks["dataset"]["violations"] == 0


@pytest.mark.parametrize(
    ("key", "delta"), [("won", 1), ("lost", -1), ("drawn", 2), ("max_remoteness", 1)]
)
def test_a_count_of_the_manifest_altered_is_refuted(
    client: Any, solved: Path, tmp_path: Path, key: str, delta: int
) -> None:
    # issue 43 item 12: the counts solve prints as the answer, altered in the manifest
    import shutil

    root = tmp_path / "counts"
    shutil.copytree(solved, root)
    doc = json.loads((root / "manifest.json").read_text())
    said = doc["tiers"][7][key]
    doc["tiers"][7][key] = said + delta
    (root / "manifest.json").write_text(json.dumps(doc))
    checks = refuted_at(client, root, "counts", "first in tier 7", f"$.tiers[7].{key}",
                        f"{said + delta}, the stored answers hold {said} ")  # fmt: skip
    assert checks["counts"]["violations"] == 1
    assert checks["counts"]["first"]["tier"] == 7 and checks["counts"]["first"]["code"] is None


def test_a_tiers_position_count_that_its_shards_contradict_is_one_line(
    client: Any, solved: Path, tmp_path: Path
) -> None:
    import shutil

    root = tmp_path / "positions"
    shutil.copytree(solved, root)
    doc = json.loads((root / "manifest.json").read_text())
    doc["tiers"][5]["positions"] += 1
    (root / "manifest.json").write_text(json.dumps(doc))
    addr = ("--engine", "dask", "--scheduler", client.scheduler.address)
    one_line_error(run_cli("verify", root, *addr), 2, "$.tiers[5].positions", "shards hold")


@pytest.mark.parametrize("kind", ["no board", "another tier", "another shard", "not increasing"])
def test_a_code_that_is_no_position_of_its_shard_is_refuted(
    client: Any, solved: Path, tmp_path: Path, kind: str
) -> None:
    # issue 43 item 13: a code that is no board (4x4's 600000, here one past the 4x3 board's
    # bits) was a traceback in connect4.decode; and codes of another tier, another shard
    last = W * H
    if kind == "no board":
        code, why, tier = 1 << (W * (H + 1)) | 5, "is no position of the game", last
        change = insert(code, -1, 0)
    elif kind == "another tier":
        code, tier = int(read_tier(solved, 3, 0)[0]), last
        why = "is a position of tier 3, not of tier 12"
        change = insert(code, -1, 0)
    elif kind == "another shard":
        tier, moved = 7, {}
        code, why = int(read_tier(solved, 7, 0)[3]), "belongs to shard 0"

        def change(codes: Any, label: Any, rem: Any, shard: int, shards: int) -> Any:
            if shard == 0:  # row 3 copied into shard 1 too, in order there
                moved["row"] = (codes[3], label[3], rem[3])
            if shard == 1:
                c, lab, r = moved["row"]
                i = int(np.searchsorted(codes, c))
                return np.insert(codes, i, c), np.insert(label, i, lab), np.insert(rem, i, r)
            return codes, label, rem

    else:
        tier = 7

        def change(codes: Any, label: Any, rem: Any, shard: int, shards: int) -> Any:
            if shard:
                return codes, label, rem
            swap = np.arange(len(codes))
            swap[[3, 4]] = [4, 3]
            return codes[swap], label[swap], rem[swap]

        code, why = int(read_tier(solved, 7, 0)[3]), "out of order"
    root = forged(solved, tmp_path, tier, change)
    checks = refuted_at(client, root, "dataset", f"code {code}", why, f"in tier {tier}")
    assert checks["dataset"]["first"]["code"] == code


def test_a_start_that_is_not_the_games_is_one_line(
    client: Any, solved: Path, tmp_path: Path
) -> None:
    # the reachable check counts from the start: the manifest's must be the game's
    import shutil

    root = tmp_path / "start"
    shutil.copytree(solved, root)
    doc = json.loads((root / "manifest.json").read_text())
    doc["root"]["code"] = int(read_tier(solved, 1, 0)[0])
    (root / "manifest.json").write_text(json.dumps(doc))
    addr = ("--engine", "dask", "--scheduler", client.scheduler.address)
    one_line_error(run_cli("verify", root, *addr), 2, "$.root.code", "the start of connect4")


def test_a_rule_changed_in_its_one_place_changes_both_routes(
    client: Any, solved: Path, table: dict[str, np.ndarray], monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:  # fmt: skip
    """Issue 45 item 3: normal play's rule is written once, negamax in ``OrderSystem.apply``;
    the in-memory ``rules`` check and the sharded check (the dataset's own answers and a
    stranger's table) both run it. Changed there (an inner position's won and lost swapped),
    the true answers break it on both routes; unchanged, both routes accept them."""
    from verifier.checks.rules import rule_faults
    from verifier.equations.system import OR, OrderSystem
    from verifier.model import SolverResult
    from verifier.model.describe import describe

    case = generate(W, H)
    values = api.solve(case, engine="numpy").columns["value"].data

    def in_memory() -> int:
        view = describe(case.graph.semantics).view
        return len(rule_faults(case.graph, SolverResult("engine", view, values)))

    assert in_memory() == 0
    assert check_dataset(solved, client).counts["rules"] == 0
    real_apply = OrderSystem.apply

    def swapped(self: OrderSystem, idx: Any) -> Any:
        out = real_apply(self, idx)
        return np.where(self.negamax & (self.kind == OR), self.top - out, out)

    monkeypatch.setattr(OrderSystem, "apply", swapped)
    assert in_memory() > 0
    own = check_dataset(solved, client)
    assert own.verdict == "refuted" and own.counts["rules"] > 0, own.counts
    theirs = judged(client, solved, table, tmp_path)
    assert theirs.verdict == "refuted" and theirs.counts["rules"] > 0, theirs.counts
