"""Every docstring example in the package, and the API guide (docs/api.md), run as doctests."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import verifier

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(verifier.__path__, prefix="verifier.")
    if not info.name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_api_guide_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the guide names corpus files relative to the repository
    result = doctest.testfile(str(ROOT / "docs" / "api.md"), module_relative=False)
    assert result.attempted >= 10 and result.failed == 0
