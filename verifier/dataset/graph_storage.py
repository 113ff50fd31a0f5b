"""The files of a stored graph's tier, beside ``storage``'s codes and answers.

Layout (``K``: the tier, ``S``: the shard)::

    DIR/tier=K/shard=S.parquet            code uint64 (the node ids, sorted) and terminal int8:
                                          the label of a dead end from the mover's view (-1
                                          lost, 0 drawn, +1 won; 0 on nodes with moves); the
                                          other semantics add their columns (player int8,
                                          target int8, value float64: ``stored_columns``)
    DIR/edges/tier=K/shard=S.parquet      src, dst uint64: the moves leaving the shard's nodes,
                                          sorted by (src, dst)
    DIR/reverse/tier=K/shard=S.parquet    dst, src uint64: the moves arriving at the shard's
                                          nodes, sorted by (dst, src), built after generation
    DIR/exits/tier=K/shard=S.parquet      src uint64, tier int32, dst uint64: the moves from
                                          the shard's nodes into later tiers (node ``dst`` of
                                          tier ``tier``), sorted; only when there are some
    DIR/names.parquet                     name string: the node names of the case file the
                                          graph came from, in id order (``graph_names``)
    DIR/tmp/reverse/...                   the pieces the reverse edges are merged from
    DIR/tmp/solve/tier=K/...              the rounds' messages between workers, raw numpy
                                          (removed after)

The codes shard keeps its ``code`` column, so ``storage.read_codes`` reads it as any tier's.
These files are written with the lz4 codec (``GRAPH_CODEC``), read whatever their codec.
Edges and reverse edges have their sha256 in the manifest (``ShardEntry.edges_sha256``,
``reverse_sha256``); the temporary files have none (they live for a round). A shard's
state between rounds (every semantics) is not a file: the worker running its rounds keeps it
(``graph_tasks``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.errors import DatasetError
from verifier.dataset.storage import read_parquet, shard_path, write_parquet

__all__ = [
    "Edges",
    "edges_path",
    "exits_path",
    "message_path",
    "read_edges",
    "read_exits",
    "read_messages",
    "read_node_columns",
    "read_nodes",
    "read_reverse",
    "reverse_path",
    "reverse_piece_path",
    "write_edges",
    "write_exits",
    "write_messages",
    "write_nodes",
    "write_reverse",
]

U64 = NDArray[np.uint64]
Edges = tuple[U64, U64]
"""``(src, dst)`` of the edges file, ``(dst, src)`` of the reverse file."""


def edges_path(root: Path, tier: int, shard: int) -> Path:
    return root / "edges" / f"tier={tier}" / f"shard={shard}.parquet"


def reverse_path(root: Path, tier: int, shard: int) -> Path:
    return root / "reverse" / f"tier={tier}" / f"shard={shard}.parquet"


def exits_path(root: Path, tier: int, shard: int) -> Path:
    return root / "exits" / f"tier={tier}" / f"shard={shard}.parquet"


def reverse_piece_path(root: Path, tier: int, shard: int, source: int) -> Path:
    """The edges of shard ``source`` whose target shard ``shard`` owns (temporary)."""
    return root / "tmp" / "reverse" / f"tier={tier}" / f"to={shard}" / f"from={source}.parquet"


def solve_dir(root: Path, tier: int) -> Path:
    """The work directory of a tier's retrograde rounds."""
    return root / "tmp" / "solve" / f"tier={tier}"


def message_path(root: Path, tier: int, rnd: int, to: int, source: int | str) -> Path:
    """What the nodes of shard ``source`` decided in round ``rnd`` tell shard ``to`` (source
    ``later``: the moves of ``to`` into later tiers whose targets have remoteness ``rnd``)."""
    return solve_dir(root, tier) / f"round={rnd}" / f"to={to}" / f"from={source}.npy"


GRAPH_CODEC = "lz4"
"""The Parquet codec of a stored graph's nodes, edges and reverse edges: as small as snappy's
files on these columns and about twice as fast to read (the retrograde rounds read them all
once per run)."""


def write_nodes(
    root: Path,
    tier: int,
    shard: int,
    codes: U64,
    terminal: NDArray[np.int8],
    extra: dict[str, NDArray[np.generic]] | None = None,
) -> str:
    """Write a shard's node ids and dead-end labels (and the ``extra`` columns of a semantics
    other than ``normal``: ``stored_columns.StoredColumns.node_columns``); their sha256."""
    cols: dict[str, NDArray[np.generic]] = {"code": codes, "terminal": terminal}
    return write_parquet(shard_path(root, tier, shard), cols | (extra or {}), GRAPH_CODEC)


def read_node_columns(
    root: Path, tier: int, shard: int, sha256: str | None, positions: int, columns: dict[str, str]
) -> dict[str, NDArray[np.generic]]:
    """The ``columns`` of a shard's nodes file, checked against the manifest."""
    path = shard_path(root, tier, shard)
    cols = read_parquet(path, sha256, columns)
    if len(cols["code"]) != positions:
        raise DatasetError(f"{path}: {len(cols['code'])} positions, the manifest says {positions}")
    return cols


def read_nodes(
    root: Path, tier: int, shard: int, sha256: str | None, positions: int
) -> tuple[U64, NDArray[np.int8]]:
    """A shard's node ids and dead-end labels, checked against the manifest."""
    path = shard_path(root, tier, shard)
    cols = read_parquet(path, sha256, {"code": "uint64", "terminal": "int8"})
    if len(cols["code"]) != positions:
        raise DatasetError(f"{path}: {len(cols['code'])} positions, the manifest says {positions}")
    return cols["code"], cols["terminal"]  # type: ignore[return-value]


def _read_pair(path: Path, sha256: str | None, names: tuple[str, str], rows: int | None) -> Edges:
    cols = read_parquet(path, sha256, {names[0]: "uint64", names[1]: "uint64"})
    if rows is not None and len(cols[names[0]]) != rows:
        raise DatasetError(f"{path}: {len(cols[names[0]])} edges, the manifest says {rows}")
    return cols[names[0]], cols[names[1]]  # type: ignore[return-value]


def write_edges(root: Path, tier: int, shard: int, src: U64, dst: U64) -> str:
    return write_parquet(edges_path(root, tier, shard), {"src": src, "dst": dst}, GRAPH_CODEC)


def read_edges(root: Path, tier: int, shard: int, sha256: str | None, rows: int | None) -> Edges:
    """``(src, dst)`` of the moves leaving a shard."""
    return _read_pair(edges_path(root, tier, shard), sha256, ("src", "dst"), rows)


def write_exits(
    root: Path, tier: int, shard: int, src: U64, to: NDArray[np.int32], dst: U64
) -> str:
    cols: dict[str, NDArray[np.generic]] = {"src": src, "tier": to, "dst": dst}
    return write_parquet(exits_path(root, tier, shard), cols, GRAPH_CODEC)


def read_exits(
    root: Path, tier: int, shard: int, sha256: str | None, rows: int | None
) -> tuple[U64, NDArray[np.int32], U64]:
    """``(src, tier, dst)`` of the moves from a shard into later tiers."""
    path = exits_path(root, tier, shard)
    cols = read_parquet(path, sha256, {"src": "uint64", "tier": "int32", "dst": "uint64"})
    if rows is not None and len(cols["src"]) != rows:
        raise DatasetError(f"{path}: {len(cols['src'])} moves, the manifest says {rows}")
    return cols["src"], cols["tier"], cols["dst"]  # type: ignore[return-value]


def write_reverse(root: Path, tier: int, shard: int, dst: U64, src: U64) -> str:
    return write_parquet(reverse_path(root, tier, shard), {"dst": dst, "src": src}, GRAPH_CODEC)


def read_reverse(root: Path, tier: int, shard: int, sha256: str | None, rows: int | None) -> Edges:
    """``(dst, src)`` of the moves arriving at a shard."""
    return _read_pair(reverse_path(root, tier, shard), sha256, ("dst", "src"), rows)


def write_piece_edges(path: Path, dst: U64, src: U64) -> None:
    write_parquet(path, {"dst": dst, "src": src}, GRAPH_CODEC)


def read_piece_edges(path: Path) -> Edges:
    return _read_pair(path, None, ("dst", "src"), None)


def write_messages(path: Path, node: NDArray[np.intp], said: NDArray[Any]) -> None:
    """Per move into a node decided this round: its source (an index into the receiving
    shard's nodes) and what the node says (normal: whether it is lost, bool; the other
    semantics: ``round_rules.message_values``). Raw numpy, no digest: the same run reads it
    once, in the next round, then removes it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("wb") as f:
        np.save(f, node.astype(np.int64, copy=False))
        np.save(f, said)
    os.replace(tmp, path)


def read_messages(path: Path) -> tuple[NDArray[np.intp], NDArray[Any]]:
    try:
        with path.open("rb") as f:
            node = np.load(f)
            said = np.load(f)
    except (OSError, ValueError) as e:
        raise DatasetError(f"{path}: cannot read a round's messages: {e}") from None
    return node.astype(np.intp, copy=False), said
