"""Writing files safely: atomically, and never over the file a case was read from."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from verifier.errors import UsageError

__all__ = ["write_atomically"]


def write_atomically(
    path: str | Path, write: Callable[[BinaryIO], object], source: Path | None
) -> Path:
    """Call ``write`` on a temporary file beside ``path``, then rename it to ``path``.

    A failed write leaves no partial file. ``source`` is the file the data was read from:
    writing over it is refused (``UsageError``), since readers and writers never touch their
    input.
    """
    target = Path(path)
    if source is not None and target.resolve() == Path(source).resolve():
        raise UsageError(f"{target}: refusing to overwrite the case's own input file")
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # a new file's usual mode, not mkstemp's 0600
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def _umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
