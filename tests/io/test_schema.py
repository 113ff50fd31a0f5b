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


def test_examples_in_the_format_document_load() -> None:
    from verifier.io import parse_case
    from verifier.model import Semantics

    doc = (SCHEMA_FILE.parent / "case-format.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in doc.split("```json\n")[1:]]
    assert len(blocks) >= 2
    cases = [parse_case(b, f"case-format.md#{k}") for k, b in enumerate(blocks)]
    for case in cases:
        assert case.semantics is Semantics.MINIMAX
        assert case.graph.n == 4
        assert case.graph.m == 4
        assert case.root == 0
