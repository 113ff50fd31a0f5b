"""End-to-end targets of issue 7 ("Z3 at scale"): the full ``verify`` of large random graphs
(run by hand, not in CI).

    .venv/bin/python benchmarks/bench_verify.py                       # 10^5 and 10^6 minimax
    .venv/bin/python benchmarks/bench_verify.py --semantics minimax normal reachability
    .venv/bin/python benchmarks/bench_verify.py --sizes 100000 --repeat 3 --no-write

Each graph is made by the CLI (``verifier generate random --semantics S --nodes N --degree 4
--seed 1 --cyclic``: random edges with cycles and self-loops, 10% dead ends) and verified by
the CLI in a subprocess (``verify FILE --json --no-values``: every solver, every check, every
Z3 query), exactly as a user runs it. Measured per run:

- wall seconds of the ``verify`` process;
- CPU seconds of it *and of its children* (the Z3 processes): ``os.wait4`` of the process,
  whose rusage includes the children it waited for;
- peak memory: the largest resident set of the whole process tree (``verify`` plus the Z3
  processes alive at the same moment), sampled from ``/proc`` every 50 ms, and the largest
  single-process high-water mark (``ru_maxrss``);
- seconds per stage and per check from the ``--json`` report.

The machine is described (CPU, cores, memory, load average before each run): on a shared
machine compare CPU seconds; wall seconds are what an idle machine shows only when the load
average was low. With ``--repeat N`` the run with the least CPU time is kept.

The tables replace the block between the ``bench-verify`` markers in ``docs/smt-scaling.md``
(``--no-write``: print only).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchtools import tree_rss

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
DOC = ROOT / "docs" / "smt-scaling.md"
BEGIN, END = "<!-- bench-verify:begin -->", "<!-- bench-verify:end -->"
TARGETS = {100_000: 20.0, 1_000_000: 180.0}
"""Wall-clock targets of issue 7 (seconds), with peak memory under ``MEMORY_TARGET``."""
MEMORY_TARGET = 8 << 30
PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass
class Run:
    nodes: int
    semantics: str
    edges: int = 0
    wall: float = 0.0
    cpu: float = 0.0
    peak_tree: int = 0
    peak_one: int = 0
    load: float = 0.0
    verdict: str = ""
    stages: dict[str, float] = field(default_factory=dict)
    checks: list[tuple[str, str, float]] = field(default_factory=list)


# ---------------------------------------------------------------------- memory of a process tree
def _watch(pid: int, peak: list[int], stop: threading.Event) -> None:
    while not stop.wait(0.05):
        peak[0] = max(peak[0], tree_rss(pid))


# ---------------------------------------------------------------------- one measurement
def generate(nodes: int, semantics: str, work: Path) -> Path:
    path = work / f"random-{semantics}-{nodes}.npz"
    if not path.exists():
        subprocess.run(
            [
                *(str(BIN / "verifier"), "generate", "random", "--semantics", semantics),
                *("--nodes", str(nodes), "--degree", "4", "--seed", "1", "--cyclic"),
                *("-o", str(path)),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return path


def measure(path: Path, nodes: int, semantics: str) -> Run:
    run = Run(nodes, semantics, load=os.getloadavg()[0])
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [str(BIN / "verify"), str(path), "--json", "--no-values"], stdout=out
        )
        peak, stop = [0], threading.Event()
        watcher = threading.Thread(target=_watch, args=(proc.pid, peak, stop), daemon=True)
        watcher.start()
        _, status, usage = os.wait4(proc.pid, 0)
        run.wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        stop.set()
        watcher.join()
        out.seek(0)
        report: dict[str, Any] = json.loads(out.read())
    run.cpu = usage.ru_utime + usage.ru_stime
    run.peak_tree = peak[0]
    run.peak_one = usage.ru_maxrss * 1024
    run.edges = int(report["edges"])
    run.verdict = str(report["verdict"])
    run.stages = {k: float(v) for k, v in report["stages"].items()}
    run.checks = [
        (c["name"], c["verdict"], float(c.get("seconds") or 0.0))
        for c in report["checks"]
        if c["name"].startswith("smt-")
    ]
    return run


# ---------------------------------------------------------------------- report
def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = os.sysconf("SC_PHYS_PAGES") * PAGE / (1 << 30)
    z3 = subprocess.run([str(BIN / "z3"), "--version"], capture_output=True, text=True).stdout
    return (
        f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB RAM, {platform.system()} "
        f"{platform.release()}, Python {platform.python_version()}, {z3.strip() or 'no z3'}"
    )


def tables(runs: list[Run], when: str) -> str:
    def gib(b: int) -> str:
        return f"{b / (1 << 30):.2f}"

    lines = [
        f"Measured {when} by `benchmarks/bench_verify.py` on: {machine()}.",
        "",
        "Full `verify FILE --json --no-values` (every solver, every check) of random graphs "
        "made by `verifier generate random --degree 4 --seed 1 --cyclic`. CPU = the `verify` "
        "process and its Z3 processes; peak = largest resident memory of the process tree "
        "(sampled every 50 ms); load = 1-minute load average before the run (the machine is "
        "shared: with load near 2 the wall time is inflated, compare CPU).",
        "",
        "| nodes | moves | semantics | verdict | wall s | CPU s | peak GiB (tree) "
        "| peak GiB (one process) | load | target |",
        "|---:|---:|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in runs:
        tgt = TARGETS.get(r.nodes)
        ok = (
            ""
            if tgt is None
            else ("met" if r.wall < tgt and r.peak_tree < MEMORY_TARGET else "MISSED")
            + f" (< {tgt:.0f} s)"
        )
        lines.append(
            f"| {r.nodes:,} | {r.edges:,} | {r.semantics} | {r.verdict} | {r.wall:.1f} "
            f"| {r.cpu:.1f} | {gib(r.peak_tree)} | {gib(r.peak_one)} | {r.load:.2f} | {ok} |"
        )
    lines += [
        "",
        "Seconds per stage and per Z3 check (wall, from the `--json` report):",
        "",
        "| nodes | semantics | solve | " + " | ".join(_check_names(runs)) + " |",
        "|---:|---|---:|" + "---:|" * len(_check_names(runs)),
    ]
    for r in runs:
        per = dict(_per_check(r))
        cells = [f"{per[c]:.1f}" if c in per else "" for c in _check_names(runs)]
        lines.append(
            f"| {r.nodes:,} | {r.semantics} | {r.stages.get('solve', 0.0):.1f} | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(lines)


def _per_check(r: Run) -> list[tuple[str, float]]:
    per: dict[str, float] = {}
    for name, _, sec in r.checks:  # one result per distinct answer: summed
        per[name] = per.get(name, 0.0) + sec
    return list(per.items())


def _check_names(runs: list[Run]) -> list[str]:
    seen: list[str] = []
    for r in runs:
        for name, _, _ in r.checks:
            if name not in seen:
                seen.append(name)
    return seen


def write_doc(text: str) -> None:
    doc = DOC.read_text()
    block = f"{BEGIN}\n{text}\n{END}"
    if BEGIN in doc and END in doc:
        doc = doc[: doc.index(BEGIN)] + block + doc[doc.index(END) + len(END) :]
    else:
        doc = doc.rstrip("\n") + "\n\n" + block + "\n"
    DOC.write_text(doc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--semantics", nargs="+", default=["minimax"])
    ap.add_argument("--repeat", type=int, default=1, help="keep the run with least CPU time")
    ap.add_argument("--work", type=Path, default=None, help="where the graphs are kept")
    ap.add_argument("--no-write", dest="write", action="store_false")
    args = ap.parse_args()
    work = args.work or Path(tempfile.gettempdir()) / "gamegraph-bench-verify"
    work.mkdir(parents=True, exist_ok=True)
    runs: list[Run] = []
    for nodes in args.sizes:
        for sem in args.semantics:
            path = generate(nodes, sem, work)
            best: Run | None = None
            for _ in range(args.repeat):
                r = measure(path, nodes, sem)
                print(
                    f"{nodes:>9,} {sem:12s} {r.verdict:9s} wall {r.wall:6.1f} s  "
                    f"cpu {r.cpu:6.1f} s  peak {r.peak_tree / (1 << 30):.2f} GiB  "
                    f"load {r.load:.2f}  "
                    + " ".join(f"{n.removeprefix('smt-')}={s:.1f}" for n, s in _per_check(r)),
                    flush=True,
                )
                if best is None or r.cpu < best.cpu:
                    best = r
            assert best is not None
            runs.append(best)
    text = tables(runs, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    print()
    print(text)
    if args.write:
        write_doc(text)
        print(f"\nwrote {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
