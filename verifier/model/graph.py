"""The one game-graph representation every solver and SMT encoding reads.

Nodes carry the user's names and are mapped to dense integer ids ``0..n-1``. Moves are stored as
CSR arrays: the successors of node ``i`` are ``succ_idx[succ_ptr[i]:succ_ptr[i+1]]``. The
predecessor CSR is derived on demand and cached. All arrays are read-only: a ``GameGraph`` is
immutable once built.

Per node:

``owner``
    ``MAX`` (0) / ``MIN`` (1) for ``minimax`` inner nodes; player ``0`` / ``1`` for
    ``reachability``; ``NOBODY`` (-1) for terminal minimax nodes and for every node of the
    ``normal`` and ``impartial`` semantics, where the player to move simply alternates.
``value``
    ``minimax``: the terminal value t(x) (NaN on inner nodes). ``normal``: the label of a terminal
    position from the mover's view, +1 won, -1 lost (the default), 0 draw (NaN on inner nodes).
    ``reachability`` and ``impartial``: NaN everywhere.
``target``
    ``reachability``: membership of the target set G. False everywhere else.

Examples
--------
>>> g = GameGraph.from_edges(["a", "b", "c"], [0, 0], [1, 2], semantics=Semantics.MINIMAX,
...                          owner=[MAX, NOBODY, NOBODY], value=[float("nan"), 1.0, -1.0])
>>> g.n, g.m, g.successors(0).tolist(), g.predecessors(2).tolist()
(3, 2, [1, 2], [0])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from verifier.model.bounds import INT32_MAX
from verifier.model.semantics import MAX, MIN, NOBODY, Semantics

__all__ = [
    "MAX",
    "MIN",
    "NOBODY",
    "SCIPY_TRANSPOSE_MIN_EDGES",
    "GameGraph",
    "IdArray",
    "IntArray",
    "index_dtype",
    "transpose",
]

IntArray = NDArray[np.int64]
IdArray = NDArray[np.int32] | NDArray[np.int64]
"""Node ids as a graph stores them: ``int32`` when every id fits (see :func:`index_dtype`)."""


def index_dtype(n: int) -> type[np.int32] | type[np.int64]:
    """The dtype of the successor ids of an ``n``-node graph: ``int32`` when ids fit (half the
    memory and bandwidth of ``int64``: 4 bytes a move on a 10^8-move game), else ``int64``.

    Arithmetic that can leave the id range (``id * n``, ``2 * id + 1``) must widen first:
    ``idx.astype(np.int64)``; numpy keeps ``int32 * int`` in int32 and wraps around.

    >>> index_dtype(10**6).__name__, index_dtype(2**31).__name__
    ('int32', 'int64')
    """
    return np.int32 if n < INT32_MAX else np.int64


SCIPY_TRANSPOSE_MIN_EDGES = 100_000
"""Graphs with at least this many moves are transposed by scipy (its compiled CSR -> CSC
conversion, about 10x faster than a stable argsort); smaller ones by numpy, so that they do not
import scipy.sparse (about 0.1 s of start-up). Measured: the argsort takes 0.6 ms at 10^4 edges
and 8 ms at 10^5, scipy 0.2 ms and 0.8 ms; the two give identical arrays."""


def transpose(n: int, ptr: NDArray[Any], idx: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """The transpose of the CSR ``(ptr, idx)`` of an ``n``-node graph: ``(pptr, pidx)``, the
    sources of each column in increasing order (duplicates kept); int64 below
    ``SCIPY_TRANSPOSE_MIN_EDGES`` moves, scipy's index dtype (int32 where it fits) above.

    >>> p, i = transpose(3, np.array([0, 2, 3, 3]), np.array([1, 2, 2]))
    >>> p.tolist(), i.tolist()
    ([0, 0, 1, 3], [0, 0, 1])
    """
    m = len(idx)
    if m < SCIPY_TRANSPOSE_MIN_EDGES:
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
        pidx = src[np.argsort(idx, kind="stable")]
        pptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(idx, minlength=n), out=pptr[1:])
        return pptr, pidx
    from scipy.sparse import csr_matrix

    a = csr_matrix((np.ones(m, dtype=np.int8), idx, ptr), shape=(n, n))
    t = a.tocsc()  # columns = predecessors, in increasing row order within each column
    t.sort_indices()
    return t.indptr, t.indices


def _frozen(a: NDArray[Any]) -> NDArray[Any]:
    a.flags.writeable = False
    return a


class _RangeNames(Sequence[str]):
    """Names ``"0" .. "n-1"`` without materialising n strings (compact cases without names)."""

    def __init__(self, n: int) -> None:
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [str(j) for j in range(*i.indices(self._n))]
        if not -self._n <= i < self._n:
            raise IndexError(i)
        return str(i % self._n)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _RangeNames):
            return self._n == other._n
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def index_of(self, name: object) -> int | None:
        """The id named ``name`` (a canonical decimal ``"0" .. "n-1"``), else None: no dict."""
        if not isinstance(name, str) or not name.isascii() or not name.isdigit():
            return None
        if name != "0" and name.startswith("0"):
            return None
        i = int(name) if len(name) <= 20 else -1
        return i if 0 <= i < self._n else None


@dataclass(frozen=True, eq=False)
class GameGraph:
    """An immutable game graph in CSR form (see the module docstring for the fields)."""

    semantics: Semantics
    """Which rules the graph is played by."""
    succ_ptr: IntArray
    """CSR row pointers, length ``n + 1``."""
    succ_idx: IdArray
    """CSR column indices (successor ids), length ``m``; sorted within each row; stored as
    ``index_dtype(n)`` (int32 below 2^31 - 1 nodes) whatever dtype the caller gave."""
    owner: NDArray[np.int8]
    """Per node: ``MAX``/player 0 = 0, ``MIN``/player 1 = 1, ``NOBODY`` = -1."""
    value: NDArray[np.float64]
    """Per node: terminal value or label (NaN where there is none)."""
    target: NDArray[np.bool_]
    """Per node: member of the reachability target set G."""
    names: Sequence[str] = field(default=())
    """The user's node names, indexed by id (``"0".."n-1"`` when the case gave none)."""

    def __post_init__(self) -> None:
        n = len(self.succ_ptr) - 1
        if n < 0:
            raise ValueError("succ_ptr must have length n + 1")
        if not self.names:
            object.__setattr__(self, "names", _RangeNames(n))
        if len(self.names) != n:
            raise ValueError(f"{len(self.names)} names for {n} nodes")
        per_node: tuple[tuple[NDArray[Any], str], ...] = (
            (self.owner, "owner"),
            (self.value, "value"),
            (self.target, "target"),
        )
        for arr, nm in per_node:
            if arr.shape != (n,):
                raise ValueError(f"{nm} has shape {arr.shape}, expected ({n},)")
        if self.succ_ptr[0] != 0 or self.succ_ptr[-1] != len(self.succ_idx):
            raise ValueError("succ_ptr does not span succ_idx")
        if len(self.succ_idx) and (self.succ_idx.min() < 0 or self.succ_idx.max() >= n):
            raise ValueError("successor id out of range")  # checked before any narrowing
        ids = index_dtype(n)
        if self.succ_idx.dtype != ids or not self.succ_idx.flags.c_contiguous:
            object.__setattr__(self, "succ_idx", np.ascontiguousarray(self.succ_idx, dtype=ids))
        for arr, _ in ((self.succ_ptr, ""), (self.succ_idx, ""), *per_node):
            _frozen(arr)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_edges(
        cls,
        names: Sequence[str] | int,
        src: ArrayLike,
        dst: ArrayLike,
        *,
        semantics: Semantics,
        owner: ArrayLike | None = None,
        value: ArrayLike | None = None,
        target: ArrayLike | None = None,
    ) -> GameGraph:
        """Build a graph from parallel edge arrays; edges are sorted by (src, dst).

        ``names`` is either the list of names or just the number of nodes. Duplicate edges are
        an error (``ValueError``); callers that read user input check for them first and report
        them with a JSON path.
        """
        n = names if isinstance(names, int) else len(names)
        s = np.asarray(src, dtype=np.int64).ravel()
        d = np.asarray(dst, dtype=np.int64).ravel()
        if s.shape != d.shape:
            raise ValueError("src and dst differ in length")
        if len(s) and (min(s.min(), d.min()) < 0 or max(s.max(), d.max()) >= n):
            raise ValueError("edge endpoint out of range")
        if n <= 3_000_000_000:  # one key sort: several times faster than lexsort
            order = np.argsort(s * max(n, 1) + d, kind="stable")
        else:
            order = np.lexsort((d, s))
        s, d = s[order], d[order]
        if len(s) > 1:
            dup = (s[1:] == s[:-1]) & (d[1:] == d[:-1])
            if dup.any():
                k = int(np.flatnonzero(dup)[0])
                raise ValueError(f"duplicate edge {int(s[k])} -> {int(d[k])}")
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(s, minlength=n), out=ptr[1:])
        return cls(
            semantics=semantics,
            succ_ptr=ptr,
            succ_idx=np.ascontiguousarray(d),
            owner=_array(owner, n, np.int8, NOBODY),
            value=_array(value, n, np.float64, np.nan),
            target=_array(target, n, np.bool_, False),
            names=() if isinstance(names, int) else tuple(names),
        )

    @classmethod
    def from_successors(
        cls,
        succ: Mapping[str, Iterable[str]],
        *,
        semantics: Semantics,
        owner: Mapping[str, int] | None = None,
        value: Mapping[str, float] | None = None,
        target: Iterable[str] = (),
    ) -> GameGraph:
        """Convenience builder for tests and generators: ``{name: [successor names]}``.

        Nodes that only appear as successors are added as terminal nodes.
        """
        moves_of: dict[str, list[str]] = {x: list(ys) for x, ys in succ.items()}
        for ys in list(moves_of.values()):
            for y in ys:
                moves_of.setdefault(y, [])
        names = list(moves_of)
        succ = moves_of
        ids = {x: i for i, x in enumerate(names)}
        src = [ids[x] for x in names for _ in succ[x]]
        dst = [ids[y] for x in names for y in succ[x]]
        n = len(names)
        own = np.full(n, NOBODY, dtype=np.int8)
        val = np.full(n, np.nan)
        tgt = np.zeros(n, dtype=np.bool_)
        for x, o in (owner or {}).items():
            own[ids[x]] = o
        for x, v in (value or {}).items():
            val[ids[x]] = v
        for x in target:
            tgt[ids[x]] = True
        return cls.from_edges(
            names, src, dst, semantics=semantics, owner=own, value=val, target=tgt
        )

    # ------------------------------------------------------------------ sizes and access
    @property
    def n(self) -> int:
        """Number of nodes."""
        return len(self.succ_ptr) - 1

    @property
    def m(self) -> int:
        """Number of edges (moves)."""
        return len(self.succ_idx)

    @cached_property
    def out_degree(self) -> IntArray:
        return _frozen(np.diff(self.succ_ptr))

    @cached_property
    def in_degree(self) -> IntArray:
        return _frozen(np.diff(self.pred_ptr))

    @cached_property
    def is_terminal(self) -> NDArray[np.bool_]:
        """Nodes without moves (the leaves F of Kars, end positions of the DAG notes)."""
        return _frozen(self.out_degree == 0)

    @cached_property
    def edge_src(self) -> IntArray:
        """Source id of each edge, parallel to ``succ_idx``."""
        return _frozen(np.repeat(np.arange(self.n, dtype=np.int64), self.out_degree))

    def successors(self, i: int) -> IdArray:
        return self.succ_idx[self.succ_ptr[i] : self.succ_ptr[i + 1]]

    @cached_property
    def _pred(self) -> tuple[IntArray, IntArray]:
        # predecessors come out in increasing id order within each node
        ptr, idx = transpose(self.n, self.succ_ptr, self.succ_idx)
        return _frozen(np.asarray(ptr, dtype=np.int64)), _frozen(np.asarray(idx, dtype=np.int64))

    @property
    def pred_ptr(self) -> IntArray:
        """Predecessor CSR row pointers (derived on first use, then cached)."""
        return self._pred[0]

    @property
    def pred_idx(self) -> IntArray:
        """Predecessor CSR column indices: the predecessors of ``y`` in increasing id order."""
        return self._pred[1]

    def predecessors(self, i: int) -> IntArray:
        return self.pred_idx[self.pred_ptr[i] : self.pred_ptr[i + 1]]

    # ------------------------------------------------------------------ names
    @cached_property
    def _ids(self) -> dict[str, int]:
        return {x: i for i, x in enumerate(self.names)}

    def id_of(self, name: str) -> int:
        """The id of a node by name (``KeyError`` if there is none)."""
        find = self._finder
        if find is not None:
            i = find(name)
            if i is None:
                raise KeyError(name)
            return i
        return self._ids[name]

    @property
    def _finder(self) -> Callable[[object], int | None] | None:
        """How names are looked up without a dict of all of them: the default names, or names
        whose game parses them (``lookup`` of ``verifier.games._board.LazyNames``)."""
        if isinstance(self.names, _RangeNames):
            return self.names.index_of
        lookup: Callable[[object], int | None] | None = getattr(self.names, "lookup", None)
        return lookup

    def name(self, i: int) -> str:
        return self.names[i]

    @property
    def named_by_ids(self) -> bool:
        """Are the names the ids ``"0" .. "n-1"`` (a case that gave none, or gave those)?"""
        return isinstance(self.names, _RangeNames) or _RangeNames(self.n) == self.names

    def names_of(self, ids: Sequence[int]) -> list[str]:
        """The names of ``ids`` (a list of ints), a million in a fraction of a second where the
        names are the default ones or a list (``name`` one at a time took seconds)."""
        if isinstance(self.names, _RangeNames):
            return list(map(str, ids))
        if isinstance(self.names, (list, tuple)):
            return list(map(self.names.__getitem__, ids))
        return [self.names[i] for i in ids]

    def expect_semantics(self, semantics: Semantics) -> None:
        """``ValueError`` unless the graph is played by ``semantics`` (for solver entry points)."""
        if self.semantics is not semantics:
            raise ValueError(f"expected a {semantics.value} graph, got {self.semantics.value}")

    @property
    def has_names(self) -> bool:
        """True unless the names are the default ``"0".."n-1"`` of a compact case without names."""
        return not isinstance(self.names, _RangeNames)

    def has_node(self, name: str) -> bool:
        find = self._finder
        if find is not None:
            return find(name) is not None
        return name in self._ids

    # ------------------------------------------------------------------ derived graphs
    def replace(self, **changes: Any) -> GameGraph:
        """A copy with some fields replaced (arrays are shared, they are read-only)."""
        fields: dict[str, Any] = {
            "semantics": self.semantics,
            "succ_ptr": self.succ_ptr,
            "succ_idx": self.succ_idx,
            "owner": self.owner,
            "value": self.value,
            "target": self.target,
            "names": self.names,
        }
        fields.update(changes)
        for k in ("succ_ptr", "succ_idx", "owner", "value", "target"):
            if fields[k] is getattr(self, k):
                continue
            fields[k] = np.array(fields[k], copy=True)
        return GameGraph(**fields)

    def value_levels(self) -> NDArray[np.float64]:
        """Kars' finite value set t(F) ∪ {0}, sorted increasingly."""
        vals = self.value[self.is_terminal & ~np.isnan(self.value)]
        return np.unique(np.concatenate([vals, [0.0]]))

    def __repr__(self) -> str:
        return f"GameGraph({self.semantics.value}, n={self.n}, m={self.m})"


def _array(x: ArrayLike | None, n: int, dtype: Any, fill: Any) -> NDArray[Any]:
    if x is None:
        return np.full(n, fill, dtype=dtype)
    a = np.array(x, dtype=dtype)
    if a.shape != (n,):
        raise ValueError(f"per-node array has shape {a.shape}, expected ({n},)")
    return a
