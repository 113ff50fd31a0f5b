"""The standalone checker's judgement of a stored graph (``"game": "graph"``: the moves are in
the dataset) and its certificate (docs/certificates.md, "Datasets"), in each semantics.

The files are read with ``dataset.py``'s strict reader (each digest compared with the
certificate's first). The graph is judged well formed (``ids``: each shard's node ids exactly
its range, the shards of a tier one after the other from 0; ``edges``: a shard's moves from
its own nodes, strictly increasing, so none twice; ``targets``: every move's target a node),
then the conditions of its semantics on the stored answers, node by node, and the counts.
The whole graph is held in memory (a node's arrays and its moves'). Numpy and pyarrow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

try:  # imported as the package ``checker``, or run as a script from its folder
    from checker import dataset
    from checker.dataset import WEAK, Bad, Found, Verdict, _field, _only
    from checker.reading import Unreadable, loads
except ImportError:  # pragma: no cover - the script's way
    import dataset  # type: ignore[import-not-found,no-redef]
    from dataset import WEAK, Bad, Found, Verdict, _field, _only  # type: ignore[no-redef]
    from reading import Unreadable, loads  # type: ignore[import-not-found,no-redef]

GAMES = ("graph",)
"""The games stored with their moves, judged here (``judge.py``: those it generates)."""
NODES = {
    "normal": {},
    "reachability": {"player": "int8", "target": "int8"},
    "minimax": {"player": "int8", "value": "float64"},
    "impartial": {},
}
ANSWERS = {
    "normal": {"label": "int8", "remoteness": "int32"},
    "reachability": {"label": "int8", "remoteness": "int32"},
    "minimax": {"score": "float64", "rank": "int32"},
    "impartial": {"grundy": "int64", "remoteness": "int32"},
}
FILES = {"nodes": "tier={k}/shard={j}.parquet", "edges": "edges/tier={k}/shard={j}.parquet",
         "exits": "exits/tier={k}/shard={j}.parquet",
         "answers": "answers/tier={k}/shard={j}.parquet"}  # fmt: skip
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


class Spec(NamedTuple):
    root: str
    semantics: str
    start: int
    shards: tuple[tuple[dict[str, Any], ...], ...]  # per tier, per shard: its fields
    counts: tuple[tuple[int, ...], ...]
    game: str = "graph"
    parameters: Any = None  # the certificate's, as read (a game judged here checks its own)


class Hooks(NamedTuple):
    """What a game stored with its moves adds (``chess.py``): ``extra(spec, offsets, node
    columns, src, dst)`` its own conditions, judged once the graph is read and well formed;
    ``name(tier, node)`` a node's name in violations (``None``: ``node N``); ``accepted(spec)``
    the ACCEPTED line."""

    extra: Callable[..., None]
    name: Callable[[int, int], str | None]
    accepted: Callable[[Spec], str]


def is_stored(path: str, games: tuple[str, ...] = GAMES) -> bool:
    """Whether the certificate in ``path`` is a stored graph's of one of ``games`` (read
    loosely: the strict reading follows)."""
    try:
        with open(path, "rb") as f:
            return isinstance(d := loads(f.read()), dict) and d.get("game") in games
    except (OSError, ValueError):
        return False


def _file(s: dict[str, Any], name: str, k: int, j: int, at: str) -> dict[str, Any]:
    f: dict[str, Any] = _field(s, name, dict, at)
    _only(f, ("path", "sha256", "rows"), f"{at}.{name}")
    if _field(f, "path", str, f"{at}.{name}") != FILES[name].format(k=k, j=j):
        raise Bad(f"{at}.{name}.path: {f['path']!r}, not {FILES[name].format(k=k, j=j)!r}")
    _field(f, "sha256", str, f"{at}.{name}")
    if name in ("edges", "exits"):
        _field(f, "rows", int, f"{at}.{name}")
    return f


def read_certificate(root: str, path: str) -> Spec:
    """The certificate's fields, each of its type and place (``Bad`` naming the JSON path)."""
    try:
        with open(path, "rb") as f:
            d = loads(f.read())
    except (OSError, ValueError) as e:
        raise Bad(f"$: cannot read it as JSON: {e}") from None
    keys = ("format", "version", "game", "parameters", "semantics", "root", "tiers")
    _only(d if isinstance(d, dict) else {}, keys, "$")
    if _field(d, "format", str, "$") != dataset.FORMAT or _field(d, "version", int, "$") != 1:
        raise Bad(f"$.format: not {dataset.FORMAT!r} version 1")
    sem = _field(d, "semantics", str, "$")
    if sem not in ANSWERS:
        raise Bad(f"$.semantics: {sem!r}: not one of {sorted(ANSWERS)}")
    params = _field(d, "parameters", dict, "$")
    _only(_field(d, "root", dict, "$"), ("code",), "$.root")
    start = _field(d["root"], "code", int, "$.root")
    shards, counts = [], []
    for k, t in enumerate(_field(d, "tiers", list, "$")):
        at = f"$.tiers[{k}]"
        _only(t, ("tier", *dataset.COUNTS, "shards"), at)
        if _field(t, "tier", int, at) != k:
            raise Bad(f"{at}.tier: {t['tier']}, not {k} (tiers in order from 0)")
        counts.append(tuple(_field(t, c, int, at) for c in dataset.COUNTS))
        row = []
        for j, s in enumerate(_field(t, "shards", list, at)):
            where = f"{at}.shards[{j}]"
            _only(s, ("shard", "positions", *FILES), where)
            if _field(s, "shard", int, where) != j:
                raise Bad(f"{where}.shard: {s['shard']}, not {j} (shards in order from 0)")
            _field(s, "positions", int, where)
            files = [n for n in FILES if n != "exits" or "exits" in s]
            row.append({"positions": s["positions"]} | {n: _file(s, n, k, j, where) for n in files})
        shards.append(tuple(row))
    game = _field(d, "game", str, "$")
    return Spec(root, sem, start, tuple(shards), tuple(counts), game, params)


def _read(spec: Spec, k: int, j: int, name: str, cols: dict[str, str]) -> list[Any]:
    f = spec.shards[k][j][name]
    return list(dataset._parquet(spec, k, j, f["path"], f["sha256"], cols))  # type: ignore[arg-type]


def _first(bad: Any) -> int | None:
    at = np.flatnonzero(bad)
    return int(at[0]) if at.size else None


def _increasing(*keys: Any) -> Any:
    """Rows not strictly above the row before in the order of ``keys`` (the first key first)."""
    if len(keys[0]) < 2:
        return np.zeros(0, bool)
    less, same = np.zeros(len(keys[0]) - 1, bool), np.ones(len(keys[0]) - 1, bool)
    for c in keys:
        less |= same & (c[1:] < c[:-1])
        same &= c[1:] == c[:-1]
    return less | same


def loaded(spec: Spec) -> tuple[Any, dict[str, Any], dict[str, Any], Any, Any]:
    """The graph, well formed: ``(offsets, node columns, answers, src, dst)`` over global
    indices (a tier's node ``i`` is ``offsets[tier] + i``)."""
    sizes = [sum(s["positions"] for s in t) for t in spec.shards]
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    ncols = {"code": "uint64", "terminal": "int8"} | NODES[spec.semantics]
    nodes: dict[str, list[Any]] = {c: [] for c in ncols}
    answers: dict[str, list[Any]] = {c: [] for c in ANSWERS[spec.semantics]}
    src: list[Any] = []
    dst: list[Any] = []
    for k, tier in enumerate(spec.shards):
        lo = 0
        for j, s in enumerate(tier):
            hi = lo + s["positions"]
            got = _read(spec, k, j, "nodes", ncols)
            ans = _read(spec, k, j, "answers", ANSWERS[spec.semantics])
            ids = got[0].astype(np.int64)
            x = _first(ids != np.arange(lo, lo + len(ids))) if "ids" not in WEAK else None
            if x is not None or (len(ids) != s["positions"] and "ids" not in WEAK):
                code = int(ids[x]) if x is not None else -1
                raise Found(k, j, code, "ids", f"the shard's node ids are not {lo}..{hi - 1}")
            if len(ans[0]) != len(ids):
                raise Found(k, j, -1, "counts", f"{len(ans[0])} answers for {len(ids)} nodes")
            for c, v in zip(nodes, got, strict=True):
                nodes[c].append(v)
            for c, v in zip(answers, ans, strict=True):
                answers[c].append(v)
            e_src, e_dst = (a.astype(np.int64) for a in _read(spec, k, j, "edges", EDGE))
            moves = [(e_src, np.full(len(e_src), k), e_dst, s["edges"]["rows"], "edges")]
            if "exits" in s:
                x_src, x_tier, x_dst = _read(spec, k, j, "exits", EXIT)
                x_src, x_dst = x_src.astype(np.int64), x_dst.astype(np.int64)
                moves.append((x_src, x_tier.astype(np.int64), x_dst, s["exits"]["rows"], "exits"))
            for a, t, b, rows, what in moves:
                _moves(spec, k, j, (lo, hi), a, t, b, rows, what, sizes)
                src.append(off[k] + a)
                dst.append(off[t] + b)
            lo = hi
    cat = {c: np.concatenate(v) if v else np.zeros(0) for c, v in nodes.items()}
    out = {c: np.concatenate(v) for c, v in answers.items()}
    s_all, d_all = (np.concatenate(v) if v else np.zeros(0, np.int64) for v in (src, dst))
    return off, cat, out, s_all, d_all


EDGE = {"src": "uint64", "dst": "uint64"}
EXIT = {"src": "uint64", "tier": "int32", "dst": "uint64"}


def _moves(spec: Spec, k: int, j: int, own: tuple[int, int], src: Any, to: Any, dst: Any,
           rows: int, what: str, sizes: list[int]) -> None:  # fmt: skip
    """A shard's moves: as many as the certificate says, from its own nodes, strictly
    increasing (no move twice), each to a node of its tier (exits: of a later tier)."""
    if len(src) != rows and "counts" not in WEAK:
        raise Found(k, j, -1, "counts", f"{len(src)} {what}, the certificate says {rows}")
    x = _first((src < own[0]) | (src >= own[1])) if "edges" not in WEAK else None
    if x is not None:
        raise Found(k, j, int(src[x]), "edges", f"a move of node {src[x]} in shard {j}'s {what}")
    x = _first(_increasing(src, to, dst)) if "edges" not in WEAK else None
    if x is not None:
        why = f"its move to {dst[x + 1]} not above the one before in {what}: no move twice"
        raise Found(k, j, int(src[x + 1]), "edges", why)
    limit = np.asarray([*sizes, 0], np.int64)[np.clip(to, 0, len(sizes))]
    later = (to > k) if what == "exits" else (to == k)
    x = _first(~later | (dst < 0) | (dst >= limit)) if "targets" not in WEAK else None
    if x is not None:
        why = f"its move to node {dst[x]} of tier {to[x]}: no such node"
        raise Found(k, j, int(src[x]), "targets", why + ("" if what == "edges" else " later"))


def _at(x: Any, v: Any, mask: Any, n: int, empty: float, ufunc: Any) -> Any:
    out = np.full(n, empty, np.float64)
    ufunc.at(out, x[mask], v[mask].astype(np.float64))
    return out


def conditions(sem: str, nd: dict[str, Any], a: dict[str, Any], src: Any, dst: Any) -> Any:
    """``[(condition, bad, want)]``: each node where the stored answers break a condition of
    ``sem`` (docs/certificates.md, "The conditions, per semantics"), and what it gives there."""
    n = len(nd["code"])
    deg = np.bincount(src, minlength=n)
    dead, every = deg == 0, np.ones(len(src), bool)
    if sem in ("normal", "reachability"):
        label, rem = a["label"].astype(np.int64), a["remoteness"].astype(np.int64)
        ys, yr = label[dst], rem[dst]
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
        top = _at(src, score[dst], every, n, -np.inf, np.maximum)
        low = _at(src, score[dst], every, n, np.inf, np.minimum)
        want = np.where(dead, nd["value"], np.where(mx, top, low))
        ys, yr, xs, xr = score[dst], rank[dst], score[src], rank[src]
        ahead = ~dead & np.where(score > 0, mx, ~mx) & (score != 0)
        behind = ~dead & ~ahead & (score != 0)
        witness = np.bincount(src[(ys == xs) & (yr >= 0) & (yr < xr)], minlength=n)
        earlier = np.bincount(src[(yr >= 0) & (yr < xr)], minlength=n)
        ranks = (
            ((score != 0) != (rank >= 0)) | (ahead & (witness == 0)) | (behind & (earlier < deg))
        )
        return [("scores", ~(score == want), want), ("ranks", ranks, rank)]
    g, h = a["grundy"].astype(np.int64), a["remoteness"].astype(np.int64)
    height = np.where(dead, 0, _at(src, h[dst], every, n, -1, np.maximum) + 1)
    v = g[dst]
    keep = (v >= 0) & (v < deg[src])
    pair = np.unique(src[keep] * (int(deg.max(initial=0)) + 1) + v[keep])
    ps, pv = pair // (int(deg.max(initial=0)) + 1), pair % (int(deg.max(initial=0)) + 1)
    first = np.searchsorted(ps, ps)
    mex = np.bincount(ps[pv == np.arange(len(ps)) - first], minlength=n)
    return [("heights", (h != height) | (h < 0), height), ("mex", g != mex, mex)]


def counted(sem: str, a: dict[str, Any]) -> tuple[int, ...]:
    """A tier's counts as the manifest keeps them for ``sem`` (``won``, ``lost``, ``drawn``,
    ``longest``: ``graph_rules``' names for them)."""
    rem: Any = a.get("remoteness")
    if sem == "minimax":
        s = a["score"]
        return int((s > 0).sum()), int((s < 0).sum()), int((s == 0).sum()), -1
    v = a["grundy"] if sem == "impartial" else a["label"]
    won, lost, drawn = ((v > 0), (v == 0), (v < 0)) if sem == "impartial" else (
        (v == 1), (v == -1), (v == 0) if sem == "normal" else np.zeros(0, bool))  # fmt: skip
    longest = rem[v != 0] if sem == "normal" else rem
    return (*(int(x.sum()) for x in (won, lost, drawn)), int(longest.max(initial=-1)))


def judge(spec: Spec, hooks: Hooks | None = None) -> None:
    """Every condition (``Found`` at the first violation): well formed, the game's own
    (``hooks``), the semantics', the counts (recomputed, the certificate's), the manifest's
    agreement."""
    off, nd, a, src, dst = loaded(spec)
    if hooks is not None:
        hooks.extra(spec, off, nd, src, dst)
    for cond, bad, want in conditions(spec.semantics, nd, a, src, dst):
        x = _first(bad) if cond not in WEAK else None
        if x is not None:
            k = int(np.searchsorted(off, x, side="right") - 1)
            said = ", ".join(f"{c} {a[c][x]}" for c in a)
            shown = tuple(w[x] for w in want) if isinstance(want, tuple) else want[x]
            why = f"the dataset says {said}; its successors give {shown} ({NEEDS.get(cond, '')})"
            raise Found(k, -1, int(x - off[k]), cond, why)
    for k in range(len(spec.shards)):
        part = {c: v[off[k] : off[k + 1]] for c, v in a.items()}
        mine = (int(off[k + 1] - off[k]), *counted(spec.semantics, part))
        for what, got, claimed in zip(dataset.COUNTS, mine, spec.counts[k], strict=True):
            if got != claimed and "counts" not in WEAK:
                raise Found(
                    k, -1, -1, "counts", f"{what}: the certificate says {claimed}, recounted {got}"
                )
    agree(spec)


def agree(spec: Spec) -> None:
    """The certificate says what ``manifest.json`` says: semantics, start, counts, digests."""
    path = f"{spec.root}/manifest.json"
    if "manifest" in WEAK:
        return
    try:
        with open(path, "rb") as f:
            m = loads(f.read())
        said = (m["game"], m["semantics"], m["root"]["code"], len(m["tiers"]))
        want = (spec.game, spec.semantics, spec.start, len(spec.shards))
        if said != want:
            raise Found(
                -1,
                -1,
                -1,
                "manifest",
                f"(game, semantics, root, tiers) {said}, the certificate's {want}",
            )
        for k, t in enumerate(m["tiers"]):
            counted = (t["positions"], t["won"], t["lost"], t["drawn"], t["max_remoteness"])
            sha = [(s["positions"], s["sha256"], s["answers_sha256"], s.get("edges_sha256"),
                    s.get("exits_sha256")) for s in t["shards"]]  # fmt: skip
            mine = [(s["positions"], s["nodes"]["sha256"], s["answers"]["sha256"],
                     s["edges"]["sha256"], s.get("exits", {}).get("sha256"))
                    for s in spec.shards[k]]  # fmt: skip
            if counted != spec.counts[k] or sha != mine:
                why = f"counts {counted} or its shards' sizes and digests differ from the "
                why += "certificate's"
                raise Found(k, -1, -1, "manifest", why)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise Bad(f"{path}: cannot read the manifest: {type(e).__name__}: {e}") from None


def check(root: str, cert: str, hooks: Hooks | None = None) -> Verdict:
    """The standalone checker's verdict on the stored graph in ``root`` and its certificate
    (a game's own conditions and names: ``hooks``)."""
    try:
        spec = read_certificate(root, cert)
        judge(spec, hooks)
    except Found as f:
        k, j, code, cond, why = f.args
        where = f"tier {k}" + (f" shard {j}" if j >= 0 else "")
        node = f"node {code}" if code >= 0 else None
        if node is not None and hooks is not None:
            node = hooks.name(k, code) or node
        message = f"{where}: {node}: {cond}: {why}" if node else f"{where}: {cond}: {why}"
        return Verdict("REJECTED", message, node, cond, k, code)
    except (Bad, Unreadable) as e:
        return Verdict("BAD", f"{cert}: {e}" if not str(e).startswith(root) else str(e))
    except Exception as e:  # anything else unreadable: in Python's words, never a traceback
        return Verdict("BAD", f"{root}: cannot read: {type(e).__name__}: {e}")
    if hooks is not None:
        return Verdict("ACCEPTED", hooks.accepted(spec))
    n = sum(c[0] for c in spec.counts)
    return Verdict("ACCEPTED", f"ACCEPTED ({n:,} nodes of a stored graph, {spec.semantics})")
