"""The fingerprint of a graph in answer files (issue 28 item 7): independent of the order of the
positions (a table keyed by names is checked against names), different for another game; a
table keyed by ids also pins the order; files written before (the order-dependent digest) are
still read for the order they were written for."""

from __future__ import annotations

import json
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verifier.io.fingerprint as fp
from verifier.claims import run_with_claims
from verifier.errors import CaseError
from verifier.games.random_graphs import random_case
from verifier.io import load_any, parse_case
from verifier.io.answers import graph_digest, load_answers, save_answers
from verifier.model import GameGraph, Semantics
from verifier.model.report import CaseVerdict
from verifier.pipeline import run_case
from verifier.registry import Options

CASES = Path(__file__).resolve().parents[2] / "cases"


def _reordered(g: GameGraph, perm: np.ndarray) -> GameGraph:
    """The same game with position ``perm[i]`` listed i-th (names kept)."""
    inv = np.empty_like(perm)
    inv[perm] = np.arange(len(perm))
    names = [g.name(int(x)) for x in perm]
    return GameGraph.from_edges(
        names,
        inv[g.edge_src],
        inv[np.asarray(g.succ_idx, dtype=np.int64)],
        semantics=g.semantics,
        owner=g.owner[perm],
        value=g.value[perm],
        target=g.target[perm],
    )


@settings(max_examples=30, deadline=None)
@given(
    sem=st.sampled_from(list(Semantics)),
    n=st.integers(1, 40),
    seed=st.integers(0, 10**6),
)
def test_the_digest_is_independent_of_the_order_and_the_positions_digest_is_not(
    sem: Semantics, n: int, seed: int
) -> None:
    g = random_case(sem, nodes=n, degree=1.7, seed=seed).graph
    perm = np.random.default_rng(seed).permutation(n)
    h = _reordered(g, perm)
    assert graph_digest(h) == graph_digest(g)  # h has explicit names, g "0".."n-1" unbuilt
    same = bool((perm == np.arange(n)).all())
    assert (fp.positions_digest(h) == fp.positions_digest(g)) is same


def test_another_game_has_another_digest() -> None:
    base = {"a": ["b", "c"], "b": ["c"], "c": []}
    g = GameGraph.from_successors(base, semantics=Semantics.NORMAL)
    others = [
        GameGraph.from_successors({"a": ["b"], "b": ["c"], "c": []}, semantics=Semantics.NORMAL),
        GameGraph.from_successors(
            {"a": ["b", "c"], "b": ["a"], "c": []}, semantics=Semantics.NORMAL
        ),
        GameGraph.from_successors(
            {"a": ["b", "d"], "b": ["d"], "d": []}, semantics=Semantics.NORMAL
        ),
        GameGraph.from_successors(
            {"a": ["c", "b"], "b": ["c"], "c": []}, semantics=Semantics.NORMAL
        ),
    ]
    digests = [graph_digest(o) for o in others]
    assert digests[3] == graph_digest(g)  # the order of the moves is no part of the game
    assert graph_digest(g) not in digests[:3]
    case = load_any(CASES / "dag-paul-carole.json")
    g = case.graph
    l3 = g.id_of("l3")
    value = g.value.copy()
    value[l3] = 5
    owner = g.owner.copy()
    owner[g.id_of("u")] = owner[g.id_of("s")]
    assert graph_digest(g.replace(value=value)) != graph_digest(g)
    assert graph_digest(g.replace(owner=owner)) != graph_digest(g)


def test_decimal_names_hash_as_their_strings(monkeypatch: pytest.MonkeyPatch) -> None:
    n = 12_345
    strings = fp._hash_strings([str(i) for i in range(n)])
    assert np.array_equal(fp._decimal_names(n), strings)
    monkeypatch.setattr(fp, "_NODES", 7)  # decades split into blocks
    assert np.array_equal(fp._decimal_names(n), strings)
    names = ["a", "é", "x" * 70, "日本", "b" * 64, "c" * 65]
    direct = fp._hash_strings(names)  # 70 and 65 code points: hashed one at a time
    monkeypatch.setattr(fp, "_LONG", 1000)
    assert np.array_equal(fp._hash_strings(names), direct)  # the same, vectorized
    assert len(set(direct.tolist())) == len(names)


def test_blocks_do_not_change_the_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    g = random_case(Semantics.MINIMAX, nodes=50, degree=2.0, seed=3).graph
    named = _reordered(g, np.arange(50))
    want = (graph_digest(g), fp.positions_digest(g), graph_digest(named))
    monkeypatch.setattr(fp, "_NODES", 7)
    monkeypatch.setattr(fp, "_BLOCK", 5)
    assert (graph_digest(g), fp.positions_digest(g), graph_digest(named)) == want


def _reversed_case_text() -> str:
    doc = json.loads((CASES / "dag-paul-carole.json").read_text())
    doc["nodes"] = dict(reversed(list(doc["nodes"].items())))
    return json.dumps(doc)


def test_a_name_keyed_table_verifies_against_the_case_in_another_order(tmp_path: Path) -> None:
    case = load_any(CASES / "dag-paul-carole.json")
    other = parse_case(_reversed_case_text())
    assert other.graph.name(0) != case.graph.name(0)
    sol = run_case(case, Options(), smt=False).solution
    assert sol is not None
    path = save_answers(sol, case, tmp_path / "a.json")
    assert json.loads(path.read_text())["graph"]["digest"].startswith("names-sha256:")
    rep = run_with_claims(other, Options(), load_answers(path, other))
    assert rep.verdict is CaseVerdict.VERIFIED


@pytest.mark.parametrize("suffix", [".npz", *([".parquet"] * bool(find_spec("pyarrow")))])
def test_an_id_keyed_table_for_another_order_is_refused(suffix: str, tmp_path: Path) -> None:
    case = load_any(CASES / "dag-paul-carole.json")
    other = parse_case(_reversed_case_text())
    sol = run_case(case, Options(), smt=False).solution
    assert sol is not None
    path = save_answers(sol, case, tmp_path / f"a{suffix}")
    load_answers(path, case)  # its own order: read
    with pytest.raises(CaseError, match="in another order"):
        load_answers(path, other)


def test_files_written_before_keep_their_order_dependent_digest(tmp_path: Path) -> None:
    case = load_any(CASES / "dag-paul-carole.json")
    other = parse_case(_reversed_case_text())
    old = fp.moves_digest(case.graph)
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"graph": {"digest": old}, "nodes": {"s": 4}}))
    assert load_answers(path, case).given.sum() == 1  # the order it was written for: read
    with pytest.raises(CaseError, match="depends on the order of the positions"):
        load_answers(path, other)
    path.write_text(json.dumps({"graph": {"digest": "names-sha256:0"}, "nodes": {"s": 4}}))
    with pytest.raises(CaseError, match="a table for another graph"):
        load_answers(path, case)
    for junk in (None, 7, "md5:0"):
        path.write_text(json.dumps({"graph": {"digest": junk}, "nodes": {"s": 4}}))
        with pytest.raises(CaseError, match="is no digest of a graph"):
            load_answers(path, case)


def test_an_id_keyed_table_pins_the_names_of_its_ids(tmp_path: Path) -> None:
    """a and b swapped: the same moves by id, other positions at ids 0 and 1."""
    text = '{"semantics": "normal", "nodes": {"%s": {"moves": ["c"]}, "%s": {"moves": ["c"]}, '
    text += '"c": {}}}'
    case, other = parse_case(text % ("a", "b")), parse_case(text % ("b", "a"))
    assert fp.moves_digest(case.graph) == fp.moves_digest(other.graph)
    sol = run_case(case, Options(), smt=False).solution
    assert sol is not None
    path = save_answers(sol, case, tmp_path / "a.npz")
    with pytest.raises(CaseError, match="positions_digest: a table keyed by ids"):
        load_answers(path, other)


def test_generated_names_hash_as_their_text() -> None:
    from verifier.games.connect4 import generate

    g = generate(3, 3).graph
    assert hasattr(g.names, "encoded")
    text = GameGraph.from_edges(
        list(g.names),
        g.edge_src,
        g.succ_idx,
        semantics=g.semantics,
        owner=g.owner,
        value=g.value,
        target=g.target,
    )
    assert np.array_equal(fp.name_hashes(g), fp.name_hashes(text))
    assert graph_digest(g) == graph_digest(text)


def test_cli_accepts_a_reordered_case(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from verifier.cli import app

    (tmp_path / "r.json").write_text(_reversed_case_text())
    out = tmp_path / "mine.json"
    runner = CliRunner()
    assert (
        runner.invoke(app, ["solve", str(CASES / "dag-paul-carole.json"), "-o", str(out)]).exit_code
        == 0
    )
    r = runner.invoke(app, ["verify", str(tmp_path / "r.json"), "--answers", str(out)])
    assert r.exit_code == 0, r.stdout + r.stderr
