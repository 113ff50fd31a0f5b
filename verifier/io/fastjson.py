"""A faster JSON parse for big compact cases: long integer arrays go straight into numpy.

``json.loads`` makes one Python ``int`` per array entry; for a 10^7-edge case that is most of
the loading time. Here, before ``json.loads``, every long flat array that lies outside any
string is offered to ``np.fromstring``; the result is kept only if the array text is proved to
be valid JSON integers (see :func:`_parse_ints`: byte counts, no per-number Python work), and the
array is then replaced in the text by a unique placeholder string. The (now small) rest is parsed
by :func:`~verifier.io.jsonpath.parse_json` as usual, with its duplicate-key check. Placeholders
in the compact encoding's array slots (``edges.src``, ``edges.dst``, ``owner``, ``targets``) come
back as ``int64`` arrays; any other placeholder is turned back into a list, so the result equals
``parse_json`` of the original text apart from those arrays.

Anything unusual falls back to the plain path: an array that fails a check stays in the text,
and if the shortened text does not parse, the original text is parsed again so that the error
message (line and column) is exact.
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.errors import CaseError
from verifier.io.jsonpath import parse_json

__all__ = ["ARRAY_SLOTS", "MIN_ARRAY_BYTES", "parse_json_arrays"]

MIN_ARRAY_BYTES = 1 << 16
"""Arrays whose text is shorter than this are left to ``json.loads`` (not worth it)."""

ARRAY_SLOTS: tuple[tuple[str, ...], ...] = (
    ("edges", "src"),
    ("edges", "dst"),
    ("owner",),
    ("targets",),
)
"""Where a compact case keeps integer arrays that may stay numpy arrays after parsing."""

_MAX_DIGITS = 18
_QUOTE, _BACKSLASH = ord('"'), ord("\\")


def parse_json_arrays(text: str | bytes, file: str, literals: list[float] | None = None) -> Any:
    """Parse a case's JSON text; long integer arrays in :data:`ARRAY_SLOTS` of a compact case
    come back as read-only ``int64`` numpy arrays. Errors (and ``literals``) are those of
    ``parse_json``."""
    raw = text.encode("utf-8") if isinstance(text, str) else text
    if len(raw) < MIN_ARRAY_BYTES:
        return parse_json(raw, file, literals)
    if b'"compact"' not in raw:
        return parse_json(raw, file, literals)  # only compact cases keep numpy arrays
    nonce = secrets.token_hex(8)
    pieces: list[bytes] = []
    arrays: dict[str, NDArray[np.int64]] = {}
    prev = 0
    for start, end in _candidate_spans(raw):
        arr = _parse_ints(raw[start + 1 : end])
        if arr is None:
            continue
        key = f"\x00{nonce}:{len(arrays)}"
        arrays[key] = arr
        pieces.append(raw[prev:start])
        pieces.append(f'"\\u0000{nonce}:{len(arrays) - 1}"'.encode())
        prev = end + 1
    if not arrays:
        return parse_json(raw, file, literals)
    pieces.append(raw[prev:])
    try:
        data = parse_json(b"".join(pieces), file, literals)
    except CaseError:
        return parse_json(raw, file, literals)  # report the error on the original text
    return _restore(data, arrays)


def _candidate_spans(raw: bytes) -> list[tuple[int, int]]:
    """``(index of "[", index of "]")`` of long arrays without nested brackets, outside strings."""
    spans: list[tuple[int, int]] = []
    start = raw.find(b"[")
    while start != -1:
        end = raw.find(b"]", start)
        if end == -1:
            break
        nxt = raw.find(b"[", start + 1)
        if (nxt == -1 or nxt > end) and end - start - 1 >= MIN_ARRAY_BYTES:
            spans.append((start, end))
        start = nxt
    if not spans:
        return spans
    # keep the spans outside strings: an even number of string quotes before them
    if raw.find(b"\\", 0, spans[-1][0]) == -1:
        counts, seen, prev = [], 0, 0
        for a, _ in spans:
            seen += raw.count(b'"', prev, a)
            counts.append(seen)
            prev = a
    else:  # backslashes: count the quotes that are not escaped
        quotes = _unescaped_quotes(np.frombuffer(raw, dtype=np.uint8))
        counts = np.searchsorted(quotes, [a for a, _ in spans]).tolist()
    return [span for span, q in zip(spans, counts, strict=True) if q % 2 == 0]


def _unescaped_quotes(buf: NDArray[np.uint8]) -> NDArray[np.int64]:
    """Positions of the ``"`` that open or close strings (not preceded by an odd run of ``\\``)."""
    quotes = np.flatnonzero(buf == _QUOTE)
    escaped = quotes[(quotes > 0) & (buf[np.maximum(quotes - 1, 0)] == _BACKSLASH)]
    if not len(escaped):
        return quotes
    drop = []
    for q in escaped.tolist():  # rare: count the backslashes before each such quote
        k = q - 1
        while k >= 0 and buf[k] == _BACKSLASH:
            k -= 1
        if (q - 1 - k) % 2 == 1:
            drop.append(q)
    return np.setdiff1d(quotes, np.array(drop, dtype=np.int64), assume_unique=True)


_WHITESPACE = b" \t\n\r"
_NUMBER_CHARS = b"0123456789-," + _WHITESPACE
_DIGITS = b"0123456789"
_POW10 = 10 ** np.arange(1, _MAX_DIGITS + 1, dtype=np.int64)


def _parse_ints(body: bytes) -> NDArray[np.int64] | None:
    """The integers of an array body if it is valid JSON of integers only, else None.

    ``np.fromstring`` parses; JSON validity is then proved by counting (bytes operations and a
    few array passes, no per-number Python work): the text without whitespace must have exactly
    the length of the numbers written canonically (so no leading zeros, no empty or stray
    tokens), as many commas as gaps, as many minus signs as negative numbers, and no minus sign
    followed by whitespace.
    """
    if body.translate(None, _NUMBER_CHARS):
        return None  # some other character: a float, null, true, a string, ...
    sig = body.translate(None, _WHITESPACE)
    if not sig or sig[0] not in b"-" + _DIGITS or sig[-1] not in _DIGITS:
        return None
    if b",," in sig:
        return None
    minus = b"-" in sig
    if minus and (
        b"-," in sig or b"--" in sig or any(b"-" + bytes([w]) in body for w in _WHITESPACE)
    ):
        return None
    try:
        arr = np.fromstring(body, dtype=np.int64, sep=",")
    except ValueError:
        return None
    if not len(arr) or sig.count(b",") != len(arr) - 1:
        return None
    limit = _POW10[-1]
    if not ((arr > -limit) & (arr < limit)).all():
        return None  # 19 digits or more (or clamped by fromstring): leave it to json
    negative = int((arr < 0).sum()) if minus else 0
    if minus and sig.count(b"-") != negative:
        return None
    digits = int(np.searchsorted(_POW10, np.abs(arr) if minus else arr, side="right").sum())
    digits += len(arr)
    if len(sig) != digits + negative + len(arr) - 1:
        return None
    arr.flags.writeable = False
    return arr


def _restore(data: Any, arrays: dict[str, NDArray[np.int64]]) -> Any:
    """Put the arrays back: as numpy arrays in a compact case's array slots, else as lists."""
    left = dict(arrays)
    if isinstance(data, dict) and data.get("encoding") == "compact":
        for slot in ARRAY_SLOTS:
            parent: Any = data
            for step in slot[:-1]:
                parent = parent.get(step) if isinstance(parent, dict) else None
            if isinstance(parent, dict):
                v = parent.get(slot[-1])
                if isinstance(v, str) and v in left:
                    parent[slot[-1]] = left.pop(v)
    if not left:
        return data
    # the rest (rare): walk the parsed document and turn placeholders back into lists
    stack: list[Any] = [data]
    if isinstance(data, str) and data in left:
        return left[data].tolist()
    while stack and left:
        node = stack.pop()
        items: Any = node.items() if isinstance(node, dict) else enumerate(node)
        for k, v in list(items):
            if isinstance(v, str) and v in left:
                node[k] = left.pop(v).tolist()
            elif isinstance(v, dict | list):
                stack.append(v)
    return data
