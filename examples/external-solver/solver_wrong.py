"""A stranger's solver with a subtle, common bug: a depth-first search that scores a repeated
position as a loss for the player who would repeat it ("repetition loses"), so the cycle
a <-> b gets won/lost labels instead of a draw. Writes an answer CSV like solver_right.py.

    python solver_wrong.py game.json answers.csv
"""

import csv
import json
import sys


def solve(nodes):
    succ = {x: spec.get("moves", []) for x, spec in nodes.items()}
    memo = {}

    def search(x, path):
        if x in memo:
            return memo[x]
        if x in path:  # the bug: a repetition is scored as lost for the side to move
            return "lost", 0
        results = [search(y, path | {x}) for y in succ[x]]
        if not results:
            value = ("lost", 0)
        elif any(v == "lost" for v, _ in results):
            value = ("won", 1 + min(r for v, r in results if v == "lost"))
        else:
            value = ("lost", 1 + max(r for _, r in results))
        memo[x] = value
        return value

    return {x: search(x, frozenset()) for x in nodes}


def main(case_path, out_path):
    with open(case_path) as f:
        nodes = json.load(f)["nodes"]
    with open(out_path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["node", "value", "remoteness"])
        for x, (value, r) in solve(nodes).items():
            w.writerow([x, value, r])


if __name__ == "__main__":
    main(*sys.argv[1:3])
