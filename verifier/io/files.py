"""Writing files safely: atomically, never over the file a case was read from, and with a
one-line error naming the user's path (never a temporary file's) when the file cannot be
written.

:func:`check_writable` and :func:`check_folder` let a command refuse an output it cannot write
before it does any work.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from verifier.errors import UsageError

__all__ = ["cannot_write", "check_folder", "check_writable", "write_atomically"]


def write_atomically(
    path: str | Path, write: Callable[[BinaryIO], object], source: Path | None
) -> Path:
    """Call ``write`` on a temporary file beside ``path``, then rename it to ``path``.

    A failed write leaves no partial file. ``source`` is the file the data was read from:
    writing over it is refused (``UsageError``), since readers and writers never touch their
    input. A file that cannot be written (no such folder, no permission, disk full) is a
    ``UsageError`` naming ``path``.
    """
    target = Path(path)
    if source is not None and target.resolve() == Path(source).resolve():
        raise UsageError(f"{target}: refusing to overwrite the case's own input file")
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as e:
        raise cannot_write(target, e) from None
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # a new file's usual mode, not mkstemp's 0600
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, target)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise cannot_write(target, e) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def cannot_write(target: Path, error: OSError | None = None) -> UsageError:
    """The one-line error for a file ``target`` that cannot be written (``error``: why)."""
    folder = target.parent
    if target.is_dir():
        why = "it is a folder: give a file name"
    elif not folder.exists():
        why = f"no such folder {_shown(folder)}"
    elif not folder.is_dir():
        why = f"{_shown(folder)} is a file, not a folder"
    elif error is not None:
        why = error.strerror or type(error).__name__
    else:
        why = "not writable"
    return UsageError(f"{target}: cannot write the file: {why}")


def check_writable(path: str | Path) -> None:
    """Refuse (``UsageError`` naming ``path``) a file that cannot be written, before the work:
    its folder must exist and take a new file (tried by making and removing an empty one, which
    also tells when the process runs as root on a read-only mount)."""
    target = Path(path)
    if target.is_dir():
        raise cannot_write(target)
    try:
        _probe(target.parent, target)
    except OSError as e:
        raise cannot_write(target, e) from None


def check_folder(path: str | Path) -> None:
    """Refuse (``UsageError`` naming ``path``) a folder that cannot be made (with its parents)
    or written into, before the work; the folder is not made here."""
    target = Path(path)
    existing = target
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{target}: cannot make the folder: {_shown(existing)} is a file")
    try:
        _probe(existing, target)
    except OSError as e:
        why = e.strerror or type(e).__name__
        raise UsageError(f"{target}: cannot write into the folder: {why}") from None


def _probe(folder: Path, target: Path) -> None:
    """Make and remove an empty file in ``folder`` (``OSError`` if it cannot be made)."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    Path(tmp).unlink(missing_ok=True)


def _shown(folder: Path) -> str:
    return str(folder) if str(folder) else "."


def _umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
