"""Is numba's on-disk cache of a kernel module cold? The first ``generate chess:KQK`` spent
110 s compiling the chess kernels in silence (15 s the next time, loaded from the cache): the
command line says first, in one line, that they are compiled once.

A module's kernels (``@njit(cache=True)``) are *cold* when none of them has compiled code in
numba's cache for this machine: no index file (a fresh install, an empty ``NUMBA_CACHE_DIR``),
or one that numba would ignore (another numba, an edited source file, another CPU). Numba has
no public call for this; its ``FunctionCache`` (``dispatcher._cache``) reads the index the way
numba does when it looks for code, so a stale index counts as cold as numba would count it.
Whenever the question cannot be answered (numba missing, its internals changed) the answer is
"not cold": at worst a line is not printed.
"""

from __future__ import annotations

import importlib
from typing import Any, TextIO

__all__ = ["COMPILE_SECONDS", "announce", "cold", "say_if_cold"]

CACHE = "FunctionCache"  # numba's cache of a ``cache=True`` kernel (else a ``NullCache``)

COMPILE_SECONDS = {"verifier.games._chess_kernels": 30, "verifier.engine._kernels": 20}
"""About how long each module's kernels take to compile the first time (2 cores, 2026-11-28:
the chess kernels of ``generate chess:KQK`` 25 s beside a test run, 110 s reported on a busier
machine; the solver kernels 7 s for one minimax case, more when several semantics run)."""


def cold(module_name: str) -> bool:
    """Does numba have to compile every kernel of the module ``module_name`` (see above)?"""
    try:
        from numba.core.dispatcher import Dispatcher

        module = importlib.import_module(module_name)
        kernels = [k for k in vars(module).values() if isinstance(k, Dispatcher)]
        cached: list[Any] = [
            k for k in kernels if type(getattr(k, "_cache", None)).__name__ == CACHE
        ]
        if not cached:
            return False
        magic = cached[0].targetctx.codegen().magic_tuple()  # this machine's CPU and features
        for k in cached:
            index = k._cache._cache_file._load_index()  # {} when absent or stale, as numba reads it
            if any(key[1] == magic for key in index):
                return False
        return True
    except Exception:  # numba missing or its internals moved: say nothing
        return False


_SAID: set[str] = set()
"""The modules whose compilation this process has announced (said once, however often asked)."""


def say_if_cold(stream: TextIO, module_name: str, what: str) -> bool:
    """``progress: compiling WHAT once (about N s; cached for later runs)`` on ``stream`` when
    the kernels of ``module_name`` are cold and this process has not said so yet; whether it
    said so now."""
    if module_name in _SAID or not cold(module_name):
        return False
    _SAID.add(module_name)
    report_compiles()
    seconds = COMPILE_SECONDS.get(module_name, 30)
    stream.write(f"progress: compiling {what} once (about {seconds} s; cached for later runs)\n")
    stream.flush()
    return True


def announce(module_name: str, what: str) -> None:
    """Where a module's kernels are first needed (reading a chess case's names, a summary):
    when they are cold, the compile line on stderr if progress is wanted (``verifier.progress``),
    and the step handed to the enclosing ``reporting`` block, so that a heartbeat says
    ``compiling WHAT once`` instead of repeating the step before it. Asked once per module and
    process (``cold`` reads numba's index files)."""
    if module_name in _ASKED:
        return
    _ASKED.add(module_name)
    if not cold(module_name):
        return
    import sys

    from verifier.progress import progress_wanted, report

    if progress_wanted():
        say_if_cold(sys.stderr, module_name, what)
    report(f"compiling {what} once", 0, 0)
    report_compiles()


_ASKED: set[str] = set()


def report_compiles() -> None:
    """From now on, each kernel numba compiles is a step handed to the enclosing ``reporting``
    block (``compiling NAME``, then ``NAME compiled``): a heartbeat names the kernel being
    compiled instead of repeating the last counted step (``materials listed 2/2``) for half a
    minute. Installed once per process; nothing when numba is missing."""
    if _LISTENING:
        return
    try:
        from numba.core import event
    except ImportError:  # numba missing: the kernels run as Python, nothing compiles
        return
    from verifier.progress import report

    class Said(event.Listener):
        depth = 0

        def on_start(self, ev: Any) -> None:
            self.depth += 1
            if self.depth == 1:
                report(f"compiling {_name(ev)} (numba, the first run only)", 0, 0)

        def on_end(self, ev: Any) -> None:
            self.depth -= 1
            if self.depth == 0:
                report(f"{_name(ev)} compiled", 0, 0)

    event.register("numba:compile", Said())  # type: ignore[no-untyped-call]
    _LISTENING.append(True)


_LISTENING: list[bool] = []


def _name(ev: Any) -> str:
    """The kernel a numba compile event is about."""
    fn = getattr(ev.data.get("dispatcher"), "py_func", None) if ev.data else None
    return getattr(fn, "__name__", "a kernel")
