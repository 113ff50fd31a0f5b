"""Benchmark of the numpy engine against the pure-Python references and networkx (by hand).

    .venv/bin/python benchmarks/bench_engine.py             # 10^4..10^7 edges + games, writes docs
    .venv/bin/python benchmarks/bench_engine.py --quick     # 10^4..10^6 edges, no games, no write
    .venv/bin/python benchmarks/bench_engine.py --sizes 1000000:4000000 --tasks retrograde
    .venv/bin/python benchmarks/bench_engine.py --tasks loopy --sizes 4e5:4e6 --no-games --no-write

Every measurement runs in a fresh subprocess (``--child``), so peak memory is that of one solver:
the child builds the graph, resets the kernel's peak-RSS counter (``/proc/self/clear_refs``),
runs the solver once on a graph whose caches are empty (the predecessor CSR is derived inside the
timed region, by whichever code the solver uses) and reports wall-clock and CPU seconds, the
resident set before the solver and its peak during it (``VmHWM``), and a digest of the answer.
The parent checks that every implementation gives the same answer and writes the table.

Implementations per task (all compute the same per-node answer):

- ``numpy``: ``verifier.engine`` (best of ``--repeat`` runs, each on a fresh graph object);
- ``compiled``: ``verifier.engine.compiled``, the numba kernels (all but SCCs;
  best of ``--repeat``; importing numba and loading the kernels from numba's cache happens once
  per process before the graph is built, and is reported apart; the parent compiles the
  kernels once before measuring);
- ``python``: the seed-faithful pure-Python reference in ``verifier.solvers`` (FIFO queues over
  lists): ``retrograde``, ``attractor``, ``kars_levels``, ``grundy_values``; none for SCCs;
- ``networkx``: ``benchmarks/baselines_networkx.py``, timed without building the DiGraph (its
  build time is reported separately).

Random graphs come from ``verifier.games.random_graphs.random_case`` (seed 0, mean out-degree
4, 10% dead ends, values -1/0/+1; acyclic for Grundy values, cyclic for the loopy ones).

``loopy`` (the generalized Sprague-Grundy function of cyclic impartial graphs, Fraenkel and
Yesha's labelling) has no numpy implementation: its rows compare the compiled kernel with the
pure-Python reference (run up to ``LIMIT["python/loopy"]`` edges).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from benchtools import write_block

ROOT = Path(__file__).resolve().parent.parent

DOC = ROOT / "docs" / "benchmarks.md"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

TASKS: dict[str, tuple[str, bool]] = {
    # task: (semantics, acyclic)
    "retrograde": ("normal", False),
    "attractor": ("reachability", False),
    "kars": ("minimax", False),
    "grundy": ("impartial", True),
    "scc": ("impartial", False),
    "loopy": ("impartial", False),
}
IMPLS = ("numpy", "compiled", "python", "networkx")
COMPILED_TASKS = ("retrograde", "attractor", "kars", "grundy", "loopy")
"""Tasks ``verifier.engine.compiled`` implements (the numba kernels)."""
SIZES = (10_000, 100_000, 1_000_000, 4_000_000, 10_000_000)
"""Edges; the random graphs have ``edges / 4`` nodes (mean out-degree 4)."""
LIMIT = {
    "numpy": 10**8,
    "compiled": 10**8,
    "python": 10**7,
    "networkx": 4 * 10**6,
    "networkx/kars": 10**6,
    "networkx/loopy": 0,
    "numpy/loopy": 0,
    "python/loopy": 4 * 10**5,
}
"""Largest random graph (edges) each implementation (or implementation/task) is run on:
networkx needs about 0.4 kB per edge, and its Def. 4.1 iteration is O(rounds * m)."""
GAMES: dict[str, tuple[str, str]] = {
    # name: (task, generator expression)
    "KQK 8x8": ("retrograde", "chess_endgames.generate('KQK', 8)"),
    "KRK 8x8": ("retrograde", "chess_endgames.generate('KRK', 8)"),
    "Connect Four 4x4": ("retrograde", "connect4.generate(4, 4)"),
    "Connect Four 5x4": ("retrograde", "connect4.generate(5, 4)"),
    "Grundy's game, heaps to 40": (
        "grundy",
        "catalog.game_case('grundy', 40, max_nodes=10**7)",
    ),
}


def _exact_rss() -> None:
    """From now on glibc serves every block of 64 kB or more by mmap and returns it on free
    (no adaptive threshold), and gives back what it kept: the resident set then grows and
    shrinks with the live arrays, so the growth of the peak during a run is what the solver had
    alive, numba's allocations included (``tracemalloc`` does not see those). Only the memory
    run uses it: fresh pages for every array would slow the timed runs."""
    import ctypes

    libc = ctypes.CDLL("libc.so.6")
    libc.mallopt(-3, 1 << 16)  # M_MMAP_THRESHOLD
    libc.malloc_trim(0)


# ---------------------------------------------------------------------------------- the child
def _status(key: str) -> int:
    """A ``/proc/self/status`` field in bytes (``VmRSS``, ``VmHWM``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return 0


def _reset_peak() -> None:
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS


def _make_graph(spec: dict[str, Any]) -> Any:
    from verifier.games import catalog, chess_endgames, connect4, random_graphs

    if spec["graph"] == "random":
        sem, acyclic = TASKS[spec["task"]]
        n = max(spec["edges"] // 4, 2)
        return random_graphs.random_case(sem, n, 4.0, seed=0, acyclic=acyclic).graph
    env = {"chess_endgames": chess_endgames, "connect4": connect4, "catalog": catalog}
    return eval(GAMES[spec["graph"]][1], env).graph


def _digest(*arrays: Any) -> str:
    h = hashlib.sha1()
    for a in arrays:
        h.update(np.ascontiguousarray(np.asarray(a, dtype=np.float64)).tobytes())
    return h.hexdigest()[:12]


def _runner(task: str, impl: str, g: Any) -> Callable[[], str]:
    """A closure running ``impl`` of ``task`` on ``g`` and returning the answer's digest."""
    if impl == "numpy":
        from verifier import engine

        def fresh() -> Any:
            return g.replace()  # same arrays, empty caches (no predecessor CSR yet)

        if task == "retrograde":
            return lambda: _digest(*_pick(engine.retrograde_numpy(fresh()), "label", "remoteness"))
        if task == "attractor":
            return lambda: _digest(engine.attractor_numpy(fresh()).layer)
        if task == "kars":
            # with remoteness and moves, like the reference ``kars_levels``
            return lambda: _digest(engine.kars_numpy(fresh(), moves=True).score)
        if task == "grundy":
            return lambda: _digest(engine.grundy_numpy(fresh()).value)
        return lambda: _digest([engine.condensation(fresh()).count])
    if impl == "compiled":
        from verifier.engine import compiled

        if task == "retrograde":
            return lambda: _digest(
                *_pick(compiled.retrograde_compiled(g.replace()), "label", "remoteness")
            )
        if task == "kars":  # with remoteness and moves, like the reference ``kars_levels``
            return lambda: _digest(compiled.kars_compiled(g.replace(), moves=True).score)
        if task == "grundy":
            return lambda: _digest(compiled.grundy_compiled(g.replace()).value)
        if task == "loopy":
            return lambda: _digest(compiled.loopy_grundy_compiled(g.replace()).value)
        return lambda: _digest(compiled.attractor_compiled(g.replace()).layer)
    if impl == "python":
        if task == "retrograde":
            from verifier.solvers.retrograde import retrograde

            return lambda: _digest(*_pick(retrograde(g), "label", "remoteness"))
        if task == "attractor":
            from verifier.solvers.attractor import attractor

            return lambda: _digest(attractor(g).layer)
        if task == "kars":
            from verifier.solvers.kars_levels import kars_levels

            return lambda: _digest(kars_levels(g).value)
        if task == "grundy":
            from verifier.solvers.grundy import grundy_values

            return lambda: _digest(grundy_values(g))
        if task == "loopy":
            from verifier.solvers.loopy_grundy import loopy_grundy

            return lambda: _digest(loopy_grundy(g).values)
        raise SystemExit("no pure-Python SCC implementation")
    import baselines_networkx as bx

    h = bx.to_networkx(g)
    if task == "retrograde":
        from verifier.engine.retrograde import terminal_labels

        term = terminal_labels(g)
        return lambda: _digest(*bx.nx_retrograde(h, term))
    if task == "attractor":
        return lambda: _digest(bx.nx_attractor(h, g.owner, g.target))
    if task == "kars":
        return lambda: _digest(bx.nx_kars(h, g.owner, g.value))
    if task == "grundy":
        return lambda: _digest(bx.nx_grundy(h))
    return lambda: _digest([bx.nx_condensation_order(h)[0]])


def _pick(r: Any, *names: str) -> list[Any]:
    return [getattr(r, k) for k in names]


def child(spec: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if spec["impl"] == "compiled":  # import numba, load the kernels: a fixed cost, timed apart
        t0 = time.perf_counter()
        from verifier.engine.compiled import warm_up

        warm_up()
        out["startup"] = time.perf_counter() - t0
    g = _make_graph(spec)
    out.update(n=g.n, m=g.m)
    best_wall = best_cpu = float("inf")
    digest = ""
    repeat = spec["repeat"] if spec["impl"] in ("numpy", "compiled") else 1
    for _ in range(repeat):
        b0 = time.perf_counter()
        run = _runner(spec["task"], spec["impl"], g)  # networkx: builds the DiGraph here
        out["build"] = time.perf_counter() - b0
        t0, c0 = time.perf_counter(), time.process_time()
        digest = run()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
        del run
    # memory: one more run, with the allocator returning every large block to the system
    _exact_rss()
    rss = _status("VmRSS")
    _reset_peak()
    run = _runner(spec["task"], spec["impl"], g)
    run()
    peak = _status("VmHWM")
    del run
    out.update(wall=best_wall, cpu=best_cpu, rss_before=rss, peak=peak, digest=digest)
    if spec["impl"] == "numpy":  # numpy reports its buffers to tracemalloc: the solver's own peak
        run = _runner(spec["task"], spec["impl"], g)
        tracemalloc.start()
        run()
        out["traced"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return out


# ---------------------------------------------------------------------------------- the parent
def measure(spec: dict[str, Any], timeout: float) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", json.dumps(spec)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout {timeout:.0f}s"}
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["failed"])[-1][:120]}
    return dict(json.loads(p.stdout.strip().splitlines()[-1]))


def machine() -> list[str]:
    import networkx
    import numba
    import scipy

    def lscpu(key: str) -> str:
        try:
            out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
        except OSError:
            return "?"
        for line in out.splitlines():
            if line.startswith(key + ":"):
                return line.split(":", 1)[1].strip()
        return "?"

    mem = _meminfo("MemTotal") / 2**30
    return [
        f"- CPU: {lscpu('Model name')}, {os.cpu_count()} logical CPUs "
        f"(threads per core {lscpu('Thread(s) per core')}), L3 {lscpu('L3 cache')}",
        f"- memory: {mem:.1f} GiB; OS: {platform.platform()}",
        f"- Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"networkx {networkx.__version__}, numba {numba.__version__} "
        f"({numba.get_num_threads()} threads)",
    ]


def _meminfo(key: str) -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return 0


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _fmt_s(r: dict[str, Any], key: str = "wall") -> str:
    if "error" in r:
        return str(r["error"])
    x = float(r[key])
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def _ratio(a: dict[str, Any] | None, b: dict[str, Any], key: str) -> str:
    if a is None or "error" in a or "error" in b or b[key] <= 0:
        return "--"
    return f"{float(a[key]) / float(b[key]):.1f}x"


def run_all(args: argparse.Namespace) -> tuple[list[str], dict[str, Any]]:
    rows = [
        "| graph | task | n | m | impl | wall s | CPU s | wall ratio | CPU ratio | peak MB "
        "| solver MB | B/edge | agrees |",
        "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    results: dict[str, Any] = {}
    jobs: list[tuple[str, str, int]] = []
    for edges in args.sizes:
        jobs += [("random", t, edges) for t in args.tasks]
    if args.games:
        jobs += [(name, task, 0) for name, (task, _) in GAMES.items() if task in args.tasks]
    for graph, task, edges in jobs:
        got: dict[str, dict[str, Any]] = {}
        for impl in IMPLS:
            if (impl == "python" and task == "scc") or (
                impl == "compiled" and task not in COMPILED_TASKS
            ):
                continue
            if graph == "random" and edges > LIMIT.get(f"{impl}/{task}", LIMIT[impl]):
                continue
            spec = {"task": task, "impl": impl, "graph": graph, "edges": edges}
            spec["repeat"] = args.repeat
            r = measure(spec, args.timeout)
            got[impl] = r
            print(f"{graph} {task} {edges} {impl}: {r}", file=sys.stderr, flush=True)
        base = got.get("numpy") or got.get("compiled") or {"error": "not run"}
        label = f"random {edges:.0e}".replace("+0", "") if graph == "random" else graph
        for impl, r in got.items():
            ok = "--"
            if "error" not in r and "error" not in base:
                ok = "yes" if r["digest"] == base["digest"] else "**NO**"
            n = r.get("n", base.get("n", 0))
            m = r.get("m", base.get("m", 0))
            solver_mb = _solver_bytes(r) / 2**20 if "peak" in r else 0.0
            rows.append(
                f"| {label} | {task} | {n:,} | {m:,} | {impl} | {_fmt_s(r)} | "
                f"{_fmt_s(r, 'cpu')} | "
                f"{'1x' if r is base else _ratio(r, base, 'wall')} | "
                f"{'1x' if r is base else _ratio(r, base, 'cpu')} | "
                f"{r.get('peak', 0) / 2**20:.0f} | {solver_mb:.0f} | "
                f"{r.get('peak', 0) / max(m, 1):.0f} | {ok} |"
            )
        results[f"{graph}/{task}/{edges}"] = got
    return rows, results


def _solver_bytes(r: dict[str, Any]) -> float:
    """What the solver itself allocated: numpy's buffers as ``tracemalloc`` sees them, else
    (numba allocates outside its view) the growth of the resident set during the run."""
    return float(r["traced"]) if "traced" in r else float(r["peak"] - r["rss_before"])


def targets(results: dict[str, Any]) -> list[str]:
    key = "random/{}/4000000"
    out = ["| target | measured | met |", "|---|---|---|"]
    r = results.get(key.format("retrograde"))
    engines = [(impl, r[impl]) for impl in ("numpy", "compiled") if r and impl in r]
    engines = [(impl, e) for impl, e in engines if "error" not in e]
    p = r.get("python", {}) if r else {}
    for impl, e in engines:
        m = e["m"]
        first = ""
        if "startup" in e:
            first = f"; importing numba and loading the kernels: {e['startup']:.2f} s once"
        out.append(
            f"| retrograde ({impl}), 10^6 nodes / 4x10^6 edges, under 1.2 s | {e['wall']:.3f} s "
            f"wall, {e['cpu']:.3f} s CPU{first} | {'yes' if e['wall'] < 1.2 else 'no'} |"
        )
        if p and "error" not in p:
            rw, rc = p["wall"] / e["wall"], p["cpu"] / e["cpu"]
            both = " (CPU of both threads)" if impl == "compiled" else ""
            out.append(
                f"| ({impl}) at least 30x faster than the pure-Python queue version | "
                f"{rw:.1f}x wall, {rc:.1f}x CPU{both} | "
                f"{'yes' if rw >= 30 else 'no'} (wall), {'yes' if rc >= 30 else 'no'} (CPU) |"
            )
        solver, process = _solver_bytes(e) / m, e["peak"] / m
        verdict = f"{'yes' if solver < 60 else 'no'} (solver), "
        verdict += f"{'yes' if process < 60 else 'no'} (process)"
        out.append(
            f"| ({impl}) peak memory under 60 bytes per edge | solver {solver:.0f} B/edge; "
            f"whole process (interpreter, graph, solver) {process:.0f} B/edge | {verdict} |"
        )
    for task in ("kars", "attractor", "grundy"):
        r = results.get(key.format(task))
        for impl in ("numpy", "compiled"):
            if not r or impl not in r or "error" in r[impl]:
                continue
            e = r[impl]
            out.append(
                f"| {task} ({impl}), same size, under 3 s | {e['wall']:.3f} s wall, "
                f"{e['cpu']:.3f} s CPU | {'yes' if e['wall'] < 3 else 'no'} |"
            )
    return out


def write_doc(rows: list[str], tg: list[str], head: list[str], load: tuple[str, str]) -> None:
    begin, end = "<!-- bench-engine:begin -->", "<!-- bench-engine:end -->"
    block = "\n".join(
        [
            begin,
            f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with "
            "`.venv/bin/python benchmarks/bench_engine.py`.",
            "",
            *head,
            f"- load average (1, 5, 15 min) at start: {load[0]}; at end: {load[1]} "
            "(the machine is shared: wall-clock times include other people's work, CPU times "
            "much less so)",
            "",
            "### Targets (random graph of 10^6 nodes and about 4x10^6 edges)",
            "",
            *tg,
            "",
            "### All measurements",
            "",
            *rows,
            end,
        ]
    )
    write_block(DOC, begin, end, block)


def parse_sizes(s: str) -> tuple[int, ...]:
    return tuple(int(float(x)) for x in s.replace(",", ":").split(":") if x)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--sizes", type=parse_sizes, default=SIZES, help="edges, e.g. 1e4:1e6")
    ap.add_argument("--tasks", type=lambda s: s.split(","), default=list(TASKS))
    ap.add_argument("--repeat", type=int, default=3, help="best of N for the numpy engine")
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--quick", action="store_true", help="10^4..10^6 edges, no games, no write")
    ap.add_argument("--no-games", dest="games", action="store_false")
    ap.add_argument("--no-write", dest="write", action="store_false")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    if args.quick:
        args.sizes, args.games, args.write = (10_000, 100_000, 1_000_000), False, False
    from verifier.engine.compiled import warm_up

    warm_up()  # compile the kernels (or find them cached) before any child measures them
    load0 = _load()
    head = machine()
    rows, results = run_all(args)
    tg = targets(results)
    load = (load0, _load())
    print("\n".join([*head, "", *tg, "", *rows]))
    if args.write:
        write_doc(rows, tg, head, load)
        print(f"wrote {DOC}", file=sys.stderr)


if __name__ == "__main__":
    main()
