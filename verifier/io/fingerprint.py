"""Fingerprints of a graph for answer files: which graph a table is for.

A table keyed by names (``.json``) carries ``graph_digest``, independent of the order of the
positions in the case file: a function of the game as a set of named positions, each with its
owner, its terminal value or label, whether it is a target, and the set of its successors'
names. A table keyed by ids (``.npz``, ``.parquet``) means positions by their place in one
order, so it pins that order: ``moves_digest`` (SHA-256 of the CSR arrays, the digest every
answer file carried before ``graph_digest``) and ``positions_digest`` (the names, owners,
values and targets in id order).

``graph_digest`` is vectorized (numpy, a block of positions at a time): each name is hashed to
64 bits (a polynomial hash of its code points, finalized by splitmix64; the names ``"0" ..
"n-1"`` of a case without names are hashed arithmetically, never built, and a generated game's
coded names are decoded to bytes at numpy speed), each position's record to 64 bits (its
name's hash, owner, value, target, out-degree and the sum of its successors' mixed name hashes:
a multiset hash, independent of the order of the moves), and the records are combined by two
sums of differently mixed words, independent of the order of the positions; SHA-256 of the
counts and the sums is the digest. A fingerprint tells a table for another graph apart; it is
no defence against a forged one (anybody can write any digest).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.model import GameGraph
from verifier.model.graph import _RangeNames

__all__ = [
    "DIGEST_PREFIX",
    "POSITIONS_PREFIX",
    "graph_digest",
    "moves_digest",
    "name_hashes",
    "positions_digest",
]

DIGEST_PREFIX = "names-sha256:"
"""The prefix of ``graph_digest`` (``moves_digest``, by id, is ``sha256:...``)."""
POSITIONS_PREFIX = "positions-sha256:"

U64 = NDArray[np.uint64]
_MASK = (1 << 64) - 1
_P = 0x100000001B3  # the polynomial's base (FNV's 64-bit prime)
_BLOCK = 1 << 13  # names a block
_NODES = 1 << 16  # positions a block
_LONG = 64  # longer names are hashed one at a time (no n x longest array)
_K = [
    np.uint64(k)
    for k in (
        0x9E3779B97F4A7C15,
        0xC2B2AE3D27D4EB4F,
        0x165667B19E3779F9,
        0xD6E8FEB86659FD93,
        0xFF51AFD7ED558CCD,
        0xC4CEB9FE1A85EC53,
    )
]


def _mix(z: U64) -> U64:
    """splitmix64's finalizer, elementwise (uint64 arithmetic wraps)."""
    z = z ^ (z >> np.uint64(30))
    z = z * np.uint64(0xBF58476D1CE4E5B9)
    z = z ^ (z >> np.uint64(27))
    z = z * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _finish(h: U64, lens: NDArray[Any]) -> U64:
    return _mix(h ^ _mix(lens.astype(np.uint64) + _K[0]))


def _polynomial(s: str) -> int:
    h = 0
    for ch in s:
        h = (h * _P + ord(ch)) & _MASK
    return h


def _hash_points(arr: NDArray[Any], lens: NDArray[np.int64]) -> U64:
    """Horner's rule over a fixed-width array of names (``S``: bytes, ``U``: code points)."""
    k = len(arr)
    unit = 1 if arr.dtype.kind == "S" else 4
    width = arr.dtype.itemsize // unit
    acc = np.zeros(k, dtype=np.uint64)
    if width == 0 or k == 0:
        return acc
    points = arr.view(np.uint8 if unit == 1 else np.uint32).reshape(k, width)
    for j in range(width):
        step = acc * np.uint64(_P) + points[:, j].astype(np.uint64)
        acc = np.where(j < lens, step, acc)
    return acc


def _hash_bytes(arr: NDArray[np.bytes_]) -> U64:
    """The hashes of ASCII names given as bytes (the same as ``_hash_strings`` of the text)."""
    lens = np.char.str_len(arr).astype(np.int64)
    return _finish(_hash_points(arr, lens), lens)


def _hash_strings(block: Sequence[str]) -> U64:
    """The hash of each name of ``block``: sum of code point c_k times P^(L-1-k), finalized."""
    k = len(block)
    lens = np.fromiter(map(len, block), dtype=np.int64, count=k)
    h = np.zeros(k, dtype=np.uint64)
    long = lens > _LONG
    short = np.flatnonzero(~long)
    for i in np.flatnonzero(long).tolist():
        h[i] = _polynomial(block[i])
    if len(short):
        names = block if len(short) == k else [block[i] for i in short.tolist()]
        h[short] = _hash_points(np.array(names, dtype=str), lens[short])
    return _finish(h, lens)


def _decimal_blocks(n: int) -> Iterator[tuple[int, U64]]:
    """The hashes of the names ``"0" .. "n-1"`` (the same as ``_hash_strings`` of them), a
    block of ids at a time, without building them: with f(i) = sum of digit_j * P^j (j from
    the right), f(i) = i % 10 + P * f(i // 10), one decade of ids after another (f is kept for
    the first n / 10 ids only, the ones later ids read), and a name of L digits hashes to
    48 * (1 + P + ... + P^(L-1)) + f(i) (48 is "0")."""
    keep = min(n, n // 10 + 1)
    f = np.zeros(keep, dtype=np.uint64)
    lo, digits, zeros = 0, 1, 48
    while lo < n:
        top = min(n, 10**digits)
        for start in range(lo, top, _NODES):
            stop = min(top, start + _NODES)
            ids = np.arange(start, stop, dtype=np.int64)
            if digits == 1:
                here = ids.astype(np.uint64)
            else:
                here = (ids % 10).astype(np.uint64) + np.uint64(_P) * f[ids // 10]
            if start < keep:
                f[start : min(stop, keep)] = here[: min(stop, keep) - start]
            yield start, _finish(here + np.uint64(zeros), np.full(1, digits))
        lo, digits = top, digits + 1
        zeros = (zeros * _P + 48) & _MASK


def _decimal_names(n: int) -> U64:
    """The hashes of the names ``"0" .. "n-1"``, by id."""
    out = np.empty(n, dtype=np.uint64)
    for lo, h in _decimal_blocks(n):
        out[lo : lo + len(h)] = h
    return out


def _blocks(names: Sequence[str]) -> Iterator[list[str]]:
    it = iter(names)
    while block := list(islice(it, _BLOCK)):
        yield block


def _name_blocks(g: GameGraph) -> Iterator[tuple[int, U64]]:
    """(first id, the 64-bit hashes of the names of a block of ids), block after block."""
    n = g.n
    if isinstance(g.names, _RangeNames):
        yield from _decimal_blocks(n)
        return
    encoded = getattr(g.names, "encoded", None)  # a generated game's names, decoded to bytes
    if encoded is not None and encoded(0, 0) is not None:
        for lo in range(0, n, _BLOCK):
            yield lo, _hash_bytes(encoded(lo, min(n, lo + _BLOCK)))
        return
    lo = 0
    for block in _blocks(g.names):
        yield lo, _hash_strings(block)
        lo += len(block)


def name_hashes(g: GameGraph) -> U64:
    """The 64-bit hash of every position's name, by id."""
    out = np.empty(g.n, dtype=np.uint64)
    for lo, h in _name_blocks(g):
        out[lo : lo + len(h)] = h
    return out


def _sealed(kind: bytes, g: GameGraph, a: int, b: int) -> str:
    h = hashlib.sha256(kind)
    h.update(struct.pack("<qqQQ", g.n, g.m, a & _MASK, b & _MASK))
    return h.hexdigest()[:32]


def graph_digest(g: GameGraph, names: U64 | None = None) -> str:
    """The fingerprint of the game, independent of the order of its positions and moves."""
    nh = name_hashes(g) if names is None else names
    as_move = _mix(nh ^ _K[1])  # a successor's share of its predecessors' records
    ptr = g.succ_ptr
    a = b = 0
    for lo in range(0, g.n, _NODES):
        hi = min(g.n, lo + _NODES)
        e0, e1 = int(ptr[lo]), int(ptr[hi])
        sums = np.zeros(e1 - e0 + 1, dtype=np.uint64)
        np.cumsum(as_move[g.succ_idx[e0:e1]], out=sums[1:])
        rel = np.asarray(ptr[lo : hi + 1], dtype=np.int64) - e0
        succ = sums[rel[1:]] - sums[rel[:-1]]  # the successors' multiset (wraps mod 2^64)
        degree = (rel[1:] - rel[:-1]).astype(np.uint64)
        value = _canonical_values(g, lo, hi)
        attrs = (
            (np.asarray(g.owner[lo:hi], dtype=np.int64) + 2).astype(np.uint64)
            | (np.asarray(g.target[lo:hi], dtype=np.uint64) << np.uint64(8))
            | (degree << np.uint64(16))
        )
        r = _mix(nh[lo:hi] + _K[2])
        r = _mix(r ^ succ)
        r = _mix(r ^ value.view(np.uint64))
        r = _mix(r ^ attrs)
        a += int(r.sum(dtype=np.uint64))
        b += int(_mix(r ^ _K[3]).sum(dtype=np.uint64))
    return DIGEST_PREFIX + _sealed(b"gamegraph-verifier graph v2", g, a, b)


def _canonical_values(g: GameGraph, lo: int, hi: int) -> NDArray[np.float64]:
    value = np.asarray(g.value[lo:hi], dtype=np.float64)
    return np.where(np.isnan(value), np.nan, value + 0.0)  # one NaN, no -0.0


def positions_digest(g: GameGraph, names: U64 | None = None) -> str:
    """The fingerprint of the positions in id order (names, owners, values, targets): with
    ``moves_digest``, what a table keyed by ids is for."""
    parts = [hashlib.sha256() for _ in range(4)]  # one per column: blocks do not matter
    blocks = _name_blocks(g) if names is None else iter([(0, names)])
    for _, block in blocks:  # the names a block at a time: no array of n hashes
        parts[0].update(np.ascontiguousarray(block).data)
    for lo in range(0, g.n, _NODES):
        hi = min(g.n, lo + _NODES)
        parts[1].update(np.ascontiguousarray(g.owner[lo:hi], dtype=np.int8).data)
        parts[2].update(_canonical_values(g, lo, hi).data)
        parts[3].update(np.ascontiguousarray(g.target[lo:hi], dtype=np.bool_).data)
    h = hashlib.sha256(b"gamegraph-verifier positions v1")
    h.update(struct.pack("<q", g.n))
    for part in parts:
        h.update(part.digest())
    return POSITIONS_PREFIX + h.hexdigest()[:32]


_LEGACY_BLOCK = 1 << 20


def moves_digest(g: GameGraph) -> str:
    """SHA-256 of the CSR arrays (``n``, ``m``, ``succ_ptr``, ``succ_idx``): the moves by id,
    so it depends on the order of the positions; the digest of every answer file written
    before ``graph_digest``, and of tables keyed by ids."""
    h = hashlib.sha256()
    for arr in (np.array([g.n, g.m]), g.succ_ptr, g.succ_idx):
        for start in range(0, max(len(arr), 1), _LEGACY_BLOCK):
            h.update(np.ascontiguousarray(arr[start : start + _LEGACY_BLOCK], dtype=np.int64).data)
    return "sha256:" + h.hexdigest()[:32]
