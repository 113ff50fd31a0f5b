"""The import graph of ``verifier/`` has no circle (issue 30 item 4), read from the code itself.

Every ``import`` of a ``verifier`` module counts, at module level, under ``TYPE_CHECKING`` or
inside a function, with no exception (the last lazy upward references, model -> equations and
model -> writers, were removed by issue 45 item 6: a description names its equations'
constructor, the writers lend the model its notebook drawings). The circles removed by issue
30 item 4 (pipeline -> writers -> pipeline, io/answers <-> io/answer_columns, io/jsonpath <->
io/numbers) would each fail here;
each module untangled also imports first in a fresh interpreter, the equations (no Z3)
import nothing of smt/, and the stored data (dataset/: its files, answer files included) nothing
of the cluster code (distributed/), not even inside a function.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "verifier"


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The module ``name`` is, or the module that defines it (``verifier.x.y`` of ``y`` in x)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(path: Path) -> Iterator[tuple[str, bool]]:
    """The ``verifier`` modules a file imports, each with whether the import is in a function."""
    tree = ast.parse(path.read_text())
    lazy: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lazy.update(id(n) for n in ast.walk(node) if n is not node)
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            if name.split(".")[0] == "verifier" and (target := _resolve(name)):
                yield target, id(node) in lazy


def _graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        for target, _ in _imports(path):
            if target != module:
                edges[module].add(target)
    return edges


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_import_graph_has_no_circle() -> None:
    assert _circles(_graph()) == []


def test_the_scan_finds_a_circle() -> None:
    edges = _graph()
    edges["verifier.model.report"].add("verifier.writers.notebook")  # as a lazy import would
    assert ["verifier.model.report", "verifier.writers.answer", "verifier.writers.notebook"] in (
        _circles(edges)
    )


def test_the_model_draws_through_the_drawings_the_writers_lend_it() -> None:
    """The model imports no writer, lazily or not: a notebook's drawings are lent to it
    (``model.display``) by the writers the API imports; without them a drawing is ``None``."""
    program = (
        "import sys\n"
        "from verifier.games.random_graphs import random_case\n"
        "from verifier.pipeline import run_case\n"
        "from verifier.registry import Options\n"
        "rep = run_case(random_case('normal', 5, 1.5, seed=1), Options(), smt=False)\n"
        "assert 'verifier.writers.notebook' not in sys.modules\n"
        "assert rep._repr_html_() is None and rep.solution.svg() is None\n"
        "import verifier.writers.notebook\n"
        "assert '<svg' in rep._repr_html_() and rep.solution.svg().startswith('<svg')\n"
        "assert '<table>' in rep.solution._repr_html_()\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize(
    ("module", "above"),
    [
        ("verifier.model", "verifier."),  # the model imports nothing but itself and errors.py
        ("verifier.writers", "verifier.pipeline"),
        ("verifier.pipeline", "verifier.writers"),
        ("verifier.equations", "verifier.smt"),  # the equations as arrays know nothing of Z3
        ("verifier.dataset", "verifier.distributed."),  # stored data, read without a cluster
    ],
)
def test_layer_imports_nothing_of(module: str, above: str) -> None:
    allowed = ("verifier.model", "verifier.errors") if module == "verifier.model" else ()
    for name, path in MODULES.items():
        if name == module or name.startswith(module + "."):
            for target, _ in _imports(path):
                if target.startswith(allowed):
                    continue
                assert not (target == above.rstrip(".") or target.startswith(above)), (
                    name,
                    target,
                )


UNTANGLED = [
    "verifier.model.report",
    "verifier.model.mex",
    "verifier.model.bounds",
    "verifier.writers.answer",
    "verifier.writers.notebook",
    "verifier.writers.table",
    "verifier.pipeline",
    "verifier.io.answer_base",
    "verifier.io.answer_columns",
    "verifier.io.answers",
    "verifier.io.jsonpath",
    "verifier.io.numbers",
    "verifier.engine.sequence_kernels",
    "verifier.equations.fixpoints",
]


def test_each_untangled_module_imports_first() -> None:
    program = "import importlib, sys\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\n"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for module in UNTANGLED:
        p = subprocess.run(
            [sys.executable, "-c", program, module],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
        )
        assert p.returncode == 0, (module, p.stderr[-2000:])
