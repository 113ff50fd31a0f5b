"""``-q`` on a tiered dataset (issue 44): ``--quiet`` promises "one line per case (its verdict
and answer), nothing more", but ``solve DIR --engine dask -q`` printed the whole table of
tiers and ``verify DIR --engine dask -q`` its five check rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tier_cli import EMPTY_DRAW, dataset_verdict, run_cli, stdout

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

pytestmark = pytest.mark.filterwarnings("ignore:Port 8787 is already in use")


def test_quiet_says_one_line_of_a_dataset(client: Any, tmp_path: Path) -> None:
    addr = ("--engine", "dask", "--scheduler", client.scheduler.address)
    root = tmp_path / "c43"
    gen = run_cli("generate", "connect4", "--width", 4, "--height", 3, "-o", root, *addr)
    assert gen.exit_code == 0, gen.output
    solved = run_cli("solve", root, *addr, "-q")
    assert solved.exit_code == 0, solved.output
    lines = stdout(solved).splitlines()
    assert len(lines) == 1 and lines[0].startswith("value: "), solved.output
    judged = run_cli("verify", root, *addr, "-q")
    assert judged.exit_code == 0, judged.output
    lines = stdout(judged).splitlines()
    assert len(lines) == 1, judged.output
    # a case's -q line: NAME  semantics, size  ->  VERDICT  (s)  from START: value
    head, _, tail = lines[0].partition("  ->  ")
    assert head == "c43  normal, 12,031 positions in 13 tiers, 13 shards", lines[0]
    assert tail.startswith("VERIFIED  (") and tail.endswith(
        " s)  from the empty board: draw (neither player can force four in a row)"
    ), lines[0]
    full = run_cli("verify", root, *addr)
    assert dataset_verdict(full) == ("VERIFIED", EMPTY_DRAW), full.output
    # a case's report begins the same way: head, the start's value, the counts, why
    assert stdout(full).splitlines()[0].split("  (")[0] == head + "  ->  VERIFIED", full.output
    assert stdout(full).splitlines()[2:4] == [
        "  won 716, lost 412, drawn 10,903, longest 9",
        "  why: the dataset holds exactly the 12,031 positions reachable from the start, every "
        "one of the 12,031 claims obeys the rules, and every move leads to a later tier: the "
        "claims are the game's values",
    ], full.output
