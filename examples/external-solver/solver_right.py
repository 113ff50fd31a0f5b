"""A stranger's solver (no import of the verifier): Knuth's retrograde analysis of a normal-play
game in the readable JSON case format, written as an answer CSV (node,value,remoteness).

    python solver_right.py game.json answers.csv
"""

import csv
import json
import sys
from collections import deque


def solve(nodes):
    succ = {x: spec.get("moves", []) for x, spec in nodes.items()}
    pred = {x: [] for x in nodes}
    for x, ys in succ.items():
        for y in ys:
            pred[y].append(x)
    label, plies = {}, {}
    left = {x: len(ys) for x, ys in succ.items()}
    queue = deque()
    for x, ys in succ.items():
        if not ys:  # no move: the player to move has lost
            label[x], plies[x] = "lost", 0
            queue.append(x)
    while queue:
        y = queue.popleft()
        for x in pred[y]:
            if x in label:
                continue
            if label[y] == "lost":  # a move to a lost position wins
                label[x], plies[x] = "won", plies[y] + 1
                queue.append(x)
            else:
                left[x] -= 1
                if left[x] == 0:  # every move leads to a won position
                    label[x], plies[x] = "lost", plies[y] + 1
                    queue.append(x)
    return {x: (label.get(x, "draw"), plies.get(x)) for x in nodes}


def main(case_path, out_path):
    with open(case_path) as f:
        nodes = json.load(f)["nodes"]
    with open(out_path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["node", "value", "remoteness"])
        for x, (value, r) in solve(nodes).items():
            w.writerow([x, value, "" if r is None else r])


if __name__ == "__main__":
    main(*sys.argv[1:3])
