"""Hostile input: every reader, given malformed or malicious files, loads a case or gives the
one-line ``FILE: PATH: problem`` error (exit 2), within a stated memory bound.

The bound (docs/hostile-input.md): reading files whose largest is D bytes takes at most
4 D + 200 MB of address space beyond what the imports use; it is enforced with ``RLIMIT_AS`` on
the child process that reads (``read_batch.py``, ``limited_cli.py``), so a reader that tries to
allocate more fails with ``MemoryError``, which counts as a crash.

The mutated files are read in-process in one child per format (cheap); a sample of them and the
hostile corpus also go through the real CLI. ``VERIFIER_FUZZ_EXAMPLES`` sets the number of
mutated files per format of the ``slow`` run (``-m slow``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fuzz_mutations import ANSWER_FORMATS, FORMATS, answer_case_json, answer_mutants, mutants
from hostile_files import HOSTILE, json_huge_literal, json_huge_node_id, npz_bomb, write_all
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
EXTRA_MB = 200
CI_EXAMPLES = 500
SLOW_EXAMPLES = int(os.environ.get("VERIFIER_FUZZ_EXAMPLES", "20000"))
CLI_SAMPLE = 20


def _env() -> dict[str, str]:
    paths = [str(ROOT), str(HERE), os.environ.get("PYTHONPATH", "")]
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in paths if p),
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
    }


def distinct_mutants(
    suffix: str, count: int, strategy: st.SearchStrategy[bytes] | None = None
) -> list[bytes]:
    """At least ``count`` distinct mutated files of one format (hypothesis draws them from
    ``strategy``, by default the case-file mutants of ``suffix``)."""
    found: dict[bytes, None] = {}
    for attempt in range(5):

        @seed(20261123 + attempt)  # reproducible on every run, CI's derandomized profile too
        @settings(
            max_examples=count,
            deadline=None,
            database=None,
            derandomize=False,
            suppress_health_check=list(HealthCheck),
        )
        @given(strategy if strategy is not None else mutants(suffix))
        def collect(raw: bytes) -> None:
            found[raw] = None

        collect()
        if len(found) >= count:
            break
    return list(found)


def read_batch(
    folder: Path, case_file: Path | None = None
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The outcome of reading every file of ``folder`` in a memory-limited child (as answer
    files for ``case_file`` when given)."""
    extra = [str(case_file)] if case_file is not None else []
    proc = subprocess.run(
        [sys.executable, str(HERE / "read_batch.py"), str(folder), str(EXTRA_MB), *extra],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    return lines[:-1], lines[-1]


def assert_case_or_one_line(outcomes: list[dict[str, Any]], folder: Path) -> None:
    """Every outcome is a case or a one-line error naming its file."""
    crashes = [o for o in outcomes if o["outcome"] not in ("case", "error")]
    assert not crashes, "\n".join(f"{folder / o['file']}: {o.get('trace', o)}" for o in crashes)
    for o in outcomes:
        if o["outcome"] == "error":
            message = o["message"]
            assert "\n" not in message and "Traceback" not in message, message
            assert message.startswith(f"{folder / o['file']}: $"), message


def fuzz(suffix: str, count: int, tmp_path: Path, answers: bool = False) -> None:
    """Read ``count`` mutated files of one format (case files, or answer files for the case of
    ``answer_case_json``); assert the outcomes and the memory bound."""
    strategy = answer_mutants(suffix) if answers else None
    files = distinct_mutants(suffix, count, strategy)
    assert len(files) >= count
    folder, case_file = tmp_path / "files", None
    folder.mkdir()
    if answers:
        case_file = tmp_path / "case.json"
        case_file.write_text(answer_case_json())
    for k, raw in enumerate(files):
        (folder / f"m{k:05d}{suffix}").write_bytes(raw)
    outcomes, memory = read_batch(folder, case_file)
    assert len(outcomes) == len(files)
    assert_case_or_one_line(outcomes, folder)
    assert memory["peak_mb"] <= memory["limit_mb"]
    kinds = {o["outcome"] for o in outcomes}
    assert kinds == {"case", "error"}, kinds  # the mutations reach both outcomes


@pytest.mark.parametrize(
    "suffix",
    [pytest.param(f, marks=pytest.mark.slow) if f in (".graphml", ".gml") else f for f in FORMATS],
)  # the networkx formats in the slow run: the default run's minutes go to the tiered route
def test_mutated_files_give_a_case_or_the_one_line_error(suffix: str, tmp_path: Path) -> None:
    fuzz(suffix, CI_EXAMPLES, tmp_path)


@pytest.mark.parametrize("suffix", ANSWER_FORMATS)
def test_mutated_answer_files_give_answers_or_the_one_line_error(
    suffix: str, tmp_path: Path
) -> None:
    fuzz(suffix, CI_EXAMPLES, tmp_path, answers=True)


@pytest.mark.slow
@pytest.mark.parametrize("suffix", FORMATS)
def test_many_mutated_files(suffix: str, tmp_path: Path) -> None:
    if "VERIFIER_FUZZ_EXAMPLES" not in os.environ:
        pytest.skip("the long fuzz: VERIFIER_FUZZ_EXAMPLES=20000 pytest -m slow tests/hostile")
    fuzz(suffix, SLOW_EXAMPLES, tmp_path)


# ---------------------------------------------------------------------- through the CLI
def limited_verify(*paths: Path, extra_mb: int = EXTRA_MB) -> subprocess.CompletedProcess[str]:
    """``verify PATHS`` in a child whose address space is limited to its imports + extra."""
    return subprocess.run(
        [sys.executable, str(HERE / "limited_cli.py"), str(extra_mb), "verify", *map(str, paths)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
        check=False,
    )


def assert_one_line_errors(proc: subprocess.CompletedProcess[str], bad: list[Path]) -> None:
    """Exit 2 and exactly one stderr line per bad file, naming it; no traceback."""
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-3000:])
    lines = proc.stderr.splitlines()
    assert len(lines) == len(bad), lines
    assert sorted(line.split(": $", 1)[0] for line in lines) == sorted(map(str, bad))


def test_issue_bomb_is_refused_before_decompression(tmp_path: Path) -> None:
    bomb = npz_bomb(tmp_path / "bomb.npz")
    proc = limited_verify(bomb)
    assert_one_line_errors(proc, [bomb])
    assert "too big to process" in proc.stderr


def test_issue_huge_literals_give_the_one_line_error(tmp_path: Path) -> None:
    files = [
        json_huge_literal(tmp_path / "value-5000.json", 5000),
        json_huge_literal(tmp_path / "value-100000.json", 100_000),
        json_huge_node_id(tmp_path / "node-id.json"),
    ]
    proc = limited_verify(*files)
    assert_one_line_errors(proc, files)
    assert proc.stderr.count("an integer literal of") == 3


def test_hostile_corpus_through_the_cli(tmp_path: Path) -> None:
    files = write_all(tmp_path)
    assert len(files) == len(HOSTILE)
    proc = limited_verify(*files)
    assert_one_line_errors(proc, files)


def test_mutated_files_through_the_cli(tmp_path: Path) -> None:
    for suffix in FORMATS:
        for k, raw in enumerate(distinct_mutants(suffix, CLI_SAMPLE)[:CLI_SAMPLE]):
            (tmp_path / f"m{k:03d}{suffix}").write_bytes(raw)
    outcomes, _ = read_batch(tmp_path)
    assert_case_or_one_line(outcomes, tmp_path)
    bad = [tmp_path / o["file"] for o in outcomes if o["outcome"] == "error"]
    proc = limited_verify(*sorted(tmp_path.iterdir()), extra_mb=EXTRA_MB + 300)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-3000:])
    assert sorted(proc.stderr.splitlines()) == sorted(
        o["message"] for o in outcomes if o["outcome"] == "error"
    )
    assert len(bad) == len(proc.stderr.splitlines())
