"""Checks live under ``verifier.checks`` (and ``verifier.smt``), never in the solver modules."""

from __future__ import annotations

from verifier.model import Semantics
from verifier.registry import CheckSpec, all_registered, checks_for


def _checks() -> dict[str, CheckSpec]:
    checks: dict[str, CheckSpec] = all_registered()["checks"]
    return checks


def test_solvers_register_no_checks() -> None:
    inside = {n: c.fn.__module__ for n, c in _checks().items()}
    assert not {n: m for n, m in inside.items() if m.startswith("verifier.solvers")}
    assert all(m.startswith(("verifier.checks.", "verifier.smt.")) for m in inside.values())


def test_the_sprague_grundy_checks_keep_their_names_and_places() -> None:
    checks = _checks()
    sums, classes = checks["grundy-sums"], checks["grundy-loopy-classes"]
    assert (sums.fn.__module__, sums.order) == ("verifier.checks.sums", 50)
    assert (classes.fn.__module__, classes.order) == ("verifier.checks.loopy_classes", 30)
    assert sums.semantics == classes.semantics == {Semantics.IMPARTIAL}
    names = [c.name for c in checks_for(Semantics.IMPARTIAL)]
    assert names.index("grundy-loopy-classes") < names.index("grundy-sums")
