"""Every game generator by the name the command line uses: ``generate(name, **options)``.

>>> generate("ladder", n=2).graph.n
10
>>> generate("subtraction:1,2", upto=5).semantics.value
'impartial'
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

from verifier.errors import UsageError
from verifier.model import Case

__all__ = ["GENERATORS", "generate"]


@dataclass(frozen=True)
class Generator:
    name: str
    summary: str
    options: tuple[str, ...]
    """The keyword options the generator takes (CLI names with ``-`` for ``_``)."""


GENERATORS: dict[str, Generator] = {
    g.name: g
    for g in (
        Generator(
            "tictactoe", "tic-tac-toe, every position reachable from the empty board", ("symmetry",)
        ),
        Generator("lgame", "de Bono's L-game on 4x4 (every legal position)", ("symmetry",)),
        Generator(
            "connect4", "Connect Four on a width x height board", ("width", "height", "symmetry")
        ),
        Generator(
            "kqk", "chess endgame king+queen vs king on an n x n board", ("size", "symmetry")
        ),
        Generator("krk", "chess endgame king+rook vs king on an n x n board", ("size", "symmetry")),
        Generator(
            "chess:MATERIAL",
            "chess endgame of up to 4 men on 8x8, e.g. chess:KQKR (White's men first), "
            "with every material it leads to; names are FENs",
            ("symmetry",),
        ),
        Generator("ladder", "Kars' ladder graph L_n (Ex. 7.4)", ("n",)),
        Generator(
            "random",
            "seeded random graph of any semantics",
            ("semantics", "nodes", "degree", "seed", "values", "terminal_fraction", "acyclic"),
        ),
        Generator(
            "nim",
            "nim heaps 0..upto, or every position of --piles heaps below --below (impartial)",
            ("upto", "piles", "below"),
        ),
        Generator(
            "subtraction:S", "subtraction game with set S, e.g. subtraction:1,2,3", ("upto",)
        ),
        Generator("octal:CODE", "octal game by its code, e.g. octal:.07 (or just .07)", ("upto",)),
        Generator("grundy", "Grundy's game: split a heap into two unequal heaps", ("upto",)),
    )
}


def _take(opts: dict[str, Any], allowed: tuple[str, ...], name: str) -> dict[str, Any]:
    given = {k: v for k, v in opts.items() if v is not None}
    extra = sorted(set(given) - set(allowed))
    if extra:
        shown = ", ".join("--" + k.replace("_", "-") for k in extra)
        raise UsageError(f"generator {name!r} does not take {shown}")
    return given


def _nim_piles(kw: dict[str, Any]) -> Case:
    """``nim --piles K --below N``: every position of K heaps of 0..N-1 counters."""
    from verifier.games.nim import nim_piles

    if "piles" not in kw or "below" not in kw:
        raise UsageError("generator 'nim' needs both --piles and --below (or --upto alone)")
    try:
        return nim_piles(int(kw["piles"]), int(kw["below"]), max_nodes=NIM_MAX_POSITIONS)
    except ValueError as e:
        raise UsageError(str(e)) from e


def _chess(material: str, kw: dict[str, Any]) -> Case:
    """``chess:KQKR``: the endgame and every material it leads to (``verifier.games.chess``)."""
    from verifier.games import chess

    try:
        return chess.generate(material, **kw)
    except ValueError as e:
        raise UsageError(str(e)) from e


NIM_MAX_POSITIONS = 50_000_000
"""The most positions ``nim --piles --below`` builds (about 40 bytes a move in memory)."""


def generate(name: str, **opts: Any) -> Case:
    """Build the case of a named game; options that are ``None`` are left at their defaults.

    Raises ``UsageError`` for an unknown name or an option the generator does not take.
    """
    key = name.strip().lower()
    if key.startswith("chess:"):
        return _chess(name.strip()[len("chess:") :], _take(opts, ("symmetry",), name))
    if key == "nim" and (opts.get("piles") is not None or opts.get("below") is not None):
        return _nim_piles(_take(opts, ("piles", "below"), key))
    if key in ("tictactoe", "lgame", "connect4", "kqk", "krk", "ladder", "random"):
        kw = _take(opts, GENERATORS[key].options, key)
    else:
        from verifier.games.catalog import parse_game

        try:
            parse_game(name)
        except ValueError:
            known = ", ".join(GENERATORS)
            raise UsageError(f"unknown game {name!r}; known: {known}") from None
        kw = _take(opts, ("upto",), name)
    if key == "tictactoe":
        from verifier.games import tictactoe

        return tictactoe.generate(**kw)
    if key == "lgame":
        from verifier.games import lgame

        return lgame.generate(**kw)
    if key == "connect4":
        from verifier.games import connect4

        return connect4.generate(**kw)
    if key in ("kqk", "krk"):
        from verifier.games import chess_endgames

        return chess_endgames.generate(endgame=key.upper(), **kw)
    if key == "ladder":
        from verifier.games.ladder import ladder

        if "n" not in kw:
            raise UsageError(
                "generator 'ladder' needs --n (layers), e.g. "
                "verifier generate ladder --n 4 -o case.json"
            )
        return ladder(int(kw["n"]))
    if key == "random":
        from verifier.games import random_graphs

        return random_graphs.generate(**kw)
    from verifier.games.catalog import game_case

    if "upto" not in kw:
        raise UsageError(
            f"generator {name!r} needs --upto (heaps 0..N), e.g. "
            f"verifier generate {shlex.quote(name)} --upto 30 -o case.json"
        )
    try:
        return game_case(name, int(kw["upto"]))
    except ValueError as e:
        raise UsageError(str(e)) from e
