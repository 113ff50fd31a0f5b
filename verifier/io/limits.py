"""How big a case the readers accept, checked on the sizes a file declares before allocating.

A case's size is counted in *positions*: its nodes plus its moves (each is an entry the solvers
keep in memory). :class:`Limits` holds ``max_positions`` (the CLI's ``--max-positions``); the
default is sized to the machine: half of its physical memory (or of the address-space limit of
the process, if lower) at :data:`BYTES_PER_POSITION`, the measured peak of ``verify`` per
position. A file is refused with the one-line ``CaseError`` when

* its size on disk, times the peak memory its parser takes per byte of text
  (:data:`TEXT_EXPANSION`), is above the memory budget (JSON, GraphML, GML: checked before
  reading);
* the array sizes it declares (``.npz``: zip entry sizes and ``.npy`` shapes) or its ``nodes``
  field (compact JSON) exceed the limit (checked before the arrays are allocated);
* the graph it holds has more positions than the limit (checked once it is parsed).

Examples
--------
>>> Limits(max_positions=10**6).budget_bytes
512000000
>>> Limits(max_positions=0)
Traceback (most recent call last):
...
verifier.errors.UsageError: --max-positions must be at least 1 (got 0)
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Final

from verifier.errors import UsageError
from verifier.io.jsonpath import PathPart, fail

__all__ = [
    "BYTES_PER_POSITION",
    "DEFAULT_MEMORY_SHARE",
    "LINEAR_BYTES_PER_POSITION",
    "MIN_BUDGET_BYTES",
    "TEXT_EXPANSION",
    "Limits",
    "default_max_positions",
    "memory_bytes",
]

BYTES_PER_POSITION: Final = 512
"""Peak memory of ``verify`` per position (node or move), with room to spare: measured at about
210 bytes per position on random minimax cases of 2 * 10^5 to 10^6 nodes with 3 moves per node
(387 MB and 1046 MB peak), above a baseline of about 300 MB."""

MIN_BUDGET_BYTES: Final = 64 << 20
"""The byte checks (text size, declared array sizes) never refuse less than this, whatever the
limit: a small file is judged by the positions it holds."""

DEFAULT_MEMORY_SHARE: Final = 0.5
"""The share of the machine's memory the default ``--max-positions`` lets one case use."""

TEXT_EXPANSION: Final = MappingProxyType({".json": 16, ".graphml": 48, ".gml": 48})
"""Peak memory of parsing, per byte of text, by suffix: estimates with margin, not measurements
(JSON makes a Python object of a few dozen bytes per short token; GraphML and GML go through
networkx, which also keeps an element tree and a dict per node and edge)."""


def memory_bytes() -> int:
    """The memory this process may use: physical memory, or the address-space limit if lower."""
    try:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):  # pragma: no cover - not POSIX
        physical = 8 << 30
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return min(physical, soft) if soft != resource.RLIM_INFINITY else physical


LINEAR_BYTES_PER_POSITION: Final = 96
"""Peak memory of ``verify --answers --linear`` per position, with room to spare: measured at
47 bytes per position (2.33 GB peak) on a random normal case of 10^7 nodes and 4 * 10^7 moves
with a whole ``.npz`` answer table (``benchmarks/bench_answers.py``)."""


def default_max_positions(bytes_per_position: int = BYTES_PER_POSITION) -> int:
    """The default ``--max-positions``: a share of the machine's memory per position."""
    return max(1, int(memory_bytes() * DEFAULT_MEMORY_SHARE) // bytes_per_position)


@dataclass(frozen=True)
class Limits:
    """The largest case the readers accept (``max_positions`` = nodes + moves)."""

    max_positions: int = field(default_factory=default_max_positions)

    def __post_init__(self) -> None:
        """Refuse a limit below one position."""
        if self.max_positions < 1:
            raise UsageError(f"--max-positions must be at least 1 (got {self.max_positions})")

    @classmethod
    def for_linear_run(cls) -> Limits:
        """The default limits of ``verify --answers --linear`` (lighter than a full run)."""
        return cls(default_max_positions(LINEAR_BYTES_PER_POSITION))

    @property
    def budget_bytes(self) -> int:
        """The memory a case of ``max_positions`` positions may take (at least
        :data:`MIN_BUDGET_BYTES`)."""
        return max(self.max_positions * BYTES_PER_POSITION, MIN_BUDGET_BYTES)

    def check_positions(
        self, positions: int, file: str, where: tuple[PathPart, ...] = (), what: str = ""
    ) -> None:
        """Refuse a case of more than ``max_positions`` positions (``what`` says how counted)."""
        if positions > self.max_positions:
            fail(
                file,
                where,
                f"{what or f'{positions:,} positions'}: too big to process, more than "
                f"--max-positions {self.max_positions:,} (nodes + moves)",
            )

    def check_bytes(self, declared: int, file: str, what: str) -> None:
        """Refuse a file that declares more bytes of data than the memory budget."""
        if declared > self.budget_bytes:
            fail(
                file,
                (),
                f"{what} of {declared:,} bytes: too big to process, more than the "
                f"{self.budget_bytes:,} bytes of --max-positions {self.max_positions:,}",
            )

    def check_text_file(self, path: Path, file: str) -> None:
        """Refuse a text file whose parse would take more than the memory budget."""
        try:
            size = path.stat().st_size
        except OSError:
            return  # the reader reports it
        self.check_text_size(size, file, path.suffix)

    def check_text_size(self, size: int, file: str, suffix: str = ".json") -> None:
        """Refuse ``size`` bytes of text (of a file with ``suffix``) too big to parse."""
        expansion = TEXT_EXPANSION.get(suffix.lower(), max(TEXT_EXPANSION.values()))
        if size * expansion > self.budget_bytes:
            fail(
                file,
                (),
                f"a file of {size:,} bytes: too big to process (parsing takes about {expansion} "
                f"bytes per byte), more than the {self.budget_bytes:,} bytes of "
                f"--max-positions {self.max_positions:,}",
            )
