"""``verifier.distinct.distinct`` (one sort) against ``np.unique`` (numpy 2.3+ hashes integers)
on the arrays the package de-duplicates: random 64-bit codes, node ids with repeats, few
distinct values; each measured in the same run, best of ``--repeat``, ratio printed.

Usage::

    .venv/bin/python benchmarks/bench_distinct.py [--size 1000000] [--repeat 5]
"""

from __future__ import annotations

import argparse
from functools import partial

import numpy as np
from benchtools import best_of

from verifier.distinct import distinct


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    n = a.size
    arrays = {
        "random uint64 codes": rng.integers(0, 2**62, n, dtype=np.uint64),
        "node ids, each about twice": rng.integers(0, n // 2, n).astype(np.int64),
        "1,000 distinct int64": rng.integers(0, 1000, n).astype(np.int64),
    }
    print(f"numpy {np.__version__}, {n:,} values, best of {a.repeat}")
    print("| array | np.unique s | distinct s | np.unique / distinct |")
    print("|---|---|---|---|")
    for name, x in arrays.items():
        assert np.array_equal(np.unique(x), distinct(x))
        u = best_of(partial(np.unique, x), a.repeat)
        d = best_of(partial(distinct, x), a.repeat)
        print(f"| {name} | {u:.4f} | {d:.4f} | {u / d:.1f}x |")


if __name__ == "__main__":
    main()
