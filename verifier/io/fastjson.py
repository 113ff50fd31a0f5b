"""A faster JSON parse for big compact cases: long integer arrays go straight into numpy.

``json.loads`` makes one Python ``int`` per array entry; for a 10^7-edge case that is most of
the loading time. Here, before ``json.loads``, every long flat array of JSON integers that lies
outside any string is found with vectorized byte tests, checked to be valid JSON (digits, minus
signs, commas and whitespace in the right places; no leading zeros; at most 18 digits), parsed
with ``np.fromstring`` and replaced in the text by a unique placeholder string. The (now small)
rest is parsed by :func:`~verifier.io.jsonpath.parse_json` as usual, with its duplicate-key
check. Placeholders in the compact encoding's array slots (``edges.src``, ``edges.dst``,
``owner``, ``targets``) come back as ``int64`` arrays; any other placeholder is turned back into
a list, so the result equals ``parse_json`` of the original text apart from those arrays.

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
_QUOTE, _BACKSLASH, _OPEN, _CLOSE = ord('"'), ord("\\"), ord("["), ord("]")
_COMMA, _MINUS = ord(","), ord("-")
_ALLOWED = np.zeros(256, dtype=np.bool_)
_ALLOWED[list(b"0123456789-, \t\n\r")] = True
_WHITE = np.zeros(256, dtype=np.bool_)
_WHITE[list(b" \t\n\r")] = True


def parse_json_arrays(text: str | bytes, file: str) -> Any:
    """Parse a case's JSON text; long integer arrays in :data:`ARRAY_SLOTS` of a compact case
    come back as read-only ``int64`` numpy arrays. Errors are those of ``parse_json``."""
    raw = text.encode("utf-8") if isinstance(text, str) else text
    if len(raw) < MIN_ARRAY_BYTES:
        return parse_json(raw, file)
    buf = np.frombuffer(raw, dtype=np.uint8)
    nonce = secrets.token_hex(8)
    pieces: list[bytes] = []
    arrays: dict[str, NDArray[np.int64]] = {}
    prev = 0
    for start, end in _candidate_spans(buf):
        arr = _parse_ints(buf[start + 1 : end], raw[start + 1 : end])
        if arr is None:
            continue
        key = f"\x00{nonce}:{len(arrays)}"
        arrays[key] = arr
        pieces.append(raw[prev:start])
        pieces.append(f'"\\u0000{nonce}:{len(arrays) - 1}"'.encode())
        prev = end + 1
    if not arrays:
        return parse_json(raw, file)
    pieces.append(raw[prev:])
    try:
        data = parse_json(b"".join(pieces), file)
    except CaseError:
        return parse_json(raw, file)  # report the error on the original text
    return _restore(data, arrays)


def _candidate_spans(buf: NDArray[np.uint8]) -> list[tuple[int, int]]:
    """``(index of "[", index of "]")`` of long arrays without nested brackets, outside strings."""
    opens = np.flatnonzero(buf == _OPEN)
    closes = np.flatnonzero(buf == _CLOSE)
    if not len(opens) or not len(closes):
        return []
    nxt = np.searchsorted(closes, opens)
    ok = nxt < len(closes)
    opens, ends = opens[ok], closes[nxt[ok]]
    # no "[" between an open bracket and its first "]" (flat), and long enough
    next_open = np.append(opens[1:], len(buf))
    keep = (next_open > ends) & (ends - opens - 1 >= MIN_ARRAY_BYTES)
    opens, ends = opens[keep], ends[keep]
    if not len(opens):
        return []
    quotes = _unescaped_quotes(buf)
    outside = np.searchsorted(quotes, opens) % 2 == 0
    return list(zip(opens[outside].tolist(), ends[outside].tolist(), strict=True))


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


def _parse_ints(c: NDArray[np.uint8], text: bytes) -> NDArray[np.int64] | None:
    """The integers of the array body ``c`` if it is valid JSON of integers only, else None."""
    if not _ALLOWED[c].all():
        return None
    digit = (c >= ord("0")) & (c <= ord("9"))
    minus = c == _MINUS
    comma = c == _COMMA
    sig = ~_WHITE[c]
    s_digit, s_minus, s_comma = digit[sig], minus[sig], comma[sig]
    if not len(s_digit):
        return None  # an empty array: leave it to json
    # every "-" directly followed by a digit
    if minus.any():
        after = np.append(digit[1:], False)
        if not after[minus].all():
            return None
    # significant characters: start with a number, end with a digit, no ",," and no digit "-"
    if not (s_digit[0] or s_minus[0]) or not s_digit[-1]:
        return None
    if (s_comma[1:] & s_comma[:-1]).any() or (s_digit[:-1] & s_minus[1:]).any():
        return None
    token = digit | minus
    starts = np.flatnonzero(token & ~np.concatenate(([False], token[:-1])))
    if len(starts) != int(comma.sum()) + 1:
        return None  # two numbers separated by whitespace only
    run_start = digit & ~np.concatenate(([False], digit[:-1]))
    run_end = digit & ~np.append(digit[1:], False)
    first_digits = np.flatnonzero(run_start)
    lengths = np.flatnonzero(run_end) - first_digits + 1
    if lengths.max() > _MAX_DIGITS:
        return None
    leading_zero = (c[first_digits] == ord("0")) & (lengths > 1)
    if leading_zero.any():
        return None
    arr = np.fromstring(text.decode("ascii"), dtype=np.int64, sep=",")
    if len(arr) != len(starts):
        return None  # pragma: no cover - the checks above make this impossible
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
