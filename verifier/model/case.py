"""A case: a game graph plus what the user asked and what they expect (the corpus entry)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from verifier.model.graph import GameGraph
from verifier.model.semantics import Semantics

__all__ = ["Case", "Expect", "GrundyValue", "SumSpec"]

GrundyValue = int | str
"""A finite Grundy value, or a loopy value written ``"inf"`` / ``"inf(0,2)"`` (Smith's ∞_K)."""

_EMPTY: Mapping[int, object] = MappingProxyType({})


@dataclass(frozen=True)
class SumSpec:
    """A disjunctive sum of games, each component given by its start position in the graph."""

    name: str
    """Name of the sum, used in reports and in ``expect.sums``."""
    positions: tuple[int, ...]
    """Start position (node id) of each component."""


@dataclass(frozen=True)
class Expect:
    """What a case expects; node keys are ids. Every field is optional."""

    values: Mapping[int, float] = field(default_factory=lambda: MappingProxyType({}))
    """``minimax``: Kars' score per node."""
    labels: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))
    """``normal``: ``won`` / ``lost`` / ``unknown`` per node (mover's view)."""
    winner: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    """``reachability``: 0 if player 0 wins from the node, else 1."""
    grundy: Mapping[int, GrundyValue] = field(default_factory=lambda: MappingProxyType({}))
    """``impartial``: Grundy value per node (loopy values as strings)."""
    remoteness: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    """Plies to the end under optimal play (``normal``), or layer index (``reachability``)."""
    intervals: Mapping[int, tuple[float, float]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    """``minimax``: [lowest, highest] value of the node over all solutions of (T+MM)."""
    root_value: float | str | None = None
    """The root's value: a score (minimax), a label (normal), a winner (reachability), a Grundy
    value (impartial)."""
    unique: bool | None = None
    """Whether (T+MM) (or the mex equations) has exactly one solution."""
    sums: Mapping[str, GrundyValue] = field(default_factory=lambda: MappingProxyType({}))
    """``impartial``: Grundy value of each declared sum."""


@dataclass(frozen=True)
class Case:
    """A game graph with its metadata, as read from a case file or built by a generator."""

    graph: GameGraph
    id: str
    """Identifier of the case (the file stem when the file gives none)."""
    root: int | None = None
    """Start position; ``None`` means every node is analysed alike."""
    source: str | None = None
    """Where the example comes from (paper, figure, program), like a perft ``# Source:`` line."""
    description: str | None = None
    expect: Expect | None = None
    sums: tuple[SumSpec, ...] = ()
    path: Path | None = None
    """The file the case was read from, if any."""
    dataset: Path | None = None
    """The tiered dataset this case stands for when its answer files are written or read
    (``verifier.dataset.answers``): its positions and names, not its moves (``m`` is
    0), so an answer file's ``graph`` block is checked by its ``positions`` alone."""

    @property
    def semantics(self) -> Semantics:
        return self.graph.semantics
