"""``verify DIR --engine dask --answers OTHER``: another dataset of the same stored graph,
solved elsewhere (here: with another shard size), judged as a stranger's table under the
semantics other than normal (``export``; normal's in ``test_tier_check.py``). The default
run takes minimax (its table carries no certificate: the judged dataset's own answers are
proved in the same run and compared); reachability and impartial with ``-m slow``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tier_cli import dataset_verdict, one_line_error, run_cli, stdout

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from verifier.dataset.manifest import load_manifest
from verifier.dataset.storage import read_rule_answers, write_rule_answers
from verifier.dataset.stored_columns import COLUMNS
from verifier.model.semantics import Semantics

# not marked dask: the slow cases run in CI's slow run ("slow and not dask"), on the module's
# in-process cluster
pytestmark = pytest.mark.filterwarnings("ignore:Port 8787 is already in use")


def made(client: Any, root: Path, semantics: str, shard: int, *extra: Any) -> Path:
    """One random graph (a case file, the same whatever the sharding) stored with ``shard``
    nodes a shard, solved."""
    addr = ("--engine", "dask", "--scheduler", client.scheduler.address)
    case = root.parent / f"{semantics}.npz"
    if not case.exists():
        r = run_cli("generate", "random", "--semantics", semantics, "--nodes", 400, "--seed", 3,
                    *extra, "-o", case)  # fmt: skip
        assert r.exit_code == 0, r.output
    r = run_cli("generate", case, "-o", root, "--shard-positions", shard, *addr)
    assert r.exit_code == 0, r.output
    assert run_cli("solve", root, *addr).exit_code == 0
    return root


@pytest.mark.parametrize(
    ("semantics", "extra", "field", "check"),
    [
        pytest.param("reachability", (), "label", "rules", marks=pytest.mark.slow),
        pytest.param("reachability", (), "remoteness", "layers", marks=pytest.mark.slow),
        ("minimax", ("--terminal-values", "-2,-1,0,1,3"), "score", "agreement"),
        pytest.param("impartial", ("--acyclic",), "grundy", "rules", marks=pytest.mark.slow),
    ],
)
def test_another_solved_dataset_is_verified_and_its_corruption_refuted(
    client: Any, tmp_path: Path, semantics: str, extra: tuple[str, ...], field: str, check: str
) -> None:
    addr = ("--engine", "dask", "--scheduler", client.scheduler.address)
    mine = made(client, tmp_path / "mine", semantics, 150, *extra)
    other = made(client, tmp_path / "other", semantics, 400, *extra)
    r = run_cli("verify", mine, "--answers", other, *addr)
    assert r.exit_code == 0 and dataset_verdict(r)[0] == "VERIFIED", r.output

    m = load_manifest(other)  # one node's answer changed where the solver wrote it
    s = m.tiers[0].shards[0]
    cols = COLUMNS[Semantics(semantics)].answer_columns
    got = {k: v.copy() for k, v in read_rule_answers(other, 0, 0, s.answers_sha256,
                                                       s.positions, cols).items()}  # fmt: skip
    if field == "label":
        got["label"] = -got["label"]  # every node's winner swapped
        i = 0
    else:
        i = int(np.flatnonzero(got["label"] == 1)[0]) if semantics == "reachability" else 0
        got[field][i] = got[field][i] + 5
    s.answers_sha256 = write_rule_answers(other, 0, 0, got)
    m.save(other)
    r = run_cli("verify", mine, "--answers", other, "--json", *addr)
    doc = json.loads(stdout(r))
    assert r.exit_code == 1 and doc["verdict"] == "refuted", r.output
    assert doc["checks"][check]["violations"] >= 1, doc["checks"]


def test_a_dataset_of_another_graph_is_one_line(client: Any, tmp_path: Path) -> None:
    addr = ("--engine", "dask", "--scheduler", client.scheduler.address)
    mine = made(client, tmp_path / "mine", "reachability", 2000)
    other = made(client, tmp_path / "other", "minimax", 2000, "--terminal-values", "-1,1")
    r = run_cli("verify", mine, "--answers", other, *addr)
    one_line_error(r, 2, "$.semantics: 'minimax', not 'reachability'")  # named for what differs


def test_a_rule_graph_unlike_its_manifest_is_refuted(client: Any, tmp_path: Path) -> None:
    """Minimax (a semantics judged by ``graph_check``): a node id twice and a count of the
    manifest altered (digests recomputed) are refuted, naming the node and the count."""
    import shutil

    from verifier.dataset.graph_storage import read_node_columns, write_nodes

    addr = ("--engine", "dask", "--scheduler", client.scheduler.address)
    root = made(client, tmp_path / "mine", "minimax", 150, "--terminal-values", "-2,-1,0,1,3")
    r = run_cli("verify", root, *addr)
    assert r.exit_code == 0 and "  dataset     ok" in r.output and "  counts      ok" in r.output

    twice = tmp_path / "twice"
    shutil.copytree(root, twice)
    m = load_manifest(twice)
    s = m.tiers[0].shards[1]
    names = {"code": "uint64", "terminal": "int8"} | COLUMNS[Semantics.MINIMAX].node_columns
    cols = read_node_columns(twice, 0, 1, s.sha256, s.positions, names)
    code = cols["code"].copy()
    code[3] = code[2]
    extra = {k: v for k, v in cols.items() if k not in ("code", "terminal")}
    s.sha256 = write_nodes(twice, 0, 1, code, cols["terminal"], extra)  # type: ignore[arg-type]
    m.save(twice)
    r = run_cli("verify", twice, *addr)
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert f"row 3 is {int(code[2])}, not {int(code[2]) + 1}" in r.output, r.output

    counts = tmp_path / "counts"
    shutil.copytree(root, counts)
    doc = json.loads((counts / "manifest.json").read_text())
    doc["tiers"][0]["drawn"] += 1
    (counts / "manifest.json").write_text(json.dumps(doc))
    r = run_cli("verify", counts, *addr)
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    line = next(x for x in r.output.splitlines() if x.startswith("  counts "))
    assert "the manifest says score 0" in line and "$.tiers[0].drawn" in line, line
