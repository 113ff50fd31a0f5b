"""Time the Grundy sequences of heap games: the reference table against the compiled kernels.

Usage::

    .venv/bin/python benchmarks/bench_sequences.py                  # 10^4, 10^5, 10^6 heaps
    .venv/bin/python benchmarks/bench_sequences.py --sizes 20000 --games .6 grundy

For each game and size: the seconds of the reference (``sequence_from_rule``, pure Python;
only up to ``--reference-max`` heaps, it is quadratic), of the compiled plain table
(``naive_values``: every split pair), of the sparse-space search (``heap_values``) and of
``heap_sequence`` with the periodicity theorem where it applies, with the ratios against the
plain table of the same run and the number of rare heaps. The kernels are compiled (and cached)
by a warm-up before any timing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from verifier.engine import sequence_kernels as kernels
from verifier.games.catalog import parse_game
from verifier.games.heap_sequences import HeapMoves, choose_sparse_space, heap_sequence
from verifier.games.heaps import sequence_from_rule
from verifier.games.octal import octal_rule


def plain(moves: HeapMoves, upto: int) -> np.ndarray:
    """The compiled plain table over every option."""
    g = np.zeros(upto + 1, dtype=np.int64)
    marks = np.zeros(1 << 16, dtype=np.int64)
    arrays = [np.array(x, dtype=np.int64) for x in (moves.take_all, moves.leave_one, moves.split)]
    kernels.naive_values(g, 0, upto + 1, *arrays, moves.unequal, marks)
    return g


def timed(fn, *args, **kw):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--games", nargs="+", default=[".77", ".137", ".6", "grundy"])
    ap.add_argument("--reference-max", type=int, default=10_000)
    ap.add_argument("--plain-max", type=int, default=200_000)
    args = ap.parse_args()
    heap_sequence(HeapMoves.octal(".77"), 3000)  # warm-up: compile or load the kernels
    plain(HeapMoves.octal(".77"), 100)
    print("game      heaps  reference  plain     sparse    theorem   sparse/plain  rare")
    for game in args.games:
        spec = parse_game(game)
        moves = spec.moves
        for n in args.sizes:
            ref = "-"
            if n <= args.reference_max:
                rule = octal_rule(spec.octal).options if spec.octal else None
                if rule is None:
                    from verifier.games.grundys_game import grundys_rule

                    rule = grundys_rule
                _, t = timed(sequence_from_rule, rule, n)
                ref = f"{t:8.3f}"
            p_txt, t_plain = "-", None
            if n <= args.plain_max:
                want, t_plain = timed(plain, moves, n)
                p_txt = f"{t_plain:8.3f}"
            got, t_sparse = timed(heap_sequence, moves, n)
            if t_plain is not None:
                assert np.array_equal(got.values, want)
            th, t_th = timed(heap_sequence, moves, n, max_removal=spec.max_removal)
            assert np.array_equal(th.values, got.values)
            ratio = f"{t_sparse / t_plain:8.3f}" if t_plain else "-"
            rare = len(choose_sparse_space(got.values, moves).rare(got.values))
            print(
                f"{game:8s} {n:7d}  {ref:>9s}  {p_txt:>8s}  {t_sparse:8.3f}  {t_th:8.3f}  "
                f"{ratio:>12s}  {rare}"
            )


if __name__ == "__main__":
    main()
