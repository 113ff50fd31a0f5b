"""Progress for a run whose standard error is not a terminal: plain lines, not a bar.

``verify big.npz 2> log`` (or in CI) gets ``progress: CASE: checks 3/9 after 12 s`` on standard
error once a case has run ``every`` seconds, then at most every ``every`` seconds; standard
output stays the machine-readable report. ``every`` is ``VERIFIER_PROGRESS_EVERY`` (seconds,
default 5; 0 prints every step, for tests).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

__all__ = ["PlainProgress", "heartbeat", "progress_every"]


def progress_every() -> float:
    """Seconds between progress lines (``VERIFIER_PROGRESS_EVERY``, default 5)."""
    try:
        return max(0.0, float(os.environ.get("VERIFIER_PROGRESS_EVERY", "5")))
    except ValueError:
        return 5.0


class PlainProgress:
    """A progress callback (``Options.progress``) writing a line now and then to ``stream``."""

    def __init__(self, stream: TextIO, every: float | None = None) -> None:
        self.stream = stream
        self.every = progress_every() if every is None else every
        self.started = time.monotonic()
        self.last = self.started

    def __call__(self, task: str, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last < self.every:
            return
        self.last = now
        self.stream.write(f"progress: {task} {done}/{total} after {now - self.started:.0f} s\n")
        self.stream.flush()


@contextmanager
def heartbeat(stream: TextIO, what: str, every: float | None = None) -> Iterator[None]:
    """For a stage with no steps to count (building a game): ``progress: WHAT after N s`` on
    ``stream`` every ``every`` seconds while the block runs (``every`` 0: at its start too)."""
    every = progress_every() if every is None else every
    done = threading.Event()
    started = time.monotonic()
    if every == 0:
        stream.write(f"progress: {what} after 0 s\n")
        stream.flush()

    def beat() -> None:
        while not done.wait(max(every, 0.05)):
            stream.write(f"progress: {what} after {time.monotonic() - started:.0f} s\n")
            stream.flush()

    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
