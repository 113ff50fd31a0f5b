"""Each shard file read once per worker and tier, not once per task that needs it
(``verifier.dataset.shard_cache``; issue 48 item 1): a check task of tier K looks
up its moves' targets in every shard of tier K + 1, a solve task their answers, and without
the cache the reads grew as shards(K) x shards(K + 1). A file changed since it was cached is
read and checked again; a missing successor is still refused naming the position.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

import verifier.dataset.shard_cache as shard_cache  # noqa: E402
import verifier.dataset.storage as storage  # noqa: E402
from verifier.dataset.errors import DatasetError  # noqa: E402
from verifier.dataset.manifest import load_manifest  # noqa: E402
from verifier.distributed.tiers.check import check_dataset  # noqa: E402
from verifier.distributed.tiers.driver import (  # noqa: E402
    generate_dataset,
    prepare_output,
    solve_dataset,
)
from verifier.games.tiered.connect4 import ConnectFourTiers  # noqa: E402

pytestmark = [pytest.mark.dask, pytest.mark.filterwarnings("ignore:Port 8787 is already in use")]

WORKERS = 2  # the ``client`` fixture's


@pytest.fixture(scope="module")
def generated(client: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Connect Four 4x3 generated in 31 shards, not solved (read-only: tests copy it)."""
    root = tmp_path_factory.mktemp("c43") / "ds"
    prepare_output(root)
    generate_dataset(root, ConnectFourTiers(4, 3), client, per_shard=1_000)
    return root


def copied(generated: Path, tmp_path: Path) -> Path:
    root = tmp_path / "ds"
    shutil.copytree(generated, root)
    return root


def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every Parquet file read from disk from now on (the cache cleared), by path."""
    reads: Counter[str] = Counter()
    real = storage.read_parquet

    def counting(path: Path, sha256: str | None, columns: dict[str, str]) -> Any:
        reads[str(path)] += 1
        return real(path, sha256, columns)

    shard_cache.clear()
    monkeypatch.setattr(storage, "read_parquet", counting)
    return reads


def most_reads(reads: Counter[str], root: Path, kind: str) -> int:
    """The most times one file of ``kind`` (``tier=`` codes, ``answers``) was read."""
    files = [
        n
        for p, n in reads.items()
        if (kind == "answers") == (f"{os.sep}answers{os.sep}" in p) and p.startswith(str(root))
    ]
    assert files, f"no {kind} file read"
    return max(files)


def test_each_shard_is_read_at_most_once_per_worker(
    client: Any, generated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = copied(generated, tmp_path)
    m = load_manifest(dataset)
    assert max(len(t.shards) for t in m.tiers) >= 4  # enough shards for the reads to grow

    reads = counted(monkeypatch)
    solve_dataset(dataset, client)
    assert most_reads(reads, dataset, "answers") <= WORKERS  # the solve's lookups
    assert most_reads(reads, dataset, "codes") <= WORKERS

    reads = counted(monkeypatch)
    res = check_dataset(dataset, client)
    assert res.verdict == "verified" and res.positions == 12_031
    assert most_reads(reads, dataset, "codes") <= WORKERS
    assert most_reads(reads, dataset, "answers") <= WORKERS

    # without the cache (no budget), a shard is read by every task of the tier before it
    monkeypatch.setattr(shard_cache, "SHARE", 0.0)
    reads = counted(monkeypatch)
    again = check_dataset(dataset, client)
    assert again.counts == res.counts and again.verdict == "verified"
    assert most_reads(reads, dataset, "codes") > WORKERS + 2  # 7: five tasks, own, reach


def test_a_file_changed_after_it_was_cached_is_read_and_checked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shard_cache, "budget", lambda: 1 << 20)
    reads = counted(monkeypatch)
    codes = np.arange(10, 1_000, 7, dtype=np.uint64)
    sha = storage.write_codes(tmp_path, 0, 0, codes)
    for _ in range(3):
        got = storage.read_codes(tmp_path, 0, 0, sha, len(codes), cache=True)
        assert np.array_equal(got, codes) and not got.flags.writeable
    path = storage.shard_path(tmp_path, 0, 0)
    assert reads[str(path)] == 1
    with pytest.raises(DatasetError, match="corrupt: sha256"):  # another digest: read again
        storage.read_codes(tmp_path, 0, 0, "0" * 64, len(codes), cache=True)
    # corrupted in place, its modification time put back: its change time tells
    st = path.stat()
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(DatasetError, match=f"{path}: corrupt: sha256"):
        storage.read_codes(tmp_path, 0, 0, sha, len(codes), cache=True)


def test_the_cache_keeps_the_latest_within_its_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codes = np.arange(1_000, dtype=np.uint64)  # 8,000 bytes a shard
    shas = [storage.write_codes(tmp_path, 0, s, codes + np.uint64(s)) for s in range(3)]
    monkeypatch.setattr(shard_cache, "budget", lambda: 17_000)  # two shards
    reads = counted(monkeypatch)
    for s in (0, 1, 2, 2, 1, 0):
        storage.read_codes(tmp_path, 0, s, shas[s], cache=True)
    by_shard = [reads[str(storage.shard_path(tmp_path, 0, s))] for s in range(3)]
    assert by_shard == [2, 1, 1]  # 0 went out when 2 came in
    storage.read_codes(tmp_path, 0, 0, shas[0])  # not asked to cache: always read
    assert reads[str(storage.shard_path(tmp_path, 0, 0))] == 3


def test_a_missing_successor_is_refused_naming_it(
    client: Any, generated: Path, tmp_path: Path
) -> None:
    root = copied(generated, tmp_path)
    solve_dataset(root, client)
    m = load_manifest(root)
    s = m.tiers[6].shards[0]
    codes = storage.read_codes(root, 6, 0, s.sha256, s.positions)
    label, rem = storage.read_answers(root, 6, 0, s.answers_sha256, s.positions)
    gone = int(codes[3])
    keep = np.arange(len(codes)) != 3
    s.positions = int(keep.sum())
    s.sha256 = storage.write_codes(root, 6, 0, codes[keep])
    s.answers_sha256 = storage.write_answers(root, 6, 0, (label[keep], rem[keep]))
    m.save(root)
    with pytest.raises(DatasetError, match=f"shard=0.parquet: lacks position code {gone}, a move"):
        check_dataset(root, client)


def test_a_tier_larger_than_the_cache_is_read_held_shards_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A solve task looks up its moves' targets in every shard of the next tier. When that tier
    is larger than the worker's cache, reading the shards in the same order in every task is a
    cyclic scan that evicts each file just before the next task wants it: no task ever found
    one held (issue 48, Connect Four 6x5). The shards held are read first: with room for 4 of 10
    shards, the second and every later task read 6 from disk, not 10; the answers are the
    same, and a missing target still names the first shard lacking one."""
    from verifier.dataset.shard_tasks import _lookup

    shards, per = 10, 1_000
    rng = np.random.default_rng(7)
    codes = np.unique(rng.integers(1, 2**62, size=shards * per * 2, dtype=np.uint64))
    owner = storage.shard_of(codes, shards)
    refs, truth = [], {}
    for j in range(shards):
        mine = codes[owner == j]
        label = rng.integers(-1, 2, size=len(mine)).astype(np.int8)
        rem = rng.integers(0, 30, size=len(mine)).astype(np.int32)
        sha = storage.write_codes(tmp_path, 1, j, mine)
        ans = storage.write_answers(tmp_path, 1, j, (label, rem))
        refs.append((len(mine), sha, ans))
        truth.update({int(c): (int(a), int(b)) for c, a, b in zip(mine, label, rem, strict=True)})
    one = max(r[0] for r in refs) * 13  # a shard's codes and answers in the cache
    monkeypatch.setattr(shard_cache, "budget", lambda: 4 * one + one // 2)
    reads = counted(monkeypatch)
    children = rng.choice(codes, size=5_000)
    per_task = []
    for _ in range(4):
        before = sum(reads.values())
        label, rem = _lookup(tmp_path, 1, children, refs)
        per_task.append((sum(reads.values()) - before) // 2)  # codes and answers: 2 files
        assert [(int(a), int(b)) for a, b in zip(label, rem, strict=True)] == [
            truth[int(c)] for c in children
        ]
    assert per_task == [10, 6, 6, 6]
    shard_cache.clear()
    # the same order each time: no shard found held (the cyclic scan this replaces)
    monkeypatch.setattr("verifier.dataset.shard_tasks.held_first", lambda p: range(len(p)))
    reads.clear()
    for _ in range(2):
        _lookup(tmp_path, 1, children, refs)
    assert sum(reads.values()) // 2 == 20
    # a missing target names the first shard lacking one, whatever order they were read in
    monkeypatch.undo()
    monkeypatch.setattr(shard_cache, "budget", lambda: 4 * one + one // 2)
    shard_cache.clear()
    extra = rng.integers(1, 2**62, size=1_000, dtype=np.uint64)
    extra = extra[~np.isin(extra, codes)]
    where = storage.shard_of(extra, shards)
    lost = np.array([extra[where == 8][0], extra[where == 3][0]])
    _lookup(tmp_path, 1, codes[owner == 8][:5], refs)  # shard 8 held: read first next
    assert (
        shard_cache.held_first([storage.shard_path(tmp_path, 1, j) for j in range(shards)])[0] == 8
    )
    with pytest.raises(DatasetError, match=rf"shard=3\.parquet: lacks position code {lost[1]},"):
        _lookup(tmp_path, 1, np.concatenate([children, lost]), refs)
