"""Writers: one per output format behind one interface (``Writer``), picked by ``--format``.

- ``table``: the readable rich table of each case (``writers.table``);
- ``json``: the ``--json`` machine report (``writers.json``; its keys are in the README);
- ``csv``: the case's answer, one row per covered node (``writers.csv``).

A command hands every finished case to ``write_case`` and then all of them to ``finish``; a
result that is not a case report (a distributed run, a Grundy sequence, a proof) goes to
``write_document`` as a ``Document`` (``writers.documents``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from verifier.writers.base import (
    Document,
    Format,
    Records,
    Settings,
    Writer,
    overall_verdict,
    single_case,
)
from verifier.writers.csv import CsvWriter
from verifier.writers.json import JsonWriter
from verifier.writers.table import TableWriter

__all__ = [
    "WRITERS",
    "Document",
    "Format",
    "Records",
    "Settings",
    "Writer",
    "make_writer",
    "overall_verdict",
    "single_case",
]

WRITERS: Mapping[Format, Callable[[Settings], Writer]] = MappingProxyType(
    {Format.table: TableWriter, Format.json: JsonWriter, Format.csv: CsvWriter}
)
"""Format -> its writer, made from the command line's settings."""


def make_writer(fmt: Format, settings: Settings | None = None) -> Writer:
    """The writer of a format."""
    return WRITERS[fmt](settings or Settings())
