"""A pytest plugin: every case file under a folder is one test (``pytest --gamegraph-cases DIR``).

Registered as the ``pytest11`` entry point ``gamegraph``; it does nothing unless
``--gamegraph-cases DIR`` is given (repeatable; a case file works too). Without other paths on
the command line only the cases run, not the project's ``testpaths``. Each case under DIR
becomes one item, found as
``verify DIR`` finds them (``verifier.io.discover``: hidden folders and virtual environments
are not entered, JSON and ``.npz`` files that are not cases are skipped and counted in the
header of the run), and run as ``verify`` runs it:

* verified: passes;
* refuted: fails, the message is every refuted check in words with its witness;
* inconclusive: fails too (``--gamegraph-inconclusive=skip`` skips it with the reason instead);
* a file that cannot be read: fails with the one-line ``FILE: PATH: problem`` error.

An answer file beside a case, ``NAME.answers.csv`` (or ``.json``, ``.npz``) for ``NAME.json``,
is judged with the case, as ``verify NAME.json --answers NAME.answers.csv`` (docs/answers.md):
the way to check an external solver's answers in a project's own test run (docs/ci.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from verifier.io.discover import Discovery, Found  # noqa: F401 (in the StashKeys' strings)
    from verifier.model.report import CaseReport

__all__ = ["CaseFile", "CaseItem", "answers_beside"]

_FOUND = pytest.StashKey["dict[Path, Found]"]()
_DISCOVERY = pytest.StashKey["Discovery"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--gamegraph-cases DIR|FILE`` and ``--gamegraph-inconclusive fail|skip``."""
    group = parser.getgroup("gamegraph", "game graph cases (gamegraph-verifier)")
    group.addoption(
        "--gamegraph-cases",
        action="append",
        default=[],
        metavar="DIR",
        help="Verify every case file under DIR (or the case file DIR) as one test (repeatable); "
        "without other paths only the cases run.",
    )
    group.addoption(
        "--gamegraph-inconclusive",
        choices=("fail", "skip"),
        default="fail",
        help="What an inconclusive case does (default: fail).",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Find the cases under the folders, as ``verify`` does, and collect exactly them (with the
    paths given on the command line, if any)."""
    paths = [Path(f) for f in config.getoption("gamegraph_cases")]
    for path in paths:
        if not path.exists():
            raise pytest.UsageError(f"--gamegraph-cases {path}: no such file or folder")
    if not paths:
        return
    from verifier.io.discover import discover  # the package is imported only when asked

    found = discover(paths)
    config.stash[_DISCOVERY] = found
    config.stash[_FOUND] = {f.path.resolve(): f for f in found.cases}
    cases = [str(f.path) for f in found.cases]
    if config.args_source is pytest.Config.ArgsSource.ARGS:
        config.args.extend(cases)  # the paths given run too (a case given twice runs once)
    else:
        config.args[:] = cases  # not ``testpaths`` nor the current folder: only the cases asked for


def pytest_report_header(config: pytest.Config) -> str | None:
    """How many cases were found, and what was skipped."""
    found = config.stash.get(_DISCOVERY, None)
    if found is None:
        return None
    note = found.note()
    return f"gamegraph: {len(found.cases)} case file(s)" + (f"; {note}" if note else "")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A case found under one of the folders is a :class:`CaseFile`."""
    found = parent.config.stash.get(_FOUND, {}).get(file_path.resolve())
    if found is None:
        return None
    return CaseFile.from_parent(parent, path=file_path)


def answers_beside(case_file: Path) -> Path | None:
    """``NAME.answers.{csv,json,npz,parquet}`` beside ``NAME.<suffix>``, if there is one."""
    from verifier.io.discover import discover

    return discover([case_file]).cases[0].answers


class CaseFile(pytest.File):
    """One case file: one item."""

    def collect(self) -> Iterator[pytest.Item]:
        yield CaseItem.from_parent(self, name=self.path.name)


class CaseFailure(Exception):
    """A case that did not verify; ``str`` is the message pytest shows."""


class CaseItem(pytest.Item):
    """Verify one case file (and judge the answers beside it)."""

    def runtest(self) -> None:
        from verifier.api import verify
        from verifier.errors import VerifierError
        from verifier.model.report import CaseVerdict

        found = self.config.stash[_FOUND][self.path.resolve()]
        if found.error is not None:
            raise CaseFailure(found.error)
        answers = found.answers
        try:
            rep = verify(self.path, answers=answers)
        except VerifierError as e:
            raise CaseFailure(str(e)) from None
        if rep.verdict is CaseVerdict.REFUTED:
            raise CaseFailure(_message(rep, "refuted"))
        if rep.verdict is CaseVerdict.INCONCLUSIVE:
            if self.config.getoption("gamegraph_inconclusive") == "skip":
                pytest.skip(_message(rep, "unknown"))
            raise CaseFailure(_message(rep, "unknown"))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, CaseFailure):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"case {self.name}"


def _message(rep: CaseReport, verdict: str) -> str:
    """The checks of ``rep`` with ``verdict`` in words, each with its witness."""
    from verifier.writers.witness import witness_words

    lines = [f"{rep.case.id}: {rep.verdict.value}"]
    for c in rep.checks:
        if c.verdict.value == verdict:
            lines.append(f"  {c.name}: {c.detail}")
            words = witness_words(c.witness or {}, rep.case.semantics)
            if words:
                lines.append(f"    witness: {words}")
    return "\n".join(lines)
