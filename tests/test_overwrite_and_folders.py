"""Issue 44 item 10: ``verify --certificate`` keeps an existing file unless --force (as
``solve -o`` does), and ``generate --engine dask`` into a missing folder is refused as every
other command refuses it (the dataset's own folder is made, never its parents)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from verifier.cli import app, verify_app

CASE = str(Path(__file__).resolve().parent.parent / "cases" / "dag-paul-carole.json")
runner = CliRunner()


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_verify_certificate_is_not_overwritten_without_force(tmp_path: Path) -> None:
    cert = tmp_path / "c.json"
    cert.write_text("keep me")
    r = runner.invoke(verify_app, [CASE, "--certificate", str(cert), "-q"])
    assert r.exit_code == 2
    assert _lines(r.stderr) == [f"{cert}: the file exists: --force replaces it"]
    assert cert.read_text() == "keep me"
    r = runner.invoke(verify_app, [CASE, "--certificate", str(cert), "-q", "--force"])
    assert r.exit_code == 0, r.stderr
    assert cert.read_text() != "keep me"


def test_verify_certificate_folder_keeps_existing_certificates(tmp_path: Path) -> None:
    folder = tmp_path / "certs"
    folder.mkdir()
    (folder / "dag-paul-carole.cert.json").write_text("keep me")
    r = runner.invoke(verify_app, [CASE, "--certificate", str(folder), "-q"])
    assert r.exit_code == 2
    assert _lines(r.stderr) == [
        f"{folder / 'dag-paul-carole.cert.json'}: the file exists: --force replaces it"
    ]


def test_solve_certificate_is_not_overwritten_without_force(tmp_path: Path) -> None:
    cert = tmp_path / "c.json"
    cert.write_text("keep me")
    r = runner.invoke(app, ["solve", CASE, "--certificate", str(cert)])
    assert r.exit_code == 2
    assert _lines(r.stderr) == [f"{cert}: the file exists: --force replaces it"]


def test_dask_generate_into_a_missing_folder_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "missing" / "c43"
    args = ["generate", "connect4", "--width", "4", "--height", "3", "--engine", "dask"]
    r = runner.invoke(app, [*args, "-o", str(out)])
    assert r.exit_code == 2
    assert _lines(r.stderr) == [f"{out}: cannot write the dataset: no such folder {out.parent}"]
    assert not out.parent.exists()
    # the same words as a case file's
    r = runner.invoke(
        app, ["generate", "connect4", "--width", "4", "--height", "3", "-o", str(out) + ".json"]
    )
    assert _lines(r.stderr) == [f"{out}.json: cannot write the file: no such folder {out.parent}"]
