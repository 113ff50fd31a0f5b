"""A stored graph's node names: the names of the case file it came from, kept so that answer
files, reports and violations name positions as the in-memory route names them.

``DIR/names.parquet`` holds one string column ``name``, row ``i`` the name of node ``i`` (a
graph in one tier; written only when the names are not the ids ``0 .. n-1``). Its sha256 is
the manifest's ``parameters.names_sha256`` (``graphs.GraphTiers.names_sha256``): a table
changed after the fact is refused wherever it is read.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import numpy as np

from verifier.dataset.errors import DatasetError
from verifier.dataset.storage import read_parquet, write_parquet

__all__ = ["NAMES", "read_names", "write_names"]

NAMES = "names.parquet"


def write_names(root: Path, names: list[str]) -> str:
    """Write a graph's node names, in id order; their sha256."""
    return write_parquet(root / NAMES, {"name": np.array(names, dtype=object)})


def read_names(root: str, sha256: str, nodes: int) -> tuple[str, ...]:
    """A graph's node names, checked against the manifest's digest and node count; read once
    while the file stays as it was (its inode, size and change times, as ``shard_cache`` keys
    a file: one rewritten since, even in place, is read and checked again)."""
    path = Path(root) / NAMES
    try:
        st = os.stat(path)
    except OSError:  # the reader says what is wrong
        return _read(path, sha256, nodes, None)
    return _read(path, sha256, nodes, (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))


@lru_cache(maxsize=1)  # the driver names many positions of one dataset; so may a worker
def _read(path: Path, sha256: str, nodes: int, _as_read: object) -> tuple[str, ...]:
    got = read_parquet(path, sha256, {"name": "object"})["name"]
    if len(got) != nodes:
        raise DatasetError(f"{path}: {len(got)} names, the manifest says {nodes} nodes")
    return tuple(str(x) for x in got)
