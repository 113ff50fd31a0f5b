"""What the checker's two paths read alike (docs/certificates.md): JSON in which a repeated key
is an unreadable file (not "the last one wins"), and numpy only for ``.npz`` files. Standard
library only; part of the standalone checker."""

from __future__ import annotations

import json
import re
from typing import Any


class Unreadable(ValueError):
    """A file the checker cannot read (exit 2), in its own words."""


class _Pairs(list):  # type: ignore[type-arg]
    """An object as read, its keys in order (repeats kept): where a repeat is looked for."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise Unreadable("duplicate key")
    return out


def loads(text: str | bytes) -> Any:
    """``json.loads``; a repeated key is ``Unreadable``, naming its JSON path and the key."""
    try:
        return json.loads(text, object_pairs_hook=_unique)
    except Unreadable:
        where, key = _repeated(json.loads(text, object_pairs_hook=_Pairs), "$")
        raise Unreadable(f"{where}: duplicate key {key!r}") from None


def _repeated(x: Any, at: str) -> Any:
    """``(path, key)`` of the first object (depth first, document order) repeating a key."""
    items = list(x) if isinstance(x, _Pairs) else list(enumerate(x)) if isinstance(x, list) else []
    seen: set[Any] = set()
    for k, _ in items:
        if isinstance(x, _Pairs) and k in seen:
            return at, k
        seen.add(k)
    for k, v in items:
        step = f"[{k}]" if isinstance(k, int) else f".{k}" if k.isidentifier() else f"[{k!r}]"
        found = _repeated(v, at + step)
        if found is not None:
            return found
    return None


def numpy() -> Any:
    """The numpy module, or ``Unreadable``: the checker needs it for ``.npz`` files only."""
    try:
        import numpy as np
    except ImportError:
        raise Unreadable("numpy is needed to read .npz files (pip install numpy)") from None
    return np


def has_numpy() -> bool:
    try:
        numpy()
    except Unreadable:
        return False
    return True


def npz(path: str) -> dict[str, Any]:
    with numpy().load(path, allow_pickle=False) as z:  # numpy only for .npz files
        return {k: z[k] for k in z.files}


def jtext(a: Any) -> Any:  # a JSON text held as uint8 bytes
    return loads(bytes(a.tobytes()).decode("utf-8"))


def cell(sem: str, key: str, v: str) -> Any:
    """A CSV cell as the JSON encoding would hold it."""
    if key != "move" and re.fullmatch(r"-?\d+", v):
        return int(v)
    number = re.fullmatch(r"-?\d+(\.\d*)?([eE][-+]?\d+)?", v)
    return json.loads(v) if sem == "minimax" and key == "value" and number else v
