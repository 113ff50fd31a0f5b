"""The two lookups every sharded stage leans on (``verifier.dataset.storage``): ``rows_of``
(where keys are in a shard's sorted codes, searched in increasing order) and ``by_owner``
(moves grouped by the shard that owns their target, stable, on a 16-bit key when it fits).
Both are fast paths of a plain numpy call; each is compared with that call."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.dataset.storage import by_owner, rows_of, sorted_order


def test_rows_of_by_hand() -> None:
    codes = np.array([3, 7, 7, 12], dtype=np.uint64)
    want = np.array([12, 3, 8, 99, 0, 7], dtype=np.uint64)
    # 8 would go before 12 (row 3), 99 after the last row (clipped to 3), 0 before 3 (row 0)
    assert rows_of(codes, want).tolist() == [3, 0, 3, 3, 0, 1]
    assert rows_of(codes[:0], want).tolist() == [0] * 6  # an empty shard: row 0, found nowhere


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 2**64 - 1), max_size=40),
    st.lists(st.integers(0, 2**64 - 1), max_size=40),
)
def test_rows_of_is_a_clipped_searchsorted(codes: list[int], want: list[int]) -> None:
    c = np.sort(np.array(codes, dtype=np.uint64))
    w = np.array(want, dtype=np.uint64)
    plain = np.minimum(np.searchsorted(c, w), max(len(c) - 1, 0))
    assert rows_of(c, w).tolist() == plain.tolist()


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 64), st.lists(st.integers(0, 2**64 - 1), max_size=70), st.booleans())
def test_sorted_order_is_a_stable_argsort(bits: int, keys: list[int], signed: bool) -> None:
    """Keys of every width (narrow ones take the packed sort, keys too wide to share 64 bits
    with their indices the argsort): the sorted keys and numpy's stable argsort, ties in
    index order (keys folded to ``bits`` bits, so that ties are frequent when narrow)."""
    a = np.array([k % (1 << bits) for k in keys], dtype=np.uint64)
    if signed:
        a = (a >> np.uint64(1)).astype(np.int64)
    got, order = sorted_order(a)
    assert order.dtype == np.intp
    assert order.tolist() == np.argsort(a, kind="stable").tolist()
    assert got.tolist() == np.sort(a).tolist()


def test_sorted_order_by_hand() -> None:
    """5 keys need 3 index bits: a 61-bit key packs, a 62-bit one does not; same answers."""
    for top in (1 << 60, 1 << 61):
        a = np.array([top, 5, 0, 5, top], dtype=np.uint64)
        got, order = sorted_order(a)
        assert order.tolist() == [2, 1, 3, 0, 4]
        assert got.tolist() == [0, 5, 5, top, top]
    got, order = sorted_order(np.zeros(0, dtype=np.uint64))
    assert (len(got), len(order)) == (0, 0)


def test_by_owner_by_hand() -> None:
    owner = np.array([2, 0, 2, 1, 0, 2], dtype=np.int64)
    order, bounds = by_owner(owner, 4)
    assert order.tolist() == [1, 4, 3, 0, 2, 5]  # stable: rows in order inside a group
    assert bounds.tolist() == [0, 2, 3, 6, 6]  # group 3 empty


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 70_000), max_size=60), st.booleans())
def test_by_owner_is_a_stable_argsort(owners: list[int], few: bool) -> None:
    """Below 2^16 groups the key is cast to 16 bits (the owners folded into the range here);
    above it the int64 key is sorted as it is; both are numpy's stable argsort."""
    groups = 300 if few else 70_001
    owner = np.array(owners, dtype=np.int64) % groups
    order, bounds = by_owner(owner, groups)
    assert order.tolist() == np.argsort(owner, kind="stable").tolist()
    assert bounds.tolist() == np.searchsorted(np.sort(owner), np.arange(groups + 1)).tolist()


def test_a_strangers_rows_are_routed_to_the_shard_that_owns_them(tmp_path: Path) -> None:
    """``tables.route_file`` on a stored graph of two tiers (tier 0: shards of 3 and 2 nodes,
    tier 1: one of 4): each row in the piece of the shard owning its node id, rows in file
    order inside a piece; a node id past its tier's nodes (tier 0's 5, the last tier's 4) or a
    tier past the last is no node: counted, the first named, in no piece."""
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    from verifier.dataset.graphs import GraphTiers
    from verifier.dataset.shape import Owners
    from verifier.dataset.tables import route_file

    rows = {
        "tier": [1, 0, 0, 0, 1, 0, 2, 1],
        "code": [3, 4, 0, 5, 4, 2, 0, 0],
        "value": [1, -1, 0, 1, 1, -1, 1, -1],
    }
    table = tmp_path / "t.parquet"
    pq.write_table(pa.table({k: pa.array(v, pa.int64()) for k, v in rows.items()}), table)
    game = GraphTiers(nodes=9, edges=0, tiers=2)
    owners = Owners(((3, 2), (4,)), ranged=True)
    pieces, extra, witness = route_file(str(tmp_path), game, 0, str(table), owners, (False, False))
    got = {}
    for k, s, path in pieces:
        t = pq.read_table(path)
        got[(k, s)] = (t.column("code").to_pylist(), t.column("row").to_pylist())
    assert got == {(0, 0): ([0, 2], [2, 5]), (0, 1): ([4], [1]), (1, 0): ([3, 0], [0, 7])}
    assert extra == 3  # tier 0's node 5, tier 1's node 4, tier 2
    assert witness is not None and witness[1] == 5 and "row 3 claims code 5" in witness[2]


def test_a_merge_runs_again_from_the_same_pieces(tmp_path: Path) -> None:
    """A merge task whose worker died after it ran is run again by Dask (its result was held by
    the dead worker): it must find its pieces. Both merges keep them (the driver removes them
    once every shard is merged) and give the same shard again; they removed them, so a worker
    killed at the wrong moment ended a generation with "from=0.npy: missing" and exit 2."""
    from verifier.dataset.graph_storage import read_reverse, reverse_piece_path, write_piece_edges
    from verifier.dataset.shard_tasks import merge_shard
    from verifier.dataset.storage import piece_path, read_codes, write_piece
    from verifier.distributed.tiers.graph_tasks import merge_reverse

    pieces = []
    for source, codes in enumerate(([9, 3, 5], [5, 7, 3])):
        pieces.append(str(piece_path(tmp_path, 1, 0, source)))
        write_piece(Path(pieces[-1]), np.array(codes, dtype=np.uint64))
    first = merge_shard(str(tmp_path), 1, 0, pieces)
    assert merge_shard(str(tmp_path), 1, 0, pieces) == first
    assert first[0] == 4
    assert read_codes(tmp_path, 1, 0, first[1], 4).tolist() == [3, 5, 7, 9]

    sent = []
    for source, (dst, src) in enumerate((([4, 2], [0, 1]), ([2], [7]))):
        sent.append(str(reverse_piece_path(tmp_path, 0, 0, source)))
        write_piece_edges(Path(sent[-1]), np.array(dst, np.uint64), np.array(src, np.uint64))
    done = merge_reverse(str(tmp_path), 0, 0, sent)
    assert merge_reverse(str(tmp_path), 0, 0, sent) == done == (3, done[1])
    dst, src = read_reverse(tmp_path, 0, 0, done[1], 3)
    assert dst.tolist() == [2, 2, 4] and src.tolist() == [1, 7, 0]
