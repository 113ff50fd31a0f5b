"""Generate and solve the real games; the tables of ``docs/games.md``.

Usage::

    .venv/bin/python benchmarks/bench_games.py            # print the Markdown tables
    .venv/bin/python benchmarks/bench_games.py --write    # also update docs/games.md
    .venv/bin/python benchmarks/bench_games.py --quick    # leave out Connect Four 5x4

Every game is built by its generator, solved by the seed-faithful retrograde analysis
(``verifier.solvers.retrograde``), by the numpy engine (``verifier.engine.retrograde``) and by the
compiled queue (``verifier.engine.compiled``, timed after the kernels are loaded); the three must
agree on every label, remoteness and move or the script stops. The counts come from
``verifier.games.summary.summarize``. Times are wall-clock seconds of this run (they go in the
tables, so the tables change from run to run only in the time columns).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from verifier.engine.compiled import retrograde_compiled, warm_up
from verifier.engine.retrograde import retrograde_numpy
from verifier.games import chess_endgames, connect4, lgame, tictactoe
from verifier.games.summary import summarize
from verifier.model import Case
from verifier.solvers.retrograde import retrograde

DOC = Path(__file__).resolve().parent.parent / "docs" / "games.md"
MARKS = {
    "games": ("<!-- games-table:begin -->", "<!-- games-table:end -->"),
    "chess": ("<!-- chess-table:begin -->", "<!-- chess-table:end -->"),
}


def solve(
    make: Callable[[], Case],
) -> tuple[Case, dict[str, Any], np.ndarray, np.ndarray, dict[str, float]]:
    t0 = time.perf_counter()
    case = make()
    t1 = time.perf_counter()
    ref = retrograde(case.graph)
    t2 = time.perf_counter()
    eng = retrograde_numpy(case.graph)
    t3 = time.perf_counter()
    comp = retrograde_compiled(case.graph)
    t4 = time.perf_counter()
    for name, r in (("numpy", eng), ("compiled", comp)):
        if not (
            np.array_equal(ref.label, r.label)
            and np.array_equal(ref.remoteness, r.remoteness)
            and np.array_equal(ref.move, r.move)
        ):
            sys.exit(f"{case.id}: the reference and {name} retrograde disagree")
    summary = summarize(case, ref.label, ref.remoteness)
    secs = {"generate": t1 - t0, "reference": t2 - t1, "numpy": t3 - t2, "compiled": t4 - t3}
    print(f"{case.id}: {secs}", file=sys.stderr)
    return case, summary, ref.label, ref.remoteness, secs


GAMES: list[tuple[str, Callable[[], Case]]] = [
    ("tic-tac-toe", tictactoe.generate),
    ("tic-tac-toe, symmetry", lambda: tictactoe.generate(symmetry=True)),
    ("L-game", lgame.generate),
    ("L-game, symmetry", lambda: lgame.generate(symmetry=True)),
    ("Connect Four 4x4", lambda: connect4.generate(4, 4)),
    ("Connect Four 4x4, symmetry", lambda: connect4.generate(4, 4, symmetry=True)),
    ("Connect Four 5x4", lambda: connect4.generate(5, 4)),
    ("Connect Four 5x4, symmetry", lambda: connect4.generate(5, 4, symmetry=True)),
    ("KQK 8x8", lambda: chess_endgames.generate("KQK", 8)),
    ("KQK 8x8, symmetry", lambda: chess_endgames.generate("KQK", 8, symmetry=True)),
    ("KRK 8x8", lambda: chess_endgames.generate("KRK", 8)),
    ("KRK 8x8, symmetry", lambda: chess_endgames.generate("KRK", 8, symmetry=True)),
]


def games_table(quick: bool) -> str:
    rows = [
        "| game | positions | moves | won | lost | drawn | longest (plies) | root "
        "| generate s | retrograde s | numpy s | compiled s |",
        "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    for title, make in GAMES:
        if quick and "5x4" in title:
            continue
        case, s, _, _, secs = solve(make)
        sym = s.get("symmetry")
        counts = f"{s['positions']} | {case.graph.m} | {s['won']} | {s['lost']} | {s['drawn']}"
        if sym is not None:
            counts += (
                f" (classes; positions: {sym['positions']} / {sym['won']} / {sym['lost']} / "
                f"{sym['drawn']})"
            )
        rows.append(
            f"| {title} | {counts} | {s['max_remoteness']} | {s['root_value'] or '-'} "
            f"| {secs['generate']:.2f} | {secs['reference']:.2f} | {secs['numpy']:.2f} "
            f"| {secs['compiled']:.2f} |"
        )
    return "\n".join(rows)


def chess_table() -> str:
    rows = [
        "| n | endgame | positions (without KK) | up to symmetry | moves | won (White to move) "
        "| lost (Black to move) | drawn (without KK) | mates | stalemates "
        "| longest mate: White to move | Black to move | generate s |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|",
    ]
    for n in range(3, 9):
        for endgame in ("KQK", "KRK"):
            case, s, label, rem, secs = solve(partial(chess_endgames.generate, endgame, n))
            g = case.graph
            black = np.array([x.endswith(" b") for x in g.names])
            white = ~black
            white[-1] = False  # the KK node
            if (label[white] < 0).any() or (label[black] > 0).any():
                sys.exit(f"{case.id}: White lost or Black won somewhere")
            lw = int(rem[white & (label > 0)].max())
            lb = int(rem[black & (label < 0)].max())
            ends = g.is_terminal
            mates = int((ends & (g.value == -1)).sum())
            stalemates = int((ends & (g.value == 0)).sum()) - 1  # not KK
            classes = chess_endgames.generate(endgame, n, symmetry=True).graph.n - 1
            rows.append(
                f"| {n} | {endgame} | {g.n - 1} | {classes} | {g.m} | {s['won']} | {s['lost']} "
                f"| {s['drawn'] - 1} | {mates} | {stalemates} "
                f"| {lw} plies = mate in {(lw + 1) // 2} | {lb} plies | {secs['generate']:.2f} |"
            )
    return "\n".join(rows)


def replace_between(text: str, marks: tuple[str, str], table: str) -> str:
    begin, end = marks
    head, _, rest = text.partition(begin)
    _, _, tail = rest.partition(end)
    return f"{head}{begin}\n{table}\n{end}{tail}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="update the tables in docs/games.md")
    ap.add_argument("--quick", action="store_true", help="leave out Connect Four 5x4")
    args = ap.parse_args()
    warm_up()  # load (or compile) the kernels before anything is timed
    machine = f"{platform.machine()}, Python {platform.python_version()}, numpy {np.__version__}"
    games = games_table(args.quick) + f"\n\nMeasured on: {machine}."
    chess = chess_table()
    print(games, "\n", chess, sep="\n")
    if args.write:
        text = DOC.read_text()
        text = replace_between(text, MARKS["games"], games)
        text = replace_between(text, MARKS["chess"], chess)
        DOC.write_text(text)
        print(f"wrote {DOC}", file=sys.stderr)


if __name__ == "__main__":
    main()
