"""Each built-in game's own code on the tiered route (docs/distributed.md), beside the game:
its rules on the codes (the ``TierGame`` class), its tiered generator and, where it has them,
its checks of the dataset itself and its blocks of the reports. A game's declaration names
them in its ``TieredForm`` (``verifier.games.registry``); the dataset layer
(``verifier.distributed.tiers``) reaches them through those hooks only and names no game.

A package of its own, not modules of ``verifier.games``: the registry's search for the games
imports every module of ``verifier.games`` but not these, which import the dataset layer (and
through it Dask and pyarrow)."""
