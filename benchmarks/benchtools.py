"""Helpers the benchmark scripts share: timing a CLI run as a whole process, and rewriting the
block of a document that a benchmark owns."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path


def best_of(f: Callable[[], object], repeat: int) -> float:
    """The least of ``repeat`` timings of ``f()`` in this process (seconds)."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


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


def run_once(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    """Wall-clock seconds of one process ``argv`` run in ``cwd``; it must exit 0."""
    start = time.perf_counter()
    p = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
    )
    seconds = time.perf_counter() - start
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {p.returncode}: {p.stderr.decode()}")
    return seconds


def interleaved(
    commands: list[tuple[str, list[str]]],
    repeat: int,
    cwd: Path,
    env: dict[str, str] | None = None,
) -> dict[str, list[float]]:
    """``repeat`` interleaved rounds of every ``(name, argv)`` (one round runs each command
    once, so a burst of load on the shared machine hits all of them alike), after one
    unmeasured round that fills the file cache and the tool's caches: name -> seconds."""
    times: dict[str, list[float]] = {name: [] for name, _ in commands}
    for round_ in range(repeat + 1):
        for name, argv in commands:
            t = run_once(argv, cwd, env)
            if round_:
                times[name].append(t)
    return times


def ratio_table(times: dict[str, list[float]], base: str, base_word: str) -> list[str]:
    """Markdown rows: min and median seconds of each command and both as ratios to ``base``'s
    (``base_word`` names it in the header)."""
    base_min, base_med = min(times[base]), statistics.median(times[base])
    rows = [
        f"| command | min s | median s | min / {base_word} | median / {base_word} |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, ts in times.items():
        lo, med = min(ts), statistics.median(ts)
        rows.append(
            f"| `{name}` | {lo:.3f} | {med:.3f} | {lo / base_min:.1f}x | {med / base_med:.1f}x |"
        )
    return rows


def load_note() -> str:
    """The load averages (1, 5, 15 minutes), for the measured-on line of a document."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


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


PAGE = os.sysconf("SC_PAGE_SIZE")


def tree_rss(root: int) -> int:
    """Resident bytes of ``root`` and all its descendants right now (0 if it is gone)."""
    parent: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    st = fh.read()
                parent[int(d)] = int(st[st.rindex(")") + 2 :].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    tree, todo = set(), [root]
    while todo:
        p = todo.pop()
        tree.add(p)
        todo.extend(c for c, pp in parent.items() if pp == p and c not in tree)
    total = 0
    for p in tree:
        try:
            with open(f"/proc/{p}/statm") as fh:
                total += int(fh.read().split()[1]) * PAGE
        except (OSError, ValueError, IndexError):
            continue
    return total
