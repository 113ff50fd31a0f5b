"""The checker's worker processes (``checker/workers.py``, ``--jobs N``) end when the checker
is killed outright: a SIGKILLed parent cannot shut its pool down, and its workers used to wait
on their queue for ever, holding its stdout and stderr open (a caller reading them hung)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import os, sys, time
sys.path.insert(0, {root!r})
from checker.workers import workers

def pid(_):
    time.sleep(0.2)
    return os.getpid()

def nothing():
    pass

if __name__ == "__main__":
    with workers(2, nothing, ()) as run:
        print(*sorted(set(run(pid, range(6)))), flush=True)
        time.sleep(600)
"""


def test_the_workers_of_a_killed_checker_end(tmp_path: Path) -> None:
    script = tmp_path / "checker_run.py"
    script.write_text(SCRIPT.format(root=str(ROOT)))
    with subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True, text=True,
    ) as p:  # fmt: skip
        try:
            assert p.stdout is not None
            pids = [int(x) for x in p.stdout.readline().split()]
            assert pids and p.pid not in pids, pids
            p.kill()
            # the pipes close once every process holding them (the workers) has ended
            _, err = p.communicate(timeout=30)
            assert p.returncode == -signal.SIGKILL, err
        finally:
            with contextlib.suppress(ProcessLookupError):  # what is left, if the test failed
                os.killpg(p.pid, signal.SIGKILL)
