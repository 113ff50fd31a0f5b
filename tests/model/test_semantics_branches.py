"""What a semantics means has one home, ``model/describe.py`` (issue 30 item 1; STYLE 13).

An AST scan of ``verifier/``: outside ``model/describe.py`` (the descriptions) and
``model/semantics.py`` (the enum), no module branches on a particular semantics. A *site* is

- a comparison (``is``, ``is not``, ``==``, ``!=``, ``in``, ``not in``) any part of which names a
  member ``Semantics.X`` (``g.semantics is Semantics.NORMAL``, ``sem in (Semantics.MINIMAX, ...)``,
  ``d["semantics"] == Semantics.NORMAL.value``, and the same inside a conditional expression),
  or a semantics' name as a string (``sem == "minimax"``, ``semantics.value == "impartial"``);
- a dict literal with a ``Semantics.X`` key (a per-semantics table restating a description);
- a ``case Semantics.X:`` pattern.

Allowed, because they declare or require one semantics without branching on what it means:
``Semantics.X`` as a call or decorator argument (``@solver(name, [Semantics.X])``,
``@check(...)``, ``require_reference(case, options, Semantics.X)``,
``g.expect_semantics(Semantics.X)``, ``GameGraph.from_edges(..., semantics=Semantics.X)``), as a
class attribute's value, and comparisons of two semantics that name no member
(``g.semantics is not semantics``: a precondition, not a branch). Doctests are strings and are not
scanned.

Per-semantics code above the model that a ``Description`` cannot hold (Z3, kernels,
conversions) is declared with ``PerSemantics.register(Semantics.X)``, a decorator argument.

The same holds of a semantics' native ``View`` (issue 45 item 6): what a view's values mean (how
they are stored, read, written and said) is the description's ``form`` (``model/views.py``, the
per-view part of ``model/describe.py``). A *site* is also

- a comparison any part of which names a member ``View.X`` (``d.view is View.SCORE``,
  ``r.view in (View.LABEL, View.REGION)``), or compares a view's name as a string with a
  ``view`` (``d.view.value == "score"``, ``view == "grundy"``; ``View`` is a ``StrEnum``);
- a dict literal with a ``View.X`` key (``{View.SCORE: np.float64}``);
- a ``case View.X:`` pattern.

Allowed, as for semantics: ``View.X`` as a call or decorator argument or keyword (a solver's
``SolverResult(..., view=View.SCORE)``, ``per_solver(ctx, View.GRUNDY, VALUE, judge)``: a check
that judges the results of one view), a class attribute's value (``ViewForm.view``), and
comparisons of two views that name no member (``r.view is d.view``). Per-view code above the
model (the Z3 queries of a strategy certificate, the linear checkers) is declared with
``PerView.register(View.X)`` beside it, as ``PerSemantics`` is.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import verifier
from verifier.model.results import View
from verifier.model.semantics import Semantics

NAMES = frozenset(s.value for s in Semantics)
VIEW_NAMES = frozenset(v.value for v in View)
PACKAGE = Path(verifier.__file__).parent
HOMES = frozenset({"model/describe.py", "model/semantics.py", "model/views.py"})
"""The descriptions (and their per-view part, split from describe.py) and the enum."""


def _member(n: ast.AST) -> bool:
    return (
        isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Name)
        and n.value.id in ("Semantics", "View")
        and n.attr.isupper()
    )


def _named(n: ast.AST) -> bool:
    return isinstance(n, ast.Constant) and n.value in NAMES


def _a_view(n: ast.AST) -> bool:
    return (isinstance(n, ast.Name) and n.id == "view") or (
        isinstance(n, ast.Attribute) and n.attr == "view"
    )


def _view_named(compare: ast.Compare) -> bool:
    """A view's name as a string compared with a view (``d.view.value == "score"``)."""
    parts = list(ast.walk(compare))
    return any(_a_view(m) for m in parts) and any(
        isinstance(m, ast.Constant) and m.value in VIEW_NAMES for m in parts
    )


def sites(tree: ast.AST) -> list[int]:
    """The line of every semantics branch in ``tree`` (see the module docstring)."""
    lines = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Compare):
            hit = any(_member(m) or _named(m) for m in ast.walk(n)) or _view_named(n)
        elif isinstance(n, ast.Dict):
            hit = any(k is not None and _member(k) for k in n.keys)
        elif isinstance(n, ast.MatchValue):
            hit = _member(n.value)
        else:
            hit = False
        if hit:
            lines.append(n.lineno)
    return sorted(lines)


def test_no_module_branches_on_a_semantics_outside_its_description() -> None:
    found = [
        f"verifier/{rel}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if (rel := path.relative_to(PACKAGE).as_posix()) not in HOMES
        for line in sites(ast.parse(path.read_text(), str(path)))
    ]
    assert found == [], (
        "read the Description (model/describe.py, its form in model/views.py) instead of "
        "comparing a semantics or a view"
    )


def test_the_scan_sees_each_kind_of_site() -> None:
    src = """
if g.semantics is Semantics.NORMAL: pass
x = a if sem in (Semantics.MINIMAX, Semantics.NORMAL) else b
ok = d["semantics"] == Semantics.NORMAL.value
T = {Semantics.NORMAL: 1}
match sem:
    case Semantics.MINIMAX: pass
if r["semantics"] != "minimax": pass
"""
    assert sites(ast.parse(src)) == [2, 3, 4, 5, 7, 8]


def test_the_scan_allows_declarations_and_preconditions() -> None:
    src = """
@check("x", [Semantics.MINIMAX, Semantics.NORMAL], order=1)
def f(case, options):
    g = require_reference(case, options, Semantics.MINIMAX)
    g.expect_semantics(Semantics.NORMAL)
    if g.semantics is not semantics: raise ValueError
    return GameGraph.from_edges(2, [0], [1], semantics=Semantics.NORMAL)
"""
    assert sites(ast.parse(src)) == []


def test_the_scan_sees_each_kind_of_view_site() -> None:
    src = """
if d.view is View.SCORE: pass
x = a if r.view in (View.LABEL, View.REGION) else b
T = {View.SCORE: np.float64, View.GRUNDY: np.int64}
match d.view:
    case View.GRUNDY: pass
if d.view.value == "score": pass
ok = view != "grundy"
"""
    assert sites(ast.parse(src)) == [2, 3, 4, 6, 7, 8]


def test_the_scan_allows_view_declarations_and_registries() -> None:
    src = """
class Form:
    view = View.LABEL
def check(ctx):
    r = SolverResult("x", view=View.SCORE, values=v)
    if r.view is not d.view: raise ValueError
    return per_solver(ctx, View.GRUNDY, VALUE, judge)
@QUERIES.register(View.LABEL)
def q(d): return d.form.show(d, 1)
RANKED.register(View.REGION)("iter_strategy_region")
label = cols["label"] if name == "label" else None
"""
    assert sites(ast.parse(src)) == []


def test_every_semantics_is_described_and_an_unknown_one_raises() -> None:
    from verifier.errors import NotApplicable
    from verifier.model.describe import PerSemantics, describe

    for sem in Semantics:
        d = describe(sem)
        assert d.node_rules, sem  # io.rules.check_nodes has no default to fall through to
        assert d.needs_move.__name__ != "_no_move_rule", sem
        assert d.optimal_move.__name__ != "_no_move_rule", sem
    with pytest.raises(ValueError, match="no description"):
        describe("no-such-semantics")  # type: ignore[arg-type]
    table: PerSemantics[int] = PerSemantics("test table")
    table.register(Semantics.NORMAL)(1)
    with pytest.raises(NotApplicable, match="no test table for minimax cases"):
        table[Semantics.MINIMAX]
    with pytest.raises(ValueError, match="declared twice"):
        table.register(Semantics.NORMAL)(2)
