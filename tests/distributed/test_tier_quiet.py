"""``-q`` on a tiered dataset (issue 44): ``--quiet`` promises "one line per case (its verdict
and answer), nothing more", but ``solve DIR --engine dask -q`` printed the whole table of
tiers and ``verify DIR --engine dask -q`` its five check rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tier_cli import run_cli, stdout

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
    assert len(lines) == 1 and lines[0].startswith("VERIFIED: "), judged.output
