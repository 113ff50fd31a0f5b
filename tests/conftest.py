"""Test set-up: test modules are imported by path (``--import-mode=importlib``, so files in
different folders may share a name); the folders' helper modules (``gamesolve``,
``smt_reference``, ...) are importable by their plain names."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

for _folder in sorted(Path(__file__).resolve().parent.iterdir()):
    if _folder.is_dir() and not _folder.name.startswith((".", "_")):
        sys.path.insert(0, str(_folder))

# CI (CI=true) runs the property tests on hypothesis' derandomized examples: a red CI then
# means a regression, not a new random example; local runs keep exploring (and a failure found
# there becomes a regression test, as the hand-made graphs in the test files).
if os.environ.get("CI"):
    from hypothesis import settings

    settings.register_profile("ci", derandomize=True, print_blob=True)
    settings.load_profile("ci")


DISTRIBUTED = Path(__file__).resolve().parent / "distributed"


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test of the sharded route (``tests/distributed/``: Dask clusters, most of them) but
    the slow ones is marked ``dask``: out of the default run, which stays under 10 minutes; CI
    runs them as a step of their own (``pytest -m 'dask and not slow'``, about 9 minutes on two
    processes). The slow ones keep their marks (``-m 'slow and not dask'`` runs those without
    a cluster, as before)."""
    for item in items:
        slow = item.get_closest_marker("slow") is not None
        if not slow and DISTRIBUTED in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.dask)


@pytest.fixture
def compiled_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--engine auto`` runs the compiled kernels at every size (not only above
    ``COMPILED_LIMIT``), so that the pipeline compares them with the pure-Python references and
    the numpy engine on small graphs."""
    from verifier import registry

    monkeypatch.setattr(registry, "COMPILED_LIMIT", 0)
