"""``verify DIR --engine dask`` reports as for a case (issue 45, item 2): ``-v`` lists each
check's violations shard by shard, the tiers and the wall time; ``--junit FILE`` writes the
JUnit XML of ``verify CASE --junit``: one testcase, the dataset, each check a property, a
refuted dataset a failure naming the first violation's position."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from tier_cli import one_line_error, run_cli, stdout

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from test_graph_semantics import answers, corrupt

from verifier.io import load_any
from verifier.io.limits import Limits

pytestmark = pytest.mark.filterwarnings("ignore:Port 8787 is already in use")

CHECKS = ("dataset", "rules", "ranks", "counts", "certificate")
"""The checks of a minimax graph's own answers, in the report's order (the last: the standalone
checker's judgement of the dataset's certificate)."""


def _dask(client: Any) -> tuple[str, ...]:
    return ("--engine", "dask", "--scheduler", client.scheduler.address)


@pytest.fixture(scope="module")
def graphs(client: Any, tmp_path_factory: Any) -> dict[str, Path]:
    """A random minimax graph of 300 nodes (``g.json``) stored in three shards and solved
    (``ok``), and a copy with one node's score wrong (``bad``; the node: ``bad/node``)."""
    d = tmp_path_factory.mktemp("reports")
    case, ok = d / "g.json", d / "ok"
    r = run_cli("generate", "random", "--semantics", "minimax", "--nodes", 300, "--degree", 2,
                "--seed", 3, "-o", case)  # fmt: skip
    assert r.exit_code == 0, r.output
    r = run_cli("generate", case, "-o", ok, "--shard-positions", 100, *_dask(client))
    assert r.exit_code == 0, r.output
    assert run_cli("solve", ok, *_dask(client)).exit_code == 0
    bad = d / "bad"
    shutil.copytree(ok, bad)
    score = answers(bad)["score"]
    node = next(x for x in range(150, 300) if score[x] == 1)  # in the second shard or after
    corrupt(bad, node, "score", -1.0)
    return {"dir": d, "case": case, "ok": ok, "bad": bad, "node": Path(str(node))}


def _timeless(r: Any) -> list[str]:
    """The report's lines, its head's seconds written ``(T s)``."""
    return re.sub(r"\(\d+\.\d+ s\)", "(T s)", stdout(r)).splitlines()


def test_verbose_lists_each_check_shard_by_shard(client: Any, graphs: dict[str, Path]) -> None:
    ok, bad = graphs["ok"], graphs["bad"]
    plain = run_cli("verify", ok, *_dask(client))
    r = run_cli("verify", ok, "-v", *_dask(client))
    assert r.exit_code == plain.exit_code == 0, r.output
    mine, theirs = _timeless(r), _timeless(plain)
    assert mine[: len(theirs)] == theirs  # the same lines first (the head's seconds aside)
    assert theirs[0] == "ok  minimax, 300 positions in 1 tier, 3 shards  ->  VERIFIED  (T s)"
    assert [x.split()[0] for x in theirs[5:]] == list(CHECKS)
    more = mine[len(theirs) :]
    assert more[0] == "  tier 0: 300 positions in 3 shards"
    assert more[1].startswith("  wall time ") and more[1].endswith(" s"), more
    assert len(more) == 2, more
    r = run_cli("verify", bad, "-v", *_dask(client))
    assert r.exit_code == 1, r.output
    lines = stdout(r).splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith("  rules "))
    n = int(lines[at].split()[1].replace(",", ""))
    under = [x for x in itertools.takewhile(lambda x: x.startswith("    "), lines[at + 1 :])]
    shards = [x for x in under if x.startswith("    tier 0 shard ")]
    assert shards == under and shards == sorted(shards), lines
    mine_at = f"    tier 0 shard {int(str(graphs['node'])) // 100}: "
    assert any(x.startswith(mine_at) for x in shards), lines
    assert sum(int(x.split(": ")[1].split()[0]) for x in shards) == n
    one_line_error(run_cli("verify", ok, "-v", "-q", *_dask(client)), 2, "--quiet and --verbose")


def _testcase(path: Path) -> ET.Element:
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    (suite,) = list(root)
    assert suite.tag == "testsuite" and suite.get("name") == "verify"
    (case,) = list(suite)
    assert case.tag == "testcase"
    return case


def test_junit_of_a_verified_dataset_has_no_failure(client: Any, graphs: dict[str, Path]) -> None:
    ok, out = graphs["ok"], graphs["dir"] / "ok.xml"
    r = run_cli("verify", ok, "--junit", out, *_dask(client))
    assert r.exit_code == 0, r.output
    case = _testcase(out)
    assert case.get("name") == "ok" and case.get("classname") == str(ok.parent)
    assert case.find("failure") is None and case.find("error") is None
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props == dict.fromkeys(CHECKS, "ok")
    assert ET.parse(out).getroot()[0].get("failures") == "0"


def test_junit_of_a_corrupted_dataset_names_the_first_violation(
    client: Any, graphs: dict[str, Path]
) -> None:
    bad, out, node = graphs["bad"], graphs["dir"] / "bad.xml", int(str(graphs["node"]))
    r = run_cli("verify", bad, "--junit", out, *_dask(client))
    assert r.exit_code == 1, r.output
    case = _testcase(out)
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "refuted"
    doc = json.loads(stdout(run_cli("verify", bad, "--json", *_dask(client))))
    first = doc["checks"]["rules"]["first"]
    message = failure.get("message") or ""
    assert message.startswith(f"rules: {doc['checks']['rules']['violations']:,} violation(s); "
                              f"first at {first['position']} in tier 0: "), message  # fmt: skip
    assert first["why"] in message
    # the first violation: the node corrupted, or one whose rule reads its score
    g = load_any(graphs["case"], limits=Limits.for_command("solve", None)).graph
    named = g.id_of(first["position"].removeprefix("node "))
    assert named == node or node in [int(y) for y in g.successors(named)], (named, node)
    assert ET.parse(out).getroot()[0].get("failures") == "1"
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["rules"] == message.removeprefix("rules: ")


def test_junit_that_cannot_be_written_is_one_line_before_the_cluster(
    client: Any, graphs: dict[str, Path]
) -> None:
    r = run_cli("verify", graphs["ok"], "--junit", graphs["dir"] / "no" / "x.xml", *_dask(client))
    one_line_error(r, 2, str(graphs["dir"] / "no" / "x.xml"))
    cert = graphs["dir"] / "c.json"
    r = run_cli("verify", graphs["ok"], "--certificate", cert, *_dask(client))
    assert r.exit_code == 0, r.output  # a stored graph's certificate is written and accepted
    assert json.loads(cert.read_text())["format"] == "gamegraph-verifier-dataset-certificate"
