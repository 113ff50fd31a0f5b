"""README's test command is the one CI runs, and it works however pytest is started.

Issue 44 (1): `.venv/bin/pytest` (README) failed a Dask test that `python -m pytest` (CI) passed:
the Dask worker processes unpickle helpers from ``tests`` and could not import it, because only
``python -m`` puts the repository on ``sys.path``. Now the pytest configuration does
(``pythonpath``), and ``.ci/run`` reads README's command instead of writing its own.
"""

from __future__ import annotations

import multiprocessing
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _import_test_helpers() -> str:
    import tests.distributed.dist_graphs as helpers  # what the Dask workers unpickle

    return helpers.__name__


def test_a_spawned_worker_process_imports_the_test_helpers() -> None:
    """A process started as Dask's nanny starts workers (spawn) can import ``tests``: with
    ``.venv/bin/pytest`` and no ``pythonpath`` setting it raised ModuleNotFoundError."""
    child = multiprocessing.get_context("spawn").Process(target=_import_test_helpers)
    child.start()
    child.join(timeout=120)
    assert child.exitcode == 0  # 1: the child could not import this module or ``tests``


def test_ci_runs_readme_test_command_as_written() -> None:
    """``.ci/run`` finds exactly one test command in README by its own pattern, and it is the
    one README shows under "Install with the test tools"."""
    ci = (ROOT / ".ci" / "run").read_text()
    pattern = re.search(r"grep -E '(.+?)' README\.md", ci)
    assert pattern is not None
    readme = (ROOT / "README.md").read_text()
    found = subprocess.run(
        ["grep", "-E", pattern[1], "README.md"], cwd=ROOT, capture_output=True, text=True
    ).stdout.splitlines()
    assert found == [
        "    python3 -m venv .venv && .venv/bin/pip install -e '.[test,dask,openspiel,counting]' "
        "&& .venv/bin/pytest"
    ]
    after = readme.index("Install with the test tools")
    assert readme.index(found[0]) > after
    assert "python -m pytest" not in ci  # the same runner as README's, not another one
