"""How big a case the readers accept, checked on the sizes a file declares before allocating.

A case's size is counted in *positions*: its nodes plus its moves (each is an entry the solvers
keep in memory). :class:`Limits` holds ``max_positions`` (the CLI's ``--max-positions``); the
default is sized to the machine and to the command that reads the case: 60% of the machine's
physical memory (or of the address-space limit of the process, if lower) at that command's
measured peak bytes per position (:data:`COMMAND_BYTES_PER_POSITION`: ``solve``, ``verify``,
``linear`` for ``verify --answers --linear``; ``benchmarks/bench_memory_per_command.py``). A
file is refused with the one-line ``CaseError`` when

* its size on disk, times the peak memory its parser takes per byte of text
  (:data:`TEXT_EXPANSION`), is above the memory budget (JSON, GraphML, GML: checked before
  reading);
* the array sizes it declares (``.npz``: zip entry sizes and ``.npy`` shapes) or its ``nodes``
  field (compact JSON) exceed the limit (checked before the arrays are allocated);
* the graph it holds has more positions than the limit (checked once it is parsed).

The memory budget of the byte checks is ``max_positions`` times the same command's bytes per
position, so with the default limit every command's budget is the same share of the machine.

``verify``'s self-check of a case above its in-memory certificate's size (10^6 positions, 10^7
for an ``.npz`` case on the checker's numpy path) goes through a temporary dataset, by default
up to the same share of the machine at :data:`SELF_CHECK_BYTES_PER_POSITION` (the whole
command's peak, the self-check included: 91-110 bytes a position measured on random graphs
of 4.8-8 * 10^7 positions; about 118 million positions on 24 GiB); above, the report says it
was skipped.

Examples
--------
>>> Limits(max_positions=10**6).budget_bytes
512000000
>>> Limits.for_command("solve", 10**6).budget_bytes
67108864
>>> Limits.for_command("solve", 10**7).budget_bytes
400000000
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
from typing import Final, Literal

from verifier.errors import UsageError
from verifier.io.jsonpath import PathPart, fail

__all__ = [
    "BYTES_PER_POSITION",
    "COMMAND_BYTES_PER_POSITION",
    "DEFAULT_MEMORY_SHARE",
    "LINEAR_BYTES_PER_POSITION",
    "MIN_BUDGET_BYTES",
    "SELF_CHECK_BYTES_PER_POSITION",
    "SOLVE_BYTES_PER_POSITION",
    "TEXT_EXPANSION",
    "VERIFY_BYTES_PER_POSITION",
    "WAYS_ON",
    "Command",
    "Limits",
    "default_max_positions",
    "memory_bytes",
]

Command = Literal["solve", "verify", "linear"]
"""What reads the case: ``solve`` (any in-memory engine, ``query``, ``render``, ``diff``),
``verify`` (every solver and the Z3 checks) or ``linear`` (``verify --answers --linear``)."""

SOLVE_BYTES_PER_POSITION: Final = 40
"""Peak memory of ``solve`` (default engine, ``auto``: numpy and compiled, compared) per
position: the peak resident memory of the process over its 56 MB baseline, measured by
``benchmarks/bench_memory_per_command.py`` (2026-11-27) at 29.5 bytes on Connect Four 6x4
(332,093,221 positions, 9.86 GB), 46.9 on 5x4 (12.7 million), 28-34 on random normal-play and
reachability graphs of 2 * 10^7 positions and 46 on a random minimax graph of 2 * 10^7 (39 a
position between 5 * 10^6 and 2 * 10^7: the rest is a fixed 0.3 GB of kernels). The margin is
35% over Connect Four and none over minimax graphs, whose values are float64."""

VERIFY_BYTES_PER_POSITION: Final = 512
"""Peak memory of ``verify`` (every solver, every Z3 check; the Z3 processes counted) per
position, over its 91 MB baseline: measured at 486 bytes on a random minimax graph of 5 * 10^6
positions (2.52 GB), 286 on a normal-play one (1.52 GB), 312-547 on graphs of 5 * 10^5 (0.25-0.35
GB, mostly the fixed cost of the kernels and Z3); ``docs/smt-scaling.md`` has 5.7-6.2 GB at 5 *
10^7 positions (about 120 a position). No margin at 5 * 10^6, 4x at 5 * 10^7."""

LINEAR_BYTES_PER_POSITION: Final = 48
"""Peak memory of ``verify --answers --linear`` (an ``.npz`` answer table) per position, over
its 190 MB baseline: measured at 41.7 bytes on Connect Four 5x4 (12.7 million positions) and 28
on a random normal-play graph of 2 * 10^7; ``docs/games.md`` has 38 on Connect Four 6x4 (12.73
GB), 42 on 5x5 and 46 on 4x7 (17.68 GB), ``benchmarks/bench_answers.py`` 47 on a random graph
of 5 * 10^7. A case of at most 10^6 nodes also gets the certificate's self-check, up to about
1 GB more (232 bytes a position at 5 * 10^6 positions, 1.35 GB); a bigger one the self-check
through a temporary dataset, up to :data:`SELF_CHECK_BYTES_PER_POSITION` in all."""

SELF_CHECK_BYTES_PER_POSITION: Final = 128
"""Peak memory of ``verify --answers --linear`` with the self-check through a temporary dataset
(``certify.through_dataset``: a case above the in-memory certificate's 10^6 / 10^7 positions)
per position (nodes + moves); sizes that route's default limit
(``through_dataset.dataset_limit``: 60% of the memory at this cost, about 118 million positions
on 24 GiB). Measured (2026-11-29, ``/usr/bin/time -v``): a random normal-play graph of 2 * 10^7
nodes and 6 * 10^7 moves, 7.28 GB peak with the self-check, 91 bytes a position (2.76 GB, 34
bytes, without it); a random minimax graph of 1.2 * 10^7 nodes and 3.6 * 10^7 moves, 5.28 GB,
110 bytes (3.37 GB, 70 bytes, without: float64 scores, and the ranks computed as witnesses).
The route adds 40-57 bytes a position (the dataset written, then the checker's ``stored.py``
holding the graph whole). Margin: 16% over minimax, 40% over normal play."""

BYTES_PER_POSITION: Final = VERIFY_BYTES_PER_POSITION
"""The bytes per position of :class:`Limits` made without a command (the readers' default
from Python): the heaviest command's, ``verify``."""

COMMAND_BYTES_PER_POSITION: Final = MappingProxyType(
    {
        "solve": SOLVE_BYTES_PER_POSITION,
        "verify": VERIFY_BYTES_PER_POSITION,
        "linear": LINEAR_BYTES_PER_POSITION,
    }
)
"""Each command's peak bytes per position, which sizes its default ``--max-positions``."""

MIN_BUDGET_BYTES: Final = 64 << 20
"""The byte checks (text size, declared array sizes) never refuse less than this, whatever the
limit: a small file is judged by the positions it holds."""

DEFAULT_MEMORY_SHARE: Final = 0.6
"""The share of the machine's memory the default ``--max-positions`` lets one case use (at the
command's bytes per position): 60% leaves the rest to the system and other work, and admits
Connect Four 6x4 to ``solve`` on a 24 GiB machine (about 10 GB of its 14.4 GiB)."""

TEXT_EXPANSION: Final = MappingProxyType({".json": 16, ".graphml": 48, ".gml": 48})
"""Peak memory of parsing, per byte of text, by suffix: estimates with margin, not measurements
(JSON makes a Python object of a few dozen bytes per short token; GraphML and GML go through
networkx, which also keeps an element tree and a dict per node and edge)."""

WAYS_ON: Final = "raise --max-positions where the memory allows"
"""What every refusal for size suggests; :meth:`Limits.ways_on` adds ``verifier solve`` to a
heavier command's (``verify``: no proofs, a fifth of the memory a position), and the command
line the sharded route of a game stored in tiers (``distributed.tiers.commands.tiered_route``:
``generate chess:KQKR -o DIR --engine dask`` for a case that ``generate chess:KQKR`` wrote).
``solve --engine dask`` is not one: its driver reads the whole case at ``solve``'s limit."""


def memory_bytes() -> int:
    """The memory this process may use: physical memory, or the address-space limit if lower."""
    try:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):  # pragma: no cover - not POSIX
        physical = 8 << 30
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return min(physical, soft) if soft != resource.RLIM_INFINITY else physical


def default_max_positions(bytes_per_position: int = BYTES_PER_POSITION) -> int:
    """The default ``--max-positions``: a share of the machine's memory per position."""
    return max(1, int(memory_bytes() * DEFAULT_MEMORY_SHARE) // bytes_per_position)


@dataclass(frozen=True)
class Limits:
    """The largest case the readers accept (``max_positions`` = nodes + moves), and the memory
    a position costs the command reading it (``bytes_per_position``, which sizes the byte
    checks). ``Limits()`` is sized for ``verify``, the heaviest command;
    :meth:`for_command` sizes the default for another."""

    max_positions: int = field(default_factory=default_max_positions)
    bytes_per_position: int = BYTES_PER_POSITION
    command: Command | None = field(default=None, compare=False)
    """The command the limits are sized for (``None``: ``verify``'s cost, as ``Limits()``)."""

    def __post_init__(self) -> None:
        """Refuse a limit below one position."""
        if self.max_positions < 1:
            raise UsageError(f"--max-positions must be at least 1 (got {self.max_positions})")
        if self.bytes_per_position < 1:
            raise UsageError(
                f"bytes per position must be at least 1 (got {self.bytes_per_position})"
            )

    @classmethod
    def for_command(cls, command: Command, max_positions: int | None = None) -> Limits:
        """The limits of ``command`` (:data:`COMMAND_BYTES_PER_POSITION`): ``max_positions``
        if given (``--max-positions``), else sized to the machine at its bytes per position."""
        cost = COMMAND_BYTES_PER_POSITION[command]
        return cls(
            max_positions if max_positions is not None else default_max_positions(cost),
            cost,
            command,
        )

    @property
    def ways_on(self) -> str:
        """What a refusal suggests: a higher limit, and ``verifier solve`` where a lighter
        command admits the case by default."""
        solve = default_max_positions(SOLVE_BYTES_PER_POSITION)
        if self.command != "solve" and solve > self.max_positions:
            return f"{WAYS_ON}, or verifier solve (no proofs: {solve:,} positions by default)"
        return WAYS_ON

    @classmethod
    def for_linear_run(cls) -> Limits:
        """The default limits of ``verify --answers --linear`` (lighter than a full run)."""
        return cls.for_command("linear")

    @property
    def budget_bytes(self) -> int:
        """The memory a case of ``max_positions`` positions may take (at least
        :data:`MIN_BUDGET_BYTES`)."""
        return max(self.max_positions * self.bytes_per_position, MIN_BUDGET_BYTES)

    def check_positions(
        self, positions: int, file: str, where: tuple[PathPart, ...] = (), what: str = ""
    ) -> None:
        """Refuse a case of more than ``max_positions`` positions (``what`` says how counted):
        one line naming the limit and the ways on."""
        if positions > self.max_positions:
            fail(
                file,
                where,
                f"{what or f'{positions:,} positions'}: too big to process in one process, "
                f"more than --max-positions {self.max_positions:,} (nodes + moves); "
                f"{self.ways_on}",
            )

    def check_bytes(self, declared: int, file: str, what: str) -> None:
        """Refuse a file that declares more bytes of data than the memory budget."""
        if declared > self.budget_bytes:
            fail(
                file,
                (),
                f"{what} of {declared:,} bytes: too big to process in one process, more than "
                f"the {self.budget_bytes:,} bytes of --max-positions {self.max_positions:,}; "
                f"{self.ways_on}",
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
                f"a file of {size:,} bytes: too big to process in one process (parsing takes "
                f"about {expansion} bytes per byte), more than the {self.budget_bytes:,} bytes "
                f"of --max-positions {self.max_positions:,}; {self.ways_on}",
            )
