"""Connect Four: bitboard rules on hand-made boards, graphs and values against an independent
string-board implementation, and the known results (4x4 draw)."""

from __future__ import annotations

from collections import deque
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from gamesolve import retrograde
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.games import connect4
from verifier.games.summary import summarize


# ---------------------------------------------------------------- an independent implementation
# A board is a tuple of column strings, bottom first ("xo" = x at the bottom, o on it).
def board_name(cols: tuple[str, ...], height: int) -> str:
    return "/".join(
        "".join(col[r] if r < len(col) else "." for col in cols) for r in reversed(range(height))
    )


def four(cols: tuple[str, ...], height: int, p: str) -> bool:
    w = len(cols)

    def at(c: int, r: int) -> bool:
        return 0 <= c < w and 0 <= r < len(cols[c]) and cols[c][r] == p

    return any(
        all(at(c + k * dc, r + k * dr) for k in range(4))
        for c in range(w)
        for r in range(height)
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1))
    )


def children(cols: tuple[str, ...], height: int) -> list[tuple[str, ...]]:
    stones = sum(map(len, cols))
    last = "o" if stones % 2 == 0 else "x"  # who made the last move
    if four(cols, height, last) or stones == len(cols) * height:
        return []
    me = "x" if last == "o" else "o"
    return [
        (*cols[:c], cols[c] + me, *cols[c + 1 :]) for c in range(len(cols)) if len(cols[c]) < height
    ]


def independent_graph(width: int, height: int) -> tuple[set[str], set[tuple[str, str]]]:
    start = ("",) * width
    seen = {start}
    queue = deque([start])
    edges = set()
    while queue:
        b = queue.popleft()
        for y in children(b, height):
            edges.add((board_name(b, height), board_name(y, height)))
            if y not in seen:
                seen.add(y)
                queue.append(y)
    return {board_name(b, height) for b in seen}, edges


def independent_value(width: int, height: int):  # type: ignore[no-untyped-def]
    @cache
    def negamax(cols: tuple[str, ...]) -> int:
        kids = children(cols, height)
        if not kids:
            full = sum(map(len, cols)) == width * height
            last = "o" if sum(map(len, cols)) % 2 == 0 else "x"
            return -1 if four(cols, height, last) or not full else 0
        return max(-negamax(k) for k in kids)

    return negamax


def parse(name: str) -> tuple[str, ...]:
    rows = name.split("/")[::-1]  # bottom first
    return tuple("".join(r[c] for r in rows if r[c] != ".") for c in range(len(rows[0])))


# ---------------------------------------------------------------- tests
def test_bitboard_lines_by_hand() -> None:
    b = connect4.Board(4, 4)
    col = 5  # bits per column
    horizontal = sum(1 << (c * col) for c in range(4))
    vertical = 0b1111 << col
    diagonal = sum(1 << (c * col + c) for c in range(4))
    anti = sum(1 << (c * col + 3 - c) for c in range(4))
    for stones in (horizontal, vertical, diagonal, anti):
        assert connect4.has_four(b, stones)
    assert not connect4.has_four(b, horizontal ^ 1)
    # three on top of one column and one at the bottom of the next: no wrap-around
    assert not connect4.has_four(b, (0b111 << 1) | (1 << col))


def test_names_and_codes() -> None:
    b = connect4.Board(4, 4)
    case = connect4.generate(4, 4)
    assert case.root == 0
    assert case.graph.name(0) == "..../..../..../...."
    kids = [case.graph.name(j) for j in case.graph.successors(0).tolist()]
    assert sorted(kids) == sorted(
        ["..../..../..../x...", "..../..../..../.x..", "..../..../..../..x.", "..../..../..../...x"]
    )
    cur, mask = 0b1, 0b11  # x then o in column 0: x (to move) has the bottom stone
    assert b.name(cur + mask + b.bottom) == "..../..../o.../x..."
    assert b.decode(cur + mask + b.bottom) == (cur, mask)


@pytest.mark.parametrize(
    ("width", "height"), [(3, 3), (4, 3), (3, 4), pytest.param(5, 3, marks=pytest.mark.slow)]
)
def test_graph_and_values_agree_with_independent_program(width: int, height: int) -> None:
    case = connect4.generate(width, height)
    g = case.graph
    names, edges = independent_graph(width, height)
    assert set(g.names) == names and g.n == len(names)
    got = {(g.name(int(s)), g.name(int(d))) for s, d in zip(g.edge_src, g.succ_idx, strict=True)}
    assert got == edges
    labels, _ = retrograde(g)
    negamax = independent_value(width, height)
    assert [negamax(parse(x)) for x in g.names] == labels.tolist()
    for i in np.flatnonzero(g.is_terminal).tolist():  # terminal labels: lost after a win, else draw
        assert g.value[i] == negamax(parse(g.name(i)))


def test_4x4_is_a_draw() -> None:
    case = connect4.generate(4, 4)
    labels, rem = retrograde(case.graph)
    s = summarize(case, labels, rem)
    assert s == {
        "positions": 161029,
        "won": 38675,
        "lost": 32234,
        "drawn": 90120,
        "max_remoteness": 13,
        "longest_win": 13,
        "root_value": "draw",
        "root_remoteness": -1,
    }


@pytest.mark.slow
def test_4x4_against_independent_program() -> None:
    case = connect4.generate(4, 4)
    names, edges = independent_graph(4, 4)
    assert set(case.graph.names) == names
    assert case.graph.m == len(edges)
    assert independent_value(4, 4)(("",) * 4) == 0


@pytest.mark.slow
def test_5x4() -> None:
    case = connect4.generate(5, 4)
    labels, rem = retrograde(case.graph)
    s = summarize(case, labels, rem)
    assert (s["positions"], s["won"], s["lost"], s["drawn"]) == (
        3945711,
        1390516,
        1251559,
        1303636,
    )
    assert (s["root_value"], s["max_remoteness"]) == ("draw", 19)


def test_mirror_by_hand() -> None:
    b = connect4.Board(4, 4)
    stones = np.array([0b1 | (0b11 << 5)], dtype=np.uint64)  # columns 0 and 1
    assert b.mirror(stones).tolist() == [(0b1 << 15) | (0b11 << 10)]
    assert connect4.orbit_sizes(["..../..../..../x..x", "..../..../..../x..."]).tolist() == [1, 2]


@pytest.mark.parametrize(("width", "height"), [(4, 3), pytest.param(4, 4, marks=pytest.mark.slow)])
def test_symmetric_graph_weighs_up_to_the_full_graph(width: int, height: int) -> None:
    full = connect4.generate(width, height)
    sym = connect4.generate(width, height, symmetry=True)
    s_full = summarize(full, *retrograde(full.graph))
    s_sym = summarize(sym, *retrograde(sym.graph))
    assert s_sym["symmetry"] == {
        "classes": sym.graph.n,
        **{k: s_full[k] for k in ("positions", "won", "lost", "drawn")},
    }
    assert s_sym["max_remoteness"] == s_full["max_remoteness"]
    # every class name is a position of the full graph, and its mirror image is too
    names = set(full.graph.names)
    for x in list(sym.graph.names)[:: max(1, sym.graph.n // 500)]:
        assert x in names and "/".join(r[::-1] for r in x.split("/")) in names


@pytest.mark.parametrize(("width", "height"), [(1, 1), (2, 3), (3, 3), (4, 4), (4, 3)])
def test_vectorized_names_are_the_readable_names(width: int, height: int, tmp_path: Path) -> None:
    from verifier.games.connect4 import Board
    from verifier.io import load_any, save_any

    case = connect4.generate(width, height)
    names = case.graph.names
    fast = Board(width, height).names(names.codes)  # type: ignore[attr-defined]
    assert [x.decode() for x in fast] == [names[i] for i in range(len(names))]
    back = load_any(save_any(case, tmp_path / "c.npz"))  # written from the vectorized names
    assert list(back.graph.names) == list(names)


def test_npz_keeps_position_codes_not_strings(tmp_path: Path) -> None:
    from verifier.io import load_any, save_any

    case = connect4.generate(4, 3)
    path = save_any(case, tmp_path / "c.npz")
    with np.load(path) as z:
        assert "names" not in z.files and z["name_codes"].dtype == np.uint64
    back = load_any(path)
    assert back.graph.names.codec == "connect4:4x3"  # type: ignore[attr-defined]
    assert back.graph.name(back.root or 0) == "..../..../...."
    assert back.graph.id_of(case.graph.name(77)) == 77


def test_a_symmetric_case_says_so_in_its_codec(tmp_path: Path) -> None:
    """With symmetry the names' codec is ``connect4:WxH:symmetric`` (the classes' sizes are then
    known from a stored case's codes alone), and each code must be its class's smaller one."""
    from verifier.games import name_codecs
    from verifier.io import load_any, save_any

    case = connect4.generate(4, 3, symmetry=True)
    back = load_any(save_any(case, tmp_path / "c.npz"))
    assert back.graph.names.codec == "connect4:4x3:symmetric"  # type: ignore[attr-defined]
    assert list(back.graph.names) == list(case.graph.names)
    codes = np.array(case.graph.names.codes)  # type: ignore[attr-defined]
    board = connect4.Board(4, 3)
    at = int(np.flatnonzero(board.mirror(codes) != codes)[0])
    codes[at] = board.mirror(codes[at : at + 1])[0]  # the larger code of its class
    with pytest.raises(ValueError, match=f"at {at} is no connect4:4x3:symmetric position"):
        name_codecs.codec_names("connect4:4x3:symmetric", codes)
    assert len(name_codecs.codec_names("connect4:4x3", codes)) == len(codes)  # a plain codec


def test_name_codes_checked_block_by_block(monkeypatch: pytest.MonkeyPatch) -> None:
    from verifier.games import name_codecs

    monkeypatch.setattr(name_codecs, "_BLOCK", 7)  # block boundaries inside every layer
    codes = np.array(connect4.generate(4, 3).graph.names.codes)  # type: ignore[attr-defined]
    names = name_codecs.codec_names("connect4:4x3", codes)
    assert names[100] == connect4.position_name(4, 3, int(codes[100]))
    swapped = codes.copy()
    swapped[[6, 7]] = swapped[[7, 6]]  # distinct, out of the generator's order: sorted instead
    assert len(name_codecs.codec_names("connect4:4x3", swapped)) == len(codes)
    for at in (7, 100, len(codes) - 1):  # a repeat across a block boundary, inside, at the end
        repeated = codes.copy()
        repeated[at] = repeated[at - 1]
        with pytest.raises(ValueError, match="two positions share a code"):
            name_codecs.codec_names("connect4:4x3", repeated)
    far = codes.copy()
    far[-1] = far[0]  # the empty board again, last: no longer increasing
    with pytest.raises(ValueError, match="two positions share a code"):
        name_codecs.codec_names("connect4:4x3", far)
    broken = codes.copy()
    broken[50] = np.uint64(0)  # no marker bit in any column
    with pytest.raises(ValueError, match="code 0 at 50 is no connect4:4x3 position"):
        name_codecs.codec_names("connect4:4x3", broken)


@pytest.mark.parametrize(
    ("codec", "codes", "problem"),
    [
        ("connect4:4x3", [1, 2], "is no connect4:4x3 position"),
        ("connect4:99x99", [1], "unsupported Connect Four board"),
        ("checkers:8x8", [1], "unknown name codec"),
        ("chess:8x8", [1], "material '8x8'"),
        ("connect4:1x1", [1, 1], "two positions share a code"),
        ("connect4:1x1", [1, 2, 2], "two positions share a code"),
        (None, [1], "name_codes need a name_codec"),
    ],
)
def test_bad_name_codes_are_one_line_errors(
    codec: str | None, codes: list[int], problem: str, tmp_path: Path
) -> None:
    import json

    from verifier.errors import CaseError
    from verifier.io import load_any

    n = len(codes)
    header = {"format": "gamegraph-verifier-case", "version": 1, "semantics": "normal"}
    if codec is not None:
        header["name_codec"] = codec
    path = tmp_path / "bad.npz"
    np.savez(
        path,
        header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8),
        succ_ptr=np.zeros(n + 1, dtype=np.int64),
        succ_idx=np.zeros(0, dtype=np.int64),
        owner=np.full(n, -1, dtype=np.int8),
        value=np.full(n, -1.0),
        target=np.zeros(n, dtype=np.bool_),
        name_codes=np.asarray(codes, dtype=np.uint64),
    )
    with pytest.raises(CaseError) as e:
        load_any(path)
    assert problem in str(e.value) and str(e.value).startswith(f"{path}: ")


@pytest.mark.parametrize(("width", "height"), [(4, 4), (5, 3), (3, 3)])
def test_orbit_sizes_from_codes_equal_those_from_names(width: int, height: int) -> None:
    names = connect4.generate(width, height, symmetry=True).graph.names
    assert connect4.orbit_sizes(names).tolist() == connect4.orbit_sizes(list(names)).tolist()


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([(4, 4), (5, 4), (6, 5), (7, 6), (3, 7)]), st.data())
def test_whole_array_decoding_is_the_one_code_decoding(
    size: tuple[int, int], data: st.DataObject
) -> None:
    """``Board.decode_all`` and ``ConnectFourTiers.tier_of`` (bit operations on whole arrays)
    against ``Board.decode`` of one code and a column-by-column count written here: legal
    codes (a marker in every column) and any bits, past the board's too (tier -1)."""
    from verifier.games.tiered.connect4 import ConnectFourTiers

    tiers = ConnectFourTiers(*size)
    board = tiers.board
    fields = st.lists(
        st.integers(1, (1 << board.col) - 1), min_size=board.width, max_size=board.width
    )
    legal = fields.map(lambda fs: sum(f << (c * board.col) for c, f in enumerate(fs)))
    anything = st.integers(0, (1 << min(board.width * board.col + 2, 64)) - 1)
    codes = data.draw(st.lists(st.one_of(legal, anything), min_size=1, max_size=40))
    arr = np.array(codes, dtype=np.uint64)
    cur, mask = board.decode_all(arr)
    tier = tiers.tier_of(arr)
    for i, code in enumerate(codes):
        parts = [(code >> (c * board.col)) & ((1 << board.col) - 1) for c in range(board.width)]
        ok = all(parts) and code >> (board.width * board.col) == 0
        assert int(tier[i]) == (sum(p.bit_length() - 1 for p in parts) if ok else -1), code
        if ok:
            assert (int(cur[i]), int(mask[i])) == board.decode(code), code
    assert connect4.stone_count(np.array([0, 1, 2**64 - 1], np.uint64)).tolist() == [0, 1, 64]
