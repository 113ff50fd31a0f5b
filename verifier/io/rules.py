"""What a case must satisfy beyond its shape, checked on whole arrays (shared by every reader).

The readers (JSON in both encodings, ``.npz``, networkx) first bring a case to per-node arrays;
the rules of each semantics are then checked here once, vectorized, and the first offending node
is reported through a *where* function that maps ``(node id, field)`` to the JSON path of that
reader (``$.nodes.a.owner`` for readable cases, ``$.owner[3]`` for compact ones).

Also here: turning edge arrays into CSR with a duplicate check (one ``np.sort`` of a combined
key, no per-edge Python objects), and building the core :class:`~verifier.model.Expect` from the
validated ``expect`` block.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.io.jsonpath import PathPart, fail, shown
from verifier.io.models import MAX_ABS_VALUE, ExpectModel
from verifier.model import NOBODY, Expect, GameGraph, Semantics
from verifier.model.describe import DESCRIPTIONS, NodeRule, describe

__all__ = [
    "EXPECT_FIELDS",
    "Where",
    "build_expect",
    "check_nodes",
    "check_values_finite",
    "compact_key",
    "edges_to_csr",
    "first",
    "graph_from_csr",
]

Where = Callable[[int, str], tuple[PathPart, ...]]
"""``where(node id, field)`` -> the JSON path of that field of that node in the input."""

EXPECT_FIELDS: Mapping[str, frozenset[Semantics]] = MappingProxyType(
    {
        key: frozenset(s for s, d in DESCRIPTIONS.items() if key in d.expect_keys)
        for key in ExpectModel.model_fields
    }
)
"""Which ``expect`` fields fit which semantics: those whose description names the field."""


def first(mask: NDArray[np.bool_]) -> int | None:
    """Index of the first ``True`` of ``mask``, or ``None``."""
    if not mask.any():
        return None
    return int(np.argmax(mask))


BLOCK = 1 << 16
"""Items per block of :func:`first_in_blocks`: temporaries of a few hundred KB stay in the
cache (whole-array passes over 10^8 items allocate and fault in fresh pages for each one)."""


def first_in_blocks(n: int, mask_of: Callable[[slice], NDArray[np.bool_]]) -> int | None:
    """:func:`first` of a mask over ``0..n-1`` computed one block (``mask_of(slice)``) at a
    time; stops at the first block with a ``True``."""
    for lo in range(0, n, BLOCK):
        part = slice(lo, min(lo + BLOCK, n))
        at = first(mask_of(part))
        if at is not None:
            return lo + at
    return None


# ---------------------------------------------------------------------- per-node rules
def check_values_finite(
    value: NDArray[np.float64], raw: Sequence[Any] | None, file: str, where: Where
) -> None:
    """Every non-NaN value is finite and at most 2**53 in magnitude.

    ``raw`` is the list the values came from, if any: a JSON integer just above 2**53 rounds to
    exactly 2**53 in float64, so a value of that magnitude is looked up there.
    """
    for lo in range(0, len(value), BLOCK):  # a block at a time: see first_in_blocks
        with np.errstate(invalid="ignore"):
            big = np.abs(value[lo : lo + BLOCK]) >= MAX_ABS_VALUE  # infinities too, not NaN
        for i in (lo + np.flatnonzero(big)).tolist():
            original = raw[i] if raw is not None else value[i]
            if not np.isfinite(value[i]) or abs(original) > MAX_ABS_VALUE:
                fail(file, where(i, "value"), f"magnitude above 2**53 (got {shown(original)})")


def check_nodes(
    semantics: Semantics,
    out_degree: NDArray[np.int64],
    owner: NDArray[np.int8],
    value: NDArray[np.float64],
    target: NDArray[np.bool_],
    file: str,
    where: Where,
    value_field: str = "value",
) -> NDArray[np.float64]:
    """Check owners and values against the semantics; return the values to store.

    ``value`` holds NaN where the input gave none. For ``normal`` it holds the terminal labels
    (+1 won, -1 lost, 0 draw) and ``value_field`` names the input field they came from; the
    returned array has -1 (lost) on terminals without a label.
    """

    d = describe(semantics)

    # each rule is a mask over the nodes, evaluated a block at a time
    def inner(b: slice) -> NDArray[np.bool_]:
        return out_degree[b] > 0

    where_of: dict[str, Callable[[slice], NDArray[np.bool_]]] = {
        "any": lambda b: np.ones(len(owner[b]), dtype=np.bool_),
        "inner": inner,
        "terminal": lambda b: ~inner(b),
        "inner-off-target": lambda b: inner(b) & ~target[b],
    }

    def given(fld: str, b: slice) -> NDArray[np.bool_]:
        if fld == "owner":
            out: NDArray[np.bool_] = owner[b] != NOBODY
            return out
        return ~np.isnan(value[b])

    def not_label(b: slice) -> NDArray[np.bool_]:
        v = value[b]
        out: NDArray[np.bool_] = ~np.isnan(v) & (v != -1.0) & (v != 0.0) & (v != 1.0)
        return out

    def mask_of(rule: NodeRule) -> Callable[[slice], NDArray[np.bool_]]:
        nodes = where_of[rule.where]
        if rule.wrong == "missing":
            return lambda b: nodes(b) & ~given(rule.field, b)
        if rule.wrong == "present":
            return lambda b: nodes(b) & given(rule.field, b)
        if rule.wrong == "not-a-label":
            return lambda b: nodes(b) & not_label(b)
        raise ValueError(f"unknown node rule {rule!r}")

    bad = first_in_blocks(len(owner), lambda b: (owner[b] < -1) | (owner[b] > 1))
    if bad is not None:
        fail(file, where(bad, "owner"), f"owner must be -1, 0 or 1 (got {int(owner[bad])})")
    if not d.has_targets and target.any():
        fail(file, ("targets",), "targets are only for reachability semantics")
    for rule in d.node_rules:
        bad = first_in_blocks(len(owner), mask_of(rule))
        if bad is not None:
            fld = value_field if rule.field == "value" else rule.field
            fail(file, where(bad, fld), rule.message.format(value_field=value_field))
    if d.terminal_default is not None:  # normal: unlabelled terminals are lost
        out = np.array(value)
        for lo in range(0, len(out), BLOCK):
            part = out[lo : lo + BLOCK]
            part[(out_degree[lo : lo + BLOCK] == 0) & np.isnan(part)] = d.terminal_default
        return out
    return value


# ---------------------------------------------------------------------- edges
def edges_to_csr(
    src: NDArray[np.int64], dst: NDArray[np.int64], n: int
) -> tuple[NDArray[np.int64], NDArray[np.int64], int | None]:
    """CSR ``(succ_ptr, succ_idx)`` of in-range edge arrays, successors sorted.

    The third item is the index (in input order) of the first edge that repeats an earlier one,
    or ``None``. One ``np.sort`` of the key ``src * n + dst`` (skipped when the input is sorted).
    """
    key = src * n + dst
    if len(key) > 1 and not bool((key[1:] > key[:-1]).all()):
        key = np.sort(key)
        dup = first(key[1:] == key[:-1])
        if dup is not None:
            return _no_csr(), _no_csr(), _first_repeat(src * n + dst)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(key // n, minlength=n), out=ptr[1:])
    idx = key % n
    return ptr, idx, None


def _no_csr() -> NDArray[np.int64]:
    return np.zeros(0, dtype=np.int64)


def _first_repeat(key: NDArray[np.int64]) -> int:
    order = np.argsort(key, kind="stable")
    sk = key[order]
    same = sk[1:] == sk[:-1]
    return int(order[1:][same].min())


def graph_from_csr(
    semantics: Semantics,
    ptr: NDArray[np.int64],
    idx: NDArray[np.int32] | NDArray[np.int64],
    owner: NDArray[np.int8],
    value: NDArray[np.float64],
    target: NDArray[np.bool_],
    names: Sequence[str] | None,
) -> GameGraph:
    """A ``GameGraph`` from checked CSR arrays (no second sort, unlike ``from_edges``); the ids
    are kept in the graph's ``index_dtype`` (int32 below 2^31 - 1 nodes)."""
    return GameGraph(
        semantics=semantics,
        succ_ptr=np.ascontiguousarray(ptr, dtype=np.int64),
        succ_idx=idx,  # checked; the graph keeps it in its index_dtype
        owner=np.ascontiguousarray(owner, dtype=np.int8),
        value=np.ascontiguousarray(value, dtype=np.float64),
        target=np.ascontiguousarray(target, dtype=np.bool_),
        names=() if names is None else names if hasattr(names, "codec") else tuple(names),
    )


# ---------------------------------------------------------------------- expect
_ID = re.compile(r"(0|[1-9][0-9]*)\Z")


def compact_key(n: int) -> Callable[[str], int | None]:
    """Resolve an ``expect`` key of a compact case: an id written as a decimal string."""

    def resolve(key: str) -> int | None:
        if not _ID.match(key):
            return None
        i = int(key)
        return i if i < n else None

    return resolve


def build_expect(
    model: ExpectModel,
    semantics: Semantics,
    node_id: Callable[[str], int | None],
    root: int | None,
    sum_names: Sequence[str],
    file: str,
) -> Expect:
    """The core ``Expect`` (id keys) of a validated ``expect`` block; checks that every field
    fits the semantics, every key names a node (or a declared sum) and intervals are ordered."""
    given = model.model_dump(exclude_none=True)
    for name in given:
        if semantics not in EXPECT_FIELDS[name]:
            fits = ", ".join(sorted(s.value for s in EXPECT_FIELDS[name]))
            fail(file, ("expect", name), f"{name!r} does not fit {semantics.value} (only {fits})")

    def by_id(name: str, table: Mapping[str, Any] | None) -> Mapping[int, Any]:
        out: dict[int, Any] = {}
        for key, v in (table or {}).items():
            i = node_id(key)
            if i is None:
                fail(file, ("expect", name, key), f"unknown node {shown(key)}")
            out[i] = v
        return MappingProxyType(out)

    intervals = by_id("intervals", model.intervals)
    for key, (lo, hi) in (model.intervals or {}).items():
        if lo > hi:
            fail(file, ("expect", "intervals", key), f"interval [{lo}, {hi}] is empty")
    declared = set(sum_names)
    for name in model.sums or {}:
        if name not in declared:
            fail(file, ("expect", "sums", name), f"no sum named {shown(name)} is declared")
    if model.root_value is not None:
        _check_root_value(model.root_value, semantics, root, file)
    return Expect(
        values=by_id("values", model.values),
        labels=MappingProxyType(
            {i: describe(semantics).canonical(w) for i, w in by_id("labels", model.labels).items()}
        ),
        winner=by_id("winner", model.winner),
        grundy=by_id("grundy", model.grundy),
        remoteness=by_id("remoteness", model.remoteness),
        intervals=MappingProxyType({i: tuple(v) for i, v in intervals.items()}),
        root_value=describe(semantics).canonical(model.root_value),
        unique=model.unique,
        sums=MappingProxyType(dict(model.sums or {})),
    )


def _check_root_value(v: float | str, semantics: Semantics, root: int | None, file: str) -> None:
    where = ("expect", "root_value")
    if root is None:
        fail(file, where, "root_value needs a root")
    d = describe(semantics)
    if not d.fits(v):
        fail(file, where, f"{semantics.value} root_value must be {d.value_shape} (got {shown(v)})")
