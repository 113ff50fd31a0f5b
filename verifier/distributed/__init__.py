"""Game graphs on a Dask cluster: a case or a tiered dataset, stored and solved in rounds.

Public entry point: ``solve_distributed`` (a case: stored as a dataset of one tier and solved
by the tiered route, ``verifier.distributed.tiers``). The package imports without Dask
installed; a run on a cluster and the Parquet tables (``verifier.dataset.parquet_io``)
need the extra ``pip install .[dask]``. See ``docs/distributed.md``.
"""

from verifier.distributed.api import DistributedResult, load_input, solve_distributed

__all__ = ["DistributedResult", "load_input", "solve_distributed"]
