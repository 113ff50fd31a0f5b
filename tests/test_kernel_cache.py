"""The first run compiles numba's kernels for a minute in silence: a line says so when numba's
on-disk cache is cold, and nothing once the kernels are cached (``verifier.kernel_cache``).
Each run here points ``NUMBA_CACHE_DIR`` at an empty folder of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parent.parent

COLD = """
import sys
import numpy as np
from verifier.kernel_cache import cold
print(cold("verifier._certificate_kernels"))
if sys.argv[1:] == ["compile"]:  # one kernel, compiled in about a second and cached
    from verifier._certificate_kernels import forced
    i8 = np.zeros(1, np.int64)
    forced(np.zeros(2, np.int64), i8[:0], np.zeros(1, np.int8), i8, np.ones(1, bool), 0)
"""


def _python(code: str, cache: Path, *args: str) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_module_is_cold_until_its_kernels_are_cached(tmp_path: Path) -> None:
    assert _python(COLD, tmp_path, "compile") == "True"  # an empty cache: cold
    assert _python(COLD, tmp_path) == "False"  # compiled once and cached: warm


def test_a_module_without_numba_kernels_is_not_cold(tmp_path: Path) -> None:
    code = "from verifier.kernel_cache import cold; print(cold('verifier.progress'))"
    assert _python(code, tmp_path) == "False"


@pytest.mark.slow
def test_the_first_chess_generation_says_it_compiles_once(tmp_path: Path) -> None:
    """About 30 s cold on 2 cores, then about 6 s warm."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    line = "progress: compiling the chess kernels once (about 30 s; cached for later runs)"

    def generate(out: str) -> list[str]:
        argv = [sys.executable, "-m", "verifier.cli", "generate", "chess:KQK", "-o", out]
        done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return done.stderr.splitlines()

    assert line in generate("first.npz")
    assert line not in generate("second.npz")


def test_the_compiled_engine_says_it_compiles_once(tmp_path: Path) -> None:
    """``verify --engine compiled`` on a fresh cache: the line, then (cached) nothing; about
    9 s then 2 s."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    line = "progress: compiling the solver kernels once (about 20 s; cached for later runs)"
    argv = [sys.executable, "-m", "verifier.cli", "verify", "cases/dag-paul-carole.json"]

    def verify() -> list[str]:
        done = subprocess.run(
            [*argv, "--engine", "compiled", "-q"], capture_output=True, text=True, env=env, cwd=ROOT
        )
        assert done.returncode == 0, done.stderr
        return done.stderr.splitlines()

    assert line in verify()
    assert line not in verify()


REPORTED = """
import numpy as np
from numba import njit
from verifier.kernel_cache import report_compiles
from verifier.progress import Counts, reporting

@njit(cache=False)
def twice(a):
    return a * 2

seen = []
report_compiles()
with reporting(lambda task, done, total: seen.append(task)):
    twice(np.arange(3))  # compiled here: two steps
    twice(np.arange(3))  # compiled already: none
counts = Counts()
counts("compiling twice", 0, 0)
print(seen, repr(str(counts)))
"""


def test_each_kernel_numba_compiles_is_a_step_a_heartbeat_names(tmp_path: Path) -> None:
    """While numba compiles, a heartbeat says which kernel (it repeated ``materials listed
    2/2`` for half a minute); a step with nothing to count shows its name alone."""
    out = _python(REPORTED, tmp_path)
    assert out == (
        "['compiling twice (numba, the first run only)', 'twice compiled'] ': compiling twice'"
    )


@pytest.mark.slow
def test_reading_a_chess_case_on_a_cold_cache_says_it_compiles(tmp_path: Path) -> None:
    """A chess ``.npz`` made elsewhere: reading its names compiles the chess kernels (about 17
    s, in silence before); the line comes with progress wanted, and the read counts in the
    reported seconds. About a minute (one generation, one cold verify)."""
    warm = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "warm"), "PYTHONPATH": str(ROOT)}
    made = subprocess.run(
        [sys.executable, "-m", "verifier.cli", "generate", "chess:KQK", "-o", "kqk.npz"],
        capture_output=True,
        text=True,
        env=warm,
        cwd=tmp_path,
    )
    assert made.returncode == 0, made.stderr
    cold_env = {**warm, "NUMBA_CACHE_DIR": str(tmp_path / "cold"), "VERIFIER_PROGRESS_EVERY": "2"}
    done = subprocess.run(
        [sys.executable, "-m", "verifier.cli", "verify", "kqk.npz", "--no-self-check", "-q"],
        capture_output=True,
        text=True,
        env=cold_env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    line = "progress: compiling the chess kernels once (about 30 s; cached for later runs)"
    assert lines.count(line) == 1, done.stderr
    assert any(x.startswith("progress: reading kqk.npz: compiling") for x in lines), lines
