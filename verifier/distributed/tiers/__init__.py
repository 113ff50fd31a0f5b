"""Tiers and shards: games too large for one process, solved tier by tier on a Dask cluster.

The dataset itself (its files, manifest, shards, stored graphs, certificate) is stored data
and lives in ``verifier.dataset``; this package runs the work on a cluster: a general graph is
drawn on the workers or written from a case file (``graph_generate``) and solved by rounds
confined to its tier (``graph_solve``, ``graph_tasks``; the rules of a round, pure numpy, are
``verifier.dataset.round_rules``), since its moves make cycles inside the tier.

Workers generate it (``driver.generate_dataset``: each expands one shard of tier ``K``, routes
the children to their owner shards, one task per shard of tier ``K + 1`` deduplicates) and
solve it (``driver.solve_dataset``: tiers in reverse order, each shard joined with the
answers of tier ``K + 1``, one successor shard in memory at a time). The driver sees counts,
paths and digests, never the codes; a finished tier is a checkpoint (``--resume``), and a
worker that dies or pauses fails the run within seconds (``supervise``).

The modules import without Dask; running needs ``pip install '.[dask]'``. See
``docs/distributed.md`` ("Tiers and shards").
"""
