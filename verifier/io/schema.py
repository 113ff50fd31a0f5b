"""The JSON Schema of case files, generated from the pydantic models.

Both encodings are one discriminated union on ``encoding`` (``"readable"`` when absent), which
the schema states as a ``oneOf``. ``docs/case.schema.json`` is this module's output; a test keeps
it in step. Regenerate it with::

    python -m verifier.io.schema > docs/case.schema.json
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Discriminator, Tag, TypeAdapter

from verifier.io.models import CompactCaseModel, ReadableCaseModel

__all__ = ["SCHEMA_ID", "CaseFile", "case_json_schema", "schema_text"]

SCHEMA_ID = "https://gamegraph-verifier.invalid/case.schema.json"


def _encoding(v: Any) -> str:
    if isinstance(v, dict):
        return str(v.get("encoding", "readable"))
    return str(getattr(v, "encoding", "readable"))


CaseFile = Annotated[
    Annotated[ReadableCaseModel, Tag("readable")] | Annotated[CompactCaseModel, Tag("compact")],
    Discriminator(_encoding),
]
"""A case file in either encoding (the type the schema is generated from)."""


def case_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a case file."""
    schema = TypeAdapter(CaseFile).json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "gamegraph-verifier case",
        "description": "A finite two-player game graph with its semantics and expectations "
        "(docs/case-format.md).",
        **schema,
    }


def schema_text() -> str:
    """The schema as the text of ``docs/case.schema.json``."""
    return json.dumps(case_json_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    print(schema_text(), end="")
