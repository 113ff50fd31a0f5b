"""Plain brute-force references for the SMT tests (independent of the package's algorithms).

Nothing here uses numpy kernels or Z3: Kars' Def. 4.1 iteration, enumeration of every solution
of (T+MM), Knuth's queue-based retrograde analysis, the ICO attractor with a queue, and a
hypothesis strategy for small random game graphs of each semantics.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from typing import Any

import numpy as np
from hypothesis import strategies as st

from verifier.model import MAX, MIN, Case, GameGraph, Semantics, SolverResult
from verifier.model.results import View


def succ_lists(g: GameGraph) -> list[list[int]]:
    return [g.successors(i).tolist() for i in range(g.n)]


def kars_iteration(g: GameGraph) -> list[float]:
    """Kars Def. 4.1: s_0 = 0, s_{n+1} = t / max / min of s_n, until it stops changing."""
    succ = succ_lists(g)
    s = [0.0] * g.n
    for _ in range(4 * g.n + 4):
        new = [
            float(g.value[x])
            if not succ[x]
            else (max if g.owner[x] == MAX else min)(s[y] for y in succ[x])
            for x in range(g.n)
        ]
        if new == s:
            return s
        s = new
    raise AssertionError("Kars' iteration did not converge")


def all_solutions(g: GameGraph) -> list[list[float]]:
    """Every solution of (T+MM) over t(F) ∪ {0}, by enumeration (tiny graphs only)."""
    succ = succ_lists(g)
    levels = sorted({float(g.value[x]) for x in range(g.n) if not succ[x]} | {0.0})
    inner = [x for x in range(g.n) if succ[x]]
    out = []
    for combo in itertools.product(levels, repeat=len(inner)):
        s = [float(g.value[x]) if not succ[x] else 0.0 for x in range(g.n)]
        for x, v in zip(inner, combo, strict=True):
            s[x] = v
        if all(s[x] == (max if g.owner[x] == MAX else min)(s[y] for y in succ[x]) for x in inner):
            out.append(s)
    return out


def retrograde(g: GameGraph) -> tuple[list[int], list[int], list[int]]:
    """Knuth's queue: labels (+1/-1/0), remoteness and optimal moves (shared definitions)."""
    succ = succ_lists(g)
    pred: list[list[int]] = [[] for _ in range(g.n)]
    for x in range(g.n):
        for y in succ[x]:
            pred[y].append(x)
    lab = [0] * g.n
    rem = [-1] * g.n
    count = [len(s) for s in succ]
    queue: deque[int] = deque()
    for x in range(g.n):
        if not succ[x]:
            v = g.value[x]
            lab[x] = -1 if math.isnan(v) else int(v)
            if lab[x] != 0:
                rem[x] = 0
                queue.append(x)
    while queue:
        y = queue.popleft()
        for x in pred[y]:
            if lab[x] != 0:
                continue
            if lab[y] == -1:
                lab[x], rem[x] = 1, rem[y] + 1
                queue.append(x)
            else:
                count[x] -= 1
                if count[x] == 0:
                    lab[x] = -1
                    rem[x] = 1 + max(rem[z] for z in succ[x])
                    queue.append(x)
    move = [-1] * g.n
    for x in range(g.n):
        ys = succ[x]
        if not ys:
            continue
        if lab[x] == 1:
            move[x] = min((rem[y], y) for y in ys if lab[y] == -1)[1]
        elif lab[x] == -1:
            move[x] = max(ys, key=lambda y: (rem[y], -y))
        else:
            move[x] = min(y for y in ys if lab[y] != 1)
    return lab, rem, move


def attractor_ref(g: GameGraph) -> tuple[list[int], list[int], list[int]]:
    """ICO attractor with layers and strategies (shared definitions), by a queue."""
    succ = succ_lists(g)
    pred: list[list[int]] = [[] for _ in range(g.n)]
    for x in range(g.n):
        for y in succ[x]:
            pred[y].append(x)
    layer = [-1] * g.n
    count = [len(s) for s in succ]
    queue: deque[int] = deque()
    for x in range(g.n):
        if g.target[x]:
            layer[x] = 0
            queue.append(x)
    while queue:
        y = queue.popleft()
        for x in pred[y]:
            if layer[x] >= 0:
                continue
            if g.owner[x] != MIN:
                layer[x] = layer[y] + 1
                queue.append(x)
            else:
                count[x] -= 1
                if count[x] == 0:
                    layer[x] = 1 + max(layer[z] for z in succ[x])
                    queue.append(x)
    move = [-1] * g.n
    for x in range(g.n):
        ys = succ[x]
        if layer[x] >= 0 and not g.target[x] and g.owner[x] != MIN:
            move[x] = min((layer[y], y) for y in ys if layer[y] >= 0)[1]
        if layer[x] < 0 and g.owner[x] == MIN and ys:
            move[x] = min(y for y in ys if layer[y] < 0)
    return [int(v >= 0) for v in layer], layer, move


def minimax_moves(g: GameGraph, s: list[float]) -> list[int]:
    """Optimal moves for Kars' score: the winning side moves towards a leaf worth its score
    (least attractor layer at that level), the other side keeps the score."""
    succ = succ_lists(g)
    move = [-1] * g.n
    for x in range(g.n):
        if succ[x]:
            move[x] = min(y for y in succ[x] if s[y] == s[x])
    for v in sorted({v for v in s if v != 0}):
        side = MAX if v > 0 else MIN
        good = [
            (not succ[x]) and (g.value[x] >= v if side == MAX else g.value[x] <= v)
            for x in range(g.n)
        ]
        layer = [0 if good[x] else -1 for x in range(g.n)]
        changed = True
        while changed:  # Bellman-style layers, plain and slow: fine for tests
            changed = False
            for x in range(g.n):
                if layer[x] >= 0 or not succ[x]:
                    continue
                ls = [layer[y] for y in succ[x]]
                if g.owner[x] == side and any(v2 >= 0 for v2 in ls):
                    layer[x] = 1 + min(v2 for v2 in ls if v2 >= 0)
                    changed = True
                elif g.owner[x] != side and all(v2 >= 0 for v2 in ls):
                    layer[x] = 1 + max(ls)
                    changed = True
        for x in range(g.n):
            if g.owner[x] == side and s[x] == v and succ[x]:
                cands = [y for y in succ[x] if s[y] == v and 0 <= layer[y] < layer[x]]
                move[x] = min(cands, key=lambda y: (layer[y], y))
    return move


def reference_results(g: GameGraph) -> dict[str, SolverResult]:
    """Correct answers with ranks and moves for ``g``, as a solver would report them."""
    if g.semantics is Semantics.MINIMAX:
        s = kars_iteration(g)
        mv = minimax_moves(g, s)
        return {"ref": SolverResult("ref", View.SCORE, np.array(s), move=np.array(mv))}
    if g.semantics is Semantics.NORMAL:
        lab, rem, mv = retrograde(g)
        return {
            "ref": SolverResult(
                "ref", View.LABEL, np.array(lab), remoteness=np.array(rem), move=np.array(mv)
            )
        }
    w, layer, mv = attractor_ref(g)
    return {
        "ref": SolverResult(
            "ref", View.REGION, np.array(w), remoteness=np.array(layer), move=np.array(mv)
        )
    }


def figure1(b: float, d: float) -> GameGraph:
    """Kars' Figure 1: a (Max) -> b, c; c (Min) -> d, a."""
    return GameGraph.from_successors(
        {"a": ["b", "c"], "c": ["d", "a"]},
        semantics=Semantics.MINIMAX,
        owner={"a": MAX, "c": MIN},
        value={"b": b, "d": d},
    )


@st.composite
def graphs(draw: Any, semantics: Semantics, max_nodes: int = 7) -> GameGraph:
    """Small random graphs with cycles, self-loops, dead ends and isolated nodes."""
    n = draw(st.integers(1, max_nodes))
    edges = draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    src = [a for a, _ in sorted(edges)]
    dst = [b for _, b in sorted(edges)]
    deg = np.bincount(np.array(src, dtype=np.int64), minlength=n) if src else np.zeros(n, int)
    term = deg == 0
    owner = draw(st.lists(st.sampled_from([MAX, MIN]), min_size=n, max_size=n))
    vals = draw(st.lists(st.sampled_from([-2.0, -1.0, 0.0, 1.0, 3.0]), min_size=n, max_size=n))
    if semantics is Semantics.MINIMAX:
        own = np.where(term, -1, owner)
        value = np.where(term, vals, np.nan)
        return GameGraph.from_edges(n, src, dst, semantics=semantics, owner=own, value=value)
    if semantics is Semantics.NORMAL:
        labs = np.clip(np.sign(vals), -1, 1)
        value = np.where(term, labs, np.nan)
        return GameGraph.from_edges(n, src, dst, semantics=semantics, value=value)
    tgt = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return GameGraph.from_edges(n, src, dst, semantics=semantics, owner=owner, target=tgt)


def case_of(g: GameGraph, **kw: Any) -> Case:
    return Case(g, "test", **kw)


def as_semantics(sem: Semantics, g: GameGraph) -> GameGraph:
    """The same graph played as a ``normal`` or ``reachability`` game."""
    term = g.is_terminal
    if sem is Semantics.NORMAL:
        value = np.where(term, np.clip(np.sign(np.nan_to_num(g.value)), -1, 1), np.nan)
        return g.replace(semantics=sem, owner=np.full(g.n, -1, np.int8), value=value)
    owner = np.where(term, 0, g.owner).astype(np.int8)
    return g.replace(
        semantics=sem, owner=owner, value=np.full(g.n, np.nan), target=term & (g.value > 0)
    )
