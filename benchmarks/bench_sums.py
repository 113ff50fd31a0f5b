"""Time the streamed check of a sum too large to build (``grundy-sums`` above ``MAX_PRODUCT``).

Usage::

    .venv/bin/python benchmarks/bench_sums.py                # nim 210+215+220 (~10^7)
    .venv/bin/python benchmarks/bench_sums.py --heaps 40 50 60 --game nim

Prints one line per run: the game, the heaps, the product positions, the value found, the
seconds (components and tables included) and the peak memory of the check (tracemalloc).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

from verifier.games.nim import nim_heaps
from verifier.games.subtraction import subtraction_game
from verifier.model import GameGraph
from verifier.solvers.grundy import grundy_values
from verifier.solvers.sums import component, product_size, stream_sum


def graph(game: str, top: int) -> GameGraph:
    """Nim, or the subtraction game S = {1, 2, 3}, with heaps 0..top (heap n is node n)."""
    if game == "nim":
        return nim_heaps(top).graph
    return subtraction_game([1, 2, 3], top).graph


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=["nim", "subtraction"], default="nim")
    ap.add_argument("--heaps", type=int, nargs="+", default=[210, 215, 220])
    args = ap.parse_args()
    g = graph(args.game, max(args.heaps))
    values = grundy_values(g).tolist()
    tracemalloc.start()
    t0 = time.perf_counter()
    parts = [component(g, h, values) for h in args.heaps]
    res = stream_sum(parts)
    secs = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    ok = "confirmed" if res.failure is None else f"refuted at {res.failure}"
    print(
        f"{args.game} {'+'.join(map(str, args.heaps))}: {product_size(parts):,} positions,"
        f" value {res.value}, {ok}, {secs:.2f} s, peak {peak:.0f} MiB"
    )


if __name__ == "__main__":
    main()
