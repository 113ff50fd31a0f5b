"""The optional extras (``pip install gamegraph-verifier[dask]``): one line if one is missing."""

from __future__ import annotations

import importlib
from pathlib import Path

from verifier.errors import UsageError

__all__ = ["require_extra"]


def require_extra(path: Path, what: str, extra: str, *modules: str) -> None:
    """A ``UsageError`` naming ``path`` when a module of the optional ``extra`` is missing."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as e:
            raise UsageError(
                f"{path}: {what} needs the {extra!r} extra, not installed (no module "
                f"{e.name or module!r}): pip install 'gamegraph-verifier[{extra}]' "
                f"(from a checkout: pip install '.[{extra}]')"
            ) from None
