"""The conditions a dataset's certificate must meet (docs/certificates.md, "Datasets"), judged
shard by shard, tiers from the last down; the reading is ``dataset.py``'s, the moves
``connect4.py``'s. Part of the standalone checker: numpy (and pyarrow to read)."""

from __future__ import annotations

import argparse
import itertools
import sys
from typing import Any, NamedTuple

import numpy as np

try:  # imported as the package ``checker``, or run as a script from its folder
    from checker import chess, dataset, stages, stored, workers
    from checker.dataset import WEAK, WORDS, Bad, Found, Spec, Verdict, held_first, owner, shard
    from checker.reading import Unreadable
except ImportError:  # pragma: no cover - the script's way
    import chess  # type: ignore[no-redef]
    import dataset  # type: ignore[import-not-found,no-redef]
    import stages  # type: ignore[import-not-found,no-redef]
    import stored  # type: ignore[import-not-found,no-redef]
    import workers  # type: ignore[import-not-found,no-redef]
    from dataset import WEAK, WORDS, Bad, Found, Spec, Verdict, held_first, owner, shard  # type: ignore[no-redef]
    from reading import Unreadable  # type: ignore[import-not-found,no-redef]

NEEDS = {
    "N1": "a terminal: lost with remoteness 0 when the previous player has four in a row, "
    "else (a full board) drawn with remoteness -1",
    "N2": "some successor lost, and remoteness 1 + the least remoteness of the lost ones",
    "N3": "every successor won, and remoteness 1 + the greatest remoteness of them",
    "N4": "no successor lost, some successor drawn, and remoteness -1",
}


class Judged(NamedTuple):
    """What one shard's job found (no violation): its counts and the positions of tier K+1
    its moves reach (a packed bitmap per shard of tier K+1)."""

    tier: int
    shard: int
    counts: tuple[int, ...]
    reached: dict[int, Any]
    start: tuple[int, int, int] | None


def _first(bad: Any) -> int | None:
    at = np.flatnonzero(bad)
    return int(at[0]) if at.size else None


def local(spec: Spec, rules: Any, k: int, j: int, codes: Any) -> tuple[Any, Any]:
    """A shard's own conditions: codes strictly increasing (no duplicate), each in the shard
    the hash gives, a legal board of ``k`` stones, canonical under ``symmetric``; ``(cur,
    mask)`` of every position."""
    x = _first(codes[1:] <= codes[:-1]) if "sorted" not in WEAK else None
    if x is not None:
        why = f"not above the shard's previous code {codes[x]}: codes strictly increasing"
        raise Found(k, j, int(codes[x + 1]), "sorted", why + " (no position twice)")
    home = owner(codes, len(spec.shards[k]))
    x = _first(home != j) if "shard" not in WEAK else None
    if x is not None:
        why = f"belongs to shard {home[x]} of tier {k} (the dataset's hash), not {j}"
        raise Found(k, j, int(codes[x]), "shard", why)
    cur, mask, ok = rules.decode(codes)
    x = _first(~ok) if "board" not in WEAK else None
    if x is not None:
        raise Found(k, j, int(codes[x]), "board", f"not a {spec.width}x{spec.height} board")
    stones, mine = rules.stones(mask), rules.stones(cur)
    x = _first((stones != k) | (mine != k // 2)) if "board" not in WEAK else None
    if x is not None:
        why = f"{stones[x]} stones, {mine[x]} of the mover's: tier {k} holds boards of {k} "
        raise Found(k, j, int(codes[x]), "board", why + f"stones, {k // 2} of the mover's")
    if spec.symmetric and "mirror" not in WEAK:
        mirrored = rules.mirror(codes)
        x = _first(mirrored < codes)
        if x is not None:
            why = f"its mirror image (code {mirrored[x]}) is smaller: a symmetric dataset "
            raise Found(k, j, int(codes[x]), "mirror", why + "stores the smaller")
    return cur, mask


def successors(spec: Spec, rules: Any, k: int, j: int, codes: Any, cur: Any, mask: Any) -> Any:
    """Every move of every position ``live`` looked up in tier ``k + 1``: ``(parent, label,
    remoteness)`` per move and the positions reached there (no missing successor)."""
    child, parent = rules.children(cur, mask)
    if spec.symmetric:
        child = np.minimum(child, rules.mirror(child))
    nxt = spec.shards[k + 1] if k + 1 < len(spec.shards) else ()
    home = owner(child, len(nxt))
    label, rem = np.zeros(len(child), np.int8), np.zeros(len(child), np.int32)
    reached: dict[int, Any] = {}
    lacking = []  # (shard, move): the first shard's reported, whatever the order of reads
    by = np.argsort(home.astype(np.uint16 if len(nxt) <= 1 << 16 else np.int64), kind="stable")
    ends = np.searchsorted(home[by], np.arange(int(home.max(initial=0)) + 2))
    for t in held_first(k + 1, np.unique(home).tolist()):
        sel = by[ends[t] : ends[t + 1]]  # a shard's moves, by code: found 4-6x faster in order
        sel = sel[np.argsort(child[sel], kind="stable")]
        want = child[sel]
        empty = (np.zeros(0, np.uint64), np.zeros(0, np.int8), np.zeros(0, np.int32))
        there, t_label, t_rem = shard(spec, k + 1, t) if t < len(nxt) else empty
        at = np.minimum(np.searchsorted(there, want), max(len(there) - 1, 0))
        found = there[at] == want if len(there) else np.zeros(len(sel), bool)
        x = _first(~found) if "successor" not in WEAK else None
        if x is not None:
            lacking.append((t, int(sel[x])))
        at, sel = at[found], sel[found]
        bits = np.zeros(len(there), bool)
        bits[at] = True
        reached[t] = np.packbits(bits)
        label[sel], rem[sel] = t_label[at], t_rem[at]
    if lacking:
        c, x = int(child[min(lacking)[1]]), int(codes[parent[min(lacking)[1]]])
        why = f"its move to {rules.board(c)} (code {c}) finds no position in tier {k + 1}"
        raise Found(k, j, x, "successor", why + ": one is missing")
    return parent, label, rem, reached


def _runs(parent: Any) -> list[slice]:
    """``parent`` cut where it stops increasing: runs with no parent twice (about one a column)."""
    cuts = [0, *(np.flatnonzero(parent[1:] <= parent[:-1]) + 1).tolist(), len(parent)]
    return [slice(a, b) for a, b in itertools.pairwise(cuts)]


def values(spec: Spec, rules: Any, k: int, j: int) -> Judged:
    """One shard judged: its own conditions, its moves, N1-N4; its counts."""
    codes, label, rem = shard(spec, k, j)
    cur, mask = local(spec, rules, k, j, codes)
    n = len(codes)
    four = rules.four(mask ^ cur)  # the previous player has four in a row: play stopped
    full = np.full(n, k == spec.width * spec.height)
    live = np.flatnonzero(~four & ~full)
    parent, c_label, c_rem, reached = successors(spec, rules, k, j, codes, cur[live], mask[live])
    parent = live[parent]
    any_lost, all_won = np.zeros(n, bool), np.ones(n, bool)
    least = np.full(n, np.iinfo(np.int32).max, np.int64)
    most = np.full(n, -1, np.int64)
    for run in _runs(parent):  # no parent twice in a run: each position's moves folded in
        p, lab, r = parent[run], c_label[run], c_rem[run]
        any_lost[p] |= lab == -1
        least[p] = np.where(lab == -1, np.minimum(least[p], r), least[p])
        all_won[p] &= lab == 1
        most[p] = np.maximum(most[p], r)
    want = np.select([four, full, any_lost, all_won], [-1, 0, 1, -1], 0)
    want_r = np.select([four, full, any_lost, all_won], [0, -1, least + 1, most + 1], -1)
    x = _first((label != want) | (rem != want_r))
    if x is not None:
        cond = "N1" if four[x] or full[x] else {1: "N2", -1: "N3", 0: "N4"}.get(int(label[x]))
        if cond is None or cond not in WEAK:
            said = WORDS.get(int(label[x]), f"label {label[x]}")
            why = f"the dataset says {said} with remoteness {rem[x]}; "
            why += f"{WORDS[int(want[x])]} with remoteness {want_r[x]} is what the successors give"
            if cond is not None:
                why += f" ({cond} needs {NEEDS[cond]})"
            raise Found(k, j, int(codes[x]), cond or "label", why)
    decided = rem[label != 0]
    counts = (n, *(int((label == v).sum()) for v in (1, -1, 0)), int(decided.max(initial=-1)))
    start = (int(codes[0]), int(label[0]), int(rem[0])) if k == 0 and n else None
    return Judged(k, j, counts, reached, start)


_SPEC: list[Any] = []


def _job(kj: tuple[int, int]) -> Judged:
    spec, rules = _SPEC
    return values(spec, rules, *kj)


def _setup(spec: Spec, weak: set[str]) -> None:
    WEAK.update(weak)
    _SPEC[:] = [spec, dataset.GAMES[spec.game](spec.width, spec.height)]


def judge(spec: Spec, jobs: int = 1) -> None:
    """Every condition, tiers from the last down (``Found`` at the first violation, in the
    shards' order with any ``jobs``); ``jobs`` worker processes judge a tier's shards."""
    with workers.workers(jobs, _setup, (spec, set(WEAK))) as run:
        got: list[tuple[int, ...]] = [()] * len(spec.shards)
        start, judged = None, 0
        for k in reversed(range(len(spec.shards))):
            nxt = spec.shards[k + 1] if k + 1 < len(spec.shards) else ()
            reached = [np.zeros(s.positions, bool) for s in nxt]
            tier = [0] * 5
            for r in run(_job, [(k, j) for j in range(len(spec.shards[k]))]):
                for t, bits in r.reached.items():
                    reached[t] |= np.unpackbits(bits, count=len(reached[t])).astype(bool)
                tier[:4] = [a + b for a, b in zip(tier[:4], r.counts[:4], strict=True)]
                tier[4] = max(tier[4] or -1, r.counts[4])
                start = r.start or start
            judged += sum(s.positions for s in spec.shards[k])
            stages.tier(k, len(spec.shards), len(spec.shards[k]), judged)
            got[k] = tuple(tier) if spec.shards[k] else (0, 0, 0, 0, -1)
            for t, bits in enumerate(reached):
                x = _first(~bits) if "reachable" not in WEAK else None
                if x is not None:
                    code = int(shard(spec, k + 1, t)[0][x])
                    why = f"no position of tier {k} moves to it: it is not reachable from the start"
                    raise Found(k + 1, t, code, "reachable", why)
        counted(spec, got, start)


def counted(spec: Spec, got: list[tuple[int, ...]], start: tuple[int, int, int] | None) -> None:
    """Every count the certificate states, recomputed; and the start's value."""
    if "counts" in WEAK:
        return
    if not spec.shards or not spec.shards[0]:
        raise Found(0, 0, -1, "start", "no tier 0: the start position is missing")
    for k, (mine, said) in enumerate(zip(got, spec.counts, strict=True)):
        for name, a, b in zip(dataset.COUNTS, mine, said, strict=True):
            if a != b:
                raise Found(k, -1, -1, "counts", f"{name}: the certificate says {b}, recounted {a}")
    if start != spec.start:
        why = f"the certificate says {spec.start[1:]} for code {spec.start[0]}, tier 0 {start}"
        raise Found(0, 0, spec.start[0], "counts", f"the start's (label, remoteness): {why}")


def check(root: str, cert: str, jobs: int = 1) -> Verdict:
    """The standalone checker's verdict on the dataset in ``root`` and its certificate (a
    stored graph's: ``stored.py``'s; a chess endgame's: ``chess.py``'s)."""
    if stored.is_stored(cert):
        return stored.check(root, cert, jobs)
    if chess.is_chess(cert):
        return chess.check(root, cert, jobs)
    rules = None
    try:
        spec = stages.step("reading the certificate", 0, dataset.read_certificate, root, cert)
        rules = dataset.GAMES[spec.game](spec.width, spec.height)
        judge(spec, jobs)
        dataset.agree(spec)
    except Found as f:
        k, j, code, cond, why = f.args
        board = None if code < 0 or rules is None else rules.board(code)
        where = f"tier {k}" + (f" shard {j}" if j >= 0 else "")
        if board is not None:
            where += f": position {code} ({board})"
        return Verdict("REJECTED", f"{where}: {cond}: {why}", board, cond, k, code)
    except (Bad, Unreadable) as e:
        return Verdict("BAD", f"{cert}: {e}" if not str(e).startswith(root) else str(e))
    except Exception as e:  # anything else unreadable: in Python's words, never a traceback
        return Verdict("BAD", f"{root}: cannot read: {type(e).__name__}: {e}")
    finally:
        dataset._CACHE.kept.clear()
    n = sum(spec.counts[k][0] for k in range(len(spec.counts)))
    return Verdict("ACCEPTED", f"ACCEPTED ({n:,} positions in {len(spec.counts)} tiers)")


def main(argv: list[str]) -> int:
    """``check_certificate.py DIR CERT [--jobs N]``: the verdict's line, its exit code."""
    ap = argparse.ArgumentParser(description="Check a tiered dataset's certificate.")
    ap.add_argument("dataset", help="the dataset's directory (manifest.json, tier=K/...)")
    ap.add_argument("certificate")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes judging the shards")
    ap.add_argument("--progress", action="store_true", help="a line per tier on stderr")
    a = ap.parse_args(argv)  # a usage error exits 2
    out = stages.watched(check, a.dataset, a.certificate, max(a.jobs, 1), show=a.progress)
    code = {"ACCEPTED": 0, "REJECTED": 1, "BAD": 2}[out.status]
    line = [out.message, f"REJECTED: {out.message}", f"error: {out.message}"][code]
    print(line, file=sys.stderr if code == 2 else sys.stdout)
    return code
