"""Property tests: mutated case files are accepted or rejected with a ``CaseError``, never with
anything else; random valid cases survive every writer and reader."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from io_examples import VALID, assert_same_case, random_cases
from io_mutations import json_values, mutate

from verifier.errors import CaseError
from verifier.io import case_to_dict, case_to_text, parse_case
from verifier.model import Case


def _accepts_or_case_error(text: str | bytes) -> None:
    try:
        case = parse_case(text, "mutant.json")
    except CaseError as e:
        message = str(e)
        assert "\n" not in message
        assert message.startswith("mutant.json: $")
    else:
        assert isinstance(case, Case)
        # whatever was accepted must be writable and read back the same
        again = parse_case(case_to_text(case, "compact"), "mutant.json")
        assert_same_case(case, again)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(VALID)), st.data())
def test_mutated_cases_load_or_raise_case_error(name: str, data: st.DataObject) -> None:
    doc: Any = copy.deepcopy(VALID[name])
    for _ in range(data.draw(st.integers(1, 3))):
        doc = mutate(doc, data)
    _accepts_or_case_error(json.dumps(doc))


@settings(max_examples=50, deadline=None)
@given(json_values)
def test_any_json_value_loads_or_raises_case_error(doc: Any) -> None:
    _accepts_or_case_error(json.dumps(doc))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(VALID)), st.data())
def test_damaged_text_loads_or_raises_case_error(name: str, data: st.DataObject) -> None:
    raw = json.dumps(VALID[name]).encode()
    op = data.draw(st.sampled_from(["truncate", "insert", "delete", "byte"]))
    k = data.draw(st.integers(0, len(raw)))
    if op == "truncate":
        raw = raw[:k]
    elif op == "insert":
        raw = (
            raw[:k]
            + data.draw(st.sampled_from([b",", b"}", b"]", b'"', b"\\", b"\xff", b"0", b"{"]))
            + raw[k:]
        )
    elif op == "delete":
        raw = raw[:k] + raw[k + 1 :]
    else:
        raw = raw[:k] + bytes([data.draw(st.integers(0, 255))]) + raw[k + 1 :]
    _accepts_or_case_error(raw)


@settings(max_examples=100, deadline=None)
@given(random_cases(), st.sampled_from(["readable", "compact"]))
def test_random_cases_round_trip_through_json(case: Case, encoding: str) -> None:
    text = json.dumps(case_to_dict(case, encoding), ensure_ascii=False)  # type: ignore[arg-type]
    again = parse_case(text, "random.json")
    assert_same_case(case, again)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=random_cases())
def test_random_cases_round_trip_through_files(case: Case, tmp_path: Path) -> None:
    from verifier.io import load_any, save_any

    for suffix in (".json", ".npz"):
        again = load_any(save_any(case, tmp_path / f"c{suffix}"))
        assert_same_case(case, again)
