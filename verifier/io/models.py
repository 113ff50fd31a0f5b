"""The pydantic models of the case file: one per encoding, plus the ``expect`` block.

They check the *shape* of a case (field names, types, finite numbers, no unknown fields); what
depends on the graph (moves to existing nodes, owners fitting the semantics, keys of ``expect``
naming nodes) is checked afterwards by :mod:`verifier.io.rules`, which has the whole graph at
hand. ``docs/case.schema.json`` is generated from these models (:mod:`verifier.io.schema`), the
field docstrings becoming the descriptions.

All models are strict (``1.0`` is not an integer, ``true`` is not a number) and forbid unknown
fields. The big per-edge arrays of the compact encoding are plain ``list[int]``; they are turned
into numpy arrays and range-checked right after validation.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal, NotRequired

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, with_config
from typing_extensions import TypedDict

from verifier.io.numbers import FloatLiteral, decimal_of, literal_problem
from verifier.model.bounds import INT32_MAX, MAX_EXACT

__all__ = [
    "MAX_ABS_VALUE",
    "CaseFields",
    "CompactCaseModel",
    "EdgesModel",
    "ExpectModel",
    "NodeModel",
    "ReadableCaseModel",
    "SumModel",
]

MAX_ABS_VALUE = MAX_EXACT
"""Largest magnitude of a number in a case: beyond it float64 no longer holds every integer."""

SemanticsName = Literal["minimax", "normal", "reachability", "impartial"]


def _within_range(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        raise ValueError("not a finite number")
    if isinstance(v, FloatLiteral):  # a literal float64 does not print back exactly
        d = decimal_of(v)
        problem = literal_problem(d, float(v)) if d is not None else None
        if problem is not None:
            raise ValueError(problem)
    if isinstance(v, int | float) and not isinstance(v, bool) and abs(v) > MAX_ABS_VALUE:
        raise ValueError(f"magnitude above 2**53 = {MAX_ABS_VALUE}")
    return v


Number = Annotated[float, BeforeValidator(_within_range)]
"""A finite number (integer or decimal) of magnitude at most 2**53."""
Bit = Annotated[int, Field(ge=0, le=1)]
"""Player 0 or 1 (strict: ``true`` and ``1.0`` are rejected)."""
GrundyValue = (
    Annotated[int, Field(ge=0, le=MAX_ABS_VALUE)]
    | Annotated[str, Field(pattern=r"^inf(\([0-9]+(,[0-9]+)*\))?$")]
)
"""A finite Grundy value, or a loopy one: ``"inf"`` or ``"inf(0,2)"``."""
ValueWord = Literal["win", "draw", "loss"]
LabelWord = Literal["won", "lost", "draw"]
SolvedLabel = Literal["won", "lost", "draw", "unknown"]
"""The words of ``verifier.model.describe.LABEL_WORDS`` and ``LABEL_SYNONYMS`` (Knuth's
``unknown`` = ``draw``), spelled out for pydantic and the schema (``tests/io/test_expect_words.py``
keeps them equal)."""
NodeName = Annotated[str, Field(min_length=1)]


_STRICT = ConfigDict(
    strict=True,
    extra="forbid",
    allow_inf_nan=False,
    defer_build=True,  # validators built on first use: a run reads one encoding (saves ~25 ms)
)
# The field docstrings below are the schema's descriptions: ``verifier.io.schema`` adds them
# when it generates the schema. (pydantic's ``use_attribute_docstrings`` would read this file's
# source at every start, ~20 ms, for descriptions validation never uses.)


class _Strict(BaseModel):
    model_config = ConfigDict(**_STRICT, frozen=True)


class ExpectModel(_Strict):
    """What a regression case expects. Node keys are names (readable) or ids as strings
    (compact)."""

    values: dict[str, Number] | None = None
    """``minimax``: Kars' score per node."""
    root_value: Number | str | None = None
    """The root's value: a score (minimax), a label (normal), a winner 0/1 (reachability), a
    Grundy value (impartial)."""
    labels: dict[str, SolvedLabel] | None = None
    """``normal``: ``won`` / ``lost`` / ``unknown`` per node (mover's view)."""
    winner: dict[str, Bit] | None = None
    """``reachability``: 0 if player 0 wins from the node, else 1."""
    grundy: dict[str, GrundyValue] | None = None
    """``impartial``: Grundy value per node."""
    remoteness: dict[str, Annotated[int, Field(ge=-1)]] | None = None
    """``normal``, ``minimax``: plies to the end under optimal play (``minimax``: keeping the
    score); ``reachability``: attractor layer (-1: none)."""
    intervals: dict[str, Annotated[list[Number], Field(min_length=2, max_length=2)]] | None = None
    """``minimax``: ``[lowest, highest]`` value over all solutions of (T+MM)."""
    unique: bool | None = None
    """Whether the equations have exactly one solution (minimax, normal, impartial)."""
    sums: dict[str, GrundyValue] | None = None
    """``impartial``: Grundy value of each declared sum, by name."""


class SumModel(_Strict):
    """A disjunctive sum of games (``impartial``), each component by its start position."""

    name: Annotated[str, Field(min_length=1)]
    positions: Annotated[list[Any], Field(min_length=1)]
    """Start positions: node names (readable) or ids (compact); retyped in the subclasses."""


class ReadableSumModel(SumModel):
    positions: Annotated[list[NodeName], Field(min_length=1)]


class CompactSumModel(SumModel):
    positions: Annotated[list[Annotated[int, Field(ge=0)]], Field(min_length=1)]


# A TypedDict rather than a model: a readable case may have 10^5 nodes, and validating into
# plain dicts is about three times faster than building a model object per node.
@with_config(_STRICT)
class NodeModel(TypedDict):
    """One node of the readable encoding."""

    moves: NotRequired[list[NodeName]]
    """Names of the successors (each at most once); default none."""
    owner: NotRequired[Literal["max", "min"] | Bit | None]
    """``max``/``min`` (minimax inner nodes) or ``0``/``1`` (reachability)."""
    value: NotRequired[Number | ValueWord | None]
    """``minimax`` terminal value: a number or ``win``/``draw``/``loss`` (+1/0/-1)."""
    label: NotRequired[LabelWord | None]
    """``normal`` terminal label from the mover's view (``lost`` when absent)."""


class CaseFields(_Strict):
    """The fields every encoding shares."""

    semantics: SemanticsName
    """Which rules the game is played by."""
    id: Annotated[str, Field(min_length=1)] | None = None
    """Identifier of the case (default: the file stem)."""
    source: str | None = None
    """Where the example comes from (paper, figure, program)."""
    description: str | None = None
    expect: ExpectModel | None = None


class ReadableCaseModel(CaseFields):
    """The readable encoding: an object of named nodes with their moves."""

    model_config = ConfigDict(title="ReadableCase")
    encoding: Literal["readable"] = "readable"
    nodes: dict[NodeName, NodeModel]
    """Node name -> node."""
    root: NodeName | None = None
    targets: list[NodeName] | None = None
    """``reachability`` only: the target set G."""
    sums: list[ReadableSumModel] | None = None
    """``impartial`` only: disjunctive sums."""


class EdgesModel(_Strict):
    """Parallel edge arrays: edge ``k`` is the move ``src[k] -> dst[k]``."""

    src: list[int]
    dst: list[int]


class CompactCaseModel(CaseFields):
    """The compact encoding: integer ids ``0..nodes-1`` and parallel arrays."""

    model_config = ConfigDict(title="CompactCase")
    encoding: Literal["compact"]
    nodes: Annotated[int, Field(ge=1, le=INT32_MAX)]
    """The number of nodes n."""
    names: list[NodeName] | None = None
    """n distinct names (default ``"0" .. "n-1"``)."""
    edges: EdgesModel
    owner: list[int] | None = None
    """Per node: 0 = max / player 0, 1 = min / player 1, -1 = none."""
    value: list[float | None] | None = None
    """Per node: minimax terminal value, or normal terminal label +1 won / -1 lost / 0 draw."""
    root: Annotated[int, Field(ge=0)] | None = None
    targets: list[int] | None = None
    """``reachability`` only: ids of the target set G."""
    sums: list[CompactSumModel] | None = None
    """``impartial`` only: disjunctive sums."""
