"""What a dataset stores for each semantics (one ``StoredColumns`` each): the columns of its
nodes and answers files, what its manifest's counts count, and whether its answers are the tier
games' labels.

This is the stored side of a semantics, read by the answer files (``answers``,
``stored_answers``, ``export``) without a cluster; how the semantics is *solved* on the sharded
route (its rounds) is ``verifier.dataset.round_rules.Rule``, which refers to these
(``Rule.columns``) rather than repeating them.

>>> COLUMNS[Semantics.MINIMAX].answer_columns
{'score': 'float64', 'rank': 'int32'}
>>> own_columns("normal") is None, own_columns("no such semantics") is None
(True, True)
>>> count_names("impartial")
('N', 'P', 'unfinished', 'height')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

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
Answers = dict[str, NDArray[Any]]
"""A shard's or tier's answer columns by name."""


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
    counts: Callable[[Answers], tuple[int, int, int, int]]
    """Those four counted on answers (a shard's, a tier's): what ``solve`` writes in the
    manifest and the check compares with it."""
    as_table: Callable[[Answers], Answers]
    """The answers as a stranger's table states them (``export``, judged by ``judge_graph``
    or ``judge``): ``value`` (normal: +1 / -1 / 0; reachability: the winner 0 / 1; the score;
    the Grundy value) and, where the semantics has one, ``remoteness`` (-1 where none: a draw,
    outside the region)."""
    labels: bool = False
    """The answers are the tier games' ``label`` and ``remoteness`` (normal play): the dead
    ends start decided at their ``terminal`` label (a drawn one, 0, stays undecided), and the
    answers are read and judged as the tier games' (``storage.read_answers``,
    ``dataset/judge.py``), not by ``judge_graph`` (``own_columns`` is ``None``)."""


def _top(rem: NDArray[Any]) -> int:
    return int(rem.max()) if len(rem) else -1


def _region_counts(a: Answers) -> tuple[int, int, int, int]:
    """Player 0's region, player 1's, 0, the deepest layer."""
    return int((a["label"] == 1).sum()), int((a["label"] == -1).sum()), 0, _top(a["remoteness"])


def _score_counts(a: Answers) -> tuple[int, int, int, int]:
    """Scores > 0, < 0, = 0."""
    s = a["score"]
    return int((s > 0).sum()), int((s < 0).sum()), int((s == 0).sum()), -1


def _grundy_counts(a: Answers) -> tuple[int, int, int, int]:
    """N positions (value > 0), P positions, nodes never valued (a cycle), the greatest
    height."""
    g = a[GRUNDY]
    return int((g > 0).sum()), int((g == 0).sum()), int((g < 0).sum()), _top(a["remoteness"])


def _label_counts(a: Answers) -> tuple[int, int, int, int]:
    """Won, lost, drawn, the longest remoteness."""
    label = a["label"]
    won, lost = int(np.count_nonzero(label == 1)), int(np.count_nonzero(label == -1))
    return won, lost, len(label) - won - lost, _top(a["remoteness"])


def _winners(a: Answers) -> Answers:
    """The winner 0 / 1 (label +1 / -1) and the layer inside the region (-1 outside)."""
    inside = a["label"] == 1
    layer = np.where(inside, a["remoteness"], -1).astype(np.int32)
    return {"value": np.where(inside, 0, 1).astype(np.int8), "remoteness": layer}


def _labels(a: Answers) -> Answers:
    """The label and the remoteness (-1 on a draw)."""
    label = a["label"]
    rem = np.where(label == 0, -1, a["remoteness"]).astype(np.int32)
    return {"value": label, "remoteness": rem}


COLUMNS: PerSemantics[StoredColumns] = PerSemantics("stored columns")
"""The stored columns of each semantics."""

COLUMNS.register(Semantics.REACHABILITY)(
    StoredColumns(
        node_columns={"player": "int8", "target": "int8"},
        answer_columns={"label": "int8", "remoteness": "int32"},
        count_names=("player 0", "player 1", "-", "layers"),
        counts=_region_counts,
        as_table=_winners,
    )
)
COLUMNS.register(Semantics.MINIMAX)(
    StoredColumns(
        node_columns={"player": "int8", "value": "float64"},
        answer_columns={"score": "float64", "rank": "int32"},
        count_names=("score > 0", "score < 0", "score 0", "-"),
        counts=_score_counts,
        as_table=lambda a: {"value": a["score"]},
    )
)
COLUMNS.register(Semantics.IMPARTIAL)(
    StoredColumns(
        node_columns={},
        answer_columns={GRUNDY: "int64", "remoteness": "int32"},
        count_names=("N", "P", "unfinished", "height"),
        counts=_grundy_counts,
        as_table=lambda a: {"value": a[GRUNDY]},
    )
)
COLUMNS.register(Semantics.NORMAL)(
    StoredColumns(
        node_columns={},
        answer_columns={"label": "int8", "remoteness": "int32"},
        count_names=NORMAL_COUNTS,
        counts=_label_counts,
        as_table=_labels,
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
