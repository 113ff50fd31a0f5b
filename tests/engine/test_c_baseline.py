"""The C baseline of the benchmarks (``benchmarks/c/retrograde.c``, issue 18) labels every
position as the numpy engine does, so that timing against it compares like with like: compiled
with gcc (skipped without one), run on hand-made and random normal-play graphs, some of whose
dead ends are declared wins or draws."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from verifier.engine import retrograde_numpy
from verifier.games.random_graphs import random_case
from verifier.model import GameGraph, Semantics

SOURCE = Path(__file__).resolve().parents[2] / "benchmarks" / "c" / "retrograde.c"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("no C compiler")
    exe = tmp_path_factory.mktemp("c") / "retrograde"
    subprocess.run([gcc, "-O2", "-Wall", "-Werror", "-o", str(exe), str(SOURCE)], check=True)
    return exe


def _run_c(program: Path, g: GameGraph, tmp: Path) -> tuple[list[int], list[int]]:
    """The C program's labels and remoteness of ``g`` (its raw input format written here)."""
    end = np.nan_to_num(g.value, nan=0.0).astype("<i1")
    head = np.array([g.n, g.m], dtype="<i8")
    arrays = (head, g.succ_ptr.astype("<i4"), g.succ_idx.astype("<i4"), end)
    (tmp / "g.bin").write_bytes(b"".join(a.tobytes() for a in arrays))
    subprocess.run([str(program), str(tmp / "g.bin"), str(tmp / "out.bin")], check=True)
    out = (tmp / "out.bin").read_bytes()
    label = np.frombuffer(out[: g.n], dtype=np.int8)
    return label.tolist(), np.frombuffer(out[g.n :], dtype="<i4").tolist()


def test_by_hand(program: Path, tmp_path: Path) -> None:
    # a -> b -> c (lost): c lost 0, b won 1, a lost 2; d <-> e drawn; f -> {e, g}, g a declared
    # draw: f drawn; h -> i, i a declared win: h lost 1
    g = GameGraph.from_successors(
        {"a": ["b"], "b": ["c"], "c": [], "d": ["e"], "e": ["d"], "f": ["e", "g"], "g": [],
         "h": ["i"], "i": []},
        semantics=Semantics.NORMAL,
    )  # fmt: skip
    value = np.where(g.is_terminal, -1.0, np.nan)
    value[g.id_of("g")], value[g.id_of("i")] = 0.0, 1.0
    label, rem = _run_c(program, g.replace(value=value), tmp_path)
    named = {g.name(i): (label[i], rem[i]) for i in range(g.n)}
    assert named == {
        "a": (-1, 2), "b": (1, 1), "c": (-1, 0), "d": (0, -1), "e": (0, -1), "f": (0, -1),
        "g": (0, -1), "h": (-1, 1), "i": (1, 0),
    }  # fmt: skip


@pytest.mark.parametrize("seed", range(6))
def test_random_graphs_agree_with_the_engine(program: Path, tmp_path: Path, seed: int) -> None:
    g = random_case("normal", 50 + 400 * seed, 1.0 + seed / 2, seed).graph
    label, rem = _run_c(program, g, tmp_path)
    ref = retrograde_numpy(g)
    assert label == ref.label.tolist()
    assert rem == ref.remoteness.tolist()
    assert 0 < label.count(0) < g.n  # draws, wins and losses all occur
