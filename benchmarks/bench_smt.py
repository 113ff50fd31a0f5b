"""Scaling of the Z3 cross-checks on random game graphs (run by hand, not in CI).

    .venv/bin/python benchmarks/bench_smt.py --sizes 1000 10000 100000 1000000
        --out docs/smt-scaling.md      # rewrites its marked block of the document

For each size: a random ``minimax`` graph (out-degree 0..4, about a fifth of the nodes leaves
with values in {-1, 0, 1}, Max/Min at random; family A: random edges, one large strongly
connected core) and a mostly acyclic one (family B: edges go to larger ids except 2% back
edges), the same graphs read as ``normal`` and ``reachability`` games. Every registered SMT
check of the semantics runs on answers computed by this package's own fixpoint code (the
solvers are benchmarked elsewhere). Time per check and peak memory (RSS high-water mark of the
process, sampled after each check; ``ru_maxrss``) are written to a markdown table.
"""

from __future__ import annotations

import argparse
import platform
import re
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifier.equations.fixpoints import BoolSystem, attractor, gfp, kars_clamp, lfp
from verifier.equations.rules import derived_labels, region_system
from verifier.equations.system import OrderSystem
from verifier.model import Case, GameGraph, Semantics, SolverResult
from verifier.model.results import View
from verifier.registry import CheckContext, Options, checks_for


def random_graph(n: int, family: str, semantics: Semantics, seed: int = 1) -> GameGraph:
    rng = np.random.default_rng(seed)
    deg = rng.integers(1, 5, size=n)
    deg[rng.random(n) < 0.2] = 0
    src = np.repeat(np.arange(n), deg)
    if family == "A":
        dst = rng.integers(0, n, size=len(src))
    else:
        span = rng.integers(1, 50, size=len(src))
        dst = np.minimum(src + span, n - 1)
        back = rng.random(len(src)) < 0.02
        dst[back] = rng.integers(0, n, size=int(back.sum()))
    key = np.unique(src * n + dst)
    src, dst = key // n, key % n
    term = np.bincount(src, minlength=n) == 0
    owner = np.where(term, -1, rng.integers(0, 2, size=n)).astype(np.int8)
    value = np.where(term, rng.integers(-1, 2, size=n).astype(float), np.nan)
    target = np.zeros(n, dtype=bool)
    if semantics is Semantics.NORMAL:
        owner[:] = -1
        value = np.where(term, -1.0, np.nan)
    if semantics is Semantics.REACHABILITY:
        target = term & (value == 1)
        value = np.full(n, np.nan)
    return GameGraph.from_edges(
        n, src, dst, semantics=semantics, owner=owner, value=value, target=target
    )


def pick(g: GameGraph, key: np.ndarray) -> np.ndarray:
    """Per node the successor of least finite ``key`` (per edge), -1 if none."""
    move = np.full(g.n, -1, dtype=np.int64)
    ok = np.isfinite(key)
    src, dst, k = g.edge_src[ok], g.succ_idx[ok], key[ok]
    order = np.lexsort((dst, k, src))
    src, dst = src[order], dst[order]
    first = np.ones(len(src), dtype=bool)
    first[1:] = src[1:] != src[:-1]
    move[src[first]] = dst[first]
    return move


def answers_for(g: GameGraph) -> dict[str, SolverResult]:
    """Correct answers with ranks and moves, from this package's own fixpoint code."""
    src, dst = g.edge_src, g.succ_idx
    inf = np.inf
    if g.semantics is Semantics.MINIMAX:
        sys_ = OrderSystem.minimax(g)
        k = kars_clamp(sys_, lfp(sys_), gfp(sys_))
        key = np.where(k[dst] == k[src], 0.0, inf)  # keep the score ...
        for lv in range(1, sys_.top + 1):  # ... and make progress where the mover wins
            b = BoolSystem.threshold(sys_, lv)
            if sys_.levels[lv] > 0:
                lay, side = attractor(b), 0
                at = k == lv
            elif sys_.levels[lv - 1] < 0:
                lay, side = attractor(b.dual()), 1
                at = k == lv - 1
            else:
                continue
            here = at[src] & (g.owner[src] == side)
            good = (k[dst] == k[src]) & (lay[dst] >= 0) & (lay[dst] < lay[src])
            key = np.where(here, np.where(good, lay[dst], inf), key)
        mv = pick(g, key)
        return {"fixpoint": SolverResult("fixpoint", View.SCORE, sys_.to_values(k), move=mv)}
    if g.semantics is Semantics.NORMAL:
        lab, rem = derived_labels(g)
        key = np.where(
            lab[src] == 1,
            np.where(lab[dst] == -1, rem[dst], inf),
            np.where(lab[src] == -1, 0.0, np.where(lab[dst] != 1, 0.0, inf)),
        )
        return {
            "fixpoint": SolverResult("fixpoint", View.LABEL, lab, remoteness=rem, move=pick(g, key))
        }
    layer = attractor(region_system(g))
    w = layer >= 0
    p0 = (g.owner[src] != 1) & w[src] & ~g.target[src]
    p1 = (g.owner[src] == 1) & ~w[src]
    key = np.where(p0 & w[dst], layer[dst], np.where(p1 & ~w[dst], 0.0, inf))
    return {
        "fixpoint": SolverResult(
            "fixpoint", View.REGION, w.astype(np.int8), remoteness=layer, move=pick(g, key)
        )
    }


def cpu_seconds() -> float:
    """User + system CPU time of this process and its finished children (Z3 runs as a child)."""
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def z3_peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000, 1_000_000])
    ap.add_argument("--families", nargs="+", default=["A", "B"])
    ap.add_argument("--semantics", nargs="+", default=["minimax", "normal", "reachability"])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--rlimit", type=int, default=Options().rlimit)
    ap.add_argument("--from-log", type=Path, default=None, help="rewrite --out from a log")
    args = ap.parse_args()
    if args.from_log is not None and args.out is not None:
        write(args.out, rows_from_log(args.from_log.read_text()))
        return
    rows: list[tuple[Any, ...]] = []
    opts = Options(rlimit=args.rlimit)
    for n in args.sizes:
        for fam in args.families:
            for sem in map(Semantics, args.semantics):
                t0 = time.perf_counter()
                g = random_graph(n, fam, sem)
                res = answers_for(g)
                t_prep = time.perf_counter() - t0
                ctx = CheckContext(Case(g, f"random-{fam}-{n}"), res, opts)
                total = 0.0
                for spec in checks_for(sem):
                    if not spec.name.startswith("smt-"):
                        continue
                    c0 = time.perf_counter()
                    u0 = cpu_seconds()
                    try:
                        out = spec.fn(ctx)
                        verdicts = ",".join(sorted({c.verdict.value for c in out}))
                    except Exception as e:  # NotApplicable or a defect: record it
                        verdicts = type(e).__name__
                    dt = time.perf_counter() - c0
                    cpu = cpu_seconds() - u0
                    total += dt
                    row = (
                        n,
                        g.m,
                        fam,
                        sem.value,
                        spec.name,
                        dt,
                        cpu,
                        verdicts,
                        peak_mib(),
                        z3_peak_mib(),
                    )
                    rows.append(row)
                    print(
                        f"{n:>8} m={g.m:>8} {fam} {sem.value:<12} {spec.name:<16} "
                        f"{dt:8.2f}s cpu {cpu:8.2f}s {verdicts:<10} peak {row[-2]:6.0f} MiB "
                        f"z3 {row[-1]:6.0f} MiB",
                        flush=True,
                    )
                print(
                    f"{n:>8} {fam} {sem.value}: all SMT checks {total:.2f}s "
                    f"(answers {t_prep:.2f}s)",
                    flush=True,
                )
    if args.out:
        write(args.out, rows)


BEGIN, END = "<!-- bench-smt:begin -->", "<!-- bench-smt:end -->"


def write(path: Path, rows: list[tuple[Any, ...]]) -> None:
    """Replace the block between the ``bench-smt`` markers of ``path`` (the rest of the
    document, e.g. ``bench_verify.py``'s block and the prose, is kept)."""
    lines = [
        "Generated by `benchmarks/bench_smt.py` "
        f"on {platform.machine()} / {platform.python_version()}, "
        f"{_cpus()} CPUs. Random graphs (out-degree 0..4, 20% leaves); family A has one large "
        "strongly connected core, family B is mostly acyclic (2% back edges). Each graph is "
        "checked as a minimax, a normal and a reachability game, with correct answers (values, "
        "ranks, moves) from the package's own fixpoint code; the checks run one after the "
        "other in one process, so facts one check proved are reused by the next as in "
        "`verify`.",
        "",
        "**CPU seconds** are this process (all its threads) plus the Z3 processes it ran; on a "
        "shared machine they are the steadier number. Up to two Z3 processes run at once "
        "beside Python, so on an idle 2-core machine wall time can be below CPU time. Peak "
        "memory is the RSS high-water mark so far (it only grows down the table); the Z3 "
        "column is `ru_maxrss` of the largest child, which also counts the pages a forked child "
        "shares with this process before `exec`, so it is an upper bound.",
        "",
        "### Totals per graph (all SMT checks of the semantics)",
        "",
        "| nodes | family | semantics | wall s | CPU s |",
        "|---:|---|---|---:|---:|",
    ]
    totals: dict[tuple[Any, ...], list[float]] = {}
    for n, _m, fam, sem, _name, dt, cpu, *_ in rows:
        t = totals.setdefault((n, fam, sem), [0.0, 0.0])
        t[0] += dt
        t[1] += cpu
    for (n, fam, sem), (dt, cpu) in totals.items():
        lines.append(f"| {n} | {fam} | {sem} | {dt:.1f} | {cpu:.1f} |")
    lines += [
        "",
        "### Per check",
        "",
        "| nodes | edges | family | semantics | check | wall s | CPU s | verdict | peak MiB "
        "(Python) | peak MiB (Z3) |",
        "|---:|---:|---|---|---|---:|---:|---|---:|---:|",
    ]
    for n, m, fam, sem, name, dt, cpu, v, mem, zmem in rows:
        lines.append(
            f"| {n} | {m} | {fam} | {sem} | {name} | {dt:.2f} | {cpu:.2f} | {v} | {mem:.0f} "
            f"| {zmem:.0f} |"
        )
    block = f"{BEGIN}\n" + "\n".join(lines) + f"\n{END}"
    doc = path.read_text() if path.exists() else "# Scaling of the Z3 checks\n"
    if BEGIN in doc and END in doc:
        doc = doc[: doc.index(BEGIN)] + block + doc[doc.index(END) + len(END) :]
    else:
        doc = doc.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(doc)


def rows_from_log(text: str) -> list[tuple[Any, ...]]:
    """Rows back from this script's printed log (to rewrite the table without re-running)."""
    rows: list[tuple[Any, ...]] = []
    for line in text.splitlines():
        p = re.sub(r"m=\s+", "m=", line).split()
        if len(p) == 15 and p[1].startswith("m=") and p[6] == "cpu":
            rows.append(
                (
                    int(p[0]),
                    int(p[1][2:]),
                    p[2],
                    p[3],
                    p[4],
                    float(p[5][:-1]),
                    float(p[7][:-1]),
                    p[8],
                    float(p[10]),
                    float(p[13]),
                )
            )
    return rows


def _cpus() -> int:
    import os

    return os.cpu_count() or 1


if __name__ == "__main__":
    main()
