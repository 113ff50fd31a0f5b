"""A pytest plugin: every case file under a folder is one test (``pytest --gamegraph-cases DIR``).

Registered as the ``pytest11`` entry point ``gamegraph``; it does nothing unless
``--gamegraph-cases DIR`` is given (repeatable). Each case file (``.json``, ``.npz``,
``.graphml``, ``.gml``) under DIR becomes one item, run as ``verify`` runs it:

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
    from verifier.pipeline import CaseReport

__all__ = ["CaseFile", "CaseItem", "answers_beside"]

CASE_SUFFIXES = (".json", ".npz", ".graphml", ".gml")
ANSWERS_TAG = ".answers"
"""``NAME.answers.csv`` holds the answers to judge for ``NAME.json``."""


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--gamegraph-cases DIR`` and ``--gamegraph-inconclusive fail|skip``."""
    group = parser.getgroup("gamegraph", "game graph cases (gamegraph-verifier)")
    group.addoption(
        "--gamegraph-cases",
        action="append",
        default=[],
        metavar="DIR",
        help="Verify every case file under DIR as one test (repeatable).",
    )
    group.addoption(
        "--gamegraph-inconclusive",
        choices=("fail", "skip"),
        default="fail",
        help="What an inconclusive case does (default: fail).",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Collect the case folders too."""
    for folder in config.getoption("gamegraph_cases"):
        if not Path(folder).is_dir():
            raise pytest.UsageError(f"--gamegraph-cases {folder}: not a folder")
        config.args.append(str(folder))


def _folders(config: pytest.Config) -> list[Path]:
    return [Path(f).resolve() for f in config.getoption("gamegraph_cases")]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A case file under one of the folders (not an answer file) is a :class:`CaseFile`."""
    folders = _folders(parent.config)
    if not folders or file_path.suffix.lower() not in CASE_SUFFIXES:
        return None
    if ANSWERS_TAG in file_path.name or not any(
        file_path.resolve().is_relative_to(f) for f in folders
    ):
        return None
    return CaseFile.from_parent(parent, path=file_path)


def answers_beside(case_file: Path) -> Path | None:
    """``NAME.answers.{csv,json,npz}`` beside ``NAME.<suffix>``, if there is one."""
    for suffix in (".csv", ".json", ".npz"):
        p = case_file.with_name(case_file.stem + ANSWERS_TAG + suffix)
        if p.is_file():
            return p
    return None


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
        from verifier.pipeline import CaseVerdict

        answers = answers_beside(self.path)
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
