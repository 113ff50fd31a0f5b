"""The command line is a package of command modules that read options and call the API
(issue 45 item 5): each module under 400 lines, the tiered route's orchestration in the
distributed layer (``verifier/distributed/tiers/commands.py``), and that layer imported inside
the commands only, so that ``verify --help`` never loads it.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = ROOT / "verifier" / "cli"

DISTRIBUTED = {
    "verifier.distributed.api",  # solve --engine dask on a case file (stored as a dataset)
    "verifier.distributed.tiers.commands",  # the tiered route, as plain functions
    "verifier.dataset.errors",  # its errors -> exit 2 or 3
}
"""What of ``verifier/distributed/`` the command line may import: the API, not its parts."""


def _imports(path: Path) -> list[tuple[str, bool]]:
    """The modules a file imports, each with whether at module level (outside functions and
    ``if TYPE_CHECKING:``)."""
    tree = ast.parse(path.read_text())
    inner: set[int] = set()
    for node in ast.walk(tree):
        typing_only = isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or typing_only:
            inner.update(id(n) for n in ast.walk(node) if n is not node)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.append((node.module, id(node) not in inner))
        elif isinstance(node, ast.Import):
            out += [(a.name, id(node) not in inner) for a in node.names]
    return out


def test_each_cli_module_is_under_400_lines() -> None:
    modules = sorted(CLI.glob("*.py"))
    assert len(modules) >= 8
    for path in modules:
        lines = len(path.read_text().splitlines())
        assert lines < 400, f"{path.relative_to(ROOT)}: {lines} lines"


def test_the_cli_calls_the_distributed_layer_only_through_its_api() -> None:
    for path in sorted(CLI.glob("*.py")):
        for module, top in _imports(path):
            if module.startswith("verifier.distributed"):
                assert module in DISTRIBUTED, (path.name, module)
            if module.startswith(("verifier.distributed", "verifier.dataset")):
                assert not top, f"{path.name}: {module} imported at module level"
            assert module.split(".")[0] not in ("dask", "distributed", "pyarrow"), path.name


def test_verify_help_loads_no_distributed_module() -> None:
    program = (
        "import sys\nfrom verifier.cli import app\n"
        "print(sorted(m for m in sys.modules "
        "if m.startswith(('verifier.distributed', 'verifier.dataset', 'dask'))))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.strip() == "[]"
