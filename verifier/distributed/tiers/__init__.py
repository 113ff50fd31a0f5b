"""Tiers and shards: games too large for one process, solved tier by tier on a Dask cluster.

A *tiered dataset* is a directory (``storage``): ``manifest.json`` and, per tier ``K`` (a set
of positions whose moves all lead into tier ``K + 1``: Connect Four's positions with ``K``
stones), Parquet shards ``tier=K/shard=S.parquet`` of sorted ``uint64`` position codes, owned
by hash (``storage.shard_of``); once solved, ``answers/tier=K/shard=S.parquet`` beside them.
Games whose moves are computed from the code (``rules``) store no edges; a general graph
(``graphs``) is one tier of node ids sharded by range, with its edges and reverse edges stored
per shard (``graph_storage``), drawn on the workers or written from a case file
(``graph_generate``) and solved by retrograde rounds confined to the tier (``graph_solve``,
``graph_tasks``), since its moves make cycles inside the tier.

Workers generate it (``driver.generate_dataset``: each expands one shard of tier ``K``, routes
the children to their owner shards, one task per shard of tier ``K + 1`` deduplicates) and
solve it (``driver.solve_dataset``: tiers in reverse order, each shard joined with the
answers of tier ``K + 1``, one successor shard in memory at a time). The driver sees counts,
paths and digests, never the codes; a finished tier is a checkpoint (``--resume``), and a
worker that dies or pauses fails the run within seconds (``supervise``).

The modules import without Dask; running needs ``pip install '.[dask]'``. See
``docs/distributed.md`` ("Tiers and shards").
"""
