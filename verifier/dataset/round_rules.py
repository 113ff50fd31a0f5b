"""The round rules of every semantics on a stored graph (one ``Rule`` each): pure numpy.

A shard's state between rounds is a dict of columns parallel to its nodes (``COMMON`` and
``Rule.state_columns``), kept by the worker that runs its rounds (``graph_tasks.Held``):
``done`` (decided; normal: its label), ``rank`` (the round it was decided in, -1 before),
``counter`` (successors not yet decided, for the AND nodes), ``degree`` (its out-degree, kept
to reset the counters or find the dead ends), ``player`` and the semantics' values. A round
applies the messages of the round before (one per move into a node decided then: the move's
source, local, and what the decided node says: ``Rule.says``) and returns the nodes decided
now; their predecessors are told next (``predecessor_rows``). The round's join step is the
engine's (``engine.frontier.settle``, which the in-memory ``Propagation`` runs on the
predecessors it gathers): ``done`` is its signal, ``rank`` its layer, ``counter`` its count,
and a rule says which messages fire an OR trigger (``decisive``, ``ors``). A round costs time
in its messages, not in the shard's size.

- ``normal`` (Knuth's successor counters, as the in-memory ``retrograde``): the state is the
  label (``done``: +1 won, -1 lost), ``rank`` (the remoteness) and ``counter``, 9 bytes a
  node. Round 0 decides the dead ends labelled won or lost (a drawn one stays undecided); a
  message from a lost successor decides its mover won at once (``Rule.decisive``), one from a
  won successor counts the mover down, and a mover whose counter reaches 0 is lost. Nodes are
  decided in non-decreasing remoteness, so a won node's is 1 + the least of its lost
  successors' and a lost node's 1 + the greatest of its won successors'. Moves into later,
  solved tiers (``Rule.exits``) are answered from their answers: a move to a node of
  remoteness ``r`` is a message read in round ``r + 1`` (``graph_tasks``).
- ``reachability`` (the attractor of the targets, ICO notes, as ``engine.attractor``): round
  0 decides the targets; a player-0 node joins when one successor has joined (OR), any other
  node when all have (AND, a dead end off the target never). ``rank`` is the layer.
- ``minimax`` (Kars' score, as ``engine.kars``): one *phase* per non-zero leaf value, the
  positive ones from the largest down (Max OR, Min AND), then the negative ones from the
  smallest up (Min OR, Max AND; the counters reset between the sides). A phase seeds the
  undecided leaves of its value and propagates to exhaustion; the nodes it decides score that
  value. ``rank`` is the global round: a decided node's witnesses have smaller ranks.
- ``impartial`` (Sprague-Grundy on an acyclic graph, as ``engine.grundy``): round 0 decides
  the dead ends (value 0); a node is decided when all its successors are, its value the mex of
  theirs (kept per node until then: ``seen``). ``rank`` is the height. Nodes never decided lie
  on a cycle or lead to one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.stored_columns import COLUMNS, GRUNDY, StoredColumns
from verifier.distinct import distinct
from verifier.engine import frontier
from verifier.engine.attractor import attacker_mask
from verifier.engine.grundy import mex_rows
from verifier.engine.kars import validate_minimax
from verifier.model.describe import Description, PerSemantics, describe
from verifier.model.graph import GameGraph
from verifier.model.semantics import MAX, PLAYER0, Semantics
from verifier.model.solution import OUTCOME_WORDS

__all__ = [
    "RULES",
    "Phase",
    "Rule",
    "Seen",
    "State",
    "described",
    "initial_state",
    "message_values",
    "phases",
    "predecessor_rows",
    "rule_for",
    "seed",
    "step",
    "verdict",
]

State = dict[str, NDArray[Any]]
Phase = tuple[int, float] | None
"""A minimax phase: ``(side, value)`` (side +1: Max's, -1: Min's); ``None`` for the others."""
Seen = tuple[NDArray[np.int64], NDArray[np.int64]]
"""Impartial: the successor values received per undecided node (node, value)."""

COMMON = {"done": "int8", "rank": "int32", "counter": "int32"}
"""The state columns of every semantics (9 bytes a node: normal's whole state)."""
DEGREE = {"degree": "int32"}
"""The out-degrees, kept by the rules that reset the counters or seed the dead ends."""


@dataclass(frozen=True)
class Rule:
    """How one semantics is solved on the sharded route (``RULES``); what it stores is its
    ``columns``."""

    solver: str
    """The name its answers go by (``dask-kars``, ...: a ``SolverRun``'s, ``solve --engine
    dask``'s)."""
    columns: StoredColumns
    """Its nodes and answers files' columns, its counts' names, whether its answers are the
    tier games' labels (``dataset.stored_columns.COLUMNS``)."""
    state_columns: dict[str, str]
    """The state's columns beside ``COMMON`` (the node columns it keeps, its values)."""
    seed: Callable[[State, Phase], NDArray[np.intp]]
    """The nodes a phase starts from, marked decided (``done``, their values) at its first
    round."""
    ors: Callable[[State, Phase, NDArray[np.intp]], NDArray[np.bool_]] | None
    """Which of the given nodes join with one decided successor (the rest need all);
    ``None``: none does (all successors are needed, unless a message is ``decisive``)."""
    answers: Callable[[State], State]
    root_words: Callable[[Description, State], str]
    """The start's answers in ``describe``'s words (``won by player 0 in 3 moves``)."""
    from_graph: Callable[[GameGraph], State]
    """The node columns of an in-memory graph (``ValueError`` on a node without its owner)."""
    drawn: Callable[[str | None, float, np.random.Generator, NDArray[np.bool_]], State]
    """The node columns of a random graph's shard (terminal values, fraction, its dead ends)."""
    phased: bool = False
    """One phase per non-zero leaf value (``minimax``), else one phase."""
    keeps_seen: bool = False
    """A node's value is computed from its successors' (``impartial``: the mex)."""
    acyclic_only: bool = False
    """Nodes never decided mean a cycle, which the rule cannot value (``impartial``)."""
    decisive: Callable[[NDArray[Any]], NDArray[np.bool_]] | None = None
    """Which messages decide their mover at once, whatever its counter, and count nothing
    down (normal: a lost successor's); ``None``: every message counts down."""
    done_by: tuple[int, int] = (1, 1)
    """What ``done`` says of a node decided by one successor, by all its successors (normal:
    +1 won, -1 lost; its ``done`` is its label)."""
    says: Callable[[State, NDArray[np.intp]], NDArray[Any]] | None = None
    """What the decided nodes tell their predecessors (normal: the label, int8; impartial: the
    Grundy value, int64); ``None``: nothing that matters (0, one byte a move)."""
    exits: bool = False
    """Moves into later, solved tiers are answered from their ``label`` (what their targets
    would say) and ``remoteness`` (normal); else a dataset with such moves is refused."""
    message_bytes: int = 16
    """Bytes of a message that shard sizing counts (8 of node and the value)."""

    def __post_init__(self) -> None:
        if self.decisive is not None and self.keeps_seen:  # ``step`` drops decisive values
            raise ValueError("a rule that keeps the values seen has no decisive messages")


RULES: PerSemantics[Rule] = PerSemantics("sharded rule")
"""The rule of each semantics (``graph_tasks`` runs the rounds, ``graph_solve`` drives them)."""


def described(semantics: Semantics, name: str, answers: dict[str, Any]) -> str:
    """The answers (``StoredColumns.answer_columns``) of the position ``name`` in the words of
    ``verifier solve CASE``: ``s: won by player 0 in 3 moves``, ``node 0: score 2``, ``node
    0: Grundy value 1``."""
    return f"{name}: {RULES[semantics].root_words(describe(semantics), answers)}"


def rule_for(sem: Semantics) -> Rule | None:
    """The rule of ``sem`` when its answers are its own columns (judged by ``judge_graph``),
    ``None`` when they are the tier games' labels (normal: ``StoredColumns.labels``; a
    manifest's semantics: ``stored_columns.own_columns``). The solve path takes every
    semantics' rule from ``RULES``."""
    rule = RULES[sem]
    return None if rule.columns.labels else rule


def initial_state(rule: Rule, nodes: State, degree: NDArray[np.int32]) -> State:
    """A shard's state before round 0 (counters = out-degrees; nothing decided, but for
    ``StoredColumns.labels`` the dead ends labelled won or lost by their ``terminal``, at no
    round yet: round 0's seeds)."""
    n = len(degree)
    state: State = {
        "done": np.zeros(n, dtype=np.int8),
        "rank": np.full(n, -1, dtype=np.int32),
        "counter": degree.astype(np.int32),
    }
    if rule.columns.labels:
        state["done"] = np.where(degree == 0, nodes["terminal"], 0).astype(np.int8)
    if "degree" in rule.state_columns:
        state["degree"] = degree.astype(np.int32)
    for k, t in rule.state_columns.items():
        if k in rule.columns.node_columns:
            state[k] = np.asarray(nodes[k], dtype=t)
    if "score" in rule.state_columns:
        state["score"] = np.zeros(n, dtype=np.float64)
    if GRUNDY in rule.state_columns:
        state[GRUNDY] = np.full(n, -1, dtype=np.int64)
    return state


def phases(rule: Rule, leaf_values: NDArray[np.float64]) -> list[Phase]:
    """The phases of a solve: one per non-zero leaf value when ``phased`` (``leaf_values``:
    the distinct ones over all shards), the positive ones from the largest down, then the
    negative ones from the smallest up; one phase (``None``) for the others."""
    if not rule.phased:
        return [None]
    v = np.unique(np.asarray(leaf_values, dtype=np.float64))
    pos = [(1, float(c)) for c in v[v > 0][::-1]]
    neg = [(-1, float(c)) for c in v[v < 0]]
    return [*pos, *neg]


def leaf_values(state: State) -> NDArray[np.float64]:
    """The distinct non-zero values of a shard's leaves (``minimax``)."""
    v = state["value"][(state["degree"] == 0)]
    v = v[np.isfinite(v) & (v != 0)]
    out: NDArray[np.float64] = np.unique(v.astype(np.float64))
    return out


def seed(rule: Rule, state: State, phase: Phase, rnd: int, reset: bool) -> NDArray[np.intp]:
    """Decide the seeds of a phase at round ``rnd`` (reachability: the targets; minimax: the
    leaves of the phase's value, after resetting the counters when a side starts; impartial:
    the dead ends, value 0; normal: the dead ends labelled won or lost); the nodes decided
    (local, sorted)."""
    if reset:
        state["counter"][:] = state["degree"]
    now = rule.seed(state, phase)
    state["rank"][now] = rnd
    return now


def _distinct(node: NDArray[np.intp], n: int) -> NDArray[np.intp]:
    """The distinct nodes of ``node`` (sorted): one scan of the shard when they are many
    (sequential passes beat a sort), a sort when few (a round then costs time in its messages,
    not in the shard's size)."""
    if len(node) > n // 8:
        return np.flatnonzero(np.bincount(node, minlength=n))
    return distinct(node)


def step(
    rule: Rule,
    state: State,
    node: NDArray[np.intp],
    value: NDArray[Any],
    phase: Phase,
    rnd: int,
    seen: Seen | None = None,
) -> tuple[NDArray[np.intp], Seen | None]:
    """Round ``rnd`` (>= 1): apply the messages ``(node, value)`` (local sources; what the
    decided successor says) to ``state`` by the engine's join step (``engine.frontier.settle``:
    ``done`` its signal, ``rank`` its layer, ``counter`` its count): a ``decisive`` message
    decides its mover at once, the others count it down; an undecided node counted down joins
    when it ``ors`` or its counter reaches 0. The nodes decided now (sorted) and, when the rule
    ``keeps_seen``, the successor values still kept per undecided node."""
    done, rank, counter = state["done"], state["rank"], state["counter"]
    groups = [(False, node)]
    if rule.decisive is not None:  # one signal decides every mover it reaches (normal: lost)
        hit = rule.decisive(value)
        groups = [(True, node[hit]), (False, node[~hit])]
    joined: list[NDArray[np.intp]] = []
    for decisive, p in groups:
        p = p[rank[p] < 0]  # messages to nodes decided before count nothing
        if not len(p):
            continue
        ors = decisive or (rule.ors is not None and rule.ors(state, phase, p))
        joined += frontier.settle(p, ors, not decisive, counter, rank, done, rnd, rule.done_by)
    now = _distinct(np.concatenate(joined), len(done)) if joined else node[:0]
    if rule.keeps_seen:
        seen = _mex_of(state, now, node, value, seen)
    if phase is not None:
        state["score"][now] = phase[1]
    return now, seen


def _mex_of(
    state: State,
    now: NDArray[np.intp],
    node: NDArray[np.intp],
    value: NDArray[Any],
    seen: Seen | None,
) -> Seen:
    """Give the nodes ``now`` the mex of their successors' values (kept and just received);
    the values still kept for the others."""
    old_n, old_v = seen if seen is not None else (np.zeros(0, np.int64),) * 2
    all_n = np.concatenate([old_n, node.astype(np.int64)])
    all_v = np.concatenate([old_v, value.astype(np.int64)])
    pick = np.isin(all_n, now)
    order = np.argsort(all_n[pick], kind="stable")
    rows_n, rows_v = all_n[pick][order], all_v[pick][order]
    counts = np.bincount(np.searchsorted(now, rows_n), minlength=len(now))
    state[GRUNDY][now] = mex_rows(rows_v, counts.astype(np.int64))
    return all_n[~pick], all_v[~pick]


def message_values(rule: Rule, state: State, decided: NDArray[np.intp]) -> NDArray[Any]:
    """What the decided nodes tell their predecessors (``Rule.says``; else 0, one byte)."""
    if rule.says is not None:
        return rule.says(state, decided)
    return np.zeros(len(decided), dtype=np.int8)


def predecessor_rows(
    rev_dst: NDArray[np.uint64], decided: NDArray[np.uint64]
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The rows of the reverse edges (sorted by ``rev_dst``) of the moves into the ``decided``
    nodes (sorted ids), and per row the index of its node in ``decided``."""
    start = np.searchsorted(rev_dst, decided, side="left")
    count = np.searchsorted(rev_dst, decided, side="right") - start
    first = np.cumsum(count) - count
    rows = np.repeat(start - first, count) + np.arange(int(count.sum()))
    which = np.repeat(np.arange(len(decided)), count)
    return rows.astype(np.intp), which.astype(np.intp)


def _rank(state: State) -> NDArray[np.int32]:
    return np.where(state["done"] != 0, state["rank"], -1).astype(np.int32)


# --- reachability -----------------------------------------------------------------------------


def _reach_answers(state: State) -> State:
    done = state["done"] != 0
    return {"label": np.where(done, 1, -1).astype(np.int8), "remoteness": _rank(state)}


def verdict(d: Description, shown: Any, sign: int, remoteness: int | None = None) -> str:
    """Who wins from a position and by what, in the words of a case's report (``ViewForm.
    verdict``, as ``writers.answer.verdict_of``): ``Max wins, score 2``, ``player 0 reaches the
    target in 3 moves``, ``Grundy value 1: the player to move wins (an N position)``."""
    return d.form.verdict(shown, OUTCOME_WORDS[sign], remoteness)


def _reach_words(d: Description, a: State) -> str:
    win = bool(a["label"] == 1)
    return verdict(d, 0 if win else 1, 1 if win else -1, int(a["remoteness"]) if win else None)


def _reach_graph(g: GameGraph) -> State:
    attacker_mask(g)  # a node with moves off the target has an owner
    return {"player": np.asarray(g.owner, dtype=np.int8),
            "target": np.asarray(g.target, dtype=np.int8)}  # fmt: skip


def _reach_draw(
    values: str | None, fraction: float, rng: np.random.Generator, dead: NDArray[np.bool_]
) -> State:
    """``random_case``'s: a ``fraction`` of targets, every other node with moves player 0 or 1
    with probability 1/2."""
    n = len(dead)
    target = rng.random(n) < fraction
    player = np.where(rng.random(n) < 0.5, 0, 1).astype(np.int8)
    player = np.where(~dead & ~target, player, -1).astype(np.int8)
    return {"player": player, "target": target.astype(np.int8)}


def _reach_seed(st: State, _: Phase) -> NDArray[np.intp]:
    now = np.flatnonzero((st["target"] != 0) & (st["done"] == 0))
    st["done"][now] = 1
    return now


_REACH = COLUMNS[Semantics.REACHABILITY]
RULES.register(Semantics.REACHABILITY)(
    Rule(
        solver="dask-attractor",
        columns=_REACH,
        state_columns={**DEGREE, **_REACH.node_columns},
        seed=_reach_seed,
        ors=lambda st, _, at: st["player"][at] == PLAYER0,
        answers=_reach_answers,
        root_words=_reach_words,
        from_graph=_reach_graph,
        drawn=_reach_draw,
    )
)
"""Reachability (the attractor of the targets, as ``engine.attractor``): answers ``label`` +1
where player 0 wins (the region), -1 where player 1 does; ``remoteness`` the layer, -1 outside.
Counts: player 0's region, player 1's, 0, the deepest layer."""


# --- minimax ----------------------------------------------------------------------------------


def _kars_seed(st: State, phase: Phase) -> NDArray[np.intp]:
    assert phase is not None
    leaf = (st["degree"] == 0) & (st["done"] == 0)
    now = np.flatnonzero(leaf & (st["value"] == phase[1]))
    st["score"][now], st["done"][now] = phase[1], 1
    return now


def _kars_ors(st: State, phase: Phase, at: NDArray[np.intp]) -> NDArray[np.bool_]:
    assert phase is not None
    player = st["player"][at]
    out: NDArray[np.bool_] = player == MAX if phase[0] > 0 else player != MAX
    return out


def _kars_graph(g: GameGraph) -> State:
    validate_minimax(g)
    dead = np.diff(np.asarray(g.succ_ptr)) == 0
    return {"player": np.asarray(g.owner, dtype=np.int8),
            "value": np.where(dead, np.asarray(g.value, dtype=np.float64), np.nan)}  # fmt: skip


def _kars_draw(
    values: str | None, fraction: float, rng: np.random.Generator, dead: NDArray[np.bool_]
) -> State:
    """``random_case``'s: inner nodes Max or Min with probability 1/2, dead ends a value drawn
    from ``values``."""
    n = len(dead)
    vals = np.array((values or "-1,0,1").split(","), dtype=np.float64)
    value = np.full(n, np.nan)
    value[dead] = vals[rng.integers(0, len(vals), int(dead.sum()))]
    player = np.where(rng.random(n) < 0.5, 0, 1).astype(np.int8)
    return {"player": np.where(dead, -1, player).astype(np.int8), "value": value}


def _kars_words(d: Description, a: State) -> str:
    """``Max wins, score 2``; a score no rule allows (a stranger's NaN) said as it is."""
    s = float(a["score"])
    return verdict(d, d.show(s), int(np.sign(s))) if np.isfinite(s) else f"score {s}"


_KARS = COLUMNS[Semantics.MINIMAX]
RULES.register(Semantics.MINIMAX)(
    Rule(
        solver="dask-kars",
        columns=_KARS,
        state_columns={**DEGREE, **_KARS.node_columns, "score": _KARS.answer_columns["score"]},
        seed=_kars_seed,
        ors=_kars_ors,
        answers=lambda st: {"score": st["score"].astype(np.float64), "rank": _rank(st)},
        root_words=_kars_words,
        from_graph=_kars_graph,
        drawn=_kars_draw,
        phased=True,
    )
)
"""Minimax (Kars' score, as ``engine.kars``): answers ``score`` and ``rank``, the global round
the node was decided in (-1 at score 0). Counts: scores > 0, < 0, = 0."""


# --- impartial --------------------------------------------------------------------------------


def _nim_seed(st: State, _: Phase) -> NDArray[np.intp]:
    now = np.flatnonzero((st["degree"] == 0) & (st["done"] == 0))
    st[GRUNDY][now], st["done"][now] = 0, 1
    return now


def _nim_words(d: Description, a: State) -> str:
    """``Grundy value 2: the player to move wins (an N position)``; a node never valued (-1)
    said as it is."""
    g = int(a[GRUNDY])
    return verdict(d, g, 1 if g > 0 else -1) if g >= 0 else d.in_words(g)


_NIM = COLUMNS[Semantics.IMPARTIAL]
RULES.register(Semantics.IMPARTIAL)(
    Rule(
        solver="dask-grundy",
        columns=_NIM,
        state_columns={**DEGREE, GRUNDY: _NIM.answer_columns[GRUNDY]},
        seed=_nim_seed,
        ors=None,
        answers=lambda st: {GRUNDY: st[GRUNDY].astype(np.int64), "remoteness": _rank(st)},
        root_words=_nim_words,
        from_graph=lambda g: {},
        drawn=lambda values, fraction, rng, dead: {},
        keeps_seen=True,
        acyclic_only=True,
        says=lambda st, now: st[GRUNDY][now].astype(np.int64),
    )
)
"""Impartial (Sprague-Grundy on an acyclic graph, as ``engine.grundy``): answers ``grundy`` and
``remoteness``, the height. Counts: N positions (value > 0), P positions, nodes never decided
(on a cycle or leading to one), the greatest height."""


# --- normal -----------------------------------------------------------------------------------


def _normal_seed(st: State, _: Phase) -> NDArray[np.intp]:
    """The dead ends ``initial_state`` labelled won or lost, not decided at a round yet."""
    return np.flatnonzero((st["done"] != 0) & (st["rank"] < 0))


RULES.register(Semantics.NORMAL)(
    Rule(
        solver="dask-retrograde",
        columns=COLUMNS[Semantics.NORMAL],
        state_columns={},
        seed=_normal_seed,
        ors=None,
        answers=lambda st: {"label": st["done"].astype(np.int8), "remoteness": _rank(st)},
        root_words=lambda d, a: verdict(d, int(a["label"]), int(a["label"]), int(a["remoteness"])),
        from_graph=lambda g: {},
        drawn=lambda values, fraction, rng, dead: {},
        decisive=lambda said: said == -1,
        done_by=(1, -1),
        says=lambda st, now: st["done"][now],
        exits=True,
        message_bytes=9,
    )
)
"""Normal play (Knuth's retrograde analysis, as the in-memory ``retrograde``): the state is
the label (``done``), the remoteness (``rank``) and the counter of successors not yet won, 9
bytes a node; answers ``label`` (+1 won, -1 lost, 0 drawn) and ``remoteness`` (-1 when drawn),
the tier games' files. Counts: won, lost, drawn, the longest remoteness."""
