"""Start-up cost: whole-process wall times of small runs (run by hand, not in CI).

    .venv/bin/python benchmarks/bench_startup.py              # 7 repeats, prints a table
    .venv/bin/python benchmarks/bench_startup.py --repeat 15 --write
    .venv/bin/python benchmarks/bench_startup.py --root /tmp/old-checkout   # another version

Each command runs as a fresh process (``subprocess``), ``--repeat`` times, interleaved (one round
runs every command once, so a burst of load on the shared machine hits all of them alike); the
table gives the minimum and the median wall-clock seconds and both as ratios to
``python -c "import numpy"`` measured in the same run: the floor any run of the tool pays.
``verify`` is called as its console script does (``verifier.cli:verify_main``), with the
checkout's code first on ``PYTHONPATH``; every run must exit 0 (all cases verified).

Bytecode: the runs may write and reuse ``__pycache__`` (``PYTHONDONTWRITEBYTECODE`` is removed
from their environment; the unmeasured first round writes it), as an installed package does.
Where it is set and no bytecode was ever written, every run compiles the tool's own sources
again: about 0.15 s more (measured: 0.69 s instead of 0.50 s for one case).

The targets (issue 18 item 1): one corpus case under 0.5 s and at most 5x ``import numpy``;
the whole corpus (``verify cases/``) under 5 s. ``--write`` puts the table between the
``bench-startup`` markers of ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from benchtools import interleaved, load_note, ratio_table, write_block

ROOT = Path(__file__).resolve().parent.parent

DOC = ROOT / "docs" / "benchmarks.md"
VERIFY = "from verifier.cli import verify_main; verify_main()"
CASE = "cases/knuth-pure-cycle.json"
MINIMAX_CASE = "cases/kars-figure1-b-lt-d.json"
"""A minimax case with a cycle: its uniqueness proofs need the strongly connected components."""

COMMANDS: list[tuple[str, list[str]]] = [
    ("python -c pass", ["-c", "pass"]),
    ("python -c 'import numpy'", ["-c", "import numpy"]),
    (f"verify {CASE}", ["-c", VERIFY, CASE]),
    (f"verify --engine reference {CASE}", ["-c", VERIFY, "--engine", "reference", CASE]),
    (f"verify {MINIMAX_CASE}", ["-c", VERIFY, MINIMAX_CASE]),
    ("verify cases/", ["-c", VERIFY, "cases/"]),
]
BASE = "python -c 'import numpy'"
"""The command the ratios are taken against."""


def measure(root: Path, repeat: int) -> dict[str, list[float]]:
    """``repeat`` interleaved rounds of every command, ``root``'s code first on the path (the
    current directory comes first on ``sys.path`` with ``-c``: ``root``'s code is the one run)."""
    env = dict(os.environ, PYTHONPATH=str(root))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    commands = [(name, [sys.executable, *args]) for name, args in COMMANDS]
    return interleaved(commands, repeat, root, env)


def write_doc(rows: list[str], repeat: int) -> None:
    begin, end = "<!-- bench-startup:begin -->", "<!-- bench-startup:end -->"
    block = "\n".join(
        [
            begin,
            f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with "
            f"`.venv/bin/python benchmarks/bench_startup.py --repeat {repeat} --write` "
            f"(load average {load_note()}).",
            "",
            *rows,
            end,
        ]
    )
    write_block(DOC, begin, end, block)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7, help="measured rounds (default 7)")
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose code is run")
    ap.add_argument("--write", action="store_true", help="update docs/benchmarks.md")

    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    times = measure(args.root.resolve(), args.repeat)
    rows = ratio_table(times, BASE, "numpy")
    print("\n".join(rows))
    if args.write:
        write_doc(rows, args.repeat)


if __name__ == "__main__":
    main()
