"""Issue 44 item 9: messages that say what is wrong in the user's terms."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from checker.check_certificate import check
from tests.standalone.test_check_certificate import NORMAL  # a hand-made case, certified
from tests.standalone.test_check_certificate import NORMAL_CERT as CERT
from verifier.cli import app, verify_app

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "cases"
runner = CliRunner()


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def _checked(tmp: Path, cert: dict[str, Any]) -> Any:
    c = tmp / "case.json"
    c.write_text(json.dumps(NORMAL))
    head = {"sha256": hashlib.sha256(c.read_bytes()).hexdigest(), "positions": 5, "moves": 5}
    doc = {"format": "gamegraph-verifier-certificate", "version": 1}
    p = tmp / "cert.json"
    p.write_text(json.dumps(doc | {"semantics": "normal", "case": head, **cert}))
    return check(str(c), str(p))


def test_a_rejection_names_the_certified_claim_that_fails(tmp_path: Path) -> None:
    assert _checked(tmp_path, CERT).status == "ACCEPTED"
    bad = copy.deepcopy(CERT)
    bad["nodes"]["e"] = {"value": "lost", "remoteness": 1, "move": "d"}
    out = _checked(tmp_path, bad)
    assert (out.status, out.position, out.condition) == ("REJECTED", "d", "N4")
    assert out.message == (
        "the certificate claims 'd' is a draw, but N4 needs no successor lost, some successor "
        "a draw"
    )
    bad = copy.deepcopy(CERT)
    bad["nodes"]["a"]["remoteness"] = 5
    assert _checked(tmp_path, bad).message == (
        "the certificate claims 'a' is lost, but N3 needs every successor won, remoteness 1 + "
        "their greatest"
    )
    bad = copy.deepcopy(CERT)
    bad["summary"]["won"] = 2
    assert _checked(tmp_path, bad).message.startswith("the certificate's summary claim fails: ")


CASE = str(CASES / "dag-paul-carole.json")


def test_an_unquoted_fen_is_told_to_be_quoted() -> None:
    fen = ["7k/Q7/6K1/8/8/8/8/8", "w", "-", "-", "0", "1"]
    r = runner.invoke(app, ["query", CASE, *fen, "--no-smt"])
    assert r.exit_code == 2
    assert _lines(r.stderr) == [
        f"{CASE}: $.nodes: no position named '7k/Q7/6K1/8/8/8/8/8': a FEN holds spaces, so "
        "quote it: '7k/Q7/6K1/8/8/8/8/8 w - - 0 1'"
    ]
    r = runner.invoke(app, ["query", CASE, "nope", "--no-smt"])
    assert _lines(r.stderr) == [f"{CASE}: $.nodes: no position named 'nope'"]


def _said(r: Any) -> str:
    return " ".join(r.output.replace("│", " ").split())


def test_a_misspelt_option_is_not_offered_a_hidden_one() -> None:
    r = runner.invoke(app, ["solve", CASE, "--ouput", "x.csv"])
    assert r.exit_code == 2
    assert "(Possible options: --output)" in _said(r) and "--out," not in _said(r)


def test_a_bad_choice_does_not_leak_pydantic_words() -> None:
    r = runner.invoke(app, ["solve", CASE, "--format", "yaml"])
    assert r.exit_code == 2
    assert "Invalid value for '--format': 'yaml' is not one of" in _said(r)
    assert "Value error" not in r.output


def test_a_missing_file_is_worded_alike_by_every_command(tmp_path: Path) -> None:
    for name in ("nope.json", "nope.npz", "nope.gml"):
        missing = str(tmp_path / name)
        said = {
            tuple(_lines(runner.invoke(verify_app, [missing]).stderr)),
            tuple(_lines(runner.invoke(app, ["solve", missing]).stderr)),
            tuple(_lines(runner.invoke(app, ["query", missing]).stderr)),
        }
        assert said == {(f"{missing}: $: no such file or directory",)}, said


def _case(tmp: Path, doc: dict[str, Any], name: str = "c.json") -> str:
    p = tmp / name
    p.write_text(json.dumps(doc))
    return str(p)


def test_uniqueness_with_no_solution_says_so_once(tmp_path: Path) -> None:
    loop = _case(tmp_path, {"semantics": "impartial", "nodes": {"a": {"moves": ["a"]}}})
    r = runner.invoke(app, ["uniqueness", loop])
    lines = _lines(r.stdout)
    assert lines[0] == "c: the mex equations have no solution"
    assert lines[1] == "no values for 1 position satisfy them; verify answers it with loopy values"
    assert "in every solution" not in r.stdout


def test_a_failed_expect_unique_names_the_expect_entry(tmp_path: Path) -> None:
    nodes = {"p": {"moves": ["q"]}, "q": {"moves": ["p"]}}
    two = _case(tmp_path, {"semantics": "normal", "nodes": nodes, "expect": {"unique": True}})
    r = runner.invoke(verify_app, [two, "-q"])
    assert r.exit_code == 1
    assert r.stdout.rstrip().endswith(
        "refuted: expect unique: true expected, smt-uniqueness finds more than one solution"
    )


def test_an_engine_with_no_solver_for_the_case_says_so(tmp_path: Path) -> None:
    nodes = {"a": {"moves": ["b"]}, "b": {"moves": ["a", "c"]}, "c": {}}
    imp = _case(tmp_path, {"semantics": "impartial", "nodes": nodes})
    r = runner.invoke(verify_app, [imp, "--engine", "numpy", "-q"])
    assert r.exit_code == 3
    assert r.stdout.rstrip().endswith(
        "unknown: no solver of --engine numpy answers this case: try another --engine"
    )


def test_an_engine_with_no_solver_says_so_before_the_expect_entries_it_leaves_open(
    tmp_path: Path,
) -> None:
    nodes = {"a": {"moves": ["b"]}, "b": {"moves": ["a", "c"]}, "c": {}}
    expect = {"grundy": {"c": 0}, "unique": True}
    imp = _case(tmp_path, {"semantics": "impartial", "nodes": nodes, "expect": expect})
    r = runner.invoke(verify_app, [imp, "--engine", "numpy", "-q"])
    assert r.exit_code == 3
    assert r.stdout.rstrip().endswith(
        "unknown: no solver of --engine numpy answers this case: try another --engine"
    )


def test_a_size_refusal_names_a_route_the_game_has(tmp_path: Path) -> None:
    c43 = tmp_path / "c43.npz"
    r = runner.invoke(
        app, ["generate", "connect4", "--width", "4", "--height", "3", "-o", str(c43)]
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["solve", str(c43), "--max-positions", "10"])
    assert r.exit_code == 2
    assert _lines(r.stderr)[0].endswith(
        "; raise --max-positions where the memory allows, or on disk: verifier generate "
        "connect4 --width 4 --height 3 -o DIR --engine dask (tiers)"
    )
    r = runner.invoke(app, ["solve", CASE, "--max-positions", "10"])
    assert _lines(r.stderr)[0].endswith("; raise --max-positions where the memory allows")


def test_the_api_holds_a_case_to_the_matching_command(monkeypatch: Any) -> None:
    import pytest

    import verifier
    from verifier.errors import CaseError
    from verifier.io import limits

    # a machine where solve's default admits the 16 positions of CASE and verify's does not
    memory = int(16 * limits.SOLVE_BYTES_PER_POSITION / limits.DEFAULT_MEMORY_SHARE) + 1
    monkeypatch.setattr(limits, "memory_bytes", lambda: memory)
    case = verifier.load(CASE)  # solve's limit, as verifier solve
    assert verifier.solve(case)["s"].value == 4
    with pytest.raises(CaseError) as e:
        verifier.verify(case)
    assert "too big to process in one process" in str(e.value)
    assert "or verifier solve (no proofs: 16 positions by default)" in str(e.value)
    assert "Connect Four" not in str(e.value)


def test_max_positions_raised_on_the_command_line_is_the_limit_the_run_keeps(
    monkeypatch: Any,
) -> None:
    """A case above the machine's default limit, admitted by ``--max-positions``, is solved and
    verified: the API the commands call holds it to the limit they were given, not to the
    default again (it raised that refusal as a traceback, exit 1)."""
    from verifier.io import limits

    # a machine where neither solve's nor verify's default admits the 16 positions of CASE
    memory = int(8 * limits.SOLVE_BYTES_PER_POSITION / limits.DEFAULT_MEMORY_SHARE)
    monkeypatch.setattr(limits, "memory_bytes", lambda: memory)
    for cmd in (["solve", CASE], ["verify", CASE, "--no-self-check"]):
        refused = runner.invoke(app, cmd)
        assert refused.exit_code == 2, refused.output
        assert "too big to process in one process" in _lines(refused.stderr)[0]
        r = runner.invoke(app, [*cmd, "--max-positions", "100"])
        assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
        assert r.exit_code == 0, (r.output, r.stderr)


def test_the_api_takes_the_limit_it_is_given(monkeypatch: Any) -> None:
    import pytest

    import verifier
    from verifier.errors import CaseError
    from verifier.io import limits

    memory = int(8 * limits.SOLVE_BYTES_PER_POSITION / limits.DEFAULT_MEMORY_SHARE)
    monkeypatch.setattr(limits, "memory_bytes", lambda: memory)
    with pytest.raises(CaseError):
        verifier.load(CASE)
    case = verifier.load(CASE, max_positions=100)
    with pytest.raises(CaseError):
        verifier.solve(case)
    assert verifier.solve(case, max_positions=100)["s"].value == 4
    assert verifier.solve(CASE, max_positions=100)["s"].value == 4
