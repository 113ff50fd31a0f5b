"""The ``expect`` block reads the descriptions: which keys fit which semantics, the label words,
and what a ``root_value`` must look like."""

from __future__ import annotations

import copy
import json
from typing import Any, get_args

import pytest
from io_examples import IMPARTIAL_COMPACT, MINIMAX_COMPACT, NORMAL_COMPACT, REACH_COMPACT

from verifier.errors import CaseError
from verifier.io import parse_case
from verifier.io.models import ExpectModel, SolvedLabel
from verifier.io.rules import EXPECT_FIELDS
from verifier.model import Semantics
from verifier.model.describe import DESCRIPTIONS, LABEL_SYNONYMS, LABEL_WORDS, ROOT_VALUE


def test_solved_labels_are_the_label_words() -> None:
    assert set(get_args(SolvedLabel)) == set(LABEL_WORDS.values()) | set(LABEL_SYNONYMS)
    assert "draw" in LABEL_WORDS.values() and LABEL_SYNONYMS == {"unknown": "draw"}


def test_every_per_node_key_fits_the_semantics_that_names_it() -> None:
    for semantics, d in DESCRIPTIONS.items():
        assert EXPECT_FIELDS[d.expect_key] == {semantics}


def test_every_field_of_the_expect_block_fits_some_semantics() -> None:
    assert set(EXPECT_FIELDS) == set(ExpectModel.model_fields)
    named = set().union(*(d.expect_keys for d in DESCRIPTIONS.values()))
    assert named == set(ExpectModel.model_fields)
    assert all(EXPECT_FIELDS[key] for key in EXPECT_FIELDS)
    assert EXPECT_FIELDS[ROOT_VALUE] == frozenset(Semantics)


def test_the_other_fields_fit_as_before() -> None:
    assert EXPECT_FIELDS["intervals"] == {Semantics.MINIMAX}
    assert EXPECT_FIELDS["sums"] == {Semantics.IMPARTIAL}
    # minimax since issue 28 item 4 (the length of optimal play keeping the score)
    assert EXPECT_FIELDS["remoteness"] == {
        Semantics.MINIMAX,
        Semantics.NORMAL,
        Semantics.REACHABILITY,
    }
    assert EXPECT_FIELDS["unique"] == {Semantics.MINIMAX, Semantics.NORMAL, Semantics.IMPARTIAL}


def _with_root_value(doc: dict[str, Any], v: Any) -> str:
    out = copy.deepcopy(doc)
    out["root"] = 0
    out["expect"]["root_value"] = v
    return json.dumps(out)


ROOT_VALUES = [
    (MINIMAX_COMPACT, 2.5, "won", "minimax root_value must be a number"),
    (
        NORMAL_COMPACT,
        "draw",
        "drawn",
        "normal root_value must be 'won', 'lost', 'draw' or 'unknown'",
    ),
    (
        NORMAL_COMPACT,
        "unknown",
        "tie",
        "normal root_value must be 'won', 'lost', 'draw' or 'unknown'",
    ),
    (REACH_COMPACT, 1, 0.5, "reachability root_value must be the winner, 0 or 1"),
    (
        IMPARTIAL_COMPACT,
        "inf(0,2)",
        "inf(0,)",
        "impartial root_value must be a Grundy value (an integer >= 0, 'inf' or 'inf(0,2)')",
    ),
]


@pytest.mark.parametrize(("doc", "good", "bad", "message"), ROOT_VALUES)
def test_root_value_must_look_like_a_value_of_the_semantics(
    doc: dict[str, Any], good: Any, bad: Any, message: str
) -> None:
    case = parse_case(_with_root_value(doc, good), "c.json")
    assert case.expect is not None
    assert case.expect.root_value == ("draw" if good == "unknown" else good)  # Knuth's word
    with pytest.raises(CaseError) as info:
        parse_case(_with_root_value(doc, bad), "c.json")
    assert info.value.path == "$.expect.root_value"
    assert info.value.message == f"{message} (got {json.dumps(bad)})"
