"""The committed JSON Schema (docs/case.schema.json) is the one the models generate."""

from __future__ import annotations

import json
from pathlib import Path

from verifier.io.schema import case_json_schema, schema_text

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "case.schema.json"


def test_committed_schema_is_up_to_date() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), (
        "docs/case.schema.json is out of date with verifier/io/models.py; regenerate it with\n"
        "    python -m verifier.io.schema > docs/case.schema.json"
    )


def test_schema_is_a_union_of_both_encodings() -> None:
    schema = case_json_schema()
    assert schema["$schema"].endswith("2020-12/schema")
    refs = [branch["$ref"] for branch in schema["oneOf"]]
    assert refs == ["#/$defs/ReadableCaseModel", "#/$defs/CompactCaseModel"]
    defs = schema["$defs"]
    readable, compact = defs["ReadableCaseModel"], defs["CompactCaseModel"]
    assert readable["additionalProperties"] is False
    assert compact["additionalProperties"] is False
    assert compact["properties"]["encoding"]["const"] == "compact"
    assert "encoding" not in readable["required"]
    assert {"semantics", "nodes", "edges", "encoding"} <= set(compact["required"])
    assert defs["NodeModel"]["properties"]["owner"]["anyOf"][0]["enum"] == ["max", "min"]
    # field docstrings become descriptions
    assert "Kars" in defs["ExpectModel"]["properties"]["values"]["description"]


def test_schema_text_is_stable_json() -> None:
    assert json.loads(schema_text()) == case_json_schema()
    assert schema_text() == schema_text()
