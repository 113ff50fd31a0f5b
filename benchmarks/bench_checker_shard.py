"""The standalone checker's judgement of a dataset's shards (``checker/judge.py`` ``values``),
in this process, on a dataset and its certificate already on disk (Connect Four 6x5's, say):
each shard's seconds and positions a second, its first shard cold (the next tier read from the
files), the others with the shards kept as the cache allows (``CHECKER_CACHE_BYTES``).
``--from DIR`` judges with the checker of another checkout (a snapshot of main): run both,
alternately, to compare (the whole-process timer's ``--vs``), each with the same shards.

Usage::

    .venv/bin/python benchmarks/bench_checker_shard.py DATASET CERT --tier 23 --shards 0,1,2
        [--from /path/to/other/checkout]
"""

from __future__ import annotations

import argparse
import sys
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset")
    ap.add_argument("certificate")
    ap.add_argument("--tier", type=int, required=True)
    ap.add_argument("--shards", default="0", help="comma-separated shards of the tier")
    ap.add_argument("--from", dest="source", default=None, help="the checkout whose checker runs")
    a = ap.parse_args()
    if a.source:
        sys.path.insert(0, a.source)
    from checker import dataset, judge

    spec = dataset.read_certificate(a.dataset, a.certificate)
    rules = dataset.GAMES[spec.game](spec.width, spec.height)
    total = 0.0
    for j in (int(s) for s in a.shards.split(",")):
        t = time.perf_counter()
        r = judge.values(spec, rules, a.tier, j)
        dt = time.perf_counter() - t
        total += dt
        n = r.counts[0]
        print(f"tier {a.tier} shard {j}: {n:,} positions in {dt:.2f} s ({n / dt:,.0f} a second)")
    print(f"total {total:.2f} s; checker from {dataset.__file__}")


if __name__ == "__main__":
    main()
