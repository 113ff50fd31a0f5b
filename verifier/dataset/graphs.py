"""General game graphs in a tiered dataset: node ids as codes, moves stored as edges.

A graph without tier structure is stored as a single tier 0 whose position codes are the node
ids ``0 .. nodes - 1``; a graph whose nodes fall into tiers (every move stays in its tier or
goes to a later one: the chess endgames' materials) numbers each tier's nodes from 0. The
moves cannot be computed from the codes, so they are stored (``graph_storage``): per shard the
out-edges of its nodes inside the tier, sorted by source, the in-edges of its nodes (the
reverse edges), sorted by target, that the retrograde rounds (``graph_solve``) use to tell a
decided node's predecessors, and the moves into later tiers (``exits``), answered from those
tiers' answers.

Shards hold contiguous *ranges* of node ids (``sharding: "node-id range"`` in the manifest's
parameters), not the Fibonacci hash of ``storage.shard_of``: a worker then draws or lists its
shard's nodes without looking at the others. The bounds are the running sums of the shards'
``positions`` in the manifest (``range_bounds``), so they are never stored twice.

Semantics ``normal`` (the project's: the mover alternates; a dead end carries a label from
the mover's view, lost by default, won, or drawn; a node is won if a move reaches a lost one,
lost if every move reaches a won one, drawn otherwise), solved by ``graph_tasks``' retrograde
rounds; ``reachability``, ``minimax`` and ``impartial`` (acyclic) in one tier, by the rounds of
``round_rules`` (the manifest's ``semantics`` says which).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.graph_names import read_names
from verifier.model.describe import describe
from verifier.model.semantics import Semantics
from verifier.model.solution import OUTCOME_WORDS

__all__ = [
    "RANGE",
    "GraphTiers",
    "range_bounds",
    "range_owner",
    "split_range",
    "terminal_labels",
    "with_names",
    "with_semantics",
]

RANGE = "node-id range"
"""The sharding scheme of a graph's tier: shard ``s`` holds the ids ``bounds[s] ..
bounds[s + 1] - 1``."""


@dataclass(frozen=True)
class GraphTiers:
    """A stored graph (the manifest's ``"game": "graph"``): ``nodes`` node ids in one tier and
    ``edges`` moves, solved by retrograde rounds (``graph_solve``). The other fields say where
    the graph came from (a seeded random draw, or a case file) and are kept for the record."""

    nodes: int
    edges: int
    tiers: int = 1
    """Tiers: 1 for a graph without tier structure; more when a graph's nodes are split into
    tiers whose moves lead to the same or a later tier (each tier's node ids from 0)."""
    sharding: str = RANGE
    seed: int | None = None
    degree: float | None = None
    terminal_fraction: float | None = None
    terminal_values: str | None = None
    source: str | None = None
    acyclic_moves: bool | None = None
    """A random graph whose every move goes to a higher node id (``generate random
    --acyclic``)."""
    names_sha256: str | None = None
    """The sha256 of ``names.parquet``: the node names of the case file the graph came from, in
    id order (``graph_storage.write_names``); ``None``: the ids are the names."""
    name: str = "graph"
    semantics: Semantics = Semantics.NORMAL
    folder: str | None = field(default=None, compare=False, repr=False)
    """The dataset's folder, where those names are read when a position is named
    (``with_names``: a driver's or a worker's words); ``None``: positions are ``node N``."""

    def __post_init__(self) -> None:
        if self.sharding != RANGE:
            raise ValueError(f"sharding {self.sharding!r}: graphs are sharded by {RANGE!r}")
        if self.nodes < 1 or self.edges < 0:
            raise ValueError(f"a graph needs nodes >= 1 and edges >= 0, got {self.nodes}, "
                             f"{self.edges}")  # fmt: skip

    @property
    def max_moves(self) -> int:
        return max(1, -(-self.edges // self.nodes))

    def parameters(self) -> dict[str, object]:
        """The manifest's ``parameters`` (the fields that are set)."""
        keys = ("nodes", "edges", "tiers", "sharding", "seed", "degree", "terminal_fraction",
                "terminal_values", "source", "acyclic_moves", "names_sha256")  # fmt: skip
        out = {k: getattr(self, k) for k in keys if getattr(self, k) is not None}
        if self.tiers == 1:
            del out["tiers"]
        return out

    def root(self) -> int:
        """Node 0 stands for the start (a graph names none)."""
        return 0

    @property
    def acyclic(self) -> bool:
        return False  # moves inside a tier may form cycles

    def canonical(self, codes: NDArray[np.uint64]) -> NDArray[np.uint64]:
        return codes

    def tier_of(self, codes: NDArray[np.uint64]) -> NDArray[np.int64]:
        """0 for a node id of a one-tier graph, -1 past the last; a graph of several tiers
        numbers each tier's nodes from 0, so a bare id names no tier (``DatasetError``)."""
        if self.tiers != 1:
            from verifier.dataset.errors import DatasetError

            raise DatasetError(
                f"a graph stored in {self.tiers} tiers numbers each tier's nodes from 0: a table "
                "of node ids cannot say which tier a row is for"
            )
        return np.where(codes < np.uint64(self.nodes), 0, -1).astype(np.int64)

    @property
    def labels(self) -> tuple[str, ...] | None:
        """The case file's node names (``graph_names``), when the graph keeps them and its
        folder is known (``with_names``)."""
        if self.names_sha256 is None or self.folder is None or self.tiers != 1:
            return None
        return read_names(self.folder, self.names_sha256, self.nodes)

    def position_name(self, code: int) -> str:
        """The case file's name of node ``code`` (``labels``), else ``node N``."""
        labels = self.labels
        if labels is not None and 0 <= code < len(labels):
            return labels[code]
        return f"node {code}"

    def describe(self, label: int, remoteness: int) -> str:
        """The start's label in the words of a case's report (``ViewForm.verdict``: ``node 0:
        the player to move wins in 3 plies``)."""
        d = describe(Semantics.NORMAL)
        return f"{self.position_name(0)}: {d.form.verdict(label, OUTCOME_WORDS[label], remoteness)}"


def with_names(root: Path, game: Any) -> Any:
    """``game``, when a stored graph that keeps its case file's names, with its folder set (so
    that it names positions as the file does) and the names read once, their digest checked
    (a table changed after the fact fails here, ``DatasetError``); any other game as it is."""
    if not isinstance(game, GraphTiers) or game.names_sha256 is None:
        return game
    from dataclasses import replace

    named = replace(game, folder=str(root))
    named.labels  # noqa: B018 (read and checked now, not at the first violation)
    return named


def with_semantics(game: object, semantics: str, where: str) -> object:
    """A stored graph (``GraphTiers``) with the manifest's ``semantics``; other games as they
    are (``DatasetError`` naming ``where`` for a semantics no stored graph is solved by)."""
    if not isinstance(game, GraphTiers):
        return game
    from dataclasses import replace

    from verifier.dataset.errors import DatasetError

    try:
        sem = Semantics(semantics)
    except ValueError:
        raise DatasetError(f"{where}: $.semantics: {semantics!r}: not a semantics") from None
    return replace(game, semantics=sem)


def split_range(nodes: int, shards: int) -> NDArray[np.int64]:
    """The bounds of ``shards`` ranges of about equal size over ``0 .. nodes - 1``."""
    return (np.arange(shards + 1, dtype=np.int64) * nodes) // shards


def range_bounds(positions: list[int]) -> NDArray[np.int64]:
    """The bounds of the ranges of shards holding ``positions`` ids each, in shard order."""
    bounds = np.zeros(len(positions) + 1, dtype=np.int64)
    np.cumsum(positions, out=bounds[1:])
    return bounds


def range_owner(codes: NDArray[np.uint64], bounds: NDArray[np.int64]) -> NDArray[np.intp]:
    """The shard owning each node id (``bounds`` from ``range_bounds``; empty shards own
    nothing)."""
    owner = np.searchsorted(bounds.astype(np.uint64), codes, side="right") - 1
    return owner.astype(np.intp)


def terminal_labels(value: NDArray[np.float64]) -> NDArray[np.int8]:
    """The label of a dead end from its ``GameGraph.value`` (``normal``: NaN lost, as in
    ``retrograde.terminal_labels``; else its sign)."""
    label = np.sign(np.nan_to_num(value, nan=-1.0))
    return label.astype(np.int8)
