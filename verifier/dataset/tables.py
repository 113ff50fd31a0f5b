"""A stranger's table of claims for a tiered dataset (``verify DIR --engine dask --answers A``):
read, routed to the (tier, shard) owning each code and aligned with the shard's codes (a file,
a shard at a time: the cluster's tasks that run them over the whole table are
``distributed.tiers.align``); and ``Claims``, where every shard's aligned claims are (the
dataset's own answers or the aligned copy). The checks that judge them are in ``judge`` and
``judge_graph``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.errors import DatasetError
from verifier.dataset.manifest import MANIFEST
from verifier.dataset.rules import TierGame
from verifier.dataset.shape import Owners, Witness, _first
from verifier.dataset.shard_cache import cached
from verifier.dataset.storage import (
    answers_path,
    by_owner,
    read_answers,
    read_codes,
    read_parquet,
    write_parquet,
)

NO_CLAIM = np.int8(2)
"""The aligned label of a position the table has no row for."""
NO_MOVE = np.uint64(np.iinfo(np.uint64).max)
"""The aligned move of a position with none (no code of any game is 2^64 - 1)."""
UNSTATED = np.uint64(np.iinfo(np.uint64).max - 1)
"""The move of a row that makes no claim of a move (an answer file silent there:
``dataset.answers``), which ``moves`` does not judge; ``NO_MOVE`` is a claim of none."""
MOVE_TIER = 40
"""In a table of a dataset of several tiers (a chess endgame, a graph stored in tiers), whose
node ids restart at 0 in each tier, a move is ``tier * 2^40 + node id`` (``packed_moves``)."""


def packed_moves(tier: NDArray[Any], code: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """The moves to node ids ``code`` of tiers ``tier`` in a table of several tiers."""
    out: NDArray[np.uint64] = (tier.astype(np.uint64) << np.uint64(MOVE_TIER)) | code
    return out


# --- where the claims are ----------------------------------------------------------------


@dataclass(frozen=True)
class Claims:
    """Where every shard's claims are, aligned with its codes: the dataset's own answers
    (``own``) or the aligned copy of a stranger's table in a scratch directory."""

    root: str
    own: bool
    shards: tuple[tuple[tuple[int, str | None], ...], ...]
    """Per tier, per shard: ``(positions, sha256 of its claims file)``."""
    remoteness: bool
    moves: bool

    def path(self, tier: int, shard: int) -> Path:
        """The file of a shard's claims."""
        if self.own:
            return answers_path(Path(self.root), tier, shard)
        return claims_path(Path(self.root), tier, shard)

    def read(
        self, tier: int, shard: int
    ) -> tuple[NDArray[np.int8], NDArray[np.int32], NDArray[np.uint64] | None]:
        """``(label, remoteness, move)`` of a shard, one row per code (``move``: ``None``
        when the table claims no moves); kept in the worker's cache of shard files
        (``shard_cache``): a check reads each shard's claims once per worker while they fit."""
        positions, sha = self.shards[tier][shard]
        if self.own:
            label, rem = read_answers(Path(self.root), tier, shard, sha, positions, cache=True)
            return label, rem, None
        path = claims_path(Path(self.root), tier, shard)
        cols = cached(path, sha, lambda: read_parquet(path, sha, ALIGNED), "aligned")
        move = cols["move"] if self.moves else None
        return cols["label"], cols["remoteness"], move  # type: ignore[return-value]


ALIGNED = {"label": "int8", "remoteness": "int32", "move": "uint64"}


def claims_path(scratch: Path, tier: int, shard: int) -> Path:
    return scratch / "claims" / f"tier={tier}" / f"shard={shard}.parquet"


def _piece_path(scratch: Path, tier: int, shard: int, source: str) -> Path:
    return scratch / "pieces" / f"tier={tier}" / f"shard={shard}" / f"{source}.parquet"


# --- a stranger's table: reading and routing ---------------------------------------------


@dataclass(frozen=True)
class TableValues:
    """What the ``value`` column of a stranger's table holds under one semantics: how a batch
    of it is read (a bad value is one line naming the file, the column and the row) and how it
    is stored aligned with a shard's codes (``label``, in ``dtype``; ``none`` where no row
    claims the position)."""

    dtype: str
    none: int | float
    read: Callable[[Path, Any, int], NDArray[Any]]
    """``read(file, batch, row0)``: the batch's values, checked, in ``dtype``."""
    refused: tuple[tuple[str, str], ...] = ()
    """Optional columns the semantics does not judge, refused with the reason: a claim that
    is read must be judged."""

    def unclaimed(self, value: NDArray[Any]) -> NDArray[np.bool_]:
        """Where an aligned column holds no claim."""
        if isinstance(self.none, float) and np.isnan(self.none):
            out: NDArray[np.bool_] = np.isnan(value)
        else:
            out = np.asarray(value == self.none)
        return out


def _outcomes(path: Path, batch: Any, row0: int) -> NDArray[np.int8]:
    """Normal's values: +1 won, -1 lost, 0 drawn."""
    value = int_column(path, batch, "value", row0, nulls=None)
    bad = (value < -1) | (value > 1)
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        raise DatasetError(
            f"{path}: $.value[{row0 + at}]: {int(value[at])}: a value is +1 (won), "
            "-1 (lost) or 0 (drawn) for the player to move"
        )
    return value.astype(np.int8)


OUTCOMES = TableValues("int8", int(NO_CLAIM), _outcomes)
"""Semantics normal's table values."""


def table_files(answers: Path) -> list[Path]:
    """The Parquet files of a stranger's table: the file itself, or every ``*.parquet``
    under the directory (sorted), ``DatasetError`` if there is none."""
    if answers.is_file():
        return [answers]
    if not answers.exists():
        raise DatasetError(f"{answers}: no such file or directory")
    if (answers / MANIFEST).is_file():  # another tiered dataset: its answers/ are the table
        raise DatasetError(
            f"{answers}: a tiered dataset: give its answers as Parquet files "
            "(code, value[, remoteness][, move]), or verify that dataset itself"
        )
    files = sorted(p for p in answers.rglob("*.parquet") if p.is_file())
    if not files:
        raise DatasetError(f"{answers}: no .parquet file in the directory")
    return files


def table_columns(files: Sequence[Path], values: TableValues = OUTCOMES) -> tuple[bool, bool]:
    """Which optional columns the table has (every file the same), read from the footers;
    those ``values`` refuses are one line."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    seen: tuple[bool, bool] | None = None
    for path in files:
        try:
            names = set(pq.read_schema(path).names)
        except (pa.ArrowException, OSError) as e:
            raise DatasetError(f"{path}: not a Parquet file: {e}") from None
        for need in ("code", "value"):
            if need not in names:
                raise DatasetError(f"{path}: $.{need}: missing column (code, value needed)")
        for name, why in values.refused:
            if name in names:
                raise DatasetError(f"{path}: $.{name}: {why}")
        has = ("remoteness" in names, "move" in names)
        if seen is not None and has != seen:
            raise DatasetError(
                f"{path}: columns {sorted(names)}: every file of the table needs the same "
                f"columns as {files[0]}"
            )
        seen = has
    return seen or (False, False)


def column_of(path: Path, batch: Any, name: str, row0: int) -> Any:
    """A column of a record batch, none of it null (else one line naming the first)."""
    col = batch.column(batch.schema.get_field_index(name))
    if col.null_count:
        at = row0 + int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
        raise DatasetError(f"{path}: $.{name}[{at}]: null")
    return col


def int_column(path: Path, batch: Any, name: str, row0: int, *, nulls: int | None) -> NDArray[Any]:
    """An integer column of a record batch as int64 (uint64 codes kept), nulls as ``nulls``
    (``None``: a null is an error)."""
    import pyarrow as pa

    col = batch.column(batch.schema.get_field_index(name))
    if not pa.types.is_integer(col.type):
        raise DatasetError(f"{path}: $.{name}: {col.type}, not integers")
    if nulls is None:
        col = column_of(path, batch, name, row0)
    elif col.null_count:
        col = col.fill_null(nulls)
    if pa.types.is_uint64(col.type):
        return np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.uint64)
    return np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.int64)


def route_file(
    scratch: str,
    game: TierGame,
    source: int,
    path: str,
    owners: Owners,
    has: tuple[bool, bool],
    values: TableValues = OUTCOMES,
) -> tuple[list[tuple[int, int, str]], int, Witness]:
    """Split file ``source`` of a stranger's table into one piece per (tier, shard) owning its
    codes (its values read as ``values`` says). Returns the pieces ``(tier, shard, path)``,
    the rows naming no position of the game (a code of no tier) and the first of them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    file = Path(path)
    tiered = False
    pieces: list[tuple[int, int, str]] = []
    extra, witness = 0, None
    shards = [len(t) for t in owners.sizes]
    offsets = np.concatenate([[0], np.cumsum(shards)]).astype(np.int64)
    nodes = np.array([sum(t) for t in owners.sizes], dtype=np.uint64)
    try:
        reader = pq.ParquetFile(file)
        tiered = "tier" in reader.schema_arrow.names
        batches = reader.iter_batches(batch_size=4_000_000)
        row0 = 0
        for b, batch in enumerate(batches):
            code = int_column(file, batch, "code", row0, nulls=None)
            if code.dtype == np.int64 and len(code) and code.min() < 0:
                at = row0 + int(np.flatnonzero(code < 0)[0])
                raise DatasetError(f"{file}: $.code[{at}]: {int(code[at - row0])}: negative")
            code = game.canonical(code.astype(np.uint64))  # either member of a class
            value = values.read(file, batch, row0)
            rem = (
                int_column(file, batch, "remoteness", row0, nulls=-1)
                if has[0]
                else np.full(len(code), -1, dtype=np.int64)
            )
            if (rem < -1).any() or (rem > np.iinfo(np.int32).max).any():
                at = int(np.flatnonzero((rem < -1) | (rem > np.iinfo(np.int32).max))[0])
                raise DatasetError(
                    f"{file}: $.remoteness[{row0 + at}]: {int(rem[at])}: not a remoteness"
                )
            move = (
                int_column(file, batch, "move", row0, nulls=-1).astype(np.uint64)
                if has[1]
                else np.full(len(code), NO_MOVE, dtype=np.uint64)
            )
            if tiered:  # a dataset of several tiers: each row says its tier
                tier = int_column(file, batch, "tier", row0, nulls=None).astype(np.int64)
            else:
                tier = game.tier_of(code)
            outside = (tier < 0) | (tier >= len(shards))
            if owners.ranged:  # a node id past its tier's nodes is no node
                inside = np.flatnonzero(~outside)
                outside[inside] = code[inside] >= nodes[tier[inside]]
            if outside.any():
                extra += int(outside.sum())
                if witness is None:
                    at = int(np.flatnonzero(outside)[0])
                    witness = (
                        -1,
                        int(code[at]),
                        f"{file.name} row {row0 + at} claims code {int(code[at])}, "
                        "which is no position of the game",
                    )
            keep = np.flatnonzero(~outside)
            t = tier[keep]
            owner = offsets[t] + _shard_in(code[keep], t, owners)
            order, bounds = by_owner(owner, int(offsets[-1]))
            for g in np.flatnonzero(np.diff(bounds)).tolist():  # the shards some row is in
                k = int(np.searchsorted(offsets, g, side="right") - 1)
                s = g - int(offsets[k])
                rows = keep[order[bounds[g] : bounds[g + 1]]]
                out = _piece_path(Path(scratch), k, s, f"f{source}-b{b}")
                write_parquet(
                    out,
                    {
                        "code": code[rows],
                        "label": value[rows],
                        "remoteness": rem[rows].astype(np.int32),
                        "move": move[rows],
                        "row": (rows + row0).astype(np.int64),
                        "file": np.full(len(rows), source, dtype=np.int32),
                    },
                )
                pieces.append((k, s, str(out)))
            row0 += len(code)
    except (pa.ArrowException, OSError) as e:
        raise DatasetError(f"{file}: not a readable Parquet file: {e}") from None
    return pieces, extra, witness


def _shard_in(
    codes: NDArray[np.uint64], tiers: NDArray[np.int64], owners: Owners
) -> NDArray[np.int64]:
    """The owner shard of each code within its tier (tiers have their own shards)."""
    out = np.empty(len(codes), dtype=np.int64)
    for k in np.unique(tiers):
        at = tiers == k
        out[at] = owners.of(int(k), codes[at])
    return out


def align_shard(
    root: str,
    scratch: str,
    tier: int,
    shard: int,
    ref: tuple[int, str],
    pieces: list[str],
    files: list[str],
    values: TableValues = OUTCOMES,
) -> tuple[int, int, Witness, Witness, str]:
    """Match the rows routed to one shard with its codes and write them aligned (one row per
    code, ``values.none`` where there is none: ``NO_CLAIM`` for normal). Returns the positions
    without a claim, the rows claiming a code that is in no shard of the dataset (not
    reachable from the start), the first of each, and the sha256 of the aligned file. Two
    rows for one position: bad input."""
    codes = read_codes(Path(root), tier, shard, ref[1], ref[0])
    cols: dict[str, list[NDArray[Any]]] = {
        k: [] for k in ("code", "label", "remoteness", "move", "row", "file")
    }
    for p in pieces:
        got = read_parquet(
            Path(p),
            None,
            {
                "code": "uint64",
                "label": values.dtype,
                "remoteness": "int32",
                "move": "uint64",
                "row": "int64",
                "file": "int32",
            },
        )
        for k in cols:
            cols[k].append(got[k])
    rows = {
        k: np.concatenate(v)
        if v
        else np.zeros(0, dtype=values.dtype if k == "label" else ALIGNED.get(k, "int64"))
        for k, v in cols.items()
    }
    rows["code"] = rows["code"].astype(np.uint64)
    order = np.argsort(rows["code"], kind="stable")
    claim = {k: v[order] for k, v in rows.items()}
    twice = np.flatnonzero(claim["code"][1:] == claim["code"][:-1])
    if len(twice):
        i = int(twice[0])
        raise DatasetError(
            f"{files[int(claim['file'][i + 1])]}: $.code[{int(claim['row'][i + 1])}]: duplicate "
            f"entry for position code {int(claim['code'][i])} (also "
            f"{Path(files[int(claim['file'][i])]).name} row {int(claim['row'][i])})"
        )
    n = len(codes)
    at = np.minimum(np.searchsorted(codes, claim["code"]), max(n - 1, 0))
    found = (codes[at] == claim["code"]) if n else np.zeros(len(at), dtype=np.bool_)
    extra = ~found
    label = np.full(n, values.none, dtype=np.dtype(values.dtype))
    rem = np.full(n, -1, dtype=np.int32)
    move = np.full(n, NO_MOVE, dtype=np.uint64)
    hit = at[found]
    label[hit], rem[hit], move[hit] = (claim[k][found] for k in ("label", "remoteness", "move"))
    missing = np.ones(n, dtype=np.bool_)
    missing[hit] = False
    first_extra = _first(
        tier,
        claim["code"],
        extra,
        lambda i: (
            f"{Path(files[int(claim['file'][i])]).name} row {int(claim['row'][i])} claims "
            f"code {int(claim['code'][i])}, no position reachable from the start"
        ),
    )
    first_missing = _first(tier, codes, missing, lambda i: "the table has no answer for it")
    sha = write_parquet(
        claims_path(Path(scratch), tier, shard), {"label": label, "remoteness": rem, "move": move}
    )
    for p in pieces:
        Path(p).unlink(missing_ok=True)
    return int(missing.sum()), int(extra.sum()), first_missing, first_extra, sha
