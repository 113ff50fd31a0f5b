"""A sharded check that survives a kill: each finished task's result kept as a small record,
and the first violations said as they are found (``verify DIR --engine dask --resume``).

A check task's result (``ShardFaults``, ``judge_graph.Found``, a reach count) is written, as
soon as the driver sees the task finished, to ``DIR/tmp/check/RUN/STEP/tier=K/shard=S.json``
(written whole under a temporary name, then renamed). ``RUN`` is the run key: a digest of what
is judged and by what, namely the dataset's ``manifest.json`` (its every shard's and answer
file's digest), the ``--answers`` table's content (each file's sha256; another dataset's
manifest) and the checker's version (the package's and the sha256 of the check's own
sources). A record of another run therefore lies in another folder and is never read; a record
whose body does not match its digest, or does not parse, is ignored and its task run again.
The ``reachable`` check's marks are kept beside the records (a finished task's marks are
needed by the reach round even when the task is not run again).

Records trust that the files the manifest lists are unchanged between the runs: each was read
against its digest by the run that wrote the record. ``--restart`` removes the run's records
first, and those of other stopped runs (the records of a run whose dataset, table or checker
has changed are never read, but stay until then); without ``--resume`` or ``--restart`` a check
that finds records of its run reuses them and says so (as ``solve`` continues a solve that
stopped part way). A check that completes (its verdict returned) removes its records: a check
run again judges again. A dataset that cannot be written is checked without
records, its scratch files in the system's temporary folder (a local cluster's workers share
it), said once.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from verifier.dataset.manifest import MANIFEST
from verifier.dataset.shape import CHECKS, ShardFaults, Witness
from verifier.distributed.tiers.supervise import gather_tier
from verifier.progress import Notice, Violation

__all__ = [
    "REACHED",
    "SHARD_FAULTS",
    "SHOWN",
    "Checkpoints",
    "checkpointed",
    "open_checkpoints",
    "run_key",
]

SHOWN = 5
"""Violation lines said as they are found; the rest counted in one line at the end."""

FORMAT = 1
"""The records' layout (part of the run key)."""


def _sha_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _answers_identity(answers: Path | None) -> str:
    """What ``--answers`` names, by content: ``own`` (the dataset's, which its manifest
    digests), another dataset's manifest, or every file of a table (relative path, sha256)."""
    if answers is None:
        return "own"
    if (answers / MANIFEST).is_file():
        return "dataset " + _sha_file(answers / MANIFEST)
    if answers.is_file():
        return "file " + _sha_file(answers)
    files = sorted(p for p in answers.rglob("*") if p.is_file())
    return "table " + " ".join(f"{p.relative_to(answers)}={_sha_file(p)}" for p in files)


@cache
def checker_version() -> str:
    """The package's version and the sha256 of the sources that judge (this folder's and
    ``verifier/checks``'): a record of another checker is never reused."""
    from verifier import __version__

    here = Path(__file__).parent
    h = hashlib.sha256(f"{__version__} {FORMAT}".encode())
    for p in sorted([*here.glob("*.py"), *(here.parent.parent / "checks").glob("*.py")]):
        h.update(p.name.encode() + p.read_bytes())
    return h.hexdigest()


def run_key(root: Path, answers: Path | None) -> str:
    """The run key (see the module docstring): 16 hex digits."""
    h = hashlib.sha256()
    for part in (_sha_file(root / MANIFEST), _answers_identity(answers), checker_version()):
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:16]


Faults = Callable[[Any], list[tuple[str, int, Witness]]]
"""A task's result as ``(check, violations, first)`` for each check it found violated."""


@dataclass
class Checkpoints:
    """The records of one check run (``folder``: ``None``, none kept) and its violation
    lines."""

    root: Path
    key: str
    folder: Path | None
    say: Callable[[str], None]
    scratch_base: Path
    """Where the run's scratch folders go: ``DIR/tmp``, or a temporary folder."""
    reused: int = 0
    ignored: int = 0
    ran: int = 0
    shown: int = 0
    unshown: int = 0
    made: list[Path] = field(default_factory=list)

    def scratch(self, kind: str = "check") -> Path:
        """A fresh scratch folder (removed by ``done``)."""
        path = self.scratch_base / f"{kind}-{uuid.uuid4().hex[:12]}"
        self.made.append(path)
        return path

    def marks(self) -> Path:
        """Where the ``reachable`` check's marks go: beside the records when they are kept."""
        return self.folder / "scratch" if self.folder is not None else self.scratch()

    def _path(self, step: str, at: tuple[int, int]) -> Path:
        assert self.folder is not None
        return self.folder / step / f"tier={at[0]}" / f"shard={at[1]}.json"

    def recorded(self, step: str, at: tuple[int, int], decode: Callable[[Any], Any]) -> Any:
        """The recorded result of ``step``'s task at ``at = (tier, shard)``, or ``None``."""
        if self.folder is None:
            return None
        path = self._path(step, at)
        try:
            doc = json.loads(path.read_text())
            body = json.dumps(doc["result"], sort_keys=True)
            ok = (doc["run"], doc["step"], doc["at"]) == (self.key, step, list(at))
            if not ok or hashlib.sha256(body.encode()).hexdigest() != doc["sha256"]:
                raise ValueError("not this task's record")
            return decode(doc["result"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            self.ignored += 1
            return None

    def record(self, step: str, at: tuple[int, int], result: Any) -> None:
        """Keep ``result`` (JSON-able) as the record of ``step``'s task at ``at``."""
        if self.folder is None:
            return
        path = self._path(step, at)
        body = json.loads(json.dumps(result, default=int))
        text = json.dumps(body, sort_keys=True)
        doc = {"run": self.key, "step": step, "at": list(at), "result": body,
               "sha256": hashlib.sha256(text.encode()).hexdigest()}  # fmt: skip
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(doc))
        os.replace(tmp, path)

    def found(self, at: tuple[int, int], faults: list[tuple[str, int, Witness]],
              name: Callable[[int], str]) -> None:  # fmt: skip
        """Say a task's violations as they come: the first ``SHOWN`` a line each."""
        for check, n, w in faults:
            if not n:
                continue
            if self.shown >= SHOWN:
                self.unshown += 1
                continue
            self.shown += 1
            where = f"tier {at[0]} shard {at[1]}"
            first = ""
            if w is not None:
                first = f"; first at {name(w[1])}: {w[2]}" if w[1] >= 0 else f"; first: {w[2]}"
            self.say(Violation(f"{check}: {n:,} violation(s) in {where}{first}"))

    def gather(self, client: Any, step: str, places: Sequence[tuple[int, int]],
               submit: Callable[[int], Any], codec: tuple[Callable[[Any], Any],
                                                         Callable[[Any], Any]],
               faults: Faults | None = None, name: Callable[[int], str] = str,
               **run: Any) -> list[Any]:  # fmt: skip
        """The results of ``step``'s tasks at ``places`` (``submit(i)``: the future of the
        ``i``-th), the recorded ones read (``codec = (encode, decode)``: a result to JSON and
        back), the others run and recorded as each finishes; ``faults``: a result's violations,
        said as found. ``run``: ``gather_tier``'s options."""
        encode, decode = codec
        out: list[Any] = [None] * len(places)
        todo = []
        for i, at in enumerate(places):
            got = self.recorded(step, at, decode)
            if got is None:
                todo.append(i)
                continue
            out[i] = got
            self.reused += 1
            if faults is not None:
                self.found(at, faults(got), name)

        def each(j: int, result: Any) -> None:
            i = todo[j]
            out[i] = result
            self.record(step, places[i], encode(result))
            if faults is not None:
                self.found(places[i], faults(result), name)

        self.ran += len(todo)
        gather_tier(client, [submit(i) for i in todo], each=each, **run)
        return out

    def done(self) -> None:
        """The check completed: its records and scratch folders go; the violations not said
        as found are counted in one line."""
        if self.unshown:
            self.say(Violation(f"{self.unshown:,} more task(s) found violations (the report "
                               "counts them all)"))  # fmt: skip
        if self.ignored:
            self.say(Notice(f"{self.ignored} unreadable record(s) ignored: their tasks were "
                            "run again"))  # fmt: skip
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            _remove_empty(self.folder.parent)
        self.drop_scratch()

    def drop_scratch(self) -> None:
        """Remove the scratch folders (a stopped run keeps its records and marks)."""
        for path in self.made:
            shutil.rmtree(path, ignore_errors=True)
        if self.scratch_base != self.root / "tmp":
            shutil.rmtree(self.scratch_base, ignore_errors=True)


def _remove_empty(folder: Path) -> None:
    """``folder`` and its parent ``tmp`` removed when they hold nothing."""
    for f in (folder, folder.parent):
        try:
            f.rmdir()
        except OSError:
            return


def unwritable(folder: Path) -> str | None:
    """Why ``folder`` cannot be made and written in (``None``: it can)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        return str(e.strerror or e)
    return None


def open_checkpoints(root: Path, answers: Path | None, resume: bool | None,
                     say: Callable[[str], None]) -> Checkpoints:  # fmt: skip
    """The records of this check run (see the module docstring): ``resume`` ``True`` reuse
    them and say how many there are, ``False`` remove them (and those of every other stopped
    run: ``tmp/check``) first, ``None`` reuse them and say so when there are any."""
    key = run_key(root, answers)
    folder = root / "tmp" / "check" / key
    if resume is False:  # this run's records and any other stopped run's
        shutil.rmtree(folder.parent, ignore_errors=True)
    why = unwritable(folder)
    if why is not None:
        say(Notice(f"{root} cannot be written ({why}): the check runs without checkpoints (a "
                   "stopped run starts over)"))  # fmt: skip
        return Checkpoints(root, key, None, say, Path(tempfile.mkdtemp(prefix="verifier-check-")))
    kept = sum(1 for _ in folder.glob("*/tier=*/shard=*.json"))
    if kept or resume:
        again = " (--restart checks every shard again)" * (resume is None)
        say(Notice(f"resuming a check: {kept} finished task(s) recorded in {folder} are "
                   f"reused{again}"))  # fmt: skip
    return Checkpoints(root, key, folder, say, root / "tmp")


@contextmanager
def checkpointed(root: Path, answers: Path | None, resume: bool | None, say: Any,
                 cp: Checkpoints | None) -> Iterator[Checkpoints]:  # fmt: skip
    """``cp``, or this run's records opened (``open_checkpoints``) and, when the check
    completes, removed (``Checkpoints.done``); a run that stops keeps them."""
    if cp is not None:
        yield cp
        return
    mine = open_checkpoints(root, answers, resume, say or _quiet)
    try:
        yield mine
    except BaseException:
        mine.drop_scratch()
        raise
    mine.done()


def _quiet(_: str) -> None:
    """Say nothing."""


def _witness(w: Any) -> Witness:
    return None if w is None else (int(w[0]), int(w[1]), str(w[2]))


def _ints(x: Any) -> tuple[int, ...] | None:
    return None if x is None else tuple(int(v) for v in x)


def _shard_faults(d: Any) -> ShardFaults:
    counts, witnesses = _ints(d["counts"]), tuple(_witness(w) for w in d["witnesses"])
    if counts is None or not len(counts) == len(witnesses) == len(CHECKS):
        raise ValueError("not one count and one witness per check")
    return ShardFaults(counts, witnesses, _ints(d["tally"]), _ints(d["span"]))  # type: ignore[arg-type]


SHARD_FAULTS = (lambda f: f._asdict(), _shard_faults)
"""A ``check_shard`` result to JSON and back."""

REACHED = (lambda r: list(r), lambda d: (int(d[0]), _witness(d[1])))
"""A ``reach_shard`` result (violations, first) to JSON and back."""
