"""``manifest.json``: what a tiered dataset holds, and how far its generation and solve got.

::

    {"format": "gamegraph-tiers", "version": 1,
     "game": "connect4", "parameters": {"width": 4, "height": 4}, "semantics": "normal",
     "root": {"tier": 0, "code": 15}, "positions_per_shard": 100000, "generated": true,
     "tiers": [{"tier": 0, "status": "solved", "positions": 1,
                "won": 1, "lost": 0, "drawn": 0, "max_remoteness": 7,
                "shards": [{"shard": 0, "positions": 1, "sha256": "...",
                            "answers_sha256": "..."}]},
               ...]}

A stored graph (``"game": "graph"``, ``graphs``) also gives per shard ``edges``,
``edges_sha256``, ``reverse_edges`` and ``reverse_sha256`` (its moves out and in), ``exits``
and ``exits_sha256`` when some of its moves lead into later tiers, and names
its sharding in its parameters (``"sharding": "node-id range"``).

A tier's ``status`` is ``generated`` (its codes are written) or ``solved`` (its answers too:
a checkpoint, ``solve --resume`` starts below the lowest solved tier). ``generated`` is true
once every tier is written. The file is replaced whole (temporary name, rename) after each
tier, so a crash leaves the last complete state.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from verifier.dataset.errors import DatasetError

__all__ = ["FORMAT", "MANIFEST", "Manifest", "ShardEntry", "TierEntry", "load_manifest"]

FORMAT = "gamegraph-tiers"
VERSION = 1
MANIFEST = "manifest.json"


@dataclass
class ShardEntry:
    """One shard: its size, the digest of its codes and (once solved) of its answers."""

    shard: int
    positions: int
    sha256: str
    answers_sha256: str | None = None
    edges: int | None = None
    """Games whose moves are stored (``graphs``): the moves leaving the shard's positions."""
    edges_sha256: str | None = None
    reverse_edges: int | None = None
    """... and the moves arriving at them (the reverse edges, grouped by target)."""
    reverse_sha256: str | None = None
    exits: int | None = None
    """... and the moves into later tiers (none: no file)."""
    exits_sha256: str | None = None


@dataclass
class TierEntry:
    """One tier: its shards and, once solved, its counts per label."""

    tier: int
    shards: list[ShardEntry]
    status: str = "generated"
    won: int | None = None
    lost: int | None = None
    drawn: int | None = None
    max_remoteness: int | None = None

    @property
    def positions(self) -> int:
        return sum(s.positions for s in self.shards)

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    def unsolve(self) -> None:
        """Forget the answers (a new solve overwrites them)."""
        self.status = "generated"
        self.won = self.lost = self.drawn = self.max_remoteness = None
        for s in self.shards:
            s.answers_sha256 = None


@dataclass
class Manifest:
    """The whole manifest (see the module docstring)."""

    game: str
    parameters: dict[str, Any]
    root_code: int
    positions_per_shard: int
    semantics: str = "normal"
    generated: bool = False
    tiers: list[TierEntry] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        tiers = []
        for t in self.tiers:
            entry = asdict(t)
            entry["positions"] = t.positions
            for s in entry["shards"]:  # the edge fields of games whose moves are stored only
                for key in _EDGE_FIELDS:
                    if s[key] is None:
                        del s[key]
            tiers.append(entry)
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "parameters": self.parameters,
            "semantics": self.semantics,
            "root": {"tier": 0, "code": self.root_code},
            "positions_per_shard": self.positions_per_shard,
            "generated": self.generated,
            "tiers": tiers,
        }

    def need_generated(self, root: Path) -> None:
        """``DatasetError`` unless every tier is written."""
        if not self.generated:
            raise DatasetError(
                f"{root / MANIFEST}: $.generated: false: the generation did not finish "
                "(continue it: verifier generate ... -o DIR --engine dask --resume; a "
                "graph's: run it again with --force)"
            )

    def save(self, root: Path) -> None:
        """Replace ``root/manifest.json`` whole."""
        path = root / MANIFEST
        tmp = path.with_name(f".{MANIFEST}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1) + "\n")
        os.replace(tmp, path)


def load_manifest(root: Path) -> Manifest:
    """Read and check ``root/manifest.json`` (``DatasetError`` naming the file and the field)."""
    path = root / MANIFEST
    if not root.exists():
        raise DatasetError(f"{root}: no such file or directory")
    if not root.is_dir():
        raise DatasetError(f"{root}: not a directory (a tiered dataset is one)")
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise DatasetError(
            f"{path}: missing: {root} is not a tiered dataset (written by "
            "'verifier generate ... -o DIR --engine dask')"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise DatasetError(f"{path}: not a readable JSON manifest: {e}") from None
    return _parse(path, doc)


def _need(path: Path, obj: Any, key: str, where: str, kind: type | tuple[type, ...]) -> Any:
    """``obj[key]`` of type ``kind``, or a ``DatasetError`` naming ``where``."""
    if not isinstance(obj, dict) or key not in obj:
        raise DatasetError(f"{path}: {where}.{key}: missing")
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise DatasetError(f"{path}: {where}.{key}: {value!r} is not a {_kind(kind)}")
    return value


_EDGE_FIELDS: dict[str, type] = {
    "edges": int,
    "edges_sha256": str,
    "reverse_edges": int,
    "reverse_sha256": str,
    "exits": int,
    "exits_sha256": str,
}


def _optional(path: Path, obj: Any, key: str, where: str, kind: type) -> Any:
    """``obj[key]`` of type ``kind`` if present, else ``None``."""
    if not isinstance(obj, dict) or obj.get(key) is None:
        return None
    return _need(path, obj, key, where, kind)


def _kind(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


def _parse(path: Path, doc: Any) -> Manifest:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise DatasetError(f"{path}: $.format: not {FORMAT!r}: not a tiered dataset's manifest")
    if doc.get("version") != VERSION:
        raise DatasetError(f"{path}: $.version: {doc.get('version')!r}, this reader reads 1")
    root = _need(path, doc, "root", "$", dict)
    m = Manifest(
        game=_need(path, doc, "game", "$", str),
        parameters=_need(path, doc, "parameters", "$", dict),
        root_code=_need(path, root, "code", "$.root", int),
        positions_per_shard=_need(path, doc, "positions_per_shard", "$", int),
        semantics=_need(path, doc, "semantics", "$", str),
        generated=bool(doc.get("generated", False)),
    )
    for i, t in enumerate(_need(path, doc, "tiers", "$", list)):
        where = f"$.tiers[{i}]"
        tier = TierEntry(
            tier=_need(path, t, "tier", where, int),
            shards=[],
            status=_need(path, t, "status", where, str),
        )
        if tier.tier != i:
            raise DatasetError(f"{path}: {where}.tier: {tier.tier}, expected {i}")
        if tier.status not in ("generated", "solved"):
            raise DatasetError(f"{path}: {where}.status: {tier.status!r}")
        for j, s in enumerate(_need(path, t, "shards", where, list)):
            at = f"{where}.shards[{j}]"
            answers = s.get("answers_sha256") if isinstance(s, dict) else None
            edges = {k: _optional(path, s, k, at, _EDGE_FIELDS[k]) for k in _EDGE_FIELDS}
            if tier.solved and not isinstance(answers, str):
                raise DatasetError(f"{path}: {at}.answers_sha256: missing in a solved tier")
            tier.shards.append(
                ShardEntry(
                    shard=_need(path, s, "shard", at, int),
                    positions=_need(path, s, "positions", at, int),
                    sha256=_need(path, s, "sha256", at, str),
                    answers_sha256=answers if isinstance(answers, str) else None,
                    **edges,
                )
            )
            if tier.shards[-1].shard != j:
                raise DatasetError(f"{path}: {at}.shard: {tier.shards[-1].shard}, expected {j}")
        said = t.get("positions") if isinstance(t, dict) else None
        if said is not None and said != tier.positions:
            raise DatasetError(
                f"{path}: {where}.positions: {said!r}, but its shards hold {tier.positions}"
            )
        if tier.solved:
            for key in ("won", "lost", "drawn", "max_remoteness"):
                setattr(tier, key, _need(path, t, key, where, int))
        m.tiers.append(tier)
    return m


class Describes(Protocol):
    """What a generation's manifest says of its game (a ``TierGame``, a ``GraphTiers``)."""

    @property
    def name(self) -> str: ...

    @property
    def semantics(self) -> Any: ...

    def parameters(self) -> Any: ...

    def root(self) -> int: ...


def under_way(root: Path, game: Describes, per_shard: int) -> Manifest:
    """Mark ``root`` (prepared: ``driver.prepare_output``) as a generation under way: a
    manifest with no tier and ``generated`` false, so that if the run stops ``solve`` says so
    and the same command clears it (or ``--resume`` continues it) instead of refusing a
    directory it does not recognise."""
    m = Manifest(game.name, game.parameters(), game.root(), per_shard, game.semantics.value)
    m.save(root)
    return m
