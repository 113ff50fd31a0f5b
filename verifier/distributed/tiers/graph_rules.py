"""The round rules of the semantics other than ``normal`` on a stored graph: pure numpy.

A shard's state between rounds is a dict of columns parallel to its nodes (``state_columns``):
``done`` (decided), ``rank`` (the round it was decided in, -1 before), ``counter`` (successors
not yet decided, for the AND nodes), ``degree`` (its out-degree, kept to reset the counters),
``player`` and the semantics' values. A round applies the messages of the round before (one
per move into a node decided then: the move's source, local, and the decided node's value)
and returns the nodes decided now; their predecessors are told next (``predecessor_rows``).

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

from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.engine.grundy import mex_rows
from verifier.model.semantics import MAX, PLAYER0, Semantics

__all__ = [
    "ANSWER_COLUMNS",
    "NODE_COLUMNS",
    "RULE_SEMANTICS",
    "Phase",
    "State",
    "answers_of",
    "counts_of",
    "initial_state",
    "phases",
    "predecessor_rows",
    "seed",
    "step",
]

RULE_SEMANTICS = (Semantics.REACHABILITY, Semantics.MINIMAX, Semantics.IMPARTIAL)
"""The semantics solved by these rules (``normal`` by ``graph_tasks``' retrograde rounds)."""

State = dict[str, NDArray[Any]]
Phase = tuple[int, float] | None
"""A minimax phase: ``(side, value)`` (side +1: Max's, -1: Min's); ``None`` for the others."""

NODE_COLUMNS: dict[Semantics, dict[str, str]] = {
    Semantics.NORMAL: {"code": "uint64", "terminal": "int8"},
    Semantics.REACHABILITY: {"code": "uint64", "terminal": "int8", "player": "int8",
                             "target": "int8"},
    Semantics.MINIMAX: {"code": "uint64", "terminal": "int8", "player": "int8",
                        "value": "float64"},
    Semantics.IMPARTIAL: {"code": "uint64", "terminal": "int8"},
}  # fmt: skip
"""The columns of a shard's nodes file per semantics: ``player`` the owner code (0 / Max,
1 / Min, -1 nobody: ``model.semantics``), ``target`` 1 on a target, ``value`` a leaf's value
(NaN on inner nodes)."""

ANSWER_COLUMNS: dict[Semantics, dict[str, str]] = {
    Semantics.REACHABILITY: {"label": "int8", "remoteness": "int32"},
    Semantics.MINIMAX: {"score": "float64", "rank": "int32"},
    Semantics.IMPARTIAL: {"grundy": "int64", "remoteness": "int32"},
}
"""The answers per semantics: ``reachability`` label +1 where player 0 wins (the region), -1
where player 1 does, remoteness the layer (-1 outside); ``minimax`` Kars' score and the round
it was decided in (-1 at score 0); ``impartial`` the Grundy value and the height."""


def initial_state(
    sem: Semantics, nodes: dict[str, NDArray[np.generic]], degree: NDArray[np.int32]
) -> State:
    """A shard's state before round 0 (nothing decided, counters = out-degrees)."""
    n = len(degree)
    state: State = {
        "done": np.zeros(n, dtype=np.int8),
        "rank": np.full(n, -1, dtype=np.int32),
        "counter": degree.astype(np.int32),
        "degree": degree.astype(np.int32),
    }
    if sem is Semantics.REACHABILITY:
        state["player"] = np.asarray(nodes["player"], dtype=np.int8)
        state["target"] = np.asarray(nodes["target"], dtype=np.int8)
    elif sem is Semantics.MINIMAX:
        state["player"] = np.asarray(nodes["player"], dtype=np.int8)
        state["value"] = np.asarray(nodes["value"], dtype=np.float64)
        state["score"] = np.zeros(n, dtype=np.float64)
    elif sem is Semantics.IMPARTIAL:
        state["grundy"] = np.full(n, -1, dtype=np.int64)
    else:
        raise ValueError(f"semantics {sem.value}: not solved by these rules")
    return state


def state_columns(sem: Semantics) -> dict[str, str]:
    """The columns of a shard's state file."""
    cols = {"done": "int8", "rank": "int32", "counter": "int32", "degree": "int32"}
    if sem is Semantics.REACHABILITY:
        cols |= {"player": "int8", "target": "int8"}
    elif sem is Semantics.MINIMAX:
        cols |= {"player": "int8", "value": "float64", "score": "float64"}
    else:
        cols |= {"grundy": "int64"}
    return cols


def phases(sem: Semantics, leaf_values: NDArray[np.float64]) -> list[Phase]:
    """The phases of a solve: one per non-zero leaf value for ``minimax`` (``leaf_values``:
    the distinct ones over all shards), the positive ones from the largest down, then the
    negative ones from the smallest up; one phase (``None``) for the others."""
    if sem is not Semantics.MINIMAX:
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


def seed(sem: Semantics, state: State, phase: Phase, rnd: int, reset: bool) -> NDArray[np.intp]:
    """Decide the seeds of a phase at round ``rnd`` (reachability: the targets; minimax: the
    leaves of the phase's value, after resetting the counters when a side starts; impartial:
    the dead ends, value 0); the nodes decided (local, sorted)."""
    done = state["done"]
    if sem is Semantics.REACHABILITY:
        now = np.flatnonzero((state["target"] != 0) & (done == 0))
    elif sem is Semantics.IMPARTIAL:
        now = np.flatnonzero((state["degree"] == 0) & (done == 0))
        state["grundy"][now] = 0
    else:
        assert phase is not None
        if reset:
            state["counter"][:] = state["degree"]
        leaf = (state["degree"] == 0) & (done == 0)
        now = np.flatnonzero(leaf & (state["value"] == phase[1]))
        state["score"][now] = phase[1]
    done[now] = 1
    state["rank"][now] = rnd
    return now


def _or_nodes(sem: Semantics, state: State, phase: Phase) -> NDArray[np.bool_]:
    """The nodes that join with one decided successor (the rest need all of theirs)."""
    player = state["player"]
    if sem is Semantics.REACHABILITY:
        out: NDArray[np.bool_] = player == PLAYER0
        return out
    assert phase is not None
    out = player == MAX if phase[0] > 0 else player != MAX
    return out


def step(
    sem: Semantics,
    state: State,
    node: NDArray[np.intp],
    value: NDArray[np.float64],
    phase: Phase,
    rnd: int,
    seen: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None,
) -> tuple[NDArray[np.intp], tuple[NDArray[np.int64], NDArray[np.int64]] | None]:
    """Round ``rnd`` (>= 1): apply the messages ``(node, value)`` (local sources; the decided
    successor's value) to ``state``; the nodes decided now (sorted) and, for ``impartial``,
    the successor values still kept per undecided node (``seen``: node, value)."""
    n = len(state["done"])
    done = state["done"]
    down = np.bincount(node, minlength=n).astype(np.int32)
    state["counter"] -= down
    fresh = (down > 0) & (done == 0)
    if sem is Semantics.IMPARTIAL:
        old_n, old_v = seen if seen is not None else (np.zeros(0, np.int64),) * 2
        all_n = np.concatenate([old_n, node.astype(np.int64)])
        all_v = np.concatenate([old_v, value.astype(np.int64)])
        now = np.flatnonzero(fresh & (state["counter"] == 0))
        pick = np.isin(all_n, now)
        order = np.argsort(all_n[pick], kind="stable")
        rows_n, rows_v = all_n[pick][order], all_v[pick][order]
        counts = np.bincount(np.searchsorted(now, rows_n), minlength=len(now))
        state["grundy"][now] = mex_rows(rows_v, counts.astype(np.int64))
        done[now] = 1
        state["rank"][now] = rnd
        return now, (all_n[~pick], all_v[~pick])
    ors = _or_nodes(sem, state, phase)
    now = np.flatnonzero(fresh & (ors | (state["counter"] == 0)))
    done[now] = 1
    state["rank"][now] = rnd
    if sem is Semantics.MINIMAX:
        assert phase is not None
        state["score"][now] = phase[1]
    return now, None


def message_values(sem: Semantics, state: State, decided: NDArray[np.intp]) -> NDArray[np.float64]:
    """What the decided nodes tell their predecessors: the Grundy value (``impartial``), else
    nothing that matters (0)."""
    if sem is Semantics.IMPARTIAL:
        return state["grundy"][decided].astype(np.float64)
    return np.zeros(len(decided), dtype=np.float64)


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


def answers_of(sem: Semantics, state: State) -> State:
    """A shard's answers (``ANSWER_COLUMNS``) from its last state."""
    done = state["done"] != 0
    rank = np.where(done, state["rank"], -1).astype(np.int32)
    if sem is Semantics.REACHABILITY:
        return {"label": np.where(done, 1, -1).astype(np.int8), "remoteness": rank}
    if sem is Semantics.MINIMAX:
        return {"score": state["score"].astype(np.float64), "rank": rank}
    return {"grundy": state["grundy"].astype(np.int64), "remoteness": rank}


def counts_of(sem: Semantics, answers: State) -> tuple[int, int, int, int]:
    """The manifest's ``won, lost, drawn, max_remoteness`` of a shard's answers: reachability
    player 0's region, player 1's, 0, the deepest layer; minimax score > 0, < 0, = 0, -1;
    impartial N positions (value != 0), P positions, nodes never decided (on or into a cycle),
    the greatest height."""
    if sem is Semantics.REACHABILITY:
        label, rem = answers["label"], answers["remoteness"]
        top = int(rem.max()) if len(rem) else -1
        return int((label == 1).sum()), int((label == -1).sum()), 0, top
    if sem is Semantics.MINIMAX:
        s = answers["score"]
        return int((s > 0).sum()), int((s < 0).sum()), int((s == 0).sum()), -1
    g, rem = answers["grundy"], answers["remoteness"]
    top = int(rem.max()) if len(rem) else -1
    return int((g > 0).sum()), int((g == 0).sum()), int((g < 0).sum()), top
