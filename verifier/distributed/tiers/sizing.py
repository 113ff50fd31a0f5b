"""How many shards a stored graph's tier needs so that every worker solves it within its memory.

A worker solving a tier by rounds (``graph_tasks``) holds, at its peak, all of these at once
(bytes measured on this machine's Dask workers, peak resident set, 2026-11-28):

- ``BASELINE``: the worker process itself once it has run a task (Python, Dask, numpy,
  pyarrow, numba): 220 MB (65 MB bare, 130 MB with the imports, 220 MB after a first Parquet
  read).
- the rounds' state of *every* shard it runs (``Held``), kept between rounds: ``state_bytes``
  per node (``round_rules.COMMON``, 9: normal play's whole state, its label, remoteness and
  counter; the others add the out-degree and their columns; impartial also keeps 16 bytes per
  move of the successor values seen). This part
  does not shrink with more shards: a worker holds ``nodes / workers`` nodes' state.
- the reverse edges kept between rounds (``graph_tasks._keep_budget``): they fill a third of
  the memory limit beside the state (16 bytes a move, at most the worker's moves), so state
  and kept edges together take ``max(state, limit / 3)`` on a large tier.
- the messages of the busiest round waiting in its shards' inboxes (``MESSAGE_SHARE`` of its
  moves carry one, 8 bytes of node and the value: ``Rule.message_bytes``, 9 for normal, 16
  else).
- the shard cache's budget (``shard_cache.SHARE`` of the limit) when the dataset has several
  tiers (a tier's solve reads the later tiers' answers through it; a one-tier graph never
  fills it).
- one task's temporaries (one thread a worker): ``TASK_BYTES_PER_NODE`` per node and
  ``TASK_BYTES_PER_EDGE`` per move of the shard it runs (its nodes, edges and reverse edges as
  read, counters, the messages it sends). Only this part shrinks with smaller shards.

The sum must stay under ``TARGET`` of the limit (Dask pauses a worker at 80%, and the run then
fails: ``supervise``). ``shards_needed`` (generation) picks the fewest shards that fit, a
multiple of the workers (under ``ROOMY``, below Dask's spill threshold, when the shards can
stay large); ``check_fits`` (solve, before the cluster does any work) refuses a
dataset whose shards cannot fit with one line naming the ``--worker-memory`` they need.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from verifier.dataset import round_rules, shard_cache
from verifier.dataset.errors import RunFailed
from verifier.dataset.storage import MIN_SHARD, shards_for
from verifier.model.semantics import Semantics

__all__ = [
    "BASELINE",
    "MESSAGE_SHARE",
    "TARGET",
    "TASK_BYTES_PER_EDGE",
    "TASK_BYTES_PER_NODE",
    "Load",
    "WorkersTooSmall",
    "check_fits",
    "need_bytes",
    "shards_needed",
    "smallest_limit",
    "state_bytes",
]

BASELINE = 220 << 20
"""A worker process's resident memory once it has run a task (measured: 220 MB)."""
TASK_BYTES_PER_NODE = 18
TASK_BYTES_PER_EDGE = 39
"""One round-0 task's peak above what it leaves behind, per node and per move of its shard
(measured on shards of 1M nodes with 1M and 3M moves and of 2M nodes with 6M moves: 57, 135
and 268 MB; the later rounds' tasks need less)."""
MESSAGE_SHARE = 0.1
"""The share of a worker's moves that carry a message in the busiest round (measured: round 1
of a random graph of mean degree 3, which decides 9.9% of the nodes, about 3 moves each)."""
TARGET = 0.75
"""The share of the memory limit the sum may reach: under Dask's pause threshold (80%), with
room for the allocator's slack."""
ROOMY = 0.6
"""The share generation aims at when the shards can stay large (``ROOMY_SHARD``): under Dask's
spill threshold (70%), above which a worker's memory manager works at every check. Measured on
10^8 random nodes, workers of 3 GB (2026-11-29): 16 shards sized to ``TARGET`` (workers 2,208
and 2,091 MB, past 70%) solved in 210 s, 36 shards (1.9 GB) in 189 s."""
ROOMY_SHARD = 2_000_000
"""Shards are not made smaller than this (nodes) to stay under ``ROOMY``, only to fit under
``TARGET``: workers small for their tier get fewer, larger shards (the shard size still grows
with the memory)."""
_STEP = 100_000_000
"""Needed memory is rounded up to this (100 MB, as ``--worker-memory`` counts: 1.5GB is
1,500,000,000 bytes)."""


class WorkersTooSmall(RunFailed):
    """The workers' memory cannot hold even the smallest shards' rounds: the run is refused
    before it starts (exit 3, as a run that fails), naming the ``--worker-memory`` needed."""


@dataclass(frozen=True)
class Load:
    """What one worker holds for a tier: ``nodes`` and ``moves`` of all the shards it runs,
    the largest shard it runs (``shard_nodes``, ``shard_moves``: forward and reverse moves
    averaged), ``state`` bytes per node, ``message`` bytes per message, ``impartial``: keeps
    the successor values seen, ``tiers`` > 1: the shard cache is filled."""

    nodes: int
    moves: int
    shard_nodes: int
    shard_moves: int
    state: int = 9
    message: int = 9
    seen: bool = False
    tiers: int = 1


def state_bytes(semantics: str) -> tuple[int, int, bool]:
    """Bytes per node of a shard's state between rounds, bytes per message and whether the
    successor values are kept (16 bytes a move), for a dataset of ``semantics``."""
    rule = round_rules.RULES[Semantics(semantics)]
    columns = {**round_rules.COMMON, **rule.state_columns}
    return sum(np.dtype(t).itemsize for t in columns.values()), rule.message_bytes, rule.keeps_seen


def need_bytes(load: Load, limit: int) -> int:
    """Peak bytes of a worker of memory limit ``limit`` carrying ``load`` (the sum of the
    module's list)."""
    state = load.nodes * load.state + (16 * load.moves if load.seen else 0)
    kept = min(max(0, limit // 3 - state), 16 * load.moves)  # reverse edges kept beside it
    messages = int(MESSAGE_SHARE * load.moves) * load.message
    cache = int(limit * shard_cache.SHARE) if load.tiers > 1 else 0
    task = TASK_BYTES_PER_NODE * load.shard_nodes + TASK_BYTES_PER_EDGE * load.shard_moves
    return BASELINE + state + kept + messages + cache + task


def fits(load: Load, limit: int) -> bool:
    """Whether ``load`` stays under ``TARGET`` of ``limit``."""
    return need_bytes(load, limit) <= TARGET * limit


def smallest_limit(load: Load) -> int:
    """The least memory limit (a multiple of 100 MB) under which ``load`` fits (``fits``
    grows with the limit: the parts that grow with it grow slower than ``TARGET``)."""
    hi = _STEP
    while not fits(load, hi):
        hi *= 2
    lo = hi // 2  # does not fit (or is half a step)
    while hi - lo > _STEP:
        mid = (lo + hi) // 2 // _STEP * _STEP
        lo, hi = (lo, mid) if fits(load, mid) else (mid, hi)
    return hi


def _gb(n: int) -> str:
    """``n`` bytes as ``--worker-memory`` takes them: 1.5GB, 250MB."""
    return f"{n / 1e9:.1f}GB" if n % _STEP == 0 else f"{n / 1e6:,.0f}MB"


def shards_needed(
    nodes: int, moves: int, workers: int, limit: int, semantics: str = "normal", tiers: int = 1
) -> int:
    """The fewest shards of a tier of ``nodes`` nodes and ``moves`` moves that ``workers``
    workers of memory limit ``limit`` solve (``need_bytes``) under ``ROOMY`` of their memory,
    or under ``TARGET`` with shards of at most ``ROOMY_SHARD`` nodes: a multiple of the workers
    when there are several, at least two per worker when the tier is large enough
    (``storage.shards_for``). ``WorkersTooSmall`` when even shards of ``storage.MIN_SHARD``
    nodes do not fit, naming the ``--worker-memory`` they need."""
    state, message, seen = state_bytes(semantics)
    degree = moves / max(1, nodes)
    mine_nodes, mine_moves = math.ceil(nodes / workers), math.ceil(moves / workers)

    def load(per_shard: int) -> Load:
        shard_moves = math.ceil(per_shard * degree)
        return Load(mine_nodes, mine_moves, per_shard, shard_moves, state, message, seen, tiers)

    smallest = min(nodes, MIN_SHARD)
    if not fits(load(smallest), limit):
        raise WorkersTooSmall(
            f"{nodes:,} nodes and {moves:,} moves on {workers} worker(s) of {_gb(limit)}: "
            f"each worker would hold more than {TARGET:.0%} of its memory while solving "
            f"(the rounds' state of its {mine_nodes:,} nodes, {state} bytes each, and a "
            f"shard's work): give --worker-memory "
            f"{_gb(smallest_limit(load(smallest)))} or more workers"
        )
    per_node = TASK_BYTES_PER_NODE + TASK_BYTES_PER_EDGE * degree
    roomy = int((ROOMY * limit - need_bytes(load(0), limit)) // per_node)
    free = TARGET * limit - need_bytes(load(0), limit)
    per_shard = max(smallest, min(int(free // per_node), max(roomy, ROOMY_SHARD)))
    shards = shards_for(nodes, per_shard, workers)
    if shards > 1:
        shards = -(-shards // workers) * workers
    return shards


def check_fits(
    what: str,
    sizes: Sequence[tuple[int, int]],
    workers: int,
    limit: int,
    semantics: str = "normal",
    tiers: int = 1,
) -> None:
    """Refuse (``WorkersTooSmall``, one line naming ``what``) a tier whose shards (``sizes``:
    nodes and moves, forward and reverse averaged, per shard) ``workers`` workers of limit
    ``limit`` cannot solve: shard ``j`` runs on worker ``j % workers`` (``graph_solve``)."""
    state, message, seen = state_bytes(semantics)
    worst: Load | None = None
    for w in range(min(workers, len(sizes))):
        mine = sizes[w::workers]
        load = Load(sum(n for n, _ in mine), sum(e for _, e in mine),
                    max(n for n, _ in mine), max(e for _, e in mine),
                    state, message, seen, tiers)  # fmt: skip
        if worst is None or need_bytes(load, limit) > need_bytes(worst, limit):
            worst = load
    if worst is None or fits(worst, limit):
        return
    small = min(worst.shard_nodes, MIN_SHARD)
    finer = Load(worst.nodes, worst.moves, small,
                 math.ceil(worst.shard_moves * small / max(1, worst.shard_nodes)),
                 state, message, seen, tiers)  # fmt: skip
    again = " (or generate it again with these workers: smaller shards)"
    again = again if fits(finer, limit) else ""
    raise WorkersTooSmall(
        f"{what}: its shards of up to {worst.shard_nodes:,} nodes need --worker-memory "
        f"{_gb(smallest_limit(worst))}{again}: workers of {_gb(limit)} would hold the rounds' "
        f"state of {worst.nodes:,} nodes each ({state} bytes a node) beside a shard's work"
    )
