"""The pytest plugin: `pytest --gamegraph-cases DIR` runs every case under DIR as one test."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CASES = Path(__file__).resolve().parent.parent / "cases"


def _installed() -> bool:
    """Is the plugin registered through the package's ``pytest11`` entry point?"""
    from importlib.metadata import entry_points

    return any(e.value == "verifier.pytest_plugin" for e in entry_points(group="pytest11"))


def _load() -> list[str]:
    """Load the plugin explicitly unless the entry point does (twice is an error)."""
    return [] if _installed() else ["-p", "verifier.pytest_plugin"]


def _folder(root: Path) -> Path:
    """A verified case, a refuted one, one with wrong answers beside it, an unreadable one."""
    folder = root / "cases"
    folder.mkdir()
    shutil.copy(CASES / "dag-paul-carole.json", folder / "good.json")
    bad = json.loads((CASES / "kars-figure1-b-ge-d.json").read_text())
    bad["expect"]["root_value"] = 7
    (folder / "wrong-expect.json").write_text(json.dumps(bad))
    shutil.copy(CASES / "knuth-cycle-with-exit.json", folder / "knuth.json")
    (folder / "knuth.answers.csv").write_text("node,value\nx,won\n")  # x is lost in 2 plies
    (folder / "broken.json").write_text("{not json")
    return folder


def test_each_case_is_one_test_with_the_witness_as_its_message(pytester: pytest.Pytester) -> None:
    folder = _folder(pytester.path)
    result = pytester.runpytest_subprocess(*_load(), "--gamegraph-cases", str(folder))
    result.assert_outcomes(passed=1, failed=3)
    out = result.stdout.str()
    assert "wrong-expect.json" in out and "expect root_value" in out
    assert "knuth.json" in out and "'x'" in out and "claimed won" in out
    assert "broken.json: $" in out
    assert "good.json" not in out.split("short test summary")[-1]


def test_nothing_happens_without_the_option(pytester: pytest.Pytester) -> None:
    _folder(pytester.path)
    pytester.makepyfile(test_plain="def test_one():\n    assert True\n")
    result = pytester.runpytest_subprocess(*_load(), "test_plain.py")
    result.assert_outcomes(passed=1)


def test_the_entry_point_loads_the_plugin(pytester: pytest.Pytester) -> None:
    if not _installed():
        pytest.skip("the package is not installed with its entry points")
    folder = _folder(pytester.path)
    result = pytester.runpytest_subprocess("--gamegraph-cases", str(folder))
    result.assert_outcomes(passed=1, failed=3)


def test_a_missing_path_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        *_load(), "--gamegraph-cases", str(pytester.path / "nope")
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def _project_with_a_test_suite(root: Path) -> Path:
    """A project whose ``testpaths`` hold a test that fails if it runs, and a cases folder."""
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    (root / "tests").mkdir()
    (root / "tests" / "test_suite.py").write_text(
        "def test_the_suite_ran():\n    raise AssertionError('the project suite ran')\n"
    )
    return _folder(root)


def test_the_option_alone_runs_only_the_cases_not_the_testpaths(pytester: pytest.Pytester) -> None:
    _project_with_a_test_suite(pytester.path)
    result = pytester.runpytest_subprocess(*_load(), "--gamegraph-cases", "cases/")
    result.assert_outcomes(passed=1, failed=3)
    assert "the project suite ran" not in result.stdout.str()


def test_the_folder_also_given_as_a_path_runs_each_case_once(pytester: pytest.Pytester) -> None:
    _project_with_a_test_suite(pytester.path)
    result = pytester.runpytest_subprocess(*_load(), "cases/", "--gamegraph-cases", "cases/")
    result.assert_outcomes(passed=1, failed=3)


def test_a_single_case_file(pytester: pytest.Pytester) -> None:
    _project_with_a_test_suite(pytester.path)
    good = pytester.runpytest_subprocess(*_load(), "--gamegraph-cases", "cases/good.json")
    good.assert_outcomes(passed=1)
    assert "good.json" in good.stdout.str()
    bad = pytester.runpytest_subprocess(*_load(), "--gamegraph-cases", "cases/wrong-expect.json")
    bad.assert_outcomes(failed=1)
    assert "expect root_value" in bad.stdout.str()
