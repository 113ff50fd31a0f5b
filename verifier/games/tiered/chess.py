"""Chess endgames as stored graphs, generated on the workers: ``verifier generate chess:KPK -o
DIR --engine dask [--symmetry]``.

Each material of ``chess.tiers(material)`` is a tier of a stored graph (``graphs``,
``graph_storage``), solved and judged as any stored graph (``solve`` / ``verify DIR --engine
dask``). The materials are numbered so that a move stays in its tier or goes to a later one
(``dataset_order``: more men first, then more pawns): a capture takes a man off, a promotion
a pawn, and every other move keeps the material. A tier's node ids are the ranks of its legal
positions' codes (``_chess_kernels``: canonical codes with ``--symmetry``); the nodes file of a
shard holds beside the ids (``code``) and the dead-end labels (``terminal``: -1 mated, 0
stalemate or insufficient material) the positions' material codes (``position``), from which
the FENs are written.

No process holds a material: every step is one task per chunk or shard, files in, files out,
counts back (the driver sees counts and paths)::

    1. scan     per chunk of a material's codes (a code range): its legal codes, sorted
    2. expand   per shard (a range of ranks): its nodes file; its moves as (target tier,
                target code), sent to the chunk holding the target code
    3. resolve  per chunk: each target code's rank (its node id) by binary search in the
                chunk's codes; (source, target) sent back to the source shard, and the moves
                inside the tier as reverse pieces to the target's shard
    4. finish   per shard: edges sorted by (src, dst), exits by (src, tier, dst), reverse
                edges merged (``graph_tasks.merge_reverse``): the files and digests that
                ``graph_generate`` writes for any stored graph

The chunks are fixed code ranges (a target code's chunk is known without reading anything);
the shards are ranges of ranks sized from the workers' memory (or a given count), their
bounds the running sums of the chunk counts.

A run killed at any moment resumes (``--resume``) to the same files: the sizes are saved
before the first step (``STEPS``), each step's results after it, and every file is written
whole under a temporary name and renamed. A task that removes its inputs (``resolve``: the
pieces routed to its chunk; ``finish``: the pieces sent back to its shard) first records its
result (``tmp/done/STEP/KEY.json``): run again, it returns the record, so a step stopped
half-way is run again whole without its finished tasks needing their removed inputs; an
``expand`` task records its result too, once its files are written, so that a resumed
expansion runs only the shards that had not finished. Paths in the results are relative to
the dataset directory (a resume may name it otherwise).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.errors import DatasetError
from verifier.dataset.graph_storage import (
    GRAPH_CODEC,
    read_piece_edges,
    reverse_piece_path,
    write_edges,
    write_exits,
    write_piece_edges,
    write_reverse,
)
from verifier.dataset.graphs import GraphTiers, range_owner, split_range
from verifier.dataset.manifest import Manifest, ShardEntry, TierEntry
from verifier.dataset.storage import (
    by_owner,
    read_parquet,
    rows_of,
    shard_path,
    write_parquet,
)
from verifier.progress import Notice

__all__ = [
    "BYTES_PER_POSITION",
    "ChessTiers",
    "dataset_order",
    "generate_chess",
    "material_of",
    "position_codes",
]

U64 = NDArray[np.uint64]
Say = Callable[[str], None]

BYTES_PER_POSITION = 2048
"""Worker bytes per position of a shard being expanded: about 16 moves, each a target tier,
code and source (24 bytes) and their grouping by chunk (as much again), the chunk's incoming
moves when it is resolved, and the kernels' and Arrow's buffers. Measured: KPK's generation
peaked at 755 MB per worker for shards of 366,000 positions (about 2 KB a position, twice the
1 KB first assumed). Shards and chunks are sized from it."""


def _quiet(_: str) -> None:
    """Say nothing."""


@cache
def dataset_order(material: str, symmetric: bool = False) -> tuple[int, ...]:
    """The tiers of ``chess.tiers(material)`` in dataset order: entry ``K`` is the index in
    ``materials`` of the dataset's tier ``K``. More men first, then more pawns (the requested
    material stays tier 0): a capture leads to fewer men, a promotion to fewer pawns."""
    from verifier.games.chess import tiers

    t = tiers(material, symmetric)

    def key(i: int) -> tuple[int, int, int]:
        men = t.materials[i]
        return (-len(men), -sum(1 for m in men if m & 7 == 6), i)

    return tuple(sorted(range(len(t.materials)), key=key))


@dataclass(frozen=True)
class ChessTiers(GraphTiers):
    """A chess endgame stored as a graph (the manifest's ``"game": "chess"``): the graph's
    fields, the material and whether positions are joined up to the board's symmetries.
    ``start``: the material code of node 0 of tier 0 (the position ``solve`` reports)."""

    material: str = "KQKR"
    symmetric: int = 0
    start: int = 0
    name: str = "chess"

    def __post_init__(self) -> None:
        super().__post_init__()
        from verifier.games.chess import parse_material

        parse_material(self.material)  # ValueError: not a material

    def parameters(self) -> dict[str, object]:
        out = {**super().parameters(), "material": self.material, "start": self.start}
        if self.symmetric:
            out["symmetric"] = 1
        return out

    def materials(self) -> list[str]:
        """The material of each tier, in dataset order (``KPK``, ``KQK``, ...)."""
        from verifier.games.chess import material_name, tiers

        t = tiers(self.material, bool(self.symmetric))
        return [material_name(t.materials[i]) for i in dataset_order(*self._key())]

    def _key(self) -> tuple[str, bool]:
        return self.material, bool(self.symmetric)

    def fens(self, tier: int, positions: U64) -> list[str]:
        """The FENs of material codes of a tier."""
        from verifier.games import _chess_kernels as ck
        from verifier.games.chess import tiers

        t = tiers(*self._key())
        i = dataset_order(*self._key())[tier]
        glob = np.asarray(positions, dtype=np.int64) + t.base[i]
        rows = ck.fens(glob, t.base, t.k, t.men).view(f"S{ck.FEN_BYTES}").ravel()
        return [r.decode("ascii") for r in rows]

    def position_name(self, code: int) -> str:
        """A node named by its id alone: a node id names a position only with its tier (the
        FEN, ``fens``; ``name_witnesses`` names a verdict's witnesses so)."""
        return f"node {code}"

    def describe(self, label: int, remoteness: int) -> str:
        """The value of node 0 of tier 0 (the requested material's least code) in chess
        words."""
        fen = self.fens(0, np.array([self.start], dtype=np.uint64))[0]
        mover = "White" if fen.split()[1] == "w" else "Black"
        if label == 0:
            return f"{self.material} {fen}: drawn ({mover} to move)"
        head, plies = f"{self.material} {fen}: {mover}", f"{remoteness} plies"
        if label > 0:
            return f"{head} to move wins, mate in {(remoteness + 1) // 2} ({plies})"
        if remoteness == 0:
            return f"{head} is mated"
        return f"{head} to move loses, mated in {remoteness // 2} ({plies})"


# --- the tasks ---------------------------------------------------------------------------


def _chunk_path(root: Path, tier: int, chunk: int) -> Path:
    return root / "tmp" / "chunks" / f"tier={tier}" / f"chunk={chunk}.parquet"


def _route_path(root: Path, tier: int, chunk: int, src_tier: int, src_shard: int) -> Path:
    return (
        root / "tmp" / "route" / f"tier={tier}" / f"chunk={chunk}"
        / f"from={src_tier}-{src_shard}.parquet"
    )  # fmt: skip


def _back_path(root: Path, tier: int, shard: int, dst_tier: int, chunk: int) -> Path:
    return (
        root / "tmp" / "back" / f"tier={tier}" / f"shard={shard}"
        / f"from={dst_tier}-{chunk}.parquet"
    )  # fmt: skip


def _done_path(root: Path, step: str, key: str) -> Path:
    """The record of a finished task of ``step`` (its result, as JSON)."""
    return root / "tmp" / "done" / step / f"{key}.json"


def _recorded(path: Path) -> Any:
    """A finished task's recorded result, or ``None`` (not finished)."""
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return None


def _record(path: Path, result: Any) -> Any:
    """Record a task's result (written whole, renamed) before it removes its inputs; the
    result as the record holds it (lists for tuples: the same as a resumed run reads)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(result, default=int)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    return json.loads(text)


def material_of(game: ChessTiers, tier: int) -> tuple[Any, int]:
    """``chess.tiers`` of the game and the index of dataset tier ``tier`` in it."""
    from verifier.games.chess import tiers

    return tiers(game.material, bool(game.symmetric)), dataset_order(*game._key())[tier]


def scan_chunk(root: str, game: ChessTiers, tier: int, chunk: int, span: int) -> int:
    """Write the legal (canonical) codes of chunk ``chunk`` of tier ``tier`` (the material
    codes ``chunk * span ..``), sorted; their number."""
    from verifier.games import _chess_kernels as ck

    t, i = material_of(game, tier)
    size = int(t.base[i + 1] - t.base[i])
    lo, hi = chunk * span, min(size, (chunk + 1) * span)
    keep = ck.tier_positions_range(int(t.k[i]), t.men[i], int(t.group[i]), lo, hi)
    codes = (np.flatnonzero(keep) + lo).astype(np.uint64)
    write_parquet(_chunk_path(Path(root), tier, chunk), {"code": codes})
    return len(codes)


def _chunk_codes(root: Path, tier: int, chunk: int) -> U64:
    return read_parquet(_chunk_path(root, tier, chunk), None, {"code": "uint64"})["code"]  # type: ignore[return-value]


Routed = tuple[int, str, list[tuple[int, int, str]], int]
"""An expanded shard: positions, sha256 of its nodes file, the pieces sent to chunks
``(tier, chunk, path)``, the material code of its first position (-1: none)."""


def expand_shard(
    root: str,
    game: ChessTiers,
    tier: int,
    shard: int,
    lo: int,
    hi: int,
    chunks: list[tuple[int, int, int]],
    span: int,
) -> Routed:
    """Shard ``shard`` of tier ``tier``: the positions of ranks ``lo .. hi - 1`` (read from
    ``chunks``: ``(chunk, first rank, count)`` overlapping them), its nodes file, its moves
    sent to the chunks holding their targets. Its result is recorded once its files are
    written (a shard run again in a resumed step returns the record: KPKP's 430 shards take
    an hour on a loaded machine, and a step stopped half-way kept none of them before)."""
    from verifier.games import _chess_kernels as ck

    base = Path(root)
    done = _done_path(base, "expand", f"{tier}-{shard}")
    if (kept := _recorded(done)) is not None:
        return kept  # type: ignore[no-any-return]
    parts = []
    for c, first, count in chunks:
        a, b = max(lo, first) - first, min(hi, first + count) - first
        if b > a:
            parts.append(_chunk_codes(base, tier, c)[a:b])
    codes = np.concatenate(parts) if parts else np.zeros(0, np.uint64)
    if len(codes) != hi - lo:
        raise DatasetError(f"{base}: tier {tier}, shard {shard}: {len(codes)} positions, not "
                           f"{hi - lo}")  # fmt: skip
    t, i = material_of(game, tier)
    k, men = int(t.k[i]), t.men[i]
    signed = codes.astype(np.int64)
    n = len(codes)
    ptr = np.zeros(n + 1, np.int64)
    terminal = np.zeros(n, np.int8)
    none = np.zeros(0, np.int64)
    ck.tier_successors(signed, k, men, t.of_key, t.group, ptr[1:], none, none, terminal, True)
    np.cumsum(ptr, out=ptr)
    to = np.empty(int(ptr[-1]), np.int64)
    code = np.empty(int(ptr[-1]), np.int64)
    ck.tier_successors(signed, k, men, t.of_key, t.group, ptr[:-1], to, code, terminal, False)
    if len(to) and int(to.min()) < 0:
        raise AssertionError(f"{game.material}: a move leads to a material the tiers do not hold")
    ids = np.arange(lo, hi, dtype=np.uint64)
    sha = write_parquet(shard_path(base, tier, shard), {"code": ids, "terminal": terminal,
                                                 "position": codes}, GRAPH_CODEC)  # fmt: skip
    src = np.repeat(ids, np.diff(ptr))
    del ptr, signed, ids
    rank = np.empty(len(t.materials), np.int64)  # a material's index -> its dataset tier
    rank[list(dataset_order(*game._key()))] = np.arange(len(t.materials))
    target = rank[to]
    if len(target) and int(target.min()) < tier:
        raise AssertionError(f"{game.material}: a move leads back to an earlier tier")
    key = target * (1 << 40) + code // span  # (tier, chunk) of each move's target
    order = np.argsort(key, kind="stable")
    key, src, code = key[order], src[order], code[order].astype(np.uint64)
    del order, to, target
    cuts = np.flatnonzero(np.diff(key)) + 1
    pieces = []
    for a, b in zip(np.concatenate([[0], cuts]), np.concatenate([cuts, [len(key)]]), strict=True):
        if b <= a:
            continue
        k2, c = divmod(int(key[a]), 1 << 40)
        path = _route_path(base, k2, c, tier, shard)
        write_parquet(path, {"src": src[a:b], "code": code[a:b]})
        pieces.append((k2, c, str(path.relative_to(base))))
    result: Routed = _record(done, (n, sha, pieces, int(codes[0]) if n else -1))
    return result


Resolved = tuple[list[tuple[int, int, str]], list[tuple[int, str]]]
"""A resolved chunk: the pieces sent back to source shards ``(tier, shard, path)`` and the
reverse pieces for shards of its own tier ``(shard, path)``."""


def resolve_chunk(
    root: str,
    tier: int,
    chunk: int,
    first: int,
    pieces: list[tuple[int, int, str]],
    bounds: dict[int, NDArray[np.int64]],
) -> Resolved:
    """The moves into chunk ``chunk`` of tier ``tier`` (whose first position has rank
    ``first``): each target code's node id, sent back to the source shard (``pieces``:
    ``(source tier, source shard, path)``; ``bounds``: the shards' rank bounds per tier), the
    moves from the tier itself also as reverse pieces to the shards owning their targets.
    The routed pieces are removed once the result is recorded (a chunk run again returns
    the record)."""
    base = Path(root)
    done = _done_path(base, "resolve", f"{tier}-{chunk}")
    if (kept := _recorded(done)) is not None:
        return kept  # type: ignore[no-any-return]
    codes = _chunk_codes(base, tier, chunk)
    back = []
    same_src, same_dst = [], []
    for k, s, path in pieces:
        cols = read_parquet(base / path, None, {"src": "uint64", "code": "uint64"})
        src, want = cols["src"], cols["code"]
        at = rows_of(codes, np.asarray(want, dtype=np.uint64))
        if len(want) and (not len(codes) or (codes[at] != want).any()):
            bad = int(want[np.flatnonzero(codes[at] != want)[0]]) if len(codes) else int(want[0])
            raise DatasetError(
                f"{base}: tier {tier}: a move leads to material code {bad}, no position of it"
            )
        dst = (at + first).astype(np.uint64)
        out = _back_path(base, k, s, tier, chunk)
        write_parquet(out, {"src": src, "tier": np.full(len(src), tier, np.int32), "dst": dst})
        back.append((k, s, str(out.relative_to(base))))
        if k == tier:
            same_src.append(src)
            same_dst.append(dst)
    rev: list[tuple[int, str]] = []
    if same_src:
        src_all, dst_all = np.concatenate(same_src), np.concatenate(same_dst)
        owner = range_owner(dst_all, bounds[tier])
        order, cut = by_owner(owner, len(bounds[tier]) - 1)
        src_all, dst_all = src_all[order], dst_all[order]
        for j in np.flatnonzero(np.diff(cut)).tolist():  # the shards some move reaches
            p = reverse_piece_path(base, tier, j, chunk)
            write_piece_edges(p, dst_all[cut[j] : cut[j + 1]], src_all[cut[j] : cut[j + 1]])
            rev.append((j, str(p.relative_to(base))))
    result: Resolved = _record(done, (back, rev))
    for _, _, path in pieces:
        (base / path).unlink(missing_ok=True)
    return result


Finished = tuple[int, str, int | None, str | None, int, str]
"""A finished shard: edges and their sha256, exits and theirs (``None``: none), reverse edges
and theirs."""


def finish_shard(root: str, tier: int, shard: int, back: list[str], reverse: list[str]) -> Finished:
    """Write shard ``shard``'s edges (moves inside the tier, sorted by (src, dst)), exits
    (moves into later tiers, by (src, tier, dst)) and reverse edges (the pieces sent to it
    sorted by (dst, src), as ``graph_tasks.merge_reverse`` writes them). The pieces are
    removed once the result is recorded (a shard run again returns the record)."""
    base = Path(root)
    done = _done_path(base, "finish", f"{tier}-{shard}")
    if (kept := _recorded(done)) is not None:
        return kept  # type: ignore[no-any-return]
    kinds = {"src": "uint64", "tier": "int32", "dst": "uint64"}
    parts = [read_parquet(base / p, None, kinds) for p in back]
    empty_u, empty_i = np.zeros(0, np.uint64), np.zeros(0, np.int32)
    src = np.concatenate([p["src"] for p in parts]) if parts else empty_u
    to = np.concatenate([p["tier"] for p in parts]) if parts else empty_i
    dst = np.concatenate([p["dst"] for p in parts]) if parts else empty_u
    del parts
    inside = to == tier
    s_in, d_in = src[inside], dst[inside]
    o = np.lexsort((d_in, s_in))
    edges_sha = write_edges(base, tier, shard, s_in[o], d_in[o])
    edges = len(o)
    exits, exits_sha = None, None
    if not inside.all():
        s_x, t_x, d_x = src[~inside], to[~inside], dst[~inside]
        o = np.lexsort((d_x, t_x, s_x))
        exits = len(o)
        exits_sha = write_exits(base, tier, shard, s_x[o], t_x[o].astype(np.int32), d_x[o])
    pieces = [read_piece_edges(base / p) for p in reverse]
    r_dst = np.concatenate([p[0] for p in pieces]) if pieces else empty_u
    r_src = np.concatenate([p[1] for p in pieces]) if pieces else empty_u
    del pieces
    o = np.lexsort((r_src, r_dst))
    rev_sha = write_reverse(base, tier, shard, r_dst[o], r_src[o])
    result: Finished = _record(done, (edges, edges_sha, exits, exits_sha, len(o), rev_sha))
    for p in [*back, *reverse]:
        (base / p).unlink(missing_ok=True)
    return result


# --- the driver --------------------------------------------------------------------------


def _worker_bytes(client: Any) -> int:
    """The smallest memory limit among the workers (``driver.worker_bytes``, not imported:
    the driver imports the games, this module among them)."""
    from verifier.dataset.errors import RunFailed
    from verifier.distributed.tiers.supervise import cluster_workers
    from verifier.io.limits import memory_bytes

    workers = cluster_workers(client)
    if not workers:
        raise RunFailed("the Dask cluster has no workers")
    limits = [int(w.get("memory_limit") or 0) for w in workers.values()]
    return min(limits) if all(limits) else memory_bytes() // len(workers)


STEPS = "tmp/steps.json"
"""A chess generation's checkpoints: its sizes (written before the first step, so that a resume
cuts the same chunks and shards) and each finished step's results (counts, paths, digests),
written after every step; ``--resume`` skips the steps it lists."""


def _steps(root: Path, game: ChessTiers, resume: bool, sizes: dict[str, int | None]) -> Any:
    """The checkpoints of the generation in ``root``: fresh ones (the directory marked as a
    generation under way), or, with ``resume``, those of the one that stopped there (the same
    material and symmetry, its sizes kept)."""
    from verifier.dataset.manifest import MANIFEST, load_manifest, under_way

    def fresh() -> dict[str, Any]:
        under_way(root, game, int(sizes["per_shard"] or 0))
        shutil.rmtree(root / "tmp", ignore_errors=True)  # a stopped run's pieces and records
        steps: dict[str, Any] = {"sizes": sizes}
        _save_steps(root, steps)
        return steps

    if not resume:
        return fresh()
    m = load_manifest(root)
    steps = None
    if not m.generated:
        try:
            steps = json.loads((root / STEPS).read_text())
        except FileNotFoundError:
            return fresh()  # stopped before its sizes were saved (or cleared): nothing kept
        except (OSError, ValueError) as e:
            raise DatasetError(
                f"{root / STEPS}: not readable: {e}: generate again without --resume"
            ) from None
    mine = {k: game.parameters().get(k) for k in ("material", "symmetric")}
    theirs = {k: m.parameters.get(k) for k in ("material", "symmetric")}
    if m.game != "chess" or mine != theirs:
        raise DatasetError(
            f"{root / MANIFEST}: $.parameters: {m.game} {m.parameters}, not chess {mine}: "
            "--resume continues the same material"
        )
    if m.generated:
        shutil.rmtree(root / "tmp", ignore_errors=True)  # stopped as it cleared them
        return {"done": m}
    return steps


def _save_steps(root: Path, steps: dict[str, Any]) -> None:
    """Replace the checkpoints whole (temporary name, rename)."""
    path = root / STEPS
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part")
    tmp.write_text(json.dumps(steps))
    tmp.replace(path)


def _step(root: Path, steps: dict[str, Any], name: str, make: Callable[[], Any]) -> Any:
    """Step ``name``'s results: from the checkpoints, or made and checkpointed."""
    if name not in steps:
        steps[name] = json.loads(json.dumps(make(), default=int))  # numpy integers as int
        _save_steps(root, steps)
    return steps[name]


def generate_chess(
    root: Path,
    material: str,
    client: Any,
    *,
    symmetric: bool = False,
    per_shard: int | None = None,
    shards: int | None = None,
    span: int | None = None,
    resume: bool = False,
    say: Say = _quiet,
    poll: float = 1.0,
    grace: float = 10.0,
) -> Manifest:
    """Write the chess endgame ``material`` (and every material it leads to) into ``root``
    (empty or cleared: ``driver.prepare_output``) as a stored graph, on the cluster of
    ``client``. ``per_shard``: positions per shard (default: from the workers' memory);
    ``shards``: exactly this many shards per tier instead; ``span``: codes per scanned chunk
    (default ``per_shard``). ``resume``: continue the generation of the same material that
    stopped in ``root``, skipping its finished steps (``STEPS``), with its sizes."""
    from verifier.distributed.tiers.supervise import cluster_workers, gather_tier
    from verifier.games.chess import parse_material, tiers

    parse_material(material)  # ValueError before anything runs
    workers = set(cluster_workers(client))
    per_shard = per_shard or max(1_000, _worker_bytes(client) // 4 // BYTES_PER_POSITION)
    t = tiers(material, symmetric)
    order = dataset_order(material, symmetric)
    game = ChessTiers(1, 0, tiers=len(order), material=material.upper(), symmetric=int(symmetric))
    names = game.materials()
    given = {"per_shard": per_shard, "shards": shards, "span": span or per_shard}
    steps = _steps(root, game, resume, given)
    if "done" in steps:
        return steps["done"]  # type: ignore[no-any-return]
    per_shard, shards, span = (steps["sizes"][k] for k in ("per_shard", "shards", "span"))
    if done := [k for k in ("scan", "expand", "resolve", "finish") if k in steps]:
        say(Notice(f"resuming: step(s) {', '.join(done)} kept from the run that stopped"))

    def run(tasks: list[Any], what: str, positions: int = 0) -> list[Any]:
        """The tasks' results, their progress said (``positions``: for the rate a second)."""
        return gather_tier(client, tasks, what=what, workers=workers, poll=poll, grace=grace,
                           say=say, positions=positions)  # fmt: skip

    base = str(root)
    sizes = [int(t.base[i + 1] - t.base[i]) for i in order]
    nchunks = [-(-size // span) for size in sizes]
    jobs = [(k, c) for k in range(len(order)) for c in range(nchunks[k])]
    counts = _step(root, steps, "scan", lambda: run(
        [client.submit(scan_chunk, base, game, k, c, span, pure=False) for k, c in jobs],
        "scanning the materials", sum(sizes),
    ))  # fmt: skip
    per_chunk: list[list[int]] = [[] for _ in order]
    for (k, _), n in zip(jobs, counts, strict=True):
        per_chunk[k].append(n)
    firsts = [np.concatenate([[0], np.cumsum(c)]).astype(np.int64) for c in per_chunk]
    totals = [int(f[-1]) for f in firsts]
    units = "classes" if symmetric else "positions"
    say(
        f"{sum(totals):,} {units} in {len(order)} materials ("
        + ", ".join(f"{m} {n:,}" for m, n in zip(names, totals, strict=True))
        + ")"
    )
    bounds = {}
    for k, n in enumerate(totals):
        count = shards or max(1, -(-n // per_shard))
        bounds[k] = split_range(n, count)
    # 2. expand every shard
    shard_jobs = [(k, s) for k in range(len(order)) for s in range(len(bounds[k]) - 1)]

    def overlapping(k: int, lo: int, hi: int) -> list[tuple[int, int, int]]:
        f = firsts[k]
        return [(c, int(f[c]), int(f[c + 1] - f[c])) for c in range(len(f) - 1)
                if f[c + 1] > lo and f[c] < hi]  # fmt: skip

    expanded: list[Routed] = _step(root, steps, "expand", lambda: run(
        [
            client.submit(
                expand_shard, base, game, k, s, int(bounds[k][s]), int(bounds[k][s + 1]),
                overlapping(k, int(bounds[k][s]), int(bounds[k][s + 1])), span, pure=False,
            )
            for k, s in shard_jobs
        ],
        "expanding the positions", sum(totals),
    ))  # fmt: skip
    sent: dict[tuple[int, int], list[tuple[int, int, str]]] = {}
    for (k, s), (_, _, pieces, _) in zip(shard_jobs, expanded, strict=True):
        for k2, c, path in pieces:
            sent.setdefault((k2, c), []).append((k, s, path))
    # 3. resolve the targets chunk by chunk
    targets = sorted(sent)
    resolved: list[Resolved] = _step(root, steps, "resolve", lambda: run(
        [
            client.submit(resolve_chunk, base, k, c, int(firsts[k][c]), sent[(k, c)], bounds,
                          pure=False)
            for k, c in targets
        ],
        "numbering the moves' targets", sum(totals),
    ))  # fmt: skip
    back: dict[tuple[int, int], list[str]] = {}
    rev: dict[tuple[int, int], list[str]] = {}
    for (k, _), (sent_back, sent_rev) in zip(targets, resolved, strict=True):
        for k2, s, path in sent_back:
            back.setdefault((k2, s), []).append(path)
        for j, path in sent_rev:
            rev.setdefault((k, j), []).append(path)
    # 4. every shard's edges, exits and reverse edges
    finished: list[Finished] = _step(root, steps, "finish", lambda: run(
        [
            client.submit(finish_shard, base, k, s, back.get((k, s), []), rev.get((k, s), []),
                          pure=False)
            for k, s in shard_jobs
        ],
        "writing the edges", sum(totals),
    ))  # fmt: skip
    entries: list[list[ShardEntry]] = [[] for _ in order]
    for (k, s), (n, sha, _, _), (e, esha, x, xsha, r, rsha) in zip(
        shard_jobs, expanded, finished, strict=True
    ):
        entries[k].append(ShardEntry(s, n, sha, edges=e, edges_sha256=esha, reverse_edges=r,
                                     reverse_sha256=rsha, exits=x, exits_sha256=xsha))  # fmt: skip
    moves = sum((e.edges or 0) + (e.exits or 0) for t_ in entries for e in t_)
    start = expanded[0][3]  # node 0 of tier 0 (the requested material has positions)
    game = ChessTiers(sum(totals), moves, tiers=len(order), material=game.material,
                      symmetric=game.symmetric, start=start)  # fmt: skip
    m = Manifest(game.name, game.parameters(), game.root(), per_shard, game.semantics.value)
    m.tiers.extend(TierEntry(k, e) for k, e in enumerate(entries))
    m.generated = True
    m.save(root)  # then the pieces go: a run stopped in between has nothing left to do
    shutil.rmtree(root / "tmp", ignore_errors=True)
    say(f"{game.nodes:,} {units}, {moves:,} moves in {len(order)} tier(s), "
        f"{len(shard_jobs)} shard(s)")  # fmt: skip
    return m


def position_codes(root: Path, m: Manifest, tier: int, shard: int) -> U64:
    """The material codes of a shard's nodes (the ``position`` column of its nodes file)."""
    e = m.tiers[tier].shards[shard]
    got = read_parquet(shard_path(root, tier, shard), e.sha256, {"position": "uint64"})["position"]
    if len(got) != e.positions:
        where = shard_path(root, tier, shard)
        raise DatasetError(f"{where}: {len(got)} positions, the manifest says {e.positions}")
    return got  # type: ignore[return-value]


def catalog_order(root: Path, m: Manifest, perms: list[NDArray[np.intp]]) -> tuple[list[int], U64]:
    """A chess dataset's tiers in the in-memory case's order (``chess.tiers``' materials) and
    the global code of every position in that order (``TieredForm.order``)."""
    from verifier.games.chess import tiers

    material, symmetric = str(m.parameters["material"]), bool(m.parameters.get("symmetric"))
    t = tiers(material, symmetric)
    order = dataset_order(material, symmetric)  # dataset tier -> index in t.materials
    seq = sorted(range(len(m.tiers)), key=lambda k: order[k])
    glob = []
    for k in seq:
        pos = np.concatenate(
            [position_codes(root, m, k, s.shard) for s in m.tiers[k].shards]
            or [np.zeros(0, dtype=np.uint64)]
        )
        glob.append(pos[perms[k]] + np.uint64(t.base[order[k]]))
    return seq, np.concatenate(glob or [np.zeros(0, dtype=np.uint64)]).astype(np.uint64)


def position_names(game: ChessTiers, codes: U64, whole: bool) -> Any:
    """Positions named by FEN from their global codes (``catalog_order``), as ``generate
    chess:MATERIAL`` names them (``TieredForm.names``; the codec either way)."""
    from verifier.games.chess import codec_names

    codec = f"chess:{game.material}" + (":symmetric" if game.symmetric else "")
    return codec_names(codec, codes)
