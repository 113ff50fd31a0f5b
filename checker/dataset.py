"""The standalone checker's judgement of a tiered dataset and its certificate (docs/certificates.md,
"Datasets"): ``python checker/check_certificate.py DIR CERT.json``.

It reads the certificate strictly, each Parquet file it names through pyarrow (its one extra
dependency) after comparing the file's sha256 with the certificate's, and the game's moves
with its own generator (``connect4.py``). Tiers are judged from the last down, shard by shard:
a shard's own conditions (codes strictly increasing, each in the shard the hash gives, a legal
board with K stones in tier K, the smaller of itself and its mirror where ``symmetric``), then
every successor of every non-terminal position looked up in tier K+1 (no missing successor;
a bitmap of the positions reached there: none unreachable), and normal play's N1-N4 on the
answers. The counts are compared last: recomputed, the certificate's, the manifest's.
Memory: one shard of tier K and the shards of tier K+1 its moves reach (kept while they fit
``CACHE_BYTES``), and a bit per position of tier K+1. Standard library, numpy and pyarrow.
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

try:  # imported as the package ``checker``, or run as a script from its folder
    from checker.connect4 import Rules
    from checker.reading import loads
except ImportError:  # pragma: no cover - the script's way
    from connect4 import Rules  # type: ignore[import-not-found,no-redef]
    from reading import loads  # type: ignore[import-not-found,no-redef]

FORMAT, VERSION = "gamegraph-verifier-dataset-certificate", 1
GAMES: dict[str, Callable[[int, int], Rules]] = {"connect4": Rules}
"""The games whose datasets this checker judges (its own move generator for each)."""
CACHE_BYTES = 512 << 20
"""The shards kept in memory once read (least recently used first out): ``share_memory``'s."""
WEAK: set[str] = set()
"""Conditions turned off: the mutation harness's only (each must be shown to matter)."""
_HASH = np.uint64(0x9E3779B97F4A7C15)
WORDS = {1: "won", -1: "lost", 0: "drawn"}
COUNTS = ("positions", "won", "lost", "drawn", "longest")


class Verdict(NamedTuple):
    status: str  # ACCEPTED, REJECTED or BAD
    message: str
    position: str | None = None
    condition: str | None = None
    tier: int = -1
    code: int = -1


class Bad(Exception):
    """What the checker cannot read (exit 2)."""


class Found(Exception):
    """A violation: ``(tier, shard, code or -1, condition, why)``."""


# ------------------------------------------------------------------------------ reading
def _pyarrow() -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise Bad(
            "pyarrow is needed to read a dataset's Parquet files (pip install pyarrow)"
        ) from None
    return pq


def _field(d: Any, key: str, kind: type | tuple[type, ...], at: str) -> Any:
    if not isinstance(d, dict) or key not in d:
        raise Bad(f"{at}.{key}: missing")
    v = d[key]
    if not isinstance(v, kind) or (isinstance(v, bool) and kind is int):
        raise Bad(f"{at}.{key}: {v!r} is not {getattr(kind, '__name__', kind)}")
    return v


def _only(d: dict[str, Any], keys: tuple[str, ...], at: str) -> None:
    extra = sorted(set(d) - set(keys))
    if extra:
        raise Bad(f"{at}.{extra[0]}: not a field of a dataset certificate")


class ShardSpec(NamedTuple):
    positions: int
    codes: str
    codes_sha256: str
    answers: str
    answers_sha256: str


class Spec(NamedTuple):
    """The certificate as read: what each job needs (plain data: it goes to worker processes)."""

    root: str
    game: str
    width: int
    height: int
    symmetric: bool
    start: tuple[int, int, int]  # code, label, remoteness
    shards: tuple[tuple[ShardSpec, ...], ...]  # per tier
    counts: tuple[tuple[int, ...], ...]  # per tier: COUNTS


SHARD_KEYS = ("shard", "positions", "codes", "codes_sha256", "answers", "answers_sha256")


def read_certificate(root: str, path: str) -> Spec:
    """The certificate's fields, each checked for its type and place (``Bad`` naming the JSON
    path); the shard files must be the dataset's documented ones."""
    try:
        with open(path, "rb") as f:
            d = loads(f.read())
    except OSError as e:
        raise Bad(f"$: cannot read the file: {e.strerror or e}") from None
    except ValueError as e:
        raise Bad(f"$: cannot read it as JSON: {e}") from None
    keys = ("format", "version", "game", "parameters", "semantics", "root", "tiers")
    _only(d if isinstance(d, dict) else {}, keys, "$")
    if _field(d, "format", str, "$") != FORMAT or _field(d, "version", int, "$") != VERSION:
        raise Bad(f"$.format: not {FORMAT!r} version {VERSION}")
    game = _field(d, "game", str, "$")
    if game not in GAMES:
        raise Bad(f"$.game: {game!r}: this checker judges datasets of {sorted(GAMES)}")
    if _field(d, "semantics", str, "$") != "normal":
        raise Bad(f"$.semantics: {d['semantics']!r}: this checker judges normal play's datasets")
    p = _field(d, "parameters", dict, "$")
    _only(p, ("width", "height", "symmetric"), "$.parameters")
    w, h = _field(p, "width", int, "$.parameters"), _field(p, "height", int, "$.parameters")
    sym = _field(p, "symmetric", (bool, int), "$.parameters")
    if not (w > 0 and h > 0 and w * (h + 1) <= 63) or sym not in (0, 1):
        raise Bad("$.parameters: not a board this encoding holds (width * (height + 1) <= 63)")
    r = _field(d, "root", dict, "$")
    _only(r, ("code", "label", "remoteness"), "$.root")
    code, label, rem = (_field(r, k, int, "$.root") for k in ("code", "label", "remoteness"))
    start = (code, label, rem)
    shards, counts = [], []
    for k, t in enumerate(_field(d, "tiers", list, "$")):
        at = f"$.tiers[{k}]"
        _only(t, ("tier", *COUNTS, "shards"), at)
        if _field(t, "tier", int, at) != k:
            raise Bad(f"{at}.tier: {t['tier']}, not {k} (tiers in order from 0)")
        counts.append(tuple(_field(t, c, int, at) for c in COUNTS))
        row = []
        for j, s in enumerate(_field(t, "shards", list, at)):
            where = f"{at}.shards[{j}]"
            _only(s, SHARD_KEYS, where)
            if _field(s, "shard", int, where) != j:
                raise Bad(f"{where}.shard: {s['shard']}, not {j} (shards in order from 0)")
            kinds = zip(SHARD_KEYS[1:], (int, str, str, str, str), strict=True)
            spec = ShardSpec(*(_field(s, f, t, where) for f, t in kinds))
            if (spec.codes, spec.answers) != _paths(k, j):
                raise Bad(f"{where}: files {spec.codes!r}, {spec.answers!r}: not {_paths(k, j)}")
            row.append(spec)
        shards.append(tuple(row))
    return Spec(root, game, w, h, bool(sym), start, tuple(shards), tuple(counts))


def _paths(tier: int, shard: int) -> tuple[str, str]:
    """The documented layout: a shard's codes and its answers, relative to the dataset."""
    return f"tier={tier}/shard={shard}.parquet", f"answers/tier={tier}/shard={shard}.parquet"


def _parquet(spec: Spec, tier: int, shard: int, rel: str, sha: str, cols: dict[str, str]) -> Any:
    """A Parquet file's columns, after its sha256 is compared with the certificate's."""
    path = os.path.join(spec.root, rel)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Bad(f"{path}: cannot read the file: {e.strerror or e}") from None
    got = hashlib.sha256(data).hexdigest()
    if got != sha and "digest" not in WEAK:
        why = f"{rel}: sha256 {got[:16]}... differs from the certificate's {sha[:16]}..."
        raise Found(tier, shard, -1, "digest", why)
    pq = _pyarrow()
    import pyarrow as pa

    try:
        table = pq.ParquetFile(pa.BufferReader(data)).read(columns=list(cols), use_threads=False)
        out = [table.column(c).to_numpy() for c in cols]
    except (pa.ArrowException, OSError, KeyError) as e:
        raise Bad(f"{path}: not a Parquet file with columns {list(cols)}: {e}") from None
    for (c, dtype), col in zip(cols.items(), out, strict=True):
        if col.dtype != np.dtype(dtype):
            raise Bad(f"{path}: column {c!r} is {col.dtype}, not {dtype}")
    return out


class Cache:
    """Arrays read once, kept while they fit ``CACHE_BYTES`` (least recently used out first):
    one per process, Connect Four's shards (``shard``) or a stored graph's answers."""

    def __init__(self) -> None:
        self.kept: OrderedDict[Any, tuple[Any, ...]] = OrderedDict()

    def get(self, key: Any, read: Callable[[], tuple[Any, ...]]) -> tuple[Any, ...]:
        """The arrays kept under ``key``, or ``read()`` (then kept, the oldest out)."""
        if key in self.kept:
            self.kept.move_to_end(key)
            return self.kept[key]
        self.kept[key] = out = read()
        while self.nbytes() > CACHE_BYTES and self.kept:
            self.kept.popitem(last=False)
        return out

    def nbytes(self) -> int:
        return sum(a.nbytes for v in self.kept.values() for a in v)


_CACHE = Cache()


def share_memory(jobs: int) -> None:
    """``CACHE_BYTES`` of each of ``jobs`` processes: ``CHECKER_CACHE_BYTES`` when set, else
    30% of the memory shared among them, at least 512 MiB (24 GiB, 2 processes: 3.6 GiB each,
    Connect Four 6x5's largest tier, 2.5 GB, read once a tier, not once a shard)."""
    global CACHE_BYTES
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not a POSIX system: the floor
        memory = 0
    share = max(512 << 20, memory * 3 // (10 * max(jobs, 1)))
    CACHE_BYTES = int(os.environ.get("CHECKER_CACHE_BYTES", share))


def held_first(tier: int, shards: list[int]) -> list[int]:
    """``shards`` of ``tier``, those kept first (one order for all: no hit past the cache)."""
    kept = [j for t, j in _CACHE.kept if t == tier and j in set(shards)]
    return kept + sorted(set(shards) - set(kept))


def shard(spec: Spec, tier: int, j: int) -> tuple[Any, Any, Any]:
    """``(codes, label, remoteness)`` of a shard: read (each file's digest compared once per
    read), or kept from an earlier read while the shards kept fit ``CACHE_BYTES``."""
    return _CACHE.get((tier, j), lambda: _shard(spec, tier, j))


def _shard(spec: Spec, tier: int, j: int) -> tuple[Any, Any, Any]:
    s = spec.shards[tier][j]
    (codes,) = _parquet(spec, tier, j, s.codes, s.codes_sha256, {"code": "uint64"})
    cols = {"label": "int8", "remoteness": "int32"}
    label, rem = _parquet(spec, tier, j, s.answers, s.answers_sha256, cols)
    if not len(codes) == len(label) == s.positions:
        why = f"{len(codes)} codes and {len(label)} answers, the certificate says {s.positions}"
        raise Found(tier, j, -1, "counts", why)
    return codes, label, rem


def owner(codes: Any, shards: int) -> Any:
    """The shard of each code among ``shards`` (the documented Fibonacci hash: the high 32 bits
    of the code times 0x9E3779B97F4A7C15, modulo 2^64, modulo the number of shards)."""
    return (((codes * _HASH) >> np.uint64(32)) % np.uint64(max(shards, 1))).astype(np.intp)


def agree(spec: Spec) -> None:
    """The certificate says what the dataset's manifest says: the game, the start, per tier
    the counts and per shard the positions and the digests."""
    path = os.path.join(spec.root, "manifest.json")
    if "manifest" in WEAK:
        return
    try:
        with open(path, "rb") as f:
            m = loads(f.read())
        params, tiers = dict(m["parameters"]), m["tiers"]
        params.setdefault("symmetric", 0)
        mine = {"width": spec.width, "height": spec.height, "symmetric": int(spec.symmetric)}
        said = (m["game"], params, m["semantics"], m["root"]["code"], len(tiers))
        want = (spec.game, mine, "normal", spec.start[0], len(spec.shards))
        names = ("game", "parameters", "semantics", "root", "tiers")
        for name, a, b in zip(names, said, want, strict=True):
            if a != b:
                raise Found(-1, -1, -1, "manifest", f"$.{name}: {a!r}, the certificate's {b!r}")
        for k, t in enumerate(tiers):
            counted = (t["positions"], t["won"], t["lost"], t["drawn"], t["max_remoteness"])
            if counted != spec.counts[k]:
                why = f"counts {counted}, the certificate's {spec.counts[k]}"
                raise Found(k, -1, -1, "manifest", why)
            got = [(s["positions"], s["sha256"], s["answers_sha256"]) for s in t["shards"]]
            if got != [(s.positions, s.codes_sha256, s.answers_sha256) for s in spec.shards[k]]:
                why = "its shards' sizes or digests differ from the certificate's"
                raise Found(k, -1, -1, "manifest", why)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise Bad(f"{path}: cannot read the manifest: {type(e).__name__}: {e}") from None
