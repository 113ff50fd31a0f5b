"""Visit counts of Kars' Alg. 6.7 (DFS) and Alg. 7.2 (memoized DFS) on the ladder L_n, n = 1..14.

Usage::

    .venv/bin/python benchmarks/bench_ladder.py            # print the Markdown table
    .venv/bin/python benchmarks/bench_ladder.py --write    # also update docs/ladder.md

Prints one Markdown table: for every n the measured visits of both searches from the top node
(counted as calls of ``s`` / ``c``, see ``verifier/solvers/kars_dfs.py``), the paper's formulas
(3n+9)2^(n-1)-2 and (9n^2-5n+16)/2 beside them, the same counts on the dense variant of the
ladder, the edges scanned by the linear threshold method, and the top node's score (all four
methods must agree, or the script stops). Seconds go to stderr only: the table is deterministic.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from verifier.games.ladder import ladder_graph
from verifier.solvers.kars_dfs import kars_dfs
from verifier.solvers.kars_iteration import kars_iteration
from verifier.solvers.kars_levels import kars_levels
from verifier.solvers.kars_memo import kars_memo

DOC = Path(__file__).resolve().parent.parent / "docs" / "ladder.md"
BEGIN, END = "<!-- ladder-table:begin -->", "<!-- ladder-table:end -->"


def paper_dfs(n: int) -> int:
    return (3 * n + 9) * (1 << (n - 1)) - 2


def paper_memo(n: int) -> int:
    return (9 * n * n - 5 * n + 16) // 2


def table(max_n: int) -> str:
    rows = [
        "| n | nodes | DFS 6.7 (ours) | paper (3n+9)2^(n-1)-2 | memo 7.2 (ours) "
        "| paper (9n^2-5n+16)/2 | dense: DFS | dense: memo | levels: edges | score of t |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n in range(1, max_n + 1):
        g, gd = ladder_graph(n), ladder_graph(n, dense=True)
        start = time.perf_counter()
        dfs, memo = kars_dfs(g, 0), kars_memo(g, 0)
        dfs_d, memo_d = kars_dfs(gd, 0), kars_memo(gd, 0)
        lev, it = kars_levels(g), kars_iteration(g)
        scores = {dfs.value, memo.value, float(lev.value[0]), float(it.value[0])}
        if len(scores) != 1:
            sys.exit(f"n = {n}: the methods disagree on the top node: {scores}")
        if {dfs_d.value, memo_d.value, float(kars_levels(gd).value[0])} != {dfs_d.value}:
            sys.exit(f"n = {n}: the methods disagree on the dense ladder")
        print(f"n = {n}: {time.perf_counter() - start:.3f} s", file=sys.stderr)
        rows.append(
            f"| {n} | {g.n} | {dfs.visits} | {paper_dfs(n)} | {memo.visits} | {paper_memo(n)} "
            f"| {dfs_d.visits} | {memo_d.visits} | {lev.work['edges_scanned']} "
            f"| {dfs.value:g} |"
        )
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-n", type=int, default=14)
    ap.add_argument("--write", action="store_true", help="replace the table in docs/ladder.md")
    args = ap.parse_args()
    out = table(args.max_n)
    print(out)
    if args.write:
        text = DOC.read_text()
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        DOC.write_text(f"{head}{BEGIN}\n{out}\n{END}{tail}")


if __name__ == "__main__":
    main()
