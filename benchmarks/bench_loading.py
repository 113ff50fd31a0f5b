"""Load times of the case formats on large random graphs (run by hand, not in CI).

    .venv/bin/python benchmarks/bench_loading.py
    .venv/bin/python benchmarks/bench_loading.py --size 100000:400000 --readable-size ""

For each size a random minimax graph (owners on inner nodes, integer values on terminals) is
written as compact JSON and as ``.npz`` (default: 4*10^6 and 10^7 edges; plus a readable-JSON
row at 4*10^5 edges); then each file is read back with the loaders the CLI
uses, timed with ``time.perf_counter`` (best of ``--repeat``), and checked to be the same graph.
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from verifier.io import dump_case, load_case, load_npz, save_npz
from verifier.model import MAX, NOBODY, Case, GameGraph, Semantics

FORMATS = [("compact JSON", ".json"), ("npz", ".npz")]


def random_case(n: int, m: int, seed: int = 1) -> Case:
    """A random minimax case with about ``m`` distinct edges (built from arrays directly)."""
    rng = np.random.default_rng(seed)
    key = np.unique(rng.integers(0, n, m) * n + rng.integers(0, n, m))
    src, dst = key // n, key % n
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=ptr[1:])
    inner = np.diff(ptr) > 0
    owner = np.where(inner, rng.integers(MAX, MAX + 2, n), NOBODY).astype(np.int8)
    value = np.where(inner, np.nan, rng.integers(-5, 6, n).astype(np.float64))
    graph = GameGraph(
        semantics=Semantics.MINIMAX,
        succ_ptr=ptr,
        succ_idx=dst,
        owner=owner,
        value=value,
        target=np.zeros(n, dtype=np.bool_),
    )
    return Case(graph=graph, id=f"random-{n}-{m}", root=0)


def best_of(repeat: int, fn: Callable[[], object]) -> tuple[float, float, object]:
    """Best wall-clock and best CPU seconds of ``repeat`` calls, and the last result.

    CPU time is printed too: on a shared machine the wall clock also counts other people's work.
    """
    wall, cpu, result = float("inf"), float("inf"), None
    for _ in range(repeat):
        result = None
        gc.collect()
        t, c = time.perf_counter(), time.process_time()
        result = fn()
        wall = min(wall, time.perf_counter() - t)
        cpu = min(cpu, time.process_time() - c)
    return wall, cpu, result


def same(a: GameGraph, b: GameGraph) -> bool:
    return (
        np.array_equal(a.succ_ptr, b.succ_ptr)
        and np.array_equal(a.succ_idx, b.succ_idx)
        and np.array_equal(a.owner, b.owner)
        and np.array_equal(a.value, b.value, equal_nan=True)
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--size",
        action="append",
        help="NODES:EDGES (repeatable); default 1000000:4000000 and 2500000:10000000",
    )
    ap.add_argument(
        "--readable-size",
        default="100000:400000",
        help="NODES:EDGES of the readable-JSON row (empty: none)",
    )
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    sizes = [(s, False) for s in args.size or ["1000000:4000000", "2500000:10000000"]]
    if args.readable_size:
        sizes.insert(0, (args.readable_size, True))
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    head = f"{'nodes':>10} {'edges':>10} {'format':>13} {'MB':>7} {'write s':>8}"
    print(f"{head} {'load s':>8} {'load cpu s':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        for spec, readable in sizes:
            n, m = (int(float(x)) for x in spec.split(":"))
            case = random_case(n, m)
            g = case.graph
            formats = [("readable JSON", ".json")] if readable else FORMATS
            for fmt, suffix in formats:
                path = Path(tmp) / f"case{suffix}"
                t = time.perf_counter()
                if suffix == ".json":
                    dump_case(case, path, "readable" if readable else "compact")
                else:
                    save_npz(case, path)
                write = time.perf_counter() - t
                loader: Callable[[Path], Case] = load_case if suffix == ".json" else load_npz
                seconds, cpu, loaded = best_of(args.repeat, partial(loader, path))
                assert isinstance(loaded, Case) and same(g, loaded.graph), "round trip differs"
                mb = path.stat().st_size / 1e6
                row = f"{g.n:>10} {g.m:>10} {fmt:>13} {mb:>7.1f} {write:>8.2f}"
                print(f"{row} {seconds:>8.2f} {cpu:>10.2f}", flush=True)
                path.unlink()
                del loaded


if __name__ == "__main__":
    main()
