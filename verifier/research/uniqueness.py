"""The structure of the solution set of a case's equations (``verifier uniqueness CASE``).

Which equations, per semantics: (T+MM) for ``minimax``, the won/lost rules without ranks (their
negamax form) for ``normal``, the attractor rules for ``reachability`` (Kars 1990; Knuth's
exercise; the ICO notes), the mex equations for ``impartial`` (Sprague-Grundy). What is computed:

- **bounds per node.** For the order systems the least and greatest solutions by propagation
  (``equations.fixpoints``): every solution lies between them, node by node, and the solution is
  unique iff they meet (``docs/uniqueness.md``); Z3 certifies them on the cyclic cores
  (``smt.uniqueness.intervals``) where asked. ``normal``: the won and lost nodes are the
  derivable ones in every solution, only drawn nodes may change (a circular labelling).
  ``impartial``: nodes that reach no cycle have one value in every solution (the mex recursion);
  the others are the candidates.
- **free components.** The strongly connected components of the free nodes (those whose value
  is not the same in every solution, or may not be), sinks first, each with the number of
  solutions of its own equations when every node below it keeps the reference solution (Kars'
  score, the derived labels, the attractor, the Grundy values; the nodes above adjust), and the
  free components it depends on (its free successors lead into them).
- **the number of solutions with a model counter** (the ``counting`` extra; ``counter``): the
  CNF of the equations without ranks (``research.cnf``) counted exactly by Ganak, component by
  component (``research.counting``), an ApproxMC estimate where that does not finish within the
  budget, else the bounds below; and which values each free node takes, by SAT calls
  (``research.backbone``). ``SolutionSet.method`` names what gave the number: ``exact``,
  ``approximate``, ``bounds``.
- **the number of solutions** without the counter: exact where Z3 enumerates every solution over the
  free nodes (blocking clauses, up to ``max_count`` solutions and ``MAX_ENUMERATED`` free nodes),
  or, for ``minimax`` and ``reachability``, as the product of the cyclic components' counts when
  none depends on another through free nodes (then each sees only fixed values below it, an acyclic
  free node's value follows from its successors', and in a monotone system the nodes above always
  have a solution: a fixed one keeps its equation for any values inside the bounds); otherwise
  bounds, and always said which.
- **Kars' score among the solutions** (``minimax``): per free node whether it sits at the least
  solution, the greatest, or strictly between (the draw-closest value).

Every count is checked in the tests against brute-force enumeration on small graphs.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from verifier.model import Case, GameGraph, IntArray
from verifier.model.describe import describe
from verifier.model.mex import mex
from verifier.registry import Options

if TYPE_CHECKING:
    from verifier.research.cnf import SolutionCnf

__all__ = [
    "MAX_ASKED",
    "MAX_COUNT",
    "MAX_ENUMERATED",
    "Component",
    "SolutionSet",
    "case_cnf",
    "solution_set",
    "view_values",
]

MAX_COUNT = 10_000
"""Enumerate at most this many solutions (``--max-count``)."""

MAX_ENUMERATED = 400
"""Enumerate solutions only over at most this many free nodes (beyond: components and bounds)."""

MAX_ASKED = 20_000
"""Beyond ``MAX_ENUMERATED``, Z3 is still asked whether a second solution exists (``normal``:
one Boolean question, as smt-uniqueness asks it at any size; ``impartial``: integer variables,
up to this many candidates)."""


@dataclass(frozen=True)
class Component:
    """A strongly connected component of the free nodes."""

    nodes: tuple[int, ...]
    cyclic: bool
    count: int | None
    """Solutions of its own equations with every node below it (its successors outside it) at
    the reference solution (the reference included; the nodes above adjust); None when not
    enumerated (too big) or undecided."""
    complete: bool
    """``count`` is every such assignment (not cut at ``max_count``)."""
    depends_on: tuple[int, ...]
    """Indexes (in ``SolutionSet.components``) of the free components its free nodes lead to."""


@dataclass(frozen=True, eq=False)
class SolutionSet:
    """What :func:`solution_set` found out."""

    case: Case
    reference: NDArray[Any]
    """The reference solution, in the semantics' view: Kars' score, the derived labels, the
    attractor; for Grundy values the first solution enumerated (-1 where none was: the nodes
    that reach a cycle when the solutions were not enumerated, or there is no solution)."""
    lo: NDArray[Any] | None
    """Least solution per node (order systems), in the view's values."""
    hi: NDArray[Any] | None
    free: NDArray[np.bool_]
    """Nodes whose value may differ between solutions."""
    components: tuple[Component, ...]
    count: int | None
    """The number of solutions when known exactly."""
    count_bounds: tuple[int, int | None]
    """Lower and upper bound on the number of solutions (equal when exact; None: unbounded
    here)."""
    how: str
    """How the count was obtained, in words."""
    method: str
    """Which method gave the number: ``exact``, ``approximate`` (``estimate``) or ``bounds``."""
    certified: str
    """What Z3 said of the bounds (or why it was not asked)."""
    kars_position: dict[str, int] = field(default_factory=dict)
    """``minimax``: free nodes where Kars' score is the least value, the greatest, between."""
    attained: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    """Per free node, the values it takes over the enumerated solutions (when complete)."""
    seconds: float = 0.0
    estimate: int | None = None
    """ApproxMC's (epsilon, delta) estimate of the count (``method`` approximate)."""

    @property
    def unique(self) -> bool | None:
        """True / False, or None when undecided (the count not exact and under 2 known)."""
        if self.count is not None:
            return self.count == 1
        if self.count_bounds[0] >= 2:
            return False
        return None if self.free.any() else True

    def to_dict(self) -> dict[str, Any]:
        g = self.case.graph
        d = describe(g.semantics)
        out: dict[str, Any] = {
            "case": self.case.id,
            "semantics": g.semantics.value,
            "positions": g.n,
            "unique": self.unique,
            "solutions": self.count,
            "solutions_at_least": self.count_bounds[0],
            "solutions_at_most": self.count_bounds[1],
            "method": self.method,
            "how": self.how,
            "certified": self.certified,
            "free_positions": int(self.free.sum()),
            "components": [
                {
                    "positions": [g.name(x) for x in c.nodes],
                    "cyclic": c.cyclic,
                    "assignments": c.count,
                    "complete": c.complete,
                    "depends_on": list(c.depends_on),
                }
                for c in self.components
            ],
        }
        if self.lo is not None and self.hi is not None:
            out["intervals"] = {
                g.name(int(x)): [d.show(self.lo[x]), d.show(self.hi[x])]
                for x in np.flatnonzero(self.free)
            }
        if self.kars_position:
            out["kars_position"] = self.kars_position
        if self.attained:
            out["attained"] = {
                g.name(x): [d.show(v) for v in vals] for x, vals in self.attained.items()
            }
        if self.estimate is not None:
            out["estimate"] = self.estimate
        out["seconds"] = round(self.seconds, 3)
        return out


# ---------------------------------------------------------------------- the systems
@dataclass(frozen=True, eq=False)
class _Space:
    """The free-node search space of one case, in a form the enumerator reads."""

    reference: IntArray
    """Value index (order systems) or Grundy value (impartial) per node."""
    lo: IntArray | None
    hi: IntArray | None
    free: NDArray[np.bool_]
    domain: IntArray
    """Per node, how many values it may take (1 where fixed)."""


def _order_space(case: Case) -> tuple[Any, _Space]:
    from verifier.equations.fixpoints import gfp, kars_clamp, lfp
    from verifier.equations.system import OrderSystem

    g = case.graph
    sys = OrderSystem.for_graph(g)
    if sys.negamax:  # normal: the derivable labels are fixed, only draws may change
        from verifier.equations.rules import derived_labels

        labels, _ = derived_labels(g)
        ref = (labels + 1).astype(np.int64)
        # drawn and on or before a cycle: a circular labelling may give them any label (a drawn
        # position that reaches no cycle has its label fixed by its successors', sinks first)
        free = (labels == 0) & _on_or_before_a_cycle(g)
        return sys, _Space(ref, None, None, free, np.where(free, 3, 1))
    lo, hi = lfp(sys), gfp(sys)
    ref = kars_clamp(sys, lo, hi) if describe(g.semantics).kars_score else lo
    free = lo != hi
    return sys, _Space(ref, lo, hi, free, (hi - lo + 1).astype(np.int64))


def _on_or_before_a_cycle(g: Any, c: Any = None) -> NDArray[np.bool_]:
    """The positions on a cycle or with a path to one: the others' values follow from their
    successors' in every solution (by induction from the sinks). ``c``: ``g``'s condensation,
    if made already."""
    from verifier.engine.scc import condensation
    from verifier.equations.fixpoints import reach_backward

    c = condensation(g) if c is None else c
    cyclic = c.cyclic[c.label]
    return np.asarray(cyclic | reach_backward(g.pred_ptr, g.pred_idx, cyclic), dtype=np.bool_)


def _grundy_space(case: Case) -> _Space:
    from verifier.engine.scc import condensation

    g = case.graph
    c = condensation(g)
    # nodes that reach a cycle may take other values; the others have the mex recursion's
    reaches = _on_or_before_a_cycle(g, c)
    ref = np.full(g.n, -1, dtype=np.int64)
    order = np.argsort(c.height[c.label], kind="stable")  # sinks first
    for x in order.tolist():
        if not reaches[x]:
            ref[x] = mex(int(ref[y]) for y in g.successors(x))
    domain = np.where(reaches, g.out_degree + 1, 1).astype(np.int64)
    return _Space(ref, None, None, reaches, domain)


# ---------------------------------------------------------------------- enumeration
class _Enumerator:
    """Solutions over a set of variable nodes, others fixed, one Z3 query per solution."""

    def __init__(
        self,
        case: Case,
        sys: Any,
        space: _Space,
        var: NDArray[np.bool_],
        *,
        whole: bool = True,
    ) -> None:
        """``whole``: the equations of the variables' predecessors must hold too (solutions
        of the whole system); else only the variables' own (a component's solutions given its
        successors, whatever its predecessors must then do)."""
        self.case, self.sys, self.space, self.var = case, sys, space, var
        self.whole = whole

    def run(self, limit: int, options: Options) -> tuple[list[IntArray], bool, str]:
        """Up to ``limit`` solutions (value arrays over all nodes), whether that is all of
        them, and why not when Z3 gave up."""
        if describe(self.case.semantics).has_order:
            return self._order(limit, options)
        return self._grundy(limit, options)

    def _order(self, limit: int, options: Options) -> tuple[list[IntArray], bool, str]:
        from verifier.smt.cnf import SatStatus, solve
        from verifier.smt.common import predecessors_of
        from verifier.smt.encode import Encoding

        g = self.case.graph
        var = self.var
        eq = var | predecessors_of(g, var) if self.whole else var
        enc = Encoding.build(self.sys, eq=eq, var=var, fixed=self.space.reference)
        if self.space.lo is not None and self.space.hi is not None:
            enc.inside(np.flatnonzero(var), self.space.lo, self.space.hi)
        nodes = np.flatnonzero(var)
        found: list[IntArray] = []
        while len(found) < limit:
            out = solve(enc.cnf, options, want_model=True)
            if out.status is SatStatus.UNKNOWN:
                return found, False, out.reason
            if out.status is SatStatus.UNSAT or out.model is None:
                return found, True, ""
            sol = enc.decode(out.model)
            found.append(sol)
            enc.differs(nodes, sol)
        return found, False, f"stopped at {limit} solutions (--max-count)"

    def _grundy(self, limit: int, options: Options) -> tuple[list[IntArray], bool, str]:
        import z3

        g = self.case.graph
        ref = self.space.reference
        var = self.var
        s = z3.Solver()
        s.set("random_seed", options.seed)
        s.set("timeout", 60_000)
        val: dict[int, Any] = {}
        for x in np.flatnonzero(var).tolist():
            val[x] = z3.Int(f"g{x}")
            s.add(val[x] >= 0, val[x] <= int(g.out_degree[x]))

        def v(y: int) -> Any:
            return val[y] if y in val else z3.IntVal(int(ref[y]))

        check = np.flatnonzero(var | _preds(g, var) if self.whole else var).tolist()
        for x in check:
            succ = g.successors(x).tolist()
            gx = v(x)
            s.add(*[v(y) != gx for y in succ])
            for k in range(len(succ)):
                s.add(z3.Implies(gx > k, z3.Or([v(y) == k for y in succ])))
        found: list[IntArray] = []
        nodes = sorted(val)
        while len(found) < limit:
            r = s.check()
            if r == z3.unknown:
                return found, False, str(s.reason_unknown())
            if r == z3.unsat:
                return found, True, ""
            m = s.model()
            sol = ref.copy()
            for x in nodes:
                sol[x] = m.eval(val[x], model_completion=True).as_long()
            found.append(sol)
            s.add(z3.Or([val[x] != int(sol[x]) for x in nodes]) if nodes else z3.BoolVal(False))
        return found, False, f"stopped at {limit} solutions (--max-count)"


def _preds(g: GameGraph, mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    from verifier.smt.common import predecessors_of

    return predecessors_of(g, mask)


# ---------------------------------------------------------------------- components
def _components(
    case: Case, free: NDArray[np.bool_]
) -> tuple[list[NDArray[np.int64]], list[bool], list[tuple[int, ...]]]:
    """The SCCs of the subgraph of free nodes, sinks first: nodes, cyclic?, dependencies."""
    from verifier.engine.scc import condensation

    g = case.graph
    ids = np.flatnonzero(free)
    if len(ids) == 0:
        return [], [], []
    new = np.full(g.n, -1, dtype=np.int64)
    new[ids] = np.arange(len(ids))
    keep = free[g.edge_src] & free[g.succ_idx]
    sub = GameGraph.from_edges(
        len(ids), new[g.edge_src[keep]], new[g.succ_idx[keep]], semantics=g.semantics
    )
    c = condensation(sub)
    order = np.argsort(c.height, kind="stable")  # components sinks first
    position = np.empty(c.count, dtype=np.int64)
    position[order] = np.arange(c.count)
    members: list[NDArray[np.int64]] = [ids[c.label == k] for k in order.tolist()]
    cyclic = [bool(c.cyclic[k]) for k in order.tolist()]
    src, dst = position[c.label[sub.edge_src]], position[c.label[sub.succ_idx]]
    deps: list[set[int]] = [set() for _ in members]
    for a, b in zip(src.tolist(), dst.tolist(), strict=True):
        if a != b:
            deps[a].add(b)
    return members, cyclic, [tuple(sorted(d)) for d in deps]


def _reach(deps: list[tuple[int, ...]]) -> list[set[int]]:
    """Per component, every component it depends on through free nodes (transitively)."""
    out: list[set[int]] = []
    for k, d in enumerate(deps):  # sinks first: dependencies are already done
        acc: set[int] = set()
        for j in d:
            acc |= {j} | out[j]
        out.append(acc)
        assert all(j < k for j in d)
    return out


# ---------------------------------------------------------------------- the whole
def solution_set(
    case: Case,
    options: Options | None = None,
    *,
    max_count: int = MAX_COUNT,
    max_enumerated: int = MAX_ENUMERATED,
    certify: bool = True,
    counter: bool | None = None,
    budget: float | None = None,
) -> SolutionSet:
    """The structure of the solutions of ``case``'s equations (see the module docstring).

    ``counter``: count with the model counter and decide the backbone by SAT calls (None: where
    the ``counting`` extra is installed), within ``budget`` seconds (shares of it: the exact
    count, the estimate, the backbone); else enumerate with Z3 as before."""
    from verifier.research.counting import INSTALL, available

    options = options or Options()
    t0 = time.perf_counter()
    g = case.graph
    d = describe(g.semantics)
    sys: Any = None
    if d.has_order:
        sys, space = _order_space(case)
    else:
        space = _grundy_space(case)
    use = available() if counter is None else counter
    estimate = None
    if use and space.free.any():
        total, bounds, how, method, estimate, attained, first = _counted(
            case, sys, space, budget, options
        )
    else:
        total, bounds, how, attained, first = _count(
            case, sys, space, max_count, max_enumerated, options
        )
        method = "bounds" if total is None else "exact"
        if total is None and counter is None:
            how += f" (exact counts: {INSTALL})"
    if not d.has_order and first is not None:
        space = replace(space, reference=first)  # no order: the first solution found
    free = space.free.copy()
    if total is not None and total <= 1:
        free[:] = False  # one solution (or none): no position takes two values
    for x, vals in attained.items():  # decided: free where it takes two values
        free[x] = len(vals) > 1
    attained = {x: vals for x, vals in attained.items() if free[x]}
    members, cyclic, deps = _components(case, free)
    comps: list[Component] = []
    for nodes, cyc, dep in zip(members, cyclic, deps, strict=True):
        count, complete = _local_count(
            case, sys, space, nodes, cyc, max_count, max_enumerated, options
        )
        comps.append(Component(tuple(nodes.tolist()), cyc, count, complete, dep))
    if total is None:
        total, bounds, how = _from_components(case, space, comps, deps, bounds, how)
        method = "exact" if total is not None else method
    certified = "not asked"
    if not d.has_order:
        certified = "no bounds to certify (the mex equations have no order)"
    elif certify:
        certified = _certify(case, sys, options)
    view = view_values(case, sys)
    return SolutionSet(
        case=case,
        reference=view(space.reference),
        lo=None if space.lo is None else view(space.lo),
        hi=None if space.hi is None else view(space.hi),
        free=free,
        components=tuple(comps),
        count=total,
        count_bounds=bounds,
        how=how,
        method=method,
        certified=certified,
        kars_position=_kars_position(space, free) if d.kars_score else {},
        attained={x: tuple(view(np.asarray(v)).tolist()) for x, v in attained.items()},
        seconds=time.perf_counter() - t0,
        estimate=estimate,
    )


def case_cnf(case: Case) -> SolutionCnf:
    """The CNF whose models over its projection are ``case``'s solutions
    (``research.cnf``), over the same free positions as :func:`solution_set`'s."""
    from verifier.research.cnf import solution_cnf

    sys: Any = None
    if describe(case.semantics).has_order:
        sys, space = _order_space(case)
    else:
        space = _grundy_space(case)
    return solution_cnf(case, sys, space.reference, space.free, space.lo, space.hi)


def view_values(case: Case, sys: Any) -> Any:
    """Value indices (or Grundy values) -> the view's stored values (``sys``: the case's
    ``OrderSystem``, None for impartial games)."""
    if sys is None:
        return lambda a: np.asarray(a)
    if sys.negamax:  # normal: value index 0, 1, 2 -> label -1, 0, +1
        return lambda a: (np.asarray(a) - 1).astype(np.int8)
    return lambda a: sys.levels[np.asarray(a)]


def _local_count(
    case: Case,
    sys: Any,
    space: _Space,
    nodes: NDArray[np.int64],
    cyclic: bool,
    max_count: int,
    max_enumerated: int,
    options: Options,
) -> tuple[int | None, bool]:
    """Assignments of one component with every other node at the reference."""
    if not cyclic:
        return 1, True  # an acyclic free node's value follows from its successors'
    if len(nodes) > max_enumerated:
        return None, False
    var = np.zeros(case.graph.n, dtype=np.bool_)
    var[nodes] = True
    found, complete, _ = _Enumerator(case, sys, space, var, whole=False).run(max_count, options)
    return (len(found) if found or complete else None), complete


def _count(
    case: Case,
    sys: Any,
    space: _Space,
    max_count: int,
    max_enumerated: int,
    options: Options,
) -> tuple[int | None, tuple[int, int | None], str, dict[int, list[Any]], IntArray | None]:
    """The number of solutions by enumeration over the free nodes (exact when Z3 finishes
    under the limits; else a lower bound), how, the values each free node takes, and the
    first solution found."""
    free = space.free
    if not free.any():
        return 1, (1, 1), "every node has one value in every solution", {}, None
    upper = _box(space)
    if int(free.sum()) > max_enumerated:
        why = f"not enumerated (more than {max_enumerated} free nodes)"
        if space.lo is not None:  # the least and the greatest solution differ
            return None, (2, upper), why, {}, None
        if not describe(case.semantics).has_order and int(free.sum()) > MAX_ASKED:
            return None, (0, upper), why, {}, None
        # one question to Z3 over every candidate: is there a second solution?
        found, complete, reason = _Enumerator(case, sys, space, free).run(2, options)
        if complete and len(found) <= 1:
            n = len(found)
            return n, (n, n), "Z3 finds no second solution over the candidates", {}, None
        if len(found) >= 2:
            return None, (2, upper), f"{why}; Z3 found a second solution", {}, found[0]
        return None, (1, upper), f"{why}; Z3 did not decide ({reason})", {}, None
    found, complete, why = _Enumerator(case, sys, space, free).run(max_count, options)
    first = found[0] if found else None
    if not complete:
        lower = max(len(found), 1)
        return None, (lower, upper), f"at least {lower} found ({why})", {}, first
    attained = {x: sorted({int(s[x]) for s in found}) for x in np.flatnonzero(free).tolist()}
    n = len(found)
    return n, (n, n), "Z3 enumerated every solution (blocking clauses)", attained, first


def _counted(
    case: Case, sys: Any, space: _Space, budget: float | None, options: Options
) -> tuple[
    int | None,
    tuple[int, int | None],
    str,
    str,
    int | None,
    dict[int, list[Any]],
    IntArray | None,
]:
    """The count by the model counters and the values each free node takes by SAT calls
    (``research.counting``, ``research.backbone``): the count, its bounds, how, the method, the
    estimate, the values attained per decided node, and one solution."""
    from verifier.research.backbone import backbone
    from verifier.research.cnf import solution_cnf
    from verifier.research.counting import Method, count_models

    now = time.monotonic()

    def until(share: float) -> float | None:
        return None if budget is None else now + share * budget

    cnf = solution_cnf(case, sys, space.reference, space.free, space.lo, space.hi)
    c = count_models(
        cnf.clauses,
        cnf.projection,
        exact_until=until(0.5),
        approximate_until=until(0.65),
        seed=options.seed,
    )
    b = backbone(cnf, until(0.75))
    attained = {x: list(v) for x, v in b.attained.items()}
    first = None
    if b.first is not None:
        first = space.reference.copy()
        first[list(b.first)] = list(b.first.values())
    decided = (
        f"SAT calls decided the values of {len(attained):,} of {len(cnf.nodes):,} free positions"
    )
    how = f"{c.detail}; {decided} ({b.calls:,} calls, {b.seconds:.1f} s)"
    if c.method is Method.EXACT:
        assert c.count is not None
        return c.count, (c.count, c.count), how, c.method.value, None, attained, first
    two = space.lo is not None or any(len(v) > 1 for v in attained.values())
    lower = 2 if two else 1 if first is not None else 0
    upper = _box(space) if first is not None or not b.complete else 0
    estimate = c.count if c.method is Method.APPROXIMATE else None
    return None, (lower, upper), how, c.method.value, estimate, attained, first


def _from_components(
    case: Case,
    space: _Space,
    comps: list[Component],
    deps: list[tuple[int, ...]],
    bounds: tuple[int, int | None],
    how: str,
) -> tuple[int | None, tuple[int, int | None], str]:
    """Exact as a product of independent components (monotone systems), else bounds."""
    monotone = describe(case.semantics).monotone
    counts = [c.count for c in comps]
    counted = bool(comps) and all(c.complete and c.count is not None for c in comps)
    if monotone and counted and all(not d for d in _free_cyclic_deps(comps, deps)):
        total = math.prod(int(c) for c in counts if c is not None)
        how = (
            "the product of the free components' counts (no free component depends on "
            "another, and the system is monotone)"
        )
        return total, (total, total), how
    lower = max([c.count for c in comps if c.count is not None] + [bounds[0]])
    return None, (lower, bounds[1]), f"{how}; bounds: the largest component count, the box"


def _free_cyclic_deps(comps: list[Component], deps: list[tuple[int, ...]]) -> list[set[int]]:
    """Per cyclic component, the cyclic components it depends on through free nodes."""
    reach = _reach(deps)
    return [
        {j for j in reach[k] if comps[j].cyclic} if comps[k].cyclic else set()
        for k in range(len(comps))
    ]


def _box(space: _Space) -> int | None:
    """The product of the free nodes' domain sizes (an upper bound), None when astronomical."""
    sizes = space.domain[space.free]
    logs = float(np.log10(sizes.astype(np.float64)).sum())
    return math.prod(int(s) for s in sizes.tolist()) if logs < 300 else None


def _kars_position(space: _Space, f: NDArray[np.bool_]) -> dict[str, int]:
    assert space.lo is not None and space.hi is not None
    k = space.reference
    return {
        "at_least_solution": int((f & (k == space.lo)).sum()),
        "at_greatest_solution": int((f & (k == space.hi)).sum()),
        "strictly_between": int((f & (k != space.lo) & (k != space.hi)).sum()),
    }


def _certify(case: Case, sys: Any, options: Options) -> str:
    """Z3 on the bounds: lfp and gfp are solutions and nothing leaves [lfp, gfp]; for normal
    play the derived labels are the only won/lost ones (``smt-uniqueness``' proof)."""
    from verifier.smt.uniqueness import intervals, uniqueness

    if sys.negamax:  # normal: smt-uniqueness proves the derived labels the only won/lost ones
        r = uniqueness(case, options)
        return f"{r.verdict.value}: {r.detail}"
    iv = intervals(sys, options)
    return f"{iv.verdict.value}: {iv.detail}"
