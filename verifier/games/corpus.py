"""The generated games of the regression corpus (``cases/game-*.json``) and their expectations.

``python -m verifier.games.corpus cases/`` regenerates the files. Expectations come from the
project's retrograde solver; ``tests/games/test_corpus_games.py`` checks them against an
independent solver and (for tic-tac-toe) an independent minimax over boards.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import Any

from verifier.io.case_json import Encoding
from verifier.model import Case, Expect
from verifier.model.describe import LABEL_WORDS

__all__ = ["CORPUS", "corpus_games", "expected_case", "write_corpus"]


CORPUS: dict[str, tuple[Callable[[], Case], Encoding]]
"""File stem -> (generator, encoding) of each corpus game (:func:`corpus_games`, made when
first read: the registry imports this module too)."""


def corpus_games() -> dict[str, tuple[Callable[[], Case], Encoding]]:
    """The examples the games declare with a ``corpus`` encoding, by file stem
    (``game-LABEL``)."""
    from verifier.games.registry import builtin_games, generate

    return {
        f"game-{ex.label}": (partial(generate, ex.name, **ex.options), ex.corpus)
        for game in builtin_games()
        for ex in game.examples
        if ex.corpus is not None
    }


def __getattr__(name: str) -> Any:
    if name == "CORPUS":
        return corpus_games()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    for stem, (make, encoding) in corpus_games().items():
        path = Path(folder) / f"{stem}.json"
        dump_case(expected_case(make()), path, encoding)
        out.append(path)
    return out


if __name__ == "__main__":  # pragma: no cover
    for p in write_corpus(sys.argv[1] if len(sys.argv) > 1 else "cases"):
        print(p, p.stat().st_size)
