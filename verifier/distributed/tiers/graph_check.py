"""Judging a stored graph's own answers under reachability, minimax or impartial, shard by
shard: ``verify DIR --engine dask`` on a dataset ``solve`` wrote (``graph_rules``).

One task per shard reads its nodes, its moves, its answers and its moves' targets' answers
(from the shards owning them), and checks every node's rule; the driver sees counts and the
first violation of each check. The checks are complete, so all of them holding is a proof:

- ``reachability`` (label +1 in player 0's region, -1 outside; remoteness the layer): *rules*:
  a target is in the region; a dead end off the target is not; a player-0 node is in it iff a
  successor is, any other node iff all its successors are. *layers*: a target's is 0, a
  player-0 node's in the region 1 + the least of its successors' in the region, another node's
  1 + the greatest of its successors'; -1 outside. The layers well-found the region (each
  member rests on members of smaller layers down to the targets: it lies in the attractor),
  and the rules make the rest a trap player 0 cannot leave for the region (it lies outside
  the attractor); given the region, the layer equations have one solution.
- ``minimax`` (Kars' score and the round it was decided in, ``rank``): *rules*: a leaf scores
  its value, a Max node the greatest of its successors' scores, a Min node the least (the
  (T+MM) equations). *ranks*: a node has a rank iff its score is not 0; a node whose score its
  side is ahead by (Max at > 0, Min at < 0) has a successor of the same score and a smaller
  rank, the other side's every successor has a smaller rank (>= 0). Induction on the rank puts
  a node of score c > 0 in Max's attractor of the leaves >= c (c < 0: Min's of those <= c), so
  its true score is at least (at most) c; the equations make ``{score < c}`` a trap for Max
  (and ``{score > c}`` one for Min), so it is not more (less). Hence the scores are Kars'.
- ``impartial`` (Grundy value, remoteness the height): *heights*: a dead end's is 0, another
  node's 1 + the greatest of its successors' (every move then lowers the height: the graph is
  acyclic); *rules*: a node's value is the mex of its successors' values, which on an acyclic
  graph has one solution.

A stranger's table (``--answers``) is judged for semantics normal only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.distributed.tiers.check import TierCheck, Witness, check_dataset
from verifier.distributed.tiers.errors import DatasetError
from verifier.distributed.tiers.graph_rules import RULES, rule_named
from verifier.distributed.tiers.graph_storage import read_edges, read_node_columns
from verifier.distributed.tiers.graphs import GraphTiers, range_bounds, range_owner, with_semantics
from verifier.distributed.tiers.manifest import MANIFEST, Manifest, ShardEntry, load_manifest
from verifier.distributed.tiers.rules import game_from_manifest
from verifier.distributed.tiers.storage import read_rule_answers, shard_path
from verifier.distributed.tiers.supervise import cluster_workers, gather_tier
from verifier.engine.grundy import mex_rows
from verifier.model.describe import PerSemantics
from verifier.model.semantics import MAX, PLAYER0, Semantics

__all__ = ["CHECKERS", "Checker", "check_any", "check_rule_dataset", "check_rule_shard"]

Cols = dict[str, NDArray[Any]]
Refs = list[tuple[int, str | None]]
"""Per shard of the tier: positions, answers sha256."""
Found = tuple[dict[str, int], dict[str, Witness]]


@dataclass(frozen=True)
class Checker:
    """How one semantics' answers are judged (``CHECKERS``)."""

    checks: tuple[str, ...]
    """The checks, in the order the report lists them."""
    proof: str
    """Why answers that pass them are the values (the report's words)."""
    run: Callable[..., None]
    """``run(found, codes, nodes, own, x, y, deg)``: note the violations of a shard."""


CHECKERS: PerSemantics[Checker] = PerSemantics("sharded check")


def _targets(root: Path, sem: Semantics, dst: NDArray[np.uint64], refs: Refs) -> Cols:
    """The answers of the moves' targets, read from the shards owning them."""
    bounds = range_bounds([p for p, _ in refs])
    if len(dst) and int(dst.max()) >= int(bounds[-1]):
        raise DatasetError(f"{root}: a move to node {int(dst.max())}, of {int(bounds[-1])}")
    cols = RULES[sem].answer_columns
    out = {k: np.empty(len(dst), dtype=np.dtype(t)) for k, t in cols.items()}
    owner = range_owner(dst, bounds)
    for j in np.unique(owner).tolist():
        sel = np.flatnonzero(owner == j)
        got = read_rule_answers(root, 0, j, refs[j][1], refs[j][0], cols)
        at = (dst[sel] - np.uint64(bounds[j])).astype(np.intp)
        for k in cols:
            out[k][sel] = got[k][at]
    return out


def _note(found: Found, check: str, codes: NDArray[np.uint64], bad: NDArray[np.bool_],
          why: Any) -> None:  # fmt: skip
    counts, witnesses = found
    hit = np.flatnonzero(bad)
    counts[check] = counts.get(check, 0) + len(hit)
    if len(hit) and check not in witnesses:
        i = int(hit[0])
        witnesses[check] = (0, int(codes[i]), why(i))


def check_rule_shard(root: str, sem: Semantics, entry: ShardEntry, refs: Refs, lo: int) -> Found:
    """Check the answers of ``entry``'s shard (its ids from ``lo``) against the rules of
    ``sem`` (see the module docstring): violations per check and the first of each."""
    base = Path(root)
    rule, checker = RULES[sem], CHECKERS[sem]
    nodes = read_node_columns(base, 0, entry.shard, entry.sha256, entry.positions,
                              {"code": "uint64"} | rule.node_columns)  # fmt: skip
    own = read_rule_answers(base, 0, entry.shard, entry.answers_sha256, entry.positions,
                            rule.answer_columns)  # fmt: skip
    src, dst = read_edges(base, 0, entry.shard, entry.edges_sha256, entry.edges)
    n = entry.positions
    x = (src - np.uint64(lo)).astype(np.intp)
    if len(x) and (x.min() < 0 or x.max() >= n):
        raise DatasetError(f"{shard_path(base, 0, entry.shard)}: a move from another shard")
    y = _targets(base, sem, dst, refs)
    codes: NDArray[np.uint64] = np.asarray(nodes["code"], dtype=np.uint64)
    deg = np.bincount(x, minlength=n)
    found: Found = ({c: 0 for c in checker.checks}, {})
    checker.run(found, codes, nodes, own, x, y, deg)
    return found


def _least(x: NDArray[np.intp], v: NDArray[Any], mask: NDArray[np.bool_], n: int,
           empty: float) -> NDArray[np.float64]:  # fmt: skip
    out = np.full(n, empty, dtype=np.float64)
    np.minimum.at(out, x[mask], v[mask].astype(np.float64))
    return out


def _greatest(x: NDArray[np.intp], v: NDArray[Any], mask: NDArray[np.bool_], n: int,
              empty: float) -> NDArray[np.float64]:  # fmt: skip
    out = np.full(n, empty, dtype=np.float64)
    np.maximum.at(out, x[mask], v[mask].astype(np.float64))
    return out


def _reachability(found: Found, codes: NDArray[np.uint64], nodes: Cols, own: Cols,
                  x: NDArray[np.intp], y: Cols, deg: NDArray[np.int64]) -> None:  # fmt: skip
    n = len(codes)
    label, layer = own["label"], own["remoteness"].astype(np.int64)
    target = nodes["target"] != 0
    p0 = nodes["player"] == PLAYER0
    dead = deg == 0
    inw = label == 1
    y_in = y["label"] == 1
    every = np.ones(len(x), dtype=np.bool_)
    in_succ = np.bincount(x[y_in], minlength=n)
    want = np.where(target, True, np.where(dead, False, np.where(p0, in_succ > 0, in_succ == deg)))
    bad = ~np.isin(label, (1, -1)) | (inw != want)
    words = {True: "player 0's (+1)", False: "player 1's (-1)"}
    _note(found, "rules", codes, bad,
          lambda i: f"claims {int(label[i])}, its rule gives {words[bool(want[i])]}")  # fmt: skip
    low = _least(x, y["remoteness"], y_in, n, np.inf)
    high = _greatest(x, y["remoteness"], every, n, -np.inf)
    layer_want = np.where(target, 0.0, np.where(p0, 1 + low, 1 + high))
    layer_want = np.where(want, layer_want, -1.0)
    bad = layer != layer_want
    _note(found, "layers", codes, bad,
          lambda i: f"layer {int(layer[i])}, its successors give {layer_want[i]:g}")  # fmt: skip


def _minimax(found: Found, codes: NDArray[np.uint64], nodes: Cols, own: Cols,
             x: NDArray[np.intp], y: Cols, deg: NDArray[np.int64]) -> None:  # fmt: skip
    n = len(codes)
    score, rank = own["score"], own["rank"].astype(np.int64)
    mx = nodes["player"] == MAX
    dead = deg == 0
    every = np.ones(len(x), dtype=np.bool_)
    ys, yr = y["score"], y["rank"].astype(np.int64)
    hi = _greatest(x, ys, every, n, -np.inf)
    lo = _least(x, ys, every, n, np.inf)
    want = np.where(dead, nodes["value"], np.where(mx, hi, lo))
    bad = ~(score == want)
    _note(found, "rules", codes, bad,
          lambda i: f"score {score[i]:g}, its rule gives {want[i]:g}")  # fmt: skip
    ahead = ~dead & np.where(score > 0, mx, ~mx) & (score != 0)
    behind = ~dead & ~ahead & (score != 0)
    xs, xr = score[x], rank[x]
    witness = np.bincount(x[(ys == xs) & (yr >= 0) & (yr < xr)], minlength=n)
    earlier = np.bincount(x[(yr >= 0) & (yr < xr)], minlength=n)
    shape = (score != 0) != (rank >= 0)
    bad = shape | (ahead & (witness == 0)) | (behind & (earlier < deg))

    def why(i: int) -> str:
        if shape[i]:
            return f"rank {int(rank[i])} at score {score[i]:g} (a rank iff the score is not 0)"
        if ahead[i]:
            return f"rank {int(rank[i])}: no successor of score {score[i]:g} has a smaller one"
        return f"rank {int(rank[i])}: a successor's rank is not smaller"

    _note(found, "ranks", codes, bad, why)


def _impartial(found: Found, codes: NDArray[np.uint64], nodes: Cols, own: Cols,
               x: NDArray[np.intp], y: Cols, deg: NDArray[np.int64]) -> None:  # fmt: skip
    n = len(codes)
    g, h = own["grundy"].astype(np.int64), own["remoteness"].astype(np.int64)
    every = np.ones(len(x), dtype=np.bool_)
    top = _greatest(x, y["remoteness"], every, n, -1.0)
    h_want = np.where(deg == 0, 0.0, 1 + top)
    bad = (h != h_want) | (h < 0)
    _note(found, "heights", codes, bad,
          lambda i: f"height {int(h[i])}, its successors give {h_want[i]:g}")  # fmt: skip
    yg = y["grundy"].astype(np.int64)
    yg = np.where(yg < 0, np.iinfo(np.int64).max, yg)  # not a value: marks nothing
    g_want = mex_rows(yg, deg.astype(np.int64))  # the moves are sorted by source
    bad = g != g_want

    def why(i: int) -> str:
        return f"Grundy value {int(g[i])}, the mex of its successors' is {int(g_want[i])}"

    _note(found, "rules", codes, bad, why)


CHECKERS.register(Semantics.REACHABILITY)(
    Checker(("rules", "layers"),
            "the layers found the region on the targets and the rest is a trap for player 0",
            _reachability)
)  # fmt: skip
CHECKERS.register(Semantics.MINIMAX)(
    Checker(("rules", "ranks"),
            "each non-zero score rests on claims of smaller rank and the (T+MM) equations make "
            "the rest traps",
            _minimax)
)  # fmt: skip
CHECKERS.register(Semantics.IMPARTIAL)(
    Checker(("heights", "rules"),
            "the heights prove the graph acyclic, where the mex rule has one solution",
            _impartial)
)  # fmt: skip


def check_any(
    root: Path,
    client: Any,
    *,
    answers: Path | None = None,
    say: Any = None,
    poll: float = 1.0,
    grace: float = 10.0,
) -> TierCheck:
    """``verify DIR --engine dask``: a stored graph of semantics reachability, minimax or
    impartial judged here, any other dataset by ``check.check_dataset``."""
    m = load_manifest(root)
    game = game_from_manifest(m.game, m.parameters, str(root / MANIFEST))
    if not isinstance(game, GraphTiers) or rule_named(m.semantics) is None:
        return check_dataset(root, client, answers=answers, say=say, poll=poll, grace=grace)
    graph = with_semantics(game, m.semantics, str(root / MANIFEST))
    assert isinstance(graph, GraphTiers)
    m.need_generated(root)
    return check_rule_dataset(root, m, graph, client, answers=answers, poll=poll, grace=grace)


def check_rule_dataset(
    root: Path,
    m: Manifest,
    game: GraphTiers,
    client: Any,
    *,
    answers: Path | None,
    poll: float,
    grace: float,
) -> TierCheck:
    """Judge the own answers of a stored graph of semantics reachability, minimax or
    impartial (see the module docstring)."""
    sem = game.semantics
    if answers is not None:
        raise DatasetError(
            f"{answers}: --answers: a table of claims is judged for semantics normal; a "
            f"{sem.value} dataset's own answers are (drop --answers)"
        )
    for t in m.tiers:
        if not t.solved:
            raise DatasetError(
                f"{root / MANIFEST}: $.tiers[{t.tier}].status: {t.status!r}: no answers to "
                "judge (solve it)"
            )
    if len(m.tiers) != 1:
        raise DatasetError(f"{root / MANIFEST}: $.tiers: a {sem.value} graph is one tier")
    tier = m.tiers[0]
    refs: Refs = [(s.positions, s.answers_sha256) for s in tier.shards]
    bounds = range_bounds([s.positions for s in tier.shards])
    workers = set(cluster_workers(client))
    results: list[Found] = gather_tier(
        client,
        [
            client.submit(check_rule_shard, str(root), sem, s, refs, int(bounds[s.shard]),
                          pure=False)
            for s in tier.shards
        ],
        what="checking the answers",
        workers=workers,
        poll=poll,
        grace=grace,
    )  # fmt: skip
    checks = CHECKERS[sem].checks
    counts = dict.fromkeys(checks, 0)
    witnesses: dict[str, tuple[int, int, str]] = {}
    for c_counts, c_witnesses in results:
        for c in checks:
            counts[c] += c_counts.get(c, 0)
            w = c_witnesses.get(c)
            if w is not None and (c not in witnesses or w[1] < witnesses[c][1]):
                witnesses[c] = w
    from verifier.distributed.tiers.graph_solve import rule_answer_of

    desc = game.describe_answers(m.root_code, rule_answer_of(root, m, m.root_code))
    names = {c: game.position_name(w[1]) for c, w in witnesses.items()}
    return TierCheck(
        m,
        "answers/ (the dataset's own)",
        counts,
        witnesses,
        checks,
        tier.positions,
        None,
        desc,
        names,
        CHECKERS[sem].proof,
        None,
    )
