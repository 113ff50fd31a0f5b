"""The checks of one shard of a stored graph's answers under reachability, minimax or
impartial, pure numpy over the stored shards: ``check_rule_shard`` reads the shard's nodes, its
moves, its answers and its moves' targets' answers (from the shards owning them), and checks
every node's rule (``distributed.tiers.graph_check`` runs it as one task per shard on the
workers; it needs no cluster). The checks are complete, so all of them holding is a proof:

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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.checks.rules import rule_gives, shard_faults, shard_graph
from verifier.dataset.errors import DatasetError
from verifier.dataset.graph_storage import read_edges, read_node_columns
from verifier.dataset.graphs import range_bounds, range_owner
from verifier.dataset.manifest import ShardEntry
from verifier.dataset.shape import Owners, shape_faults
from verifier.dataset.storage import read_parquet, read_rule_answers, shard_path
from verifier.dataset.stored_columns import COLUMNS
from verifier.dataset.tables import (
    NO_CLAIM,
    TableValues,
    claims_path,
    column_of,
    int_column,
)
from verifier.model.describe import PerSemantics
from verifier.model.semantics import MAX, PLAYER0, Semantics

__all__ = [
    "CHECKERS",
    "FOUND",
    "Checker",
    "Found",
    "Refs",
    "Table",
    "check_rule_shard",
]

Cols = dict[str, NDArray[Any]]
Refs = list[tuple[int, str | None]]
"""Per shard of the tier: positions, answers sha256."""


@dataclass
class Found:
    """What a shard's checks found: violations per check and the first of each; only the
    nodes in ``judged`` are counted (``None``: all; a stranger's table: the nodes it claims,
    the others being coverage's)."""

    counts: dict[str, int]
    witnesses: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    judged: NDArray[np.bool_] | None = None
    tally: tuple[int, int, int, int] | None = None
    """The shard's own answers counted as ``solve`` counts them (``StoredColumns.counts``): the
    driver compares the sums with the manifest's (``judge.compare_counts``)."""


def _found_json(f: Found | None) -> dict[str, Any] | None:
    return None if f is None else {"counts": f.counts, "witnesses": f.witnesses, "tally": f.tally}


def _found_of(d: Any) -> Found | None:
    if d is None:
        return None
    w = {str(c): (int(x[0]), int(x[1]), str(x[2])) for c, x in d["witnesses"].items()}
    tally = None if d["tally"] is None else tuple(int(v) for v in d["tally"])
    return Found({str(c): int(n) for c, n in d["counts"].items()}, w, None, tally)  # type: ignore[arg-type]


def _pair_of(d: Any) -> tuple[Found, Found | None]:
    found = _found_of(d[0])
    if found is None:
        raise ValueError("no result")
    return found, _found_of(d[1])


FOUND = (lambda r: [_found_json(r[0]), _found_json(r[1])], _pair_of)
"""A ``check_rule_shard`` result to JSON and back (``checkpoints``)."""


@dataclass(frozen=True)
class Checker:
    """How one semantics' answers are judged (``CHECKERS``)."""

    checks: tuple[str, ...]
    """The checks, in the order the report lists them: ``rules`` and the certificate's."""
    proof: str
    """Why answers that pass them are the values (the report's words)."""
    rules: Callable[..., None]
    """``rules(found, codes, nodes, own, x, y, deg)``: note the shard's violations of the local
    rules (the values only)."""
    certificate: Callable[..., None]
    """The same for the certificate's check (layers, ranks, heights)."""
    value: str
    """The answer column a table's ``value`` is (``label`` +1 / -1 for the winner 0 / 1)."""
    table: TableValues
    """How a stranger's ``value`` column is read."""
    say: Callable[[Any], str]
    """A value in words (a witness of the agreement check)."""
    unproved: str
    """What the local rules alone leave open (an inconclusive verdict's words)."""
    certified_by_remoteness: bool = False
    """A table's ``remoteness`` column is the certificate (reachability's layers)."""

    def run(self, found: Found, *args: Any) -> None:
        self.rules(found, *args)
        self.certificate(found, *args)


CHECKERS: PerSemantics[Checker] = PerSemantics("sharded check")


@dataclass(frozen=True)
class Table:
    """A stranger's table aligned with the shards in ``scratch`` (``align.align_table``), and
    whether the dataset's own answers are judged beside it and compared (``borrow``: the
    table carries no certificate and the dataset is solved)."""

    scratch: str
    shas: tuple[str | None, ...]
    remoteness: bool
    borrow: bool

    def read(self, checker: Checker, shard: int) -> Cols:
        """Shard ``shard``'s claims as the checker's answer columns (and ``remoteness``)."""
        got = read_parquet(claims_path(Path(self.scratch), 0, shard), self.shas[shard],
                    {"label": checker.table.dtype, "remoteness": "int32"})  # fmt: skip
        return {checker.value: got["label"], "remoteness": got["remoteness"]}


def _targets(root: Path, dst: NDArray[np.uint64], refs: Refs, read: Callable[[int], Cols],
             cols: dict[str, str]) -> Cols:  # fmt: skip
    """The answers ``cols`` of the moves' targets, read (``read(shard)``) from the shards
    owning them."""
    bounds = range_bounds([p for p, _ in refs])
    if len(dst) and int(dst.max()) >= int(bounds[-1]):
        raise DatasetError(f"{root}: a move to node {int(dst.max())}, of {int(bounds[-1])}")
    out = {k: np.empty(len(dst), dtype=np.dtype(t)) for k, t in cols.items()}
    owner = range_owner(dst, bounds)
    for j in np.unique(owner).tolist():
        sel = np.flatnonzero(owner == j)
        got = read(j)
        at = (dst[sel] - np.uint64(bounds[j])).astype(np.intp)
        for k in cols:
            out[k][sel] = got[k][at]
    return out


def _note(found: Found, check: str, codes: NDArray[np.uint64], bad: NDArray[np.bool_],
          why: Any) -> None:  # fmt: skip
    if found.judged is not None:
        bad = bad & found.judged
    hit = np.flatnonzero(bad)
    found.counts[check] = found.counts.get(check, 0) + len(hit)
    if len(hit) and check not in found.witnesses:
        i = int(hit[0])
        found.witnesses[check] = (0, int(codes[i]), why(i))


def check_rule_shard(root: str, sem: Semantics, entry: ShardEntry, refs: Refs, lo: int,
                     table: Table | None = None
                     ) -> tuple[Found, Found | None]:  # fmt: skip
    """Check the answers of ``entry``'s shard (its ids from ``lo``) against the rules of
    ``sem`` (see the module docstring; what it stores: ``COLUMNS[sem]``): violations
    per check and the first of each. With a stranger's ``table``, its claims are judged (the
    certificate's check where it has one), and when it ``borrow``s, the dataset's own answers
    too (the second result) and the claims are compared with them (``agreement``)."""
    base = Path(root)
    checker, stored = CHECKERS[sem], COLUMNS[sem]
    nodes = read_node_columns(base, 0, entry.shard, entry.sha256, entry.positions,
                              {"code": "uint64"} | stored.node_columns)  # fmt: skip
    src, dst = read_edges(base, 0, entry.shard, entry.edges_sha256, entry.edges)
    n = entry.positions
    x = (src - np.uint64(lo)).astype(np.intp)
    if len(x) and (x.min() < 0 or x.max() >= n):
        raise DatasetError(f"{shard_path(base, 0, entry.shard)}: a move from another shard")
    codes: NDArray[np.uint64] = np.asarray(nodes["code"], dtype=np.uint64)
    deg = np.bincount(x, minlength=n)
    cols = stored.answer_columns
    ids = Owners(((*(p for p, _ in refs),),), ranged=True)
    _, n_ids, w_ids = shape_faults(None, 0, entry.shard, codes, ids)

    def shape(found: Found) -> Found:
        """``found`` with the ``dataset`` check of the shard's node ids."""
        found.counts["dataset"] = n_ids
        if w_ids is not None:
            found.witnesses["dataset"] = w_ids
        return found

    def own_answers(j: int) -> Cols:
        return read_rule_answers(base, 0, j, refs[j][1], refs[j][0], cols)

    def judge(found: Found, mine: Cols, read: Callable[[int], Cols], want: dict[str, str],
              run: Callable[..., None]) -> None:  # fmt: skip
        run(found, codes, nodes, mine, x, _targets(base, dst, refs, read, want), deg)

    if table is None or table.borrow:
        own_found = Found(dict.fromkeys(checker.checks, 0))
        own = own_answers(entry.shard)
        judge(own_found, own, own_answers, cols, checker.run)
        own_found.tally = stored.counts(own)
        if table is None:
            return shape(own_found), None
    else:
        own_found = None
    mine = table.read(checker, entry.shard)
    claimed = ~checker.table.unclaimed(mine[checker.value])
    found = Found({"rules": 0}, judged=claimed)
    want = {checker.value: checker.table.dtype, "remoteness": "int32"}
    certified = table.remoteness and checker.certified_by_remoteness
    judge(found, mine, lambda j: table.read(checker, j), want,
          checker.run if certified else checker.rules)  # fmt: skip
    if own_found is not None:
        v, w = mine[checker.value], own[checker.value]
        _note(found, "agreement", codes, ~(v == w),
              lambda i: f"claims {checker.say(v[i])}, the dataset's own answer is "
                        f"{checker.say(w[i])}")  # fmt: skip
    found.judged = None
    return shape(found), own_found


def _folded(op: np.ufunc, x: NDArray[np.intp], v: NDArray[Any], mask: NDArray[np.bool_],
            n: int, empty: float) -> NDArray[np.float64]:  # fmt: skip
    """Per node ``x`` (of ``n``), ``op`` (min or max) of the values ``v`` where ``mask``;
    ``empty`` where none."""
    out = np.full(n, empty, dtype=np.float64)
    with np.errstate(invalid="ignore"):  # a NaN: a stranger's missing score
        op.at(out, x[mask], v[mask].astype(np.float64))
    return out


def _least(x: NDArray[np.intp], v: NDArray[Any], mask: NDArray[np.bool_], n: int,
           empty: float) -> NDArray[np.float64]:  # fmt: skip
    return _folded(np.minimum, x, v, mask, n, empty)


def _greatest(x: NDArray[np.intp], v: NDArray[Any], mask: NDArray[np.bool_], n: int,
              empty: float) -> NDArray[np.float64]:  # fmt: skip
    return _folded(np.maximum, x, v, mask, n, empty)


def _in_region(nodes: Cols, x: NDArray[np.intp], y: Cols, deg: NDArray[np.int64]
               ) -> NDArray[np.bool_]:  # fmt: skip
    """Reachability: the region the rules give each node from its successors' labels (the
    layers' check: where a layer is owed)."""
    n = len(deg)
    target = nodes["target"] != 0
    p0 = nodes["player"] == PLAYER0
    in_succ = np.bincount(x[y["label"] == 1], minlength=n)
    want: NDArray[np.bool_] = np.where(
        target, True, np.where(deg == 0, False, np.where(p0, in_succ > 0, in_succ == deg))
    )
    return want


def _reach_layers(found: Found, codes: NDArray[np.uint64], nodes: Cols, own: Cols,
                  x: NDArray[np.intp], y: Cols, deg: NDArray[np.int64]) -> None:  # fmt: skip
    n = len(codes)
    layer = own["remoteness"].astype(np.int64)
    target = nodes["target"] != 0
    p0 = nodes["player"] == PLAYER0
    want = _in_region(nodes, x, y, deg)
    every = np.ones(len(x), dtype=np.bool_)
    low = _least(x, y["remoteness"], y["label"] == 1, n, np.inf)
    high = _greatest(x, y["remoteness"], every, n, -np.inf)
    layer_want = np.where(target, 0.0, np.where(p0, 1 + low, 1 + high))
    layer_want = np.where(want, layer_want, -1.0)
    bad = layer != layer_want
    _note(found, "layers", codes, bad,
          lambda i: f"layer {int(layer[i])}, its successors give {layer_want[i]:g}")  # fmt: skip


def _minimax_ranks(found: Found, codes: NDArray[np.uint64], nodes: Cols, own: Cols,
                   x: NDArray[np.intp], y: Cols, deg: NDArray[np.int64]) -> None:  # fmt: skip
    n = len(codes)
    score, rank = own["score"], own["rank"].astype(np.int64)
    mx = nodes["player"] == MAX
    dead = deg == 0
    ys, yr = y["score"], y["rank"].astype(np.int64)
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


def _impartial_heights(found: Found, codes: NDArray[np.uint64], nodes: Cols, own: Cols,
                       x: NDArray[np.intp], y: Cols, deg: NDArray[np.int64]) -> None:  # fmt: skip
    n = len(codes)
    h = own["remoteness"].astype(np.int64)
    every = np.ones(len(x), dtype=np.bool_)
    top = _greatest(x, y["remoteness"], every, n, -1.0)
    h_want = np.where(deg == 0, 0.0, 1 + top)
    bad = (h != h_want) | (h < 0)
    _note(found, "heights", codes, bad,
          lambda i: f"height {int(h[i])}, its successors give {h_want[i]:g}")  # fmt: skip


def _rules(sem: Semantics, column: str, model: Callable[[NDArray[Any]], tuple[Any, Any]],
           words: Callable[[float, float], str]) -> Callable[..., None]:  # fmt: skip
    """The shard's local rules under ``sem``, judged by the in-memory check's own code
    (``checks.rules.shard_faults``): the answers' ``column`` as the model's values
    (``model``: values and where given), a node without a value a fault of its own; ``words``
    (claimed, what the rule gives) a witness."""

    def rules(found: Found, codes: NDArray[np.uint64], nodes: Cols, own: Cols,
              x: NDArray[np.intp], y: Cols, deg: NDArray[np.int64]) -> None:  # fmt: skip
        values, given = model(own[column])
        succ, succ_given = model(y[column])
        n = len(codes)  # impartial nodes have no player, a stored graph's leaves no target...
        owner = nodes["player"] if "player" in nodes else np.full(n, -1, np.int8)
        leaf = nodes["value"] if "value" in nodes else np.zeros(n)
        target = nodes["target"] != 0 if "target" in nodes else np.zeros(n, np.bool_)
        g = shard_graph(sem, owner, leaf, target, x, succ, succ_given)
        faults, judged = shard_faults(g, values, given)
        bad = ~given
        bad[faults] = True

        def why(i: int) -> str:
            return words(float(values[i]) if given[i] else float("nan"), rule_gives(g, judged, i))

        _note(found, "rules", codes, bad, why)

    return rules


def _region(label: NDArray[Any]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """Reachability's labels (+1 player 0's region, -1 not) as the model's 1 / 0."""
    return (label == 1).astype(np.int64), np.isin(label, (1, -1))


_SIDE = {1.0: "player 0's (+1, winner 0)", 0.0: "player 1's (-1, winner 1)"}


def _side(v: float) -> str:
    return _SIDE.get(v, "none")


# --- a stranger's values ------------------------------------------------------------------

NO_MOVES = (
    "move",
    "a move is not judged on the sharded route for this semantics: drop the column",
)


def _winners(path: Path, batch: Any, row0: int) -> NDArray[np.int8]:
    """Reachability: the winner 0 / 1, stored as the region's label +1 / -1."""
    v = int_column(path, batch, "value", row0, nulls=None)
    bad = (v != 0) & (v != 1)
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        raise DatasetError(
            f"{path}: $.value[{row0 + at}]: {int(v[at])}: a reachability value is the winner, "
            "0 or 1"
        )
    return np.where(v == 0, 1, -1).astype(np.int8)


def _scores(path: Path, batch: Any, row0: int) -> NDArray[np.float64]:
    """Minimax: Kars' score, a number."""
    import pyarrow as pa

    col = column_of(path, batch, "value", row0)
    if not (pa.types.is_floating(col.type) or pa.types.is_integer(col.type)):
        raise DatasetError(f"{path}: $.value: {col.type}, not numbers (a score)")
    v = np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)
    if np.isnan(v).any():
        at = int(np.flatnonzero(np.isnan(v))[0])
        raise DatasetError(f"{path}: $.value[{row0 + at}]: NaN: not a score")
    return v


def _grundy_values(path: Path, batch: Any, row0: int) -> NDArray[np.int64]:
    """Impartial: a Grundy value, an integer >= 0 (the graph is acyclic: none is infinite)."""
    v = int_column(path, batch, "value", row0, nulls=None)
    big = v > np.iinfo(np.int64).max if v.dtype == np.uint64 else v < 0
    if big.any():
        at = int(np.flatnonzero(big)[0])
        raise DatasetError(
            f"{path}: $.value[{row0 + at}]: {int(v[at])}: a Grundy value is an integer >= 0"
        )
    return v.astype(np.int64)


CHECKERS.register(Semantics.REACHABILITY)(
    Checker(("rules", "layers"),
            "the layers found the region on the targets and the rest is a trap for player 0",
            rules=_rules(Semantics.REACHABILITY, "label", _region,
                         lambda v, w: f"claims {_side(v)}, its rule gives {_side(w)}"),
            certificate=_reach_layers, value="label",
            table=TableValues("int8", int(NO_CLAIM), _winners, (NO_MOVES,)),
            say=lambda v: f"winner {0 if v == 1 else 1}",
            unproved="a cycle of claims can justify itself",
            certified_by_remoteness=True)
)  # fmt: skip
CHECKERS.register(Semantics.MINIMAX)(
    Checker(("rules", "ranks"),
            "each non-zero score rests on claims of smaller rank and the (T+MM) equations make "
            "the rest traps",
            rules=_rules(Semantics.MINIMAX, "score", lambda v: (v, ~np.isnan(v)),
                         lambda v, w: f"score {v:g}, its rule gives {w:g}"),
            certificate=_minimax_ranks, value="score",
            table=TableValues("float64", float("nan"), _scores,
                              (("remoteness", "a minimax table's remoteness (plies) is not "
                                "judged on the sharded route: drop the column"), NO_MOVES)),
            say=lambda v: f"score {float(v):g}",
            unproved="on cycles the (T+MM) equations have other solutions than Kars' scores")
)  # fmt: skip
CHECKERS.register(Semantics.IMPARTIAL)(
    Checker(("heights", "rules"),
            "the heights prove the graph acyclic, where the mex rule has one solution",
            rules=_rules(Semantics.IMPARTIAL, "grundy", lambda v: (v, v >= 0),
                         lambda v, w: f"Grundy value {v:g}, the mex of its successors' is "
                                      f"{w:g}"),
            certificate=_impartial_heights, value="grundy",
            table=TableValues("int64", -1, _grundy_values,
                              (("remoteness", "an impartial value has no remoteness: drop "
                                "the column"), NO_MOVES)),
            say=lambda v: f"Grundy value {int(v)}",
            unproved="the mex rule has one solution only on an acyclic graph, which nothing "
                     "proves")
)  # fmt: skip
