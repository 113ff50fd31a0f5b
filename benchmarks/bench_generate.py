"""Issue 18's generation benchmark: building a game from the command line against solving it.

Usage::

    .venv/bin/python benchmarks/bench_generate.py                  # the default games
    .venv/bin/python benchmarks/bench_generate.py --games "connect4 --width 6 --height 4 --symmetry"

Per game, as whole processes under ``/usr/bin/time``: ``verifier generate GAME -o g.npz``, then
``verifier solve g.npz --engine compiled`` (the baseline: reading the case and the compiled
retrograde analysis, C speed). Prints wall seconds, peak MB, bytes per position and the ratio
generate / solve measured in the same run.
"""

from __future__ import annotations

import argparse
import shlex
import tempfile
from pathlib import Path

import numpy as np
from benchtools import run_cli

GAMES = (
    "tictactoe",
    "lgame",
    "connect4 --width 4 --height 4",
    "connect4 --width 5 --height 4",
    "connect4 --width 5 --height 4 --symmetry",
    "krk --size 8",
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=list(GAMES))
    args = ap.parse_args()
    print(
        f"{'game':44s} {'positions':>11s} {'moves':>12s} {'gen s':>7s} {'gen MB':>7s} "
        f"{'B/pos':>6s} {'solve s':>8s} {'solve MB':>8s} {'gen/solve':>9s}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for game in args.games:
            path = Path(tmp) / "g.npz"
            gen, t_gen, p_gen = run_cli(
                ["generate", *shlex.split(game), "-o", str(path), "--force"]
            )
            if gen.returncode != 0:
                print(f"{game:44s} generate failed: {gen.stderr.strip()[-200:]}")
                continue
            with np.load(path) as z:
                n, m = len(z["succ_ptr"]) - 1, len(z["succ_idx"])
            limit = str(int((n + m) * 1.5) + 1000)
            sol, t_sol, p_sol = run_cli(
                ["solve", str(path), "--engine", "compiled", "--max-positions", limit]
            )
            state = "" if sol.returncode == 0 else f"  solve exit {sol.returncode}"
            print(
                f"{game:44s} {n:11,d} {m:12,d} {t_gen:7.2f} {p_gen / 1024:7.0f} "
                f"{p_gen * 1024 / (n + m):6.0f} {t_sol:8.2f} {p_sol / 1024:8.0f} "
                f"{t_gen / t_sol:9.2f}{state}"
            )


if __name__ == "__main__":
    main()
