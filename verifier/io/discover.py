"""Which files are cases, and which answer file goes with each: the one discovery that
``verify DIR`` and ``pytest --gamegraph-cases DIR`` share.

A file named on the command line is a case (or the one-line error saying why not), and so is a
folder named there that holds Parquet graph tables (``nodes.parquet`` and ``edges.parquet``).
Under any other folder, searched recursively the way pytest and ruff search:

* hidden folders (``.git``, ``.venv``), virtual environments (a folder holding ``pyvenv.cfg`` or
  ``conda-meta``), ``node_modules``, ``__pycache__``, ``site-packages`` and ``__pypackages__``
  are not entered, and hidden files are passed over;
* a ``.json`` file is a case when it holds a JSON object with a ``semantics`` field (or a field
  a typo away from it, so the reader can say so); an answer file (``"format":
  "gamegraph-verifier-answers"``, or only answer fields, the minimal ``{"nodes": ...}`` that
  ``verify --answers`` reads included) or any other JSON object or value is skipped and counted; a
  file that is not valid JSON, or is bigger than :data:`SNIFF_BYTES`, is read as a case (its
  reader says what is wrong);
* a ``.npz`` file is a case when it holds the case ``header`` array; one holding ``ids`` (an
  answer file) or neither is skipped and counted; a file that is not a zip is read as a case;
* ``.graphml`` and ``.gml`` files are cases;
* ``NAME.answers.csv`` (or ``.json``, ``.npz``, ``.parquet``) beside ``NAME.json`` (or
  ``.npz``, ``.graphml``, ``.gml``) is the answer file judged with that case, as
  ``verify NAME.json --answers NAME.answers.csv``; two answer files for one case, or one
  without its case, are bad input.
"""

from __future__ import annotations

import difflib
import json
import os
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

__all__ = [
    "ANSWERS_TAG",
    "CASE_SUFFIXES",
    "Discovery",
    "Found",
    "discover",
    "kind_of",
]

CASE_SUFFIXES = (".json", ".npz", ".graphml", ".gml")
ANSWER_SUFFIXES = (".csv", ".json", ".npz", ".parquet")
ANSWERS_TAG = ".answers"
"""``NAME.answers.csv`` holds the answers to judge for ``NAME.json``."""
ANSWERS_FORMAT = "gamegraph-verifier-answers"
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "site-packages", "__pypackages__"})
SNIFF_BYTES = 4 << 20
"""JSON files up to this size are parsed to see whether they are cases; bigger ones are cases."""

CASE_ONLY = frozenset(
    {"id", "source", "description", "expect", "encoding", "root", "targets", "sums", "edges"}
    | {"names", "owner", "value"}
)
"""Top-level fields of a case file that an answer file does not have."""
NODE_ONLY = frozenset({"moves", "owner", "label"})
"""Fields of a case's node that an answer file's node does not have."""

Kind = Literal["case", "answers", "other", "unreadable"]


@dataclass(frozen=True)
class Found:
    """A case file to verify, the answer file to judge with it, or why it cannot be."""

    path: Path
    answers: Path | None = None
    error: str | None = None
    """A one-line ``FILE: $: problem`` found while discovering (the case is bad input)."""


@dataclass(frozen=True)
class Discovery:
    """The cases under some paths, and the files passed over."""

    cases: tuple[Found, ...]
    skipped: tuple[tuple[Path, str], ...] = ()
    """Files with a case suffix that are not cases, each with the reason."""
    folders: tuple[Path, ...] = field(default=())
    """Folders not entered (hidden, virtual environments, ...)."""

    def note(self) -> str | None:
        """One line on what was passed over, or None when nothing was."""
        if not self.skipped and not self.folders:
            return None
        parts = []
        if self.skipped:
            path, why = self.skipped[0]
            n = len(self.skipped)
            parts.append(
                f"{n} file{'s that are not cases' if n != 1 else ' that is not a case'} "
                f"(first: {path}: {why})"
            )
        if self.folders:
            n = len(self.folders)
            names = ", ".join(str(f) for f in self.folders[:3]) + (", ..." if n > 3 else "")
            parts.append(f"{n} hidden or environment folder{'s' if n != 1 else ''} ({names})")
        return "skipped " + " and ".join(parts)


def discover(paths: Iterable[Path]) -> Discovery:
    """The cases named by ``paths`` (files, or folders searched as the module says), in order,
    each once, with the answer file beside it."""
    cases: list[Found] = []
    skipped: list[tuple[Path, str]] = []
    folders: list[Path] = []
    seen: set[Path] = set()

    def add(found: Found) -> None:
        key = found.path.resolve()
        if key not in seen:
            seen.add(key)
            cases.append(found)

    for p in paths:
        if is_parquet_graph(p):
            add(_with_answers(p))
        elif p.is_dir():
            for found in _walk(p, skipped, folders):
                add(found)
        elif not p.exists():
            add(Found(p, error=f"{p}: $: no such file or directory"))
        elif _declared_answers(p):
            add(
                Found(
                    p,
                    error=f"{p}: $: an answer file, not a case: give it as verify CASE "
                    f"--answers {p}",
                )
            )
        else:
            add(_with_answers(p))
    return Discovery(tuple(cases), tuple(skipped), tuple(folders))


def _walk(root: Path, skipped: list[tuple[Path, str]], folders: list[Path]) -> list[Found]:
    found: list[Found] = []
    for top, dirs, files in os.walk(root):
        here = Path(top)
        keep = []
        for d in sorted(dirs):
            if d.startswith(".") or d in SKIPPED_FOLDERS or _is_environment(here / d):
                folders.append(here / d)
            else:
                keep.append(d)
        dirs[:] = keep
        names = sorted(f for f in files if not f.startswith("."))
        cases_here = {
            n for n in names if Path(n).suffix.lower() in CASE_SUFFIXES and not _answers_name(n)
        }
        for name in names:
            path = here / name
            stem = _answers_name(name)
            if stem is not None:
                if not any(stem + s in cases_here for s in CASE_SUFFIXES):
                    found.append(
                        Found(
                            path,
                            error=f"{path}: $: answers without their case: no "
                            f"{stem}.json (or .npz, .graphml, .gml) beside it",
                        )
                    )
                continue
            if name not in cases_here:
                continue
            kind = kind_of(path)
            if kind in ("case", "unreadable"):  # an unreadable file: its reader says why
                found.append(_with_answers(path))
            else:
                why = "an answer file" if kind == "answers" else _not_a_case(path)
                skipped.append((path, why))
    return found


def is_parquet_graph(path: Path) -> bool:
    """Is ``path`` a folder of Parquet graph tables (``nodes.parquet`` and ``edges.parquet``:
    ``verifier.dataset.parquet_io``), one case?"""
    return path.is_dir() and all((path / f"{t}.parquet").exists() for t in ("nodes", "edges"))


def _is_environment(folder: Path) -> bool:
    return (folder / "pyvenv.cfg").is_file() or (folder / "conda-meta").is_dir()


def _answers_name(name: str | Path) -> str | None:
    """``NAME`` for a file named ``NAME.answers.SUFFIX``, else None."""
    p = Path(name)
    if p.suffix.lower() in ANSWER_SUFFIXES and p.stem.endswith(ANSWERS_TAG):
        return p.stem[: -len(ANSWERS_TAG)]
    return None


def _declared_answers(path: Path) -> bool:
    """Does ``path`` say it is an answer file (by its name, its type or its ``format``)?"""
    if _answers_name(path) is not None or path.suffix.lower() in (".csv", ".parquet"):
        return True
    if path.suffix.lower() == ".json":
        try:
            with path.open("rb") as f:
                head = f.read(4096)
        except OSError:
            return False
        return f'"{ANSWERS_FORMAT}"'.encode() in head
    return path.suffix.lower() == ".npz" and kind_of(path) == "answers"


def _with_answers(case: Path) -> Found:
    """The case with the answer file beside it (bad input when there are two)."""
    beside = [
        a for s in ANSWER_SUFFIXES if (a := case.with_name(case.stem + ANSWERS_TAG + s)).is_file()
    ]
    if len(beside) > 1:
        shown = ", ".join(a.name for a in beside)
        return Found(
            case, error=f"{case}: $: {len(beside)} answer files beside it ({shown}): keep one"
        )
    return Found(case, beside[0] if beside else None)


def kind_of(path: Path) -> Kind:
    """Is ``path`` a case file, an answer file, or neither, by its content; ``unreadable``: it
    cannot be read or parsed (or is a JSON file too big to parse here and not an answer file)."""
    suffix = path.suffix.lower()
    if suffix == ".json":
        return _json_kind(path)
    if suffix == ".npz":
        try:
            with zipfile.ZipFile(path) as z:
                names = set(z.namelist())
        except (OSError, zipfile.BadZipFile, ValueError):
            return "unreadable"
        if "ids.npy" in names:  # an answer file holds a header too
            return "answers"
        return "case" if "header.npy" in names else "other"
    if suffix in (".csv", ".parquet"):
        return "answers"
    return "unreadable" if not path.is_file() else "case"


def _json_kind(path: Path) -> Kind:
    try:
        if path.stat().st_size > SNIFF_BYTES:
            with path.open("rb") as f:
                return "answers" if ANSWERS_FORMAT.encode() in f.read(4096) else "unreadable"
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return "unreadable"
    if not isinstance(data, dict):
        return "other"
    if data.get("format") == ANSWERS_FORMAT:
        return "answers"
    if "semantics" not in data and not _close_to_semantics(data):
        return "answers" if _answer_document(data) else "other"
    nodes = data.get("nodes")
    if CASE_ONLY.isdisjoint(data) and isinstance(nodes, dict):
        entries = list(nodes.values())
        if entries and not any(isinstance(e, dict) and NODE_ONLY & set(e) for e in entries):
            return "answers"  # semantics and nodes with values only: answers without "format"
    return "case"


ANSWER_FIELDS = frozenset({"format", "version", "semantics", "case", "graph", "nodes"})
"""The top-level fields of an answer file."""
ENTRY_FIELDS = frozenset({"value", "remoteness", "move"})
"""The fields of an answer file's node."""


def _answer_document(data: dict[object, object]) -> bool:
    """An answer file without ``format`` and ``semantics`` (``{"nodes": ...}``, which
    ``verify --answers`` reads): only answer fields, and nodes that are values or objects of
    ``value`` / ``remoteness`` / ``move``."""
    nodes = data.get("nodes")
    if not isinstance(nodes, dict) or not set(data) <= ANSWER_FIELDS:
        return False
    return all(not isinstance(e, dict) or set(e) <= ENTRY_FIELDS for e in nodes.values())


def _close_to_semantics(data: dict[object, object]) -> bool:
    keys = [k for k in data if isinstance(k, str)]
    return bool(difflib.get_close_matches("semantics", keys, n=1, cutoff=0.8))


def _not_a_case(path: Path) -> str:
    if path.suffix.lower() == ".npz":
        return "an .npz without the case header"
    return 'not a JSON object with "semantics"'
