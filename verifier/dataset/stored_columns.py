"""What a dataset stores for each semantics (one ``StoredColumns`` each): the columns of its
nodes and answers files, what its manifest's counts count, and whether its answers are the tier
games' labels.

This is the stored side of a semantics, read by the answer files (``answers``,
``stored_answers``, ``export``) without a cluster; how the semantics is *solved* on the sharded
route (its rounds) is ``verifier.distributed.tiers.graph_rules.Rule``, which refers to these
(``Rule.columns``) rather than repeating them.

>>> COLUMNS[Semantics.MINIMAX].answer_columns
{'score': 'float64', 'rank': 'int32'}
>>> own_columns("normal") is None, own_columns("no such semantics") is None
(True, True)
>>> count_names("impartial")
('N', 'P', 'unfinished', 'height')
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.errors import NotApplicable
from verifier.model.describe import PerSemantics
from verifier.model.semantics import Semantics

__all__ = [
    "COLUMNS",
    "GRUNDY",
    "NORMAL_COUNTS",
    "StoredColumns",
    "count_names",
    "own_columns",
]

GRUNDY = "grundy"
"""The column of the Grundy value (impartial: in the state and the answers), a value's name
and no game's (``tests/test_game_names.py`` reads the literal ``"grundy"`` as Grundy's game)."""
NORMAL_COUNTS = ("won", "lost", "drawn", "longest")
"""What a tier's counts are for semantics normal (and the games that are not stored graphs)."""


@dataclass(frozen=True)
class StoredColumns:
    """What a dataset of one semantics stores (``COLUMNS``)."""

    node_columns: dict[str, str]
    """The nodes file's columns beside ``code`` and ``terminal``: ``player`` the owner code (0
    / Max, 1 / Min, -1 nobody: ``model.semantics``), ``target`` 1 on a target, ``value`` a
    leaf's value (NaN on inner nodes)."""
    answer_columns: dict[str, str]
    count_names: tuple[str, str, str, str]
    """What the manifest's ``won``, ``lost``, ``drawn``, ``max_remoteness`` count."""
    labels: bool = False
    """The answers are the tier games' ``label`` and ``remoteness`` (normal play): the dead
    ends start decided at their ``terminal`` label (a drawn one, 0, stays undecided), and the
    answers are read and judged as the tier games' (``storage.read_answers``,
    ``dataset/judge.py``), not by ``judge_graph`` (``own_columns`` is ``None``)."""


COLUMNS: PerSemantics[StoredColumns] = PerSemantics("stored columns")
"""The stored columns of each semantics."""

COLUMNS.register(Semantics.REACHABILITY)(
    StoredColumns(
        node_columns={"player": "int8", "target": "int8"},
        answer_columns={"label": "int8", "remoteness": "int32"},
        count_names=("player 0", "player 1", "-", "layers"),
    )
)
COLUMNS.register(Semantics.MINIMAX)(
    StoredColumns(
        node_columns={"player": "int8", "value": "float64"},
        answer_columns={"score": "float64", "rank": "int32"},
        count_names=("score > 0", "score < 0", "score 0", "-"),
    )
)
COLUMNS.register(Semantics.IMPARTIAL)(
    StoredColumns(
        node_columns={},
        answer_columns={GRUNDY: "int64", "remoteness": "int32"},
        count_names=("N", "P", "unfinished", "height"),
    )
)
COLUMNS.register(Semantics.NORMAL)(
    StoredColumns(
        node_columns={},
        answer_columns={"label": "int8", "remoteness": "int32"},
        count_names=NORMAL_COUNTS,
        labels=True,
    )
)


def own_columns(semantics: str) -> StoredColumns | None:
    """The stored columns of the semantics a manifest names when its answers are its own
    columns (judged by ``judge_graph``); ``None`` when they are the tier games' labels (normal:
    ``StoredColumns.labels``) and for a name that is no semantics (the manifest's reader says
    so)."""
    try:
        columns = COLUMNS[Semantics(semantics)]
    except (ValueError, NotApplicable):
        return None
    return None if columns.labels else columns


def count_names(semantics: str) -> tuple[str, str, str, str]:
    """What the manifest's ``won``, ``lost``, ``drawn``, ``max_remoteness`` count for a
    dataset of ``semantics`` (the manifest's field)."""
    try:
        return COLUMNS[Semantics(semantics)].count_names
    except (ValueError, NotApplicable):
        return NORMAL_COUNTS
