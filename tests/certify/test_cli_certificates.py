"""The command line of certificates: ``verify cases/ --certificate OUT/`` writes one per case and
the standalone checker accepts each (issue 31's "done when"); ``solve -o --certificate`` checks
the answer file beside it; ``check-certificate`` is the checker's verdict and exit code."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from checker.check_certificate import check
from verifier.cli import app

CASES = Path(__file__).resolve().parents[2] / "cases"
runner = CliRunner()


def test_verify_a_folder_writes_a_certificate_per_case(tmp_path: Path) -> None:
    out = tmp_path / "certs"
    r = runner.invoke(app, ["verify", str(CASES), "--certificate", str(out), "-q"])
    assert r.exit_code == 0, r.output
    cases = sorted(p for p in CASES.iterdir() if p.suffix in (".json", ".graphml", ".gml"))
    assert {".graphml", ".gml"} <= {c.suffix for c in cases}  # the checker reads every format
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{c.stem}.cert.json" for c in cases)
    for case in cases:
        got = check(str(case), str(out / f"{case.stem}.cert.json"))
        assert got.status == "ACCEPTED", (case.name, got.message)


def test_solve_checks_the_answer_file_with_its_certificate(tmp_path: Path) -> None:
    case = CASES / "knuth-won-lost-unknown.json"
    answers, cert = tmp_path / "a.csv", tmp_path / "c.json"
    r = runner.invoke(app, ["solve", str(case), "-o", str(answers), "--certificate", str(cert)])
    assert r.exit_code == 0, r.output
    assert "SOLVED" in r.output  # solved, not proved: the certificate adds no Z3
    ok = runner.invoke(app, ["check-certificate", str(case), str(cert), "--answers", str(answers)])
    assert (ok.exit_code, ok.output.strip()) == (0, "ACCEPTED")
    text = answers.read_text().replace("\nd,won,", "\nd,lost,")
    answers.write_text(text)
    bad = runner.invoke(app, ["check-certificate", str(case), str(cert), "--answers", str(answers)])
    assert bad.exit_code == 1 and bad.output.startswith("REJECTED: position 'd': answers")
    other = runner.invoke(
        app, ["check-certificate", str(CASES / "knuth-pure-cycle.json"), str(cert)]
    )
    assert other.exit_code == 2 and "for another case file" in other.stderr


def test_no_certificate_for_a_refuted_case(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"semantics": "normal", "nodes": {"a": {"moves": ["b"]}, "b": {}},'
        ' "expect": {"labels": {"a": "lost"}}}'
    )
    cert = tmp_path / "bad.cert.json"
    r = runner.invoke(app, ["verify", str(bad), "--certificate", str(cert), "-q"])
    assert r.exit_code == 1
    assert not cert.exists() and "no certificate written" in r.stderr


def test_above_the_size_the_self_check_is_skipped_and_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from verifier import api
    from verifier.certify import outside, through_dataset

    monkeypatch.setattr(outside, "SELF_CHECK_POSITIONS", 3)
    monkeypatch.setattr(through_dataset, "dataset_limit", lambda: 3)  # and the dataset route's
    case = CASES / "kars-figure1-b-lt-d.json"  # 4 positions
    rep = api.verify(case)
    assert not [c for c in rep.checks if c.check == "certificate"]
    assert rep.summary["certificate"].startswith("skipped: 4 positions and 4 moves, above the 3")
    r = runner.invoke(app, ["verify", str(case)])
    assert "self-check of the certificate skipped: 4 positions" in r.output
    forced = api.verify(case, self_check=True)
    assert [c.verdict.value for c in forced.checks if c.check == "certificate"] == ["confirmed"]


def test_an_npz_case_is_self_checked_by_the_numpy_path_up_to_its_own_size(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import checker.fast as fast
    from verifier import api
    from verifier.certify import outside
    from verifier.games.random_graphs import random_case
    from verifier.io.binary import save_npz

    case = save_npz(random_case("minimax", 40, 2.5, seed=3), tmp_path / "m.npz")
    asked: list[str] = []
    real = fast.judge
    monkeypatch.setattr(fast, "judge", lambda *a: asked.append(a[1]) or real(*a))
    monkeypatch.setattr(outside, "SELF_CHECK_POSITIONS", 3)  # the plain path's size
    rep = api.verify(case)
    [cert] = [c for c in rep.checks if c.check == "certificate"]
    assert cert.verdict.value == "confirmed" and asked and asked[0].endswith(".npz")
    monkeypatch.setattr(outside, "SELF_CHECK_NPZ_POSITIONS", 3)
    rep = api.verify(case)
    assert rep.summary["certificate"] == "checked through a dataset"  # above: the dataset route


def test_a_sat_solver_that_gives_up_below_the_limit_leaves_the_case_inconclusive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A uniqueness claim whose proof the SAT solver gave up on, on a case small enough that
    the checker requires a proof: not refuted (nothing is wrong), not verified (the claim is
    not certified): the outside check cannot decide, and says why."""
    import verifier.certify.drup as drup
    from verifier import api

    monkeypatch.setattr(
        drup, "won_lost_proof", lambda *a: drup.DrupResult(why="the SAT solver gave up (test)")
    )
    rep = api.verify(CASES / "knuth-pure-cycle.json")
    cert = [c for c in rep.checks if c.check == "certificate"]
    assert rep.verdict.value == "inconclusive"
    assert [c.verdict.value for c in cert] == ["unknown"]
    assert "has no proof" in cert[0].detail and "gave up (test)" in cert[0].detail
