"""Chess endgames of up to four men on the 8x8 board, with the real rules, named by FEN.

``generate("KQKR")`` builds every legal position of the material (White's men first: ``KQKR``
is king and queen against king and rook), either side to move, together with every material a
capture or a promotion leads to: each material is a *tier*, and a move leaves its tier only
into a smaller one (a capture) or one with a piece for a pawn (a promotion). The rules:

- a position is legal when the men stand on distinct squares, no pawn stands on the first or
  last rank and the side not to move is not in check (so the kings are apart);
- kings, queens, rooks, bishops and knights move and capture as in chess (no man captures a
  king); pawns push one square, two from their first rank, capture diagonally and promote on
  the last rank to a queen, rook, bishop or knight (four moves); no castling;
- a move that leaves the mover's king attacked is not a move;
- a side without moves is mated (in check: lost, the default label of a ``normal`` game) or
  stalemated (a draw); a position where neither side has mating material (python-chess's
  ``is_insufficient_material``: bare kings, a lone minor piece, bishops all on one colour) is a
  drawn end, whoever is to move.

En passant: after a pawn's double step, the other side may take it as if it had moved one
square, on the next move only. A position where that capture is possible (a legal move) holds
the file in its code and the square in its FEN (``8/8/8/1pP5/8/8/8/K6k w - b6 0 1``), as
python-chess writes FENs; a double step that no pawn can answer leaves ``-``. Only materials
with pawns of both colours (``KPKP``) have such positions.

Depth to mate is the remoteness of retrograde analysis in plies: a won position at remoteness
``r`` is mate in ``(r + 1) / 2`` moves, across captures and promotions.

Names: the FEN of the position with no castling rights, the en-passant square where a capture
can use it and counters
``0 1`` (``"8/8/8/8/8/8/8/KQ4kr w - - 0 1"``). A name is looked up by parsing it, so any FEN
of the position finds it (other counters, an en-passant square no capture can use, and with
``symmetry`` any image of the class). Positions are stored as codes: a material's position code
(see ``_chess_kernels``) plus the material's base, the sum of the code ranges of the tiers
before it; node ids follow the codes.

``symmetry``: a position and its images under the board's symmetries are one node, the least
code representing them: the 8 symmetries of the square without pawns, the mirror a<->h with
pawns (each tier by its own men).

Examples
--------
>>> case = generate("KQK")
>>> case.graph.name(case.graph.id_of("8/8/8/8/8/8/8/KQ5k b - - 0 1"))
'8/8/8/8/8/8/8/KQ5k b - - 0 1'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.games._board import LazyNames, normal_case_csr
from verifier.games.registry import SYMMETRY, BuiltinGame, Codec, Facts, TieredForm
from verifier.model import Case
from verifier.model.graph import index_dtype
from verifier.progress import report

__all__ = [
    "Material",
    "Tiers",
    "codec_names",
    "generate",
    "longest_wins",
    "orbit_sizes",
    "parse_material",
    "tiers",
]

LETTERS = "KQRBNP"
"""Piece letters in man order: a man is ``colour * 8 + 1 + LETTERS.index(letter)``."""
_BLACK = 8
_PAWN = 6
MAX_MEN = 4

Material = tuple[int, ...]
"""The men of a material in increasing man code (White's king first)."""


def parse_material(spec: str) -> Material:
    """``"KQKR"`` -> its men; ``ValueError`` saying what is wrong."""
    s = spec.strip().upper()
    cut = s.find("K", 1)
    if not s.startswith("K") or cut < 0 or "K" in s[cut + 1 :]:
        raise ValueError(f"material {spec!r}: White's men then Black's, each starting with K")
    bad = sorted(set(s) - set(LETTERS))
    if bad:
        raise ValueError(f"material {spec!r}: unknown piece {bad[0]!r} (pieces: {LETTERS})")
    if len(s) > MAX_MEN:
        raise ValueError(f"material {spec!r}: at most {MAX_MEN} men")
    men = [1 + LETTERS.index(c) for c in s[:cut]] + [_BLACK + 1 + LETTERS.index(c) for c in s[cut:]]
    return tuple(sorted(men))


def material_name(men: Material) -> str:
    white = "".join(LETTERS[m - 1] for m in men if m < _BLACK)
    return white + "".join(LETTERS[m - _BLACK - 1] for m in men if m >= _BLACK)


def _smaller(men: Material) -> list[Material]:
    """The materials one move leads to: a non-king man captured, a pawn promoted."""
    out: list[Material] = []
    for i, m in enumerate(men):
        if m & 7 != 1:
            out.append(men[:i] + men[i + 1 :])
        if m & 7 == _PAWN:
            colour = m & _BLACK
            for p in range(2, 6):
                out.append(tuple(sorted((*men[:i], colour + p, *men[i + 1 :]))))
    return out


@dataclass(frozen=True, eq=False)
class Tiers:
    """The materials of a case (the requested one first, then every material a capture or a
    promotion reaches, breadth-first) and the arrays the kernels read."""

    materials: tuple[Material, ...]
    symmetric: bool
    base: NDArray[np.int64]
    """``base[t]``: the first global code of tier ``t``; ``base[-1]``: the end."""
    k: NDArray[np.int64]
    men: NDArray[np.int64]
    """``(tiers, 4)``, rows padded with 0."""
    group: NDArray[np.int64]
    """How many of the kernels' symmetries each tier uses (1, 2 with pawns, or 8)."""
    of_key: NDArray[np.int64]
    """Tier of a material key (its men as base-16 digits), -1 for materials not here."""

    @property
    def codec(self) -> str:
        return f"chess:{material_name(self.materials[0])}" + (
            ":symmetric" if self.symmetric else ""
        )


@cache
def tiers(material: str, symmetric: bool = False) -> Tiers:
    first = parse_material(material)
    order, seen = [first], {first}
    for men in order:
        for m in _smaller(men):
            if m not in seen:
                seen.add(m)
                order.append(m)
    t = len(order)
    k = np.array([len(m) for m in order], np.int64)
    base = np.zeros(t + 1, np.int64)
    both = [any(m == 6 for m in x) and any(m == _BLACK + 6 for m in x) for x in order]
    np.cumsum(np.where(both, 18, 2) * 64**k, out=base[1:])  # kernels' code_range
    table = np.zeros((t, MAX_MEN), np.int64)
    of_key = np.full(16**MAX_MEN, -1, np.int64)
    group = np.ones(t, np.int64)
    for i, m in enumerate(order):
        table[i, : len(m)] = m
        key = 0
        for x in m:
            key = key * 16 + x
        of_key[key] = i
        if symmetric:
            group[i] = 2 if any(x & 7 == _PAWN for x in m) else 8
    return Tiers(tuple(order), symmetric, base, k, table, group, of_key)


def _kernels() -> Any:
    from verifier.kernel_cache import announce

    announce(_KERNELS, "the chess kernels")  # the first run compiles them: said, once
    from verifier.games import _chess_kernels

    return _chess_kernels


_KERNELS = "verifier.games._chess_kernels"


class _Namer:
    """FENs of global codes (numba), and a FEN's node id (parsed, canonical, looked up)."""

    def __init__(self, t: Tiers, codes: NDArray[np.uint64]) -> None:
        self.t, self.codes = t, codes
        self._signed = codes.view(np.int64)

    def all(self, codes: NDArray[Any]) -> NDArray[np.bytes_]:
        ck, t = _kernels(), self.t
        rows = ck.fens(np.asarray(codes, np.int64), t.base, t.k, t.men)
        out: NDArray[np.bytes_] = rows.view(f"S{ck.FEN_BYTES}").ravel()
        return out

    def one(self, code: int) -> str:
        return str(self.all(np.array([code]))[0].decode("ascii"))

    def lookup(self, name: object) -> int | None:
        code = self.code_of(name)
        if code is None:
            return None
        i = int(np.searchsorted(self._signed, code))
        return i if i < len(self._signed) and int(self._signed[i]) == code else None

    def code_of(self, name: object) -> int | None:
        """The global code of the class of a FEN, or None (not a FEN, not this case's)."""
        if not isinstance(name, str):
            return None
        fields = name.split()
        if not 2 <= len(fields) <= 6 or fields[1] not in ("w", "b"):
            return None
        if len(fields) > 2 and fields[2] != "-":
            return None  # castling rights: not a position of these games
        ep = fields[3] if len(fields) > 3 else "-"
        if ep != "-" and not (len(ep) == 2 and ep[0] in "abcdefgh" and ep[1] in "36"):
            return None
        ranks = fields[0].split("/")
        if len(ranks) != 8:
            return None
        placed: list[tuple[int, int]] = []
        for r, row in enumerate(reversed(ranks)):
            f = 0
            for c in row:
                if c.isdigit() and c != "0":
                    f += int(c)
                elif c.upper() in LETTERS and f < 8:
                    colour = 0 if c.isupper() else _BLACK
                    placed.append((colour + 1 + LETTERS.index(c.upper()), r * 8 + f))
                    f += 1
                else:
                    return None
            if f != 8:
                return None
        if not 2 <= len(placed) <= MAX_MEN:
            return None
        placed.sort()
        key = 0
        for m, _ in placed:
            key = key * 16 + m
        tier = int(self.t.of_key[key])
        if tier < 0:
            return None
        ck = _kernels()
        men = self.t.men[tier]
        sq = np.array([s for _, s in placed] + [0] * (ck.SLOTS - len(placed)), np.int64)
        side, k = "wb".index(fields[1]), len(placed)
        if ep != "-" and ep[1] == "63"[side]:
            sq[ck.EP] = "abcdefgh".index(ep[0]) + 1
            if not ck.legal(side, k, men, sq):
                sq[ck.EP] = 0  # no capture can use it: the same position as without (FEN)
        if not ck.legal(side, k, men, sq):
            return None
        tmp = np.empty(ck.SLOTS, np.int64)
        return int(self.t.base[tier]) + int(ck.canonical(side, k, men, sq, self.t.group[tier], tmp))


def _names(t: Tiers, codes: NDArray[np.uint64]) -> LazyNames:
    namer = _Namer(t, codes)
    return LazyNames(codes, namer.one, namer.all, codec=t.codec, lookup=namer.lookup)


def generate(material: str = "KQKR", symmetry: bool = False) -> Case:
    """Every legal position of ``material`` and of the materials it leads to (module docstring).

    Raises ``ValueError`` for a material this module does not play.
    """
    t = tiers(material, bool(symmetry))
    ck = _kernels()
    node_of = np.full(int(t.base[-1]), -1, np.int32)
    codes: list[NDArray[np.int64]] = []
    first = [0]
    for i in range(len(t.materials)):
        local = np.flatnonzero(ck.tier_positions(int(t.k[i]), t.men[i], int(t.group[i])))
        node_of[t.base[i] + local] = np.arange(first[-1], first[-1] + len(local), dtype=np.int32)
        codes.append(local)
        first.append(first[-1] + len(local))
        report("materials listed", i + 1, len(t.materials))
    n = first[-1]
    _fits(t, n)
    counts = np.zeros(n, np.int64)
    value = np.zeros(n, np.float64)
    none = np.zeros(0, np.int32)
    for i, local in enumerate(codes):  # a chunk at a time: a progress report after each
        for a in range(0, len(local), CHUNK):
            sl = slice(first[i] + a, first[i] + min(a + CHUNK, len(local)))
            ck.tier_moves(local[a : a + CHUNK], int(t.k[i]), t.men[i], t.of_key, t.group,
                          t.base, node_of, counts[sl], none, value[sl], True)  # fmt: skip
            report("positions whose moves are counted", sl.stop, n)
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=ptr[1:])
    del counts
    idx: NDArray[Any] = np.empty(int(ptr[-1]), index_dtype(n))
    for i, local in enumerate(codes):
        for a in range(0, len(local), CHUNK):
            sl = slice(first[i] + a, first[i] + min(a + CHUNK, len(local)) + 1)
            ck.tier_moves(local[a : a + CHUNK], int(t.k[i]), t.men[i], t.of_key, t.group,
                          t.base, node_of, ptr[sl], idx, value, False)  # fmt: skip
            report("positions whose moves are written", sl.stop - 1, n)
    del node_of
    if len(idx) and int(idx.min()) < 0:  # a move into no position would be a bug in the rules
        raise AssertionError(f"{material}: a move leads to a position the tiers do not hold")
    glob = np.concatenate([t.base[i] + c for i, c in enumerate(codes)]).astype(np.uint64)
    name = material_name(t.materials[0])
    sym = ", symmetry=True" if symmetry else ""
    return normal_case_csr(
        _names(t, glob),
        ptr,
        idx,
        value,
        case_id=f"chess-{name.lower()}" + ("-symmetric" if symmetry else ""),
        source=f"verifier.games.chess (material={name}{sym})",
        description=f"chess endgame {name} and every material it leads to "
        f"({', '.join(material_name(m) for m in t.materials[1:]) or 'none'}), either side to "
        "move; mate is lost for the mated side, stalemate and insufficient material draws"
        + ("; positions up to the board's symmetries" if symmetry else ""),
    )


CHUNK = 1 << 18
"""Positions per call of the moves kernel (64 of its parallel blocks): the progress lines of
``generate chess:KQRK`` (21 million positions, minutes) move every second or so."""

MOVES_PER_POSITION = 16
"""About how many moves a position has, to foresee the memory (KQKR 16.3, KRKP 13.0 measured)."""


def _fits(t: Tiers, n: int) -> None:
    """``ValueError`` (one line) unless building the graph of ``n`` positions fits in this
    machine's share of memory: per position its code, move pointer, count and value (32
    bytes), per move 4 bytes, and 4 per code of the tiers' ranges (the node table)."""
    from verifier.io.limits import DEFAULT_MEMORY_SHARE, memory_bytes

    moves = MOVES_PER_POSITION * n
    need = 32 * n + 4 * moves + 4 * int(t.base[-1])
    have = int(memory_bytes() * DEFAULT_MEMORY_SHARE)
    if need > have:
        name = material_name(t.materials[0])
        hint = "" if t.symmetric else "; --symmetry joins positions 2 to 8 at a time"
        raise ValueError(
            f"chess:{name}: {n:,} positions in {len(t.materials)} materials and about "
            f"{moves:,} moves need about {_size(need)} to build, more than {_size(have)} "
            f"({DEFAULT_MEMORY_SHARE:.0%} of this machine's memory){hint}"
        )


def _size(n: int) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


_CODEC = "chess:"


def codec_names(codec: str, codes: NDArray[Any]) -> LazyNames:
    """The names of a stored case's codes under a ``chess:MATERIAL[:symmetric]`` codec
    (``ValueError`` unless every code is a position of the case's tiers, increasing)."""
    parts = codec[len(_CODEC) :].split(":")
    if not codec.startswith(_CODEC) or len(parts) > 2 or parts[1:] not in ([], ["symmetric"]):
        raise ValueError(f"unknown name codec {codec!r}")
    t = tiers(parts[0], len(parts) == 2)
    if codes.ndim != 1 or codes.dtype != np.uint64:
        raise ValueError(f"name codes must be a 1-d uint64 array, got {codes.dtype}{codes.shape}")
    bad = int(_kernels().check_codes(codes.view(np.int64), t.base, t.k, t.men, t.group))
    if bad >= 0:
        raise ValueError(f"code {int(codes[bad])} at {bad} is no {codec} position (or repeats)")
    return _names(t, codes)


def _tiers_of(case: Case) -> tuple[Tiers, NDArray[np.int64]] | None:
    names = case.graph.names
    codec = getattr(names, "codec", None)
    if not isinstance(names, LazyNames) or not codec or not codec.startswith(_CODEC):
        return None
    parts = codec[len(_CODEC) :].split(":")
    return tiers(parts[0], len(parts) == 2), names.codes.view(np.int64)


def orbit_sizes(case: Case) -> NDArray[np.int64] | None:
    """How many positions each node of a symmetric chess case stands for (else None)."""
    found = _tiers_of(case)
    if found is None or not found[0].symmetric:
        return None
    t, codes = found
    sizes: NDArray[np.int64] = _kernels().orbit_sizes(codes, t.base, t.k, t.men, t.group)
    return sizes


def longest_wins(case: Case, labels: NDArray[Any], remoteness: NDArray[Any]) -> dict[str, Any]:
    """Per side to move (``white`` / ``black``): the longest win in plies over the won
    positions, ``mate_in`` moves, and up to three such positions by FEN; ``materials``: per material
    and side to move the positions won / lost / drawn (for the side to move), counted over
    positions (each class by its size, with symmetry)."""
    found = _tiers_of(case)
    if found is None:
        return {}
    t, codes = found
    tier = np.searchsorted(t.base, codes, side="right") - 1
    black = (((codes - t.base[tier]) >> (6 * t.k[tier])) & 1) == 1
    lab, rem = np.sign(np.asarray(labels)), np.asarray(remoteness)
    out: dict[str, Any] = {}
    for side, mask in (("white", ~black), ("black", black)):
        won = mask & (lab > 0) & (rem >= 0)
        if not won.any():
            out[side] = None
            continue
        r = int(rem[won].max())
        where = np.flatnonzero(won & (rem == r))
        out[side] = {
            "plies": r,
            "mate_in": (r + 1) // 2,
            "positions": len(where),
            "examples": [case.graph.name(int(x)) for x in where[:3]],
        }
    weight = orbit_sizes(case) if t.symmetric else np.ones(len(codes), np.int64)
    assert weight is not None
    per: dict[str, dict[str, dict[str, int]]] = {}
    for i, men in enumerate(t.materials):
        sel = tier == i
        per[material_name(men)] = {
            side: {
                "positions": int(weight[sel & mask].sum()),
                "won": int(weight[sel & mask & (lab > 0)].sum()),
                "lost": int(weight[sel & mask & (lab < 0)].sum()),
                "drawn": int(weight[sel & mask & (lab == 0)].sum()),
            }
            for side, mask in (("white", ~black), ("black", black))
        }
    out["materials"] = per
    return out


def summary_lines(block: dict[str, Any]) -> list[str]:
    """``longest win, White to move: mate in 28 (55 plies), 2 position(s), e.g. FEN``."""
    out = []
    for side in ("white", "black"):
        w = block.get(side)
        if isinstance(w, dict):
            out.append(
                f"longest win, {side.capitalize()} to move: mate in {w['mate_in']} "
                f"({w['plies']} plies), {w['positions']} position(s), e.g. {w['examples'][0]}"
            )
    return out


GAME = BuiltinGame(
    "chess",
    "chess endgame of up to 4 men on 8x8 (White's men first, e.g. chess:KQKR) with every "
    "material it leads to; positions named by FEN",
    generate,
    options=(SYMMETRY,),
    argument="MATERIAL",
    class_sizes=lambda case: orbit_sizes(case) if case.id.startswith("chess-") else None,
    codec=Codec("chess:MATERIAL[:symmetric]", codec_names),
    facts=Facts("chess", lambda case: case.id.startswith("chess-"), longest_wins, summary_lines),
    order=55,
    tiers=TieredForm(
        "chess",
        "verifier.games.tiered.chess_generate:generate_tiers",
        rules="verifier.games.tiered.chess:ChessTiers",
        resume="after its last step",
        again=lambda p: f"chess:{p['material']}" if p.get("material") else None,
        source=(r"verifier\.games\.chess \(material=(\w+)(, symmetry=True)?\)", "chess:{0}"),
        solved="verifier.games.tiered.chess_report:longest_wins",
        solved_lines="verifier.games.tiered.chess_report:wins_text",
        witnesses="verifier.games.tiered.chess_report:name_witnesses",
        classes="positions up to the board's symmetries",
        holds="the legal {kind} of its materials and their legal moves",
        positions="verifier.games.tiered.chess_check:check_positions",
        spans="verifier.games.tiered.chess_check:check_spans",
        order="verifier.games.tiered.chess:catalog_order",
        names="verifier.games.tiered.chess:position_names",
    ),
    kernels=("verifier.games._chess_kernels", "the chess kernels"),
)
"""No protocol version and no examples: python-chess is this game's independent oracle
(``tests/games/test_chess.py``)."""
