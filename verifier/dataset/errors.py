"""The two ways a tiered run stops early, as exceptions a Dask worker can send back.

Both take one message (so that they survive pickling from a worker to the driver) and the
command line prints it as its one-line error.
"""

from __future__ import annotations

from verifier.errors import VerifierError

__all__ = ["ClusterFailed", "DatasetError", "RunFailed"]


class DatasetError(VerifierError, ValueError):
    """The dataset on disk is not what the manifest says (missing or corrupt file, not a
    dataset at all): bad input, exit 2. The message names the file."""


class RunFailed(VerifierError, RuntimeError):
    """The cluster could not finish a tier (a worker died, stayed paused, or a task failed):
    the finished tiers are kept, ``--resume`` continues. The message names the worker and the
    tier."""


class ClusterFailed(RunFailed):
    """The Dask cluster could not be started or reached, or failed under the run (an
    ``OSError``): exit 3, as a run that fails. The message names the scheduler."""
