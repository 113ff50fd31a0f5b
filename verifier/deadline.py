"""Stop a piece of work when its time is up: ``stop_after(seconds)`` raises ``TimeUp`` inside
the block once ``seconds`` have passed (a SIGALRM timer), so that ``--budget`` holds for a check
already running, not only for the checks not yet started.

``TimeUp`` is a ``BaseException``, as ``KeyboardInterrupt`` is: a check's own ``except
Exception`` (which turns a failure into a verdict) cannot swallow it. The signal lands between
Python bytecodes, so a long call into C (a Z3 query, one numpy operation) finishes first: Z3
queries carry their own timeout (``pipeline.z3_timeout``). Off the main thread, or where there is
no SIGALRM, the block runs to its end. Timers nest: an outer deadline that falls first fires its own
handler, and an outer timer is put back afterwards.

>>> import time
>>> try:
...     with stop_after(0.05):
...         while True:
...             time.sleep(0.01)
... except TimeUp:
...     print("stopped")
stopped
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["TimeUp", "stop_after"]


class TimeUp(BaseException):
    """The time given to a block ran out while it ran."""


@contextmanager
def stop_after(seconds: float | None) -> Iterator[None]:
    """Raise ``TimeUp`` in the block after ``seconds`` (``None``: no limit; see the module
    docstring for where it cannot interrupt)."""
    usable = (
        seconds is not None
        and hasattr(signal, "SIGALRM")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return
    assert seconds is not None
    if seconds <= 0:
        raise TimeUp

    old_left, _ = signal.getitimer(signal.ITIMER_REAL)
    if 0 < old_left <= seconds:  # an outer deadline falls first: it fires its own handler
        yield
        return

    def ring(signum: int, frame: Any) -> None:
        raise TimeUp

    start = time.monotonic()
    old_handler = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        if old_left > 0:  # the outer deadline goes on counting from where it was
            signal.setitimer(signal.ITIMER_REAL, max(old_left - (time.monotonic() - start), 1e-3))
