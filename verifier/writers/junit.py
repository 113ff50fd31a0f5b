"""``verify --junit FILE``: the run as JUnit XML, for CI systems that show test reports.

One ``<testsuite name="verify">`` with one ``<testcase>`` per case file: ``classname`` is the
folder of the file, ``name`` the case's id, ``time`` its seconds. A refuted case has a
``<failure>`` whose message is the first refuted check in words (its witness in the body); an
inconclusive case has an ``<error type="inconclusive">`` naming what could not be decided; a
file that could not be read has an ``<error type="bad-input">`` with the one-line message. A
verified (or solved) case has neither.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from verifier.io.files import write_atomically
from verifier.model import CheckResult
from verifier.model.report import CaseReport, CaseVerdict
from verifier.model.semantics import Semantics
from verifier.writers.base import reasons
from verifier.writers.witness import witness_words

__all__ = ["junit_tree", "write_junit"]


def _line(c: CheckResult) -> str:
    """A check in one line: its name and detail."""
    return f"{c.name}: {c.detail}"


def _body(checks: Sequence[CheckResult], semantics: Semantics) -> str:
    """Every check in ``checks`` with its witness in words, one paragraph each."""
    parts = []
    for c in checks:
        text = _line(c)
        words = witness_words(c.witness or {}, semantics)
        if words:
            text += "\nwitness: " + words
        parts.append(text)
    return "\n\n".join(parts)


def _testcase(rep: CaseReport) -> ET.Element:
    """The ``<testcase>`` of one case."""
    path = rep.case.path
    el = ET.Element(
        "testcase",
        classname=str(path.parent) if path is not None else "",
        name=rep.case.id,
        time=f"{rep.seconds:.3f}",
    )
    if rep.verdict is CaseVerdict.REFUTED:
        bad = reasons(rep)  # root causes first
        failure = ET.SubElement(el, "failure", type="refuted", message=_line(bad[0]))
        failure.text = _body(bad, rep.case.semantics)
    elif rep.verdict is CaseVerdict.INCONCLUSIVE:
        open_ = reasons(rep)
        message = _line(open_[0]) if open_ else "inconclusive"
        error = ET.SubElement(el, "error", type="inconclusive", message=message)
        error.text = _body(open_, rep.case.semantics)
    return el


def _bad_input(message: str) -> ET.Element:
    """The ``<testcase>`` of a file that could not be read (its one-line message)."""
    name = message.split(": ", 1)[0]
    el = ET.Element("testcase", classname=str(Path(name).parent), name=Path(name).name, time="0")
    ET.SubElement(el, "error", type="bad-input", message=message).text = message
    return el


def junit_tree(reports: Sequence[CaseReport], errors: Sequence[str]) -> ET.ElementTree:
    """The JUnit document of a run: its cases and its bad inputs."""
    cases = [_testcase(r) for r in reports] + [_bad_input(m) for m in errors]
    failures = sum(1 for r in reports if r.verdict is CaseVerdict.REFUTED)
    suite = ET.Element(
        "testsuite",
        name="verify",
        tests=str(len(cases)),
        failures=str(failures),
        errors=str(
            len(cases)
            - len(reports)
            + sum(1 for r in reports if r.verdict is CaseVerdict.INCONCLUSIVE)
        ),
        skipped="0",
        time=f"{sum(r.seconds for r in reports):.3f}",
    )
    suite.extend(cases)
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return ET.ElementTree(root)


def write_junit(path: Path, reports: Sequence[CaseReport], errors: Sequence[str]) -> Path:
    """Write the JUnit XML of a run to ``path`` (atomically)."""
    tree = junit_tree(reports, errors)
    return write_atomically(
        path, lambda f: tree.write(f, encoding="utf-8", xml_declaration=True), None
    )
