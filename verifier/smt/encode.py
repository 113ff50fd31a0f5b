"""The Boolean order encoding of an ``OrderSystem`` (and of Boolean rule systems) as CNF.

One Boolean ``g(x, k)`` per node x and threshold k = 1..T means ``s(x) >= levels[k]``; the chain
``g(x, k+1) -> g(x, k)`` keeps it a value. An ``OR`` node's ``g(x, k)`` is the disjunction of its
successors' ``g(y, k)``, an ``AND`` node's the conjunction; a negamax node's ``g(x, k)`` is the
disjunction of ``not g(y, T+1-k)`` (``-v(y) >= levels[k]`` iff ``v(y) < levels[T+1-k]`` on a chain
symmetric about 0). Constants are unit clauses. This is (T+MM) over the finite value set, and Z3
decides it with its SAT engine.

An ``Encoding`` covers a sub-system: equations of the nodes ``eq`` only, variables for the nodes
of ``var`` only; every other node is the constant ``fixed[x]``. With ``eq`` = ``var`` = all nodes
it is the whole system. Queries add clauses: pin a solution, "differs from s somewhere", "leaves
the interval [lo, hi] somewhere", "is not above Kars' score in <=_1 somewhere".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from verifier.equations.fixpoints import BoolSystem
from verifier.equations.system import AND, CONST, OR, OrderSystem
from verifier.model.graph import IdArray, IntArray
from verifier.smt.cnf import TRUE, Cnf, long_clauses

__all__ = ["Encoding", "closure_cnf", "derivation_cnf", "prefixpoint_cnf"]


@dataclass(frozen=True, eq=False)
class Encoding:
    """The order encoding of part of a system, with its variable numbering."""

    sys: OrderSystem
    cnf: Cnf
    var: NDArray[np.bool_]
    """Nodes that have variables."""
    pos: IntArray
    """Position of each variable node among them (-1 elsewhere)."""
    base: int
    """First variable number: ``g(x, k) = base + pos[x] * T + k - 1``."""
    fixed: IntArray
    """Value index of the nodes without variables."""

    @classmethod
    def build(
        cls,
        sys: OrderSystem,
        eq: NDArray[np.bool_] | None = None,
        var: NDArray[np.bool_] | None = None,
        fixed: IntArray | None = None,
    ) -> Encoding:
        """The equations of the nodes ``eq`` over variables for ``var`` (others: ``fixed``)."""
        enc = cls._empty(sys, var, fixed)
        enc._equations(np.flatnonzero(np.ones(sys.n, dtype=np.bool_) if eq is None else eq))
        enc._chain()
        return enc

    @classmethod
    def pinned(
        cls, sys: OrderSystem, eq: NDArray[np.bool_], var: NDArray[np.bool_], idx: IntArray
    ) -> Encoding:
        """The pin query: the equations of ``eq`` over variables for ``var`` (others fixed),
        every variable pinned to ``idx``; satisfiable iff ``idx`` satisfies those equations.

        Clauses that contain a pinned head's true literal are left out (for an ``OR`` head
        pinned true the clauses ``g(y, k) -> g(x, k)``, pinned false the clause
        ``g(x, k) -> OR_y g(y, k)``; dually for ``AND``), as are the chain clauses: the pin's
        unit clauses satisfy them, so the formula has the same models. What is left is each
        equation's own condition on its successors' pinned values (one successor high enough,
        or every successor low enough), for Z3 to decide."""
        enc = cls._empty(sys, var, idx)
        enc._equations(np.flatnonzero(eq), given=idx)
        enc.pin(idx)
        return enc

    @classmethod
    def _empty(
        cls, sys: OrderSystem, var: NDArray[np.bool_] | None, fixed: IntArray | None
    ) -> Encoding:
        n, top = sys.n, sys.top
        var_mask = np.ones(n, dtype=np.bool_) if var is None else var
        fixed_idx = np.zeros(n, dtype=np.int64) if fixed is None else fixed
        pos = np.full(n, -1, dtype=np.int64)
        nv = int(var_mask.sum())
        pos[var_mask] = np.arange(nv, dtype=np.int64)
        cnf = Cnf(TRUE)
        base = cnf.new_vars(nv * top)
        return cls(sys, cnf, var_mask, pos, base, fixed_idx)

    # ------------------------------------------------------------------ literals
    def lit(self, nodes: IdArray, k: int | IntArray) -> IntArray:
        """The literal of ``s(x) >= levels[k]`` for each node (``+-TRUE`` for constants)."""
        nodes = np.asarray(nodes, dtype=np.int64)
        kk = np.broadcast_to(np.asarray(k, dtype=np.int64), nodes.shape)
        p = self.pos[nodes]
        const = np.where(self.fixed[nodes] >= kk, TRUE, -TRUE)
        out = np.where(p >= 0, self.base + p * self.sys.top + kk - 1, const)
        # thresholds outside 1..T are constants for every node
        out = np.where(kk <= 0, TRUE, out)
        return np.where(kk > self.sys.top, -TRUE, out).astype(np.int64)

    def _equations(self, nodes: IntArray, given: IntArray | None = None) -> None:
        """Clauses of the equations of ``nodes``; with ``given`` (the values every variable
        is pinned to) only those the pinned heads do not already satisfy."""
        sys, top = self.sys, self.sys.top
        kind = sys.kind[nodes]
        consts = nodes[kind == CONST]
        for k in range(1, top + 1):
            if len(consts):
                h = self.lit(consts, k)
                self.cnf.add_units(np.where(sys.const[consts] >= k, h, -h))
            for kd in (OR, AND):
                rows = nodes[kind == kd]
                if given is None:
                    self._long(kd, rows, k)
                    self._binary(kd, rows, k)
                    continue
                up = given[rows] >= k  # the pinned head g(x, k)
                self._long(kd, rows[up] if kd == OR else rows[~up], k)
                self._binary(kd, rows[~up] if kd == OR else rows[up], k)

    def _body(self, rows: IntArray, k: int) -> tuple[IntArray, IntArray]:
        """Row pointers and the literals g(y, k) (negamax: not g(y, T+1-k)) of the successors."""
        g, top = self.sys.graph, self.sys.top
        ptr, succ = _rows(g.succ_ptr, g.succ_idx, rows)
        body = -self.lit(succ, top + 1 - k) if self.sys.negamax else self.lit(succ, k)
        return ptr, body

    def _long(self, kd: int, rows: IntArray, k: int) -> None:
        """``OR``: h -> OR body; ``AND``: AND body -> h (one clause per row)."""
        if len(rows) == 0:
            return
        ptr, body = self._body(rows, k)
        head = self.lit(rows, k)
        if kd == OR:
            self.cnf.add_tokens(long_clauses(-head, ptr, body), len(rows))
        else:
            self.cnf.add_tokens(long_clauses(head, ptr, -body), len(rows))

    def _binary(self, kd: int, rows: IntArray, k: int) -> None:
        """``OR``: each body -> h; ``AND``: h -> each body (one clause per edge)."""
        if len(rows) == 0:
            return
        ptr, body = self._body(rows, k)
        head_e = np.repeat(self.lit(rows, k), np.diff(ptr))
        if kd == OR:
            self.cnf.add_binary(-body, head_e)
        else:
            self.cnf.add_binary(body, -head_e)

    def _chain(self) -> None:
        nodes = np.flatnonzero(self.var)
        for k in range(1, self.sys.top):
            self.cnf.add_binary(-self.lit(nodes, k + 1), self.lit(nodes, k))

    # ------------------------------------------------------------------ queries
    def pin(self, idx: IntArray, nodes: IntArray | None = None) -> None:
        """Unit clauses: ``s(x) = idx[x]`` for the variable nodes (or the given subset)."""
        x = np.flatnonzero(self.var) if nodes is None else np.asarray(nodes, dtype=np.int64)
        x = x[self.var[x]]
        for k in range(1, self.sys.top + 1):
            h = self.lit(x, k)
            self.cnf.add_units(np.where(idx[x] >= k, h, -h))

    def outside(self, nodes: IntArray, lo: IntArray, hi: IntArray) -> None:
        """One clause: some node of ``nodes`` has ``s(x) < lo[x]`` or ``s(x) > hi[x]``."""
        x = np.asarray(nodes, dtype=np.int64)
        below = -self.lit(x, lo[x])
        above = self.lit(x, hi[x] + 1)
        lits = np.concatenate([below, above])
        self.cnf.add_clause(np.unique(lits[lits != -TRUE]))

    def inside(self, nodes: IntArray, lo: IntArray, hi: IntArray) -> None:
        """Unit clauses: ``lo[x] <= s(x) <= hi[x]`` for the variable nodes among ``nodes``."""
        x = np.asarray(nodes, dtype=np.int64)
        x = x[self.var[x]]
        self.cnf.add_units(self.lit(x, lo[x]))
        self.cnf.add_units(-self.lit(x, hi[x] + 1))

    def differs(self, nodes: IntArray, idx: IntArray) -> None:
        """One clause: ``s(x) != idx[x]`` for some node of ``nodes``."""
        self.outside(nodes, idx, idx)

    def not_above_kars(self, nodes: IntArray, kars: IntArray) -> None:
        """One clause: NOT (kars <=_1 s) at some node (Kars' order: away from the draw)."""
        x = np.asarray(nodes, dtype=np.int64)
        z = self.sys.zero
        kx = kars[x]
        pos_x, neg_x = x[kx > z], x[kx < z]
        lits = np.concatenate([-self.lit(pos_x, kars[pos_x]), self.lit(neg_x, kars[neg_x] + 1)])
        self.cnf.add_clause(np.unique(lits[lits != -TRUE]))

    def above_kars(self, nodes: IntArray, kars: IntArray) -> None:
        """Unit clauses: kars <=_1 s at the variable nodes among ``nodes``."""
        x = np.asarray(nodes, dtype=np.int64)
        x = x[self.var[x]]
        z = self.sys.zero
        pos_x, neg_x = x[kars[x] > z], x[kars[x] < z]
        self.cnf.add_units(self.lit(pos_x, kars[pos_x]))
        self.cnf.add_units(-self.lit(neg_x, kars[neg_x] + 1))

    def decode(self, model: NDArray[np.bool_]) -> IntArray:
        """Value index per node from a model (``fixed`` where there is no variable)."""
        out = self.fixed.copy()
        x = np.flatnonzero(self.var)
        total = np.zeros(len(x), dtype=np.int64)
        for k in range(1, self.sys.top + 1):
            total += model[self.lit(x, k)]
        out[x] = total
        return out


def _rows(ptr: IntArray, idx: IdArray, rows: IntArray) -> tuple[IntArray, IdArray]:
    """The successor lists of ``rows`` laid end to end: ``(row pointers, successors)``, the
    successors of ``rows[j]`` at ``[ptr[j], ptr[j + 1])`` (as ``long_clauses`` reads them)."""
    lens = ptr[rows + 1] - ptr[rows]
    out = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lens, out=out[1:])
    offs = np.repeat(ptr[rows] - out[:-1], lens)
    return out, idx[offs + np.arange(int(out[-1]), dtype=np.int64)]


def prefixpoint_cnf(
    sys: BoolSystem,
    must: NDArray[np.bool_] | None = None,
    pin: NDArray[np.bool_] | None = None,
    within: NDArray[np.bool_] | None = None,
) -> Cnf:
    """CNF of "X is closed under the rules (F(X) ⊆ X)", variable of node x is ``x + 2``.

    With ``must``: and X misses a node of ``must``; unsatisfiable iff every node of ``must`` is
    in the least fixpoint, i.e. derivable by the ranked rules, without integer ranks (unit
    propagation from the constants is the derivation). With ``pin``: X is that set; satisfiable
    iff the set is closed under the rules (for a region: its complement is a trap).

    With ``within``: only the rules of the nodes in ``within``, an ``OR`` rule only through
    successors in ``within``. A subset of the clauses, so unsatisfiable still proves every node
    of ``must`` derivable; and when ``must`` is derivable through nodes of ``within`` alone
    (``within = must`` for a correct answer: a won node's move leads to a lost one, a lost
    node's moves to won ones) it is unsatisfiable as before. Satisfiable proves nothing: ask
    again without ``within``. At 10^7 positions of normal play the formula is a quarter of the
    whole one (the drawn nodes' rules are left out). With ``pin`` only the rules of the nodes
    outside the set are written: the others hold by their pins (the same formula, satisfied or
    not, as the whole one).
    """
    n = sys.n
    cnf = Cnf(n + 1)
    v = np.arange(n, dtype=np.int64) + 2
    deg = np.diff(sys.ptr)
    inside = np.ones(n, dtype=np.bool_) if within is None else within
    if pin is not None:  # every variable pinned: a rule whose head is in the set holds by its pin
        inside = inside & ~pin
    cnf.add_units(v[(sys.kind == CONST) & sys.const & inside])
    src = np.repeat(np.arange(n, dtype=np.int64), deg)
    or_e = sys.kind[src] == OR
    if within is not None:
        or_e &= within[src] & within[sys.idx]
    cnf.add_binary(-v[sys.idx[or_e]], v[src[or_e]])  # y in X -> x in X
    rows = np.flatnonzero((sys.kind == AND) & inside)
    ptr, body = _rows(sys.ptr, sys.idx, rows)
    cnf.add_tokens(long_clauses(v[rows], ptr, -v[body]), len(rows))  # all y in X -> x in X
    if must is not None:
        cnf.add_clause(-v[must])
    if pin is not None:
        cnf.add_units(np.where(pin, v, -v))
    return cnf


def derivation_cnf(
    sys: BoolSystem, target: NDArray[np.bool_], inside: NDArray[np.bool_] | None = None
) -> Cnf:
    """CNF of "some set X closed under the rules of the nodes S = target ∩ inside misses a
    node of S", where a rule only counts successors in ``target``, and the nodes of ``target``
    outside ``inside`` are members of X (proved by an earlier query).

    Unsatisfiable iff every node of S is derivable from the true constants and the target
    nodes outside, through target nodes only: for the least fixpoint (``target`` = lfp, whose
    derivation never leaves it) this is unit propagation, so Z3 refutes it without search. It
    proves that every set closed under *all* the rules, in particular every fixpoint, contains
    S (a closed set satisfies the clauses, which are some of the rules, weakened). The rules of
    the other nodes and the edges out of ``target`` are left out: they cannot help derive S.
    Asked for ``inside`` = batches of whole SCCs in reverse topological order, every target
    successor outside a batch lies in an earlier batch."""
    n = sys.n
    here = target if inside is None else target & inside
    ids = np.flatnonzero(here)
    v = np.full(n, -TRUE, dtype=np.int64)  # non-target nodes: never in X by these rules
    v[target & ~here] = TRUE
    v[ids] = np.arange(len(ids), dtype=np.int64) + TRUE + 1
    cnf = Cnf(len(ids) + TRUE)
    kind = sys.kind[ids]
    cnf.add_units(v[ids[(kind == CONST) & sys.const[ids]]])
    ors = ids[kind == OR]
    ptr, body = _rows(sys.ptr, sys.idx, ors)
    keep = target[body]
    head = np.repeat(v[ors], np.diff(ptr))
    cnf.add_binary(-v[body[keep]], head[keep])  # y in X -> x in X
    ands = ids[kind == AND]
    ptr, body = _rows(sys.ptr, sys.idx, ands)
    cnf.add_tokens(long_clauses(v[ands], ptr, -v[body]), len(ands))  # all y in X -> x in X
    cnf.add_clause(-v[ids])
    return cnf


def closure_cnf(sys: BoolSystem, stay: NDArray[np.bool_]) -> Cnf:
    """CNF of "play can be kept inside ``stay``": the set is pinned, and from each of its nodes
    an ``OR`` node (the player keeping play inside) has a move that stays, an ``AND`` node
    (the opponent) has only moves that stay, and it holds no false constant.

    On a system restricted to a strategy (``BoolSystem.restrict``) the ``OR`` nodes have one
    move, the strategy's: satisfiable iff following it play never leaves ``stay`` (a safety
    certificate). Variable of node x: ``x + 2``.
    """
    n = sys.n
    cnf = Cnf(n + 1)
    v = np.arange(n, dtype=np.int64) + 2
    deg = np.diff(sys.ptr)
    src = np.repeat(np.arange(n, dtype=np.int64), deg)
    # every variable is pinned, so the clauses of a node outside ``stay`` (all of the form
    # "x stays -> ...") hold by its pin: only the nodes of ``stay`` get clauses
    and_e = (sys.kind[src] == AND) & stay[src]
    cnf.add_binary(-v[src[and_e]], v[sys.idx[and_e]])  # x stays -> every opponent move stays
    rows = np.flatnonzero((sys.kind == OR) & stay)
    ptr, body = _rows(sys.ptr, sys.idx, rows)
    cnf.add_tokens(long_clauses(-v[rows], ptr, v[body]), len(rows))  # x stays -> a move stays
    cnf.add_units(-v[(sys.kind == CONST) & ~sys.const & stay])
    cnf.add_units(np.where(stay, v, -v))
    return cnf
