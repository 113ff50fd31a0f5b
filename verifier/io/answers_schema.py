"""The per-position entry of the answer file's JSON Schema (``docs/answers.schema.json``),
generated from the answer-column registry: ``value`` and every column registered with an
``AnswerCodec`` (a *count*: a whole number >= 0; a *node*: a position name), so that a column
published in the answer files is in the schema by its registration alone. A test keeps the
docs file in step; rewrite it with::

    python -m verifier.io.answers_schema docs/answers.schema.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from verifier.model.columns import answer_columns

__all__ = ["entry_properties", "with_entry_properties"]

_SHAPES: dict[str, dict[str, Any]] = {
    "count": {"type": ["integer", "null"], "minimum": 0},
    "node": {"type": ["string", "null"], "minLength": 1},
}


def entry_properties() -> dict[str, Any]:
    """The properties of one position's entry object: the value, then each answer column."""
    props: dict[str, Any] = {"value": {"$ref": "#/$defs/value"}}
    for spec in answer_columns():
        assert spec.codec is not None
        props[spec.name] = dict(_SHAPES[spec.codec.entry])
    return props


def with_entry_properties(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (the answer file's) with its entry properties the registry's."""
    entry = schema["properties"]["nodes"]["additionalProperties"]["oneOf"][1]
    entry["properties"] = entry_properties()
    return schema


if __name__ == "__main__":
    path = Path(sys.argv[1])
    doc = with_entry_properties(json.loads(path.read_text(encoding="utf-8")))
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
