"""Writing a stored graph's tiered dataset: drawn on the workers, or from an in-memory graph.

``generate_random_graph`` has every worker draw its shard's nodes and their out-edges
(``graph_tasks.draw_shard``: no process holds the whole graph); ``dataset_from_graph`` writes
a ``GameGraph`` already in memory (a case file's, for tests and small graphs) from the driver,
as one tier or in the tiers ``tier_of`` gives (its moves into later tiers stored as exits).
The workers of a random graph then build its reverse edges (each shard's edges split by the
shard owning their targets, one task per shard sorting what it was sent); the driver writes an
in-memory graph's itself. The manifest is written once the nodes and edges are, and marked
``generated`` once the reverse edges are.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.errors import DatasetError
from verifier.dataset.graph_names import write_names
from verifier.dataset.graph_storage import (
    write_edges,
    write_exits,
    write_nodes,
    write_reverse,
)
from verifier.dataset.graphs import (
    GraphTiers,
    range_bounds,
    range_owner,
    split_range,
    terminal_labels,
)
from verifier.dataset.manifest import Manifest, ShardEntry, TierEntry, under_way
from verifier.dataset.round_rules import rule_for
from verifier.dataset.storage import shards_for
from verifier.distributed.tiers.driver import worker_bytes
from verifier.distributed.tiers.graph_tasks import (
    draw_shard,
    merge_reverse,
)
from verifier.distributed.tiers.sizing import shards_needed
from verifier.distributed.tiers.supervise import cluster_workers, gather_tier
from verifier.model import GameGraph

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
    task per shard of at most ``per_shard`` nodes (default: the fewest shards the workers
    solve within their memory, the rounds' state included: ``sizing.shards_needed``, which
    refuses workers too small for any shards; a multiple of the workers when there are several
    shards, so that each worker holds as many nodes in the retrograde rounds, whose slowest
    worker sets the pace)."""
    workers = set(cluster_workers(client))
    if per_shard is None:
        moves = round(game.nodes * (game.degree or 0.0))
        shards = shards_needed(game.nodes, moves, len(workers), worker_bytes(client),
                               game.semantics.value)  # fmt: skip
        per_shard = -(-game.nodes // shards)
    else:
        shards = shards_for(game.nodes, per_shard, len(workers))
    under_way(root, game, per_shard)
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
    pieces = [(0, j, rows, path) for *_, ps in drawn for j, rows, path in ps]
    return _finish(root, game, [entries], pieces, per_shard, client, workers, poll, grace, say)


def dataset_from_graph(
    root: Path,
    graph: GameGraph,
    client: Any,
    *,
    shards: int,
    tier_of: NDArray[np.integer] | None = None,
    source: str | None = None,
    start: int | None = None,
    say: Say = _quiet,
    poll: float = 1.0,
    grace: float = 10.0,
    reverse: bool = True,
    names: bool = False,
) -> Manifest:
    """Write ``graph`` into ``root`` (semantics ``normal``; the others in one tier, with their
    nodes' columns: ``round_rules.Rule.from_graph``; ``start``: the root's id, default 0), each
    tier as ``shards`` node-id
    ranges (some empty when there are more shards than nodes). ``tier_of``: each node's tier
    (default: one tier); a move may stay in its tier or go to a later one, and each tier's
    nodes are numbered from 0 in the order of their ids. The driver writes the nodes, the
    edges and the reverse edges (it holds the graph anyway): no task runs, so ``client`` may be
    ``None`` (the in-memory self-check's dataset, ``certify.through_dataset``). ``reverse``:
    ``False`` writes no reverse edges (a dataset only to be judged: the checker reads none;
    it cannot be solved). ``names``: keep the graph's node names (``graph_storage.write_names``;
    a graph in one tier, whose names are not its ids) for the answers and reports to use."""
    where = source or "the graph"
    sem = graph.semantics
    rule = rule_for(sem)  # None: normal
    if rule is not None and tier_of is not None:
        raise DatasetError(
            f"{where}: semantics {sem.value}: a tiered dataset stores such graphs in one tier"
        )
    try:
        extra = {} if rule is None else rule.from_graph(graph)
    except ValueError as bad:
        raise DatasetError(f"{where}: {bad}") from None
    n = graph.n
    ptr = np.asarray(graph.succ_ptr, dtype=np.int64)
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    dst = np.asarray(graph.succ_idx, dtype=np.int64)
    of = np.zeros(n, dtype=np.int64) if tier_of is None else np.asarray(tier_of, dtype=np.int64)
    back = np.flatnonzero(of[dst] < of[src])
    if len(back):
        e = int(back[0])
        raise DatasetError(
            f"{where}: the move {int(src[e])} -> {int(dst[e])} goes from tier {int(of[src[e]])} "
            f"back to tier {int(of[dst[e]])}"
        )
    tiers = int(of.max()) + 1 if n else 1
    order = np.argsort(of, kind="stable")  # the nodes tier by tier, in id order
    first = np.searchsorted(of[order], np.arange(tiers + 1))
    local = np.empty(n, dtype=np.int64)
    local[order] = np.arange(n) - first[of[order]]
    dead = ptr[1:] == ptr[:-1]
    if rule is None:
        terminal = np.where(dead, terminal_labels(np.asarray(graph.value)), 0).astype(np.int8)
    else:
        terminal = np.zeros(n, dtype=np.int8)
    game = GraphTiers(n, len(dst), tiers=tiers, source=source, semantics=sem)
    under_way(root, game, n)
    if names and tiers == 1 and not graph.named_by_ids:
        game = replace(game, names_sha256=write_names(root, list(graph.names)))
    workers = set(cluster_workers(client)) if client is not None else set()
    entries: list[list[ShardEntry]] = []
    for k in range(tiers):
        ids = order[first[k] : first[k + 1]]
        bounds = split_range(len(ids), shards)
        out = np.flatnonzero(of[src] == k)
        owner = range_owner(local[src[out]].astype(np.uint64), bounds)
        entries.append(
            [
                _write_shard(root, k, s, ids[bounds[s] : bounds[s + 1]], local, terminal, of,
                             src[out[owner == s]], dst[out[owner == s]], extra)
                for s in range(shards)
            ]
        )  # fmt: skip
    if reverse:
        _write_reverse(root, entries, of, local, src, dst)
    return _finish(root, game, entries, None, n, client, workers, poll, grace, say, start)


def _bounds(entries: list[ShardEntry]) -> NDArray[np.int64]:
    return range_bounds([e.positions for e in entries])


def _order(a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.int64] | slice:
    """The order sorting the pairs ``(a, b)``: none when they are (a graph's rows of moves
    usually are), else one sort of the pairs as one key (ids below 3 x 10^9)."""
    if len(a) < 2:
        return slice(None)
    step_a, step_b = np.diff(a), np.diff(b)
    if bool(np.all((step_a > 0) | ((step_a == 0) & (step_b >= 0)))):
        return slice(None)
    top = int(b.max()) + 1
    return np.argsort(a * top + b)


def _write_reverse(
    root: Path,
    entries: list[list[ShardEntry]],
    of: NDArray[np.int64],
    local: NDArray[np.int64],
    src: NDArray[np.int64],
    dst: NDArray[np.int64],
) -> None:
    """Each tier's moves inside it, reversed, sorted by (target, source) and cut by the shards
    owning their targets: written by the driver, which holds the graph (a random graph's
    workers send each other pieces instead: ``graph_tasks.merge_reverse``)."""
    for k, shards in enumerate(entries):
        inside = np.flatnonzero((of[src] == k) & (of[dst] == k))
        d, s = local[dst[inside]], local[src[inside]]
        o = _order(d, s)
        d, s = d[o], s[o]
        cut = np.searchsorted(d, _bounds(shards))
        for e, a, b in zip(shards, cut[:-1], cut[1:], strict=True):
            e.reverse_edges = int(b - a)
            e.reverse_sha256 = write_reverse(
                root, k, e.shard, d[a:b].astype(np.uint64), s[a:b].astype(np.uint64)
            )


def _write_shard(
    root: Path,
    tier: int,
    shard: int,
    ids: NDArray[np.int64],
    local: NDArray[np.int64],
    terminal: NDArray[np.int8],
    of: NDArray[np.int64],
    src: NDArray[np.int64],
    dst: NDArray[np.int64],
    extra: dict[str, NDArray[np.generic]] | None = None,
) -> ShardEntry:
    """Write one shard of an in-memory graph: its nodes (``ids``, global), the moves leaving
    them (``src``, ``dst``, global) inside the tier and into later tiers."""
    codes = local[ids].astype(np.uint64)
    cols = {k: v[ids] for k, v in (extra or {}).items()}
    sha = write_nodes(root, tier, shard, codes, terminal[ids], cols)
    inside = of[dst] == tier
    s_in, d_in = local[src[inside]], local[dst[inside]]
    o = _order(s_in, d_in)
    entry = ShardEntry(
        shard,
        len(ids),
        sha,
        edges=len(s_in),
        edges_sha256=write_edges(
            root, tier, shard, s_in[o].astype(np.uint64), d_in[o].astype(np.uint64)
        ),
    )
    if not inside.all():
        s_x, t_x, d_x = local[src[~inside]], of[dst[~inside]], local[dst[~inside]]
        o = np.lexsort((d_x, t_x, s_x))
        entry.exits = len(o)
        entry.exits_sha256 = write_exits(
            root, tier, shard, s_x[o].astype(np.uint64), t_x[o].astype(np.int32),
            d_x[o].astype(np.uint64),
        )  # fmt: skip
    return entry


def _finish(
    root: Path,
    game: GraphTiers,
    entries: list[list[ShardEntry]],
    pieces: list[tuple[int, int, int, str]] | None,
    per_shard: int,
    client: Any,
    workers: set[str],
    poll: float,
    grace: float,
    say: Say,
    start: int | None = None,
) -> Manifest:
    """Write the manifest, merge the reverse pieces (``(tier, shard, rows, path)``) per shard
    (``None``: the reverse edges are written), mark the dataset generated (``start``: the
    root's node id, default ``game.root()``)."""
    root_code = game.root() if start is None else start
    m = Manifest(game.name, game.parameters(), root_code, per_shard, game.semantics.value)
    m.tiers.extend(TierEntry(k, t) for k, t in enumerate(entries))
    m.save(root)
    if pieces is not None:
        _merge(root, entries, pieces, client, workers, poll, grace)
    shutil.rmtree(root / "tmp", ignore_errors=True)
    m.generated = True
    m.save(root)
    shards = sum(len(t) for t in entries)
    say(f"{game.nodes:,} nodes, {game.edges:,} moves in {game.tiers} tier(s), {shards} shard(s)")
    return m


def _merge(
    root: Path,
    entries: list[list[ShardEntry]],
    pieces: list[tuple[int, int, int, str]],
    client: Any,
    workers: set[str],
    poll: float,
    grace: float,
) -> None:
    """Merge the reverse pieces (``(tier, shard, rows, path)``) per shard on the workers."""
    sent: dict[tuple[int, int], list[str]] = {}
    for k, j, _rows, path in pieces:
        sent.setdefault((k, j), []).append(path)
    merged = gather_tier(
        client,
        [
            client.submit(
                merge_reverse, str(root), k, e.shard, sent.get((k, e.shard), []), pure=False
            )
            for k, t in enumerate(entries)
            for e in t
        ],
        what="building the reverse edges",
        workers=workers,
        poll=poll,
        grace=grace,
    )
    for e, (rows, sha) in zip((e for t in entries for e in t), merged, strict=True):
        e.reverse_edges, e.reverse_sha256 = rows, sha
