"""The generated games of the regression corpus (``cases/game-*.json``) and their expectations.

``python -m verifier.games.corpus cases/`` regenerates the files. Expectations come from the
project's retrograde solver; ``tests/games/test_corpus_games.py`` checks them against an
independent solver and (for tic-tac-toe) an independent minimax over boards.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

from verifier.games import chess_endgames, lgame, tictactoe
from verifier.io.case_json import Encoding
from verifier.model import Case, Expect
from verifier.model.describe import LABEL_WORDS

__all__ = ["CORPUS", "expected_case", "write_corpus"]

CORPUS: dict[str, tuple[Callable[[], Case], Encoding]] = {
    "game-tictactoe": (tictactoe.generate, "readable"),
    "game-tictactoe-symmetric": (lambda: tictactoe.generate(symmetry=True), "readable"),
    "game-lgame-symmetric": (lambda: lgame.generate(symmetry=True), "compact"),
    "game-kqk-3x3": (lambda: chess_endgames.generate("KQK", 3), "readable"),
    "game-krk-4x4": (lambda: chess_endgames.generate("KRK", 4), "readable"),
}
"""File stem -> (generator, encoding) of each corpus game."""


def expected_case(case: Case) -> Case:
    """The case with an ``expect`` block: the root's label, every node's label (``won`` /
    ``lost`` / ``unknown``) and the remoteness of every won or lost node."""
    from verifier.solvers.retrograde import retrograde

    r = retrograde(case.graph)
    labels = {i: LABEL_WORDS[int(v)] for i, v in enumerate(r.label.tolist())}
    rem = {i: int(v) for i, v in enumerate(r.remoteness.tolist()) if v >= 0}
    root = None if case.root is None else labels[case.root]
    expect = Expect(
        labels=MappingProxyType(labels), remoteness=MappingProxyType(rem), root_value=root
    )
    return replace(case, expect=expect)


def write_corpus(folder: str | Path) -> list[Path]:
    """Write every corpus game with its expectations into ``folder``; returns the paths."""
    from verifier.io.case_json import dump_case

    out = []
    for stem, (make, encoding) in CORPUS.items():
        path = Path(folder) / f"{stem}.json"
        dump_case(expected_case(make()), path, encoding)
        out.append(path)
    return out


if __name__ == "__main__":  # pragma: no cover
    for p in write_corpus(sys.argv[1] if len(sys.argv) > 1 else "cases"):
        print(p, p.stat().st_size)
