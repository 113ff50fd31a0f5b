"""docs/answers.schema.json's per-position entry is the registry's: ``value`` and every answer
column registered with an ``AnswerCodec`` (issue 30 item 2), so a column published in answer
files is in the schema by its registration (``python -m verifier.io.answers_schema FILE``)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from verifier.io.answers_schema import entry_properties, with_entry_properties
from verifier.model.columns import answer_columns

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "answers.schema.json"


def test_the_docs_schema_has_the_registered_entry_fields() -> None:
    doc = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert with_entry_properties(copy.deepcopy(doc)) == doc, (
        "docs/answers.schema.json is out of step with the answer-column registry: "
        "python -m verifier.io.answers_schema docs/answers.schema.json"
    )


def test_entry_fields_follow_the_codecs() -> None:
    props = entry_properties()
    assert list(props) == ["value", *(s.name for s in answer_columns())]
    assert props["remoteness"] == {"type": ["integer", "null"], "minimum": 0}
    assert props["move"] == {"type": ["string", "null"], "minLength": 1}
