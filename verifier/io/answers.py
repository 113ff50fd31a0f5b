"""Answer files: the claimed answers of any solver for one case (``docs/answers.md``).

Per node the claimed value (a minimax score, a ``normal`` label word, the ``reachability``
winner 0 / 1, a Grundy value or ``"inf(K)"``), optionally its remoteness (plies) and its chosen
move (a position name). Four encodings, chosen by suffix:

- ``.json``: ``{"format": "gamegraph-verifier-answers", "version": 1, "semantics": ...,
  "nodes": {NAME: {"value": V, "remoteness": R, "move": NAME} | V}}``;
- ``.csv``: a header (``node,value[,remoteness][,move]``; ``position`` is read as ``node`` and an
  ``outcome`` column is ignored, so ``verify --format csv`` output reads back), one row per node;
- ``.npz``: ``ids`` (int64) and parallel arrays ``value``, ``remoteness``, ``move`` (-1 = none)
  with a JSON ``header`` (``semantics``, ``loopy`` K-sets by id, ``graph``);
- ``.parquet``: columns ``id``, ``value``, ``remoteness``, ``move`` (null = none) and ``loopy``
  (lists), the header in the schema metadata (needs pyarrow: the ``parquet`` extra).

The two columnar encodings are read vectorized (``verifier.io.answer_columns``).

A file may name only some nodes (a partial answer). Every malformed file is a one-line
``CaseError`` ``FILE: PATH: problem``.

>>> from verifier.model import GameGraph, Semantics, Case
>>> g = GameGraph.from_successors({"a": ["b"]}, semantics=Semantics.NORMAL)
>>> a = parse_answers_json('{"nodes": {"a": "won"}}', Case(g, "t"), "x.json")
>>> a.values.tolist(), a.given.tolist()
([1, 0], [True, False])
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import NDArray

from verifier.errors import CaseError
from verifier.io.answer_base import (
    Answers,
    answers_of,
    check_graph,
    check_header,
    check_semantics,
)
from verifier.io.answer_columns import (
    columns_answers,
    kset,
    load_parquet_answers,
    parquet_table,
)
from verifier.io.files import write_atomically
from verifier.io.jsonpath import PathPart, fail, parse_json, shown
from verifier.io.limits import Limits
from verifier.io.npzfile import NpyEntry, read_npz, write_npz
from verifier.io.numbers import MAX_EXACT, decimal_of, printing_problem
from verifier.model import Case, GameGraph
from verifier.model.columns import VALUE, Column, ColumnSpec, answer_columns
from verifier.model.describe import Description, describe
from verifier.model.solution import Solution

__all__ = [
    "ANSWER_SUFFIXES",
    "FORMAT",
    "VERSION",
    "Answers",
    "answer_entries",
    "check_header",
    "csv_text",
    "graph_digest",
    "is_answer_file",
    "load_answers",
    "npz_columns",
    "parse_answers_csv",
    "parse_answers_json",
    "save_answers",
    "write_json_pieces",
]

FORMAT = "gamegraph-verifier-answers"
VERSION = 1
ANSWER_SUFFIXES = (".json", ".csv", ".npz", ".parquet")
"""The suffixes of answer files."""

_INF = re.compile(r"inf(?:\(([0-9]+(?:,[0-9]+)*)\))?")


def _csv_columns() -> tuple[str, ...]:
    """The columns an answer CSV may have (besides ``outcome``, which is ignored)."""
    return ("node", "value", *(s.name for s in answer_columns()))


def _csv_header() -> str:
    """The header in words: ``node,value[,remoteness][,move]``."""
    return "node,value" + "".join(f"[,{s.name}]" for s in answer_columns())


def graph_digest(g: GameGraph) -> str:
    """The fingerprint of the game (``verifier.io.fingerprint``): independent of the order of
    its positions, so a table keyed by names is checked against names; answer files carry it
    so that a table for another graph is told apart."""
    from verifier.io.fingerprint import graph_digest as digest

    return digest(g)


def _graph_block(case: Case, *, keyed_by_ids: bool) -> dict[str, Any]:
    """The ``graph`` block of an answer file: the counts and, for a table keyed by names
    (``.json``), the order-free ``graph_digest``; for a table keyed by ids (``.npz``,
    ``.parquet``), whose ids mean positions in one order, the moves and the positions by id."""
    from verifier.io import fingerprint

    g = case.graph
    if case.dataset is not None:  # a tiered dataset: its moves are not in memory
        return {"positions": g.n}
    block: dict[str, Any] = {"positions": g.n, "moves": g.m}
    if keyed_by_ids:
        block["digest"] = fingerprint.moves_digest(g)
        block["positions_digest"] = fingerprint.positions_digest(g)
    else:
        block["digest"] = fingerprint.graph_digest(g)
    return block


# ---------------------------------------------------------------------- values
class _Table:
    """Accumulates claims while a file is read, then checks them as a whole."""

    def __init__(self, case: Case, file: str) -> None:
        self.case, self.file, self.g = case, file, case.graph
        self.d = describe(case.semantics)
        n = self.g.n
        self.values = np.zeros(n, dtype=self.d.form.value_dtype)
        self.given = np.zeros(n, dtype=np.bool_)
        self.loopy: dict[int, tuple[int, ...]] = {}
        self.specs = {s.name: s for s in answer_columns()}
        self.cols = {name: np.full(n, -1, dtype=np.int64) for name in self.specs}
        """The answer columns (``answer_columns``) as read, -1 where not given."""
        self.has: set[str] = set()
        """The answer columns the file has."""

    def node(self, name: Any, where: tuple[PathPart, ...]) -> int:
        """The id of a position name (error: not a position of the case)."""
        if not isinstance(name, str) or not self.g.has_node(name):
            fail(self.file, where, f"no position named {shown(name)} in case {self.case.id!r}")
        return self.g.id_of(name)

    def claim(self, x: int, value: Any, where: tuple[PathPart, ...]) -> None:
        """Node ``x`` is claimed ``value`` (as read: numbers, words or ``"inf(K)"``)."""
        if self.given[x]:
            fail(self.file, where, f"duplicate entry for position {self.g.name(x)!r}")
        self.given[x] = True
        kset = _kset(value) if self.d.form.infinite_values else None
        if kset is None and isinstance(value, str) and _INF.fullmatch(value):
            fail(self.file, where, f"a member of K above 2**53 (got {shown(value)})")
        if kset is not None:
            self.loopy[x] = kset
            self.values[x] = -1
            return
        number = self.number(value, where)
        probe = number if number is not None else value
        if not (number is not None or isinstance(value, str)) or not self.d.fits(probe):
            fail(self.file, where, f"not {self.d.value_shape} (got {shown(value)})")
        self.values[x] = _stored(self.d, probe)

    def number(self, value: Any, where: tuple[PathPart, ...]) -> float | None:
        """A claimed number as a float (``None`` if ``value`` is no finite number); a number
        float64 would change (underflow, above 2**53, more digits than a double holds) is
        refused (``verifier.io.numbers``)."""
        f = _number(value)
        d = decimal_of(value) if f is not None else None
        if f is None or d is None:
            return None
        problem = printing_problem(d, f)
        if problem is not None:
            fail(self.file, where, f"{problem} (got {shown(value)})")
        return f

    def entry(self, name: str, x: int, value: Any, where: tuple[PathPart, ...]) -> None:
        """Node ``x``'s entry of the answer column ``name``, read by its codec: a count, a whole
        number read exactly; a node, a position (its legality is judged, not read)."""
        codec = self.specs[name].codec
        assert codec is not None
        self.has.add(name)
        if codec.entry == "node":
            self.cols[name][x] = self.node(value, where)
            return
        d = decimal_of(value)
        if d is None or not 0 <= d < codec.limit or d != d.to_integral_value():
            fail(self.file, where, f"not {codec.noun}, a whole number >= 0 (got {shown(value)})")
        self.cols[name][x] = int(d)

    def answers(self) -> Answers:
        """The claims read (error when the file claims nothing)."""
        if not self.given.any():
            fail(self.file, (), "the file claims no position's value")
        return answers_of(
            self.case,
            self.values,
            self.given,
            self.loopy,
            self.file,
            {name: a for name, a in self.cols.items() if name in self.has},
        )


def _number(v: Any) -> float | None:
    """A JSON number or a numeric CSV cell as a float (``None`` if it is neither)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        f = float(v)
        return f if np.isfinite(f) else None
    if isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            return None
        return f if np.isfinite(f) and v.strip().lower() not in ("nan", "inf", "-inf") else None
    return None


def _kset(v: Any) -> tuple[int, ...] | None:
    """K of ``"inf"`` / ``"inf(0,2)"`` (``None`` if ``v`` is no infinite Grundy value, or a
    member of K is above 2**53)."""
    m = _INF.fullmatch(v) if isinstance(v, str) else None
    if m is None:
        return None
    if not m.group(1):
        return ()
    words = m.group(1).split(",")
    if any(len(k) > len(str(MAX_EXACT)) for k in words):
        return None  # and no int() of thousands of digits
    ks = {int(k) for k in words}
    return tuple(sorted(ks)) if max(ks) <= MAX_EXACT else None


def _stored(d: Description, v: Any) -> Any:
    """A value as read (``Description.fits``) in the view's stored form (inverse of ``show``)."""
    return d.form.stored(d, v)


# ---------------------------------------------------------------------- JSON
def parse_answers_json(text: str | bytes, case: Case, file: str = "<answers>") -> Answers:
    """Read the JSON encoding (see the module docstring)."""
    data = parse_json(text, file, [])  # [] : literals keep their text (exact numbers)
    if not isinstance(data, dict):
        fail(file, (), f"an answer file is a JSON object (got {shown(data)})")
    known = {"format", "version", "semantics", "case", "graph", "nodes"}
    for key in data:
        if key not in known:
            fail(file, (key,), f"unknown field {shown(key)}")
    if data.get("format", FORMAT) != FORMAT:
        fail(file, ("format",), f"not {FORMAT!r} (got {shown(data['format'])})")
    if data.get("version", VERSION) != VERSION:
        fail(file, ("version",), f"unsupported version {shown(data['version'])}")
    check_semantics(data.get("semantics"), case, file, ("semantics",))
    check_graph(data.get("graph"), case, file, ("graph",))
    nodes = data.get("nodes")
    if not isinstance(nodes, dict):
        fail(
            file, ("nodes",), "required field is missing" if nodes is None else "must be an object"
        )
    t = _Table(case, file)
    for name, entry in nodes.items():
        x = t.node(name, ("nodes", name))
        if not isinstance(entry, dict):
            t.claim(x, entry, ("nodes", name))
            continue
        for key in entry:
            if key != "value" and key not in t.specs:
                fail(file, ("nodes", name, key), f"unknown field {shown(key)}")
        if "value" not in entry:
            fail(file, ("nodes", name, "value"), "required field is missing")
        t.claim(x, entry["value"], ("nodes", name, "value"))
        for col in t.specs:
            if entry.get(col) is not None:
                t.entry(col, x, entry[col], ("nodes", name, col))
    return t.answers()


# ---------------------------------------------------------------------- CSV
def parse_answers_csv(text: str, case: Case, file: str = "<answers>") -> Answers:
    """Read the CSV encoding: a header, then one row per claimed node."""
    rows = csv.reader(io.StringIO(text))
    header = next(rows, None)
    if not header:
        fail(file, ("line 1",), f"the header is missing ({_csv_header()})")
    cols = ["node" if h.strip() == "position" else h.strip() for h in header]
    for i, c in enumerate(cols):
        if c not in (*_csv_columns(), "outcome"):
            fail(file, ("line 1", i), f"unknown column {shown(c)}")
        if cols.index(c) != i:
            fail(file, ("line 1", i), f"column {shown(c)} appears twice")
    for need in ("node", "value"):
        if need not in cols:
            fail(file, ("line 1",), f"missing column {need!r} ({_csv_header()})")
    t = _Table(case, file)
    for k, row in enumerate(rows, start=2):
        if not row:
            continue
        line: PathPart = f"line {k}"
        if len(row) != len(cols):
            fail(file, (line,), f"{len(row)} cells, the header has {len(cols)}")
        cell = dict(zip(cols, row, strict=True))
        x = t.node(cell["node"], (line, "node"))
        if cell["value"] == "":
            fail(file, (line, "value"), "the value is missing")
        t.claim(x, cell["value"], (line, "value"))
        for col in t.specs:
            if cell.get(col, "") != "":
                t.entry(col, x, cell[col], (line, col))
    t.has.update(c for c in cols if c in t.specs)
    return t.answers()


# ---------------------------------------------------------------------- npz
def npz_arrays() -> tuple[str, ...]:
    """The arrays an ``.npz`` answer file may hold: the registered answer columns too."""
    return ("header", "ids", "value", *(s.name for s in answer_columns()))


def _npz_arrays(path: Path, file: str, limits: Limits) -> dict[str, NDArray[Any]]:
    """The answer arrays, read by the bounded ``.npz`` reader of the case files: the sizes the
    file declares are checked against ``limits`` before anything is inflated."""
    try:
        with zipfile.ZipFile(path) as z:
            names = [n.removesuffix(".npy") for n in z.namelist()]
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
        if isinstance(e, FileNotFoundError):
            raise
        fail(file, (), f"not an .npz answer file ({e})")
    for key in names:
        if key not in npz_arrays():
            fail(file, (key,), f"unknown array {shown(key)}")

    def check(entries: dict[str, NpyEntry]) -> None:
        declared = sum(e.nbytes for e in entries.values())
        limits.check_bytes(declared, file, "the arrays declared")

    return read_npz(path, file, npz_arrays(), check)


def is_answer_file(path: Path) -> bool:
    """Is ``path`` an answer file rather than a case file? The one classification of
    ``verifier.io.discover.kind_of``, which folder discovery uses too: ``.csv`` and ``.parquet``
    files, an ``.npz`` with ``ids``, a JSON object with ``format``, one with a ``semantics``
    whose nodes are all values (no moves), or the minimal ``{"nodes": ...}``."""
    from verifier.io.discover import kind_of

    return kind_of(path) == "answers"


def _load_npz(path: Path, case: Case, file: str, limits: Limits) -> Answers:
    arrays = _npz_arrays(path, file, limits)
    header: Any = {}
    if "header" in arrays:
        header = parse_json(np.asarray(arrays["header"], dtype=np.uint8).tobytes(), file)
        if not isinstance(header, dict):
            fail(file, ("header",), "the header must be a JSON object")
    check_header(header, case, file, ("header",))
    loopy = header.get("loopy", {})
    if not isinstance(loopy, dict):
        fail(file, ("header", "loopy"), "must be an object of id -> K")
    ks: dict[int, tuple[int, ...]] = {}
    for key, k in loopy.items():
        if not key.isdigit():
            fail(file, ("header", "loopy", key), "not a node id")
        ks[int(key)] = kset(file, ("header", "loopy", key), k)
    return columns_answers(case, file, arrays, ks)


# ---------------------------------------------------------------------- load / save
def load_answers(path: str | Path, case: Case, limits: Limits | None = None) -> Answers:
    """Read an answer file for ``case`` by suffix (``.json``, ``.csv``, ``.npz``), refusing a
    file too big for ``limits`` (``--max-positions``) before reading it, as the case readers
    do (``verifier.io.limits``)."""
    limits = limits or Limits()
    p = Path(path)
    file = str(path)
    suffix = p.suffix.lower()
    if suffix not in ANSWER_SUFFIXES:
        fail(
            file,
            (),
            f"unknown answer file type {p.suffix!r} (expected .json, .csv, .npz or .parquet)",
        )
    if suffix == ".npz":
        return _load_npz(p, case, file, limits)
    if suffix == ".parquet":
        return load_parquet_answers(p, case, file, limits)
    limits.check_text_file(p, file)
    data = p.read_bytes()
    if suffix == ".json":
        return parse_answers_json(data, case, file)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        fail(file, (), f"not UTF-8 text: {e.reason} at byte {e.start}")
    try:
        return parse_answers_csv(text, case, file)
    except csv.Error as e:
        fail(file, (), f"invalid CSV: {e}")


def _written(spec: ColumnSpec, name: Callable[[int], str], v: Any) -> Any:
    """One given entry of a codec column as JSON and CSV write it (``AnswerCodec.entry``)."""
    assert spec.codec is not None
    return name(int(v)) if spec.codec.entry == "node" else int(v)


def names_of(g: GameGraph) -> Callable[[int], str]:
    """``g.name``; for a game's coded names, every name decoded at once at numpy speed (one
    at a time, the 375,676 names of chess:KQK took 14 s of a 20 s ``solve -o kqk.csv``)."""
    encoded = getattr(g.names, "encoded", None)
    block = encoded(0, g.n) if encoded is not None else None
    if block is None:
        return g.name
    return [b.decode("ascii") for b in block.tolist()].__getitem__


def answer_entries(
    sol: Solution, g: GameGraph, name: Callable[[int], str] | None = None
) -> list[tuple[int, Any, dict[str, Any]]]:
    """(id, shown value, {column: written entry}) of every covered node: the answer columns
    (``answer_columns``) where given (``name``: ``g.name``, or ``names_of(g)``)."""
    cols = [(s, sol.columns[s.name]) for s in answer_columns() if s.name in sol.columns]
    name = name or g.name
    out = []
    for x in np.flatnonzero(sol.covered).tolist():
        more = {s.name: _written(s, name, c.data[x]) for s, c in cols if c.given[x]}
        out.append((x, sol.description.show_node(sol.columns, x), more))
    return out


def _json_nodes(sol: Solution, case: Case) -> dict[str, Any]:
    g = case.graph
    nodes: dict[str, Any] = {}
    name = names_of(g)
    for x, v, more in answer_entries(sol, g, name):
        nodes[name(x)] = {"value": v, **more}
    return nodes


def _json_head(case: Case) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "semantics": case.semantics.value,
        "case": case.id,
        "graph": _graph_block(case, keyed_by_ids=False),
    }


def write_json_pieces(f: BinaryIO, case: Case, pieces: Iterable[tuple[Solution, Case]]) -> None:
    """The ``.json`` encoding of ``case``'s answer given a piece at a time (each a solution
    over a case of its own whose covered nodes are written): the same bytes as
    ``save_answers`` writes of the whole, the names of one piece in memory at a time."""
    head = json.dumps({**_json_head(case), "nodes": {}}, indent=1)
    assert head.endswith("{}\n}")
    f.write((head[: -len("{}\n}")] + "{").encode())
    first = True
    for sol, piece in pieces:
        nodes = _json_nodes(sol, piece)
        if not nodes:
            continue
        inner = json.dumps(nodes, indent=1)[2:-2]  # the entries, one level in
        f.write((("\n " if first else ",\n ") + inner.replace("\n", "\n ")).encode())
        first = False
    f.write(b"}\n}\n" if first else b"\n }\n}\n")


def csv_text(sol: Solution, case: Case, *, header: bool = True) -> str:
    """The ``.csv`` encoding of ``sol``'s covered nodes (``header``: the header line first;
    a file written a piece at a time writes it once)."""
    g = case.graph
    extra = [s.name for s in answer_columns() if s.name in sol.columns]
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    if header:
        w.writerow(["node", "value", *extra])
    name = names_of(g)
    for x, v, more in answer_entries(sol, g, name):
        w.writerow([name(x), v, *(more.get(c, "") for c in extra)])
    return out.getvalue()


def _npz_arrays_of(sol: Solution, case: Case) -> dict[str, NDArray[Any]]:
    return {name: make() for name, make in npz_columns(sol, case).items()}


def npz_columns(sol: Solution, case: Case) -> dict[str, Callable[[], NDArray[Any]]]:
    """Each array of the answer file as a function that makes it: the ``.npz`` writer makes one
    at a time and drops it once written (10^8 positions: 0.8 GB each, not 3 GB at once)."""
    g = case.graph
    full = bool(sol.covered.all())

    def ids() -> NDArray[Any]:
        return np.arange(g.n, dtype=np.int64) if full else np.flatnonzero(sol.covered)

    def pick(a: NDArray[Any]) -> NDArray[Any]:
        return a if full else a[sol.covered]  # no copy of 10^8 entries when all are answered

    d = sol.description
    loopy = {str(x): list(k) for x, k in sol.loopy_sets().items()}

    def values() -> NDArray[Any]:
        data = sol.columns[VALUE].data
        store = d.form.file_dtype
        if data.dtype.kind in "iu":
            out = pick(data).astype(store)  # labels (int8): one copy, no float64 on the way
        else:
            out = pick(np.asarray(data, dtype=np.float64)).astype(store)
        out = d.form.file_numbers(out)  # the winner for a region, as in the other encodings
        if loopy:
            out[np.isin(ids(), [int(x) for x in loopy])] = -1
        return out

    def optional(col: Column, dtype: Any) -> Callable[[], NDArray[Any]]:
        def make() -> NDArray[Any]:
            out = pick(col.data).astype(dtype)
            out[~pick(col.given)] = -1
            return out

        return make

    header = {
        "format": FORMAT,
        "version": VERSION,
        "semantics": case.semantics.value,
        "case": case.id,
        "graph": _graph_block(case, keyed_by_ids=True),
        "loopy": loopy,
    }
    text = json.dumps(header).encode("utf-8")
    arrays: dict[str, Callable[[], NDArray[Any]]] = {
        "header": lambda: np.frombuffer(text, dtype=np.uint8),
        "ids": lambda: ids().astype(np.int64, copy=False),
        "value": values,
    }
    for spec in answer_columns():
        col = sol.columns.get(spec.name)
        if col is not None and spec.codec is not None:
            arrays[spec.name] = optional(col, spec.codec.dtype)
    return arrays


def save_answers(solution: Solution, case: Case, path: str | Path) -> Path:
    """Write ``solution`` as an answer file for ``case`` (by suffix), atomically."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in ANSWER_SUFFIXES:
        raise CaseError(str(path), "$", "answer files are .json, .csv, .npz or .parquet")

    def write(f: BinaryIO) -> None:
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            arrays = _npz_arrays_of(solution, case)
            header = json.loads(arrays.pop("header").tobytes())
            pq.write_table(parquet_table(arrays, header), f)
        elif suffix == ".npz":
            write_npz(f, npz_columns(solution, case))
        elif suffix == ".json":
            write_json_pieces(f, case, [(solution, case)])
        else:
            f.write(csv_text(solution, case).encode())

    return write_atomically(p, write, case.path)
