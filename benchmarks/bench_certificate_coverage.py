"""Issue 31's coverage measurement: the share of the report's confirmed claims that the
standalone checker checks without Z3, per semantics, on random graphs (cyclic, self-loops,
mean degree 2.5): each case is verified (the self-check writes and checks its certificate) and
the certificate's uniqueness proof is counted: checked (``ranks``, ``drup``, ``witness``,
``intervals``, ``mex``) or ``rests-on-z3``.

Usage::

    .venv/bin/python benchmarks/bench_certificate_coverage.py [--cases 50] [--nodes 8 40]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import Counter
from pathlib import Path

from verifier import api
from verifier.games.random_graphs import random_case
from verifier.io import save_any

SEMANTICS = ("normal", "minimax", "reachability", "impartial")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=50, help="random cases per semantics and size")
    ap.add_argument("--nodes", type=int, nargs="+", default=[8, 40])
    args = ap.parse_args()
    print(f"{'semantics':<13} {'nodes':>5} {'cases':>5} {'verified':>8} {'accepted':>8}  proofs")
    with tempfile.TemporaryDirectory() as tmp:
        for sem in SEMANTICS:
            for n in args.nodes:
                proofs: Counter[str] = Counter()
                verified = accepted = 0
                for seed in range(args.cases):
                    case = save_any(random_case(sem, n, 2.5, seed=seed), Path(tmp) / "c.json")
                    cert = Path(tmp) / "c.cert.json"
                    rep = api.verify(case, certificate=cert)
                    verified += rep.verdict.value == "verified"
                    checks = [c for c in rep.checks if c.check == "certificate"]
                    accepted += bool(checks) and checks[0].verdict.value == "confirmed"
                    u = json.loads(cert.read_text()).get("uniqueness") if cert.exists() else None
                    proofs[u["proof"] if u else "no claim"] += 1
                shown = ", ".join(f"{k} {v}" for k, v in sorted(proofs.items()))
                print(f"{sem:<13} {n:>5} {args.cases:>5} {verified:>8} {accepted:>8}  {shown}")


if __name__ == "__main__":
    main()
