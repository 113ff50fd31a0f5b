"""Issue 16's answer-check benchmark: a stranger's whole answer table (``.npz`` or
``.parquet``) judged against its graph by ``verify --answers FILE --linear``, whole process.

Usage::

    .venv/bin/python benchmarks/bench_answers.py                          # 10^7 nodes, normal
    .venv/bin/python benchmarks/bench_answers.py --nodes 1000000 --semantics minimax normal

Per semantics: generate a random cyclic graph (degree 4), write our answer table with
``solve -o`` (compiled engine), then time, each as a whole process under ``/usr/bin/time``:
``solve`` itself (the baseline: reading the case and solving it once), ``verify --answers
--linear`` on the table as written (must be verified) and on the table with one value flipped
(must be refuted, naming the node). Prints wall seconds, peak memory, bytes per move, and the
check's ratio to the baseline solve measured in the same run.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from benchtools import generate_random, run_cli

SEMANTICS = ("minimax", "normal", "reachability", "impartial")


def flip_one(src: Path, dst: Path, semantics: str) -> int:
    """A copy of the answer table ``src`` with one claimed value changed; the node's id."""
    with np.load(src) as z:
        arrays = {k: z[k] for k in z.files}
    value = arrays["value"]
    row = len(value) // 2
    if semantics == "impartial":  # a finite Grundy value (an infinite one's K is in the header)
        row += int(np.argmax(value[row:] >= 0))
    if semantics == "minimax":
        value[row] = value[row] + 1
    elif semantics == "normal":
        value[row] = {1: -1, -1: 0, 0: 1}[int(value[row])]
    elif semantics == "reachability":
        value[row] = 1 - value[row]
    else:
        value[row] = value[row] + 1
    np.savez(dst, **arrays)
    return int(arrays["ids"][row])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=10_000_000)
    ap.add_argument("--degree", type=float, default=4.0)
    ap.add_argument("--semantics", nargs="+", default=["normal"], choices=SEMANTICS)
    ap.add_argument("--suffix", default=".npz", choices=(".npz", ".parquet"))
    args = ap.parse_args()
    limit = str(int(args.nodes * (args.degree + 1) * 1.2))
    print(f"nodes {args.nodes:,}, degree {args.degree}, table {args.suffix}")
    print(
        "semantics     moves       run                 verdict      wall s  peak MB  B/move"
        "  x solve"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for sem in args.semantics:
            case = Path(tmp) / f"{sem}.npz"
            table = Path(tmp) / f"{sem}.answers{args.suffix}"
            gen, _, _ = generate_random(sem, args.nodes, args.degree, 1, case)
            if gen.returncode != 0:
                print(sem, "generate failed:", gen.stdout[-300:], gen.stderr[-300:])
                continue
            with np.load(case) as z:
                moves = len(z["succ_idx"]) if "succ_idx" in z.files else -1
            solve, t_solve, p_solve = run_cli(
                [
                    "solve",
                    str(case),
                    "--engine",
                    "compiled",
                    "--max-positions",
                    limit,
                    "-o",
                    str(table),
                    "--force",
                ]
            )
            runs = [("solve -o (baseline)", solve, t_solve, p_solve)]
            flipped: list[str] = []
            for label, path in (("verify --linear", table), ("  one value flipped", None)):
                node = -1
                if path is None:
                    if args.suffix != ".npz":
                        continue
                    path = Path(tmp) / f"{sem}.flipped.npz"
                    node = flip_one(table, path, sem)
                proc, secs, peak = run_cli(
                    [
                        "verify",
                        str(case),
                        "--answers",
                        str(path),
                        "--linear",
                        "--max-positions",
                        limit,
                        "--quiet",
                    ]
                )
                runs.append((label, proc, secs, peak))
                if node >= 0:
                    said = proc.stdout.strip().splitlines()[:1]
                    flipped.append(f"    flipped id {node}: {said[0][:160] if said else ''}")
            for label, proc, secs, peak in runs:
                verdicts = {0: "ok/verified", 1: "refuted", 2: "bad input", 3: "inconclusive"}
                verdict = verdicts.get(proc.returncode, str(proc.returncode))
                mb = peak / 1024
                per_move = peak * 1024 / moves if moves > 0 else float("nan")
                print(
                    f"{sem:<13} {moves:>10,}  {label:<19} {verdict:<12}"
                    f" {secs:7.2f} {mb:8.0f} {per_move:7.1f} {secs / t_solve:8.2f}"
                )
                if proc.returncode not in (0, 1):
                    print("   ", proc.stdout[-400:], proc.stderr[-400:])
            print("\n".join(flipped))


if __name__ == "__main__":
    main()
