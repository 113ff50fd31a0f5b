"""Issue 14's sweep at scale: generate random graphs of every semantics (cyclic and acyclic)
and run the full `verify` on each through the command line, at the default settings.

Usage::

    .venv/bin/python benchmarks/bench_sweep.py                    # 10^6 nodes, degree 3
    .venv/bin/python benchmarks/bench_sweep.py --nodes 100000 --semantics impartial

Prints one line per case: semantics, cyclic or acyclic, nodes, moves, the verdict, the wall
seconds of generation and of verify, and verify's peak memory (``/usr/bin/time``, the process
tree's largest resident set); the checks that did not confirm, if any.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from benchtools import generate_random, run_cli

SEMANTICS = ("minimax", "normal", "reachability", "impartial")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--degree", type=float, default=3.0)
    ap.add_argument("--semantics", nargs="+", default=list(SEMANTICS))
    args = ap.parse_args()
    print("semantics     graph    nodes     moves  verdict       gen s  verify s  peak MB")
    with tempfile.TemporaryDirectory() as tmp:
        for sem in args.semantics:
            for acyclic in (False, True):
                path = Path(tmp) / f"{sem}-{acyclic}.npz"
                gen, t_gen, _ = generate_random(
                    sem, args.nodes, args.degree, 0, path, acyclic=acyclic
                )
                if gen.returncode != 0:
                    print(sem, "generation failed:", gen.stderr.strip()[-300:])
                    continue
                proc, t_ver, peak = run_cli(["verify", str(path), "--json", "--no-values"])
                doc = json.loads(proc.stdout)
                rep = doc["cases"][0] if "cases" in doc else doc
                open_ = [c["name"] for c in rep["checks"] if c["verdict"] != "confirmed"]
                print(
                    f"{sem:13s} {'acyclic' if acyclic else 'cyclic':8s} {rep['nodes']:8d} "
                    f"{rep['edges']:9d}  {rep['verdict']:12s} {t_gen:6.1f}  {t_ver:8.1f}  "
                    f"{peak / 1024:7.0f}" + (f"  open: {open_}" if open_ else ""),
                    flush=True,
                )


if __name__ == "__main__":
    main()
