"""Folders: only cases are cases (issue 29, item 2). ``verify DIR`` and ``pytest
--gamegraph-cases DIR`` find the same cases with the same answer files beside them, skip what is
not a case (hidden folders, virtual environments, JSON and .npz files that are not cases) and
say how many they skipped."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from verifier.cli import app, verify_app
from verifier.io.discover import discover

pytest_plugins = ["pytester"]

CASES = Path(__file__).resolve().parent.parent / "cases"
runner = CliRunner()


def _case(src: str, dst: Path) -> None:
    """A corpus case under another name, its id the file's stem."""
    data = json.loads((CASES / src).read_text())
    data["id"] = dst.stem
    dst.write_text(json.dumps(data))


def _folder(root: Path) -> Path:
    """Cases with NAME.answers.json / .csv beside them, a stray JSON file, and a virtual
    environment and a hidden folder full of JSON and .npz files that are not cases."""
    folder = root / "games"
    (folder / "sub").mkdir(parents=True)
    _case("dag-paul-carole.json", folder / "good.json")
    _case("dag-paul-carole.json", folder / "solved.json")
    r = runner.invoke(app, ["solve", str(folder / "solved.json"), "-o", str(folder / "x.json")])
    assert r.exit_code == 0, r.stderr
    (folder / "x.json").rename(folder / "solved.answers.json")  # the layout of docs/ci.md
    assert '"move"' in (folder / "solved.answers.json").read_text()
    _case("knuth-cycle-with-exit.json", folder / "sub" / "knuth.json")
    (folder / "sub" / "knuth.answers.csv").write_text("node,value\nx,won\n")  # x is lost
    _case("kars-figure1-b-lt-d.json", folder / "sub" / "kars.json")
    (folder / "stray.json").write_text('{"name": "not a case", "version": "1.0"}')
    (folder / "list.json").write_text("[1, 2, 3]")
    (folder / "broken.json").write_text('{"semantics": "minimax", "nodes": [}')
    venv = folder / "env"
    site = venv / "lib" / "python3.11" / "site-packages" / "matplotlib"
    site.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    np.savez(site / "sample.npz", x=np.arange(3))
    (site / "meta.json").write_text('{"semantics": "minimax"}')
    hidden = folder / ".cache"
    hidden.mkdir()
    (hidden / "old.json").write_text("{}")
    np.savez(folder / "data.npz", x=np.arange(3))
    return folder


EXPECTED = {
    "good.json": "verified",
    "solved.json": "verified",
    "knuth.json": "refuted",
    "kars.json": "verified",
    "broken.json": "bad-input",
}


def _load() -> list[str]:
    """Load the plugin explicitly unless its entry point does (twice is an error)."""
    from importlib.metadata import entry_points

    installed = any(e.value == "verifier.pytest_plugin" for e in entry_points(group="pytest11"))
    return [] if installed else ["-p", "verifier.pytest_plugin"]


def _verify_verdicts(folder: Path) -> tuple[dict[str, str], str, int]:
    r = runner.invoke(verify_app, [str(folder), "--json"])
    doc = json.loads(r.stdout)
    verdicts = {f"{c['case']}.json": c["verdict"] for c in doc["cases"]}
    for e in doc["errors"]:
        verdicts[Path(e.split(": ")[0]).name] = "bad-input"
    return verdicts, r.stderr, r.exit_code


def test_verify_and_the_pytest_plugin_give_the_same_verdicts(
    pytester: pytest.Pytester,
) -> None:
    folder = _folder(pytester.path)
    verdicts, err, code = _verify_verdicts(folder)
    assert verdicts == EXPECTED, err
    assert code == 2  # bad input outranks refuted
    assert "skipped 3 files that are not cases" in err, err
    assert "and 2 hidden or environment folders" in err, err

    result = pytester.runpytest_subprocess(*_load(), "-rA", "--gamegraph-cases", str(folder))
    out = result.stdout.str()
    seen = dict(
        (m.group(2), m.group(1))
        for m in re.finditer(r"^(PASSED|FAILED) \S*?([\w.-]+\.json)::", out, re.M)
    )
    plugin = {name: "verified" if v == "PASSED" else "not verified" for name, v in seen.items()}
    assert plugin == {
        n: "verified" if v == "verified" else "not verified" for n, v in EXPECTED.items()
    }, out
    assert "gamegraph: 5 case file(s); skipped 3 files that are not cases" in out
    assert "claimed won" in out  # knuth.answers.csv was judged


def test_discovery_pairs_answers_with_their_case(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    found = {f.path.name: f for f in discover([folder]).cases}
    assert sorted(found) == sorted(EXPECTED)
    assert found["solved.json"].answers == folder / "solved.answers.json"
    assert found["knuth.json"].answers == folder / "sub" / "knuth.answers.csv"
    assert found["good.json"].answers is None and found["good.json"].error is None
    skipped = {p.name: why for p, why in discover([folder]).skipped}
    assert skipped == {
        "stray.json": 'not a JSON object with "semantics"',
        "list.json": 'not a JSON object with "semantics"',
        "data.npz": "an .npz without the case header",
    }
    assert sorted(p.name for p in discover([folder]).folders) == [".cache", "env"]


def test_two_answer_files_or_answers_without_a_case_are_bad_input(tmp_path: Path) -> None:
    _case("dag-paul-carole.json", tmp_path / "a.json")
    (tmp_path / "a.answers.csv").write_text("node,value\n")
    (tmp_path / "a.answers.json").write_text("{}")
    (tmp_path / "b.answers.csv").write_text("node,value\n")
    r = runner.invoke(verify_app, [str(tmp_path), "-q"])
    assert r.exit_code == 2
    assert "a.json: $: 2 answer files beside it (a.answers.csv, a.answers.json): keep one" in (
        r.stderr
    )
    assert "b.answers.csv: $: answers without their case: no b.json" in r.stderr
    assert "Traceback" not in r.stderr


def test_a_missing_folder_says_so(tmp_path: Path) -> None:
    r = runner.invoke(verify_app, [str(tmp_path / "nosuchdir") + "/"])
    assert r.exit_code == 2
    assert r.stderr.strip() == f"{tmp_path / 'nosuchdir'}: $: no such file or directory"


def test_answers_and_case_swapped(tmp_path: Path) -> None:
    case = tmp_path / "case.json"
    shutil.copy(CASES / "dag-paul-carole.json", case)
    r = runner.invoke(verify_app, [str(case), "--answers", str(case)])
    assert r.exit_code == 2
    assert r.stderr.strip() == (
        f"{case}: $: a case file, not an answer file: give the case first, "
        f"verify {case} --answers ANSWERS"
    )
    answers = tmp_path / "case.answers.json"
    assert runner.invoke(app, ["solve", str(case), "-o", str(answers)]).exit_code == 0
    r = runner.invoke(verify_app, [str(answers), "--answers", str(case)])
    assert r.exit_code == 2
    assert r.stderr.strip() == (
        f"{case}: $: a case file, not an answer file: give the case first, "
        f"verify {case} --answers ANSWERS"
    )


def test_a_typo_names_the_field_and_the_closest_known_one(tmp_path: Path) -> None:
    case = tmp_path / "typo.json"
    case.write_text('{"semantic": "normal", "nodes": {"a": {"moves": ["b"]}, "b": {}}}')
    r = runner.invoke(verify_app, [str(case)])
    assert r.exit_code == 2
    assert r.stderr.strip() == (
        f'{case}: $.semantic: unknown field "semantic" (did you mean "semantics"?)'
    )
    r = runner.invoke(verify_app, [str(tmp_path)])  # in a folder it is still a case
    assert r.exit_code == 2 and 'did you mean "semantics"' in r.stderr
