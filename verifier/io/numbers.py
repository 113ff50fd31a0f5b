"""Exact numbers: which number literals the readers accept (``docs/case-format.md``, "Numbers").

The engine keeps values as float64, which holds every integer up to 2**53 and about 17
significant decimal digits. A literal that float64 would silently turn into *another* number is
refused, naming its position, instead of rounded:

* **underflow**: a nonzero literal whose float64 is 0 (``1e-400``);
* **magnitude**: a literal above 2**53 in magnitude, however written (``9007199254740993``,
  ``9007199254740993.0``, ``9.007199254740993e15``, ``1e300``);
* in a **case**: two different literals (as exact decimals) of the same case that are the same
  float64 (``1.00000000000000001`` and ``1.00000000000000002``, or ``1`` and
  ``1.00000000000000001``): the engine could not tell them apart;
* in an **answer file**: a claimed number that is not a printing of its float64, that is neither
  the float64's exact value nor that value correctly rounded to at most 17 significant digits
  (``1.00000000000000001`` is refused; ``0.1`` and ``0.10000000000000001`` are the double
  nearest 0.1 printed to 1 and to 17 digits, and are read).

A decimal whose float64 is not exactly the decimal it writes (``0.1``) stays accepted: float64
rounds it to the nearest double, and distinct such literals of one case stay distinct and in
order (rounding is monotone), which is all the solvers need.

To see literals at all, JSON is parsed with :func:`literal_parser` as ``parse_float``: a literal
that is not exactly what ``repr`` writes for its float comes back as a :class:`FloatLiteral` (a
``float`` that keeps its text); every other one is a plain ``float``, and no check is needed for
it (``repr`` writes a finite double's shortest printing, which is below 2**53 in magnitude or an
integral value the float holds exactly, and is never a nonzero that underflows).

>>> seen: list[float] = []
>>> parse = literal_parser(seen)
>>> parse("0.5"), parse("1e-400"), seen
(0.5, 1e-400, [1e-400])
>>> literal_problem(Decimal(seen[0].text), 0.0)
'underflows: float64 has no nonzero number that small (it would read as 0)'
>>> printing_problem(Decimal("1.00000000000000001"), 1.0)
'more digits than float64 holds: it would read as 1.0 (write 1.0, or any printing of that double)'
>>> printing_problem(Decimal("0.10000000000000001"), 0.1) is None
True
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Context, Decimal, InvalidOperation, localcontext
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from verifier.io.jsonpath import PathPart, fail, format_path
from verifier.io.literals import FloatLiteral, literal_parser
from verifier.model.bounds import MAX_EXACT

__all__ = [
    "MAX_EXACT",
    "MAX_PRINTED_DIGITS",
    "FloatLiteral",
    "check_leaf_literals",
    "decimal_of",
    "literal_parser",
    "literal_problem",
    "printing_problem",
]

MAX_PRINTED_DIGITS: Final = 17
"""Significant digits that always print a float64 so that it reads back the same (``%.17g``)."""


_EXACT = Context(prec=2400, Emin=-9999, Emax=9999)
"""Enough digits for the difference of a short decimal and a double's exact value."""


def decimal_of(v: Any) -> Decimal | None:
    """The exact decimal a number means: an integer, a literal's text, a float's ``repr`` (a
    literal that is not a :class:`FloatLiteral` was written so), a numeric string (a CSV cell);
    ``None`` for anything else (and for NaN and infinities)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return Decimal(v)
    if isinstance(v, FloatLiteral):
        d = Decimal(v.text)
    elif isinstance(v, float):
        d = Decimal(repr(v))  # a plain float of the parser was written as repr writes it
    elif isinstance(v, str):
        if "_" in v:
            return None  # Decimal reads 1_000; a number in a file is written without
        try:
            d = Decimal(v.strip())
        except InvalidOperation:
            return None
    else:
        return None
    return d if d.is_finite() else None


def literal_problem(d: Decimal, f: float) -> str | None:
    """What is wrong with a literal of exact value ``d`` read as the float ``f`` (``None`` if
    nothing): it underflows to 0, or it is above 2**53 in magnitude."""
    if f == 0.0 and d != 0:
        return "underflows: float64 has no nonzero number that small (it would read as 0)"
    if abs(d) > MAX_EXACT:
        return f"magnitude above 2**53 = {MAX_EXACT}, where float64 stops being exact"
    return None


def printing_problem(d: Decimal, f: float) -> str | None:
    """:func:`literal_problem`, or ``d`` is not a printing of the float64 ``f``: neither its
    exact value nor a nearest decimal of at most 17 significant digits (ties either way)."""
    problem = literal_problem(d, f)
    if problem is not None or not np.isfinite(f):
        return problem
    exact = Decimal(f)
    if d == exact:
        return None
    _, digits, exponent = d.as_tuple()
    assert isinstance(exponent, int)  # d is finite
    zeros = len(digits) - len("".join(map(str, digits)).rstrip("0"))
    if len(digits) - zeros <= MAX_PRINTED_DIGITS:
        unit = Decimal((0, (1,), exponent + zeros))  # of the last significant digit of d
        with localcontext(_EXACT):  # d has <= 17 digits, a double's expansion <= 1,100
            if abs(d - exact) * 2 <= unit:
                return None
    return (
        f"more digits than float64 holds: it would read as {f!r} (write {f!r}, or any printing "
        "of that double)"
    )


def _text(d: Decimal) -> str:
    """A decimal as a person writes it (at most 40 characters)."""
    text = str(d).replace("E", "e")
    return text if len(text) <= 40 else text[:37] + "..."


def check_leaf_literals(
    value: NDArray[np.float64],
    raw_at: Callable[[int], Any],
    seen: list[float],
    file: str,
    where: Callable[[int], tuple[PathPart, ...]],
    codes: bool = False,
) -> None:
    """The leaf values of a case against the literals they were read from (``seen``: those
    :func:`literal_parser` kept): no underflow, no magnitude above 2**53, no two different
    literals that are the same float64 (``raw_at(i)``: node ``i``'s value as parsed; ``where(i)``
    its path). With ``codes`` (labels written as numbers) a literal must be its float exactly."""
    literals = [x for x in seen if isinstance(x, FloatLiteral)]
    if not literals:
        return
    with np.errstate(invalid="ignore"):
        hits = np.flatnonzero(np.isin(value, np.unique(np.array(literals, dtype=np.float64))))
    first: dict[float, tuple[Decimal, int]] = {}
    for i in hits.tolist():
        raw = raw_at(i)
        d = decimal_of(_WORDS.get(raw, raw) if isinstance(raw, str) else raw)
        if d is None:
            continue
        f = float(value[i])
        problem = literal_problem(d, f)
        if problem is None and codes and d != Decimal(f):
            problem = f"not exactly {f!r}"
        if problem is not None:
            fail(file, where(i), f"{problem} (got {_text(d)})")
        d0, i0 = first.setdefault(f, (d, i))
        if d0 != d:
            fail(
                file,
                where(i),
                f"the same float64 ({f!r}) as {_text(d0)} at {format_path(where(i0))}, a different "
                f"number: the engine could not tell them apart (got {_text(d)})",
            )


_WORDS = {"win": 1, "draw": 0, "loss": -1, "won": 1, "lost": -1}
"""The numbers of a case's value and label words."""
