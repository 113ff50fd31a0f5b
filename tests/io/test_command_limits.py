"""The default ``--max-positions`` of each command, sized by what it costs a position
(``COMMAND_BYTES_PER_POSITION``, measured by ``benchmarks/bench_memory_per_command.py``): a
``solve`` accepts far more than a full ``verify``; a refusal is one line naming the file, the
limit and the ways on (a higher limit, ``--engine dask``). No big graph is built: the machine's
memory is monkeypatched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from io_examples import MINIMAX_READABLE
from typer.testing import CliRunner

from verifier.cli import app
from verifier.errors import CaseError
from verifier.io import Limits, parse_case
from verifier.io import limits as limits_module
from verifier.io.limits import (
    BYTES_PER_POSITION,
    COMMAND_BYTES_PER_POSITION,
    DEFAULT_MEMORY_SHARE,
    LINEAR_BYTES_PER_POSITION,
    MIN_BUDGET_BYTES,
    SOLVE_BYTES_PER_POSITION,
    VERIFY_BYTES_PER_POSITION,
    default_max_positions,
)

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "cases" / "simple-cycle-draw.json"  # 3 nodes and 3 moves: 6 positions

GIB = 1 << 30
C4_6X4_POSITIONS = 94_910_577 + 237_182_644
"""Connect Four 6x4, measured: ``verifier generate connect4 --width 6 --height 4`` wrote
94,910,577 nodes and 237,182,644 moves (docs/games.md has the same counts)."""


def _machine(monkeypatch: pytest.MonkeyPatch, nbytes: int) -> None:
    monkeypatch.setattr(limits_module, "memory_bytes", lambda: nbytes)


def test_each_command_has_its_own_cost() -> None:
    assert set(COMMAND_BYTES_PER_POSITION) == {"solve", "verify", "linear"}
    assert SOLVE_BYTES_PER_POSITION < LINEAR_BYTES_PER_POSITION < VERIFY_BYTES_PER_POSITION
    assert BYTES_PER_POSITION == VERIFY_BYTES_PER_POSITION  # Limits() stays sized for verify
    assert Limits() == Limits.for_command("verify")
    assert Limits.for_linear_run() == Limits.for_command("linear")


def test_the_defaults_differ_as_the_costs_say(monkeypatch: pytest.MonkeyPatch) -> None:
    _machine(monkeypatch, 24 * GIB)
    solve, verify, linear = (Limits.for_command(c) for c in ("solve", "verify", "linear"))
    assert solve.max_positions > linear.max_positions > verify.max_positions
    for limits in (solve, verify, linear):
        # the byte checks use the same command's cost: every default budget is the same share
        assert limits.max_positions == default_max_positions(limits.bytes_per_position)
        share = 24 * GIB * DEFAULT_MEMORY_SHARE
        assert share - limits.bytes_per_position < limits.budget_bytes <= share


def test_connect_four_6x4_is_solved_with_the_defaults_on_24_gib(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _machine(monkeypatch, 24 * GIB)
    Limits.for_command("solve").check_positions(C4_6X4_POSITIONS, "c64.npz")  # accepted
    with pytest.raises(CaseError, match="too big to process in one process"):
        Limits.for_command("verify").check_positions(C4_6X4_POSITIONS, "c64.npz")
    _machine(monkeypatch, 8 * GIB)  # a smaller machine: solve truly would not fit
    with pytest.raises(CaseError, match="too big to process in one process"):
        Limits.for_command("solve").check_positions(C4_6X4_POSITIONS, "c64.npz")


def test_the_refusal_is_one_line_naming_the_limit_and_a_route_that_exists() -> None:
    with pytest.raises(CaseError) as e:
        Limits.for_command("solve", 5).check_positions(6, "c.npz")
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith("c.npz: $: 6 positions: too big to process in one process")
    assert "more than --max-positions 5 (nodes + moves)" in msg
    assert msg.endswith("; raise --max-positions where the memory allows")  # nothing else
    assert "Connect Four" not in msg and "dask" not in msg  # no route this case has not
    for check in (
        lambda: Limits(1).check_bytes(10**12, "c.npz", "the arrays declared"),
        lambda: Limits(1).check_text_size(10**12, "c.json"),
    ):
        with pytest.raises(CaseError, match="raise --max-positions") as e:
            check()
        assert "\n" not in str(e.value)


def test_byte_checks_follow_the_command() -> None:
    n = 10**7
    assert Limits.for_command("solve", n).budget_bytes == n * SOLVE_BYTES_PER_POSITION
    assert Limits.for_command("verify", n).budget_bytes == n * VERIFY_BYTES_PER_POSITION
    size = len(json.dumps(MINIMAX_READABLE))
    parse_case(json.dumps(MINIMAX_READABLE), "ok.json", limits=Limits.for_command("solve", 100))
    assert size < MIN_BUDGET_BYTES  # small files are judged by the positions they hold


def _one_line_exit_2(args: list[str]) -> str:
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 2, (args, r.output)
    assert "Traceback" not in r.output and r.output.count("\n") == 1, r.output
    return r.output


@pytest.mark.parametrize(
    "args",
    [
        ["verify", str(CASE)],
        ["solve", str(CASE)],
        ["query", str(CASE)],
        ["render", str(CASE), "-o", "{tmp}/c.svg"],
        ["uniqueness", str(CASE)],
    ],
    ids=lambda a: a[0],
)
def test_a_tiny_limit_refuses_on_every_command(args: list[str], tmp_path: Path) -> None:
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    out = _one_line_exit_2([*args, "--max-positions", "1"])
    assert out.startswith(f"{CASE}: $: 3 nodes and 3 moves: too big to process in one process")
    assert "--max-positions 1 (nodes + moves)" in out and "raise --max-positions" in out
    assert "Connect Four" not in out and "--engine dask" not in out


def test_a_tiny_limit_refuses_the_linear_run(tmp_path: Path) -> None:
    answers = tmp_path / "a.json"
    r = CliRunner().invoke(app, ["solve", str(CASE), "-o", str(answers)])
    assert r.exit_code == 0, r.output
    out = _one_line_exit_2(
        ["verify", str(CASE), "--answers", str(answers), "--linear", "--max-positions", "1"]
    )
    assert "too big to process in one process" in out and "raise --max-positions" in out


def test_the_cli_defaults_are_per_command(monkeypatch: pytest.MonkeyPatch) -> None:
    # a machine where solve's default admits the 6 positions of CASE and verify's does not
    memory = int(6 * SOLVE_BYTES_PER_POSITION / DEFAULT_MEMORY_SHARE) + 1
    _machine(monkeypatch, memory)
    assert Limits.for_command("solve").max_positions == 6
    assert Limits.for_command("verify").max_positions < 6
    r = CliRunner().invoke(app, ["solve", str(CASE), "--quiet"])
    assert r.exit_code == 0, r.output
    out = _one_line_exit_2(["verify", str(CASE)])
    assert "too big to process in one process" in out
