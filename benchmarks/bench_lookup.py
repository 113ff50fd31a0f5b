"""``verifier.dataset.storage.rows_of`` (moves' targets sorted, then searched) against a plain
``np.searchsorted`` of the same keys in move order, as a solve or check task looks up its moves
in a shard of the next tier: ``--codes`` sorted shard codes, key counts from a shard group's to
a whole shard's moves; each measured in the same run, best of ``--repeat``, ratio printed.

Usage::

    .venv/bin/python benchmarks/bench_lookup.py [--codes 7500000] [--repeat 3]
"""

from __future__ import annotations

import argparse
from functools import partial

import numpy as np
from benchtools import best_of

from verifier.dataset.storage import rows_of


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--codes", type=int, default=7_500_000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    codes = np.unique(rng.integers(0, 2**62, a.codes, dtype=np.uint64))
    print(f"{len(codes):,} sorted codes (a shard); keys drawn from them in random order")
    print("| keys | plain searchsorted s | rows_of s | ratio |")
    print("|---|---|---|---|")
    for m in (100_000, 1_000_000, 5_000_000):
        want = rng.choice(codes, m)
        plain = np.minimum(np.searchsorted(codes, want), len(codes) - 1)
        assert (rows_of(codes, want) == plain).all()
        t_plain = best_of(partial(np.searchsorted, codes, want), a.repeat)
        t_rows = best_of(partial(rows_of, codes, want), a.repeat)
        print(f"| {m:,} | {t_plain:.3f} | {t_rows:.3f} | {t_plain / t_rows:.1f}x |")


if __name__ == "__main__":
    main()
