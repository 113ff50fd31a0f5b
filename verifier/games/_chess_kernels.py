"""The numba kernels behind :mod:`verifier.games.chess` (imported only when chess is played).

A *man* is ``colour * 8 + type`` (types below; colour 0 White, 1 Black). A material's men are
listed in increasing man code, so White's king comes first, then White's pieces, then Black's
king and pieces; two men of the same code stand in increasing square order. A position of a
material with ``k`` men is the code ``side * 64^k + sq[0] * 64^(k-1) + ... + sq[k-1]``
(``side`` 0: White to move), squares ``rank * 8 + file`` (``a1`` = 0, ``h8`` = 63).

The move tables are module constants (numba freezes them into the compiled code). Every
kernel works on one position at a time with scratch arrays of four entries, so a whole tier is
one loop over its codes (``parallel``: blocks of positions on every core).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN = 1, 2, 3, 4, 5, 6
BLACK = 8
MAX_MEN = 4
EP = MAX_MEN
"""``sq[EP]``: the file + 1 of a pawn that has just made a double step and can be taken en
passant, 0 if none (square arrays have ``SLOTS`` entries)."""
SLOTS = MAX_MEN + 1
MAX_CHILDREN = 128
"""More than any position of four men has moves (king 8, queen 27, rook 14, promotions 12)."""
FEN_BYTES = 64

_ORTH = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))
_KNIGHT = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))


def _tables() -> tuple[np.ndarray, ...]:
    on = range(8)
    king_to = np.full((64, 8), -1, np.int64)
    knight_to = np.full((64, 8), -1, np.int64)
    ray = np.full((64, 8, 7), -1, np.int64)  # directions 0-3 along ranks/files, 4-7 diagonals
    line = np.zeros((64, 64), np.int64)  # 1: same rank or file, 2: same diagonal
    between = np.zeros((64, 64), np.uint64)
    for s in range(64):
        r, f = divmod(s, 8)
        for d, (dr, df) in enumerate(_ORTH + _DIAG):
            if r + dr in on and f + df in on:
                king_to[s, d] = (r + dr) * 8 + f + df
            passed = 0
            for step in range(7):
                rr, ff = r + dr * (step + 1), f + df * (step + 1)
                if rr not in on or ff not in on:
                    break
                t = rr * 8 + ff
                ray[s, d, step] = t
                line[s, t] = 1 if d < 4 else 2
                between[s, t] = passed
                passed |= 1 << t
        for d, (dr, df) in enumerate(_KNIGHT):
            if r + dr in on and f + df in on:
                knight_to[s, d] = (r + dr) * 8 + f + df
    # the eight symmetries of the board; 0 and 1 (identity, files mirrored) keep pawns' moves
    sym = np.zeros((8, 64), np.int64)
    for s in range(64):
        r, f = divmod(s, 8)
        images = ((r, f), (r, 7 - f), (7 - r, f), (7 - r, 7 - f), (f, r), (f, 7 - r), (7 - f, r))
        for g, (rr, ff) in enumerate((*images, (7 - f, 7 - r))):
            sym[g, s] = rr * 8 + ff
    return king_to, knight_to, ray, line, between, sym


KING_TO, KNIGHT_TO, RAY, LINE, BETWEEN, SYM = _tables()


@njit(cache=True, inline="always")
def _bit(s: int) -> np.uint64:
    return np.uint64(1) << np.uint64(s)


@njit(cache=True)
def decode(code: int, k: int, sq: np.ndarray) -> int:
    """Fill ``sq[0..k-1]`` and ``sq[EP]`` from a position code; the side to move. A code is
    ``(ep * 2 + side) * 64^k + squares``: ``ep`` is 0 except in materials with pawns of both
    colours (their code range is 9 times the others')."""
    for i in range(k - 1, -1, -1):
        sq[i] = code & 63
        code >>= 6
    sq[EP] = code >> 1
    return code & 1


@njit(cache=True)
def encode(side: int, k: int, sq: np.ndarray) -> int:
    code: int = sq[EP] * 2 + side
    for i in range(k):
        code = code * 64 + sq[i]
    return code


@njit(cache=True)
def occupancy(k: int, sq: np.ndarray) -> np.uint64:
    occ = np.uint64(0)
    for i in range(k):
        if sq[i] >= 0:
            occ |= _bit(sq[i])
    return occ


@njit(cache=True)
def attacked(t: int, by: int, k: int, men: np.ndarray, sq: np.ndarray, occ: np.uint64) -> bool:
    """Whether a man of colour ``by`` attacks square ``t`` (men with square -1 are gone)."""
    for i in range(k):
        s = sq[i]
        if s < 0 or s == t or (men[i] >> 3) != by:
            continue
        p = men[i] & 7
        if p == KING:
            if max(abs(s // 8 - t // 8), abs(s % 8 - t % 8)) == 1:
                return True
        elif p == KNIGHT:
            dr, df = abs(s // 8 - t // 8), abs(s % 8 - t % 8)
            if (dr == 1 and df == 2) or (dr == 2 and df == 1):
                return True
        elif p == PAWN:
            ahead = 1 if by == 0 else -1
            if t // 8 - s // 8 == ahead and abs(t % 8 - s % 8) == 1:
                return True
        else:
            kind = LINE[s, t]
            if kind == 0 or (p == ROOK and kind != 1) or (p == BISHOP and kind != 2):
                continue
            if BETWEEN[s, t] & occ == 0:
                return True
    return False


@njit(cache=True)
def king_square(colour: int, k: int, men: np.ndarray, sq: np.ndarray) -> int:
    for i in range(k):
        if men[i] == colour * BLACK + KING:
            return int(sq[i])
    return -1


@njit(cache=True)
def legal(side: int, k: int, men: np.ndarray, sq: np.ndarray) -> bool:
    """Distinct squares, no pawn on the first or last rank, men of one kind in increasing square
    order (one code per position) and the side not to move not in check (kings apart)."""
    occ = np.uint64(0)
    for i in range(k):
        s = sq[i]
        if occ & _bit(s):
            return False
        occ |= _bit(s)
        if (men[i] & 7) == PAWN and (s < 8 or s >= 56):
            return False
        if i > 0 and men[i] == men[i - 1] and s < sq[i - 1]:
            return False
    if attacked(king_square(1 - side, k, men, sq), side, k, men, sq, occ):
        return False
    return sq[EP] == 0 or (0 < sq[EP] <= 8 and en_passant(side, k, men, sq, sq[EP] - 1))


@njit(cache=True)
def en_passant(side: int, k: int, men: np.ndarray, sq: np.ndarray, f: int) -> bool:
    """Whether the side to move can take en passant on file ``f``: the other side's pawn
    stands where a double step from its first rank on that file ends, the two squares it
    passed are empty, and a pawn of the side to move beside it takes it without leaving its
    own king attacked. (As python-chess's FEN: an en-passant square is given only then.)"""
    them = 1 - side
    at = (4 if side == 0 else 3) * 8 + f  # where the double step ended
    passed, start = at + (8 if side == 0 else -8), at + (16 if side == 0 else -16)
    j = _man_at(at, k, sq)
    if j < 0 or men[j] != them * BLACK + PAWN:
        return False
    if _man_at(passed, k, sq) >= 0 or _man_at(start, k, sq) >= 0:
        return False
    nm = np.empty(SLOTS, np.int64)
    ns = np.empty(SLOTS, np.int64)
    for i in range(k):
        if men[i] != side * BLACK + PAWN or sq[i] // 8 != at // 8 or abs(sq[i] % 8 - f) != 1:
            continue
        for x in range(k):
            nm[x], ns[x] = men[x], sq[x]
        ns[i], ns[j] = passed, -1
        occ = occupancy(k, ns)
        if not attacked(king_square(side, k, nm, ns), them, k, nm, ns, occ):
            return True
    return False


@njit(cache=True)
def _insufficient(colour: int, k: int, men: np.ndarray, sq: np.ndarray) -> bool:
    """python-chess's ``has_insufficient_material(colour)``, for these men."""
    own = knights = bishops = pawns = other_not_queen = 0
    light = dark = False
    for i in range(k):
        c, p = men[i] >> 3, men[i] & 7
        if p == BISHOP:
            if (sq[i] // 8 + sq[i] % 8) % 2 == 0:
                dark = True
            else:
                light = True
        if p == KNIGHT:
            knights += 1
        if p == PAWN:
            pawns += 1
        if c == colour:
            own += 1
            if p == PAWN or p == ROOK or p == QUEEN:  # noqa: SIM109 (plain compares for numba)
                return False
            if p == BISHOP:
                bishops += 1
        elif p != KING and p != QUEEN:
            other_not_queen += 1
    own_knights = 0
    for i in range(k):
        if men[i] == colour * BLACK + KNIGHT:
            own_knights += 1
    if own_knights:
        return own <= 2 and other_not_queen == 0
    if bishops:
        return not (light and dark) and pawns == 0 and knights == 0
    return True


@njit(cache=True)
def dead(k: int, men: np.ndarray, sq: np.ndarray) -> bool:
    """Insufficient material for both sides (python-chess's ``is_insufficient_material``): a
    drawn end, whoever is to move."""
    return _insufficient(0, k, men, sq) and _insufficient(1, k, men, sq)


@njit(cache=True)
def _sort_men(k: int, men: np.ndarray, sq: np.ndarray) -> None:
    """Insertion sort by (man, square): the material's order (gone men, square -1, first)."""
    for i in range(1, k):
        m, s = men[i], sq[i]
        j = i - 1
        while j >= 0 and (men[j] > m or (men[j] == m and sq[j] > s)):
            men[j + 1], sq[j + 1] = men[j], sq[j]
            j -= 1
        men[j + 1], sq[j + 1] = m, s


@njit(cache=True)
def _image(g: int, k: int, men: np.ndarray, sq: np.ndarray, tmp: np.ndarray) -> None:
    """The squares of the position's image under symmetry ``g`` into ``tmp``, men of one kind
    in increasing square order again (the men stay in place)."""
    for i in range(k):
        tmp[i] = SYM[g, sq[i]]
    tmp[EP] = sq[EP] if sq[EP] == 0 or g == 0 else 9 - sq[EP]  # ep tiers have pawns: g <= 1
    for i in range(1, k):
        s = tmp[i]
        j = i - 1
        while j >= 0 and men[j] == men[i] and tmp[j] > s:
            tmp[j + 1] = tmp[j]
            j -= 1
        tmp[j + 1] = s


@njit(cache=True)
def canonical(
    side: int, k: int, men: np.ndarray, sq: np.ndarray, group: int, tmp: np.ndarray
) -> int:
    """The least code of the position's images under the first ``group`` symmetries."""
    best = encode(side, k, sq)
    for g in range(1, group):
        _image(g, k, men, sq, tmp)
        best = min(best, encode(side, k, tmp))
    return best


@njit(cache=True)
def orbit_size(
    side: int, k: int, men: np.ndarray, sq: np.ndarray, group: int, tmp: np.ndarray
) -> int:
    """How many distinct positions the images under the first ``group`` symmetries are."""
    codes = np.empty(group, np.int64)
    for g in range(group):
        _image(g, k, men, sq, tmp)
        codes[g] = encode(side, k, tmp)
    return len(np.unique(codes))


@njit(cache=True)
def _man_at(t: int, k: int, sq: np.ndarray) -> int:
    for i in range(k):
        if sq[i] == t:
            return i
    return -1


@njit(cache=True)
def _emit(
    side: int,
    k: int,
    men: np.ndarray,
    sq: np.ndarray,
    mover: int,
    to: int,
    taken: int,
    promote: int,
    tier_of_key: np.ndarray,
    tier_group: np.ndarray,
    scratch: np.ndarray,
    out_tier: np.ndarray,
    out_code: np.ndarray,
    out_move: np.ndarray,
    n: int,
) -> int:
    """Append the position after ``mover`` goes to ``to`` (capturing man ``taken`` >= 0,
    promoting to ``promote`` > 0) if the mover's king is then safe; the new count."""
    nm, ns, tmp = scratch[0], scratch[1], scratch[2]
    for i in range(k):
        nm[i], ns[i] = men[i], sq[i]
    ns[mover] = to
    if taken >= 0:
        ns[taken] = -1
    if promote > 0:
        nm[mover] = side * BLACK + promote
    occ = occupancy(k, ns)
    if attacked(king_square(side, k, nm, ns), 1 - side, k, nm, ns, occ):
        return n
    # drop the taken man, order the men as the new material lists them
    k2 = 0
    for i in range(k):
        if ns[i] >= 0:
            nm[k2], ns[k2] = nm[i], ns[i]
            k2 += 1
    _sort_men(k2, nm, ns)
    ns[EP] = 0
    if (
        (men[mover] & 7) == PAWN
        and abs(to - sq[mover]) == 16
        and en_passant(1 - side, k2, nm, ns, to % 8)
    ):
        ns[EP] = to % 8 + 1
    key = 0
    for i in range(k2):
        key = key * 16 + nm[i]
    tier = tier_of_key[key]
    out_move[n] = (sq[mover] * 64 + to) * 8 + promote
    out_tier[n] = tier
    out_code[n] = 0 if tier < 0 else canonical(1 - side, k2, nm, ns, tier_group[tier], tmp)
    return n + 1


@njit(cache=True, inline="always")
def _add(cand: np.ndarray, n: int, mover: int, to: int, taken: int, promote: int) -> int:
    cand[n, 0], cand[n, 1], cand[n, 2], cand[n, 3] = mover, to, taken, promote
    return n + 1


@njit(cache=True)
def _pseudo_moves(side: int, k: int, men: np.ndarray, sq: np.ndarray, cand: np.ndarray) -> int:
    """The moves of the side to move before its king's safety is tested: rows (mover, to,
    man taken or -1, promoted type or 0) of ``cand``; their number. No man takes a king."""
    n = 0
    for i in range(k):
        if (men[i] >> 3) != side:
            continue
        p, s = men[i] & 7, sq[i]
        if p == KING or p == KNIGHT:  # noqa: SIM109 (plain compares for numba)
            for d in range(8):
                t = KING_TO[s, d] if p == KING else KNIGHT_TO[s, d]
                if t < 0:
                    continue
                j = _man_at(t, k, sq)
                if j < 0 or ((men[j] >> 3) != side and (men[j] & 7) != KING):
                    n = _add(cand, n, i, t, j, 0)
        elif p == PAWN:
            ahead = 8 if side == 0 else -8
            last = (s + ahead) // 8 == (7 if side == 0 else 0)
            for df in (0, -1, 1):
                t = s + ahead + df
                if df != 0 and (s % 8 + df < 0 or s % 8 + df > 7):
                    continue
                j = _man_at(t, k, sq)
                if df == 0 and j >= 0:
                    continue
                if df != 0 and (j < 0 or (men[j] >> 3) == side or (men[j] & 7) == KING):
                    continue
                # on the last rank: a queen, rook, bishop or knight (types 2..5)
                for q in range(QUEEN, KNIGHT + 1) if last else range(1):
                    n = _add(cand, n, i, t, j, q)
            f = sq[EP] - 1  # en passant: beside the pawn that has just made a double step
            if f >= 0 and s // 8 == (4 if side == 0 else 3) and abs(s % 8 - f) == 1:
                n = _add(cand, n, i, s // 8 * 8 + f + ahead, _man_at(s // 8 * 8 + f, k, sq), 0)
            t = s + 2 * ahead
            start = s // 8 == (1 if side == 0 else 6)
            if start and _man_at(s + ahead, k, sq) < 0 and _man_at(t, k, sq) < 0:
                n = _add(cand, n, i, t, -1, 0)
        else:
            lo, hi = (0, 8) if p == QUEEN else ((0, 4) if p == ROOK else (4, 8))
            for d in range(lo, hi):
                for step in range(7):
                    t = RAY[s, d, step]
                    if t < 0:
                        break
                    j = _man_at(t, k, sq)
                    if j >= 0 and ((men[j] >> 3) == side or (men[j] & 7) == KING):
                        break
                    n = _add(cand, n, i, t, j, 0)
                    if j >= 0:
                        break
    return n


@njit(cache=True)
def children(
    side: int,
    k: int,
    men: np.ndarray,
    sq: np.ndarray,
    tier_of_key: np.ndarray,
    tier_group: np.ndarray,
    scratch: np.ndarray,
    out_tier: np.ndarray,
    out_code: np.ndarray,
    out_move: np.ndarray,
) -> int:
    """The legal moves of a position: (tier, canonical code) of each successor in
    ``out_tier`` / ``out_code`` and the move ``(from * 64 + to) * 8 + promoted type`` in
    ``out_move``; their number. Captures leave the material; a pawn reaching the
    last rank becomes a queen, rook, bishop or knight (four moves)."""
    cand = np.empty((MAX_CHILDREN, 4), np.int64)
    n = 0
    for c in range(_pseudo_moves(side, k, men, sq, cand)):
        mover, to, taken, promote = cand[c, 0], cand[c, 1], cand[c, 2], cand[c, 3]
        n = _emit(side, k, men, sq, mover, to, taken, promote, tier_of_key, tier_group, scratch,
                  out_tier, out_code, out_move, n)  # fmt: skip
    return n


@njit(cache=True)
def code_range(k: int, men: np.ndarray) -> int:
    """How many codes a material has: ``2 * 64^k``, 9 times that with pawns of both colours
    (the en-passant file, 0-8, in the code)."""
    white = black = False
    for i in range(k):
        white |= men[i] == PAWN
        black |= men[i] == BLACK + PAWN
    size: int = (18 if white and black else 2) * 64**k
    return size


def tier_positions(k: int, men: np.ndarray, group: int) -> np.ndarray:
    """For every code of a material: 1 if it is a legal position (and, with symmetry, the
    least code of its class), else 0."""
    return tier_positions_range(k, men, group, 0, code_range(k, men))


@njit(cache=True, parallel=True)
def tier_positions_range(k: int, men: np.ndarray, group: int, lo: int, hi: int) -> np.ndarray:
    """``tier_positions`` of the codes ``lo .. hi - 1`` of a material only (entry ``i`` for
    code ``lo + i``): a material's codes scanned range by range, as the sharded generation
    does, without the mask of the whole material."""
    total = max(0, hi - lo)
    keep = np.zeros(total, np.bool_)
    block = 1 << 14
    for b in prange((total + block - 1) // block):
        sq = np.empty(SLOTS, np.int64)
        tmp = np.empty(SLOTS, np.int64)
        for i in range(b * block, min(total, (b + 1) * block)):
            code = lo + i
            side = decode(code, k, sq)
            if legal(side, k, men, sq) and canonical(side, k, men, sq, group, tmp) == code:
                keep[i] = True
    return keep


CODE_BITS = 32
"""``tier_successors`` orders a position's successors by ``tier << CODE_BITS | code`` (a
material's codes are below ``18 * 64^4 < 2^29``)."""


@njit(cache=True)
def _successor_keys(
    side: int,
    k: int,
    men: np.ndarray,
    sq: np.ndarray,
    tier_of_key: np.ndarray,
    tier_group: np.ndarray,
    scratch: np.ndarray,
    c_tier: np.ndarray,
    c_code: np.ndarray,
    c_move: np.ndarray,
    row: np.ndarray,
) -> int:
    """The successors of a decoded position as keys ``tier << CODE_BITS | code`` in
    ``row[:m]``, sorted, repeats (symmetric images) dropped; returns ``m``. A dead position
    has none. The keys' order is the node ids' (a tier's codes follow the earlier tiers')."""
    n = 0
    if not dead(k, men, sq):
        n = children(side, k, men, sq, tier_of_key, tier_group, scratch, c_tier, c_code, c_move)
    for c in range(n):
        row[c] = (c_tier[c] << CODE_BITS) | c_code[c]
    row[:n].sort()
    m = 0
    for c in range(n):
        if c == 0 or row[c] != row[c - 1]:
            row[m] = row[c]
            m += 1
    return m


@njit(cache=True)
def _mated(side: int, k: int, men: np.ndarray, sq: np.ndarray, moves: int) -> bool:
    """A position with ``moves`` successors is mate: none, not dead, the mover in check."""
    if moves > 0 or dead(k, men, sq):
        return False
    return attacked(king_square(side, k, men, sq), 1 - side, k, men, sq, occupancy(k, sq))


@njit(cache=True, parallel=True)
def tier_successors(
    codes: np.ndarray,
    k: int,
    men: np.ndarray,
    tier_of_key: np.ndarray,
    tier_group: np.ndarray,
    ptr: np.ndarray,
    out_tier: np.ndarray,
    out_code: np.ndarray,
    terminal: np.ndarray,
    count_only: bool,
) -> None:
    """``tier_moves`` without a node table: with ``count_only`` the number of each position's
    distinct successors into ``ptr`` and its label as a dead end into ``terminal`` (-1 mated,
    0 stalemate, dead or a position with moves); else the successors as (tier, canonical code)
    into ``out_tier`` / ``out_code`` from ``ptr[x]`` on, sorted by (tier, code), repeats
    (symmetric images) dropped. A dead position has no moves."""
    block = 1 << 12
    for b in prange((len(codes) + block - 1) // block):
        sq = np.empty(SLOTS, np.int64)
        scratch = np.empty((3, SLOTS), np.int64)
        buf = np.empty((4, MAX_CHILDREN), np.int64)
        c_tier, c_code, c_move, row = buf[0], buf[1], buf[2], buf[3]
        for x in range(b * block, min(len(codes), (b + 1) * block)):
            side = decode(codes[x], k, sq)
            m = _successor_keys(side, k, men, sq, tier_of_key, tier_group, scratch,
                                c_tier, c_code, c_move, row)  # fmt: skip
            if count_only:
                ptr[x] = m
                terminal[x] = -1 if _mated(side, k, men, sq, m) else 0
            else:
                for c in range(m):
                    out_tier[ptr[x] + c] = row[c] >> CODE_BITS
                    out_code[ptr[x] + c] = row[c] & ((1 << CODE_BITS) - 1)


@njit(cache=True, parallel=True)
def tier_moves(
    codes: np.ndarray,
    k: int,
    men: np.ndarray,
    tier_of_key: np.ndarray,
    tier_group: np.ndarray,
    tier_base: np.ndarray,
    node_of: np.ndarray,
    ptr: np.ndarray,
    idx: np.ndarray,
    value: np.ndarray,
    count_only: bool,
) -> None:
    """One tier's moves: with ``count_only`` the number of each position's successors into
    ``ptr`` and its value as a terminal (-1 mated, 0 stalemate or dead) into ``value``; else
    the sorted successor ids into ``idx[ptr[x] : ptr[x + 1]]`` (-1: a successor in no tier).
    A dead position has no moves."""
    block = 1 << 12
    for b in prange((len(codes) + block - 1) // block):
        sq = np.empty(SLOTS, np.int64)
        scratch = np.empty((3, SLOTS), np.int64)
        buf = np.empty((4, MAX_CHILDREN), np.int64)
        c_tier, c_code, c_move, row = buf[0], buf[1], buf[2], buf[3]
        for x in range(b * block, min(len(codes), (b + 1) * block)):
            side = decode(codes[x], k, sq)
            m = _successor_keys(side, k, men, sq, tier_of_key, tier_group, scratch,
                                c_tier, c_code, c_move, row)  # fmt: skip
            if count_only:
                ptr[x] = m
                value[x] = -1.0 if _mated(side, k, men, sq, m) else 0.0
            else:
                for c in range(m):
                    key = row[c]
                    t = key >> CODE_BITS
                    at = node_of[tier_base[t] + (key & ((1 << CODE_BITS) - 1))] if t >= 0 else -1
                    idx[ptr[x] + c] = at


@njit(cache=True)
def fen_bytes(side: int, k: int, men: np.ndarray, sq: np.ndarray, out: np.ndarray) -> None:
    """The FEN of a position (no castling, no en passant, counters ``0 1``) as ASCII bytes."""
    board = np.zeros(64, np.int64)
    for i in range(k):
        board[sq[i]] = men[i]
    letters = " KQRBNP  kqrbnp"
    n = 0
    for r in range(7, -1, -1):
        gap = 0
        for f in range(8):
            m = board[r * 8 + f]
            if m == 0:
                gap += 1
                continue
            if gap:
                out[n] = 48 + gap
                n += 1
                gap = 0
            out[n] = ord(letters[m])
            n += 1
        if gap:
            out[n] = 48 + gap
            n += 1
        if r:
            out[n] = 47  # "/"
            n += 1
    tail = " w - " if side == 0 else " b - "
    for ch in tail:
        out[n] = ord(ch)
        n += 1
    if sq[EP]:  # the square the pawn passed: rank 6 with White to move, 3 with Black
        out[n] = ord("a") + sq[EP] - 1
        out[n + 1] = ord("6") if side == 0 else ord("3")
        out[n + 2] = 32
        n += 3
    else:
        out[n] = ord("-")
        out[n + 1] = 32
        n += 2
    for ch in "0 1":
        out[n] = ord(ch)
        n += 1
    for c in range(n, len(out)):
        out[c] = 0


@njit(cache=True)
def fens(
    codes: np.ndarray, tier_base: np.ndarray, tier_k: np.ndarray, tier_men: np.ndarray
) -> np.ndarray:
    """FENs of global codes (tier base + position code), one row of ``FEN_BYTES`` each."""
    out = np.zeros((len(codes), FEN_BYTES), np.uint8)
    sq = np.empty(SLOTS, np.int64)
    for x in range(len(codes)):
        t = np.searchsorted(tier_base, codes[x], side="right") - 1
        k = tier_k[t]
        side = decode(codes[x] - tier_base[t], k, sq)
        fen_bytes(side, k, tier_men[t], sq, out[x])
    return out


@njit(cache=True, parallel=True)
def check_codes(
    codes: np.ndarray,
    tier_base: np.ndarray,
    tier_k: np.ndarray,
    tier_men: np.ndarray,
    tier_group: np.ndarray,
) -> int:
    """The first index whose global code is no position of the case's tiers (not legal, not
    the least of its class, beyond the last tier, or not above the code before it); -1."""
    bad = np.full(len(codes), False)
    block = 1 << 14
    for b in prange((len(codes) + block - 1) // block):
        sq = np.empty(SLOTS, np.int64)
        tmp = np.empty(SLOTS, np.int64)
        for x in range(b * block, min(len(codes), (b + 1) * block)):
            c = codes[x]
            if c < 0 or c >= tier_base[-1] or (x > 0 and codes[x - 1] >= c):
                bad[x] = True
                continue
            t = np.searchsorted(tier_base, c, side="right") - 1
            k, men = tier_k[t], tier_men[t]
            side = decode(c - tier_base[t], k, sq)
            if (
                not legal(side, k, men, sq)
                or canonical(side, k, men, sq, tier_group[t], tmp) != c - tier_base[t]
            ):
                bad[x] = True
    hit = np.flatnonzero(bad)
    return hit[0] if len(hit) else -1


@njit(cache=True, parallel=True)
def orbit_sizes(
    codes: np.ndarray,
    tier_base: np.ndarray,
    tier_k: np.ndarray,
    tier_men: np.ndarray,
    tier_group: np.ndarray,
) -> np.ndarray:
    """How many positions each class (by its least global code) stands for."""
    out = np.ones(len(codes), np.int64)
    block = 1 << 14
    for b in prange((len(codes) + block - 1) // block):
        sq = np.empty(SLOTS, np.int64)
        tmp = np.empty(SLOTS, np.int64)
        for x in range(b * block, min(len(codes), (b + 1) * block)):
            t = np.searchsorted(tier_base, codes[x], side="right") - 1
            k = tier_k[t]
            side = decode(codes[x] - tier_base[t], k, sq)
            out[x] = orbit_size(side, k, tier_men[t], sq, tier_group[t], tmp)
    return out
