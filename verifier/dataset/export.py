"""Another tiered dataset as a stranger's table: ``verify DIR --engine dask --answers OTHER``
where ``OTHER`` is a dataset of the same game solved elsewhere (another cluster, another
shard size, another version of this tool).

Its answers are not trusted because they sit in a dataset: one task per shard of ``OTHER`` reads
its codes (digest-checked against ``OTHER``'s manifest) and its answers and writes them as a
Parquet table (``code``, ``value``, ``remoteness`` in the encoding of a stranger's table:
``tables.OUTCOMES``, ``judge_graph``'s values per semantics) in a scratch
folder of ``DIR``; that table is then judged exactly as a table someone handed over (coverage,
rules, the certificate), routed to ``DIR``'s shards whatever ``OTHER``'s sharding was.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.errors import DatasetError
from verifier.dataset.manifest import MANIFEST, ShardEntry, load_manifest
from verifier.dataset.storage import (
    read_answers,
    read_codes,
    read_rule_answers,
    write_parquet,
)
from verifier.dataset.stored_columns import COLUMNS
from verifier.model.semantics import Semantics

__all__ = ["exported_answers", "is_dataset"]

Cols = dict[str, NDArray[np.generic]]


def is_dataset(answers: Path) -> bool:
    """Whether ``--answers`` names a tiered dataset (a folder with a manifest)."""
    return (answers / MANIFEST).is_file()


def _values(semantics: str, root: Path, tier: int, e: ShardEntry) -> Cols:
    """A shard's answers as a stranger's table states them (``StoredColumns.as_table``)."""
    cols = COLUMNS[Semantics(semantics)]
    if cols.labels:
        label, rem = read_answers(root, tier, e.shard, e.answers_sha256, e.positions)
        return cols.as_table({"label": label, "remoteness": rem})
    got = read_rule_answers(root, tier, e.shard, e.answers_sha256, e.positions,
                            cols.answer_columns)  # fmt: skip
    return cols.as_table(got)


def export_shard(source: str, semantics: str, tier: int, entry: ShardEntry, into: str) -> str:
    """Write shard ``entry`` of tier ``tier`` of dataset ``source`` as a table file in
    ``into``; its path."""
    root = Path(source)
    codes = read_codes(root, tier, entry.shard, entry.sha256, entry.positions)
    path = Path(into) / f"tier={tier}" / f"shard={entry.shard}.parquet"
    write_parquet(path, {"code": codes, **_values(semantics, root, tier, entry)})
    return str(path)


def _same_game(root: Path, other: Path) -> None:
    """``DatasetError`` unless ``other`` is a solved dataset of ``root``'s game and semantics."""
    mine, theirs = load_manifest(root), load_manifest(other)
    where = other / MANIFEST
    if theirs.game != mine.game:
        raise DatasetError(
            f"{where}: $.game: {theirs.game!r}, not {mine.game!r}: --answers judges a dataset "
            "of the same game"
        )
    if theirs.semantics != mine.semantics:
        raise DatasetError(
            f"{where}: $.semantics: {theirs.semantics!r}, not {mine.semantics!r}: --answers "
            "judges a dataset of the same game"
        )
    if theirs.parameters != mine.parameters:
        raise DatasetError(
            f"{where}: $.parameters: {theirs.parameters}, not {mine.parameters}: --answers "
            "judges a dataset of the same game"
        )
    for t in theirs.tiers:
        if not t.solved:
            raise DatasetError(
                f"{where}: $.tiers[{t.tier}].status: {t.status!r}: no answers to judge (solve "
                "it first)"
            )
    theirs.need_generated(other)


@contextmanager
def exported_answers(
    root: Path, other: Path, client: Any, run: Callable[[list[Any], str], list[Any]]
) -> Iterator[Path]:
    """The answers of dataset ``other`` written as a stranger's table in a scratch folder of
    ``root`` (removed on leaving), one task per shard of ``other`` (``run(tasks, what)``)."""
    _same_game(root, other)
    theirs = load_manifest(other)
    into = root / "tmp" / f"export-{uuid.uuid4().hex[:12]}"
    try:
        run(
            [
                client.submit(export_shard, str(other.resolve()), theirs.semantics, t.tier, s,
                              str(into), pure=False)
                for t in theirs.tiers
                for s in t.shards
            ],
            "reading the other dataset's answers",
        )  # fmt: skip
        yield into
    finally:
        shutil.rmtree(into, ignore_errors=True)
