"""A closed pipe on standard output (``verify cases/ | head -1``) is not an error of the run.

Python raises ``BrokenPipeError`` at the next write once the reader has gone, and click turns
it into exit code 1, which means "refuted" here. Inside :func:`closed_pipe_tolerated` standard
output swallows that error: the rest of the output goes to ``/dev/null`` (so the interpreter's
final flush does not complain either) and the run ends with the exit code it earned.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

__all__ = ["TolerantStdout", "closed_pipe_tolerated"]


class TolerantStdout:
    """A text stream that forwards to ``stream`` until its reader goes away, then drops."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.reader_gone = False

    def write(self, text: str) -> int:
        """Write ``text``, or drop it once the reader is gone."""
        if not self.reader_gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._gone()
        return len(text)

    def flush(self) -> None:
        """Flush, or nothing once the reader is gone."""
        if not self.reader_gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._gone()

    def _gone(self) -> None:
        """Point the file descriptor at ``/dev/null``: later writes and flushes succeed."""
        self.reader_gone = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self._stream.fileno())
        finally:
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def closed_pipe_tolerated() -> Iterator[None]:
    """Standard output as a :class:`TolerantStdout` for the duration of the block."""
    original = sys.stdout
    sys.stdout = TolerantStdout(original)
    try:
        yield
    finally:
        try:
            sys.stdout.flush()
        finally:
            sys.stdout = original
