"""Each semantics' equations without ranks as one CNF whose models are the case's solutions,
for the model counters and the backbone (``verifier uniqueness``, docs/uniqueness.md).

Only the free positions (the candidates: normal play's drawn ones, the monotone systems' nodes
with lfp < gfp, the impartial nodes that reach a cycle) have variables that count; every other
position has one value in every solution. The encodings are the project's own, not a second
copy:

- ``normal``: ``W``/``L`` per drawn position, the certificate's clauses
  (``certify.drup.won_lost_cnf`` without its "differs" clause);
- ``minimax`` and ``reachability``: the order encoding ``g(x, k)`` ("value >= levels[k]") over
  the chain of leaf values (``smt.encode.Encoding``), the free nodes' and their predecessors'
  equations, each free value inside [lfp, gfp];
- ``impartial``: the one-hot mex equations ``V(x, k)`` of the U3 proofs
  (``certify.drup.mex_cnf``) over the whole graph.

Each free position's value is a conjunction of literals (``SolutionCnf.values``), so a model
decodes to one solution and each solution has exactly one model over the projection: the
projected model count is the number of solutions.

>>> from verifier.model import GameGraph, Semantics, Case
>>> two = GameGraph.from_edges(2, [0, 1], [1, 0], semantics=Semantics.NORMAL)
>>> c = solution_cnf(Case(two, "two"), None, *normal_space(Case(two, "two")))
>>> c.nodes, c.projection
((0, 1), (1, 2, 3, 4))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.model import Case, IntArray

__all__ = ["SolutionCnf", "Values", "normal_space", "solution_cnf"]

Values = tuple[tuple[int, tuple[int, ...]], ...]
"""One position's values, each with the literals that together say it."""


@dataclass(frozen=True)
class SolutionCnf:
    """Clauses whose models, projected onto ``projection``, are the solutions."""

    clauses: list[list[int]]
    nodes: tuple[int, ...]
    """The free positions, in order."""
    values: tuple[Values, ...]
    """Per free position, each value it may take (value index; normal: 0 lost, 1 drawn, 2 won;
    impartial: the Grundy value) with the literals that together say it."""
    reference: IntArray
    """Every position's value where it is fixed (the free ones: any)."""

    @property
    def projection(self) -> tuple[int, ...]:
        return tuple(sorted({abs(v) for vals in self.values for _, lits in vals for v in lits}))

    def solution(self, model: set[int] | frozenset[int]) -> IntArray:
        """Every position's value in the solution of a model."""
        out = self.reference.copy()
        for x, v in self.decode(model).items():
            out[x] = v
        return out

    def decode(self, model: set[int] | frozenset[int]) -> dict[int, int]:
        """The free positions' values in a model (its true literals)."""
        return {
            x: next(k for k, lits in vals if all(v in model for v in lits))
            for x, vals in zip(self.nodes, self.values, strict=True)
        }


def normal_space(case: Case) -> tuple[IntArray, NDArray[np.bool_]]:
    """Normal play's reference (derived label + 1) and free positions (the drawn ones)."""
    from verifier.equations.rules import derived_labels

    labels, _ = derived_labels(case.graph)
    return (labels + 1).astype(np.int64), labels == 0


def solution_cnf(
    case: Case,
    sys: Any,
    reference: IntArray,
    free: NDArray[np.bool_],
    lo: IntArray | None = None,
    hi: IntArray | None = None,
) -> SolutionCnf:
    """The CNF of ``case``'s equations over its free positions (the others at ``reference``;
    ``sys`` the ``OrderSystem`` of the order semantics, None for impartial games)."""
    g = case.graph
    nodes = np.flatnonzero(free)
    if sys is None:
        from verifier.certify.drup import mex_cnf

        first = np.concatenate([[1], 1 + np.cumsum(g.out_degree.astype(np.int64) + 1)])
        values = tuple(
            tuple((k, (int(first[x]) + k,)) for k in range(int(g.out_degree[x]) + 1))
            for x in nodes.tolist()
        )
        clauses = mex_cnf(g.succ_ptr, g.succ_idx)
        return SolutionCnf(clauses, tuple(nodes.tolist()), values, reference)
    if sys.negamax:
        from verifier.certify.drup import won_lost_cnf

        labels = (reference - 1).tolist()
        clauses = won_lost_cnf(g.succ_ptr, g.succ_idx, labels, differs=False)
        labelled: list[Values] = [
            ((0, (2 * x + 2,)), (1, (-(2 * x + 1), -(2 * x + 2))), (2, (2 * x + 1,)))
            for x in nodes.tolist()
        ]
        return SolutionCnf(clauses, tuple(nodes.tolist()), tuple(labelled), reference)
    return _order_cnf(sys, reference, free, lo, hi)


def _order_cnf(
    sys: Any,
    reference: IntArray,
    free: NDArray[np.bool_],
    lo: IntArray | None,
    hi: IntArray | None,
) -> SolutionCnf:
    from verifier.smt.cnf import TRUE
    from verifier.smt.common import predecessors_of
    from verifier.smt.encode import Encoding

    g = sys.graph
    nodes = np.flatnonzero(free)
    enc = Encoding.build(sys, eq=free | predecessors_of(g, free), var=free, fixed=reference)
    low = np.zeros(g.n, dtype=np.int64) if lo is None else lo
    high = np.full(g.n, sys.top, dtype=np.int64) if hi is None else hi
    enc.inside(nodes, low, high)
    values = []
    for x in nodes.tolist():
        one = np.array([x])
        vals = []
        for k in range(int(low[x]), int(high[x]) + 1):
            lits = [int(enc.lit(one, k)[0]), -int(enc.lit(one, k + 1)[0])]
            vals.append((k, tuple(v for v in lits if v != TRUE)))
        values.append(tuple(vals))
    return SolutionCnf(enc.cnf.clauses(), tuple(nodes.tolist()), tuple(values), reference)
