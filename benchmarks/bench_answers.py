"""Issue 16's answer-check benchmark: a stranger's whole answer table (``.npz`` or
``.parquet``) judged against its graph by ``verify --answers FILE --linear``, whole process.

Usage::

    .venv/bin/python benchmarks/bench_answers.py                          # 10^7 nodes, normal
    .venv/bin/python benchmarks/bench_answers.py --nodes 1000000 --semantics minimax normal
    .venv/bin/python benchmarks/bench_answers.py --nodes 1000000 --formats 5     # + output formats
    .venv/bin/python benchmarks/bench_answers.py --case big.npz --answers big.parquet --formats 5

Per semantics: generate a random cyclic graph (degree 4), write our answer table with
``solve -o`` (compiled engine), then time, each as a whole process under ``/usr/bin/time``:
``solve`` itself (the baseline: reading the case and solving it once), ``verify --answers
--linear`` on the table as written (must be verified) and on the table with one value flipped
(must be refuted, naming the node). Prints wall seconds, peak memory, bytes per move, and the
check's ratio to the baseline solve measured in the same run.

``--formats N`` (issue 44 item 4: any output format costs at most 2x the quietest run): ``verify
--answers --linear`` with ``-q``, ``--json`` and ``--format csv``, standard output to a file, in
N interleaved rounds after one unmeasured round; each format's wall and CPU seconds over the
``-q`` run of the same round, the median of the N ratios. ``--case`` and ``--answers`` time
given files instead of generating them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
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


FORMATS = {"-q": ["--quiet"], "--json": ["--json"], "--format csv": ["--format", "csv"]}
"""The output formats timed by ``--formats``; ``-q`` the yardstick."""


def timed(args: list[str], out: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds (user + system of the process) and exit code of ``verifier ARGS``,
    its standard output written to ``out``."""
    with out.open("wb") as stdout:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "verifier.cli", *args],
            stdout=stdout,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode


def format_ratios(
    case: Path, answers: Path, limit: str | None, rounds: int, tmp: Path
) -> list[str]:
    """Each output format's seconds over the ``-q`` run of the same round (module docstring)."""
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in FORMATS}
    for r in range(rounds + 1):  # the first round fills the caches, unmeasured
        for name, flags in FORMATS.items():
            args = ["verify", str(case), "--answers", str(answers), "--linear"]
            limits = ["--max-positions", limit] if limit else []  # else the default's
            wall, cpu, code = timed([*args, *limits, *flags], tmp / "out")
            if code != 0:
                return [f"    {name}: exit {code}"]
            if r:
                runs[name].append((wall, cpu))
    quiet = runs["-q"]
    lines = [
        f"    -q            wall {statistics.median(w for w, _ in quiet):6.2f} s"
        f"  cpu {statistics.median(c for _, c in quiet):6.2f} s   ({rounds} rounds)"
    ]
    for name in [n for n in FORMATS if n != "-q"]:
        wall = statistics.median(a[0] / b[0] for a, b in zip(runs[name], quiet, strict=True))
        cpu = statistics.median(a[1] / b[1] for a, b in zip(runs[name], quiet, strict=True))
        lines.append(f"    {name:<13} x -q: wall {wall:5.2f}  cpu {cpu:5.2f}  (median of pairs)")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=10_000_000)
    ap.add_argument("--degree", type=float, default=4.0)
    ap.add_argument("--semantics", nargs="+", default=["normal"], choices=SEMANTICS)
    ap.add_argument("--suffix", default=".npz", choices=(".npz", ".parquet"))
    ap.add_argument("--formats", type=int, default=0, metavar="ROUNDS")
    ap.add_argument("--case", type=Path, help="time these files (with --answers), no generation")
    ap.add_argument("--answers", type=Path)
    args = ap.parse_args()
    limit = str(int(args.nodes * (args.degree + 1) * 1.2))
    if args.case is not None:
        with tempfile.TemporaryDirectory() as tmp:
            print(f"{args.case} with {args.answers}: output formats over -q")
            rows = format_ratios(args.case, args.answers, None, args.formats or 5, Path(tmp))
            print("\n".join(rows))
        return
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
            if args.formats:
                print("\n".join(format_ratios(case, table, limit, args.formats, Path(tmp))))


if __name__ == "__main__":
    main()
