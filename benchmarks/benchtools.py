"""Helpers the benchmark scripts share: timing a CLI run as a whole process, and rewriting the
block of a document that a benchmark owns."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path


def run_cli(args: list[str]) -> tuple[subprocess.CompletedProcess[str], float, int]:
    """Run ``python -m verifier.cli ARGS`` under /usr/bin/time: the process, its wall seconds
    and its peak resident set in KB (-1 if /usr/bin/time printed none)."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        ["/usr/bin/time", "-f", "%M", sys.executable, "-m", "verifier.cli", *args],
        capture_output=True,
        text=True,
    )
    secs = time.perf_counter() - t0
    peak = int(proc.stderr.strip().splitlines()[-1]) if proc.stderr.strip() else -1
    return proc, secs, peak


def write_block(doc: Path, begin: str, end: str, block: str) -> None:
    """Replace the text from ``begin`` to ``end`` in ``doc`` by ``block`` (which holds both
    markers), or append it when the markers are not there yet."""
    text = doc.read_text() if doc.exists() else ""
    if begin in text and end in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end) :]
    else:
        text = text + ("\n" if text else "") + block + "\n"
    doc.write_text(text)


def generate_random(
    semantics: str, nodes: int, degree: float, seed: int, out: Path, *, acyclic: bool = False
) -> tuple[subprocess.CompletedProcess[str], float, int]:
    """``verifier generate random`` of one graph into ``out`` (``run_cli``'s result)."""
    return run_cli(
        [
            "generate",
            "random",
            "--semantics",
            semantics,
            "--nodes",
            str(nodes),
            "--degree",
            str(degree),
            "--seed",
            str(seed),
            "--acyclic" if acyclic else "--cyclic",
            "-o",
            str(out),
        ]
    )
