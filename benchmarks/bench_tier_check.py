"""Checking a tiered dataset at scale: ``verify DIR --engine dask``, against its solve.

Usage::

    .venv/bin/python benchmarks/bench_tier_check.py [--sizes 5x4] [--workers 2]
        [--worker-memory 1.5GB] [--files 8] [--write-doc]

Per Connect Four board, each command a process of its own (as a user runs them): generate and
solve the dataset (``--engine dask``), then

- ``verify DIR --engine dask``: the dataset's own answers judged shard by shard;
- ``verify DIR --answers TABLE --engine dask``: the same answers as a stranger hands them in,
  ``--files`` Parquet files of rows in a random order (``code``, ``value``, ``remoteness``),
  routed to their shards, aligned and judged;

wall seconds (cluster start-up included), the driver's and each worker's peak resident memory
(``bench_scaleout.run_sampled``), and the ratio of each check to the solve measured in the same
run. ``--write-doc`` puts the table in docs/distributed.md ("Checking at scale").
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
from bench_scaleout import _mb, run_sampled
from benchtools import load_note, write_block

DOC = Path(__file__).resolve().parent.parent / "docs" / "distributed.md"
BEGIN = "<!-- bench_tier_check: begin -->"
END = "<!-- bench_tier_check: end -->"


def export_table(root: Path, out: Path, files: int) -> int:
    """The dataset's answers as a stranger's table: ``files`` Parquet files, rows shuffled."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from verifier.dataset.manifest import load_manifest
    from verifier.dataset.storage import read_answers, read_codes

    m = load_manifest(root)
    codes, labels, rems = [], [], []
    for t in m.tiers:
        for s in t.shards:
            codes.append(read_codes(root, t.tier, s.shard, s.sha256, s.positions))
            lab, rem = read_answers(root, t.tier, s.shard, s.answers_sha256, s.positions)
            labels.append(lab)
            rems.append(rem)
    code = np.concatenate(codes)
    order = np.random.default_rng(0).permutation(len(code))
    cols = {"code": code, "value": np.concatenate(labels), "remoteness": np.concatenate(rems)}
    out.mkdir(parents=True)
    for k, rows in enumerate(np.array_split(order, files)):
        rem = cols["remoteness"][rows]
        table = pa.table(
            {
                "code": cols["code"][rows],
                "value": cols["value"][rows],
                "remoteness": pa.array(rem, mask=rem < 0),
            }
        )
        pq.write_table(table, out / f"part-{k:03}.parquet")
    return len(code)


def _step(
    args: list[str], what: str, ok: tuple[int, ...] = (0,)
) -> tuple[float, int, list[int], str]:
    proc, seconds, driver, workers = run_sampled(args)
    if proc.returncode not in ok:
        sys.exit(f"{what} failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
    return seconds, driver, workers, proc.stdout


def measure(w: int, h: int, workers: int, memory: str, files: int, tmp: Path) -> str:
    ds = tmp / f"c{w}{h}"
    cluster = ["--engine", "dask", "--workers", str(workers), "--worker-memory", memory]
    size = ["--width", str(w), "--height", str(h)]
    _step(["generate", "connect4", *size, "-o", str(ds), *cluster], "generate")
    sol_s, _, _, _ = _step(["solve", str(ds), *cluster], "solve")
    own_s, own_d, own_w, out = _step(["verify", str(ds), "--json", *cluster], "verify")
    own = json.loads(out)
    table = tmp / f"theirs{w}{h}"
    rows = export_table(ds, table, files)
    th_s, th_d, th_w, out = _step(
        ["verify", str(ds), "--answers", str(table), "--json", *cluster], "verify --answers"
    )
    theirs = json.loads(out)
    assert own["verdict"] == theirs["verdict"] == "verified", (own["verdict"], theirs["verdict"])
    print(f"{w}x{h}: solve {sol_s:.1f} s, verify {own_s:.1f} s, verify --answers {th_s:.1f} s")
    return (
        f"| {w}x{h} | {own['positions']:,} | {sol_s:.1f} | {own_s:.1f} ({own_s / sol_s:.2f}x) "
        f"| {_mb(own_d)} | {' / '.join(map(_mb, own_w))} | {rows:,} rows in {files} files: "
        f"{th_s:.1f} ({th_s / sol_s:.2f}x) | {_mb(th_d)} | {' / '.join(map(_mb, th_w))} "
        f"| {own['verdict']} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", default=["5x4"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--worker-memory", default="1.5GB")
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--write-doc", action="store_true")
    a = ap.parse_args()
    load = load_note()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [
            measure(*(int(x) for x in s.split("x")), a.workers, a.worker_memory, a.files, Path(tmp))
            for s in a.sizes
        ]
    table = "\n".join(
        [
            f"Measured by `benchmarks/bench_tier_check.py --sizes {' '.join(a.sizes)}` "
            f"({a.workers} workers, `--worker-memory {a.worker_memory}`; load average {load} at "
            "the start, on a shared 2-core machine). Seconds include starting the LocalCluster; "
            "the ratio is to the solve of the same dataset in the same run; memory: peak "
            "resident MB (VmHWM) per process.",
            "",
            "| board | positions | solve s | verify s | driver MB | workers MB "
            "| verify --answers s | driver MB | workers MB | verdict |",
            "|---|---|---|---|---|---|---|---|---|---|",
            *rows,
        ]
    )
    print(table)
    if a.write_doc:
        write_block(DOC, BEGIN, END, f"{BEGIN}\n{table}\n{END}")


if __name__ == "__main__":
    main()
