"""``python -m verifier.distributed CASE [--scheduler ADDR] [--out DIR] [--workers N]``.

Solves a case file (``.json``, ``.npz``, ``.graphml``, ``.gml``) or a directory of Parquet
tables on a Dask cluster (stored as a dataset of one tier, solved in rounds) and prints the
summary as JSON (the same keys as ``verify``), plus the engine and the shards.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from verifier.distributed.api import solve_distributed
from verifier.errors import VerifierError
from verifier.model.semantics import Semantics

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Solve the case named on the command line and print its summary; the exit code."""
    ap = argparse.ArgumentParser(prog="python -m verifier.distributed", description=__doc__)
    ap.add_argument("case", type=Path, help="case file or directory of Parquet tables")
    ap.add_argument("--scheduler", help="address of a Dask scheduler (default: LocalCluster)")
    ap.add_argument("--out", type=Path, help="store the dataset and summary.json here")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster workers (default 2)")
    ap.add_argument("--partitions", type=int, help="shards (default: one per worker)")
    ap.add_argument(
        "--semantics",
        choices=[s.value for s in Semantics],
        help="semantics of a Parquet graph without stored metadata",
    )
    args = ap.parse_args(argv)
    if not args.case.exists():
        print(f"error: {args.case}: no such file or directory", file=sys.stderr)
        return 2
    try:
        result = solve_distributed(
            args.case,
            scheduler=args.scheduler,
            out=args.out,
            workers=args.workers,
            partitions=args.partitions,
            semantics=Semantics(args.semantics) if args.semantics else None,
        )
    except (VerifierError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    summary = dict(result.summary)
    summary["seconds"] = round(result.seconds, 3)
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
