"""A command run with its stderr on a pseudo-terminal, as a user at a terminal sees it (progress
lines and bars are shown only there), its stdout captured."""

from __future__ import annotations

import os
import subprocess
from typing import Any


def on_a_terminal(argv: list[str], **popen: Any) -> tuple[int, str, bytes]:
    """Run ``argv``: its exit code, stdout (text) and what it wrote to the terminal (bytes)."""
    import pty  # POSIX only, as the tests that use it

    leader, follower = pty.openpty()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=follower, text=True, **popen)
    os.close(follower)
    out = proc.communicate()[0]
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    return proc.returncode, out, seen
