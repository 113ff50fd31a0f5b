"""Pay for what a case needs (issue 18 item 1): a small case imports neither numba nor the other
heavy libraries it does not use. Each run is a fresh interpreter, so ``sys.modules`` shows what
the run itself imported (not timed: the times are ``benchmarks/bench_startup.py``'s)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numba", "llvmlite", "networkx", "dask", "distributed", "pyarrow", "pandas")
"""Never imported by a small case (nor is scipy: the strongly connected components of a small
graph are found in Python, ``topology._pearce_sccs``)."""

PROGRAM = """
import json, sys
import verifier
case = verifier.load(sys.argv[2])
if sys.argv[1] == "verify":
    verdict = verifier.verify(case).verdict.value
else:
    verdict = "solved" if len(verifier.solve(case).to_dict()) else "empty"
print(json.dumps({"verdict": verdict, "modules": sorted(sys.modules)}))
"""


def _run(call: str, case: str) -> tuple[str, set[str]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run(
        [sys.executable, "-c", PROGRAM, call, str(ROOT / "cases" / case)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
    )
    out = json.loads(p.stdout.strip().splitlines()[-1])
    return out["verdict"], {m.split(".")[0] for m in out["modules"]}


@pytest.mark.parametrize(
    "case",
    ["knuth-pure-cycle.json", "ico-reachability.json", "kars-figure1-b-lt-d.json"],
)
def test_verifying_a_small_case_imports_no_heavy_library(case: str) -> None:
    verdict, modules = _run("verify", case)
    assert verdict == "verified"
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))
    assert "z3" in modules  # the proofs do need Z3
    assert "scipy" not in modules


@pytest.mark.parametrize(
    "case", ["dag-decimal-values.json", "kars-example-7-1-memo.json", "impartial-loopy-smith.json"]
)
def test_uniqueness_proofs_of_a_small_case_import_no_scipy(case: str) -> None:
    """Minimax and impartial cases need the strongly connected components (the uniqueness
    proofs); a small one finds them without scipy.sparse (about 0.1 s of start-up)."""
    verdict, modules = _run("verify", case)
    assert verdict == "verified"
    assert not modules & {*HEAVY, "scipy"}, sorted(modules & {*HEAVY, "scipy"})


def test_solving_a_small_case_imports_no_z3() -> None:
    verdict, modules = _run("solve", "knuth-pure-cycle.json")
    assert verdict == "solved"
    assert not modules & {*HEAVY, "scipy", "z3"}, sorted(modules & {*HEAVY, "scipy", "z3"})
