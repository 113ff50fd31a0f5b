"""A dataset's certificate (docs/certificates.md, "Datasets"), and the standalone checker's
judgement of it before ``verify DIR --engine dask`` says VERIFIED.

The certificate is small: the game, the start's code and value, per tier the counts claimed,
and per shard the relative paths and sha256 of its codes file and its answers file. The
per-position certified values ARE the answer files (label, remoteness): the digests tie them
to the certificate. The checker (``checker/judge.py``: its own reader and move generator)
judges the dataset through it, shard by shard.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from verifier.dataset.errors import DatasetError
from verifier.dataset.graph_storage import edges_path, exits_path
from verifier.dataset.graphs import GraphTiers
from verifier.dataset.manifest import Manifest, TierEntry, load_manifest
from verifier.dataset.storage import answers_path, read_answers, shard_path

__all__ = [
    "CHECK",
    "FORMAT",
    "SelfCheck",
    "certificate_of",
    "judged",
    "outside_check",
    "self_checked",
    "write_certificate",
]

FORMAT = "gamegraph-verifier-dataset-certificate"
CHECK = "certificate"


def judged(game: str) -> bool:
    """Whether the standalone checker judges datasets of ``game`` (its own lists of games:
    those it generates the moves of, and stored graphs)."""
    from checker.chess import GAMES as CHESS_GAMES
    from checker.dataset import GAMES
    from checker.stored import GAMES as STORED_GAMES

    return game in GAMES or game in STORED_GAMES or game in CHESS_GAMES


def _stored(root: Path, m: Manifest) -> bool:
    """Whether the dataset is a graph stored with its moves (a stored graph, a chess endgame:
    the registry's tiered game a ``GraphTiers``)."""
    from verifier.dataset.rules import game_from_manifest

    return isinstance(game_from_manifest(m.game, m.parameters, str(root)), GraphTiers)


def certificate_of(root: Path, m: Manifest | None = None) -> dict[str, Any]:
    """The certificate of the solved dataset in ``root`` (its manifest's claims, its files'
    digests as the manifest states them; the start's value read from tier 0's answers)."""
    m = m or load_manifest(root)
    if not m.tiers or any(not t.solved for t in m.tiers):
        raise DatasetError(f"{root}: not solved: a certificate certifies a solved dataset")
    if _stored(root, m):
        return _stored_certificate(m)
    first = m.tiers[0].shards[0]
    label, rem = read_answers(root, 0, 0, first.answers_sha256, first.positions)
    params = {"symmetric": 0, **m.parameters}
    tiers = []
    for t in m.tiers:
        shards = [
            {
                "shard": s.shard,
                "positions": s.positions,
                "codes": shard_path(Path(), t.tier, s.shard).as_posix(),
                "codes_sha256": s.sha256,
                "answers": answers_path(Path(), t.tier, s.shard).as_posix(),
                "answers_sha256": s.answers_sha256,
            }
            for s in t.shards
        ]
        tiers.append(_tier(t, shards))
    root_claim = {"code": m.root_code, "label": int(label[0]), "remoteness": int(rem[0])}
    return _document(m, params, root_claim, tiers)


def _tier(t: TierEntry, shards: list[dict[str, Any]]) -> dict[str, Any]:
    """A tier's part: its counts as the manifest states them, and its shards' files."""
    counts = {"positions": t.positions, "won": t.won, "lost": t.lost, "drawn": t.drawn}
    return {"tier": t.tier, **counts, "longest": t.max_remoteness, "shards": shards}


def _document(
    m: Manifest, params: dict[str, Any], root: dict[str, Any], tiers: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": 1,
        "game": m.game,
        "parameters": params,
        "semantics": m.semantics,
        "root": root,
        "tiers": tiers,
    }


def _stored_certificate(m: Manifest) -> dict[str, Any]:
    """A stored graph's certificate: per shard its nodes, edges, exits (when some) and answers
    with their sha256 as the manifest states them; the semantics; the counts it reports."""
    tiers = []
    for t in m.tiers:
        shards = []
        for s in t.shards:
            files = {
                "nodes": (shard_path(Path(), t.tier, s.shard), s.sha256, s.positions),
                "edges": (edges_path(Path(), t.tier, s.shard), s.edges_sha256, s.edges or 0),
                "answers": (answers_path(Path(), t.tier, s.shard), s.answers_sha256, None),
            }
            if s.exits_sha256 is not None:
                files["exits"] = (exits_path(Path(), t.tier, s.shard), s.exits_sha256, s.exits)
            entry: dict[str, Any] = {"shard": s.shard, "positions": s.positions}
            for name, (path, sha, rows) in files.items():
                entry[name] = {"path": path.as_posix(), "sha256": sha}
                if rows is not None and name != "nodes":
                    entry[name]["rows"] = rows
            shards.append(entry)
        tiers.append(_tier(t, shards))
    return _document(m, m.parameters, {"code": m.root_code}, tiers)


def write_certificate(root: Path, out: Path) -> Path:
    """Write the dataset's certificate to ``out`` (whole, as JSON); ``out``."""
    out.write_text(json.dumps(certificate_of(root), indent=1) + "\n")
    return out


def outside_check(root: Path, keep: Path | None = None, jobs: int = 1) -> Any:
    """The standalone checker's verdict (``checker.dataset.Verdict``) on the dataset's
    certificate, written to ``keep`` (else a temporary file)."""
    from checker.judge import check

    with tempfile.TemporaryDirectory(prefix="gamegraph-dscert-") as tmp:
        cert = keep if keep is not None else Path(tmp) / "certificate.json"
        write_certificate(root, cert)
        return check(str(root), str(cert), jobs)


class SelfCheck(NamedTuple):
    """``verify DIR``'s outside check as asked: the certificate's file (``None``: a temporary
    one), ``--self-check/--no-self-check`` (``None``: the default, on), ``--force``."""

    keep: Path | None = None
    on: bool | None = None
    force: bool = False

    def refused(self, root: Path) -> str | None:
        """Why the certificate cannot be written where asked (before a cluster starts)."""
        if self.keep is None:
            return None
        from verifier.errors import VerifierError
        from verifier.io.files import check_writable

        if (self.keep.exists() or self.keep.is_symlink()) and not self.force:
            return f"{self.keep}: the file exists: --force replaces it"
        try:
            check_writable(self.keep)
        except VerifierError as e:
            return str(e)
        game = load_manifest(root).game
        if not judged(game):
            from checker.dataset import GAMES

            known = ", ".join(sorted(GAMES))
            return (
                f"--certificate: not written for a tiered dataset of {game!r} (the standalone "
                f"checker judges the datasets of {known} so far)"
            )
        return None


def self_checked(
    root: Path, res: Any, asked: SelfCheck, jobs: int = 1, say: Callable[[str], None] | None = None
) -> Any:
    """``res`` (a verified ``check.TierCheck``) with the standalone checker's verdict on the
    dataset's certificate added as the check ``certificate``: a rejection refutes it, saying
    that it is our own output that is wrong. Run on a verified dataset of a game the checker
    judges, unless ``--no-self-check`` (a certificate asked for is written all the same);
    ``jobs``: the checker's worker processes (its verdict is the same with any number);
    ``say``: where the line saying that it starts goes, if anywhere (it may take as long as
    the check)."""
    if res.verdict != "verified" or not judged(res.manifest.game):
        return res
    if asked.on is False and asked.keep is None:
        return res
    from checker.chess import GAMES as CHESS_GAMES
    from checker.chess import missing

    if res.manifest.game in CHESS_GAMES and (why := missing()) is not None:
        if asked.keep is not None:
            write_certificate(root, asked.keep)
        res.skipped[CHECK] = f"the standalone checker cannot judge it here: {why}"
        return res
    n = sum(t.positions for t in res.manifest.tiers)
    if say is not None:
        say(f"the standalone checker (checker/) judges the certificate: {n:,} positions in {jobs} "
            "process" + "es" * (jobs > 1))  # fmt: skip
    out = outside_check(root, asked.keep, jobs)
    res.checks = (*res.checks, CHECK)
    res.counts[CHECK] = int(out.status != "ACCEPTED")
    if out.status != "ACCEPTED":
        why = f"our own output is wrong: the standalone checker rejects it: {out.message}"
        res.witnesses[CHECK] = (out.tier, out.code, why)
        if out.position is not None:
            res.names[CHECK] = f"{out.position} (code {out.code})"
    return res
