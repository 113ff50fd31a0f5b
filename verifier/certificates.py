"""An independent linear-time certificate checker in plain Python (no Z3, no numpy kernels).

A solver's answer comes with ranks (remoteness / attractor layers) and optimal moves; together
they are a certificate that a reader can check node by node, in time linear in the graph:

- ``check_won_lost``: labels with remoteness for ``normal`` games (Knuth's exercise): a won node
  has a lost successor of smaller rank, a lost node has every successor won with smaller rank,
  an unknown node has no lost successor and not all successors won; ranks are exactly the
  remoteness of the shared definition. This proves the labels are the least fixpoint: derivable
  (ranks) and maximal (every node outside is a fixpoint witness).
- ``check_attractor``: region with layers for ``reachability`` games (ICO notes): W closed under
  the ranked rules, the complement a trap for player 0.
- ``check_strategy_normal`` / ``check_strategy_region`` / ``check_strategy_minimax``: following
  the moves the winner's rank strictly decreases (so the win is reached), the loser cannot
  escape, a draw strategy never lets the value drop below 0 (Max) or rise above 0 (Min).
- ``check_strategy_impartial``: P / N / D of an impartial game (a loopy one too) with its moves:
  the classes are the won / lost / unknown labels of the same moves played as a ``normal`` game
  (its rank certificate, with the ranks found rather than given: the restricted retrograde
  below derives them) and following the moves the N positions win, the draws keep the draw.

Each ``check_*`` returns ``None`` when the certificate holds, else a ``Violation`` naming a node;
the ``iter_*`` generators yield every violation (the node at fault among its neighbours).
The graph is read through its CSR lists only (``succ_ptr``, ``succ_idx``, ``owner``, ...).

>>> from verifier.model import GameGraph, Semantics
>>> g = GameGraph.from_successors({"a": ["b"], "b": ["c"]}, semantics=Semantics.NORMAL)
>>> check_won_lost(g, [-1, 1, -1], [2, 1, 0]) is None
True
>>> check_won_lost(g, [1, 1, -1], [2, 1, 0]).node
'a'
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from verifier.model.graph import GameGraph
from verifier.model.semantics import LOST, MAX, MIN, UNKNOWN, WON

__all__ = [
    "CHECKS",
    "Violation",
    "check_attractor",
    "check_strategy_impartial",
    "check_strategy_minimax",
    "check_strategy_normal",
    "check_strategy_region",
    "check_won_lost",
    "first",
    "forced_region",
    "iter_attractor",
    "iter_strategy_impartial",
    "iter_strategy_minimax",
    "iter_strategy_normal",
    "iter_strategy_region",
    "iter_won_lost",
    "restricted_labels",
    "successor_lists",
]


@dataclass(frozen=True)
class Violation:
    """Where a certificate fails."""

    id: int
    node: str
    reason: str


def successor_lists(g: GameGraph) -> list[list[int]]:
    """Each node's successors, as Python lists."""
    ptr, idx = g.succ_ptr.tolist(), g.succ_idx.tolist()
    return [idx[ptr[i] : ptr[i + 1]] for i in range(g.n)]


def _bad(g: GameGraph, i: int, reason: str) -> Violation:
    return Violation(i, g.name(i), reason)


def _terminal_label(g: GameGraph, i: int) -> int:
    v = float(g.value[i])
    return LOST if math.isnan(v) else int(v)


def iter_won_lost(
    g: GameGraph, labels: Sequence[int], ranks: Sequence[int] | None
) -> Iterator[Violation]:
    """Labels (+1 won / -1 lost / 0 unknown) with remoteness form a retrograde certificate.

    Without ``ranks`` only the fixpoint conditions are checked: a circular labelling of a cycle
    passes (that is what the ranks are for)."""
    succ = successor_lists(g)
    lab = [int(x) for x in labels]
    rk = None if ranks is None else [int(x) for x in ranks]
    for x in range(g.n):
        ys = succ[x]
        if not ys:
            t = _terminal_label(g, x)
            if lab[x] != t:
                yield _bad(g, x, f"terminal labelled {lab[x]} but its label is {t}")
                continue
            if rk is not None and rk[x] != (0 if t != UNKNOWN else -1):
                yield _bad(g, x, f"terminal has rank {rk[x]}")
                continue
            continue
        lost = [y for y in ys if lab[y] == LOST]
        all_won = all(lab[y] == WON for y in ys)
        if lab[x] == WON:
            if not lost:
                yield _bad(g, x, "won but no successor is lost")
                continue
            if rk is not None and rk[x] != 1 + min(rk[y] for y in lost):
                yield _bad(g, x, f"won with rank {rk[x]}, not 1 + least rank of a lost move")
                continue
        elif lab[x] == LOST:
            if not all_won:
                yield _bad(g, x, "lost but some successor is not won")
                continue
            if rk is not None and rk[x] != 1 + max(rk[y] for y in ys):
                yield _bad(g, x, f"lost with rank {rk[x]}, not 1 + greatest successor rank")
                continue
        elif lab[x] == UNKNOWN:
            if lost or all_won:
                yield _bad(g, x, "unknown but the rules label it (not maximal)")
                continue
            if rk is not None and rk[x] != -1:
                yield _bad(g, x, f"unknown with rank {rk[x]}")
                continue
        else:
            yield _bad(g, x, f"label {lab[x]} is not +1, -1 or 0")
            continue
        if rk is not None and lab[x] != UNKNOWN and rk[x] < 0:
            yield _bad(g, x, "negative rank")
            continue


def iter_attractor(
    g: GameGraph, region: Sequence[int], layers: Sequence[int] | None
) -> Iterator[Violation]:
    """Region W (1 = player 0 wins) with layers is the attractor of the targets.

    Without ``layers`` only closure and the trap are checked (circular reasoning passes)."""
    succ = successor_lists(g)
    w = [bool(x) for x in region]
    ly = None if layers is None else [int(x) for x in layers]
    owner, target = g.owner.tolist(), g.target.tolist()
    for x in range(g.n):
        ys = succ[x]
        inside = [y for y in ys if w[y]]
        want: int | None
        if w[x]:
            if target[x]:
                want = 0
            elif owner[x] == MIN:
                if not ys or len(inside) < len(ys):
                    yield _bad(g, x, "player 1 node in W can move outside W (or cannot move)")
                    continue
                want = None if ly is None else 1 + max(ly[y] for y in ys)
            else:
                if not inside:
                    yield _bad(g, x, "player 0 node in W has no move into W")
                    continue
                want = None if ly is None else 1 + min(ly[y] for y in inside)
            if ly is not None and ly[x] != want:
                yield _bad(g, x, f"layer {ly[x]}, expected {want}")
                continue
        else:
            if target[x]:
                yield _bad(g, x, "a target outside W")
                continue
            if owner[x] == MIN and ys and not len(inside) < len(ys):
                yield _bad(g, x, "player 1 node outside W must move into W (not a trap)")
                continue
            if owner[x] != MIN and inside:
                yield _bad(g, x, "player 0 node outside W can move into W (not a trap)")
                continue
            if ly is not None and ly[x] != -1:
                yield _bad(g, x, f"outside W with layer {ly[x]}")
                continue


def iter_strategy_normal(
    g: GameGraph, labels: Sequence[int], ranks: Sequence[int], move: Sequence[int]
) -> Iterator[Violation]:
    """Won nodes move to a lost successor of smaller rank; lost nodes cannot escape (every move
    is won); unknown nodes keep the draw: they move to a successor that is not won for the
    opponent (in negamax terms the value never drops below 0)."""
    succ = successor_lists(g)
    lab, rk, mv = [int(x) for x in labels], [int(x) for x in ranks], [int(x) for x in move]
    for x in range(g.n):
        ys = succ[x]
        if not ys:
            if mv[x] != -1:
                yield _bad(g, x, "a terminal with a move")
                continue
            continue
        if mv[x] not in ys:
            yield _bad(g, x, f"move to {mv[x]} is not a move of the node")
            continue
        y = mv[x]
        if lab[x] == WON and not (lab[y] == LOST and rk[y] < rk[x]):
            yield _bad(g, x, "winning move does not go to a lost node of smaller rank")
            continue
        if lab[x] == LOST and any(lab[z] != WON or rk[z] >= rk[x] for z in ys):
            yield _bad(g, x, "the loser can escape (a move to a node not won at smaller rank)")
            continue
        if lab[x] == UNKNOWN and lab[y] == WON:
            yield _bad(g, x, "drawing node moves to a node won for the opponent")
            continue


def iter_strategy_region(
    g: GameGraph, region: Sequence[int], layers: Sequence[int], move: Sequence[int]
) -> Iterator[Violation]:
    """Player 0 in W moves to a smaller layer in W; player 1 outside W stays outside W."""
    succ = successor_lists(g)
    w, ly, mv = [bool(x) for x in region], [int(x) for x in layers], [int(x) for x in move]
    owner, target = g.owner.tolist(), g.target.tolist()
    for x in range(g.n):
        ys = succ[x]
        if w[x] and not target[x] and owner[x] != MIN:
            y = mv[x]
            if y not in ys or not w[y] or ly[y] >= ly[x]:
                yield _bad(g, x, "player 0's move does not enter a smaller layer of W")
                continue
        if not w[x] and owner[x] == MIN:
            if not ys:
                if mv[x] != -1:
                    yield _bad(g, x, "a dead end with a move")
                    continue
            elif mv[x] not in ys or w[mv[x]]:
                yield _bad(g, x, "player 1's move enters W")
                continue


def restricted_labels(succ: list[list[int]], keep: list[int | None]) -> list[int]:
    """Retrograde analysis (won / lost / unknown for the mover) of the game in which node ``x``
    may only move to ``keep[x]`` where that is not ``None`` (-1: nowhere), to any successor
    elsewhere; a node without a move is lost."""
    n = len(succ)
    edges: list[list[int]] = []
    for x in range(n):
        k = keep[x]
        edges.append(succ[x] if k is None else [k] if k >= 0 else [])
    pred: list[list[int]] = [[] for _ in range(n)]
    for x in range(n):
        for y in edges[x]:
            pred[y].append(x)
    count = [len(e) for e in edges]
    lab = [UNKNOWN] * n
    queue = deque(x for x in range(n) if count[x] == 0)
    for x in queue:
        lab[x] = LOST
    while queue:
        y = queue.popleft()
        for x in pred[y]:
            if lab[x] != UNKNOWN:
                continue
            if lab[y] == LOST:
                lab[x] = WON
                queue.append(x)
            else:
                count[x] -= 1
                if count[x] == 0:
                    lab[x] = LOST
                    queue.append(x)
    return lab


def iter_strategy_impartial(
    g: GameGraph, classes: Sequence[int], move: Sequence[int]
) -> Iterator[Violation]:
    """P / N / D (``classes``: -1 P, +1 N, 0 D, retrograde's lost / won / unknown) with the
    moves of an impartial game, cyclic or not: first the won/lost rules of the same moves
    played as a ``normal`` game (``iter_won_lost`` without ranks: a P position has only N
    options, an N one a P option, a draw neither, a position without moves is P); then each
    node's move (an N position moves to a P one, a draw to a draw, a terminal nowhere); then
    the strategy: in the game where every N position may only make its move, retrograde
    analysis must find every N position won and every P position lost.

    Why that proves it: in the restricted game a won N position's one move goes to a lost
    position of smaller rank, a P one (all its moves kept), whose every move goes to an N
    position (the rules) won at smaller rank, where the moves are followed again: so following
    the moves the N player wins, whatever the opponent does, in at most rank plies. The
    derivation is one in the full game too (more moves only help the winner), so N and P are
    derivable, and with the rules (a fixpoint) they are exactly the least fixpoint: the draws
    are right. A draw moves to a draw; its options are draws or N positions (never P), so the
    side that keeps to draws never loses. Any N-to-P move keeps the win; the strategy is what a
    cycle of such moves (``b -> a -> b``, a draw) breaks."""
    yield from iter_won_lost(g, [int(c) for c in classes], None)
    succ = successor_lists(g)
    cls, mv = [int(c) for c in classes], [int(m) for m in move]
    for x in range(g.n):
        ys, y = succ[x], mv[x]
        if not ys:
            if y != -1:
                yield _bad(g, x, "a terminal with a move")
            continue
        if (cls[x] != LOST or y != -1) and y not in ys:
            yield _bad(g, x, f"move to {y} is not a move of the node")
        elif cls[x] == WON and cls[y] != LOST:
            yield _bad(g, x, "the N position's move does not go to a P position")
        elif cls[x] == UNKNOWN and cls[y] != UNKNOWN:
            yield _bad(g, x, "the draw's move does not go to a draw (D) position")
    keep = [(mv[x] if mv[x] in succ[x] else -1) if cls[x] == WON else None for x in range(g.n)]
    lab = restricted_labels(succ, keep)
    # the N positions first: their moves are what fails
    for x in range(g.n):
        if cls[x] == WON and lab[x] != WON:
            yield _bad(g, x, "following the moves the N position does not win (they go round)")
    for x in range(g.n):
        if cls[x] == LOST and lab[x] != LOST:
            yield _bad(g, x, "following the moves the P position is not lost for the mover")


def forced_region(
    succ: list[list[int]], owner: list[int], move: list[int], good: list[bool], side: int
) -> list[bool]:
    """Nodes from which ``side`` playing ``move`` forces reaching a ``good`` terminal (queue)."""
    n = len(succ)
    pred: list[list[int]] = [[] for _ in range(n)]
    for x in range(n):
        edges = [move[x]] if owner[x] == side and succ[x] and move[x] >= 0 else succ[x]
        if owner[x] == side and succ[x] and move[x] < 0:
            edges = []
        for y in edges:
            pred[y].append(x)
    count = [len(s) for s in succ]
    inside = [good[x] and not succ[x] for x in range(n)]
    queue = deque(x for x in range(n) if inside[x])
    while queue:
        y = queue.popleft()
        for x in pred[y]:
            if inside[x]:
                continue
            if owner[x] == side:
                inside[x] = True
                queue.append(x)
            else:
                count[x] -= 1
                if count[x] == 0:
                    inside[x] = True
                    queue.append(x)
    return inside


def iter_strategy_minimax(
    g: GameGraph, scores: Sequence[float], move: Sequence[int]
) -> Iterator[Violation]:
    """Moves of a minimax answer: each given move keeps the score (an optimal move); a draw
    strategy never lets the value drop below 0 (Max) or rise above 0 (Min); and following the
    moves Max reaches a leaf worth at least s(x) > 0 (Min at most s(x) < 0)."""
    succ = successor_lists(g)
    s, mv, owner = [float(v) for v in scores], [int(v) for v in move], g.owner.tolist()
    for x in range(g.n):
        if not succ[x]:
            continue
        y = mv[x]
        if y == -1:
            if (owner[x] == MAX and s[x] > 0) or (owner[x] == MIN and s[x] < 0):
                yield _bad(g, x, "the winning side has no move")
                continue
            continue
        if y not in succ[x]:
            yield _bad(g, x, f"move to {y} is not a move of the node")
            continue
        if owner[x] == MAX and s[x] >= 0 > s[y]:
            yield _bad(g, x, "Max's draw strategy lets the value drop below 0")
            continue
        if owner[x] == MIN and s[x] <= 0 < s[y]:
            yield _bad(g, x, "Min's draw strategy lets the value rise above 0")
            continue
        if s[y] != s[x]:
            yield _bad(g, x, f"move keeps value {s[y]}, not the score {s[x]}")
            continue
    leaves = [float(v) for v in g.value]
    for v in sorted({v for v in s if v != 0}):
        side = MAX if v > 0 else MIN
        good = [(t >= v) if side == MAX else (t <= v) for t in leaves]
        inside = forced_region(succ, owner, mv, good, side)
        stuck = [
            x
            for x in range(g.n)
            if ((side == MAX and s[x] >= v) or (side == MIN and s[x] <= v)) and not inside[x]
        ]
        who = "Max" if side == MAX else "Min"
        # first the side's own nodes that could have moved into the forced region: their
        # moves are what fails to make progress
        blame = {x: (owner[x] != side, not any(inside[y] for y in succ[x]), x) for x in stuck}
        for x in sorted(stuck, key=blame.__getitem__):
            yield _bad(g, x, f"following the moves {who} does not force a leaf worth {v}")


def first(violations: Iterator[Violation]) -> Violation | None:
    """The first violation, or ``None`` if the certificate holds."""
    return next(violations, None)


def check_won_lost(
    g: GameGraph, labels: Sequence[int], ranks: Sequence[int] | None
) -> Violation | None:
    """First violation of ``iter_won_lost`` (``None``: the certificate holds)."""
    return first(iter_won_lost(g, labels, ranks))


def check_attractor(
    g: GameGraph, region: Sequence[int], layers: Sequence[int] | None
) -> Violation | None:
    """First violation of ``iter_attractor``."""
    return first(iter_attractor(g, region, layers))


def check_strategy_normal(
    g: GameGraph, labels: Sequence[int], ranks: Sequence[int], move: Sequence[int]
) -> Violation | None:
    """First violation of ``iter_strategy_normal``."""
    return first(iter_strategy_normal(g, labels, ranks, move))


def check_strategy_region(
    g: GameGraph, region: Sequence[int], layers: Sequence[int], move: Sequence[int]
) -> Violation | None:
    """First violation of ``iter_strategy_region``."""
    return first(iter_strategy_region(g, region, layers, move))


def check_strategy_minimax(
    g: GameGraph, scores: Sequence[float], move: Sequence[int]
) -> Violation | None:
    """First violation of ``iter_strategy_minimax``."""
    return first(iter_strategy_minimax(g, scores, move))


def check_strategy_impartial(
    g: GameGraph, classes: Sequence[int], move: Sequence[int]
) -> Violation | None:
    """First violation of ``iter_strategy_impartial``."""
    return first(iter_strategy_impartial(g, classes, move))


CHECKS: dict[str, Callable[..., Violation | None]] = {
    "won-lost": check_won_lost,
    "attractor": check_attractor,
    "strategy-normal": check_strategy_normal,
    "strategy-region": check_strategy_region,
    "strategy-minimax": check_strategy_minimax,
    "strategy-impartial": check_strategy_impartial,
}
"""The certificate checks by name."""
