"""``Limits`` (``--max-positions``): every reader refuses a case too big before allocating it,
with the one-line error; ``.npz`` arrays are read without ``np.load``, stored or compressed."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from io_examples import IMPARTIAL_COMPACT, MINIMAX_READABLE, assert_same_case
from typer.testing import CliRunner

from verifier.cli import app
from verifier.errors import CaseError, UsageError
from verifier.io import Limits, load_any, parse_case, save_any
from verifier.io.limits import default_max_positions

ROOT = Path(__file__).resolve().parents[2]


def test_limit_must_be_positive() -> None:
    with pytest.raises(UsageError, match="at least 1"):
        Limits(0)
    assert Limits().max_positions == default_max_positions() >= 1


@pytest.mark.parametrize("doc", [MINIMAX_READABLE, IMPARTIAL_COMPACT], ids=["readable", "compact"])
def test_json_over_the_limit_is_refused(doc: dict[str, object]) -> None:
    case = parse_case(json.dumps(doc), "ok.json")
    size = case.graph.n + case.graph.m
    parse_case(json.dumps(doc), "ok.json", limits=Limits(size))
    with pytest.raises(CaseError, match="too big to process") as e:
        parse_case(json.dumps(doc), "big.json", limits=Limits(size - 1))
    assert str(e.value).startswith("big.json: $")
    assert "\n" not in str(e.value)


def test_compact_nodes_are_checked_before_allocation() -> None:
    doc = {"semantics": "impartial", "encoding": "compact", "nodes": 2**31 - 1}
    text = json.dumps({**doc, "edges": {"src": [0], "dst": [1]}})
    with pytest.raises(CaseError, match=r"\$\.nodes: 2,147,483,647 nodes and 1 moves: too big"):
        parse_case(text, "c.json", limits=Limits(10**6))


@pytest.mark.parametrize("suffix", [".json", ".npz", ".graphml", ".gml"])
def test_every_file_type_over_the_limit_is_refused(suffix: str, tmp_path: Path) -> None:
    case = parse_case(json.dumps(MINIMAX_READABLE), "m.json")
    path = save_any(case, tmp_path / f"m{suffix}")
    size = case.graph.n + case.graph.m
    assert load_any(path, limits=Limits(size)).graph.n == case.graph.n
    with pytest.raises(CaseError, match="too big to process"):
        load_any(path, limits=Limits(size - 1))


def test_compressed_npz_reads_the_same(tmp_path: Path) -> None:
    case = parse_case(json.dumps(MINIMAX_READABLE), "m.json")
    stored = save_any(case, tmp_path / "stored.npz")
    compressed = tmp_path / "compressed.npz"
    with zipfile.ZipFile(stored) as src, zipfile.ZipFile(compressed, "w") as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info), zipfile.ZIP_DEFLATED)
    assert_same_case(load_any(stored), load_any(compressed))
    again = load_any(stored)
    assert not isinstance(again.graph.owner, np.memmap)  # no view of the file is kept


def test_cli_max_positions(tmp_path: Path) -> None:
    case = ROOT / "cases" / "simple-cycle-draw.json"
    r = CliRunner().invoke(app, ["verify", "--max-positions", "2", str(case)])
    assert r.exit_code == 2
    assert "too big to process in one process, more than --max-positions 2 " in r.output
    r = CliRunner().invoke(app, ["verify", "--max-positions", "1000", str(case)])
    assert r.exit_code == 0
    r = CliRunner().invoke(app, ["solve", "--max-positions", "2", str(case)])
    assert r.exit_code == 2
