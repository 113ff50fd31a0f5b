"""What ``solve`` and ``verify`` say of a chess dataset (``verifier generate chess:M -o DIR
--engine dask``): the longest wins per material and side to move, and witnesses named by FEN.
The dataset is made in ``tiered.chess``."""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.graphs import range_owner
from verifier.dataset.manifest import Manifest, ShardEntry
from verifier.dataset.storage import read_parquet, shard_path
from verifier.games.tiered.chess import ChessTiers, material_of, position_codes

U64 = NDArray[np.uint64]

Win = tuple[int, int, int] | None
"""The longest win of one side to move in a shard: ``(plies, positions, material code of the
first of them)``, ``None`` without a win."""


def shard_wins(root: str, game: ChessTiers, tier: int, entry: ShardEntry) -> tuple[Win, Win]:
    """The longest win with White to move and with Black to move among a shard's positions
    (its answers and its nodes file's material codes)."""
    from verifier.dataset.storage import read_answers

    base = Path(root)
    t, i = material_of(game, tier)
    got = read_parquet(shard_path(base, tier, entry.shard), entry.sha256, {"position": "uint64"})
    pos = got["position"].astype(np.int64)
    label, rem = read_answers(base, tier, entry.shard, entry.answers_sha256, entry.positions)
    black = ((pos >> (6 * int(t.k[i]))) & 1) == 1
    out: list[Win] = []
    for side in (~black, black):
        won = side & (label == 1)
        if not won.any():
            out.append(None)
            continue
        r = int(rem[won].max())
        at = np.flatnonzero(won & (rem == r))
        out.append((r, len(at), int(pos[at[0]])))
    return out[0], out[1]


def longest_wins(root: Path, m: Manifest, client: Any) -> list[dict[str, Any]]:
    """Per tier of a solved chess dataset: its material, the counts of ``solve`` and per side
    to move the longest win (``plies``, ``mate_in``, ``positions``, an ``example`` FEN), from
    one task per shard."""
    from verifier.distributed.tiers.supervise import cluster_workers, gather_tier

    game = ChessTiers(**m.parameters)
    jobs = [(t.tier, s) for t in m.tiers if t.solved for s in t.shards]
    wins = gather_tier(
        client,
        [client.submit(shard_wins, str(root), game, k, s, pure=False) for k, s in jobs],
        what="finding the longest wins",
        workers=set(cluster_workers(client)),
    )
    best: dict[tuple[int, int], tuple[int, int, int]] = {}
    for (k, _), pair in zip(jobs, wins, strict=True):
        for side, w in enumerate(pair):
            if w is None:
                continue
            old = best.get((k, side))
            if old is None or w[0] > old[0]:
                best[(k, side)] = w
            elif w[0] == old[0]:
                best[(k, side)] = (old[0], old[1] + w[1], old[2])
    out = []
    for t, material in zip(m.tiers, game.materials(), strict=True):
        row: dict[str, Any] = {"tier": t.tier, "material": material, "positions": t.positions,
                               "won": t.won, "lost": t.lost, "drawn": t.drawn}  # fmt: skip
        for side, word in enumerate(("white", "black")):
            w = best.get((t.tier, side))
            row[word] = (
                None
                if w is None
                else {
                    "plies": w[0],
                    "mate_in": (w[0] + 1) // 2,
                    "positions": w[1],
                    "example": game.fens(t.tier, np.array([w[2]], dtype=np.uint64))[0],
                }
            )
        out.append(row)
    return out


def wins_text(rows: list[dict[str, Any]], symmetric: bool = False) -> list[str]:
    """``longest_wins`` as lines: per material won / lost / drawn and the longest wins
    (``symmetric``: the counts are of classes of positions)."""
    unit = "class(es)" if symmetric else "position(s)"
    lines = ["materials (won / lost / drawn for the side to move; longest win in moves to mate):"]
    for r in rows:
        if r["won"] is None:
            lines.append(f"{r['tier']:>5} {r['material']:<6} (not solved)")
            continue
        head = (
            f"{r['tier']:>5} {r['material']:<6} {r['positions']:>12,}: won {r['won']:,}, lost "
            f"{r['lost']:,}, drawn {r['drawn']:,}"
        )
        wins = [
            f"{side.capitalize()} to move mate in {w['mate_in']} ({w['plies']} plies, "
            f"{w['positions']:,} {unit}, e.g. {w['example']})"
            for side in ("white", "black")
            if (w := r[side]) is not None
        ]
        lines.append(head + ("; longest win: " + "; ".join(wins) if wins else "; no win"))
    return lines


NODE_IN_REASON = re.compile(r"node (\d+)(?: of tier (\d+))?")
"""A node named in a violation's reason (``judge._child_name``): its id, and its tier when
that is not the witness's."""


def name_witnesses(
    root: Path, m: Manifest, witnesses: dict[str, tuple[int, int, str]]
) -> tuple[dict[str, str], dict[str, tuple[int, int, str]]]:
    """The FEN of each witness of a verdict on a chess dataset (a node id and its tier), and
    the witnesses with the nodes their reasons name (a move's target) written as FENs."""
    from verifier.dataset.graphs import range_bounds

    game = ChessTiers(**m.parameters)
    materials = game.materials()

    def fen(tier: int, code: int) -> str | None:
        if not 0 <= tier < len(m.tiers) or code < 0:  # a count's witness: no position
            return None
        bounds = range_bounds([s.positions for s in m.tiers[tier].shards])
        s = int(range_owner(np.array([code], dtype=np.uint64), bounds)[0])
        if not 0 <= s < len(m.tiers[tier].shards) or code < int(bounds[s]):
            return None
        pos = position_codes(root, m, tier, s)
        at = code - int(bounds[s])
        t, i = material_of(game, tier)
        if at >= len(pos) or int(pos[at]) >= int(t.base[i + 1] - t.base[i]):
            return None  # no position of the material (a corrupt dataset's row): no FEN
        return game.fens(tier, pos[at : at + 1])[0]

    def target(tier: int, hit: re.Match[str]) -> str:
        there = tier if hit[2] is None else int(hit[2])
        name = fen(there, int(hit[1]))
        return hit[0] if name is None else f"{name} (node {hit[1]} of {materials[there]})"

    names, reasons = {}, dict(witnesses)
    for check, (tier, code, why) in witnesses.items():
        if (own := fen(tier, code)) is None:
            continue
        names[check] = f"{own} (node {code} of {materials[tier]})"
        reasons[check] = (tier, code, NODE_IN_REASON.sub(partial(target, tier), why))
    return names, reasons
