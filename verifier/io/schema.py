"""The JSON Schema of case files, generated from the pydantic models.

Both encodings are one discriminated union on ``encoding`` (``"readable"`` when absent), which
the schema states as a ``oneOf``. ``docs/case.schema.json`` is this module's output; a test keeps
it in step. Regenerate it with::

    python -m verifier.io.schema > docs/case.schema.json
"""

from __future__ import annotations

import ast
import inspect
import json
from typing import Annotated, Any

from pydantic import Discriminator, Tag, TypeAdapter

from verifier.io import models
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


def _field_docstrings() -> dict[str, dict[str, str]]:
    """``{class: {field: docstring}}`` of ``verifier.io.models``: the string literal right after
    a field's annotated assignment (what pydantic's ``use_attribute_docstrings`` reads)."""
    out: dict[str, dict[str, str]] = {}
    for cls in ast.parse(inspect.getsource(models)).body:
        if not isinstance(cls, ast.ClassDef):
            continue
        docs = out.setdefault(cls.name, {})
        for stmt, after in zip(cls.body, cls.body[1:], strict=False):
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                docs[stmt.target.id] = inspect.cleandoc(after.value.value)
    return out


def _describe_fields(schema: dict[str, Any]) -> None:
    """Give every property of the models' definitions its field docstring as ``description``:
    the one of the class that declares the field (a subclass redeclaring a field without a
    docstring has none, as with pydantic's ``use_attribute_docstrings``)."""
    docs = _field_docstrings()
    for name, definition in schema.get("$defs", {}).items():
        cls = getattr(models, name, None)
        if not isinstance(cls, type):
            continue
        for field, prop in definition.get("properties", {}).items():
            owner = next(
                (k for k in cls.__mro__ if field in vars(k).get("__annotations__", {})), cls
            )
            doc = docs.get(owner.__name__, {}).get(field)
            if doc is not None and "description" not in prop:
                prop["description"] = doc


def case_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a case file."""
    schema = TypeAdapter(CaseFile).json_schema()
    _describe_fields(schema)
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
