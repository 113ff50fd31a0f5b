"""Writing a stored graph's tiered dataset: drawn on the workers, or from an in-memory graph.

``generate_random_graph`` has every worker draw its shard's nodes and their out-edges
(``graph_tasks.draw_shard``: no process holds the whole graph); ``dataset_from_graph`` writes
a ``GameGraph`` already in memory (a case file's, for tests and small graphs) from the driver.
Both then build the reverse edges on the cluster: each shard's edges are split by the shard
owning their targets, one task per shard sorts what it was sent. The manifest is written once
the nodes and edges are, and marked ``generated`` once the reverse edges are.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from verifier.distributed.tiers.driver import worker_bytes
from verifier.distributed.tiers.errors import DatasetError
from verifier.distributed.tiers.graph_storage import write_edges, write_nodes
from verifier.distributed.tiers.graph_tasks import (
    Pieces,
    draw_shard,
    merge_reverse,
    split_shard,
)
from verifier.distributed.tiers.graphs import GraphTiers, split_range, terminal_labels
from verifier.distributed.tiers.manifest import Manifest, ShardEntry, TierEntry
from verifier.distributed.tiers.storage import positions_per_shard, shards_for
from verifier.distributed.tiers.supervise import cluster_workers, gather_tier
from verifier.model import GameGraph, Semantics

__all__ = ["dataset_from_graph", "generate_random_graph"]

Say = Callable[[str], None]


def _quiet(_: str) -> None:
    """Say nothing."""


def generate_random_graph(
    root: Path,
    game: GraphTiers,
    client: Any,
    *,
    per_shard: int | None = None,
    say: Say = _quiet,
    poll: float = 1.0,
    grace: float = 10.0,
) -> Manifest:
    """Draw the seeded random graph ``game`` (``seed``, ``degree``, ``terminal_fraction``,
    ``terminal_values`` set) into ``root`` (empty or cleared: ``driver.prepare_output``), one
    task per shard of at most ``per_shard`` nodes (default: from the workers' memory)."""
    workers = set(cluster_workers(client))
    per_shard = per_shard or positions_per_shard(worker_bytes(client))
    shards = shards_for(game.nodes, per_shard, len(workers))
    bounds = split_range(game.nodes, shards)
    drawn = gather_tier(
        client,
        [client.submit(draw_shard, str(root), game, s, bounds, pure=False) for s in range(shards)],
        what="drawing the graph",
        workers=workers,
        poll=poll,
        grace=grace,
    )
    entries = [
        ShardEntry(s, n, sha, edges=e, edges_sha256=esha)
        for s, (n, sha, e, esha, _) in enumerate(drawn)
    ]
    game = replace(game, edges=sum(e.edges or 0 for e in entries))
    say(f"drew {game.nodes:,} nodes and {game.edges:,} moves in {shards} shard(s)")
    pieces = [p for *_, ps in drawn for p in ps]
    return _finish(root, game, entries, pieces, per_shard, client, workers, poll, grace, say)


def dataset_from_graph(
    root: Path,
    graph: GameGraph,
    client: Any,
    *,
    shards: int,
    source: str | None = None,
    say: Say = _quiet,
    poll: float = 1.0,
    grace: float = 10.0,
) -> Manifest:
    """Write ``graph`` (semantics ``normal``) into ``root`` as one tier of ``shards`` node-id
    ranges (some empty when there are more shards than nodes). The driver writes the nodes
    and edges (it holds the graph anyway); the workers build the reverse edges."""
    if graph.semantics is not Semantics.NORMAL:
        raise DatasetError(
            f"{source or 'the graph'}: semantics {graph.semantics.value}: a tiered dataset "
            "solves stored graphs of semantics normal only"
        )
    workers = set(cluster_workers(client))
    bounds = split_range(graph.n, shards)
    ptr = np.asarray(graph.succ_ptr, dtype=np.int64)
    idx = np.asarray(graph.succ_idx, dtype=np.int64)
    dead = ptr[1:] == ptr[:-1]
    terminal = np.where(dead, terminal_labels(np.asarray(graph.value)), 0).astype(np.int8)
    entries = []
    for s in range(shards):
        lo, hi = int(bounds[s]), int(bounds[s + 1])
        codes = np.arange(lo, hi, dtype=np.uint64)
        sha = write_nodes(root, 0, s, codes, terminal[lo:hi])
        src = np.repeat(codes, np.diff(ptr[lo : hi + 1]))
        dst = idx[ptr[lo] : ptr[hi]].astype(np.uint64)
        order = np.lexsort((dst, src))
        esha = write_edges(root, 0, s, src[order], dst[order])
        entries.append(ShardEntry(s, hi - lo, sha, edges=len(src), edges_sha256=esha))
    game = GraphTiers(graph.n, len(idx), source=source)
    pieces = gather_tier(
        client,
        [
            client.submit(split_shard, str(root), 0, e, bounds, pure=False)
            for e in entries
            if e.edges
        ],
        what="splitting the edges",
        workers=workers,
        poll=poll,
        grace=grace,
    )
    flat = [p for ps in pieces for p in ps]
    return _finish(root, game, entries, flat, graph.n, client, workers, poll, grace, say)


def _finish(
    root: Path,
    game: GraphTiers,
    entries: list[ShardEntry],
    pieces: Pieces,
    per_shard: int,
    client: Any,
    workers: set[str],
    poll: float,
    grace: float,
    say: Say,
) -> Manifest:
    """Write the manifest, merge the reverse pieces per shard, mark the dataset generated."""
    m = Manifest(game.name, game.parameters(), game.root(), per_shard, game.semantics.value)
    m.tiers.append(TierEntry(0, entries))
    m.save(root)
    sent: list[list[str]] = [[] for _ in entries]
    for j, _rows, path in pieces:
        sent[j].append(path)
    merged = gather_tier(
        client,
        [
            client.submit(merge_reverse, str(root), 0, e.shard, sent[e.shard], pure=False)
            for e in entries
        ],
        what="building the reverse edges",
        workers=workers,
        poll=poll,
        grace=grace,
    )
    for e, (rows, sha) in zip(entries, merged, strict=True):
        e.reverse_edges, e.reverse_sha256 = rows, sha
    shutil.rmtree(root / "tmp", ignore_errors=True)
    m.generated = True
    m.save(root)
    say(f"tier 0: {game.nodes:,} nodes, {game.edges:,} moves in {len(entries)} shard(s)")
    return m
