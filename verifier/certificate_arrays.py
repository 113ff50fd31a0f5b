"""The linear certificate checker of ``verifier.certificates`` over whole arrays.

The same conditions, the same violations in the same order (a property test compares the two,
violation by violation, on random graphs with corrupted answers); only the reading differs:
each node-by-node condition is one numpy pass over the edge list (a per-node count, minimum or
maximum over its successors), and the region a minimax strategy forces (``forced_region``) is
a compiled queue (``verifier._certificate_kernels``) above ``registry.COMPILED_LIMIT`` nodes.
The plain checker reads a 10^6-node graph in about 10 s of Python (its list of lists alone
takes 2-3 s); this one in a fraction of a second.

``checker(n)`` picks the module for a graph of ``n`` nodes: the plain, readable one up to
``PLAIN_LIMIT`` nodes, this one above. Both export ``iter_won_lost``, ``iter_attractor``,
``iter_strategy_normal``, ``iter_strategy_region``, ``iter_strategy_minimax`` and
``iter_strategy_impartial`` (whose restricted retrograde analysis is the engine's: the compiled
queue, or the numpy frontiers without numba).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from verifier import certificates
from verifier.certificates import Violation
from verifier.model.graph import GameGraph
from verifier.model.rows import edge_buffer, is_a_move, reduce_rows
from verifier.model.semantics import LOST, MAX, MIN, UNKNOWN, WON, Semantics

__all__ = [
    "PLAIN_LIMIT",
    "checker",
    "forced_region",
    "iter_attractor",
    "iter_strategy_impartial",
    "iter_strategy_minimax",
    "iter_strategy_normal",
    "iter_strategy_region",
    "iter_won_lost",
    "restricted_labels",
]

PLAIN_LIMIT = 20_000
"""Up to this many nodes the plain-Python checker runs (a few tens of milliseconds)."""

Bools = NDArray[np.bool_]
Ints = NDArray[np.int64]
Floats = NDArray[np.float64]


def checker(n: int) -> ModuleType:
    """The certificate checker for a graph of ``n`` nodes (same functions, same answers)."""
    import sys

    return certificates if n <= PLAIN_LIMIT else sys.modules[__name__]


class _Edges:
    """A graph's CSR read edge by edge: per-node counts, minima and maxima over successors."""

    def __init__(self, g: GameGraph) -> None:
        self.g = g
        self.n = g.n
        self.idx = g.succ_idx
        self.src = g.edge_src
        self.deg = np.diff(g.succ_ptr)
        self.term: Bools = self.deg == 0

    def count(self, edge_mask: Bools) -> Ints:
        """Per node: how many of its edges are in ``edge_mask``."""
        return np.bincount(self.src[edge_mask], minlength=self.n).astype(np.int64)

    def reduce(self, ufunc: np.ufunc, per_edge: Ints, empty: int) -> Ints:
        """Per node: ``ufunc`` over its edges' values (``empty`` where it has none)."""
        buf = edge_buffer(self.g, np.int64)
        buf[: self.g.m] = per_edge
        return reduce_rows(self.g, ufunc, buf, empty)

    def holds(self, move: Ints) -> Bools:
        """Per node: is ``move`` one of its moves?"""
        return is_a_move(self.g, move)


class _Faults:
    """The first failing condition of each node, in the plain checker's order."""

    def __init__(self, n: int) -> None:
        self.code = np.zeros(n, dtype=np.int16)
        self.messages: list[Callable[[int], str]] = []

    def add(self, failing: Bools, message: Callable[[int], str]) -> None:
        """Nodes failing this condition (and none before it) get its message."""
        self.messages.append(message)
        self.code[(self.code == 0) & failing] = len(self.messages)

    def violations(self, g: GameGraph) -> Iterator[Violation]:
        for x in np.flatnonzero(self.code).tolist():
            yield Violation(x, g.name(x), self.messages[self.code[x] - 1](x))


def _ints(a: Sequence[Any]) -> Ints:
    return np.asarray(a, dtype=np.int64)


def iter_won_lost(
    g: GameGraph, labels: Sequence[int], ranks: Sequence[int] | None
) -> Iterator[Violation]:
    """``certificates.iter_won_lost`` over arrays."""
    e = _Edges(g)
    lab = _ints(labels)
    rk = None if ranks is None else _ints(ranks)
    v = np.asarray(g.value, dtype=np.float64)
    t = np.where(np.isnan(v), float(LOST), np.trunc(v))
    term, f = e.term, _Faults(g.n)
    f.add(term & (lab != t), lambda x: f"terminal labelled {lab[x]} but its label is {int(t[x])}")
    if rk is not None:
        want = np.where(t != UNKNOWN, 0, -1)
        f.add(term & (rk != want), lambda x: f"terminal has rank {rk[x]}")
    succ_lab = lab[e.idx]
    lost = e.count(succ_lab == LOST) > 0
    all_won = e.count(succ_lab == WON) == e.deg
    inner = ~term
    won_x, lost_x, unk_x = inner & (lab == WON), inner & (lab == LOST), inner & (lab == UNKNOWN)
    f.add(won_x & ~lost, lambda x: "won but no successor is lost")
    if rk is not None:
        big = np.iinfo(np.int64).max - 1
        least = e.reduce(np.minimum, np.where(succ_lab == LOST, rk[e.idx], big), big)
        f.add(
            won_x & lost & (rk != least + 1),
            lambda x: f"won with rank {rk[x]}, not 1 + least rank of a lost move",
        )
    f.add(lost_x & ~all_won, lambda x: "lost but some successor is not won")
    if rk is not None:
        most = e.reduce(np.maximum, rk[e.idx], 0)
        f.add(
            lost_x & all_won & (rk != most + 1),
            lambda x: f"lost with rank {rk[x]}, not 1 + greatest successor rank",
        )
    f.add(unk_x & (lost | all_won), lambda x: "unknown but the rules label it (not maximal)")
    if rk is not None:
        f.add(unk_x & (rk != -1), lambda x: f"unknown with rank {rk[x]}")
    f.add(inner & ~(won_x | lost_x | unk_x), lambda x: f"label {lab[x]} is not +1, -1 or 0")
    if rk is not None:
        f.add((won_x | lost_x) & (rk < 0), lambda x: "negative rank")
    return f.violations(g)


def iter_attractor(
    g: GameGraph, region: Sequence[int], layers: Sequence[int] | None
) -> Iterator[Violation]:
    """``certificates.iter_attractor`` over arrays."""
    e = _Edges(g)
    w = _ints(region) != 0
    ly = None if layers is None else _ints(layers)
    p1, tgt = g.owner == MIN, np.asarray(g.target, dtype=np.bool_)
    inside = e.count(w[e.idx])
    f = _Faults(g.n)
    f.add(
        w & ~tgt & p1 & (e.term | (inside < e.deg)),
        lambda x: "player 1 node in W can move outside W (or cannot move)",
    )
    f.add(w & ~tgt & ~p1 & (inside == 0), lambda x: "player 0 node in W has no move into W")
    if ly is not None:
        big = np.iinfo(np.int64).max - 1
        most = e.reduce(np.maximum, ly[e.idx], 0) + 1
        least = e.reduce(np.minimum, np.where(w[e.idx], ly[e.idx], big), big) + 1
        want = np.where(tgt, 0, np.where(p1, most, least))
        f.add(w & (ly != want), lambda x: f"layer {ly[x]}, expected {want[x]}")
    f.add(~w & tgt, lambda x: "a target outside W")
    f.add(
        ~w & p1 & ~e.term & (inside == e.deg),
        lambda x: "player 1 node outside W must move into W (not a trap)",
    )
    f.add(~w & ~p1 & (inside > 0), lambda x: "player 0 node outside W can move into W (not a trap)")
    if ly is not None:
        f.add(~w & (ly != -1), lambda x: f"outside W with layer {ly[x]}")
    return f.violations(g)


def _target_of(move: Ints, valid: Bools) -> Ints:
    """The moves where they are moves of their node, 0 elsewhere (safe to index with)."""
    return np.where(valid, move, 0)


def iter_strategy_normal(
    g: GameGraph, labels: Sequence[int], ranks: Sequence[int], move: Sequence[int]
) -> Iterator[Violation]:
    """``certificates.iter_strategy_normal`` over arrays."""
    e = _Edges(g)
    lab, rk, mv = _ints(labels), _ints(ranks), _ints(move)
    ok = e.holds(mv)
    y = _target_of(mv, ok)
    inner, f = ~e.term, _Faults(g.n)
    f.add(e.term & (mv != -1), lambda x: "a terminal with a move")
    f.add(inner & ~ok, lambda x: f"move to {mv[x]} is not a move of the node")
    f.add(
        inner & (lab == WON) & ~((lab[y] == LOST) & (rk[y] < rk)),
        lambda x: "winning move does not go to a lost node of smaller rank",
    )
    escape = e.count((lab[e.idx] != WON) | (rk[e.idx] >= rk[e.src])) > 0
    f.add(
        inner & (lab == LOST) & escape,
        lambda x: "the loser can escape (a move to a node not won at smaller rank)",
    )
    f.add(
        inner & (lab == UNKNOWN) & (lab[y] == WON),
        lambda x: "drawing node moves to a node won for the opponent",
    )
    return f.violations(g)


def iter_strategy_region(
    g: GameGraph, region: Sequence[int], layers: Sequence[int], move: Sequence[int]
) -> Iterator[Violation]:
    """``certificates.iter_strategy_region`` over arrays."""
    e = _Edges(g)
    w, ly, mv = _ints(region) != 0, _ints(layers), _ints(move)
    p1, tgt = g.owner == MIN, np.asarray(g.target, dtype=np.bool_)
    ok = e.holds(mv)
    y = _target_of(mv, ok)
    f = _Faults(g.n)
    f.add(
        w & ~tgt & ~p1 & ~(ok & w[y] & (ly[y] < ly)),
        lambda x: "player 0's move does not enter a smaller layer of W",
    )
    f.add(~w & p1 & e.term & (mv != -1), lambda x: "a dead end with a move")
    f.add(~w & p1 & ~e.term & ~(ok & ~w[y]), lambda x: "player 1's move enters W")
    return f.violations(g)


def iter_strategy_minimax(
    g: GameGraph, scores: Sequence[float], move: Sequence[int]
) -> Iterator[Violation]:
    """``certificates.iter_strategy_minimax`` over arrays: the moves first, then the regions
    each side forces by them, threshold by threshold."""
    e = _Edges(g)
    s, mv = np.asarray(scores, dtype=np.float64), _ints(move)
    mx, mn = g.owner == MAX, g.owner == MIN
    ok = e.holds(mv)
    sy = s[_target_of(mv, ok)]
    moving = ~e.term & (mv != -1)
    f = _Faults(g.n)
    f.add(
        ~e.term & (mv == -1) & ((mx & (s > 0)) | (mn & (s < 0))),
        lambda x: "the winning side has no move",
    )
    f.add(moving & ~ok, lambda x: f"move to {mv[x]} is not a move of the node")
    drop = "Max's draw strategy lets the value drop below 0"
    rise = "Min's draw strategy lets the value rise above 0"
    f.add(moving & mx & (s >= 0) & (sy < 0), lambda x: drop)
    f.add(moving & mn & (s <= 0) & (sy > 0), lambda x: rise)
    f.add(
        moving & (sy != s),
        lambda x: f"move keeps value {float(sy[x])}, not the score {float(s[x])}",
    )
    yield from f.violations(g)
    leaves = np.asarray(g.value, dtype=np.float64)
    owner = np.asarray(g.owner, dtype=np.int64)
    for v in np.unique(s[(s != 0) & ~np.isnan(s)]).tolist():
        side = MAX if v > 0 else MIN
        good = leaves >= v if side == MAX else leaves <= v
        inside = forced_region(g, owner, mv, good, side)
        stuck = np.flatnonzero(((s >= v) if side == MAX else (s <= v)) & ~inside)
        if not len(stuck):
            continue
        who = "Max" if side == MAX else "Min"
        # first the side's own nodes that could have moved into the forced region
        reach = e.count(inside[e.idx]) > 0
        order = stuck[np.lexsort((stuck, ~reach[stuck], owner[stuck] != side))]
        for x in order.tolist():
            yield Violation(
                x, g.name(x), f"following the moves {who} does not force a leaf worth {v}"
            )


def forced_region(g: GameGraph, owner: Ints, move: Ints, good: Bools, side: int) -> Bools:
    """Nodes from which ``side`` playing ``move`` forces reaching a ``good`` terminal: a compiled
    queue above ``COMPILED_LIMIT`` nodes, the plain checker's queue below."""
    from verifier import registry

    if g.n <= registry.COMPILED_LIMIT or not registry.compiled_available():
        succ = certificates.successor_lists(g)
        inside = certificates.forced_region(
            succ, owner.tolist(), move.tolist(), good.tolist(), side
        )
        return np.asarray(inside, dtype=np.bool_)
    from verifier._certificate_kernels import forced

    return np.asarray(
        forced(g.succ_ptr, g.succ_idx, owner, move, good.astype(np.bool_), side), dtype=np.bool_
    )


def restricted_labels(g: GameGraph, keep: Ints, restricted: Bools) -> NDArray[np.int8]:
    """``certificates.restricted_labels`` over arrays: retrograde analysis of the game where a
    ``restricted`` node may only move to ``keep[x]`` (-1: nowhere), by the engine."""
    from verifier.engine import retrograde_numpy
    from verifier.engine.compiled import available, retrograde_compiled

    src = g.edge_src
    kept = ~restricted[src] | (g.succ_idx == keep[src])
    ptr = np.zeros(g.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src[kept], minlength=g.n), out=ptr[1:])
    dead = np.diff(ptr) == 0
    h = GameGraph(
        semantics=Semantics.NORMAL,
        succ_ptr=ptr,
        succ_idx=g.succ_idx[kept],
        owner=np.full(g.n, -1, dtype=np.int8),
        value=np.where(dead, float(LOST), np.nan),
        target=np.zeros(g.n, dtype=np.bool_),
    )
    r = retrograde_compiled(h) if available() else retrograde_numpy(h)
    return np.asarray(r.label, dtype=np.int8)


def iter_strategy_impartial(
    g: GameGraph, classes: Sequence[int], move: Sequence[int]
) -> Iterator[Violation]:
    """``certificates.iter_strategy_impartial`` over arrays."""
    cls, mv = _ints(classes), _ints(move)
    yield from iter_won_lost(g, cast(Sequence[int], cls), None)
    e = _Edges(g)
    ok = e.holds(mv)
    y = _target_of(mv, ok)
    inner, f = ~e.term, _Faults(g.n)
    f.add(e.term & (mv != -1), lambda x: "a terminal with a move")
    f.add(
        inner & ((cls != LOST) | (mv != -1)) & ~ok,
        lambda x: f"move to {mv[x]} is not a move of the node",
    )
    f.add(
        inner & (cls == WON) & (cls[y] != LOST),
        lambda x: "the N position's move does not go to a P position",
    )
    f.add(
        inner & (cls == UNKNOWN) & (cls[y] != UNKNOWN),
        lambda x: "the draw's move does not go to a draw (D) position",
    )
    yield from f.violations(g)
    won = cls == WON
    lab = restricted_labels(g, np.where(ok, mv, -1), won)
    # the N positions first: their moves are what fails
    for x in np.flatnonzero(won & (lab != WON)).tolist():
        yield Violation(
            x, g.name(x), "following the moves the N position does not win (they go round)"
        )
    for x in np.flatnonzero((cls == LOST) & (lab != LOST)).tolist():
        yield Violation(
            x, g.name(x), "following the moves the P position is not lost for the mover"
        )
