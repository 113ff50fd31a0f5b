"""Shard sizing before and after, in one run: a random graph generated and solved on the
sharded route by two source trees taking turns (the shards each tree's sizing picks).

Usage: ``PYTHONPATH=. python benchmarks/bench_shard_sizing.py --before DIR [--nodes 10000000]
[--worker-memory 1.5GB] [--repeat 2]``, where ``DIR`` holds an earlier version's ``verifier``
package (e.g. ``git archive REV | tar -x -C DIR``). Each tree generates the graph (``generate
random --nodes N --degree 3 --seed 1``) once, then the two solves take turns ``--repeat``
times (the machine is shared: the turns see the same load) and each keeps its fastest. Prints
per tree the shards, the generation's and the fastest solve's seconds, the peak resident MB of
the driver and of each worker (``bench_scaleout.run_sampled``), and the solve time after over
before.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from bench_scaleout import run_sampled
from benchtools import load_note


def _mb(n: int) -> str:
    return f"{n / 1e6:,.0f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, type=Path, help="an earlier source tree")
    ap.add_argument("--nodes", type=int, default=10_000_000)
    ap.add_argument("--worker-memory", default="1.5GB")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    trees = {
        "before": str(a.before.resolve()),
        "after": str(Path(__file__).resolve().parent.parent),
    }
    cluster = ["--engine", "dask", "--workers", str(a.workers), "--worker-memory", a.worker_memory]
    spec = ["--nodes", str(a.nodes), "--degree", "3", "--seed", "1"]
    print(f"load average {load_note()} at the start", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        rows: dict[str, list[str]] = {}
        best: dict[str, float] = {}
        for name, tree in trees.items():
            os.environ["PYTHONPATH"] = tree
            os.chdir(tree)  # ``-m`` puts the working directory first on the path
            ds = str(Path(tmp) / name)
            gen, gen_s, _, gen_w = run_sampled(["generate", "random", *spec, "-o", ds, *cluster])
            if gen.returncode:
                raise SystemExit(f"{name}: generate failed: {gen.stderr.strip()[-300:]}")
            wrote = next(x for x in (gen.stdout + gen.stderr).splitlines() if "wrote" in x)
            print(f"{name}: {wrote} ({gen_s:.1f} s)", flush=True)
            rows[name] = [wrote.split(" in ")[-1].split()[0], f"{gen_s:.1f}",
                          " / ".join(map(_mb, gen_w))]  # fmt: skip
        for _ in range(a.repeat):
            for name, tree in trees.items():
                os.environ["PYTHONPATH"] = tree
                os.chdir(tree)  # ``-m`` puts the working directory first on the path
                sol, s, drv, wrk = run_sampled(["solve", str(Path(tmp) / name), *cluster])
                ok = "ok" if sol.returncode == 0 else f"exit {sol.returncode}"
                print(f"{name}: solve {s:.1f} s, driver {_mb(drv)} MB, workers "
                      f"{' / '.join(map(_mb, wrk))} MB, {ok}", flush=True)  # fmt: skip
                if sol.returncode == 0 and s < best.get(name, float("inf")):
                    best[name] = s
                    rows[name][3:] = [f"{s:.1f}", _mb(drv), " / ".join(map(_mb, wrk))]
        print("| tree | shards | generate s | workers MB | solve s | driver MB | workers MB |")
        for name, r in rows.items():
            print(f"| {name} | {' | '.join(r)} |")
        if len(best) == 2:
            print(f"after / before: {best['after'] / best['before']:.2f}")


if __name__ == "__main__":
    main()
