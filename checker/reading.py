"""What the checker's two paths read alike (docs/certificates.md): JSON in which a repeated key
is an unreadable file (not "the last one wins"), and numpy only for ``.npz`` files. Standard
library only; part of the standalone checker."""

from __future__ import annotations

import contextlib
import csv
import gc
import io
import json
import re
from collections.abc import Iterator
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


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """No garbage collection in the block: millions of new strings and lists, no cycles, that
    the collector would otherwise scan again and again (a CSV of 10^6 rows: 6 s -> 1 s)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def csv_columns(path: str) -> dict[str, list[str]]:
    """A CSV file as its columns of cells, by header (``Unreadable`` if a row is ragged)."""
    with open(path, newline="", encoding="utf-8") as text:
        whole = text.read()
    with paused_gc():
        if '"' not in whole and "\r" not in whole:  # each line's cells, then a cell "\n"
            cells = whole.removesuffix("\n").replace("\n", ",\n,").split(",")  # none after last
            lines = whole.removesuffix("\n").count("\n") + 1  # each but the last: a cell "\n"
            k = cells.index("\n") if lines > 1 else len(cells)  # each row k cells: "\n" each k+1
            if len(cells) + 1 != (k + 1) * lines or cells[k :: k + 1].count("\n") != lines - 1:
                raise Unreadable("a row of the CSV has not the header's number of cells")
            return {h: cells[k + 1 + j :: k + 1] for j, h in enumerate(cells[:k])}
        head, *rows = list(csv.reader(io.StringIO(whole))) or [[]]  # quoted: the csv module's
    if set(map(len, rows)) - {len(head)}:
        raise Unreadable("a row of the CSV has not the header's number of cells")
    return {h: [r[k] for r in rows] for k, h in enumerate(head)}
