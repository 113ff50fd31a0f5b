"""One entry of a certificate document changed: what the corruption tests (the corpus harness
and the hand-made certificates) share."""

from __future__ import annotations

import copy
from typing import Any

DROP = object()
"""The value that removes the entry instead of setting it."""


def edited(doc: dict[str, Any], where: tuple[Any, ...], value: Any = DROP) -> dict[str, Any]:
    """A copy of ``doc`` with the entry at the path ``where`` set to ``value`` (or dropped)."""
    out = copy.deepcopy(doc)
    *path, key = where
    parent: Any = out
    for k in path:
        parent = parent[k]
    if value is DROP:
        del parent[key]
    else:
        parent[key] = value
    return out
