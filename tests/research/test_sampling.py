"""``verifier uniqueness CASE --sample N -o DIR``: solutions drawn uniformly
(``verifier.research.sampling``), each an answer file that ``verify --answers`` judges: the true
answer confirmed, every other solution of the rules without ranks refuted by the ranks."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app, verify_app
from verifier.model import Case, GameGraph, Semantics
from verifier.research import sampling

pytest.importorskip("pysat")

runner = CliRunner()


def _cycles(k: int) -> Case:
    """``k`` separate 2-cycles under normal play: 3^k labellings, all drawn the true one."""
    succ = {f"{s}{i}": [f"{'b' if s == 'a' else 'a'}{i}"] for i in range(k) for s in "ab"}
    return Case(GameGraph.from_successors(succ, semantics=Semantics.NORMAL), f"cycles-{k}")


def _chi_square(counts: Counter[tuple[object, ...]], cells: int, draws: int) -> float:
    want = draws / cells
    seen = sum((c - want) ** 2 / want for c in counts.values())
    return seen + (cells - len(counts)) * want  # cells never drawn


def test_samples_are_answer_files_verify_confirms_or_refutes_by_the_ranks(
    tmp_path: Path,
) -> None:
    case = tmp_path / "two.json"
    case.write_text(
        json.dumps(
            {
                "semantics": "normal",
                "id": "two",
                "nodes": {"a": {"moves": ["b"]}, "b": {"moves": ["a"]}},
            }
        )
    )
    out = tmp_path / "samples"
    r = runner.invoke(app, ["uniqueness", str(case), "--sample", "12", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "from all 3 solutions" in r.output
    files = sorted(out.glob("sample-*.json"))
    assert len(files) == 12
    by_labels = {tuple(json.loads(f.read_text())["nodes"].values()): f for f in files}
    assert set(by_labels) == {("draw", "draw"), ("won", "lost"), ("lost", "won")}
    true = runner.invoke(verify_app, [str(case), "--answers", str(by_labels["draw", "draw"])])
    assert true.exit_code == 0, true.output
    other = runner.invoke(verify_app, [str(case), "--answers", str(by_labels["won", "lost"])])
    assert other.exit_code == 1
    assert "another solution of the won/lost equations: every local rule holds" in other.output


def test_sample_needs_an_output_folder(tmp_path: Path) -> None:
    r = runner.invoke(app, ["uniqueness", "cases/simple-cycle-draw.json", "--sample", "2"])
    assert r.exit_code == 2 and "--output DIR" in r.output


def test_exact_draws_are_uniform_by_a_chi_square_test() -> None:
    s = sampling.sample(_cycles(3), 2_700, seed=3)
    assert s.method == "exact" and "from all 27 solutions" in s.detail
    counts = Counter(tuple(v.tolist()) for v in s.values)
    assert _chi_square(counts, 27, 2_700) < 54.1  # 26 degrees of freedom, p = 0.001


def test_unigen_draws_are_uniform_by_a_chi_square_test(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pyunigen")
    monkeypatch.setattr(sampling, "EXACT_LIMIT", 5)  # more solutions than that: UniGen
    s = sampling.sample(_cycles(3), 2_700, seed=3)
    assert s.method == "unigen" and len(s.values) == 2_700
    counts = Counter(tuple(v.tolist()) for v in s.values)
    assert len(counts) == 27
    assert _chi_square(counts, 27, 2_700) < 54.1
