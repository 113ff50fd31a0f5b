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
from tier_cli import one_line_error, run_cli, stdout

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from verifier.distributed.tiers.graph_rules import RULES
from verifier.distributed.tiers.manifest import load_manifest
from verifier.distributed.tiers.storage import read_rule_answers, write_rule_answers
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
    assert r.exit_code == 0 and stdout(r).startswith("VERIFIED"), r.output

    m = load_manifest(other)  # one node's answer changed where the solver wrote it
    s = m.tiers[0].shards[0]
    cols = RULES[Semantics(semantics)].answer_columns
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
