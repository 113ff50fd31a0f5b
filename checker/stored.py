"""The standalone checker's judgement of a stored graph (``"game": "graph"``: the moves are in
the dataset) and its certificate (docs/certificates.md, "Datasets"), in each semantics.

The files are read with ``dataset.py``'s strict reader (each digest compared with the
certificate's first). The graph is judged well formed (``ids``: each shard's node ids exactly
its range, the shards of a tier one after the other from 0; ``edges``: a shard's moves from
its own nodes, strictly increasing, so none twice; ``targets``: every move's target a node),
then the conditions of its semantics on the stored answers (``stored_rules.py``), node by
node, and the counts. Shard by shard (``--jobs N``: in N processes, ``workers.py``): a shard's
own files, and of every other shard only the answers its moves reach, read through a cache of
answer files (``dataset.Cache``, ``CACHE_BYTES``); the first violation in the dataset's order
(tiers, shards, then conditions in their order, nodes by id). Numpy and pyarrow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

try:  # imported as the package ``checker``, or run as a script from its folder
    from checker import dataset, stages, workers
    from checker.dataset import WEAK, Bad, Found, Verdict, _field, _only
    from checker.reading import Unreadable, loads
    from checker.stored_rules import NEEDS, conditions, counted
except ImportError:  # pragma: no cover - the script's way
    import dataset  # type: ignore[import-not-found,no-redef]
    import stages  # type: ignore[import-not-found,no-redef]
    import workers  # type: ignore[import-not-found,no-redef]
    from dataset import WEAK, Bad, Found, Verdict, _field, _only  # type: ignore[no-redef]
    from reading import Unreadable, loads  # type: ignore[import-not-found,no-redef]
    from stored_rules import NEEDS, conditions, counted  # type: ignore[import-not-found,no-redef]

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


class Spec(NamedTuple):
    root: str
    semantics: str
    start: int
    shards: tuple[tuple[dict[str, Any], ...], ...]  # per tier, per shard: its fields
    counts: tuple[tuple[int, ...], ...]
    game: str = "graph"
    parameters: Any = None  # the certificate's, as read (a game judged here checks its own)


class Hooks(NamedTuple):
    """What a game stored with its moves adds (``chess.py``): ``extra(spec, jobs)`` its own
    conditions (in ``jobs`` processes), judged once every shard is well formed, before the
    semantics'; ``name(tier, node)`` a node's name in violations (``None``: ``node N``);
    ``accepted(spec)`` the ACCEPTED line."""

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


class Judged(NamedTuple):
    """One shard's job: per condition (``conditions``' order) its first violation ``(node,
    why)`` or ``None``; its counts; the most shards and bytes it held at once and its own
    files' bytes; an error met reading another shard's answers (reported in that shard's turn,
    whose own job meets it: ``judge``)."""

    tier: int
    shard: int
    first: tuple[tuple[str, Any], ...]
    counts: tuple[int, ...]
    held: tuple[int, int, int]
    blocked: Exception | None


PEAK = {"shards": 0, "bytes": 0, "graph": 0}
"""The last judgement's most shards and bytes of arrays held at once by one job (its own files'
arrays, the answers kept and gathered), and the bytes of every shard's own arrays (the graph)."""
_ANSWERS = dataset.Cache()
_SPEC: list[Spec] = []


def _answers(spec: Spec, k: int, j: int) -> tuple[Any, ...]:
    cols = ANSWERS[spec.semantics]
    return _ANSWERS.get((k, j), lambda: tuple(_read(spec, k, j, "answers", cols)))


def _bounds(spec: Spec, k: int) -> Any:
    return np.cumsum([0, *(s["positions"] for s in spec.shards[k])]).astype(np.int64)


def shard_judged(spec: Spec, k: int, j: int) -> Judged:
    """Shard ``j`` of tier ``k`` alone: well formed (its own files; ``Found`` raised), then each
    condition at its nodes from its moves' targets' answers (``_targets``), and its counts."""
    sizes = [sum(s["positions"] for s in t) for t in spec.shards]
    s, lo = spec.shards[k][j], int(_bounds(spec, k)[j])
    hi = lo + s["positions"]
    ncols = {"code": "uint64", "terminal": "int8"} | NODES[spec.semantics]
    got = _read(spec, k, j, "nodes", ncols)
    ans = _answers(spec, k, j)
    ids = got[0].astype(np.int64)
    x = _first(ids != np.arange(lo, lo + len(ids))) if "ids" not in WEAK else None
    if x is not None or (len(ids) != s["positions"] and "ids" not in WEAK):
        code = int(ids[x]) if x is not None else -1
        raise Found(k, j, code, "ids", f"the shard's node ids are not {lo}..{hi - 1}")
    if len(ans[0]) != len(ids):
        raise Found(k, j, -1, "counts", f"{len(ans[0])} answers for {len(ids)} nodes")
    e_src, e_dst = (v.astype(np.int64) for v in _read(spec, k, j, "edges", EDGE))
    moves: list[tuple[Any, ...]] = [
        (e_src, np.full(len(e_src), k), e_dst, s["edges"]["rows"], "edges")
    ]
    if "exits" in s:
        x_src, x_tier, x_dst = (v.astype(np.int64) for v in _read(spec, k, j, "exits", EXIT))
        moves.append((x_src, x_tier, x_dst, s["exits"]["rows"], "exits"))
    for a_src, a_to, a_dst, rows, what in moves:
        _moves(spec, k, j, (lo, hi), a_src, a_to, a_dst, rows, what, sizes)
    nd, a = dict(zip(ncols, got, strict=True)), dict(zip(ANSWERS[spec.semantics], ans, strict=True))
    src, to, dst = (np.concatenate([m[i] for m in moves]) if moves[1:] else moves[0][i]
                    for i in range(3))  # fmt: skip
    own = sum(v.nbytes for v in (*got, *ans, *(v for m in moves for v in m[:3])))
    try:
        t, idx, held = _targets(spec, (k, j, lo), a, to, dst, own)
    except (Found, Bad, Unreadable, IndexError) as e:
        return Judged(k, j, (), (0, 0, 0, -1), (0, 0, own), e)
    first: list[tuple[str, Any]] = []
    for cond, bad, want in conditions(spec.semantics, nd, a, t, src - lo, idx):
        x = _first(bad) if cond not in WEAK else None
        if x is not None:
            said = ", ".join(f"{c} {a[c][x]}" for c in a)
            ws = want if isinstance(want, tuple) else (want,)
            got_ = tuple(np.asarray(w)[x].tolist() for w in ws)  # plain numbers, not np.int64(..)
            shown = got_ if isinstance(want, tuple) else got_[0]
            why = f"the dataset says {said}; its successors give {shown} ({NEEDS.get(cond, '')})"
        first.append((cond, None if x is None else (lo + x, why)))
    return Judged(k, j, tuple(first), counted(spec.semantics, a), (*held, own), None)


def _targets(spec: Spec, me: tuple[int, int, int], a: dict[str, Any], to: Any, dst: Any,
             own: int) -> tuple[dict[str, Any], Any, tuple[int, int]]:  # fmt: skip
    """``(t, idx, held)``: move ``i``'s target answered ``t[c][idx[i]]``: the shard's own
    answers ``a``, then the rows its moves reach of each other shard's (read through the
    cache); ``held``: the most shards and bytes of arrays held at once."""
    k, j, lo = me
    shard = np.zeros(len(dst), np.int64)
    for tier in np.unique(to).tolist():
        shard[to == tier] = np.searchsorted(_bounds(spec, tier), dst[to == tier], "right") - 1
    wide = max(len(t) for t in spec.shards) + 1
    idx, parts, most = np.empty(len(dst), np.int64), [a], (1, own)
    base = len(next(iter(a.values())))
    keys = to * wide + shard
    counts = np.bincount(keys, minlength=1)  # a counting sort (radix: keys under 2^16)
    order = np.argsort(keys.astype(np.uint16) if len(counts) <= 1 << 16 else keys, kind="stable")
    ends = np.cumsum(counts)
    for key in np.flatnonzero(counts).tolist():
        tier, s = divmod(key, wide)
        sel = order[ends[key] - counts[key] : ends[key]]
        if (tier, s) == (k, j):
            idx[sel] = dst[sel] - lo
            continue
        cols = _answers(spec, tier, s)
        rows, mark = dst[sel] - _bounds(spec, tier)[s], np.zeros(len(cols[0]), bool)
        mark[rows] = True  # the rows reached, kept in order
        parts.append(dict(zip(a, (c[mark] for c in cols), strict=True)))
        idx[sel], base = base + np.cumsum(mark)[rows] - 1, base + int(mark.sum())
        kept = {kj: v for kj, v in _ANSWERS.kept.items() if kj != (k, j)} | {(tier, s): cols}
        held = [*kept.values(), *(tuple(p.values()) for p in parts[1:])]
        size = own + sum(v.nbytes for p in held for v in p)
        most = (max(most[0], len(kept) + 1), max(most[1], size))
    return {c: np.concatenate([p[c] for p in parts]) for c in a}, idx, most


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


def _setup(spec: Spec, weak: set[str]) -> None:
    WEAK.update(weak)
    _SPEC[:] = [spec]
    _ANSWERS.kept.clear()


def _job(kj: tuple[int, int]) -> Judged:
    return shard_judged(_SPEC[0], *kj)


def judge(spec: Spec, jobs: int = 1, hooks: Hooks | None = None) -> None:
    """Every condition (``Found`` at the first violation, in the dataset's order with any
    ``jobs``): well formed, the semantics', the counts (recomputed, the certificate's), the
    manifest's agreement; ``jobs`` worker processes judge the shards, a shard at a time; a
    game's own conditions (``hooks``) once the graph is well formed, before the semantics'."""
    first: dict[str, tuple[int, int, str]] = {}
    order: list[str] = []
    tiers = [(0, 0, 0, -1)] * len(spec.shards)
    blocked, done = None, 0
    PEAK.update(shards=0, bytes=0, graph=0)
    todo = [(k, j) for k, t in enumerate(spec.shards) for j in range(len(t))]
    with workers.workers(jobs, _setup, (spec, set(WEAK))) as run:
        for r in run(_job, todo):  # a shard's files not well formed: raised in its turn
            most = (max(PEAK["shards"], r.held[0]), max(PEAK["bytes"], r.held[1]))
            PEAK.update(shards=most[0], bytes=most[1], graph=PEAK["graph"] + r.held[2])
            blocked = blocked or r.blocked
            for cond, hit in r.first:
                order += [cond] if cond not in order else []
                if hit is not None:  # the least (tier, node), whatever the order of arrival
                    first[cond] = min(first.get(cond, (r.tier, *hit)), (r.tier, *hit))
            c, d = tiers[r.tier], r.counts
            tiers[r.tier] = (c[0] + d[0], c[1] + d[1], c[2] + d[2], max(c[3], d[3]))
            done += spec.shards[r.tier][r.shard]["positions"]
            if r.shard == len(spec.shards[r.tier]) - 1:
                stages.tier(r.tier, len(spec.shards), r.shard + 1, done)
    if blocked is not None:
        raise blocked
    if hooks is not None:
        hooks.extra(spec, jobs)
    for cond in order:
        if cond in first and cond not in WEAK:
            k, x, why = first[cond]
            raise Found(k, -1, x, cond, why)
    for k in range(len(spec.shards)):
        mine = (int(_bounds(spec, k)[-1]), *tiers[k])
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


def check(root: str, cert: str, jobs: int = 1, hooks: Hooks | None = None) -> Verdict:
    """The standalone checker's verdict on the stored graph in ``root`` and its certificate
    (``jobs`` worker processes judging the shards; a game's own conditions and names:
    ``hooks``)."""
    try:
        spec = read_certificate(root, cert)
        judge(spec, jobs, hooks)
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
    finally:
        _ANSWERS.kept.clear()
    if hooks is not None:
        return Verdict("ACCEPTED", hooks.accepted(spec))
    n = sum(c[0] for c in spec.counts)
    return Verdict("ACCEPTED", f"ACCEPTED ({n:,} nodes of a stored graph, {spec.semantics})")
