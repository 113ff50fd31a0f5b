"""The binary ``.npz`` case form: round trips, and every corruption is a ``CaseError``."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from io_examples import VALID, assert_same_case, text

from verifier.errors import CaseError, UsageError
from verifier.io import load_any, load_npz, parse_case, save_npz
from verifier.io import rules as io_rules
from verifier.model import Case, GameGraph, Semantics


@pytest.mark.parametrize("name", sorted(VALID))
def test_round_trip(name: str, tmp_path: Path) -> None:
    case = parse_case(text(VALID[name]), f"{name}.json")
    path = save_npz(case, tmp_path / "c.npz")
    again = load_npz(path)
    assert_same_case(case, again)
    assert again.path == path
    assert_same_case(case, load_any(path))


def test_ids_are_stored_compactly_and_read_back_compactly(tmp_path: Path) -> None:
    case = parse_case(text(VALID["minimax-readable"]))
    path = save_npz(case, tmp_path / "c.npz")
    with np.load(path) as z:
        assert z["succ_idx"].dtype == np.int32
        assert "names" in z.files
        header = json.loads(z["header"].tobytes())
    assert header["format"] == "gamegraph-verifier-case"
    assert header["expect"]["values"]["3"] == 2.5
    g = load_npz(path).graph
    assert g.succ_idx.dtype == np.int32  # index_dtype(n): 4 bytes a move
    assert g.succ_ptr.dtype == np.int64
    assert not g.succ_idx.flags.writeable


def test_graph_without_names(tmp_path: Path) -> None:
    g = GameGraph.from_edges(3, [0, 1], [1, 2], semantics=Semantics.IMPARTIAL)
    path = save_npz(Case(g, id="chain"), tmp_path / "chain.npz")
    with np.load(path) as z:
        assert "names" not in z.files
    again = load_npz(path)
    assert list(again.graph.names) == ["0", "1", "2"]
    assert again.id == "chain"


def test_never_overwrites_its_input(tmp_path: Path) -> None:
    case = parse_case(text(VALID["impartial-readable"]))
    path = save_npz(case, tmp_path / "c.npz")
    os.utime(path, ns=(10**9, 10**9))
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    loaded = load_npz(path)
    with pytest.raises(UsageError):
        save_npz(loaded, path)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


# ---------------------------------------------------------------------- corrupt files
def _arrays(tmp_path: Path) -> dict[str, Any]:
    case = parse_case(text(VALID["minimax-readable"]))
    path = save_npz(case, tmp_path / "good.npz")
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def _header(arrays: dict[str, Any]) -> dict[str, Any]:
    return json.loads(arrays["header"].tobytes())  # type: ignore[no-any-return]


def _bytes(obj: Any) -> Any:
    return np.frombuffer(json.dumps(obj).encode(), dtype=np.uint8)


def _edit(name: str, arrays: dict[str, Any]) -> None:
    h = _header(arrays)
    if name == "missing-array":
        del arrays["owner"]
    elif name == "owner-dtype":
        arrays["owner"] = arrays["owner"].astype(np.int64)
    elif name == "owner-length":
        arrays["owner"] = arrays["owner"][:-1]
    elif name == "ptr-start":
        arrays["succ_ptr"] = arrays["succ_ptr"] + 1
    elif name == "ptr-decreasing":
        p = arrays["succ_ptr"].copy()
        p[1], p[2] = 3, 1
        arrays["succ_ptr"] = p
    elif name == "ptr-end":
        arrays["succ_ptr"] = np.append(arrays["succ_ptr"][:-1], 3)
    elif name == "idx-out-of-range":
        i = arrays["succ_idx"].copy()
        i[3] = 99
        arrays["succ_idx"] = i
    elif name == "idx-unsorted":
        i = arrays["succ_idx"].copy()
        i[0], i[1] = i[1], i[0]
        arrays["succ_idx"] = i
    elif name == "idx-float":
        arrays["succ_idx"] = arrays["succ_idx"].astype(np.float64)
    elif name == "idx-2d":
        arrays["succ_idx"] = arrays["succ_idx"].reshape(2, 2)
    elif name == "header-not-json":
        arrays["header"] = np.frombuffer(b"{nope", dtype=np.uint8)
    elif name == "header-not-object":
        arrays["header"] = _bytes([1])
    elif name == "header-format":
        arrays["header"] = _bytes({**h, "format": "something-else"})
    elif name == "header-unknown-field":
        arrays["header"] = _bytes({**h, "colour": 1})
    elif name == "header-semantics":
        arrays["header"] = _bytes({**h, "semantics": "chess"})
    elif name == "header-root":
        arrays["header"] = _bytes({**h, "root": 17})
    elif name == "header-expect-key":
        arrays["header"] = _bytes({**h, "expect": {"values": {"a": 1}}})
    elif name == "names-length":
        arrays["names"] = _bytes(["a", "b"])
    elif name == "names-duplicate":
        arrays["names"] = _bytes(["a", "b", "c", "d", "a"])
    elif name == "value-missing-on-terminal":
        v = arrays["value"].copy()
        v[1] = np.nan
        arrays["value"] = v
    elif name == "value-infinite":
        v = arrays["value"].copy()
        v[1] = np.inf
        arrays["value"] = v
    elif name == "owner-on-terminal":
        o = arrays["owner"].copy()
        o[1] = 0
        arrays["owner"] = o
    elif name == "target-outside-reachability":
        t = arrays["target"].copy()
        t[1] = True
        arrays["target"] = t
    else:  # pragma: no cover
        raise AssertionError(name)


CORRUPT = {
    "missing-array": "$.owner",
    "owner-dtype": "$.owner",
    "owner-length": "$.owner",
    "ptr-start": "$.succ_ptr[0]",
    "ptr-decreasing": "$.succ_ptr[2]",
    "ptr-end": "$.succ_ptr[5]",
    "idx-out-of-range": "$.succ_idx[3]",
    "idx-unsorted": "$.succ_idx[1]",
    "idx-float": "$.succ_idx",
    "idx-2d": "$.succ_idx",
    "header-not-json": "$",
    "header-not-object": "$.header",
    "header-format": "$.header.format",
    "header-unknown-field": "$.header.colour",
    "header-semantics": "$.header.semantics",
    "header-root": "$.root",
    "header-expect-key": "$.expect.values.a",
    "names-length": "$.names",
    "names-duplicate": "$.names",
    "value-missing-on-terminal": "$.value[1]",
    "value-infinite": "$.value[1]",
    "owner-on-terminal": "$.owner[1]",
    "target-outside-reachability": "$.targets",
}


@pytest.mark.parametrize("block", [None, 2])
@pytest.mark.parametrize(("name", "path"), sorted(CORRUPT.items()))
def test_corrupt_npz_is_a_case_error(
    name: str, path: str, block: int | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if block is not None:  # the checks run a block at a time: the same first fault, same path
        monkeypatch.setattr(io_rules, "BLOCK", block)
    arrays = _arrays(tmp_path)
    _edit(name, arrays)
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    with pytest.raises(CaseError) as info:
        load_npz(bad)
    assert info.value.path == path, str(info.value)
    assert "\n" not in str(info.value)
    assert str(info.value).startswith(f"{bad}: ")


def test_foreign_files_are_case_errors(tmp_path: Path) -> None:
    text_file = tmp_path / "t.npz"
    text_file.write_text("hello")
    npy = tmp_path / "a.npz"
    np.save(npy.with_suffix(".npy"), np.arange(3))
    npy.with_suffix(".npy").rename(npy)
    other_zip = tmp_path / "z.npz"
    with zipfile.ZipFile(other_zip, "w") as z:
        z.writestr("readme.txt", "not an array")
    pickled = tmp_path / "p.npz"
    np.savez(pickled, header=np.array([{"a": 1}], dtype=object))
    for f in (text_file, npy, other_zip, pickled, tmp_path / "missing.npz"):
        with pytest.raises(CaseError) as info:
            load_npz(f)
        assert "\n" not in str(info.value)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_damaged_npz_bytes_load_or_raise_case_error(data: st.DataObject, tmp_path: Path) -> None:
    good = save_npz(parse_case(text(VALID["reachability-readable"])), tmp_path / "g.npz")
    raw = bytearray(good.read_bytes())
    for _ in range(data.draw(st.integers(1, 4))):
        k = data.draw(st.integers(0, len(raw) - 1))
        raw[k] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(len(raw) // 2, len(raw)))
    bad = tmp_path / "damaged.npz"
    bad.write_bytes(bytes(raw[:cut]))
    try:
        case = load_npz(bad)
    except CaseError as e:
        assert "\n" not in str(e)
    else:
        assert isinstance(case, Case)
