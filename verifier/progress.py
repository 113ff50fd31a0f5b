"""Progress on standard error: a bar or a status line on a terminal (the commands draw them);
elsewhere, plain lines when asked for.

Progress is shown on a terminal, and is off when standard error is piped or redirected and
with ``-q`` (``quiet``), unless ``VERIFIER_PROGRESS_EVERY`` is set: then ``verify big.npz 2> log``
(or a CI job) gets ``progress: CASE: checks 3/9 after 12 s`` once a case has run ``every``
seconds, then at most every ``every`` seconds; standard output stays the machine-readable report.
``every`` is ``VERIFIER_PROGRESS_EVERY`` (seconds; 0 prints every step, for tests).
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TextIO

__all__ = [
    "Counts",
    "Notice",
    "PlainProgress",
    "heartbeat",
    "progress_every",
    "progress_wanted",
    "quiet",
    "report",
    "reporting",
]

_REPORT: ContextVar[Callable[[str, int, int], None] | None] = ContextVar("report", default=None)


def report(task: str, done: int, total: int) -> None:
    """A step of work with no progress callback of its own (a game's generator): handed to
    the callback of the innermost ``reporting`` block, if any."""
    fn = _REPORT.get()
    if fn is not None:
        fn(task, done, total)


@contextmanager
def reporting(fn: Callable[[str, int, int], None]) -> Iterator[None]:
    """``report(...)`` calls in the block go to ``fn``."""
    token = _REPORT.set(fn)
    try:
        yield
    finally:
        _REPORT.reset(token)


class Counts:
    """The last ``report`` of a stage, as the text a heartbeat adds to its line: ``: TASK
    DONE/TOTAL`` and ``, RATE a second`` (from the task's first report to its last)."""

    def __init__(self) -> None:
        self.task, self.done, self.total, self.rate = "", 0, 0, 0.0
        self.since, self.first = time.monotonic(), 0

    def __call__(self, task: str, done: int, total: int) -> None:
        now = time.monotonic()
        if task != self.task:
            self.task, self.since, self.first, self.rate = task, now, done, 0.0
        elif now > self.since:
            self.rate = (done - self.first) / (now - self.since)
        self.done, self.total = done, total

    def __str__(self) -> str:
        if not self.task:
            return ""
        if not self.total:  # a step with nothing to count (compiling)
            return f": {self.task}"
        rate = f", {self.rate:,.0f} a second" if self.rate > 0 else ""
        return f": {self.task} {self.done:,}/{self.total:,}{rate}"


class Notice(str):
    """A line a run says whatever the progress setting: what it decided (a stopped run's
    tiers kept), not how far it is."""


class Violation(Notice):
    """A violation a check says as it finds it (``violation: DIR: ...`` on stderr, before
    the report)."""


_QUIET = [False]
"""``-q`` was given (``quiet``)."""


def quiet(on: bool = True) -> None:
    """``-q``: no progress, on a terminal or elsewhere (unless ``VERIFIER_PROGRESS_EVERY``)."""
    _QUIET[0] = on


def progress_wanted() -> bool:
    """Progress is shown: ``VERIFIER_PROGRESS_EVERY`` is set, or standard error is a terminal
    and ``-q`` was not given."""
    if "VERIFIER_PROGRESS_EVERY" in os.environ:
        return True
    return not _QUIET[0] and sys.stderr.isatty()


def progress_every() -> float:
    """Seconds between progress lines (``VERIFIER_PROGRESS_EVERY``, default 5; infinite, no
    line, where progress is not wanted)."""
    if not progress_wanted():
        return math.inf
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
def heartbeat(
    stream: TextIO, what: str, every: float | None = None, counts: Counts | None = None
) -> Iterator[None]:
    """For a stage with no steps to count (building a game): ``progress: WHAT after N s`` on
    ``stream`` every ``every`` seconds while the block runs (``every`` 0: at its start too);
    ``counts``: the block's last ``report``, added to each line."""
    every = progress_every() if every is None else every
    if math.isinf(every):  # progress not wanted: no line, no thread
        yield
        return
    done = threading.Event()
    started = time.monotonic()
    if every == 0:
        stream.write(f"progress: {what} after 0 s\n")
        stream.flush()

    def beat() -> None:
        while not done.wait(max(every, 0.05)):
            more = "" if counts is None else str(counts)
            stream.write(f"progress: {what}{more} after {time.monotonic() - started:.0f} s\n")
            stream.flush()

    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
