"""Two reductions of normal play's solution CNF (``research.cnf``) that keep its number of
models, measured on the full L-game in docs/uniqueness.md ("Why the full L-game is not
counted"):

- :func:`backbone_units`: the backbone's ranges as clauses (a position never lost: not ``L``;
  never won: not ``W``; never drawn: ``W`` or ``L``). Every model satisfies them, so adding
  them changes no count; the counter starts with fewer variables.
- :func:`feedback_projection`: the ``W``/``L`` variables of a feedback vertex set of the free
  positions' move graph. ``W_x`` iff some successor is lost and ``L_x`` iff every successor is
  won are both in the CNF (each direction a clause), so once the positions of a feedback
  vertex set have their values, the others (an acyclic graph) follow from their successors by
  recursion: each model is fixed by its restriction to the set, and the count projected onto
  those variables is the number of models.

>>> from verifier.model import Case, GameGraph, Semantics
>>> from verifier.research.cnf import normal_space, solution_cnf
>>> ring = GameGraph.from_edges(3, [0, 1, 2], [1, 2, 0], semantics=Semantics.NORMAL)
>>> case = Case(ring, "ring")
>>> feedback_projection(solution_cnf(case, None, *normal_space(case)), ring)
(1, 2)
"""

from __future__ import annotations

from verifier.model import GameGraph
from verifier.research.backbone import Backbone
from verifier.research.cnf import SolutionCnf

__all__ = ["backbone_units", "feedback_projection", "feedback_vertex_set"]


def feedback_vertex_set(graph: GameGraph, among: tuple[int, ...]) -> list[int]:
    """A feedback vertex set of the moves between the positions ``among`` (every cycle of
    them passes through one), greedy: positions with a move to themselves first; then, while a
    cycle is left, positions with no move in or no move out among the rest are dropped (they
    are on no cycle) and the one with the most moves in times out is taken."""
    keep = set(among)
    out = {x: {int(y) for y in graph.successors(x).tolist() if int(y) in keep} for x in among}
    into: dict[int, set[int]] = {x: set() for x in among}
    for x, ys in out.items():
        for y in ys:
            into[y].add(x)
    chosen = [x for x in among if x in out[x]]

    def drop(x: int) -> list[int]:
        """Remove ``x``; the neighbours it leaves without a move in or out."""
        near = out.pop(x) | into.pop(x)
        for y in near:
            into.get(y, set()).discard(x)
            out.get(y, set()).discard(x)
        return [y for y in near if y in out and (not out[y] or not into[y])]

    todo = list(chosen)
    todo += [x for x in among if x not in chosen and (not out[x] or not into[x])]
    while True:
        while todo:
            x = todo.pop()
            if x in out:
                todo += drop(x)
        if not out:
            return sorted(chosen)
        x = max(out, key=lambda v: (len(out[v]) * len(into[v]), -v))
        chosen.append(x)
        todo.append(x)


def feedback_projection(cnf: SolutionCnf, graph: GameGraph) -> tuple[int, ...]:
    """The variables of normal play's CNF that fix every model (see the module docstring):
    the ``W``/``L`` variables of :func:`feedback_vertex_set` over the free positions."""
    fvs = feedback_vertex_set(graph, cnf.nodes)
    return tuple(v for x in fvs for v in (2 * x + 1, 2 * x + 2))


def backbone_units(cnf: SolutionCnf, backbone: Backbone) -> list[list[int]]:
    """Normal play's clauses that the backbone's ranges prove (0 lost, 1 drawn, 2 won; see the
    module docstring), one per value a decided free position never takes."""
    clauses: list[list[int]] = []
    for x, vals in backbone.attained.items():
        w, lo = 2 * x + 1, 2 * x + 2
        if 0 not in vals:
            clauses.append([-lo])
        if 2 not in vals:
            clauses.append([-w])
        if 1 not in vals:
            clauses.append([w, lo])
    return clauses
