"""A dataset's certificate judged by the standalone checker (``checker/judge.py``, issue 46):
Connect Four 4x4 (and up to the mirror) accepted; each corruption of a shard rejected naming
the position and the condition, the digests written again after it (so that only the condition
can catch it); a mutation harness turning each condition off in turn; ``verify DIR --engine
dask`` running it before VERIFIED."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from certified import judged
from tier_cli import run_cli

pytest.importorskip("distributed")
pq = pytest.importorskip("pyarrow.parquet")

from checker import dataset  # noqa: E402
from checker.connect4 import Rules  # noqa: E402
from checker.judge import check  # noqa: E402
from verifier.dataset import certificate as writer  # noqa: E402
from verifier.dataset.manifest import ShardEntry, load_manifest  # noqa: E402
from verifier.dataset.storage import (  # noqa: E402
    answers_path,
    shard_path,
    write_answers,
    write_codes,
)
from verifier.distributed.tiers.driver import (  # noqa: E402
    generate_dataset,
    prepare_output,
    solve_dataset,
)
from verifier.games.tiered.connect4 import ConnectFourTiers  # noqa: E402

pytestmark = [pytest.mark.dask, pytest.mark.filterwarnings("ignore:Port 8787 is already in use")]
W, H, TOP = 4, 4, 16
RULES = Rules(W, H)


@pytest.fixture(scope="module")
def made(client: Any, tmp_path_factory: Any) -> dict[bool, Path]:
    out = {}
    for sym in (False, True):
        root = tmp_path_factory.mktemp("c4") / ("sym" if sym else "plain")
        prepare_output(root)
        generate_dataset(root, ConnectFourTiers(W, H, symmetric=sym), client, per_shard=2_000)
        solve_dataset(root, client)
        out[sym] = root
    return out


@pytest.fixture
def ds(made: dict[bool, Path], tmp_path: Path) -> Path:
    """A fresh copy of the 4x4 dataset (corrupted by the test)."""
    return Path(shutil.copytree(made[False], tmp_path / "ds"))


def read(root: Path, k: int, j: int) -> tuple[Any, Any, Any]:
    codes = pq.read_table(shard_path(root, k, j)).column("code").to_numpy()
    t = pq.read_table(answers_path(root, k, j))
    return codes, t.column("label").to_numpy(), t.column("remoteness").to_numpy()


def rewrite(root: Path, k: int, j: int, codes: Any, label: Any, rem: Any) -> None:
    """A shard written again, its digests and its tier's counts in the manifest with it (so
    that only a condition of the checker can catch what changed)."""
    order = np.argsort(codes, kind="stable")
    codes, label, rem = codes[order], label[order], rem[order]
    m = load_manifest(root)
    t = m.tiers[k]
    while len(t.shards) <= j:
        t.shards.append(ShardEntry(len(t.shards), 0, ""))
    s = t.shards[j]
    s.positions = len(codes)
    s.sha256 = write_codes(root, k, j, codes.astype(np.uint64))
    s.answers_sha256 = write_answers(root, k, j, (label.astype(np.int8), rem.astype(np.int32)))
    labels = np.concatenate([read(root, k, x.shard)[1] for x in t.shards])
    rems = np.concatenate([read(root, k, x.shard)[2] for x in t.shards])
    t.won, t.lost, t.drawn = (int((labels == v).sum()) for v in (1, -1, 0))
    t.max_remoteness = int(rems[labels != 0].max(initial=-1))
    m.save(root)


def where(root: Path, k: int, code: int) -> int:
    """The shard of tier ``k`` holding ``code``."""
    for j in range(len(load_manifest(root).tiers[k].shards)):
        if code in set(read(root, k, j)[0].tolist()):
            return j
    raise AssertionError(code)


def tier(root: Path, k: int) -> tuple[Any, Any, Any]:
    shards = [read(root, k, s.shard) for s in load_manifest(root).tiers[k].shards]
    return tuple(np.concatenate([s[i] for s in shards]) for i in range(3))  # type: ignore[return-value]


def moves(root: Path, k: int) -> tuple[Any, Any]:
    """``(parent, child)`` codes of every move from a non-terminal position of tier ``k``."""
    codes = tier(root, k)[0]
    cur, mask, _ = RULES.decode(codes)
    live = np.flatnonzero(~RULES.four(mask ^ cur))
    child, parent = RULES.children(cur[live], mask[live])
    return codes[live][parent], child


def set_answer(root: Path, k: int, code: int, label: int, rem: int) -> None:
    j = where(root, k, code)
    codes, lab, r = read(root, k, j)
    at = int(np.flatnonzero(codes == code)[0])
    lab, r = lab.copy(), r.copy()
    lab[at], r[at] = label, rem
    rewrite(root, k, j, codes, lab, r)


def parents_unmoved(root: Path, k: int, want: int) -> int:
    """A non-terminal position of tier ``k`` labelled ``want`` whose parents' values do not
    depend on its remoteness or its label being won (none of them lost; when lost, another
    lost child as near): the corruption only its own condition can catch."""
    codes, label, rem = tier(root, k)
    p_codes, p_label, _ = tier(root, k - 1)
    parent, child = moves(root, k - 1)
    plab = dict(zip(p_codes.tolist(), p_label.tolist(), strict=True))
    lab = dict(zip(codes.tolist(), label.tolist(), strict=True))
    rr = dict(zip(codes.tolist(), rem.tolist(), strict=True))
    cur, mask, _ = RULES.decode(codes)
    terminal = set(codes[RULES.four(mask ^ cur)].tolist())
    for x in codes[label == want].tolist():
        ps = parent[child == x].tolist()
        if x in terminal or not ps:
            continue
        if want == 1 and all(plab[p] != -1 for p in ps):
            return int(x)
        if want == -1:
            others = [
                [rr[c] for c in child[parent == p].tolist() if c != x and lab[c] == -1] for p in ps
            ]
            if all(o and min(o) <= rr[x] for o in others):
                return int(x)
    raise AssertionError("no such position")


# ------------------------------------------------------------------------ the corruptions
def c_label(root: Path) -> tuple[str, int]:
    x = parents_unmoved(root, 8, 1)
    set_answer(root, 8, x, -1, 5)
    return "N3", x


def c_remoteness(root: Path) -> tuple[str, int]:
    x = parents_unmoved(root, 8, 1)
    set_answer(root, 8, x, 1, int(tier(root, 8)[2][tier(root, 8)[0] == x][0]) + 2)
    return "N2", x


def c_lost_remoteness(root: Path) -> tuple[str, int]:
    for k in (9, 7, 11, 5):
        try:
            x = parents_unmoved(root, k, -1)
        except AssertionError:
            continue
        set_answer(root, k, x, -1, int(tier(root, k)[2][tier(root, k)[0] == x][0]) + 2)
        return "N3", x
    raise AssertionError("no lost position whose parents keep their remoteness")


def c_drawn_claim(root: Path) -> tuple[str, int]:
    x = parents_unmoved(root, 8, 1)
    set_answer(root, 8, x, 0, -1)
    return "N4", x


def c_terminal(root: Path) -> tuple[str, int]:
    codes, label, _ = tier(root, TOP)
    x = int(codes[label == 0][0])
    set_answer(root, TOP, x, 0, 3)
    return "N1", x


def c_missing(root: Path) -> tuple[str, int]:
    """A drawn full board deleted (its parents' values do not change: a drawn child reads as
    the default)."""
    codes, label, _ = tier(root, TOP)
    x = int(codes[label == 0][-1])
    j = where(root, TOP, x)
    c, lab, r = read(root, TOP, j)
    keep = c != x
    rewrite(root, TOP, j, c[keep], lab[keep], r[keep])
    return "successor", x


def c_extra(root: Path) -> tuple[str, int]:
    """A full board after a game already won (its parent is terminal): legal, unreachable."""
    parent_codes = tier(root, TOP - 1)[0]
    cur, mask, _ = RULES.decode(parent_codes)
    done = np.flatnonzero(RULES.four(mask ^ cur))
    child, _ = RULES.children(cur[done], mask[done])
    have = set(tier(root, TOP)[0].tolist())
    x = next(int(c) for c in child.tolist() if c not in have)
    c_cur, c_mask, _ = RULES.decode(np.array([x], np.uint64))
    lost = bool(RULES.four(c_mask ^ c_cur)[0])
    j = int(dataset.owner(np.array([x], np.uint64), len(load_manifest(root).tiers[TOP].shards))[0])
    c, lab, r = read(root, TOP, j)
    rewrite(
        root, TOP, j, np.append(c, np.uint64(x)), np.append(lab, -1 if lost else 0),
        np.append(r, 0 if lost else -1),
    )  # fmt: skip
    return "reachable", x


def c_duplicate_start(root: Path) -> tuple[str, int]:
    c, lab, r = read(root, 0, 0)
    rewrite(root, 0, 0, np.repeat(c, 2), np.repeat(lab, 2), np.repeat(r, 2))
    return "sorted", int(c[0])


def c_duplicate(root: Path) -> tuple[str, int]:
    c, lab, r = read(root, 8, 1)
    rewrite(root, 8, 1, np.append(c, c[5]), np.append(lab, lab[5]), np.append(r, r[5]))
    return "sorted", int(c[5])


def c_start_in_two_shards(root: Path) -> tuple[str, int]:
    """Tier 0 in two shards, the start in both: one of them in the wrong shard."""
    c, lab, r = read(root, 0, 0)
    rewrite(root, 0, 1, c, lab, r)
    return "shard", int(c[0])


def c_wrong_shard(root: Path) -> tuple[str, int]:
    c, lab, r = read(root, 8, 0)
    c2, lab2, r2 = read(root, 8, 1)
    x = int(c[3])
    rewrite(root, 8, 1, np.append(c2, c[3]), np.append(lab2, lab[3]), np.append(r2, r[3]))
    rewrite(root, 8, 0, np.delete(c, 3), np.delete(lab, 3), np.delete(r, 3))
    return "shard", x


def c_not_a_board(root: Path) -> tuple[str, int]:
    x = int(RULES.bottom) | (1 << 62)
    j = int(dataset.owner(np.array([x], np.uint64), len(load_manifest(root).tiers[TOP].shards))[0])
    c, lab, r = read(root, TOP, j)
    rewrite(root, TOP, j, np.append(c, np.uint64(x)), np.append(lab, 0), np.append(r, -1))
    return "board", x


def c_counts(root: Path) -> tuple[str, int]:
    """The certificate's (and the manifest's) count of won positions in tier 8, one more."""
    m = load_manifest(root)
    m.tiers[8].won = (m.tiers[8].won or 0) + 1
    m.save(root)
    return "counts", -1


def c_manifest(root: Path) -> tuple[str, int]:
    """The manifest alone says another count (the certificate's, written before, is right)."""
    cert = writer.certificate_of(root)
    m = load_manifest(root)
    m.tiers[8].won = (m.tiers[8].won or 0) + 1
    m.save(root)
    writer.certificate_of = lambda r, m=None: cert  # type: ignore[assignment]
    return "manifest", -1


def c_reencoded(root: Path) -> tuple[str, int]:
    """Tier 8's answers written again with another compression: the same values, another
    sha256 (the certificate's digest no longer ties the file)."""
    t = pq.read_table(answers_path(root, 8, 0))
    cert = writer.certificate_of(root)
    pq.write_table(t, answers_path(root, 8, 0), compression="gzip")
    writer.certificate_of = lambda r, m=None: cert  # type: ignore[assignment]
    return "digest", -1


@pytest.fixture(autouse=True)
def _writer_restored() -> Iterator[None]:
    kept = writer.certificate_of
    yield
    writer.certificate_of = kept


# ----------------------------------------------------------------------------- the tests
def test_4x4_and_its_symmetric_dataset_are_accepted(made: dict[bool, Path]) -> None:
    for sym, n in ((False, 161_029), (True, 80_541)):
        got = judged(made[sym])
        assert got.status == "ACCEPTED", got.message
        assert got.message == f"ACCEPTED ({n:,} positions in 17 tiers)"
    assert check(str(made[False]), str(made[False].parent / "cert.json"), jobs=2).status == (
        "ACCEPTED"
    )


CORRUPTIONS = [
    c_label, c_remoteness, c_lost_remoteness, c_drawn_claim, c_terminal, c_missing, c_extra,
    c_duplicate, c_duplicate_start, c_wrong_shard, c_not_a_board, c_counts,
]  # fmt: skip


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__)
def test_each_corruption_is_rejected_naming_the_position(ds: Path, corrupt: Any) -> None:
    condition, code = corrupt(ds)
    got = judged(ds)
    assert (got.status, got.condition) == ("REJECTED", condition), got.message
    if code >= 0:
        assert str(code) in got.message, got.message
    if condition in ("N1", "N2", "N3", "N4", "sorted", "shard", "reachable"):
        assert got.code == code and got.position == RULES.board(code)


def test_a_count_in_the_certificate_alone_is_rejected(ds: Path) -> None:
    cert = writer.write_certificate(ds, ds.parent / "cert.json")
    doc = json.loads(cert.read_text())
    doc["tiers"][5]["lost"] += 1
    cert.write_text(json.dumps(doc))
    got = check(str(ds), str(cert))
    assert (got.status, got.condition, got.tier) == ("REJECTED", "counts", 5), got.message
    assert "lost: the certificate says" in got.message


def test_a_file_whose_digest_differs_is_rejected(ds: Path) -> None:
    cert = writer.write_certificate(ds, ds.parent / "cert.json")
    _, label, rem = read(ds, 8, 0)
    write_answers(ds, 8, 0, (label, rem + 1))  # the manifest and the certificate keep the old
    got = check(str(ds), str(cert))
    assert (got.status, got.condition, got.tier) == ("REJECTED", "digest", 8), got.message
    assert "answers/tier=8/shard=0.parquet: sha256" in got.message


def test_a_non_canonical_code_in_a_symmetric_dataset_is_rejected(
    made: dict[bool, Path], tmp_path: Path
) -> None:
    root = Path(shutil.copytree(made[True], tmp_path / "ds"))
    c, lab, r = read(root, 8, 0)
    at = int(np.flatnonzero(RULES.mirror(c) != c)[0])
    m = int(RULES.mirror(c[at : at + 1])[0])
    rewrite(root, 8, 0, np.delete(c, at), np.delete(lab, at), np.delete(r, at))
    j = int(dataset.owner(np.array([m], np.uint64), len(load_manifest(root).tiers[8].shards))[0])
    c2, lab2, r2 = read(root, 8, j)
    rewrite(root, 8, j, np.append(c2, np.uint64(m)), np.append(lab2, lab[at]), np.append(r2, r[at]))
    got = judged(root)
    assert (got.status, got.condition, got.code) == ("REJECTED", "mirror", m), got.message


def test_bad_input_is_one_line_exit_2(ds: Path, tmp_path: Path) -> None:
    from checker.check_certificate import main

    cert = writer.write_certificate(ds, tmp_path / "cert.json")
    doc = json.loads(cert.read_text())
    doc["tiers"][3]["shards"][0]["codes"] = "../elsewhere.parquet"
    cert.write_text(json.dumps(doc))
    got = check(str(ds), str(cert))
    assert got.status == "BAD" and "$.tiers[3].shards[0]: files" in got.message
    cert.write_text('{"format": 1, "format": 2}')
    assert "duplicate key 'format'" in check(str(ds), str(cert)).message
    assert main([str(ds), str(cert)]) == 2


# ------------------------------------------------------------------- the mutation harness
NEEDED = {
    "sorted": c_duplicate_start,
    "shard": c_start_in_two_shards,
    "successor": c_missing,
    "reachable": c_extra,
    "N1": c_terminal,
    "N2": c_remoteness,
    "N3": c_lost_remoteness,
    "N4": c_drawn_claim,
    "counts": c_counts,
    "manifest": c_manifest,
    "digest": c_reencoded,
}
"""Per condition, a corruption that only it catches: with the condition off, accepted."""
BACKED = {"board": (c_not_a_board, "reachable")}
"""A condition another one implies (a position that is not a board of K stones is never a
move's target): off, its corruption is still caught, by the other."""


@pytest.mark.parametrize("condition", sorted(NEEDED))
def test_each_condition_turned_off_lets_a_corruption_through(ds: Path, condition: str) -> None:
    want, _ = NEEDED[condition](ds)
    assert want == condition
    whole = judged(ds)
    assert (whole.status, whole.condition) == ("REJECTED", condition), whole.message
    weak = judged(ds, condition)
    assert weak.status == "ACCEPTED", weak.message


def test_a_condition_another_implies_is_backed_by_it(ds: Path) -> None:
    for condition, (corrupt, other) in BACKED.items():
        corrupt(ds)
        got = judged(ds, condition)
        assert (got.status, got.condition) == ("REJECTED", other), got.message


def test_jobs_2_reports_the_first_violation_as_jobs_1(ds: Path) -> None:
    """A wrong label in every shard of tier 8: two worker processes report shard 0's, the
    verdict of one (the shards' results are taken in their order, not as they finish)."""
    shards = len(load_manifest(ds).tiers[8].shards)
    assert shards == 3
    for j in range(shards):
        codes, lab, rem = read(ds, 8, j)
        lab = lab.copy()
        lab[-1] = 1 if lab[-1] != 1 else -1
        rewrite(ds, 8, j, codes, lab, rem)
    one, two = judged(ds), judged(ds, jobs=2)
    assert one.status == "REJECTED" and one.message.startswith("tier 8 shard 0: "), one.message
    assert two == one


# ------------------------------------------------------------------------ verify DIR
def test_verify_runs_the_checker_before_verified(client: Any, ds: Path, tmp_path: Path) -> None:
    address = client.scheduler.address
    out = tmp_path / "out.cert.json"
    r = run_cli("verify", ds, "--engine", "dask", "--scheduler", address, "--certificate", out)
    assert r.exit_code == 0, r.output
    assert "  certificate ok" in r.output and "VERIFIED" in r.output
    assert json.loads(out.read_text())["format"] == writer.FORMAT
    again = run_cli("verify", ds, "--engine", "dask", "--scheduler", address, "--certificate", out)
    assert again.exit_code == 2 and "the file exists: --force replaces it" in again.output
    off = run_cli("verify", ds, "--engine", "dask", "--scheduler", address, "--no-self-check")
    assert off.exit_code == 0 and "certificate" not in off.output
    r = run_cli("check-certificate", ds, out)
    assert r.exit_code == 0 and "ACCEPTED (161,029 positions in 17 tiers)" in r.output


def test_verify_runs_the_checker_in_as_many_processes_as_the_cluster_had_workers(
    client: Any, ds: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cluster is closed when the checker runs: its cores are the checker's (2 workers
    here; a one-core machine runs one process), and the verdict is the same."""
    import os

    import checker.judge

    asked: list[int] = []

    def counted(root: str, cert: str, jobs: int = 1) -> Any:
        asked.append(jobs)
        return check(root, cert, jobs)

    monkeypatch.setattr(checker.judge, "check", counted)
    monkeypatch.setenv("VERIFIER_PROGRESS_EVERY", "5")  # the stages' lines, stderr not a terminal
    r = run_cli("verify", ds, "--engine", "dask", "--scheduler", client.scheduler.address)
    assert r.exit_code == 0 and "  certificate ok" in r.output, r.output
    jobs = min(2, os.cpu_count() or 1)
    assert asked == [jobs]
    said = f"judges the certificate: 161,029 positions in {jobs} process" + "es" * (jobs > 1)
    assert said in r.output


def test_a_wrong_certificate_of_ours_is_refuted(client: Any, ds: Path) -> None:
    kept = writer.certificate_of

    def wrong(root: Path, m: Any = None) -> dict[str, Any]:
        doc = kept(root, m)
        doc["tiers"][7]["drawn"] += 1
        return doc

    writer.certificate_of = wrong
    r = run_cli("verify", ds, "--engine", "dask", "--scheduler", client.scheduler.address)
    assert r.exit_code == 1, r.output
    assert "certificate 1 violation(s)" in r.output
    assert "our own output is wrong: the standalone checker rejects it: tier 7: counts" in r.output


def test_check_certificate_dir_reads_strictly(ds: Path, tmp_path: Path) -> None:
    """``verifier check-certificate DIR CERT``: a rejection exits 1 naming the position, a
    certificate it cannot read exits 2 in one line."""
    c_extra(ds)
    cert = writer.write_certificate(ds, tmp_path / "cert.json")
    r = run_cli("check-certificate", ds, cert)
    assert r.exit_code == 1 and "REJECTED: tier 16 shard" in r.output and "reachable" in r.output
    doc = json.loads(cert.read_text())
    doc["tiers"][2]["shards"][0]["positions"] = "16"
    cert.write_text(json.dumps(doc))
    r = run_cli("check-certificate", ds, cert)
    assert r.exit_code == 2 and "$.tiers[2].shards[0].positions: '16' is not int" in r.output
    assert len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output


def test_a_tier_larger_than_the_checkers_cache_is_read_kept_shards_first(
    made: dict[bool, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checker looks up each shard's moves in the shards of the next tier. Read in one
    order by every shard, a tier larger than its cache (``CHECKER_CACHE_BYTES``) is a cyclic
    scan that never finds a shard kept (Connect Four 6x5's tiers are 2.3 GB); kept shards first,
    fewer reads, the same verdict."""
    from checker import judge

    root = made[False]
    tiers = load_manifest(root).tiers
    assert max(len(t.shards) for t in tiers) >= 6  # tiers of several shards
    largest = max(sum(s.positions for s in t.shards) for t in tiers)
    reads: list[tuple[int, int]] = []
    real = dataset._shard

    def counting(spec: Any, tier: int, j: int) -> Any:
        reads.append((tier, j))
        return real(spec, tier, j)

    monkeypatch.setattr(dataset, "_shard", counting)
    monkeypatch.setenv("CHECKER_CACHE_BYTES", str(largest * 13 // 2))  # half the largest tier kept
    runs = {}
    for name, order in (("kept first", dataset.held_first), ("one order", lambda t, s: s)):
        monkeypatch.setattr(judge, "held_first", order)
        dataset._CACHE.kept.clear()
        reads.clear()
        got = judged(root, out=root.parent / "cert-cache.json")
        assert got.status == "ACCEPTED", got.message
        runs[name] = len(reads)
    assert runs["kept first"] < 0.7 * runs["one order"], runs


def test_a_missing_successor_is_named_the_same_whatever_the_cache_holds(
    ds: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two missing boards in two shards of the last tier: the violation named is the same with
    no shard kept and with shards kept (read first)."""
    codes, label, _ = tier(ds, TOP)
    drawn = codes[label == 0]
    gone = {}
    for x in drawn[::-1].tolist():
        gone.setdefault(where(ds, TOP, int(x)), int(x))
        if len(gone) == 2:
            break
    for j, x in gone.items():
        c, lab, r = read(ds, TOP, j)
        keep = c != x
        rewrite(ds, TOP, j, c[keep], lab[keep], r[keep])
    said = set()
    for cache in (0, 1 << 30):
        monkeypatch.setenv("CHECKER_CACHE_BYTES", str(cache))
        dataset._CACHE.kept.clear()
        got = judged(ds)
        assert got.status == "REJECTED" and "successor" in got.message, got.message
        said.add(got.message)
    assert len(said) == 1, said
