"""Issue 31's certificate benchmark: what a certificate costs to write and to check, against
``verify --answers --linear`` on the same table, measured in the same run (whole processes).

Usage::

    .venv/bin/python benchmarks/bench_certificates.py                       # 10^5 and 10^6
    .venv/bin/python benchmarks/bench_certificates.py --nodes 1000000 --semantics normal

Per semantics and size: generate a random cyclic graph (degree 4, ``.npz``), then time
``solve -o answers.npz --certificate cert.npz`` (solving, writing both, and the standalone
checker judging them), ``verify --answers answers.npz --linear`` (the baseline: the package's
linear judgement of the same table), and the standalone checker alone on the ``.npz``
certificate (``python checker/check_certificate.py``, numpy reading, pure-Python conditions).
Prints seconds, peak memory, certificate bytes per position and the checker's ratio to the
linear verify.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchtools import generate_random, run_cli

SEMANTICS = ("minimax", "normal", "reachability", "impartial")
CHECKER = Path(__file__).resolve().parents[1] / "checker" / "check_certificate.py"


def run_checker(case: Path, cert: Path) -> tuple[subprocess.CompletedProcess[str], float, int]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        ["/usr/bin/time", "-f", "%M", sys.executable, str(CHECKER), str(case), str(cert)],
        capture_output=True,
        text=True,
    )
    secs = time.perf_counter() - t0
    peak = int(proc.stderr.strip().splitlines()[-1]) if proc.stderr.strip() else -1
    return proc, secs, peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--degree", type=float, default=4.0)
    ap.add_argument("--semantics", nargs="+", default=list(SEMANTICS), choices=SEMANTICS)
    args = ap.parse_args()
    print(f"degree {args.degree}; seconds are whole processes; x linear = / verify --linear")
    print(
        f"{'semantics':<13} {'positions':>10}  {'run':<34} {'exit':>4} {'s':>7} {'MB':>6}"
        f" {'B/pos':>6} {'x linear':>8}"
    )
    for n in args.nodes:
        limit = str(int(n * (args.degree + 1) * 1.5))
        for sem in args.semantics:
            with tempfile.TemporaryDirectory() as tmp:
                case, ans, cert = (Path(tmp) / f for f in ("case.npz", "ans.npz", "cert.npz"))
                gen, _, _ = generate_random(sem, n, args.degree, 1, case)
                if gen.returncode != 0:
                    print(sem, n, "generate failed:", gen.stderr[-300:])
                    continue
                solve = run_cli(
                    [
                        "solve",
                        str(case),
                        "--engine",
                        "compiled",
                        "--max-positions",
                        limit,
                        "-o",
                        str(ans),
                        "--certificate",
                        str(cert),
                        "--quiet",
                    ]
                )
                linear = run_cli(
                    [
                        "verify",
                        str(case),
                        "--answers",
                        str(ans),
                        "--linear",
                        "--quiet",
                        "--max-positions",
                        limit,
                        "--no-self-check",
                    ]
                )
                alone = run_checker(case, cert) if cert.exists() else None
                size = cert.stat().st_size / n if cert.exists() else float("nan")
                rows = [
                    ("solve -o --certificate (+ checker)", solve),
                    ("verify --answers --linear (baseline)", linear),
                ]
                if alone is not None:
                    rows.append(("checker/check_certificate.py", alone))
                for label, (proc, secs, peak) in rows:
                    ratio = secs / linear[1]
                    print(
                        f"{sem:<13} {n:>10,}  {label:<34} {proc.returncode:>4} {secs:7.2f}"
                        f" {peak / 1024:6.0f} {size:6.1f} {ratio:8.2f}"
                    )
                    if proc.returncode != 0:
                        print("   ", proc.stdout[-300:].strip(), proc.stderr[-300:].strip())


if __name__ == "__main__":
    main()
