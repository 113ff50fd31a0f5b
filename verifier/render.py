"""Draw a (small) case: each node's value, owner and verdict; the uniqueness witness highlighted.

``render(case, source, path)`` writes Graphviz ``.dot`` text, or ``.svg`` through Graphviz's
``dot`` program (``apt-get install graphviz``); without ``dot`` an ``.svg`` is the package's
own drawing (``writers.svg``, up to its ``MAX_NODES`` positions; above them
``RenderError`` saying so: the ``.dot`` can still be written). ``source`` is a pipeline
``CaseReport`` (values from its solvers, verdicts from its checks) or a mapping of solver
results (values only).

Node colours: green = confirmed, red = named by a refuted check's witness, grey = no verdict;
orange border = a node whose value differs in the uniqueness witness (a second solution), with
the witness cycle's edges drawn bold orange. Labels: name, value (and the interval [lfp, gfp]
when it is wider than a point), owner.

>>> from verifier.model import GameGraph, Semantics, Case, MAX
>>> g = GameGraph.from_successors({"a": ["b"]}, semantics=Semantics.MINIMAX,
...                               owner={"a": MAX}, value={"b": 1})
>>> print(to_dot(Case(g, "tiny"), {}).splitlines()[0])
digraph "tiny" {
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from verifier.errors import VerifierError
from verifier.io.files import write_atomically
from verifier.model import Case, CheckResult, SolverResult, Verdict
from verifier.model.describe import describe
from verifier.model.semantics import MIN
from verifier.model.solution import Solution

__all__ = ["RenderError", "render", "to_dot"]

MAX_NODES = 2000
"""Refuse to draw larger graphs (a drawing of them helps nobody)."""


class RenderError(VerifierError, ValueError):
    """The drawing cannot be made (unknown format, graph too large, Graphviz missing)."""


class _Report(Protocol):
    @property
    def results(self) -> dict[str, SolverResult]: ...

    @property
    def checks(self) -> tuple[CheckResult, ...]: ...


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _fmt(v: float) -> str:
    return f"{v:g}"


def to_dot(case: Case, source: _Report | Mapping[str, SolverResult]) -> str:
    """The Graphviz text of the drawing."""
    g = case.graph
    if g.n > MAX_NODES:
        raise RenderError(f"{case.id}: {g.n} nodes is too many to draw (limit {MAX_NODES})")
    checks: tuple[CheckResult, ...] = ()
    if isinstance(source, Mapping):
        results = dict(source)
    else:
        results, checks = source.results, tuple(source.checks)
    answer = Solution.from_results(case, results, checks)
    refuted: set[str] = set()
    confirmed = bool(checks) and all(c.verdict is Verdict.CONFIRMED for c in checks)
    changed: set[str] = set()
    cycle: list[str] = []
    intervals: dict[str, Any] = {}
    for c in checks:
        w: Mapping[str, Any] = c.witness or {}
        if c.verdict is Verdict.REFUTED:
            refuted.add(str(w.get("node", "")))
        if c.check == "smt-uniqueness" and "intervals" in c.data:
            intervals = dict(c.data.get("intervals", {}))
            if c.data.get("unique") is False:
                changed |= set(w.get("differs_at", w.get("labels", {})))
                cycle = list(w.get("cycle", []))
    lines = [f"digraph {_q(case.id)} {{", "  rankdir=TB;", '  node [fontname="Helvetica"];']
    for x in range(g.n):
        name = g.name(x)
        parts = [name]
        if answer is not None and answer.covered[x]:
            parts.append(_value_text(answer, x))
        elif g.is_terminal[x] and not np.isnan(g.value[x]):
            parts.append(_fmt(float(g.value[x])))
        iv = intervals.get(name)
        if iv is not None and iv[0] != iv[1]:
            parts.append(f"[{_fmt(iv[0])}, {_fmt(iv[1])}]")
        parts.append(_owner(case, x))
        colour = "#f4a6a6" if name in refuted else "#b8e0b8" if confirmed else "#e0e0e0"
        shape = "box" if g.is_terminal[x] else ("invtriangle" if g.owner[x] == MIN else "ellipse")
        extra = ', color="#e67e00", penwidth=3' if name in changed else ""
        if g.target[x]:
            extra += ", peripheries=2"
        label = "\n".join(p for p in parts if p)
        lines.append(
            f"  {x} [label={_q(label)}, shape={shape}, style=filled, fillcolor={_q(colour)}"
            f"{extra}];"
        )
    on_cycle = set(zip(cycle, cycle[1:] + cycle[:1], strict=True)) if cycle else set()
    for x, y in zip(g.edge_src.tolist(), g.succ_idx.tolist(), strict=True):
        bold = (g.name(x), g.name(y)) in on_cycle
        style = ' [color="#e67e00", penwidth=3]' if bold else ""
        lines.append(f"  {x} -> {y}{style};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _value_text(answer: Solution, x: int) -> str:
    """The node's value as drawn: the label word, ``W`` / ``-`` for player 0's winning region,
    a number, or ``inf(K)``."""
    v = answer.value(x)
    marks = answer.description.form.drawn_marks
    if marks is not None:
        return marks[0] if v == 0 else marks[1]
    return _fmt(float(v)) if isinstance(v, (int, float)) else str(v)


def _owner(case: Case, x: int) -> str:
    g = case.graph
    d = describe(g.semantics)
    if g.is_terminal[x] and not d.has_targets:
        return "leaf"
    if g.target[x]:
        return "target"
    names = d.owner_names
    return names.get(int(g.owner[x]), "?") if names else ""


def render(case: Case, source: _Report | Mapping[str, SolverResult], path: str | Path) -> Path:
    """Write the drawing to ``path`` (``.dot`` or ``.svg``), atomically, and return the path."""
    out = Path(path)
    text = to_dot(case, source)
    suffix = out.suffix.lower()
    if suffix in (".dot", ".gv"):
        data = text.encode()
    elif suffix != ".svg":
        raise RenderError(f"{out}: cannot draw {suffix or 'files without a suffix'}; use .dot/.svg")
    else:
        dot = shutil.which("dot")
        data = _svg(dot, text, out) if dot is not None else _own_svg(case, source, out)
    return write_atomically(out, lambda f: f.write(data), case.path)


def _own_svg(case: Case, source: _Report | Mapping[str, SolverResult], out: Path) -> bytes:
    """Without Graphviz: the package's own drawing (``writers.svg``, as ``Solution.svg()`` in a
    notebook), each position with its value, the refuted checks' positions highlighted."""
    from verifier.writers.svg import MAX_NODES as OWN_MAX
    from verifier.writers.svg import graph_svg, solution_svg

    results, checks = (
        (dict(source), ())
        if isinstance(source, Mapping)
        else (
            source.results,
            tuple(source.checks),
        )
    )
    answer = Solution.from_results(case, results, checks)
    g = case.graph
    named = {str((c.witness or {}).get("node")) for c in checks if c.verdict is Verdict.REFUTED}
    highlight = [x for x in range(g.n) if g.name(x) in named]
    if answer is not None:
        svg = solution_svg(answer, highlight)
    else:
        svg = graph_svg(g, {}, highlight, case.root)
    if svg is None:
        raise RenderError(
            f"{out}: without Graphviz's 'dot' program (apt-get install graphviz) .svg is drawn "
            f"only up to {OWN_MAX} positions, not {g.n}; write a .dot file instead"
        )
    return svg.encode()


def _svg(dot: str, text: str, out: Path) -> bytes:
    """The SVG Graphviz's ``dot`` draws of ``text`` (``RenderError`` naming ``out`` if it fails)."""
    proc = subprocess.run([dot, "-Tsvg"], input=text.encode(), capture_output=True, check=False)
    if proc.returncode != 0:
        raise RenderError(f"{out}: dot failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout
