"""A check's witness in words, for people: position names and values in the vocabulary of the
semantics (``lost``, ``3``, ``inf(0,2)``), never internal ids or encodings.

The witness itself (``--json``) is for programs; the table, the notebook and the JUnit
message show it through ``witness_words``.

>>> from verifier.model.semantics import Semantics
>>> witness_words(
...     {"node": "c", "id": 2, "reason": "equation fails", "value": -1.0,
...      "right_hand_side": 1.0, "failing": 2, "failing_nodes": ["c", "b"]},
...     Semantics.NORMAL,
... )
'value lost; the rule gives won; failing at c, b'
>>> witness_words({"node": "c", "values": {"retrograde": "won", "answers": "lost"},
...     "successors": {"d": {"retrograde": "lost", "answers": "lost"}}}, Semantics.NORMAL)
'retrograde says won, answers says lost; successors: d (retrograde lost, answers lost)'
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from verifier.model.describe import describe
from verifier.model.semantics import Semantics

__all__ = ["witness_words"]

SAID = frozenset(
    {"node", "id", "reason", "rule", "check", "faults", "failing", "disagreements", "solvers"}
    | {"not_claimed"}  # the judgment's detail marks those successors "(ours)"
)
"""Keys the check's detail already says (or internal ids): not repeated."""

ENCODED = frozenset({"value", "right_hand_side", "interval", "expected", "levels"})
"""Keys whose numbers may be the stored encoding of a value (a label as -1.0, a winner as the
region bit 1.0): shown as the semantics writes them."""

KEY_WORDS: Mapping[str, str] = {
    "right_hand_side": "the rule gives",
    "successors_remoteness": "successors' remoteness",
    "failing_nodes": "failing at",
    "wrong_nodes": "wrong at",
    "levels": "the value set",
    "move_to": "moves to",
}


def _plain(v: Any) -> Any:
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _shown(v: Any, semantics: Semantics) -> Any:
    """An encoded number as the semantics writes it (words as they are)."""
    if isinstance(v, list | tuple):
        return "[" + ", ".join(str(_shown(e, semantics)) for e in v) + "]"
    if not isinstance(v, float):
        return v
    d = describe(semantics)
    if d.form.values_are_codes:
        return d.show(v)
    return _plain(v)


def _text(v: Any) -> str:
    if isinstance(v, Mapping):
        return ", ".join(_pair(k, e) for k, e in v.items())
    if isinstance(v, list | tuple):
        return ", ".join(_text(e) for e in v)
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(_plain(v))


def _pair(k: Any, e: Any) -> str:
    if isinstance(e, Mapping):
        return f"{k} ({', '.join(f'{a} {_text(b)}' for a, b in e.items())})"
    return f"{k}={_text(e)}"


def witness_words(
    witness: Mapping[str, Any], semantics: Semantics, skip: Collection[str] = ()
) -> str:
    """The witness in words: one ``what value`` phrase per field, ``; `` between (the fields
    the detail says, ``SAID``, and ``skip`` left out)."""
    parts = []
    for key, v in witness.items():
        if key in SAID or key in skip or v is None or (isinstance(v, Mapping | list) and not v):
            continue
        if key in ENCODED:
            v = _shown(v, semantics)
        if (
            key == "values"
            and isinstance(v, Mapping)
            and not any(isinstance(e, Mapping) for e in v.values())
        ):
            parts.append(", ".join(f"{k} says {_text(e)}" for k, e in v.items()))
            continue
        words = KEY_WORDS.get(key, key.replace("_", " "))
        sep = ": " if isinstance(v, Mapping) else " "
        parts.append(f"{words}{sep}{_text(v)}")
    return "; ".join(parts)
