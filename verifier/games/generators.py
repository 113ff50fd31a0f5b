"""Every game generator by the name the command line uses: ``generate(name, **options)``.

The games are those their modules declare (:mod:`verifier.games.registry`): a new built-in
game is one module with its ``GAME``, and no edit here.

>>> generate("ladder", n=2).graph.n
10
>>> generate("subtraction:1,2", upto=5).semantics.value
'impartial'
"""

from __future__ import annotations

from verifier.games.registry import builtin_games, generate

__all__ = ["builtin_games", "generate"]
