"""The work a Dask worker does on a stored graph: draw a shard, build the reverse edges, run a
round. One shard per task; counts, paths and digests back.

Rounds (Knuth's successor counters, level by level), one rule per semantics
(``round_rules.RULES``, normal play's the retrograde analysis): a shard keeps its state
(``round_rules.initial_state``: per node whether and when it was decided, its counter of
successors not yet decided and the semantics' columns; impartial's values received so far)
between rounds, in the memory of the worker that runs its rounds (``Held``; the driver pins a
shard's rounds to one worker). ``init_rule_shard`` sets the state up and, for a rule of one
phase, runs round 0, which decides the seeds (normal: the won and lost dead ends, remoteness
0; minimax seeds each phase in a round of its own: ``rule_round`` with ``start``); in round
``r`` a shard takes the messages its nodes' successors decided in round ``r - 1`` sent it (one
per move: the mover's node and what the successor says, normal: its label), applies them
(``round_rules.step``, the update rule, apart from the I/O), and sends the nodes it decided to
their predecessors' owner shards (its reverse edges grouped by owner): into the owner's inbox
when the same process holds it, else as a raw numpy file.
Moves into later, solved tiers (normal: the chess endgames) are answered when the state is set
up, from those tiers' answers, as messages to the shard itself for the round after their
target's remoteness (``_delayed``), so they are taken in the same order as moves inside the
tier. ``finish_rule_shard`` writes the answers (``Rule.answers``). The state lives only as long
as the tier's run: a worker that dies takes its shards' state with it, and the tier fails
(``graph_solve``); one task per worker and round (``round_worker``).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.dataset import round_rules
from verifier.dataset.errors import DatasetError, RunFailed
from verifier.dataset.graph_storage import (
    U64,
    Edges,
    exits_path,
    message_path,
    read_edges,
    read_exits,
    read_messages,
    read_node_columns,
    read_piece_edges,
    read_reverse,
    reverse_path,
    reverse_piece_path,
    write_edges,
    write_messages,
    write_nodes,
    write_piece_edges,
    write_reverse,
)
from verifier.dataset.graphs import GraphTiers, range_bounds, range_owner
from verifier.dataset.manifest import ShardEntry
from verifier.dataset.shard_tasks import ShardRef, SolvedShard, _lookup, _owners
from verifier.dataset.storage import write_rule_answers
from verifier.distinct import distinct
from verifier.model.semantics import Semantics

__all__ = [
    "Held",
    "Messages",
    "Pieces",
    "Round",
    "RuleRound",
    "draw_shard",
    "finish_rule_shard",
    "forget_run",
    "init_rule_shard",
    "merge_reverse",
    "round_worker",
    "rule_round",
]

Bounds = NDArray[np.int64]
Pieces = list[tuple[int, int, str]]
"""Files written for other shards: ``(owner shard, rows, path)``."""
Messages = list[tuple[int, int, int, str | None]]
"""Messages sent: ``(round, owner shard, rows, path)``, read in round ``round + 1``; path
``None``: left in the owner's inbox in the sending worker's process."""
Round = tuple[int, Messages]
"""What a round reports: nodes decided, messages written."""
Drawn = tuple[int, str, int, str, Pieces]
"""A drawn shard: positions, codes sha256, edges, edges sha256, reverse pieces."""


def _grouped(
    codes: U64, bounds: Bounds, columns: list[NDArray[np.generic]]
) -> list[tuple[int, list[NDArray[np.generic]]]]:
    """``columns`` (rows parallel to ``codes``) split by the range shard owning each code."""
    shards = len(bounds) - 1
    order, at = _owners(codes, shards, range_owner(codes, bounds))
    out = []
    for j in range(shards):
        if at[j + 1] > at[j]:
            rows = order[at[j] : at[j + 1]]
            out.append((j, [c[rows] for c in columns]))
    return out


def _split(root: Path, tier: int, shard: int, src: U64, dst: U64, bounds: Bounds) -> Pieces:
    """Write the edges of ``shard`` as one reverse piece per shard owning their targets."""
    pieces = []
    for j, (d, s) in _grouped(dst, bounds, [dst, src]):
        path = reverse_piece_path(root, tier, j, shard)
        write_piece_edges(path, d, s)  # type: ignore[arg-type]
        pieces.append((j, len(d), str(path)))
    return pieces


def draw_shard(root: str, game: GraphTiers, shard: int, bounds: Bounds) -> Drawn:
    """Draw the out-edges of the nodes of ``shard`` (ids ``bounds[shard] ..``) of a seeded
    random graph with ``random_case``'s distributions (a ``terminal_fraction`` of dead ends,
    each other node one move then the rest of its shard's ``degree * nodes`` moves from
    uniform sources, targets uniform over the whole graph, self loops kept, repeats dropped,
    dead ends labelled uniformly from ``terminal_values``; the other semantics' columns as
    ``round_rules.Rule.drawn`` says; ``acyclic_moves``: targets uniform over the higher ids), from a
    numpy generator seeded by ``(seed, shard)``: the same seed and shard count give the same
    graph, a different one from the in-memory ``random_case`` (other random streams). Writes
    the shard's nodes, edges and reverse pieces."""
    from verifier.games.random_graphs import random_edges

    base = Path(root)
    lo, hi = int(bounds[shard]), int(bounds[shard + 1])
    degree = game.degree or 0.0
    rng = np.random.default_rng([game.seed or 0, shard])
    inner = rng.random(hi - lo) >= (game.terminal_fraction or 0.0)
    if game.acyclic_moves and hi == game.nodes and hi > lo:
        inner[-1] = False  # the last node has no higher id to move to
    moves = round(hi * degree) - round(lo * degree)
    src, dst = random_edges(rng, inner, moves, targets=game.nodes)
    if game.acyclic_moves:  # a target uniform over the higher ids, repeats dropped
        span = game.nodes - 1 - (src + lo)
        dst = src + lo + 1 + (rng.random(len(src)) * span).astype(np.int64)
        key = distinct(src * game.nodes + dst)
        src, dst = key // game.nodes, key % game.nodes
    dead = np.bincount(src, minlength=hi - lo) == 0
    terminal = np.zeros(hi - lo, dtype=np.int8)
    rule = round_rules.rule_for(game.semantics)
    extra: dict[str, NDArray[np.generic]] = {}
    if rule is None:  # normal: dead ends labelled
        values = np.array((game.terminal_values or "-1").split(","), dtype=np.int8)
        terminal[dead] = values[rng.integers(0, len(values), int(dead.sum()))]
    else:  # the semantics' columns (``Rule.drawn``)
        extra = rule.drawn(game.terminal_values, game.terminal_fraction or 0.0, rng, dead)
    codes = np.arange(lo, hi, dtype=np.uint64)
    sha = write_nodes(base, 0, shard, codes, terminal, extra)
    del codes, terminal, inner, dead, extra
    src_u, dst_u = (src + lo).astype(np.uint64), dst.astype(np.uint64)
    del src, dst
    edges_sha = write_edges(base, 0, shard, src_u, dst_u)
    return hi - lo, sha, len(src_u), edges_sha, _split(base, 0, shard, src_u, dst_u, bounds)


def merge_reverse(root: str, tier: int, shard: int, pieces: list[str]) -> tuple[int, str]:
    """Sort the reverse pieces sent to ``shard`` by (target, source) and write its reverse
    edges; returns ``(edges, sha256)``. The pieces stay until the generation ends (a task run
    again, its worker killed after it ran, reads them again: ``shard_tasks.merge_shard``)."""
    parts = [read_piece_edges(Path(p)) for p in pieces]
    dst = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, dtype=np.uint64)
    src = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, dtype=np.uint64)
    del parts
    order = np.lexsort((src, dst))
    digest = write_reverse(Path(root), tier, shard, dst[order], src[order])
    return len(dst), digest


_KEPT: dict[tuple[str, str | None], Edges] = {}
_KEPT_LOCK = threading.Lock()


def _keep_budget() -> int:
    """Bytes of reverse edges a worker keeps between rounds: a third of its memory limit
    (384 MB outside a worker, or without a limit) less the shard states it holds (``Held``,
    ``sizing.state_bytes`` a node), so that the two stay within a third of the limit when they
    can (the rest for a round's temporaries, Dask's own use and the pause threshold at 80%)."""
    try:
        from distributed import get_worker

        limit = get_worker().memory_manager.memory_limit
    except (ImportError, ValueError, AttributeError):
        limit = None
    with _HELD_LOCK:
        held = sum(h.nbytes() for h in _HELD.values())
    return max(0, (int(limit) // 3 if limit else 384 << 20) - held)


def _reverse_edges(root: Path, tier: int, entry: ShardEntry) -> Edges:
    """The reverse edges of ``entry``'s shard, kept in the worker process between rounds
    within ``_keep_budget``: the rounds of a tier read the same files again and again, and the
    driver sends a shard's rounds to the same worker when it can. One tier's files are kept at
    a time (reading one drops the others'); when the budget is full a new file is not kept
    (the rounds visit the shards in a cycle, where dropping the oldest keeps nothing). Keyed
    by path and sha256, so a file written again is read again; a worker that dies loses only
    time (the files are the truth). Edges kept while the worker held fewer states are dropped
    (the last kept first) once the states it holds leave them over the budget, before the file
    is read: state and kept edges together stay within a third of the limit when the state
    does (``sizing`` counts on it)."""
    path = reverse_path(root, tier, entry.shard)
    key = (str(path), entry.reverse_sha256)
    with _KEPT_LOCK:
        if key in _KEPT:
            return _KEPT[key]
    budget = _keep_budget()
    with _KEPT_LOCK:
        for old in [k for k in _KEPT if Path(k[0]).parent != path.parent]:
            del _KEPT[old]
        used = sum(a.nbytes + b.nbytes for a, b in _KEPT.values())
        while _KEPT and used > budget:  # the states grew since: the last kept go first
            a, b = _KEPT.popitem()[1]
            used -= a.nbytes + b.nbytes
    edges = read_reverse(root, tier, entry.shard, entry.reverse_sha256, entry.reverse_edges)
    with _KEPT_LOCK:
        if used + edges[0].nbytes + edges[1].nbytes <= budget:
            _KEPT[key] = edges
    return edges


Mail = list[tuple[NDArray[np.intp], NDArray[Any]]]
"""Messages left in a shard's inbox: per move, the mover's index into the shard and what the
decided successor says (``round_rules.Rule.says``)."""


class Held:
    """A shard's state between rounds, kept by the worker that runs its rounds (the driver
    pins them there): its columns per node (``round_rules.initial_state``'s), the successor
    values kept per
    undecided node (``seen``, impartial), and the messages other shards of the same process
    left for it, by the round that reads them."""

    def __init__(self, root: str, lo: int, state: dict[str, NDArray[Any]]) -> None:
        self.root = root
        self.lo = lo
        self.state = state
        self.seen: round_rules.Seen | None = None
        self.inbox: dict[int, Mail] = {}

    def nbytes(self) -> int:
        return sum(a.nbytes for a in [*self.state.values(), *(self.seen or ())])


_HELD: dict[tuple[str, int, int], Held] = {}
"""The shards whose rounds this worker process runs: ``(run id, tier, shard)`` -> state. The
run id is drawn afresh by every ``solve_graph_tier``, so a later run, another tier or a run
again never finds an earlier one's state; the driver removes its run's at the tier's end and
when it fails (``forget_run``), and ``init_rule_shard`` drops those of earlier runs on the same
dataset directory (a driver that died could not)."""
_HELD_LOCK = threading.Lock()
_FORGOTTEN: set[str] = set()
"""Runs whose states the driver dropped: a task of such a run still running then (a failed
run's other tasks finish after the failure) does not keep its state (``_hold``)."""


def forget_run(run: str | None, root: str | None = None) -> int:
    """Drop the shard states of run ``run`` (``root``: also every run's on that dataset
    directory) from this worker, and the reverse edges it keeps of their datasets; how many
    states were dropped (``client.run`` calls it)."""
    with _HELD_LOCK:
        if run is not None:
            _FORGOTTEN.add(run)
        gone = [k for k, h in _HELD.items() if k[0] == run or (root is not None and h.root == root)]
        roots = {_HELD[k].root for k in gone} | ({root} if root is not None else set())
        for k in gone:
            del _HELD[k]
    with _KEPT_LOCK:
        for key in [k for k in _KEPT if any(Path(r) in Path(k[0]).parents for r in roots)]:
            del _KEPT[key]
    return len(gone)


def _held(run: str, tier: int, shard: int) -> Held:
    with _HELD_LOCK:
        held = _HELD.get((run, tier, shard))
    if held is None:
        raise RunFailed(
            f"solving tier {tier}: shard {shard}'s state is not on the worker running its "
            "rounds (the worker restarted?): run again with --resume"
        )
    return held


def _hold(run: str, tier: int, shard: int, held: Held) -> None:
    """Keep ``held`` for the rounds of run ``run``, dropping the states earlier runs left on
    the same dataset directory; nothing when the run was forgotten (it failed or ended while
    this task ran)."""
    with _HELD_LOCK:
        if run in _FORGOTTEN:
            return
        for k in [k for k, h in _HELD.items() if h.root == held.root and k[0] != run]:
            del _HELD[k]
        _HELD[(run, tier, shard)] = held


def _release(run: str, tier: int, shard: int) -> Held:
    """The last state of a shard, dropped from this worker (its answers are written next)."""
    held = _held(run, tier, shard)
    with _HELD_LOCK:
        _HELD.pop((run, tier, shard), None)
    return held


def _send(
    root: Path,
    run: str,
    tier: int,
    entry: ShardEntry,
    rnd: int,
    decided: U64,
    said: NDArray[Any],
    bounds: Bounds,
) -> Messages:
    """Tell the predecessors of the nodes ``decided`` in round ``rnd`` (sorted ids) what
    ``said`` says of each (``round_rules.message_values``): one
    message per move, per owner shard left in its inbox when this process holds it (``None``
    for a path), else written to a raw numpy file."""
    if len(decided) == 0:
        return []
    rev_dst, rev_src = _reverse_edges(root, tier, entry)
    rows, which = round_rules.predecessor_rows(rev_dst, decided)
    node, what = rev_src[rows], said[which]
    del rev_dst, rev_src, rows, which
    pieces: Messages = []
    for j, (n, w) in _grouped(node, bounds, [node, what]):
        local = (n - np.uint64(bounds[j])).astype(np.intp)  # type: ignore[operator]
        pieces.append((rnd, j, len(n), _post(root, run, tier, rnd, j, entry.shard, local, w)))
    return pieces


def _post(
    root: Path,
    run: str,
    tier: int,
    rnd: int,
    to: int,
    source: int | str,
    node: NDArray[np.intp],
    said: NDArray[Any],
) -> str | None:
    """Leave messages of round ``rnd`` for shard ``to``: in its inbox when this process holds
    it (``None``), else in a file (its path)."""
    with _HELD_LOCK:
        held = _HELD.get((run, tier, to))
        if held is not None:
            held.inbox.setdefault(rnd + 1, []).append((node, said))
            return None
    path = message_path(root, tier, rnd, to, source)
    write_messages(path, node, said)
    return str(path)


def _later_answers(
    root: Path,
    tier: int,
    shard: int,
    to: NDArray[np.int32],
    dst: U64,
    later: dict[int, list[ShardRef]],
) -> tuple[NDArray[np.int8], NDArray[np.int32]]:
    """The answers of the targets of a shard's moves into later tiers (one later tier's
    shards read at a time, each grouped by its node-id ranges)."""
    label = np.zeros(len(dst), dtype=np.int8)
    remoteness = np.full(len(dst), -1, dtype=np.int32)
    for j in np.unique(to).tolist():
        refs = later.get(j)
        if refs is None:
            raise DatasetError(
                f"{exits_path(root, tier, shard)}: a move into tier {j}, not a later solved tier"
            )
        sel = np.flatnonzero(to == j)
        b = range_bounds([r[0] for r in refs])
        if len(sel) and int(dst[sel].max()) >= int(b[-1]):
            raise DatasetError(
                f"{exits_path(root, tier, shard)}: a move to node {int(dst[sel].max())} of "
                f"tier {j}, which has {int(b[-1])} nodes"
            )
        label[sel], remoteness[sel] = _lookup(root, j, dst[sel], refs, range_owner(dst[sel], b))
    return label, remoteness


def _delayed(
    root: Path,
    run: str,
    tier: int,
    shard: int,
    src: NDArray[np.intp],
    label: NDArray[np.int8],
    remoteness: NDArray[np.int32],
) -> Messages:
    """The messages of a shard's moves into later tiers (``src``: the movers' indices), to
    itself, one batch per remoteness ``r`` of a decided target, read in round ``r + 1``: the
    target's label, as it would have said it (drawn targets send none: their movers' counters
    stay above 0)."""
    out: Messages = []
    decided = label != 0
    for r in np.unique(remoteness[decided]).tolist():
        sel = decided & (remoteness == r)
        where = _post(root, run, tier, r, shard, shard, src[sel], label[sel])
        out.append((r, shard, int(sel.sum()), where))
    return out


def _mail(held: Held, rnd: int, inbox: list[str]) -> tuple[NDArray[np.intp], NDArray[Any]] | None:
    """The messages of round ``rnd - 1`` to a shard: those left in its inbox in this process
    and the files ``inbox``, in one pair of arrays (``None``: none)."""
    with _HELD_LOCK:
        mail = held.inbox.pop(rnd, [])
    mail += [read_messages(Path(p)) for p in inbox]
    if not mail:
        return None
    return np.concatenate([m[0] for m in mail]), np.concatenate([m[1] for m in mail])


RuleRound = tuple[Semantics, round_rules.Phase, bool, bool]
"""A round under the rules of ``round_rules``: the semantics, the phase, whether the round
seeds the phase (``start``) and whether the counters are reset first (``reset``, a minimax
side's first phase)."""


def round_worker(
    root: str,
    tier: int,
    rnd: int,
    run: str,
    jobs: list[tuple[ShardEntry, list[str]]],
    bounds: Bounds,
    rule: RuleRound,
) -> list[Round]:
    """Round ``rnd`` of the shards this worker holds that were sent messages (``jobs``: each
    shard's entry and message files; a seed round: all its shards), one after the other
    (``rule_round``): one task per worker and round, not per shard, so that a round costs the
    cluster a few messages."""
    return [rule_round(root, tier, entry, rnd, run, inbox, bounds, *rule) for entry, inbox in jobs]


def init_rule_shard(
    root: str,
    run: str,
    tier: int,
    entry: ShardEntry,
    bounds: Bounds,
    sem: Semantics,
    later: dict[int, list[ShardRef]] | None = None,
) -> tuple[list[float], Round]:
    """The state of ``entry``'s shard before round 0 (``round_rules.initial_state``), kept in
    this worker for the rounds of run ``run``; the distinct non-zero values of its leaves
    (``minimax``: the phases) and what round 0 did: a rule of one phase is seeded here (as
    ``rule_round``'s seed round, one task fewer a tier), and the messages of the moves into
    later tiers (``later``: those tiers' shards, solved; ``Rule.exits``) are sent: a move to a
    node decided at remoteness ``r`` is a message to this shard for round ``r + 1``
    (``_delayed``)."""
    base = Path(root)
    rule = round_rules.RULES[sem]
    if entry.exits and not rule.exits:
        raise DatasetError(
            f"{exits_path(base, tier, entry.shard)}: moves into later tiers are solved for "
            f"semantics normal only, not {sem.value}"
        )
    lo = int(bounds[entry.shard])
    columns = {"code": "uint64", "terminal": "int8"} | rule.columns.node_columns
    nodes = read_node_columns(base, tier, entry.shard, entry.sha256, entry.positions, columns)
    src, _ = read_edges(base, tier, entry.shard, entry.edges_sha256, entry.edges)
    n = len(nodes["code"])
    degree = np.bincount((src - np.uint64(lo)).astype(np.intp), minlength=n).astype(np.int32)
    del src
    exits = None
    if entry.exits:
        xsrc, xtier, xdst = read_exits(base, tier, entry.shard, entry.exits_sha256, entry.exits)
        local = (xsrc - np.uint64(lo)).astype(np.intp)
        degree += np.bincount(local, minlength=n).astype(np.int32)
        exits = (local, *_later_answers(base, tier, entry.shard, xtier, xdst, later or {}))
    state = round_rules.initial_state(rule, nodes, degree)
    del nodes, degree
    held = Held(root, lo, state)
    if rule.keeps_seen:
        held.seen = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    _hold(run, tier, entry.shard, held)
    delayed = _delayed(base, run, tier, entry.shard, *exits) if exits else []
    if rule.phased:
        return [float(v) for v in round_rules.leaf_values(state).tolist()], (0, delayed)
    decided = round_rules.seed(rule, state, None, 0, False)
    ids = (decided + lo).astype(np.uint64)
    values = round_rules.message_values(rule, state, decided)
    sent = _send(base, run, tier, entry, 0, ids, values, bounds)
    return [], (len(decided), sent + delayed)


def rule_round(
    root: str,
    tier: int,
    entry: ShardEntry,
    rnd: int,
    run: str,
    inbox: list[str],
    bounds: Bounds,
    sem: Semantics,
    phase: round_rules.Phase,
    start: bool = False,
    reset: bool = False,
) -> Round:
    """Round ``rnd`` of ``entry``'s shard in run ``run`` under ``sem``'s rules, on the state
    this worker keeps: seed a phase (``start``: ``round_rules.seed``) or apply the messages
    of round ``rnd - 1`` (the files ``inbox`` and those left in the shard's inbox in this
    process: ``round_rules.step``); tell the predecessors of the nodes decided now what they
    say (``round_rules.message_values``)."""
    held = _held(run, tier, entry.shard)
    rule, st = round_rules.RULES[sem], held.state
    if start:
        decided = round_rules.seed(rule, st, phase, rnd, reset)
    else:
        mail = _mail(held, rnd, inbox)
        if mail is None:
            return 0, []
        node, value = mail
        del mail
        decided, held.seen = round_rules.step(rule, st, node, value, phase, rnd, held.seen)
        del node, value
    ids = (decided + held.lo).astype(np.uint64)
    values = round_rules.message_values(rule, st, decided)
    return len(decided), _send(Path(root), run, tier, entry, rnd, ids, values, bounds)


def finish_rule_shard(root: str, tier: int, shard: int, run: str, sem: Semantics) -> SolvedShard:
    """Write the answers of a shard from its last state (``Rule.answers``: normal's are the
    tier games' label and remoteness files, as ``storage.write_answers`` writes them) and drop
    the state from this worker."""
    rule = round_rules.RULES[sem]
    answers = rule.answers(_release(run, tier, shard).state)
    digest = write_rule_answers(Path(root), tier, shard, answers)
    won, lost, drawn, top = rule.columns.counts(answers)
    return won, lost, drawn, top, digest
