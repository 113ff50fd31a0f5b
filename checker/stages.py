"""The checker's progress: a line per stage (a dataset's: per tier) on standard error
(``checker: the conditions: 1,234 positions after 2.1 s``), shown by ``main()`` when standard
error is a terminal (``--progress`` or CHECKER_PROGRESS=1: always, 0: never), never when
``check()`` is called as a function. Standard library only; part of the standalone checker."""

from __future__ import annotations

import os
import sys
import time
from typing import Any

SHOW: dict[str, Any] = {"on": False, "t0": 0.0, "n": 0}


def watched(run: Any, *args: Any, show: bool = False) -> Any:
    """``run(*args)`` with its stages shown (see above; ``show``: ``--progress``, shown even
    when standard error is not a terminal), then the time and the rate."""
    forced = os.environ.get("CHECKER_PROGRESS", "")
    on = show or forced == "1" or (forced != "0" and sys.stderr.isatty())
    SHOW.update(on=on, t0=time.monotonic())
    try:
        out = run(*args)
        step(
            "done",
            0,
            None,
            f" ({SHOW['n'] / max(time.monotonic() - SHOW['t0'], 1e-9):,.0f} a second)",
        )
        return out
    finally:
        SHOW["on"] = False


def step(what: str, n: int = 0, run: Any = None, *args: Any) -> Any:
    """``checker: WHAT: N positions after T s`` if shown; then ``run(*args)``, returned (no
    ``run``: ``args[0]`` ends the line)."""
    SHOW["n"] = n or SHOW["n"]
    if SHOW["on"]:
        count = f": {SHOW['n']:,} positions" if SHOW["n"] else ""
        end = "" if run is not None or not args else args[0] * bool(SHOW["n"])
        t = time.monotonic() - SHOW["t0"]
        print(f"checker: {what}{count} after {t:.1f} s{end}", file=sys.stderr, flush=True)
    return None if run is None else run(*args)


def tier(k: int, tiers: int, shards: int, n: int) -> None:
    """A dataset's tier judged: ``checker: tier 3/12: 8 shards judged: N positions after T s``."""
    step(f"tier {k}/{tiers}: {shards} shards judged", n)
