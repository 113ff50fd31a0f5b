"""The standalone checker's judgement of a chess endgame dataset (``"game": "chess"``, docs/
certificates.md, "Datasets"): a stored graph of one tier per material, judged as any stored
graph (``stored.py``: its shape, normal play's N1-N4, the counts) and, before the answers,
position by position against python-chess, the checker's independent move generator.

The materials are derived here from the requested one (``name_codecs``: breadth-first, each a
capture or a promotion leads to), in the dataset's order (more men first, then more pawns, then
the breadth-first order). Each node's ``position`` (its material code, ``name_codecs``' layout)
is decoded into a python-chess ``Board`` (side to move, no castling, the en-passant square the
code gives), and judged:

- ``position``: a position of the material (distinct squares, men of one kind in increasing
  square), legal for python-chess (``Board.status()`` with no flag but ``STATUS_IMPOSSIBLE_
  CHECK``: the dataset holds every position whose side not to move is not in check, reachable
  or not), an en-passant file only where that capture is a legal move;
- ``canonical``: under ``symmetric``, the least code of its images (the checker's own);
- ``moves``: its stored moves (edges and exits) exactly python-chess's ``legal_moves``, each
  mapped to (material tier, canonical code) by the checker (captures into the captured
  material, promotions to each piece), none when the material is insufficient;
- ``terminal``: -1 iff checkmate, else 0 (stalemate, insufficient material, or moves). The
  drawn dead ends by insufficient material are the package's rule (docs: python-chess's
  ``Board.is_insufficient_material()``: bare kings, a lone minor piece, bishops all on one
  colour), taken from python-chess once, here;
- ``complete``: per material, the positions strictly increasing and exactly the legal
  (canonical) codes the checker enumerates itself (``name_codecs``' legality, vectorized over
  every code of the material).

Shard by shard, after ``stored.py``'s pass (the graph well formed): a job per shard
(``--jobs N``: in N processes, ``workers.py``; the first violation in the shards' order, the
same for any N) decodes the shard's positions, maps its stored moves (edges and exits) to
(tier, code) keys through the positions of the shards they reach (``dataset.Cache``,
``CACHE_BYTES``), compares them with python-chess's a block of positions at a time, and
enumerates the shard's own range of codes for ``complete`` (the shards partition a tier's
sorted codes). Memory per job: one shard's moves and positions, never the graph's (``PEAK``).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import numpy as np

try:  # imported as the package ``checker``, or run as a script from its folder
    from checker import dataset, name_codecs, stages, stored, workers
    from checker.dataset import WEAK, Bad, Found, Verdict
    from checker.reading import loads
except ImportError:  # pragma: no cover - the script's way
    import dataset  # type: ignore[import-not-found,no-redef]
    import name_codecs  # type: ignore[import-not-found,no-redef]
    import stages  # type: ignore[import-not-found,no-redef]
    import stored  # type: ignore[import-not-found,no-redef]
    import workers  # type: ignore[import-not-found,no-redef]
    from dataset import WEAK, Bad, Found, Verdict  # type: ignore[no-redef]
    from reading import loads  # type: ignore[import-not-found,no-redef]

GAMES = ("chess",)
"""The games judged here."""
PIECE = {1: 6, 2: 5, 3: 4, 4: 3, 5: 2, 6: 1}
"""A man's type (``KQRBNP`` = 1..6) -> python-chess's piece type (pawn 1 .. king 6)."""
MAN = {v: k for k, v in PIECE.items()}
PAWN = name_codecs.PAWN
BLOCK = 1 << 13
"""Positions whose moves are generated, encoded and compared at once."""
SCAN = 1 << 20
"""Material codes enumerated at once (``complete``)."""
KEY = 40
"""A move's target as ``tier << KEY | material code`` (a material code is below 2^29)."""


def _python_chess() -> Any:
    """python-chess (run as a script from its folder, this module is ``chess`` too: the
    folder is left out of the search while python-chess is imported)."""
    mod = sys.modules.get("chess", False)
    if mod is None:  # an import Python was told to refuse
        raise Bad("python-chess is needed to judge chess datasets (pip install chess)")
    if mod is not False and hasattr(mod, "Board"):
        return mod
    here, path = os.path.dirname(os.path.abspath(__file__)), sys.path[:]
    mine = sys.modules.pop("chess", None)
    sys.path[:] = [p for p in path if os.path.abspath(p or os.curdir) != here]
    try:
        return importlib.import_module("chess")
    except ImportError:
        raise Bad("python-chess is needed to judge chess datasets (pip install chess)") from None
    finally:
        sys.path[:] = path
        if mine is not None:
            sys.modules["chess"] = mine


def missing() -> str | None:
    """Why this checker cannot judge a chess dataset here (python-chess missing), or None."""
    try:
        _python_chess()
    except Bad as e:
        return str(e)
    return None


def _first(bad: Any) -> int | None:
    at = np.flatnonzero(bad)
    return int(at[0]) if at.size else None


class Materials:
    """The dataset's materials as this checker derives them, in dataset order: per tier its
    men, the base of its global codes (``name_codecs``) and its number of codes."""

    def __init__(self, material: str, symmetric: bool) -> None:
        codec = name_codecs._chess(f"chess:{material}" + (":symmetric" if symmetric else ""))
        if codec is None:
            why = f"{material!r} is not a material of at most four men (KQK, KRKP, ...)"
            raise Bad(f"$.parameters.material: {why}")
        t, self.codec, self.symmetric = codec.tiers, codec, symmetric

        def key(i: int) -> tuple[int, int, int]:
            return (-len(t[i]), -sum(m & 7 == PAWN for m in t[i]), i)

        order = sorted(range(len(t)), key=key)
        self.men = [t[i] for i in order]
        self.tier_of = {men: k for k, men in enumerate(self.men)}
        self.base = [int(codec.base[i]) for i in order]
        self.span = [int(codec.base[i + 1] - codec.base[i]) for i in order]

    def name(self, k: int) -> str:
        men = self.men[k]
        return "".join(name_codecs.LETTERS[(m & 7) - 1] for m in men)

    def fens(self, k: int, local: Any) -> list[str]:
        glob = np.asarray(local, np.uint64) + np.uint64(self.base[k])
        return [x.decode() for x in self.codec.names(glob).tolist()]

    def decoded(self, k: int, local: Any) -> tuple[Any, Any, Any]:
        """``(squares (n, men), side, ep)`` of material codes of tier ``k``."""
        n, c = len(self.men[k]), np.asarray(local, np.int64)
        sq = np.stack([(c >> (6 * (n - 1 - i))) & 63 for i in range(n)], axis=1)
        return sq, (c >> (6 * n)) & 1, c >> (6 * n + 1)

    def canonical(self, k: int, sq: Any, side: Any, ep: Any) -> Any:
        """The code standing for each position: the least of its images' under ``symmetric``
        (the identity's else: men of one kind in increasing square)."""
        men = self.men[k]
        group = [(0, 0, 0)]
        if self.symmetric:
            group = name_codecs.PAWNS if any(m & 7 == PAWN for m in men) else name_codecs.ALL
        images = [self.codec._image(g, men, sq.copy(), side, ep) for g in group]
        return np.min(np.stack(images, axis=1), axis=1)

    def shaped(self, k: int, local: Any, sq: Any, ep: Any) -> Any:
        """Codes that are positions of the material: in its range, distinct squares, men of one
        kind in increasing square, an en-passant file only with pawns of both colours."""
        men = self.men[k]
        ok = local < np.uint64(self.span[k])
        for i in range(len(men)):
            for j in range(i):
                ok &= sq[:, i] != sq[:, j]
            if i and men[i] == men[i - 1]:
                ok &= sq[:, i] > sq[:, i - 1]
        return ok & (ep <= 8)


def _board(chess: Any, b: Any, men: tuple[int, ...], sq: list[int], side: int, ep: int) -> None:
    """Set python-chess's board ``b`` to the position (no castling rights)."""
    b.clear()
    for m, s in zip(men, sq, strict=True):
        b.set_piece_at(s, chess.Piece(PIECE[m & 7], m < 8))
    b.turn = side == 0
    b.castling_rights = 0
    b.ep_square = None if not ep else (40 if side == 0 else 16) + ep - 1


class Moves:
    """Legal moves of python-chess's as flat columns: the position (its row in the block),
    from and to squares, the promotion (python-chess's piece type, 0 none) and the target's
    en-passant file + 1 (0: none)."""

    def __init__(self) -> None:
        self.row: list[int] = []
        self.frm: list[int] = []
        self.to: list[int] = []
        self.promo: list[int] = []
        self.ep: list[int] = []

    def add(self, r: int, b: Any, both_pawns: bool) -> int:
        """Position ``r``'s legal moves (``b``: its board), none when the material is
        insufficient (a drawn dead end); how many."""
        if b.is_insufficient_material():
            return 0
        moves = list(b.legal_moves)
        self.row += [r] * len(moves)
        self.frm += [m.from_square for m in moves]
        self.to += [m.to_square for m in moves]
        self.promo += [m.promotion or 0 for m in moves]
        for m in moves:  # a double step: the other side may take en passant after it
            ep = 0
            if (
                both_pawns
                and abs(m.to_square - m.from_square) == 16
                and b.piece_type_at(m.from_square) == PIECE[PAWN]
            ):
                b.push(m)
                ep = m.to_square % 8 + 1 if b.has_legal_en_passant() else 0
                b.pop()
            self.ep.append(ep)
        return len(moves)

    def keys(self, mats: Materials, k: int, sq: Any, side: Any, ep: Any) -> Any:
        """Each move's target as ``tier << KEY | canonical code`` (tier -1: a material not
        the dataset's): the mover on its square (promoted), the man taken off (on the target
        square, or behind it en passant), the men in the target material's order."""
        men = np.array(mats.men[k], np.int64)
        r, f, t = (np.array(x, np.int64) for x in (self.row, self.frm, self.to))
        promo, e = np.array(self.promo, np.int64), np.array(self.ep, np.int64)
        psq = sq[r]
        i = np.argmax(psq == f[:, None], axis=1)
        mover = men[i]
        passing = (mover & 7 == PAWN) & (ep[r] > 0) & (t % 8 == ep[r] - 1) & (t // 8 != f // 8)
        passing &= ~(psq == t[:, None]).any(axis=1)
        taken = np.where(passing, np.where(side[r] == 0, t - 8, t + 8), t)
        hit = psq == taken[:, None]
        c = np.where(hit.any(axis=1), np.argmax(hit, axis=1), -1)
        man = np.where(promo > 0, (mover & 8) + np.array([0, 6, 5, 4, 3, 2, 1])[promo], mover)
        out = np.zeros(len(r), np.int64)
        group = np.stack([i, c, man], axis=1)
        kinds, which = np.unique(group, axis=0, return_inverse=True)
        for g, (gi, gc, gm) in enumerate(kinds.tolist()):
            sel = np.flatnonzero(which.ravel() == g)
            cols = [j for j in range(len(men)) if j != gc]
            child = [gm if j == gi else int(men[j]) for j in cols]
            perm = sorted(range(len(cols)), key=lambda x: child[x])
            k2 = mats.tier_of.get(tuple(child[x] for x in perm), -1)
            if k2 < 0:
                out[sel] = -1
                continue
            csq = psq[sel][:, cols]
            csq[:, cols.index(gi)] = t[sel]
            code = mats.canonical(k2, csq[:, perm], 1 - side[r[sel]], e[sel])
            out[sel] = (k2 << KEY) | code
        return r, out


class Judge:
    """A chess dataset's own conditions (``stored.Hooks``): its materials, read from the
    certificate once the graph is read, then its shards judged one job each (``shard_judged``,
    ``--jobs N``: in N processes, the first violation in the shards' order)."""

    def __init__(self) -> None:
        self.mats: Materials | None = None
        self.spec: stored.Spec | None = None

    def name(self, k: int, node: int) -> str | None:
        """The FEN of node ``node`` of tier ``k`` (its shard's positions read), or None."""
        spec, mats = self.spec, self.mats
        if spec is None or mats is None or not 0 <= k < len(spec.shards):
            return None
        bounds = stored._bounds(spec, k)
        if not 0 <= node < bounds[-1]:
            return None
        j = int(np.searchsorted(bounds, node, "right")) - 1
        try:
            at = node - int(bounds[j])
            return mats.fens(k, positions(spec, k, j)[at : at + 1])[0]
        except Exception:  # a name is a courtesy: the node's number stands
            return None

    def accepted(self, spec: stored.Spec) -> str:
        n, mats = sum(c[0] for c in spec.counts), self.mats
        what = ", ".join(mats.name(k) for k in range(len(mats.men))) if mats else ""
        return f"ACCEPTED ({n:,} positions of a chess endgame: {what}; moves by python-chess)"

    def extra(self, spec: stored.Spec, jobs: int = 1) -> None:
        """Every chess condition, shard by shard in ``jobs`` processes (``Found`` at the first
        violation in the dataset's order: tiers, shards, then a shard's positions block by
        block, its ``complete`` last)."""
        _python_chess()
        self.mats = mats = materials(spec)
        self.spec = spec
        _agree(spec, spec.parameters["material"], int(spec.parameters.get("symmetric", 0)))
        if len(spec.shards) != len(mats.men) and "complete" not in WEAK:
            names = ", ".join(mats.name(k) for k in range(len(mats.men)))
            why = f"{len(spec.shards)} tiers; {spec.parameters['material']} leads to "
            raise Found(-1, -1, -1, "complete", why + f"{len(mats.men)}: {names}")
        PEAK.update(moves=0, bytes=0, graph=0)
        todo = [(k, j) for k, t in enumerate(spec.shards) for j in range(len(t))]
        done = 0
        with workers.workers(jobs, _setup, (spec, set(WEAK))) as run:
            for (k, j), held in zip(todo, run(_job, todo), strict=True):
                moves, size = held
                PEAK.update(moves=max(PEAK["moves"], moves), bytes=max(PEAK["bytes"], size))
                PEAK["graph"] += moves
                done += spec.shards[k][j]["positions"]
                stages.step(f"tier {k} ({mats.name(k)}) shard {j}: moves by python-chess", done)


PEAK = {"moves": 0, "bytes": 0, "graph": 0}
"""The last judgement's most stored moves and bytes of arrays held at once by one job (its
shard's moves as read, its positions and dead ends, a block's moves keyed, the positions kept),
and the stored moves of every shard (the graph's)."""
_SPEC: list[stored.Spec] = []
_POSITIONS = dataset.Cache()
_MATERIALS: dict[tuple[Any, Any], Materials] = {}


def materials(spec: stored.Spec) -> Materials:
    """The dataset's materials as the certificate's ``parameters`` give them (once a process)."""
    p = spec.parameters
    material, sym = p.get("material"), p.get("symmetric", 0)
    if not isinstance(material, str) or sym not in (0, 1) or isinstance(sym, bool):
        raise Bad(f"$.parameters: material {material!r}, symmetric {sym!r}: not a chess one")
    if (material, sym) not in _MATERIALS:
        _MATERIALS[material, sym] = Materials(material, bool(sym))
    return _MATERIALS[material, sym]


def positions(spec: stored.Spec, k: int, j: int) -> Any:
    """Shard ``j`` of tier ``k``'s material codes, read or kept (``dataset.Cache``)."""
    read = stored._read
    return _POSITIONS.get((k, j), lambda: tuple(read(spec, k, j, "nodes", POSITION)))[0]


POSITION = {"position": "uint64"}


def _setup(spec: stored.Spec, weak: set[str]) -> None:
    WEAK.update(weak)
    _SPEC[:] = [spec]
    _POSITIONS.kept.clear()


def _job(kj: tuple[int, int]) -> tuple[int, int]:
    return shard_judged(_SPEC[0], *kj)


def shard_judged(spec: stored.Spec, k: int, j: int) -> tuple[int, int]:
    """Shard ``j`` of tier ``k`` against python-chess (``Found`` at its first violation):
    ``position``, ``canonical``, ``moves`` and ``terminal`` block by block, then ``complete``
    over its range of codes; ``(its stored moves, the most bytes of arrays held)``. Memory:
    this shard's files and moves as read, the positions of the shards its moves reach (kept
    while they fit ``CACHE_BYTES``), a block's moves keyed."""
    chess, mats = _python_chess(), materials(spec)
    lo = int(stored._bounds(spec, k)[j])
    pos, terminal = stored._read(spec, k, j, "nodes", POSITION | {"terminal": "int8"})
    parts = [(*stored._read(spec, k, j, "edges", stored.EDGE), None)]
    if "exits" in spec.shards[k][j]:
        x_src, x_tier, x_dst = stored._read(spec, k, j, "exits", stored.EXIT)
        parts.append((x_src, x_dst, x_tier))
    parts = [_by_position(*p) for p in parts]
    size = sum(v.nbytes for p in parts for v in p if v is not None) + pos.nbytes
    held, board = size + terminal.nbytes, chess.Board(None)
    for a in range(lo, lo + len(pos), BLOCK):
        b = min(lo + len(pos), a + BLOCK)
        moves = _stored_moves(spec, (k, j), pos, parts, (a, b))
        block = sum(v.nbytes for v in moves) + _POSITIONS.nbytes()
        held = max(held, size + terminal.nbytes + block)
        _block(chess, board, mats, (k, a), pos[a - lo : b - lo], moves, terminal[a - lo : b - lo])
    _complete(spec, mats, (k, j, lo), pos)
    return sum(len(p[0]) for p in parts), held


def _by_position(src: Any, dst: Any, tier: Any) -> tuple[Any, Any, Any]:
    """A shard's moves as read, ordered by their position (as well formed moves are: else
    sorted once, stably)."""
    if len(src) < 2 or bool((src[1:] >= src[:-1]).all()):
        return src, dst, tier
    o = np.argsort(src, kind="stable")
    return src[o], dst[o], None if tier is None else tier[o]


def _stored_moves(spec: stored.Spec, me: tuple[int, int], pos: Any, parts: Any,
                  nodes: tuple[int, int]) -> tuple[Any, Any]:  # fmt: skip
    """The stored moves (edges and exits: ``parts``) of nodes ``a .. b`` (``nodes``) as
    ``(position in the block, key)`` sorted, a key ``tier << KEY | material code`` of the
    target: the codes of the rows reached of each shard they reach."""
    (k, j), (a, b) = me, nodes
    src, to, dst = [], [], []
    for p_src, p_dst, p_tier in parts:
        x, y = np.searchsorted(p_src, [a, b])
        src.append(p_src[x:y].astype(np.int64))
        dst.append(p_dst[x:y].astype(np.int64))
        to.append(np.full(y - x, k, np.int64) if p_tier is None else p_tier[x:y].astype(np.int64))
    s, t, d = np.concatenate(src), np.concatenate(to), np.concatenate(dst)
    wide = max(len(shards) for shards in spec.shards) + 1
    shard = np.zeros(len(d), np.int64)
    for tier in np.unique(t).tolist():
        at = t == tier
        shard[at] = np.searchsorted(stored._bounds(spec, tier), d[at], "right") - 1
    group, code = t * wide + shard, np.empty(len(d), np.int64)
    for g in np.unique(group).tolist():
        tier, t_j = divmod(g, wide)
        sel = np.flatnonzero(group == g)
        codes = pos if (tier, t_j) == (k, j) else positions(spec, tier, t_j)
        code[sel] = codes[d[sel] - stored._bounds(spec, tier)[t_j]].astype(np.int64)
    keys = (t << KEY) | code
    order = np.lexsort((keys, s))
    return s[order] - a, keys[order]


def _block(chess: Any, board: Any, mats: Materials, at: tuple[int, int], local: Any,
           moves: Any, terminal: Any) -> None:  # fmt: skip
    """Positions ``local`` of tier ``k``, the first its node ``a`` (``at``: ``(k, a)``):
    ``position``, ``canonical``, ``moves`` (``moves``: the stored ones as (position in the
    block, key), sorted), ``terminal``."""
    k, a = at
    sq, side, ep = mats.decoded(k, local)
    shaped = mats.shaped(k, local, sq, ep)
    x = _first(~shaped) if "position" not in WEAK else None
    if x is not None:
        why = f"material code {local[x]} is no position of {mats.name(k)}"
        raise Found(k, -1, a + x, "position", why + " (squares, order of men, range)")
    if mats.symmetric and "canonical" not in WEAK:
        least = mats.canonical(k, np.where(shaped[:, None], sq, 0), side, ep)
        x = _first(shaped & (least != local.astype(np.int64)))
        if x is not None:
            why = f"an image of it has the smaller code {least[x]}: a symmetric dataset "
            raise Found(k, -1, a + x, "canonical", why + "stores the least")
    men = mats.men[k]
    both = {PAWN, 8 + PAWN} <= set(men)
    got = Moves()
    want_t = np.zeros(len(local), np.int8)
    rows = [(list(map(int, s)), int(d), int(e)) for s, d, e in zip(sq, side, ep, strict=True)]
    for r, (s, d, e) in enumerate(rows):
        _board(chess, board, men, s, d, e)
        if "position" not in WEAK:
            _legal(chess, board, e, k, a + r)
        if (
            not got.add(r, board, both)
            and board.is_checkmate()
            and not board.is_insufficient_material()
        ):
            want_t[r] = -1  # no moves: mated, else drawn (stalemate, insufficient material)
    parent, keys = got.keys(mats, k, sq, side, ep)
    x = _first(keys < 0) if "moves" not in WEAK else None
    if x is not None:
        why = "a legal move leads to a material not among the dataset's"
        raise Found(k, -1, a + int(parent[x]), "moves", why)
    o = np.lexsort((keys, parent))
    parent, keys = parent[o], keys[o]
    fresh = np.ones(len(keys), bool)
    fresh[1:] = (parent[1:] != parent[:-1]) | (keys[1:] != keys[:-1])  # images: one move
    x = _differ((parent[fresh], keys[fresh]), moves, len(local))
    if x is not None and "moves" not in WEAK:
        why = _why_moves(chess, board, mats, k, (sq[x : x + 1], side, ep, rows[x]), moves, x)
        raise Found(k, -1, a + x, "moves", why)
    x = _first(terminal != want_t) if "terminal" not in WEAK else None
    if x is not None:
        words = {-1: "checkmate", 0: "not checkmate (a draw if it has no moves)"}
        why = f"terminal {terminal[x]}; python-chess: {words[int(want_t[x])]}"
        raise Found(k, -1, a + x, "terminal", why + " (-1 iff checkmate)")


def _why_moves(chess: Any, board: Any, mats: Materials, k: int, row: Any, moves: Any,
               x: int) -> str:  # fmt: skip
    """Which move differs at a position whose stored moves are not python-chess's."""
    one, side, ep, (s, d, e) = row
    _board(chess, board, mats.men[k], s, d, e)
    got = Moves()
    got.add(0, board, True)
    _, keys = got.keys(mats, k, one, side[x : x + 1], ep[x : x + 1])
    ucis = [m.uci() for m in board.legal_moves] if got.row else []
    legal = dict(zip(keys.tolist(), ucis, strict=True))
    mine = set(moves[1][moves[0] == x].tolist())
    for key, uci in legal.items():
        if key not in mine:
            fen = mats.fens(key >> KEY, [key & ((1 << KEY) - 1)])[0]
            return f"python-chess's legal move {uci} (to {fen}) is not among its stored moves"
    key = min(mine - set(legal))
    fen = mats.fens(key >> KEY, [key & ((1 << KEY) - 1)])[0]
    dead = " (insufficient material: no moves)" if board.is_insufficient_material() else ""
    return f"its stored move to {fen} is no legal move of python-chess's{dead}"


def _complete(spec: stored.Spec, mats: Materials, me: tuple[int, int, int], have: Any) -> None:
    """The shard's positions exactly the codes the checker enumerates as legal (canonical)
    positions of the material in the shard's range: above the last code of the shards before
    it, up to its own last code (the tier's last shard: up to the material's last code). The
    shards' ranges partition the material's codes: the tier's positions strictly increase and
    are exactly the legal ones."""
    k, j, lo = me
    last = j == len(spec.shards[k]) - 1
    if "complete" in WEAK or not (len(have) or last):
        return
    before = (positions(spec, k, i) for i in range(j - 1, -1, -1))
    start = next((int(p[-1]) + 1 for p in before if len(p)), 0)
    end = mats.span[k] if last else min(mats.span[k], int(have[-1]) + 1)
    base = np.uint64(mats.base[k])
    legal = [np.zeros(0, np.uint64)]
    for a in range(start, end, SCAN):
        codes = np.arange(a, min(end, a + SCAN), dtype=np.uint64)
        bad, _ = mats.codec.check(codes + base)
        legal.append(codes[~bad])
    want = np.concatenate(legal)
    m = min(len(want), len(have))
    x = _first(want[:m] != have[:m])
    x = m if x is None and len(want) != len(have) else x
    if x is None:
        return
    if x < len(want) and (x >= len(have) or want[x] < have[x]):
        fen = mats.fens(k, want[x : x + 1])[0]
        why = f"the legal position {fen} (material code {want[x]}) is missing"
        raise Found(k, -1, -1, "complete", f"{mats.name(k)}: {why}")
    why = f"material code {have[x]}: not the next legal position of {mats.name(k)} "
    raise Found(k, -1, lo + x, "complete", why + "(the positions strictly increase, all legal)")


def _legal(chess: Any, board: Any, ep: int, k: int, node: int) -> None:
    """``Found`` (``position``, node ``node`` of tier ``k``) unless the board is legal for
    python-chess: no status flag but ``STATUS_IMPOSSIBLE_CHECK``, an en-passant square only
    where a legal move uses it."""
    st = int(board.status()) & ~int(chess.STATUS_IMPOSSIBLE_CHECK)
    flags = [f.name for f in chess.Status if f.value & st]
    if ep and not board.has_legal_en_passant():
        flags.append("an en-passant square no legal move uses")
    if flags:
        why = f"python-chess: not a legal position ({', '.join(str(f) for f in flags)})"
        raise Found(k, -1, node, "position", why)


def _differ(expected: tuple[Any, Any], got: tuple[Any, Any], n: int) -> int | None:
    """The first of ``n`` positions whose moves differ: ``(position, key)`` pairs, sorted."""
    (pe, ke), (ps, ks) = expected, got
    bad = np.bincount(pe, minlength=n) != np.bincount(ps, minlength=n)
    ok_e, ok_s = ~bad[pe], ~bad[ps]
    differ = ke[ok_e] != ks[ok_s]
    bad[pe[ok_e][differ]] = True
    return _first(bad)


def _agree(spec: stored.Spec, material: str, symmetric: int) -> None:
    """The certificate's material and symmetry are the manifest's."""
    path = f"{spec.root}/manifest.json"
    if "manifest" in WEAK:
        return
    try:
        with open(path, "rb") as f:
            p = loads(f.read())["parameters"]
        said = (p["material"], p.get("symmetric", 0))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise Bad(f"{path}: cannot read the manifest: {type(e).__name__}: {e}") from None
    if said != (material, symmetric):
        why = f"(material, symmetric) {said}, the certificate's {(material, symmetric)}"
        raise Found(-1, -1, -1, "manifest", why)


def is_chess(path: str) -> bool:
    """Whether the certificate in ``path`` is a chess dataset's."""
    return stored.is_stored(path, GAMES)


def check(root: str, cert: str, jobs: int = 1) -> Verdict:
    """The standalone checker's verdict on the chess dataset in ``root`` and its certificate
    (python-chess missing: BAD, exit 2)."""
    try:
        _python_chess()
    except Bad as e:
        return Verdict("BAD", f"{cert}: {e}")
    j = Judge()
    try:
        return stored.check(root, cert, jobs, stored.Hooks(j.extra, j.name, j.accepted))
    finally:
        _POSITIONS.kept.clear()
