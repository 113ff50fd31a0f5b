"""Writing certificates (``.json``, ``.npz``; docs/certificates.md), atomically."""

from __future__ import annotations

import json
from pathlib import Path
from typing import BinaryIO

from verifier.certify.content import Certificate
from verifier.errors import UsageError
from verifier.io.files import write_atomically
from verifier.io.npzfile import write_npz

__all__ = ["CERTIFICATE_SUFFIXES", "save_certificate"]

CERTIFICATE_SUFFIXES = (".json", ".npz")


def save_certificate(cert: Certificate, path: str | Path) -> Path:
    """Write ``cert`` to ``path`` (by suffix); refuses to overwrite the case file."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in CERTIFICATE_SUFFIXES:
        raise UsageError(f"{path}: certificates are .json or .npz (got {suffix or 'no suffix'})")

    def write(f: BinaryIO) -> None:
        if suffix == ".npz":
            write_npz(f, cert.npz_arrays())
        else:
            text = json.dumps(cert.json_document(), indent=1, ensure_ascii=False)
            f.write((text + "\n").encode("utf-8"))

    return write_atomically(p, write, cert.report.case.path)
