"""The standalone checker's verdict on the certificate the package writes for a dataset, with
some of its conditions turned off (the mutation harness): shared by the certificate tests of
Connect Four datasets and of stored graphs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from checker import dataset
from checker.judge import check
from verifier.dataset import certificate as writer


def judged(root: Path, *weak: str, out: Path | None = None, jobs: int = 1) -> Any:
    """The checker's verdict on the certificate written for ``root`` now (to ``out``, by
    default ``cert.json`` beside it), the conditions ``weak`` turned off, ``jobs`` worker
    processes judging the shards."""
    cert = writer.write_certificate(root, out or root.parent / "cert.json")
    dataset.WEAK.clear()
    dataset.WEAK.update(weak)
    try:
        return check(str(root), str(cert), jobs)
    finally:
        dataset.WEAK.clear()
