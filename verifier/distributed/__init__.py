"""Kars' synchronous distributed algorithm (sec. 5) and its relatives on a Dask cluster.

Public entry point: ``solve_distributed``. The package imports without Dask installed; a run on
a cluster and the Parquet tables (``verifier.distributed.parquet_io``) need the extra
``pip install .[dask]``. See ``docs/distributed.md``.
"""

from verifier.distributed.api import DistributedResult, load_input, solve_distributed
from verifier.distributed.partition import Messages, PartitionData, partition_graph
from verifier.distributed.superstep import LocalEngine, RunOutput, SuperstepEngine

__all__ = [
    "DistributedResult",
    "LocalEngine",
    "Messages",
    "PartitionData",
    "RunOutput",
    "SuperstepEngine",
    "load_input",
    "partition_graph",
    "solve_distributed",
]
