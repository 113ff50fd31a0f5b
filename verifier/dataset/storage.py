"""The files of a tiered dataset: where each shard lives, who owns a code, digested Parquet I/O.

Layout of a dataset directory ``DIR``::

    DIR/manifest.json                       what is there (``manifest``)
    DIR/tier=K/shard=S.parquet              column ``code`` uint64, sorted, no duplicates
    DIR/answers/tier=K/shard=S.parquet      ``label`` int8 (+1 won, -1 lost, 0 drawn, for the
                                            player to move) and ``remoteness`` int32 (plies to
                                            the end with best play, -1 for a draw), one row per
                                            row of the codes' shard, in the same order
    DIR/tmp/...                             pieces of a tier being generated (removed after)

A code belongs to shard ``shard_of(code, shards)`` of its tier: a multiplicative hash, so
that consecutive codes (similar boards) spread over the shards. Every file is written whole
to a temporary name and renamed (a crash never leaves half a shard under the real name), and
its sha256 goes into the manifest; readers check it before they parse the file.
"""

from __future__ import annotations

import hashlib
import math
import os
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.errors import DatasetError
from verifier.dataset.shard_cache import cached

__all__ = [
    "BYTES_PER_POSITION",
    "Answers",
    "answers_path",
    "by_owner",
    "piece_path",
    "positions_per_shard",
    "read_answers",
    "read_codes",
    "read_parquet",
    "read_piece",
    "read_rule_answers",
    "rows_of",
    "shard_of",
    "shard_path",
    "shards_for",
    "sorted_order",
    "write_answers",
    "write_codes",
    "write_parquet",
    "write_piece",
    "write_rule_answers",
]

Codes = NDArray[np.uint64]
Answers = tuple[NDArray[np.int8], NDArray[np.int32]]
"""``(label, remoteness)`` of a shard's positions, in the order of its codes."""

BYTES_PER_POSITION = 256
"""Worker bytes per position of the shard it solves: the codes and their board (24), a
child code and parent index per move (16 x up to 7 moves), the answers (5), and numpy's
temporaries; generation costs less (a child code per move, then a sort). Shards are sized
from it: ``positions_per_shard``."""

_HASH = np.uint64(0x9E3779B97F4A7C15)  # 2^64 / golden ratio: Fibonacci hashing


def shard_of(codes: Codes, shards: int) -> NDArray[np.intp]:
    """The owner shard of each code among ``shards`` (the high bits of a Fibonacci hash)."""
    mixed = (codes * _HASH) >> np.uint64(32)  # wraps modulo 2^64 on purpose
    return (mixed % np.uint64(shards)).astype(np.intp)


def positions_per_shard(worker_bytes: int, share: float = 0.25) -> int:
    """Positions per shard so that solving one takes ``share`` of a worker's memory (the rest
    for one successor shard, Dask's own use and the pause threshold at 80%)."""
    return max(1_000, int(worker_bytes * share) // BYTES_PER_POSITION)


MIN_SHARD = 100_000
"""A tier is split for parallelism only into shards of at least this many positions (below,
a task costs more in Dask and Parquet overhead than it computes)."""


def shards_for(positions: int, per_shard: int, workers: int = 1) -> int:
    """Number of shards of a tier of (about) ``positions`` positions: at most ``per_shard``
    each (memory), and at least two per worker when the tier is large enough (so that every
    worker has work, and a slow one does not hold up the tier alone)."""
    parallel = min(2 * workers, positions // MIN_SHARD)
    return max(1, math.ceil(positions / per_shard), parallel)


def rows_of(codes: Codes, want: Codes) -> NDArray[np.intp]:
    """Where each of ``want`` is, or would be inserted, in the sorted ``codes`` (clipped to
    the last row). The keys are searched in increasing order: random keys into a shard of
    millions of codes miss the CPU's caches at every step of their binary searches, and sorted
    first they are found 4 to 6 times faster (110,000 to 5 million keys into 7.5 million
    codes), the sort included."""
    keys, order = sorted_order(want)
    at = np.empty(len(want), dtype=np.intp)
    at[order] = np.searchsorted(codes, keys)
    return np.minimum(at, max(len(codes) - 1, 0), out=at)


def sorted_order(keys: Codes) -> tuple[Codes, NDArray[np.intp]]:
    """``keys`` sorted and the permutation that sorts them (ties in index order). Where a key's
    bits and an index's fit in 64, by one sort of the keys packed above their indices: numpy
    sorts uint64 values (SIMD quicksort) about 3.5 times faster than it argsorts them (10
    million 36-bit keys: 0.52 s against 1.79 s); else ``argsort``."""
    n = len(keys)
    shift = max(1, (n - 1).bit_length())
    small = n and keys.dtype.kind in "ui" and int(keys.min()) >= 0
    if small and shift < 64 and int(keys.max()) >> (64 - shift) == 0:
        packed = (keys.astype(np.uint64) << np.uint64(shift)) | np.arange(n, dtype=np.uint64)
        packed.sort()
        order = (packed & np.uint64((1 << shift) - 1)).astype(np.intp)
        packed >>= np.uint64(shift)
        return packed, order
    order = np.argsort(keys, kind="stable")
    return keys[order], order


def by_owner(owner: NDArray[np.integer], groups: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The indices of ``owner`` (each in ``0 .. groups - 1``) grouped by owner, stable (rows
    in order stay in order inside a group), and the group bounds: group ``j`` is
    ``order[bounds[j]:bounds[j + 1]]``. With at most 2^16 groups the key is cast to 16 bits,
    where numpy's stable sort is a radix sort: about 10 times faster than on int64 keys (10
    million keys of 20 owners: 0.14-0.25 s against 1.4-1.9 s)."""
    key = owner.astype(np.uint16) if groups <= 1 << 16 else owner
    order = np.argsort(key, kind="stable")
    bounds = np.searchsorted(key[order], np.arange(groups + 1))
    return order, bounds


def shard_path(root: Path, tier: int, shard: int) -> Path:
    """The codes of shard ``shard`` of tier ``tier``."""
    return root / f"tier={tier}" / f"shard={shard}.parquet"


def answers_path(root: Path, tier: int, shard: int) -> Path:
    """The answers of shard ``shard`` of tier ``tier``."""
    return root / "answers" / f"tier={tier}" / f"shard={shard}.parquet"


def write_parquet(
    path: Path, columns: dict[str, NDArray[np.generic]], compression: str = "snappy"
) -> str:
    """Write a Parquet file under a temporary name, rename it; its sha256 (hex)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(pa.table(columns), sink, use_dictionary=False, compression=compression)
    data = sink.getvalue().to_pybytes()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return hashlib.sha256(data).hexdigest()


def read_parquet(
    path: Path, sha256: str | None, columns: dict[str, str]
) -> dict[str, NDArray[np.generic]]:
    """Read a Parquet file after checking its sha256 (unless ``None``) and column types."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DatasetError(f"{path}: missing (the manifest lists it)") from None
    except OSError as e:
        raise DatasetError(f"{path}: cannot read the file: {e.strerror or e}") from None
    if sha256 is not None:
        got = hashlib.sha256(data).hexdigest()
        if got != sha256:
            raise DatasetError(
                f"{path}: corrupt: sha256 {got[:16]}... differs from the manifest's "
                f"{sha256[:16]}..."
            )
    try:
        parquet = pq.ParquetFile(pa.BufferReader(data))
        names = parquet.schema_arrow.names
        for name in columns:
            if name not in names:
                raise DatasetError(f"{path}: no column {name!r}")
        table = parquet.read(columns=list(columns))  # only the columns asked for are decoded
    except (pa.ArrowException, OSError) as e:
        raise DatasetError(f"{path}: not a Parquet file: {e}") from None
    out: dict[str, NDArray[np.generic]] = {}
    for name, dtype in columns.items():
        col = table.column(name).to_numpy()
        if col.dtype != np.dtype(dtype):
            raise DatasetError(f"{path}: column {name!r} is {col.dtype}, not {dtype}")
        out[name] = col
    return out


def write_codes(root: Path, tier: int, shard: int, codes: Codes) -> str:
    """Write a shard's sorted codes; their sha256."""
    return write_parquet(shard_path(root, tier, shard), {"code": codes})


def read_codes(
    root: Path,
    tier: int,
    shard: int,
    sha256: str | None,
    positions: int | None = None,
    *,
    cache: bool = False,
) -> Codes:
    """A shard's codes, checked against the manifest's digest and count; ``cache``: kept in
    the worker's cache of shard files (``shard_cache``), read from it when there."""
    path = shard_path(root, tier, shard)

    def read() -> NDArray[np.generic]:
        return read_parquet(path, sha256, {"code": "uint64"})["code"]

    codes = cached(path, sha256, read, "code") if cache else read()
    if positions is not None and len(codes) != positions:
        raise DatasetError(f"{path}: {len(codes)} positions, the manifest says {positions}")
    return codes  # type: ignore[return-value]


def write_answers(root: Path, tier: int, shard: int, answers: Answers) -> str:
    """Write a shard's answers (rows in the order of its codes); their sha256."""
    label, remoteness = answers
    return write_parquet(
        answers_path(root, tier, shard), {"label": label, "remoteness": remoteness}
    )


def read_answers(
    root: Path, tier: int, shard: int, sha256: str | None, positions: int, *, cache: bool = False
) -> Answers:
    """A shard's answers, checked against the manifest's digest and the shard's size;
    ``cache``: as ``read_codes``."""
    path = answers_path(root, tier, shard)

    def read() -> dict[str, NDArray[np.generic]]:
        return read_parquet(path, sha256, {"label": "int8", "remoteness": "int32"})

    cols = cached(path, sha256, read, "label,remoteness") if cache else read()
    if len(cols["label"]) != positions:
        raise DatasetError(f"{path}: {len(cols['label'])} answers for {positions} positions")
    return cols["label"], cols["remoteness"]  # type: ignore[return-value]


def write_rule_answers(
    root: Path, tier: int, shard: int, columns: dict[str, NDArray[np.generic]]
) -> str:
    """Write a shard's answers under a semantics other than ``normal`` (the columns of
    ``stored_columns.StoredColumns.answer_columns``); their sha256."""
    return write_parquet(answers_path(root, tier, shard), columns)


def read_rule_answers(
    root: Path, tier: int, shard: int, sha256: str | None, positions: int, columns: dict[str, str]
) -> dict[str, NDArray[np.generic]]:
    """A shard's answers under a semantics other than ``normal``, checked as ``read_answers``."""
    path = answers_path(root, tier, shard)
    cols = read_parquet(path, sha256, columns)
    first = next(iter(cols.values()))
    if len(first) != positions:
        raise DatasetError(f"{path}: {len(first)} answers for {positions} positions")
    return cols


def piece_path(root: Path, tier: int, shard: int, source: int) -> Path:
    """The children that shard ``source`` of tier ``tier - 1`` sends to shard ``shard`` of tier
    ``tier`` while the tier is generated (a temporary file)."""
    return root / "tmp" / f"tier={tier}" / f"shard={shard}" / f"from={source}.npy"


def write_piece(path: Path, codes: Codes) -> None:
    """Write a temporary piece (no digest: it lives only until its shard is merged), as a raw
    ``.npy`` array: read back without conversion (Parquet took a quarter of generation)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        np.save(f, np.ascontiguousarray(codes, dtype=np.uint64), allow_pickle=False)
    os.replace(tmp, path)


def read_piece(path: Path) -> Codes:
    """A temporary piece's codes."""
    try:
        codes: Codes = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise DatasetError(f"{path}: missing (the manifest lists it)") from None
    except (OSError, ValueError) as e:
        raise DatasetError(f"{path}: cannot read the piece: {e}") from None
    if codes.dtype != np.uint64 or codes.ndim != 1:
        raise DatasetError(f"{path}: not a piece of codes ({codes.dtype}, {codes.ndim} axes)")
    return codes
