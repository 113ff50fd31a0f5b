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
from pathlib import Path
from typing import Any

from verifier.distributed.tiers.errors import DatasetError
from verifier.distributed.tiers.manifest import Manifest, load_manifest
from verifier.distributed.tiers.storage import answers_path, read_answers, shard_path

__all__ = ["FORMAT", "CHECK", "certificate_of", "judged", "outside_check", "write_certificate"]

FORMAT = "gamegraph-verifier-dataset-certificate"
CHECK = "certificate"


def judged(game: str) -> bool:
    """Whether the standalone checker judges datasets of ``game`` (its own list of games)."""
    from checker.dataset import GAMES

    return game in GAMES


def certificate_of(root: Path, m: Manifest | None = None) -> dict[str, Any]:
    """The certificate of the solved dataset in ``root`` (its manifest's claims, its files'
    digests as the manifest states them; the start's value read from tier 0's answers)."""
    m = m or load_manifest(root)
    if not m.tiers or any(not t.solved for t in m.tiers):
        raise DatasetError(f"{root}: not solved: a certificate certifies a solved dataset")
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
        counts = (t.positions, t.won, t.lost, t.drawn, t.max_remoteness)
        tiers.append(dict(zip(("positions", "won", "lost", "drawn", "longest"), counts, strict=True)))
        tiers[-1] = {"tier": t.tier, **tiers[-1], "shards": shards}
    return {
        "format": FORMAT,
        "version": 1,
        "game": m.game,
        "parameters": params,
        "semantics": m.semantics,
        "root": {"code": m.root_code, "label": int(label[0]), "remoteness": int(rem[0])},
        "tiers": tiers,
    }


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
