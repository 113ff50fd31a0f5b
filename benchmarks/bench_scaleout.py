"""Connect Four and random graphs through the sharded route (tiers and shards on Dask) against
the in-memory solve.

Usage::

    .venv/bin/python benchmarks/bench_scaleout.py [--sizes 5x4 4x5] [--graphs 1000000]
        [--repeat 2] [--workers 2] [--worker-memory 1.5GB] [--write-doc]

Per board, as a user runs it (each command a process of its own):

- ``verifier generate connect4 --width W --height H -o DIR --engine dask --workers N
  --worker-memory SIZE`` then ``verifier solve DIR --engine dask`` with the same options:
  wall seconds (cluster start-up included), the peak resident memory of the driver and of
  each worker process (``VmHWM`` of every process of the command's tree, sampled every
  0.2 s), the dataset's size on disk and the root value;
- ``verifier generate connect4 ... -o case.npz`` then ``verifier solve case.npz``: wall
  seconds and peak memory of the solve (``/usr/bin/time``).

Per random graph (``--graphs N ...``: normal, mean degree 3, seed 1), the same with
``verifier generate random --nodes N --degree 3 --seed 1`` (the sharded route draws another
graph of the same distribution than the in-memory one), plus the number of retrograde rounds
and the ratio of the two solves' times (``--repeat R``: each solve R times, taking turns, the
fastest of each kept).

``--stages WxH ...`` (issue 48's yardstick): each stage of both routes on one board, in one
run: the sharded ``generate``, ``solve`` and ``verify DIR --engine dask`` against the in-memory
``generate -o case.npz``, ``solve case.npz -o answers.npz`` and ``verify case.npz --answers
answers.npz --linear``; per stage the wall seconds, the positions (classes with
``--symmetry``) a second, and the ratio of the sharded stage to its in-memory counterpart, then
the same for the three stages together. Both checks run ``--no-self-check`` (as the
measurements before the standalone checker ran inside ``verify``); ``--self-check`` includes it.

``--write-doc`` puts the Markdown tables in docs/distributed.md, section "Tiers and shards".
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchtools import load_note, run_cli, write_block

DOC = Path(__file__).resolve().parent.parent / "docs" / "distributed.md"
BEGIN = "<!-- bench_scaleout: begin -->"
END = "<!-- bench_scaleout: end -->"
GRAPHS_BEGIN = "<!-- bench_scaleout graphs: begin -->"
GRAPHS_END = "<!-- bench_scaleout graphs: end -->"
STAGES_BEGIN = "<!-- bench_scaleout stages: begin -->"
STAGES_END = "<!-- bench_scaleout stages: end -->"
STAGES = ("generate", "solve", "check")


def _children(pid: int) -> list[int]:
    """Every process whose parent is ``pid``."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                st = Path(f"/proc/{d}/stat").read_text()
            except OSError:
                continue
            if int(st[st.rindex(")") + 2 :].split()[1]) == pid:
                out.append(int(d))
    return out


def _peak(pid: int) -> int:
    """The peak resident bytes of ``pid`` so far (``VmHWM``; 0 if it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _role(pid: int) -> str:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "?"
    return "tracker" if "resource_tracker" in cmd else "worker"


def run_sampled(
    args: list[str], said: bool = False
) -> tuple[subprocess.CompletedProcess[str], float, int, list[int]]:
    """Run ``python -m verifier.cli ARGS``: the process, wall seconds, the driver's peak
    resident bytes and each worker process's (largest first). ``said``: the run's progress
    lines on its stderr (``VERIFIER_PROGRESS_EVERY``; the solve says its rounds only then)."""
    t0 = time.perf_counter()
    env = {**os.environ, "VERIFIER_PROGRESS_EVERY": "3600"} if said else None
    proc = subprocess.Popen(
        [sys.executable, "-m", "verifier.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    peaks: dict[int, int] = {}
    roles: dict[int, str] = {}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            for child in _children(proc.pid):
                peaks[child] = max(peaks.get(child, 0), _peak(child))
                roles.setdefault(child, _role(child))
            peaks[proc.pid] = max(peaks.get(proc.pid, 0), _peak(proc.pid))
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    done.set()
    sampler.join()
    seconds = time.perf_counter() - t0
    workers = sorted((b for p, b in peaks.items() if roles.get(p) == "worker"), reverse=True)
    done_proc = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    return done_proc, seconds, peaks.get(proc.pid, 0), workers


def _mb(n: int) -> str:
    return f"{n / 1e6:,.0f}"


def _disk(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def measure(w: int, h: int, workers: int, memory: str, tmp: Path) -> str:
    """One board's table row."""
    ds = tmp / f"c{w}{h}"
    cluster = ["--engine", "dask", "--workers", str(workers), "--worker-memory", memory]
    size = ["--width", str(w), "--height", str(h)]
    gen, gen_s, gen_driver, gen_workers = run_sampled(
        ["generate", "connect4", *size, "-o", str(ds), *cluster]
    )
    if gen.returncode:
        sys.exit(f"generate {w}x{h} failed: {gen.stderr.strip()[-500:]}")
    sol, sol_s, sol_driver, sol_workers = run_sampled(["solve", str(ds), *cluster, "--json"])
    if sol.returncode:
        sys.exit(f"solve {w}x{h} failed: {sol.stderr.strip()[-500:]}")
    doc = json.loads(sol.stdout)
    positions = doc["positions"]
    longest = max(t["max_remoteness"] for t in doc["tiers"])
    value = doc["root"]["value"].split(" (")[0]
    disk = _disk(ds)
    shards = sum(t["shards"] for t in doc["tiers"])
    case = tmp / f"c{w}{h}.npz"
    made, _, _ = run_cli(["generate", "connect4", *size, "-o", str(case)])
    if made.returncode:
        sys.exit(f"generate {w}x{h} in memory failed: {made.stderr.strip()[-500:]}")
    mem, mem_s, mem_kb = run_cli(["solve", str(case), "--max-positions", "1000000000"])
    mem_note = f"{mem_s:.1f} s, {_mb(mem_kb * 1024)} MB"
    if mem.returncode:
        mem_note = f"exit {mem.returncode}"
    shutil.rmtree(ds)
    case.unlink()
    print(f"{w}x{h}: generate {gen_s:.1f} s, solve {sol_s:.1f} s, in memory {mem_note}", flush=True)
    return (
        f"| {w}x{h} | {positions:,} | {shards} | {_mb(disk)} | {gen_s:.1f} | "
        f"{_mb(gen_driver)} | {' / '.join(map(_mb, gen_workers))} | {sol_s:.1f} | "
        f"{_mb(sol_driver)} | {' / '.join(map(_mb, sol_workers))} | {value}, max remoteness "
        f"{longest} | {mem_note} |"
    )


def measure_graph(nodes: int, workers: int, memory: str, tmp: Path, repeat: int = 1) -> str:
    """One random graph's table row (normal, degree 3, seed 1). With ``repeat`` > 1 the two
    solves (sharded, in memory) take turns ``repeat`` times and each keeps its fastest run
    (the machine is shared: the turns see the same load, the fastest runs the least of it);
    peak memory is the largest of the runs."""
    ds = tmp / f"g{nodes}"
    cluster = ["--engine", "dask", "--workers", str(workers), "--worker-memory", memory]
    spec = ["--nodes", str(nodes), "--degree", "3", "--seed", "1"]
    gen, gen_s, gen_driver, gen_workers = run_sampled(
        ["generate", "random", *spec, "-o", str(ds), *cluster]
    )
    if gen.returncode:
        sys.exit(f"generate {nodes} failed: {gen.stderr.strip()[-500:]}")
    case = tmp / f"g{nodes}.npz"
    made, _, _ = run_cli(["generate", "random", *spec, "-o", str(case)])
    if made.returncode:
        sys.exit(f"generate {nodes} in memory failed: {made.stderr.strip()[-500:]}")
    runs: list[tuple[float, int, list[int]]] = []
    mems: list[tuple[float, int]] = []
    for _ in range(repeat):
        sol, sol_s, sol_driver, sol_workers = run_sampled(
            ["solve", str(ds), *cluster, "--json"], said=True
        )
        if sol.returncode:
            sys.exit(f"solve {nodes} failed: {sol.stderr.strip()[-500:]}")
        runs.append((sol_s, sol_driver, sol_workers))
        mem, mem_s, mem_kb = run_cli(["solve", str(case), "--max-positions", "2000000000"])
        failed = mem.returncode
        mems.append((float("inf") if failed else mem_s, mem_kb * 1024))
        said = " / ".join(mem.stderr.strip().splitlines()[-3:-1]) if failed else ""  # not %M
        print(f"{nodes}: solve {sol_s:.1f} s, in memory {mem_s:.1f} s {said}".rstrip(), flush=True)
    doc = json.loads(sol.stdout)
    tier = doc["tiers"][0]
    rounds = next(  # said with progress on (``run_sampled(..., said=True)``)
        (line.split()[-3] for line in sol.stderr.splitlines() if "retrograde rounds" in line),
        "?",
    )
    disk = _disk(ds)
    shutil.rmtree(ds)
    case.unlink()
    sol_s = min(r[0] for r in runs)
    sol_driver = max(r[1] for r in runs)
    sol_workers = [max(w) for w in zip(*(r[2] for r in runs), strict=False)]
    mem_s = min(m[0] for m in mems)
    mem_note = f"{mem_s:.1f} s, {_mb(max(m[1] for m in mems))} MB"
    ratio = f"{sol_s / mem_s:.1f}x"
    if mem_s == float("inf"):
        mem_note, ratio = f"exit {failed}", "-"
    print(f"{nodes}: generate {gen_s:.1f} s, solve {sol_s:.1f} s, in memory {mem_note}", flush=True)
    return (
        f"| {nodes:,} | {doc['parameters']['edges']:,} | {tier['shards']} | {_mb(disk)} | "
        f"{gen_s:.1f} | {_mb(gen_driver)} | {' / '.join(map(_mb, gen_workers))} | "
        f"{sol_s:.1f} | {rounds} | {_mb(sol_driver)} | {' / '.join(map(_mb, sol_workers))} | "
        f"{tier['won']:,} / {tier['lost']:,} / {tier['drawn']:,} | {mem_note} | {ratio} |"
    )


def graphs_table(sizes: list[int], workers: int, memory: str, load: str, repeat: int = 1) -> str:
    """The random graphs' Markdown table."""
    with tempfile.TemporaryDirectory() as tmp:
        rows = [measure_graph(n, workers, memory, Path(tmp), repeat) for n in sizes]
    runs = f"; each solve run {repeat} times, taking turns, the fastest kept" if repeat > 1 else ""
    return "\n".join(
        [
            f"Measured by `benchmarks/bench_scaleout.py --graphs {' '.join(map(str, sizes))}"
            f"{f' --repeat {repeat}' if repeat > 1 else ''}` "
            f"(random normal graphs, mean degree 3, seed 1; {workers} workers, "
            f"`--worker-memory {memory}`; load average {load} at the start, on a shared 2-core "
            f"machine{runs}). Memory: peak resident MB (VmHWM) per process; seconds include "
            "starting the LocalCluster; the in-memory column is `verifier solve` of `verifier "
            "generate random` with the same options (a graph of the same distribution, drawn by "
            "other random streams); the last column is the sharded solve's time over the "
            "in-memory one's.",
            "",
            "| nodes | moves | shards | disk MB | generate s | driver MB | workers MB | solve s "
            "| rounds | driver MB | workers MB | won / lost / drawn | in-memory `solve` "
            "| sharded / in memory |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
            *rows,
        ]
    )


def _stage(args: list[str], what: str) -> tuple[float, int]:
    """Run one command of a stage (it must exit 0): its wall seconds and peak memory (bytes,
    the largest process of its tree)."""
    proc, secs, driver, workers = run_sampled(args)
    if proc.returncode:
        sys.exit(f"{what} failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
    return secs, max([driver, *workers])


def measure_stages(
    board: str, symmetry: bool, workers: int, memory: str, tmp: Path, self_check: bool = False
) -> list[str]:
    """One board's rows: each stage of the sharded route against the in-memory route's, both
    measured in this run, one after the other (never side by side). ``self_check``: both
    ``verify`` stages run the standalone checker on their certificate too (their default;
    off here unless asked: the measurements before it ran inside ``verify`` did not)."""
    w, h = (int(x) for x in board.split("x"))
    size = ["--width", str(w), "--height", str(h), *(["--symmetry"] if symmetry else [])]
    cluster = ["--engine", "dask", "--workers", str(workers), "--worker-memory", memory]
    ds, case, ans = tmp / f"c{w}{h}", tmp / f"c{w}{h}.npz", tmp / f"c{w}{h}.answers.npz"
    big = ["--max-positions", "2000000000"]
    checker = [] if self_check else ["--no-self-check"]
    sharded = [
        _stage(["generate", "connect4", *size, "-o", str(ds), *cluster], "sharded generate"),
        _stage(["solve", str(ds), *cluster, "-q"], "sharded solve"),
        _stage(["verify", str(ds), *cluster, *checker, "-q"], "sharded check"),
    ]
    memory_route = [
        _stage(["generate", "connect4", *size, "-o", str(case)], "in-memory generate"),
        _stage(["solve", str(case), *big, "-o", str(ans), "-q"], "in-memory solve"),
        _stage(
            ["verify", str(case), "--answers", str(ans), "--linear", *big, *checker, "-q"],
            "in-memory check",
        ),
    ]
    positions = _positions(case)
    shutil.rmtree(ds)
    rows = []
    total = [0.0, 0.0]
    for name, (s_s, s_mem), (m_s, m_mem) in zip(STAGES, sharded, memory_route, strict=True):
        total[0] += s_s
        total[1] += m_s
        rows.append(
            f"| {board}{' sym' if symmetry else ''} | {name} | {s_s:.1f} | "
            f"{_rate(positions, s_s)} | {_mb(s_mem)} | {m_s:.1f} | {_rate(positions, m_s)} | "
            f"{_mb(m_mem)} | {s_s / m_s:.2f}x |"
        )
        print(f"{board}: {name}: sharded {s_s:.1f} s, in memory {m_s:.1f} s", flush=True)
    rows.append(
        f"| {board}{' sym' if symmetry else ''} | **all three** | {total[0]:.1f} | "
        f"{_rate(positions, total[0])} | | {total[1]:.1f} | {_rate(positions, total[1])} | | "
        f"**{total[0] / total[1]:.2f}x** |"
    )
    case.unlink()
    ans.unlink()
    return rows


def _rate(positions: int, secs: float) -> str:
    return f"{positions / secs:,.0f}" if positions and secs > 0 else "-"


def _positions(case: Path) -> int:
    """The positions (classes) of an ``.npz`` case: its ``owner`` column's length."""
    import numpy as np

    with np.load(case, allow_pickle=False) as z:
        return int(z["owner"].shape[0])


def stages_table(
    boards: list[str], symmetry: bool, workers: int, memory: str, load: str, self_check: bool
) -> str:
    """The end-to-end table (``--stages``)."""
    with tempfile.TemporaryDirectory() as tmp:
        rows = [
            r
            for b in boards
            for r in measure_stages(b, symmetry, workers, memory, Path(tmp), self_check)
        ]
    checker = (
        "both checks with the standalone checker's judgement of their certificate"
        if self_check
        else "both checks `--no-self-check`"
    )
    return "\n".join(
        [
            f"Measured by `benchmarks/bench_scaleout.py --stages {' '.join(boards)}"
            f"{' --symmetry' if symmetry else ''}{' --self-check' if self_check else ''}` "
            f"({workers} workers, `--worker-memory "
            f"{memory}`; load average {load} at the start, on a shared 2-core machine). Each "
            "stage a process of its own, as a user runs it (the sharded ones start their "
            f"LocalCluster; {checker}); memory: the peak resident MB of the largest process of "
            "the command; rates in positions (classes) a second; the ratio is the sharded "
            "stage's time over the in-memory one's.",
            "",
            "| board | stage | sharded s | sharded /s | sharded MB | in-memory s | in-memory /s "
            "| in-memory MB | sharded / in memory |",
            "|---|---|---|---|---|---|---|---|---|",
            *rows,
        ]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="*", default=["5x4", "4x5"])
    ap.add_argument("--graphs", nargs="*", type=int, default=[], help="random graph sizes")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--worker-memory", default="1.5GB")
    ap.add_argument(
        "--repeat", type=int, default=1, help="solve each graph this many times, keep the fastest"
    )
    ap.add_argument("--stages", nargs="*", default=[], help="boards measured stage by stage")
    ap.add_argument("--symmetry", action="store_true", help="--stages: up to the mirror")
    ap.add_argument(
        "--self-check",
        action="store_true",
        help="--stages: both verify stages run the standalone checker (off: as measured before)",
    )
    ap.add_argument("--write-doc", action="store_true")
    a = ap.parse_args()
    load = load_note()
    if a.stages:
        table = stages_table(a.stages, a.symmetry, a.workers, a.worker_memory, load, a.self_check)
        print(table)
        if a.write_doc:
            write_block(DOC, STAGES_BEGIN, STAGES_END, f"{STAGES_BEGIN}\n{table}\n{STAGES_END}")
        return
    if a.graphs:
        graphs = graphs_table(a.graphs, a.workers, a.worker_memory, load, a.repeat)
        print(graphs)
        if a.write_doc:
            write_block(DOC, GRAPHS_BEGIN, GRAPHS_END, f"{GRAPHS_BEGIN}\n{graphs}\n{GRAPHS_END}")
    if not a.sizes:
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for s in a.sizes:
            w, h = (int(x) for x in s.split("x"))
            rows.append(measure(w, h, a.workers, a.worker_memory, Path(tmp)))
    table = "\n".join(
        [
            f"Measured by `benchmarks/bench_scaleout.py --sizes {' '.join(a.sizes)}` "
            f"({a.workers} workers, `--worker-memory {a.worker_memory}`; load average "
            f"{load} at the start, on a shared 2-core machine). Memory: peak resident MB "
            "(VmHWM) per process; seconds include starting the LocalCluster.",
            "",
            "| board | positions | shards | disk MB | generate s | driver MB | workers MB "
            "| solve s | driver MB | workers MB | value | in-memory `solve` |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
            *rows,
        ]
    )
    print(table)
    if a.write_doc:
        write_block(DOC, BEGIN, END, f"{BEGIN}\n{table}\n{END}")


if __name__ == "__main__":
    main()
