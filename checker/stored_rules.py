"""The conditions of each semantics at a stored graph's nodes (docs/certificates.md, "The
conditions, per semantics"), on arrays: a shard's nodes, their answers, their moves and the
answers of the moves' targets (``stored.py`` reads them); a tier's counts. Numpy only; part of
the standalone checker."""

from __future__ import annotations

from typing import Any

import numpy as np

NEEDS = {
    "N1": "a dead end: its terminal label, remoteness 0 (-1 when drawn)",
    "N2": "won: some successor lost, remoteness 1 + the least of the lost ones'",
    "N3": "lost: every successor won, remoteness 1 + the greatest of theirs",
    "N4": "drawn: no successor lost, some not won; remoteness -1",
    "region": "a target in player 0's region, a dead end off it not, a player-0 node iff "
    "some successor is, another iff all are",
    "layers": "a target's layer 0, a player-0 node's 1 + the least of its successors' in the "
    "region, another's 1 + the greatest; -1 outside",
    "scores": "a leaf scores its value, a Max node the greatest of its successors', a Min "
    "node the least",
    "ranks": "a rank iff the score is not 0; the side ahead: a successor of the same score "
    "and a smaller rank; the side behind: every successor's rank smaller (>= 0)",
    "mex": "the mex of its successors' values",
    "heights": "a dead end's height 0, another's 1 + the greatest of its successors'",
}


def _at(x: Any, v: Any, mask: Any, n: int, empty: float, ufunc: Any) -> Any:
    out = np.full(n, empty, np.float64)
    ufunc.at(out, x[mask], v[mask].astype(np.float64))
    return out


def conditions(sem: str, nd: dict[str, Any], a: dict[str, Any], t: dict[str, Any], src: Any,
               dst: Any) -> Any:  # fmt: skip
    """``[(condition, bad, want)]``: each node (of ``nd``, answered ``a``) where the stored
    answers break a condition of ``sem`` (docs/certificates.md, "The conditions, per
    semantics"), and what it gives there; the moves ``src`` -> ``dst``, answered ``t[dst]``."""
    n = len(nd["code"])
    deg = np.bincount(src, minlength=n)
    dead, every = deg == 0, np.ones(len(src), bool)
    if sem in ("normal", "reachability"):
        label, rem = a["label"].astype(np.int64), a["remoteness"].astype(np.int64)
        ys, yr = t["label"][dst].astype(np.int64), t["remoteness"][dst].astype(np.int64)
    if sem == "normal":
        term = nd["terminal"].astype(np.int64)
        lost = np.bincount(src[ys == -1], minlength=n) > 0
        won = np.bincount(src[ys == 1], minlength=n) == deg
        least = _at(src, yr, ys == -1, n, np.inf, np.minimum)
        most = _at(src, yr, every, n, -np.inf, np.maximum)
        want = np.select([dead, lost, won], [term, 1, -1], 0)
        want_r = np.select([dead & (term != 0), dead, lost, won], [0, -1, least + 1, most + 1], -1)
        bad = (label != want) | (rem != want_r)
        cond = np.where(dead, 0, np.select([label == 1, label == -1], [1, 2], 3))
        return [(f"N{c + 1}", bad & (cond == c), (want, want_r)) for c in range(4)]
    if sem == "reachability":
        target, p0 = nd["target"] != 0, nd["player"] == 0
        ins = np.bincount(src[ys == 1], minlength=n)
        region = np.where(target, True, np.where(dead, False, np.where(p0, ins > 0, ins == deg)))
        low = _at(src, yr, ys == 1, n, np.inf, np.minimum)
        high = _at(src, yr, every, n, -np.inf, np.maximum)
        layer = np.where(region, np.where(target, 0, np.where(p0, low + 1, high + 1)), -1)
        return [("region", label != np.where(region, 1, -1), np.where(region, 1, -1)),
                ("layers", rem != layer, layer)]  # fmt: skip
    if sem == "minimax":
        score, rank = a["score"], a["rank"].astype(np.int64)
        mx = nd["player"] == 0
        ys, yr = t["score"][dst], t["rank"][dst].astype(np.int64)
        top = _at(src, ys, every, n, -np.inf, np.maximum)
        low = _at(src, ys, every, n, np.inf, np.minimum)
        want = np.where(dead, nd["value"], np.where(mx, top, low))
        xs, xr = score[src], rank[src]
        ahead = ~dead & np.where(score > 0, mx, ~mx) & (score != 0)
        behind = ~dead & ~ahead & (score != 0)
        witness = np.bincount(src[(ys == xs) & (yr >= 0) & (yr < xr)], minlength=n)
        earlier = np.bincount(src[(yr >= 0) & (yr < xr)], minlength=n)
        ranks = (
            ((score != 0) != (rank >= 0)) | (ahead & (witness == 0)) | (behind & (earlier < deg))
        )
        return [("scores", ~(score == want), want), ("ranks", ranks, rank)]
    g, h = a["grundy"].astype(np.int64), a["remoteness"].astype(np.int64)
    height = np.where(dead, 0, _at(src, t["remoteness"][dst], every, n, -1, np.maximum) + 1)
    v = t["grundy"][dst].astype(np.int64)
    keep = (v >= 0) & (v < deg[src])
    pair = np.unique(src[keep] * (int(deg.max(initial=0)) + 1) + v[keep])
    ps, pv = pair // (int(deg.max(initial=0)) + 1), pair % (int(deg.max(initial=0)) + 1)
    first = np.searchsorted(ps, ps)
    mex = np.bincount(ps[pv == np.arange(len(ps)) - first], minlength=n)
    return [("heights", (h != height) | (h < 0), height), ("mex", g != mex, mex)]


def counted(sem: str, a: dict[str, Any]) -> tuple[int, ...]:
    """A tier's counts as the manifest keeps them for ``sem`` (``won``, ``lost``, ``drawn``,
    ``longest``: ``round_rules``' names for them)."""
    rem: Any = a.get("remoteness")
    if sem == "minimax":
        s = a["score"]
        return int((s > 0).sum()), int((s < 0).sum()), int((s == 0).sum()), -1
    v = a["grundy"] if sem == "impartial" else a["label"]
    won, lost, drawn = ((v > 0), (v == 0), (v < 0)) if sem == "impartial" else (
        (v == 1), (v == -1), (v == 0) if sem == "normal" else np.zeros(0, bool))  # fmt: skip
    longest = rem[v != 0] if sem == "normal" else rem
    return (*(int(x.sum()) for x in (won, lost, drawn)), int(longest.max(initial=-1)))
