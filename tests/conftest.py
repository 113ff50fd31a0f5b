"""Test set-up: test modules are imported by path (``--import-mode=importlib``, so files in
different folders may share a name); the folders' helper modules (``gamesolve``,
``smt_reference``, ...) are importable by their plain names."""

from __future__ import annotations

import sys
from pathlib import Path

for _folder in sorted(Path(__file__).resolve().parent.iterdir()):
    if _folder.is_dir() and not _folder.name.startswith((".", "_")):
        sys.path.insert(0, str(_folder))
