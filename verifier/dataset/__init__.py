"""Datasets: a game stored on disk in tiers and shards, read and written without a cluster.

A *dataset* is a directory (``storage``): ``manifest.json`` (``manifest``) and, per tier ``K``
(a set of positions whose moves all lead into tier ``K`` or later: Connect Four's positions
with ``K`` stones, a chess material), Parquet shards ``tier=K/shard=S.parquet`` of sorted
``uint64`` position codes, owned by hash or by range (``storage.shard_of``,
``graphs.range_owner``); once solved, ``answers/tier=K/shard=S.parquet`` beside them. Games
whose moves are computed from the code (``rules``) store no edges; a general graph (``graphs``)
is stored with its edges, exits and reverse edges per shard (``graph_storage``).

This layer is stored data only: the Dask route (``verifier.distributed``) generates, solves and
checks datasets on a cluster; the in-memory self-check writes a case as a dataset
(``verifier.certify.through_dataset``); the games' tiered forms (``verifier.games.tiered``)
read and write their shards here; the answer files of a dataset are named by ``catalog``,
written and read by ``answers`` (one ``stored_answers.STORED`` entry per semantics, the columns
each stores in ``stored_columns``), a stranger's table of claims read and aligned by ``tables``,
another dataset turned into one by ``export``; its certificate for the standalone checker is
written by ``certificate``; ``shape`` holds the per-shard checks of the dataset itself (owners,
order, reachability marks). The work of one shard needs no cluster either and is here: a
shard's check (``judge``, ``judge_graph``), normal play's expansion, merge and retrograde
step of a tier game's shard (``shard_tasks``), the round rules of every semantics on a stored
graph (``round_rules``); the Dask route schedules them and keeps their state between tasks.
Nothing here imports Dask at module level (``shard_cache`` asks for the current worker when
there is one), nor anything of ``verifier.distributed`` (``tests/test_import_graph.py``).
"""
