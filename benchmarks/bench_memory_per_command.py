"""Peak memory per position of each command the default ``--max-positions`` is sized for
(``verifier/io/limits.py``: ``COMMAND_BYTES_PER_POSITION``), run by hand, not in CI.

    .venv/bin/python benchmarks/bench_memory_per_command.py --quick      # ~1 min
    .venv/bin/python benchmarks/bench_memory_per_command.py              # ~10 min, up to ~3 GB
    .venv/bin/python benchmarks/bench_memory_per_command.py --big        # + solve C4 6x4, ~5 GB
    .venv/bin/python benchmarks/bench_memory_per_command.py --json out.json --work /tmp/mem

Every case is made by the CLI (``verifier generate``) and every command runs as a user runs it,
in its own process, with the limit lifted (``--max-positions 10**12``):

- ``solve``: ``verifier solve FILE --json --no-values`` (the default engine, auto);
- ``verify``: ``verifier verify FILE --json --no-values`` (every solver, every Z3 check);
- ``linear``: ``verifier verify FILE --answers A --linear --json --no-values``, with ``A`` an
  ``.npz`` answer table written beforehand by ``verifier solve FILE -o A`` (not measured).

Peak = the largest resident memory of the process tree (the command and its Z3 processes),
sampled from ``/proc`` every 20 ms, and at least the process's own high-water mark
(``ru_maxrss``). The baseline of a command is its peak on a case of three positions
(``cases/simple-cycle-draw.json``): the imports, numba's kernels, Z3. Bytes per position =
(peak - baseline) / positions, positions = nodes + moves (what ``--max-positions`` counts).

The runs are sequential (one measurement at a time: the machine is shared). The table goes to
stdout; ``--json FILE`` also writes every number.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from benchtools import tree_rss

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "cases" / "simple-cycle-draw.json"
PAGE = os.sysconf("SC_PAGE_SIZE")
UNLIMITED = str(10**12)


@dataclass
class Case:
    name: str
    generate: list[str]  # the arguments of ``verifier generate`` after the game


@dataclass
class Run:
    command: str
    case: str
    nodes: int
    moves: int
    wall: float
    peak: int
    baseline: int
    exit_code: int

    @property
    def positions(self) -> int:
        return self.nodes + self.moves

    @property
    def per_position(self) -> float:
        return (self.peak - self.baseline) / max(self.positions, 1)


def _random(semantics: str, nodes: int) -> Case:
    return Case(
        f"random {semantics} {nodes:.0e}".replace("e+0", "e"),
        f"random --semantics {semantics} --nodes {nodes} --degree 4 --seed 1 --cyclic".split(),
    )


def _c4(w: int, h: int) -> Case:
    return Case(f"connect4 {w}x{h}", ["connect4", "--width", str(w), "--height", str(h)])


# ---------------------------------------------------------------------- the plan
def plan(level: str) -> list[tuple[str, Case]]:
    """(command, case) pairs, smallest first."""
    if level == "quick":
        return [
            ("solve", _c4(4, 4)),
            ("solve", _random("normal", 10**5)),
            ("verify", _random("minimax", 10**5)),
            ("linear", _c4(4, 4)),
        ]
    runs = [
        ("solve", _c4(5, 4)),
        ("solve", _random("normal", 10**6)),
        ("solve", _random("minimax", 10**6)),
        ("solve", _random("normal", 4 * 10**6)),
        ("verify", _random("minimax", 10**5)),
        ("verify", _random("normal", 10**5)),
        ("verify", _c4(4, 4)),
        ("verify", _random("minimax", 10**6)),
        ("verify", _random("normal", 10**6)),
        ("linear", _c4(5, 4)),
        ("linear", _random("normal", 10**6)),
        ("linear", _random("normal", 4 * 10**6)),
    ]
    if level == "big":  # 332 million positions: about 5 GB; its linear run takes 12.7 GB
        runs += [("solve", _c4(6, 4))]
    return runs


# ---------------------------------------------------------------------- measuring
def _cli(*args: str) -> list[str]:
    """The argv of ``python -m verifier.cli ARGS`` in this interpreter."""
    return [sys.executable, "-m", "verifier.cli", *args]


def measure(args: list[str]) -> tuple[float, int, int]:
    """Run ``python -m verifier.cli ARGS``: wall seconds, peak bytes of the tree, exit code."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            _cli(*args),
            stdout=out,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
        )
        peak, stop = [0], threading.Event()

        def watch() -> None:
            while not stop.wait(0.02):
                peak[0] = max(peak[0], tree_rss(proc.pid))

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        stop.set()
        watcher.join()
    return wall, max(peak[0], usage.ru_maxrss * 1024), os.waitstatus_to_exitcode(status)


def command_args(command: str, case: Path, answers: Path | None) -> list[str]:
    """The CLI arguments of one measured command on ``case``."""
    common = ["--json", "--no-values", "--max-positions", UNLIMITED]
    if command == "solve":
        return ["solve", str(case), *common]
    if command == "verify":
        return ["verify", str(case), *common]
    assert answers is not None
    return ["verify", str(case), "--answers", str(answers), "--linear", *common]


def generated(case: Case, work: Path) -> tuple[Path, int, int]:
    """The case file (made once, kept in ``work``) and its nodes and moves."""
    stem = re.sub(r"[^a-z0-9]+", "-", case.name)
    path, sizes = work / f"{stem}.npz", work / f"{stem}.sizes.json"
    if not (path.exists() and sizes.exists()):
        proc = subprocess.run(
            _cli("generate", *case.generate, "-o", str(path), "--force"),
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        )
        m = re.search(r"(\d+) nodes, (\d+) moves", proc.stderr)
        assert m, proc.stderr
        sizes.write_text(json.dumps({"nodes": int(m[1]), "moves": int(m[2])}))
    got = json.loads(sizes.read_text())
    return path, int(got["nodes"]), int(got["moves"])


def answers_for(path: Path) -> Path:
    """The ``.npz`` answer table of ``path`` (written by ``solve -o`` once, not measured)."""
    out = path.with_suffix(".answers.npz")
    if not out.exists():
        subprocess.run(
            _cli("solve", str(path), "-o", str(out), "--quiet", "--max-positions", UNLIMITED),
            stdout=subprocess.DEVNULL,
            cwd=ROOT,
            check=True,
        )
    return out


def baselines(work: Path) -> dict[str, int]:
    """Each command's peak on a case of three positions (best of three runs)."""
    tiny_answers = work / "tiny.answers.json"
    if not tiny_answers.exists():
        subprocess.run(
            _cli("solve", str(TINY), "-o", str(tiny_answers), "--quiet"),
            stdout=subprocess.DEVNULL,
            cwd=ROOT,
            check=True,
        )
    return {
        command: min(measure(command_args(command, TINY, tiny_answers))[1] for _ in range(3))
        for command in ("solve", "verify", "linear")
    }


# ---------------------------------------------------------------------- report
def table(runs: list[Run], base: dict[str, int]) -> str:
    mem = os.sysconf("SC_PHYS_PAGES") * PAGE
    lines = [
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by "
        f"`benchmarks/bench_memory_per_command.py` on {platform.machine()}, "
        f"{os.cpu_count()} cores, {mem / (1 << 30):.0f} GiB, Python "
        f"{platform.python_version()}.",
        "",
        "Baselines (three positions): "
        + ", ".join(f"{c} {b / 1e6:.0f} MB" for c, b in base.items())
        + ".",
        "",
        "| command | case | nodes | moves | positions | wall s | peak MB | bytes / position |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in runs:
        failed = "" if r.exit_code in (0, 1) else f" (exit {r.exit_code})"
        lines.append(
            f"| {r.command} | {r.case}{failed} | {r.nodes:,} | {r.moves:,} | {r.positions:,} "
            f"| {r.wall:.1f} | {r.peak / 1e6:,.0f} | {r.per_position:.1f} |"
        )
    worst = {
        c: max(r.per_position for r in runs if r.command == c) for c in {r.command for r in runs}
    }
    lines += [
        "",
        "Largest bytes per position: " + ", ".join(f"{c} {w:.1f}" for c, w in worst.items()),
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    level = ap.add_mutually_exclusive_group()
    level.add_argument("--quick", action="store_true", help="small cases only (~1 min)")
    level.add_argument("--big", action="store_true", help="also Connect Four 6x4 (~10 GB disk)")
    ap.add_argument("--work", type=Path, help="folder of the generated cases (kept; default tmp)")
    ap.add_argument("--json", type=Path, help="also write every number to this file")
    ap.add_argument("--only", choices=("solve", "verify", "linear"), help="one command only")
    a = ap.parse_args()
    work = a.work or Path(tempfile.mkdtemp(prefix="bench-memory-"))
    work.mkdir(parents=True, exist_ok=True)
    base = baselines(work)
    print("baselines:", {c: f"{b / 1e6:.0f} MB" for c, b in base.items()}, flush=True)
    runs: list[Run] = []
    for command, case in plan("quick" if a.quick else "big" if a.big else "default"):
        if a.only and command != a.only:
            continue
        path, nodes, moves = generated(case, work)
        answers = answers_for(path) if command == "linear" else None
        wall, peak, code = measure(command_args(command, path, answers))
        run = Run(command, case.name, nodes, moves, wall, peak, base[command], code)
        runs.append(run)
        print(
            f"{command:7s} {case.name:22s} {run.positions:>13,} positions  {wall:6.1f} s  "
            f"peak {peak / 1e6:8,.0f} MB  {run.per_position:6.1f} B/position  exit {code}",
            flush=True,
        )
    print()
    print(table(runs, base))
    if a.json:
        doc = {
            "baselines": base,
            "runs": [
                {**asdict(r), "positions": r.positions, "bytes_per_position": r.per_position}
                for r in runs
            ],
        }
        a.json.write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
