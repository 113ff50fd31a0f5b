"""Game generators, and the protocol a user's own game follows (:class:`Game`)."""

from verifier.games.protocol import Game, GameError, explore

__all__ = ["Game", "GameError", "explore"]
