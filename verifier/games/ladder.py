"""Kars' ladder graph L_n (Kars 1990, Example 7.4; Figure 6 is missing from the scan).

What the text fixes: n layers under a top node, 4n + 2 nodes in all, half of them leaves, a leaf
attached to every inner node, cycles. So the 2n + 1 inner nodes are the top ``t`` and two nodes
``a<i>``, ``b<i>`` per layer i = 1..n, each with its own leaf ``a<i>'``. The edges are our choice
(``docs/ladder.md`` explains it and compares the visit counts with the paper's formulas):

- down the rails: t -> a1, t -> b1, and a<i> -> a<i+1>, b<i> -> b<i+1>;
- up the diagonals (the rungs of the ladder): a<i+1> -> b<i>, b<i+1> -> a<i>, and a1 -> t,
  b1 -> t;
- every inner node -> its leaf.

The graph is bipartite as Kars assumes: layer i belongs to Max when i is even (the top is layer 0)
and to Min when i is odd. Every cycle runs between two consecutive layers (a<i> -> a<i+1> ->
b<i> -> b<i+1> -> a<i>, and t -> a1 -> t), and the searches meet exponentially many simple paths.

Leaf values (our choice, so the scores are not trivial): the top's leaf is worth -(n + 1), so Max
must go down; the leaf of a<i> is worth +i when i is odd and -i when i is even, and the leaf of
b<i> the opposite.

Node ids: the top is 0, then a1, b1, a2, b2, ..., then the leaves in the same order; successors
are therefore scanned up-edge first, then down-edge, then the leaf (ids in increasing order).
"""

from __future__ import annotations

from verifier.games.protocol import Game
from verifier.games.registry import BuiltinGame, Example, Option
from verifier.model import MAX, MIN, Case, GameGraph, Semantics

__all__ = ["GAME", "Ladder", "ladder", "ladder_graph"]


def ladder_graph(n: int, *, dense: bool = False) -> GameGraph:
    """The ladder L_n as a ``minimax`` graph (4n + 2 nodes, root ``t`` = id 0).

    ``dense=True`` adds the down diagonals a<i> -> b<i+1> and b<i> -> a<i+1> (every node then
    moves down to both nodes of the next layer): a variant on which Alg. 7.2 is exponential too.

    >>> g = ladder_graph(1)
    >>> g.n, g.m, [g.name(i) for i in g.successors(0)]
    (6, 7, ['a1', 'b1', "t'"])
    """
    succ, owner, value = _ladder(n, dense)
    return GameGraph.from_successors(succ, semantics=Semantics.MINIMAX, owner=owner, value=value)


def _ladder(n: int, dense: bool) -> tuple[dict[str, list[str]], dict[str, int], dict[str, float]]:
    """The successors of every node (leaves: none), the owners and the leaves' values."""
    if n < 1:
        raise ValueError(f"a ladder needs at least one layer, got n = {n}")
    inner = ["t"] + [f"{s}{i}" for i in range(1, n + 1) for s in "ab"]
    succ: dict[str, list[str]] = {x: [f"{x}'"] for x in inner}
    succ["t"] += ["a1", "b1"]
    for s, other in (("a", "b"), ("b", "a")):
        succ[f"{s}1"].append("t")
        for i in range(1, n):
            succ[f"{s}{i}"].append(f"{s}{i + 1}")  # down the rail
            if dense:
                succ[f"{s}{i}"].append(f"{other}{i + 1}")  # down the diagonal
            succ[f"{s}{i + 1}"].append(f"{other}{i}")  # up the diagonal
    owner = {"t": MAX}
    value = {"t'": float(-(n + 1))}
    for i in range(1, n + 1):
        sign = 1 if i % 2 else -1
        owner[f"a{i}"] = owner[f"b{i}"] = MIN if i % 2 else MAX
        value[f"a{i}'"] = float(sign * i)
        value[f"b{i}'"] = float(-sign * i)
    leaves: dict[str, list[str]] = {f"{x}'": [] for x in inner}
    return {**succ, **leaves}, owner, value


def ladder(n: int, *, dense: bool = False) -> Case:
    """Kars' ladder L_n as a case rooted at the top node ``t``."""
    return Case(
        graph=ladder_graph(n, dense=dense),
        id=f"kars-ladder{'-dense' if dense else ''}-{n}",
        root=0,
        source="Kars 1990, Example 7.4 (Figure 6 missing from the scan; shape in docs/ladder.md)",
        description=f"Ladder graph L_{n}: {n} layers under a top node, {4 * n + 2} nodes.",
    )


class Ladder(Game):
    """The ladder L_n on the game protocol, from the top node ``t`` (``verifier generate
    verifier.games.ladder:Ladder --param n=4``): the same graph as :func:`ladder_graph`."""

    semantics = "minimax"

    def __init__(self, n: int = 3, dense: int = 0) -> None:
        self.succ, self.owner, self.value = _ladder(int(n), bool(dense))

    def initial(self) -> str:
        return "t"

    def moves(self, node: str) -> list[str]:
        return self.succ[node]

    def outcome(self, node: str) -> float | None:
        return self.value.get(node)

    def to_move(self, node: str) -> str:
        return "max" if self.owner[node] == MAX else "min"


GAME = BuiltinGame(
    "ladder",
    "Kars' ladder graph L_n (Ex. 7.4)",
    ladder,
    options=(Option("n", int, "ladder layers.", True, "layers", example=4),),
    protocol=Ladder,
    examples=tuple(Example(f"ladder-{n}", "ladder", {"n": n}) for n in (2, 3, 5, 10)),
    order=60,
)
