"""JSON paths and one-line ``CaseError``s for everything the readers reject.

A location inside a case is a tuple of parts (object keys and list indices); it is printed in the
``$.nodes.a.moves[1]`` form. Keys that are not plain identifiers are bracketed and quoted,
``$.expect.values['17']``. This module also parses JSON strictly (duplicate keys are an error,
with the path of the second occurrence) and turns pydantic's ``ValidationError`` into the
project's ``CaseError``.

Examples
--------
>>> format_path(("nodes", "a", "moves", 1))
'$.nodes.a.moves[1]'
>>> format_path(("expect", "values", "17"))
"$.expect.values['17']"
"""

from __future__ import annotations

import gc
import json
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn

from pydantic import ValidationError

from verifier.errors import CaseError
from verifier.io.literals import literal_parser

__all__ = [
    "MAX_INT_DIGITS",
    "PathPart",
    "case_error",
    "fail",
    "format_path",
    "from_validation_error",
    "parse_json",
    "paused_gc",
    "shown",
]

PathPart = str | int
"""One step of a JSON path: an object key or a list index."""

MAX_INT_DIGITS = sys.get_int_max_str_digits() or 4300
"""Python refuses to convert longer integer literals (quadratic time); so does the reader."""
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SHOWN = 40
"""At most this many characters of an offending value are quoted in a message."""


def format_path(parts: Iterable[PathPart]) -> str:
    """``("nodes", "a", "moves", 1)`` -> ``$.nodes.a.moves[1]``."""
    out = ["$"]
    for p in parts:
        if isinstance(p, int):
            out.append(f"[{p}]")
        elif _IDENT.match(p):
            out.append(f".{p}")
        else:
            out.append("[" + repr(p) + "]")
    return "".join(out)


def case_error(file: str, parts: Iterable[PathPart], message: str) -> CaseError:
    """The ``CaseError`` for ``message`` at the location ``parts`` of ``file``."""
    return CaseError(file, format_path(parts), message)


def fail(file: str, parts: Iterable[PathPart], message: str) -> NoReturn:
    """Raise :func:`case_error`."""
    raise case_error(file, parts, message)


def shown(value: Any) -> str:
    """A short ``repr`` of an offending input for a message."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    text = json.dumps(value) if isinstance(value, str | bool | None) else repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


# ---------------------------------------------------------------------- strict JSON parsing
@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a big document is parsed and checked.

    Parsing makes a tree of many small dicts and lists (no cycles); every few hundred of them
    the collector would walk all live objects again. Measured on a readable case of 10^5 nodes:
    1.8 s with the collector, 0.7 s without.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _Duplicated(dict[str, Any]):
    """An object of the input that repeated a key (the hook still keeps the last value)."""

    duplicate: str = ""


def parse_json(text: str | bytes, file: str, literals: list[float] | None = None) -> Any:
    """``json.loads`` that reports syntax errors with line and column and rejects duplicate keys.

    ``NaN`` / ``Infinity`` parse to floats here; the models reject them (``allow_inf_nan`` is off)
    so the error names the field. With a list ``literals``, a number literal that is not exactly
    ``repr`` of its float comes back as a ``FloatLiteral`` that keeps its text, and is appended
    to ``literals`` (:mod:`verifier.io.numbers`: the readers' exactness checks).
    """
    parse_float: Any = None
    if literals is not None:
        parse_float = literal_parser(literals)
    seen_duplicate: list[bool] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) == len(items):
            return obj
        keys: set[str] = set()
        dup = next(k for k, _ in items if k in keys or keys.add(k))  # type: ignore[func-returns-value]
        marked = _Duplicated(obj)
        marked.duplicate = dup
        seen_duplicate.append(True)
        return marked

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_float=parse_float)
    except json.JSONDecodeError as e:
        fail(file, (), f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg}")
    except UnicodeDecodeError as e:
        fail(file, (), f"not UTF-8 text: {e.reason} at byte {e.start}")
    except RecursionError:
        fail(file, (), "invalid JSON: nested too deeply")
    except ValueError:  # only int(): more digits than sys.get_int_max_str_digits()
        fail(file, (), _long_integer(text))
    if seen_duplicate:
        parts, dup = _find_duplicate(data)
        fail(file, (*parts, dup), f"duplicate key {shown(dup)}")
    return data


_LONG_DIGITS = re.compile(rb"-?[0-9]{%d,}" % (MAX_INT_DIGITS + 1))


def _long_integer(text: str | bytes) -> str:
    """The message for an integer literal too long to convert, with its line and column."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    m = _LONG_DIGITS.search(raw)
    if m is None:  # pragma: no cover - json only fails this way on such a literal
        return f"invalid JSON: an integer literal of more than {MAX_INT_DIGITS} digits"
    line = raw.count(b"\n", 0, m.start()) + 1
    column = m.start() - (raw.rfind(b"\n", 0, m.start()) + 1) + 1
    digits = len(m.group().lstrip(b"-"))
    return (
        f"invalid JSON at line {line} column {column}: an integer literal of {digits} digits "
        f"(at most {MAX_INT_DIGITS})"
    )


def _find_duplicate(data: Any) -> tuple[tuple[PathPart, ...], str]:
    """Path of the first (depth-first, document order) object with a repeated key."""
    stack: list[tuple[Any, tuple[PathPart, ...]]] = [(data, ())]
    while stack:
        node, parts = stack.pop()
        if isinstance(node, _Duplicated):
            return parts, node.duplicate
        if isinstance(node, dict):
            children: Iterable[tuple[PathPart, Any]] = node.items()
        elif isinstance(node, list):
            children = enumerate(node)
        else:
            continue
        kids = [(v, (*parts, k)) for k, v in children if isinstance(v, dict | list)]
        stack.extend(reversed(kids))
    raise AssertionError("a duplicate key was seen but not found again")  # pragma: no cover


# ---------------------------------------------------------------------- pydantic errors
_INSTANCE_OF = re.compile(r" or instance of \w+")
_MESSAGES = {
    "missing": "required field is missing",
    "extra_forbidden": "unknown field",
    "finite_number": "not a finite number",
}


def from_validation_error(
    err: ValidationError, data: Any, file: str, base: Sequence[PathPart] = ()
) -> CaseError:
    """The first error of ``err`` as a ``CaseError`` whose path points into ``data``.

    pydantic's ``loc`` mixes JSON keys with the names of union branches; walking ``data`` along
    ``loc`` tells them apart (a branch name is not a key of the object at that point). Errors of
    the other branches of a union at the same path are merged into one message.
    """
    errors = err.errors(include_url=False)
    typo = _typo(errors, data)
    if typo is not None:
        unknown, known, parent = typo
        return case_error(
            file,
            (*base, *parent, unknown),
            f"unknown field {shown(unknown)} (did you mean {shown(known)}?)",
        )
    first_path = _json_parts(errors[0]["loc"], data, errors[0]["type"])
    value = errors[0].get("input")
    here = [e for e in errors if _json_parts(e["loc"], data, e["type"]) == first_path]
    # A constraint error (the type fitted, the value did not) says more than the type errors
    # of the other branches of a union.
    constraint = [e for e in here if not _is_type_error(e["type"])]
    messages: list[str] = []
    for e in constraint or here:
        msg = _MESSAGES.get(e["type"], e["msg"]).removeprefix("Value error, ")
        msg = _INSTANCE_OF.sub("", msg).replace("valid dictionary", "JSON object")
        if messages and msg.startswith("Input should be "):
            msg = msg.removeprefix("Input should be ")
        if msg not in messages:
            messages.append(msg)
    message = " or ".join(messages)
    if errors[0]["type"] == "extra_forbidden" and first_path:
        message = f"unknown field {shown(first_path[-1])}"
    elif errors[0]["type"] != "missing":
        message = f"{message} (got {shown(value)})"
    return case_error(file, (*base, *first_path), message)


def _typo(errors: Sequence[Any], data: Any) -> tuple[str, str, tuple[PathPart, ...]] | None:
    """(unknown field, the missing field it is a typo of, their object's path) when a required
    field is missing and an unknown field beside it is close to its name (``semantic`` for
    ``semantics``), else None."""
    import difflib

    parts = [(e, _json_parts(e["loc"], data, e["type"])) for e in errors]
    missing = [p for e, p in parts if e["type"] == "missing" and p and isinstance(p[-1], str)]
    unknown = [p for e, p in parts if e["type"] == "extra_forbidden" and p]
    for m in missing:
        near = [str(u[-1]) for u in unknown if u[:-1] == m[:-1] and isinstance(u[-1], str)]
        close = difflib.get_close_matches(str(m[-1]), near, n=1, cutoff=0.75)
        if close:
            return close[0], str(m[-1]), m[:-1]
    return None


def _is_type_error(kind: str) -> bool:
    return kind.endswith("_type") or kind in ("literal_error", "string_pattern_mismatch")


def _json_parts(loc: tuple[int | str, ...], data: Any, kind: str) -> tuple[PathPart, ...]:
    parts: list[PathPart] = []
    node = data
    for i, step in enumerate(loc):
        last = i == len(loc) - 1
        in_object = isinstance(node, dict) and isinstance(step, str) and step in node
        in_list = isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node)
        if in_object or in_list:
            parts.append(step)
            node = node[step]
        elif last and kind == "missing" and isinstance(step, str):
            parts.append(step)
        # otherwise: the name of a union branch or a validator, not part of the JSON path
    return tuple(parts)
