"""Chess endgames through the sharded route (each material a tier of a stored graph, generated
shard by shard on Dask workers) against the in-memory generate and solve.

Usage::

    .venv/bin/python benchmarks/bench_chess_tiers.py [--materials KPK KQKR:symmetric]
        [--workers 2] [--worker-memory 1.5GB] [--write-doc]

(``M:symmetric``: with ``--symmetry``, positions joined up to the board's symmetries.)

Per material, as a user runs it (each command a process of its own):

- ``verifier generate chess:M -o DIR --engine dask --workers N --worker-memory SIZE``, then
  ``verifier solve DIR --engine dask`` and ``verifier verify DIR --engine dask`` with the same
  options: wall seconds (cluster start-up included), the peak resident memory of the driver
  and of each worker process (``bench_scaleout.run_sampled``), the dataset's size on disk;
- ``verifier generate chess:M -o case.npz`` and ``verifier solve case.npz``: wall seconds and
  peak memory of each (``/usr/bin/time``).

``--write-doc`` puts the Markdown table in docs/distributed.md, section "Chess on the sharded
route".
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from bench_scaleout import _disk, _mb, run_sampled
from benchtools import load_note, run_cli, write_block

DOC = Path(__file__).resolve().parent.parent / "docs" / "distributed.md"
BEGIN = "<!-- bench_chess_tiers: begin -->"
END = "<!-- bench_chess_tiers: end -->"


def _check(proc: object, what: str) -> None:
    code = getattr(proc, "returncode", 1)
    if code:
        sys.exit(f"{what} failed (exit {code}): {getattr(proc, 'stderr', '').strip()[-800:]}")


def measure(material: str, symmetry: bool, workers: int, memory: str, tmp: Path) -> str:
    """One material's table row."""
    ds = tmp / material
    sym = ["--symmetry"] if symmetry else []
    cluster = ["--engine", "dask", "--workers", str(workers), "--worker-memory", memory]
    gen, gen_s, gen_driver, gen_workers = run_sampled(
        ["generate", f"chess:{material}", *sym, "-o", str(ds), *cluster]
    )
    _check(gen, f"generate {material}")
    print(f"{material}: generate {gen_s:.1f} s ({_mb(gen_driver)}; {gen_workers})", flush=True)
    disk = _disk(ds)
    sol, sol_s, sol_driver, sol_workers = run_sampled(["solve", str(ds), *cluster, "--json"])
    _check(sol, f"solve {material}")
    doc = json.loads(sol.stdout)
    print(f"{material}: solve {sol_s:.1f} s ({_mb(sol_driver)}; {sol_workers})", flush=True)
    ver, ver_s, ver_driver, ver_workers = run_sampled(["verify", str(ds), *cluster])
    _check(ver, f"verify {material}")
    verdict = ver.stdout.split(":")[0]
    print(f"{material}: verify {ver_s:.1f} s ({_mb(ver_driver)}; {ver_workers})", flush=True)
    shards = sum(t["shards"] for t in doc["tiers"])
    first = doc["materials"][0]["white"]
    longest = f"mate in {first['mate_in']}" if first else "no win"
    shutil.rmtree(ds)
    case = tmp / f"{material}.npz"
    made, made_s, made_kb = run_cli(["generate", f"chess:{material}", *sym, "-o", str(case)])
    _check(made, f"generate {material} in memory")
    print(f"{material}: in-memory generate {made_s:.1f} s ({made_kb} KB)", flush=True)
    mem, mem_s, mem_kb = run_cli(["solve", str(case), "--max-positions", "2000000000"])
    _check(mem, f"solve {material} in memory")
    case.unlink()
    ws = " / ".join
    print(
        f"{material}: generate {gen_s:.1f} s, solve {sol_s:.1f} s, verify {ver_s:.1f} s; in "
        f"memory generate {made_s:.1f} s, solve {mem_s:.1f} s",
        flush=True,
    )
    return (
        f"| {material}{' (sym.)' if symmetry else ''} | {doc['positions']:,} | "
        f"{doc['parameters']['edges']:,} | {len(doc['tiers'])} / {shards} | {_mb(disk)} | "
        f"{gen_s:.1f} ({_mb(gen_driver)}; {ws(map(_mb, gen_workers))}) | "
        f"{sol_s:.1f} ({_mb(sol_driver)}; {ws(map(_mb, sol_workers))}) | "
        f"{ver_s:.1f} ({_mb(ver_driver)}; {ws(map(_mb, ver_workers))}), {verdict} | "
        f"{longest} | {made_s:.1f} ({_mb(made_kb * 1024)}) | {mem_s:.1f} ({_mb(mem_kb * 1024)}) |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--materials", nargs="*", default=["KPK", "KQKR:symmetric"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--worker-memory", default="1.5GB")
    ap.add_argument("--write-doc", action="store_true")
    a = ap.parse_args()
    load = load_note()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [
            measure(
                m.split(":")[0], m.endswith(":symmetric"), a.workers, a.worker_memory, Path(tmp)
            )
            for m in a.materials
        ]
    table = "\n".join(
        [
            f"Measured by `benchmarks/bench_chess_tiers.py --materials {' '.join(a.materials)}"
            f"` ({a.workers} workers, `--worker-memory {a.worker_memory}`; load average "
            f"{load} at the start, on a shared 2-core machine). Seconds include starting the "
            "LocalCluster; in brackets the peak resident MB (VmHWM) of the driver, then of "
            "each worker process; the in-memory columns are `verifier generate chess:M -o "
            "case.npz` and `verifier solve case.npz` (peak MB of the process).",
            "",
            "| material | positions | moves | tiers / shards | disk MB | generate s (MB) "
            "| solve s (MB) | verify s (MB) | longest win (tier 0, White) | in-memory generate "
            "s (MB) | in-memory solve s (MB) |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
            *rows,
        ]
    )
    print(table)
    if a.write_doc:
        write_block(DOC, BEGIN, END, f"{BEGIN}\n{table}\n{END}")


if __name__ == "__main__":
    main()
