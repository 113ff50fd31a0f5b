"""The checks of one shard of a tiered dataset's claims (normal play: Connect Four, chess, a
stored graph of semantics normal), pure numpy over the stored shards: ``check_shard`` judges
the claims of one shard against the rules of the game, its moves joined with their targets'
claims in the next tier (``distributed.tiers.check`` runs it as one task per shard on the
workers; it needs no cluster):

- rules: a terminal keeps its outcome; an inner position is won iff a move reaches a position
  claimed lost, lost iff every move reaches one claimed won, drawn otherwise (the in-memory
  check's own negamax, ``checks.rules.shard_faults``: the rule is written once; a position
  with a move to an unclaimed target is not judged, ``coverage`` counts the missing claim);
- remoteness (when claimed): won = 1 + the least remoteness among the children claimed lost,
  lost = 1 + the greatest among the children, a terminal lost 0, none at a draw;
- moves (when claimed): a legal move at every inner position, to a child claimed lost with
  remoteness r - 1 from a won one, won with r - 1 from a lost one (the longest defence),
  drawn from a drawn one.

The dataset itself is checked in the same tasks, whoever's claims are judged (issue 43):
``dataset``, each shard's codes strictly increasing, owned by the shard and positions of its
tier (``shape_faults``; a stored graph's: its node-id range; a chess shard's positions, moves
and dead ends recomputed by the game's ``TieredForm.positions``); ``reachable``, for games whose
moves are computed, tier 0 the start alone and every later row reached by a move from the tier
before (the check tasks mark the rows their moves reach, ``write_marks``; a fourth round,
``reach_shard``, compares each shard with its marks); ``counts``, the manifest's per-tier
counts (and a graph's ``nodes`` and ``edges``) against those of the stored answers. So a
verified dataset is exactly the positions reachable from its start, each once, and what
``solve`` prints of it is what its rows say.

Why the local checks are a proof. Where every move goes from tier K to tier K + 1 (``acyclic``),
the rules decide tier K from tier K + 1 alone, and claims that obey them at every position are,
by induction from the last tier down, the game's values (there is no cycle for a circular
justification to hide in). With cycles, claims with a remoteness that passes its check are
still the values: a claimed win or loss is justified by claims of smaller remoteness, down to
the ends of the game; a claimed draw that were truly won or lost would, taking the one of least
true remoteness, need a child claimed drawn that is truly lost or won nearer the end. Labels
alone on a game with cycles are judged *inconclusive* when they break no rule (a cycle of
claims can justify itself). A wrong claim therefore breaks a rule somewhere: the report names
the first position where it does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from verifier.checks.rules import rule_gives, shard_faults, shard_graph
from verifier.dataset.errors import DatasetError
from verifier.dataset.graph_storage import read_edges, read_exits, read_nodes
from verifier.dataset.graphs import GraphTiers, range_bounds
from verifier.dataset.manifest import MANIFEST, Manifest, ShardEntry
from verifier.dataset.rules import INNER, TierGame
from verifier.dataset.shape import (
    WORDS,
    Owners,
    ShardFaults,
    Witness,
    _faults,
    _first,
    reached_path,
    shape_faults,
    tally_of,
    write_marks,
)
from verifier.dataset.shard_cache import held_first
from verifier.dataset.storage import (
    by_owner,
    read_codes,
    rows_of,
    shard_path,
)
from verifier.dataset.stored_columns import count_names
from verifier.dataset.tables import (
    MOVE_TIER,
    NO_CLAIM,
    NO_MOVE,
    UNSTATED,
    Claims,
    packed_moves,
)
from verifier.games.registry import hook, tiered_form
from verifier.model import GameGraph, SolverResult
from verifier.model.semantics import NOBODY, Semantics

__all__ = [
    "Judged",
    "ShardMoves",
    "check_shard",
    "compare_counts",
    "graph_counts",
    "root_claim",
    "shard_moves",
]


# --- the checks of one shard -------------------------------------------------------------


def _children_claims(
    root: Path,
    children: NDArray[np.uint64],
    child_tier: NDArray[np.int64],
    refs: list[list[tuple[int, str]]],
    claims: Claims,
    owners: Owners,
    mark: Callable[[int, int, NDArray[np.intp], int], None] | None = None,
) -> tuple[NDArray[np.int8], NDArray[np.int32]]:
    """The claims of ``children`` (codes of tiers ``child_tier``), one shard read at a time;
    ``mark(tier, shard, rows, positions)``: the rows of each shard the children are (the
    ``reachable`` check)."""
    label = np.empty(len(children), dtype=np.int8)
    rem = np.empty(len(children), dtype=np.int32)
    lacking: list[tuple[int, int, int]] = []  # (tier, shard, code) of targets no shard holds
    for tier in np.unique(child_tier):
        t = int(tier)
        if t >= len(refs):
            raise DatasetError(f"{root / MANIFEST}: a move leads to tier {t}, which is not there")
        in_tier = np.flatnonzero(child_tier == tier)
        owner = owners.of(t, children[in_tier])
        lows = range_bounds([p for p, _ in refs[t]]) if owners.ranged else None
        unowned = (owner < 0) | (owner >= len(refs[t]))
        if unowned.any():
            to = _target(owners, t, children[in_tier][unowned][0])
            raise DatasetError(
                f"{root / MANIFEST}: a move leads to {to}, which no shard holds: the dataset is "
                "incomplete"
            )
        order, bounds = by_owner(owner, len(refs[t]))
        for j in held_first([claims.path(t, j) for j in range(len(refs[t]))]):
            positions, sha = refs[t][j]
            idx = in_tier[order[bounds[j] : bounds[j + 1]]]
            if not len(idx):
                continue
            want = children[idx]
            if lows is not None:  # a stored graph's node id is its row (the ids: ``dataset``)
                at = (want - np.uint64(lows[j])).astype(np.intp)
                codes = want[:0]
            else:
                codes = read_codes(root, t, j, sha, positions, cache=True)
                at = _find(codes, want)
            if lows is None and (not len(codes) or (codes[at] != want).any()):
                lost = want[codes[at] != want][0] if len(codes) else want[0]
                lacking.append((t, j, int(lost)))
                continue
            lab, r, _ = claims.read(t, j)
            label[idx], rem[idx] = lab[at], r[at]
            if mark is not None:
                mark(t, j, at, positions)
    if lacking:  # the first shard's, whatever order the shards were read in
        t, j, code = min(lacking)
        raise DatasetError(
            f"{shard_path(root, t, j)}: lacks position code {code}, a move's target: the "
            "dataset is incomplete (generate it again)"
        )
    return label, rem


def _target(owners: Owners, tier: int, code: Any) -> str:
    return (
        f"node {int(code)} of tier {tier}" if owners.ranged else f"code {int(code)} of tier {tier}"
    )


def _find(codes: NDArray[np.uint64], want: NDArray[np.uint64]) -> NDArray[np.intp]:
    """Where each of ``want`` is in a shard's ``codes`` (a row holding another code where it
    is not); codes out of order (a corrupt shard: the ``dataset`` check refutes it) are
    searched through a sorted copy, so that the other checks still find every row."""
    n = len(codes)
    if n > 1 and not (codes[1:] >= codes[:-1]).all():
        order = np.argsort(codes, kind="stable")
        found = np.minimum(np.searchsorted(codes[order], want), n - 1)
        return order[found].astype(np.intp)
    return rows_of(codes, want)


class ShardMoves(NamedTuple):
    """A shard's positions and moves, as the checks read them."""

    codes: NDArray[np.uint64]
    outcome: NDArray[np.int8]
    """Per position: ``INNER``, or the label of a position where the game is over."""
    children: NDArray[np.uint64]
    child_tier: NDArray[np.int64]
    parent: NDArray[np.intp]


def _child_name(game: TierGame, exp: ShardMoves, k: int, tier: int) -> str:
    """Move ``k``'s target in the game's words, with its tier when that is not ``tier`` (a
    stored graph numbers each tier's nodes from 0: an id names a node only with its tier)."""
    name = game.position_name(int(exp.children[k]))
    there = int(exp.child_tier[k])
    return name if there == tier else f"{name} of tier {there}"


def shard_moves(
    root: Path, game: TierGame, tier: int, entry: ShardEntry, usable: Any = None, lo: int = 0
) -> ShardMoves:
    """The moves of a shard: made from the codes (``game.expand``), or read where they are
    stored (a graph: its edges inside the tier and its exits to later ones). ``usable``:
    ``usable(codes)`` says which codes are positions of the tier (``shape_faults``); only
    those are kept and expanded."""
    if not isinstance(game, GraphTiers):
        codes = read_codes(root, tier, entry.shard, entry.sha256, entry.positions, cache=True)
        if usable is not None:
            codes = codes[usable(codes)]
        exp = game.expand(codes, tier)
        later = np.full(len(exp.children), tier + 1, dtype=np.int64)
        return ShardMoves(codes, exp.outcome, exp.children, later, exp.parent)
    codes, terminal = read_nodes(root, tier, entry.shard, entry.sha256, entry.positions)
    none = np.zeros(0, np.uint64)
    src, dst = (
        read_edges(root, tier, entry.shard, entry.edges_sha256, entry.edges)
        if entry.edges
        else (none, none)
    )
    to = np.full(len(dst), tier, dtype=np.int64)
    if entry.exits:
        x_src, x_tier, x_dst = read_exits(root, tier, entry.shard, entry.exits_sha256, entry.exits)
        src, dst = np.concatenate([src, x_src]), np.concatenate([dst, x_dst])
        to = np.concatenate([to, x_tier.astype(np.int64)])
    parent = (src - np.uint64(lo)).astype(np.intp)  # node ``lo + i`` is row ``i`` (``dataset``)
    if len(src) and ((src < np.uint64(lo)).any() or (parent >= len(codes)).any()):
        raise DatasetError(f"{shard_path(root, tier, entry.shard)}: a move leaves a node not in it")
    dead = np.bincount(parent, minlength=len(codes)) == 0
    outcome = np.where(dead, terminal, INNER).astype(np.int8)
    return ShardMoves(codes, outcome, dst, to, parent)


class Judged(NamedTuple):
    """A shard's claims beside its moves and the claims of the moves' targets."""

    game: TierGame
    tier: int
    exp: ShardMoves
    label: NDArray[np.int8]
    rem: NDArray[np.int32]
    move: NDArray[np.uint64] | None
    c_label: NDArray[np.int8]
    """Per move: the claim of its target (``NO_CLAIM`` where there is none)."""
    c_rem: NDArray[np.int32]


def check_shard(
    root: str,
    game: TierGame,
    tier: int,
    entry: ShardEntry,
    refs: list[list[tuple[int, str]]],
    claims: Claims,
    owners: Owners,
    scratch: str | None = None,
) -> ShardFaults:
    """Judge the claims of one shard against the rules, its moves joined with the claims of
    their targets (``refs``: every tier's shards, ``(positions, sha256)``), after the
    ``dataset`` check of its codes; ``scratch``: where the rows the moves reach are marked
    for the ``reachable`` check (``reach_shard``), ``None``: not marked (a stored graph)."""
    base = Path(root)
    shape: dict[str, Any] = {}

    def usable(codes: NDArray[np.uint64]) -> NDArray[np.bool_]:
        ok, n_bad, w = shape_faults(game, tier, entry.shard, codes, owners)
        shape["ok"], shape["dataset"] = ok, (n_bad, w)
        return ok

    lo = int(range_bounds(list(owners.sizes[tier]))[entry.shard]) if owners.ranged else 0
    exp = shard_moves(base, game, tier, entry, usable, lo)
    if "ok" not in shape:  # a stored graph: its node ids, read with its moves
        usable(exp.codes)
    codes = exp.codes
    label, rem, move = claims.read(tier, entry.shard)
    tally = tally_of(label, rem) if claims.own else None
    keep = shape["ok"]
    if len(keep) == len(label) and not keep.all():
        label, rem = label[keep], rem[keep]
        move = move[keep] if move is not None else None
    mark: Callable[[int, int, NDArray[np.intp], int], None] | None = None
    if scratch is not None:
        marks = Path(scratch)

        def reach(t: int, j: int, rows: NDArray[np.intp], positions: int) -> None:
            write_marks(reached_path(marks, t, j, tier, entry.shard), rows, positions)

        mark = reach

    claimed = label != NO_CLAIM
    inner = exp.outcome == INNER
    src = exp.parent
    if len(exp.children):
        c_label, c_rem = _children_claims(
            base, exp.children, exp.child_tier, refs, claims, owners, mark
        )
    else:
        c_label, c_rem = np.zeros(0, dtype=np.int8), np.zeros(0, dtype=np.int32)
    j = Judged(game, tier, exp, label, rem, move, c_label, c_rem)
    span = None
    form = tiered_form(game.name)
    if form is not None and form.positions is not None:  # positions and moves recomputed
        n_pos, w_pos, span = hook(form.positions)(root, game, tier, entry, exp, refs, lo)
        n_shape, w_shape = shape["dataset"]
        first = [w for w in (w_shape, w_pos) if w is not None]
        shape["dataset"] = (n_shape + n_pos, min(first, key=lambda w: w[:2]) if first else None)
    wrong, g, judged = _rule_faults(exp, label, c_label)

    def why_rule(i: int) -> str:
        if not -1 <= label[i] <= 1:
            return f"claims {int(label[i])}, which is no label (+1 won, -1 lost, 0 drawn)"
        said = WORDS[int(label[i])]
        if not inner[i]:
            end = {-1: "lost", 1: "won", 0: "drawn"}[int(exp.outcome[i])]
            end = f"{end} for the player to move" if end != "drawn" else "a draw"
            return f"claimed {said}, but the game is over there: {end}"
        due = int(rule_gives(g, judged, i))  # what negamax gives from the moves' claims
        mine = np.flatnonzero(src == i)
        lost, drawn = mine[c_label[mine] == -1], mine[c_label[mine] == 0]
        if due == 1 and len(lost):
            to = _child_name(game, exp, lost[0], tier)
            return f"claimed {said}, but the move to {to} reaches a position claimed lost"
        if due == 0 and len(drawn) and not len(lost):
            to = _child_name(game, exp, drawn[0], tier)
            return (
                f"claimed {said}, but no move reaches a position claimed lost and {to} is "
                "claimed drawn"
            )
        if due == -1 and (c_label[mine] == 1).all():
            return f"claimed {said}, but every move reaches a position claimed won"
        return f"claimed {said}, but its rule gives {WORDS[due]} from its moves' claims"

    found = {
        "dataset": shape["dataset"],
        "rules": (int(wrong.sum()), _first(tier, codes, wrong, why_rule)),
    }
    if claims.remoteness:
        found["remoteness"] = _remoteness(j, claimed & ~wrong)
    if claims.moves and move is not None:
        found["moves"] = _moves(j, claimed, claims.remoteness)
    return _faults(tally, span, **found)


def _rule_faults(
    exp: ShardMoves, label: NDArray[np.int8], c_label: NDArray[np.int8]
) -> tuple[NDArray[np.bool_], GameGraph, SolverResult]:
    """The ``rules`` check of a shard, by the in-memory check's own code
    (``checks.rules.shard_faults``, negamax: ``OrderSystem.normal``): the shard as a graph of
    its own, a position where the game is over a dead end carrying its outcome, each move's
    target a dead end carrying its claim. A claim that is no label breaks the rule; a position
    with a move to an unclaimed target is not judged (``coverage`` counts the missing claim).
    Returns where the rule is broken, the graph and the values it judged."""
    given = (label >= -1) & (label <= 1)
    c_given = (c_label >= -1) & (c_label <= 1)
    inner = exp.outcome == INNER
    n = len(label)
    leaf = np.where(inner, np.nan, exp.outcome)  # an inner position without moves: lost
    nobody = np.full(n, NOBODY, dtype=np.int8)
    g = shard_graph(Semantics.NORMAL, nobody, leaf, np.zeros(n, np.bool_), exp.parent,
                    c_label, c_given)  # fmt: skip
    faults, judged = shard_faults(g, label, given)
    wrong = (label != NO_CLAIM) & ~given
    wrong[faults] = True
    return wrong, g, judged


def _remoteness(j: Judged, judged: NDArray[np.bool_]) -> tuple[int, Witness]:
    """Remoteness against the children's claims, where the label obeys the rules."""
    exp, label, rem, c_label, c_rem = j.exp, j.label, j.rem, j.c_label, j.c_rem
    codes, tier = exp.codes, j.tier
    n = len(codes)
    src = exp.parent
    big = np.iinfo(np.int64).max
    least_lost = np.full(n, big, dtype=np.int64)
    lost = c_label == -1
    np.minimum.at(least_lost, src[lost], c_rem[lost].astype(np.int64))
    most = np.full(n, -1, dtype=np.int64)
    np.maximum.at(most, src, c_rem.astype(np.int64))
    due = np.where(label == 1, least_lost + 1, np.where(label == -1, most + 1, -1))
    due = np.where((exp.outcome != INNER) & (label != 0), 0, due)  # the game is over
    wrong = judged & (rem != due)

    def why(i: int) -> str:
        said = WORDS[int(label[i])]
        got = "no remoteness" if rem[i] < 0 else f"remoteness {int(rem[i])}"
        if label[i] == 0:
            return f"claimed drawn with {got}: a draw has none"
        kind = (
            "the end of the game"
            if exp.outcome[i] != INNER
            else (
                "1 + the least remoteness of a move to a position claimed lost"
                if label[i] == 1
                else "1 + the greatest remoteness of its moves (the longest defence)"
            )
        )
        return f"claimed {said} with {got}, but {kind} is {int(due[i])}"

    return int(wrong.sum()), _first(tier, codes, wrong, why)


def _moves(j: Judged, claimed: NDArray[np.bool_], timed: bool) -> tuple[int, Witness]:
    """Each claimed move: present at every inner position, legal, and optimal for the claim."""
    exp, label, rem, c_label, c_rem, game = j.exp, j.label, j.rem, j.c_label, j.c_rem, j.game
    codes, tier, move = exp.codes, j.tier, j.move
    assert move is not None
    n = len(codes)
    src = exp.parent
    inner = exp.outcome == INNER
    kids = exp.children
    if isinstance(game, GraphTiers) and game.tiers > 1:  # a move names its tier (MOVE_TIER)
        kids = packed_moves(exp.child_tier, kids)
    chosen = kids == move[src]  # the move that the position names, if legal
    legal = np.zeros(n, dtype=np.bool_)
    legal[src[chosen]] = True
    good_label = np.where(label[src] == 1, -1, np.where(label[src] == -1, 1, 0))
    fine = chosen & (c_label == good_label)
    if timed:
        fine &= (label[src] == 0) | (c_rem == rem[src] - 1)
    good = np.zeros(n, dtype=np.bool_)
    good[src[fine]] = True
    named = move != NO_MOVE
    wrong = claimed & (move != UNSTATED) & ((inner & ~good) | (~inner & named))

    def why(i: int) -> str:
        if not inner[i]:
            return "names a move at a position where the game is over"
        if not named[i]:
            return f"claimed {WORDS[int(label[i])]} but names no move"
        to_tier, to_code = divmod(int(move[i]), 1 << MOVE_TIER) if kids is not exp.children else (
            tier, int(move[i]))  # fmt: skip
        there = "" if kids is exp.children else f" of tier {to_tier}"
        if not legal[i]:
            return f"names code {to_code}{there}, which no legal move reaches"
        want = {1: "lost", -1: "won", 0: "drawn"}[int(label[i])]
        suffix = "" if not timed or label[i] == 0 else f" in {int(rem[i]) - 1}"
        to = game.position_name(to_code) + there
        said = WORDS[int(label[i])]
        return f"claimed {said}: its move to {to} should reach a position claimed {want}{suffix}"

    return int(wrong.sum()), _first(tier, codes, wrong, why)


# --- the counts and the start ---------------------------------------------------------


def compare_counts(
    m: Manifest, tier: int, tallies: Sequence[tuple[int, int, int, int]]
) -> list[tuple[int, Witness]]:
    """The ``counts`` check of one tier: the manifest's won, lost, drawn and greatest
    remoteness against the same counted from its shards' stored answers (``tally_of``); a
    witness names the tier (code -1: no position) and the count."""
    t = m.tiers[tier]
    if not t.solved or not tallies:
        return []
    names = count_names(m.semantics)
    got = (
        sum(x[0] for x in tallies),
        sum(x[1] for x in tallies),
        sum(x[2] for x in tallies),
        max(x[3] for x in tallies),
    )
    said = (t.won, t.lost, t.drawn, t.max_remoteness)
    out: list[tuple[int, Witness]] = []
    for key, name, want, have in zip(
        ("won", "lost", "drawn", "max_remoteness"), names, said, got, strict=True
    ):
        if want != have:
            word = key if name == "-" else name
            out.append(
                (
                    1,
                    (
                        tier,
                        -1,
                        f"the manifest says {word} {want}, the stored answers hold {have} "
                        f"($.tiers[{tier}].{key})",
                    ),
                )
            )
    return out


def graph_counts(m: Manifest, game: Any) -> list[tuple[int, Witness]]:
    """A stored graph's ``nodes`` and ``edges`` (its manifest's parameters) against the
    shards' positions and moves (inside a tier and into later ones), whose files are read
    against them: the ``counts`` check (witness: no tier, no position)."""
    if not isinstance(game, GraphTiers):
        return []
    held = (
        sum(t.positions for t in m.tiers),
        sum((s.edges or 0) + (s.exits or 0) for t in m.tiers for s in t.shards),
    )
    out: list[tuple[int, Witness]] = []
    for key, said, have in zip(("nodes", "edges"), (game.nodes, game.edges), held, strict=True):
        if said != have:
            why = f"the manifest says {key} {said}, the shards hold {have} ($.parameters.{key})"
            out.append((1, (-1, -1, why)))
    return out


def root_claim(root: Path, m: Manifest, claims: Claims, owners: Owners) -> tuple[int, int] | None:
    """The start position's claim (in tier 0), if there is one."""
    start = np.array([m.root_code], dtype=np.uint64)
    s = int(owners.of(0, start)[0])
    entry = m.tiers[0].shards[s]
    codes = read_codes(root, 0, s, entry.sha256, entry.positions)
    label, rem, _ = claims.read(0, s)
    at = int(np.searchsorted(codes, start[0]))
    if at >= len(codes) or codes[at] != start[0] or label[at] == NO_CLAIM:
        return None
    return int(label[at]), int(rem[at])
