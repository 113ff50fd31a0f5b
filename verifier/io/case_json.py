"""Reading and writing case files (``case.json``) in both encodings of ``docs/case-format.md``.

Reading is three steps: strict JSON parsing (:func:`~verifier.io.jsonpath.parse_json`: syntax
errors with line and column, duplicate keys), the pydantic model of the encoding (shape, types,
finite numbers, unknown fields), then the rules that need the whole graph
(:mod:`verifier.io.rules`). Every problem is one :class:`~verifier.errors.CaseError` naming the
file and the JSON path.

The compact encoding is built for size: its long integer arrays are parsed straight into numpy
(:mod:`verifier.io.fastjson`) and checked with vectorized operations; no Python object is made
per edge. (``json.loads`` + ``model_validate`` is used rather than ``model_validate_json``: it
was measured faster on long integer arrays, and its ``object_pairs_hook`` finds duplicate keys,
which pydantic's JSON parser silently drops.)

Examples
--------
>>> case = parse_case('{"semantics": "impartial", "nodes": {"a": {"moves": ["b"]}, "b": {}}}')
>>> case.graph.n, case.graph.m, case.id
(2, 1, 'case')
>>> case_to_dict(case, "compact")["edges"]
{'src': [0], 'dst': [1]}
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from itertools import chain, islice
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np
from numpy.typing import NDArray
from pydantic import ValidationError

from verifier.errors import UsageError
from verifier.io.fastjson import parse_json_arrays
from verifier.io.files import write_atomically
from verifier.io.jsonpath import PathPart, fail, from_validation_error, paused_gc, shown
from verifier.io.limits import Limits
from verifier.io.models import (
    CompactCaseModel,
    ExpectModel,
    ReadableCaseModel,
    SumModel,
)
from verifier.io.numbers import check_leaf_literals
from verifier.io.rules import (
    build_expect,
    check_nodes,
    check_values_finite,
    compact_key,
    edges_to_csr,
    first,
    graph_from_csr,
)
from verifier.model import MAX, MIN, NOBODY, Case, Expect, GameGraph, Semantics, SumSpec
from verifier.model.describe import describe

__all__ = [
    "AUTO_COMPACT_NODES",
    "CaseMeta",
    "Encoding",
    "case_from_data",
    "case_to_dict",
    "case_to_text",
    "default_case_id",
    "dump_case",
    "expect_to_dict",
    "finish_case",
    "load_case",
    "parse_case",
    "resolve_positions",
]

Encoding = Literal["readable", "compact", "auto"]
AUTO_COMPACT_NODES = 10_000
"""``encoding="auto"`` writes the compact encoding above this many nodes."""

VALUE_WORDS: dict[Any, float] = {"win": 1.0, "draw": 0.0, "loss": -1.0, None: math.nan}
LABEL_VALUES = {"won": 1.0, "draw": 0.0, "lost": -1.0}
OWNER_CODES: dict[Any, int] = {"max": MAX, "min": MIN, None: NOBODY}
"""Owner words (and absence) to codes; the integers 0 and 1 map to themselves."""


# ====================================================================== reading
def load_case(path: str | Path, *, limits: Limits | None = None) -> Case:
    """Read a case file (either encoding). The file is only read, never written; one too big
    for ``limits`` (default: sized to the machine) is refused before it is read."""
    p = Path(path)
    limits = limits or Limits()
    limits.check_text_file(p, str(path))
    try:
        raw = p.read_bytes()
    except OSError as e:
        fail(str(path), (), f"cannot read the file: {e.strerror or e}")
    return parse_case(raw, str(path), path=p, limits=limits)


def parse_case(
    text: str | bytes,
    file: str = "<input>",
    *,
    path: Path | None = None,
    limits: Limits | None = None,
) -> Case:
    """Parse the text of a case file; ``file`` names it in error messages."""
    limits = limits or Limits()
    limits.check_text_size(len(text), file)
    literals: list[float] = []
    with paused_gc():
        data = parse_json_arrays(text, file, literals)
        return case_from_data(data, file, path=path, limits=limits, literals=literals)


def case_from_data(
    data: Any,
    file: str = "<input>",
    *,
    path: Path | None = None,
    limits: Limits | None = None,
    literals: Sequence[float] = (),
) -> Case:
    """Validate an already parsed case object (e.g. built from a networkx graph); a graph of
    more positions than ``limits`` allow is refused before its arrays are built. ``literals``:
    the number literals ``parse_json`` kept (their leaves are checked for exactness,
    :mod:`verifier.io.numbers`)."""
    if not isinstance(data, dict):
        fail(file, (), f"a case must be a JSON object (got {shown(data)})")
    encoding = data.get("encoding", "readable")
    if encoding not in ("readable", "compact"):
        fail(file, ("encoding",), f"unknown encoding {shown(encoding)} (readable or compact)")
    model_cls = ReadableCaseModel if encoding == "readable" else CompactCaseModel
    shape, arrays = _split_arrays(data)
    try:
        model = model_cls.model_validate(shape)
    except ValidationError as e:
        raise from_validation_error(e, shape, file) from None
    if isinstance(model, ReadableCaseModel):
        moves = sum(len(node.get("moves", ())) for node in model.nodes.values())
        (limits or Limits()).check_positions(
            len(model.nodes) + moves, file, what=f"{len(model.nodes):,} nodes and {moves:,} moves"
        )
        return _from_readable(model, data, literals, file, path)
    assert isinstance(model, CompactCaseModel)
    moves = len(arrays.get(("edges", "src"), model.edges.src))
    (limits or Limits()).check_positions(
        model.nodes + moves, file, ("nodes",), f"{model.nodes:,} nodes and {moves:,} moves"
    )
    return _from_compact(model, data, arrays, literals, file, path)


def _split_arrays(
    data: dict[str, Any],
) -> tuple[dict[str, Any], dict[tuple[str, ...], NDArray[np.int64]]]:
    """Take out the numpy arrays :func:`parse_json_arrays` left in a compact case's slots; the
    model then checks the rest (with empty lists in their place)."""
    arrays: dict[tuple[str, ...], NDArray[np.int64]] = {}
    edges = data.get("edges")
    if isinstance(edges, dict):
        for key in ("src", "dst"):
            if isinstance(edges.get(key), np.ndarray):
                arrays[("edges", key)] = edges[key]
    for key in ("owner", "targets"):
        if isinstance(data.get(key), np.ndarray):
            arrays[(key,)] = data[key]
    if not arrays:
        return data, arrays
    shape = dict(data)
    if isinstance(edges, dict):
        shape["edges"] = dict(edges)
    for slot in arrays:
        (shape["edges"] if slot[0] == "edges" else shape)[slot[-1]] = []
    return shape, arrays


def default_case_id(file: str) -> str:
    """The id of a case that gives none: its file's stem (``case`` for unnamed input)."""
    return "case" if file.startswith("<") else Path(file).stem


def _from_readable(
    m: ReadableCaseModel,
    data: dict[str, Any],
    literals: Sequence[float],
    file: str,
    path: Path | None,
) -> Case:
    sem = Semantics(m.semantics)
    names = list(m.nodes)
    nodes = list(m.nodes.values())
    n = len(names)
    if n == 0:
        fail(file, ("nodes",), "the graph has no nodes")
    ids = {x: i for i, x in enumerate(names)}
    # moves: all at once (one list of names, mapped to ids), then checked with numpy
    moves = [node.get("moves", []) for node in nodes]
    lengths = np.fromiter(map(len, moves), dtype=np.int64, count=n)
    targets = list(map(ids.get, chain.from_iterable(moves)))
    first_move = np.concatenate(([0], np.cumsum(lengths)[:-1]))

    def move_path(k: int) -> tuple[PathPart, ...]:
        """Path of the ``k``-th move overall (nodes without moves share the next start)."""
        i = int(np.searchsorted(first_move, k, side="right")) - 1
        return ("nodes", names[i], "moves", k - int(first_move[i]))

    if None in targets:
        k = targets.index(None)
        fail(file, move_path(k), f"move to unknown node {shown(_move_name(moves, k))}")
    src = np.repeat(np.arange(n, dtype=np.int64), lengths)
    dst = np.array(targets, dtype=np.int64)
    ptr, idx, dup = edges_to_csr(src, dst, n)
    if dup is not None:
        fail(file, move_path(dup), f"duplicate move to {shown(names[int(dst[dup])])}")
    owners = [node.get("owner") for node in nodes]
    values = [node.get("value") for node in nodes]
    labels = [node.get("label") for node in nodes]

    def reject(items: list[Any], bad: Callable[[Any], bool], fld: str, message: str) -> None:
        k = next((k for k, x in enumerate(items) if bad(x)), None)
        if k is not None:
            fail(file, ("nodes", names[k], fld), message.format(shown(items[k])))

    d = describe(sem)
    if d.owner_names:  # written as words or as codes, not both
        spelling = f"{sem.value} owners are {d.owner_spelling()} (got {{}})"
        reject(owners, _is_int if d.owner_words else _is_str, "owner", spelling)
    if d.value_field != "value":
        label = f" (a {sem.value} terminal takes a label)" if d.value_field == "label" else ""
        reject(values, _given, "value", "only minimax nodes take a value" + label)
    if d.value_field != "label":
        reject(labels, _given, "label", "only normal terminal nodes take a label")
    owner = np.array([OWNER_CODES.get(o, o) for o in owners], dtype=np.int8)
    if d.value_field == "label":
        value = np.array([LABEL_VALUES[x] if x else math.nan for x in labels], dtype=np.float64)
    else:
        value = np.array([VALUE_WORDS.get(v, v) for v in values], dtype=np.float64)
    if literals:
        raw = data["nodes"]
        check_leaf_literals(
            value,
            lambda i: raw[names[i]].get("value"),
            list(literals),
            file,
            lambda i: ("nodes", names[i], "value"),
        )
    out_degree = np.diff(ptr)
    target, root, sums = resolve_positions(sem, m.root, m.targets, m.sums, ids.get, n, file)
    value = check_nodes(
        sem,
        out_degree,
        owner,
        value,
        target,
        file,
        lambda i, f: ("nodes", names[i], f),
        value_field=d.value_field or "value",
    )
    graph = graph_from_csr(sem, ptr, idx, owner, value, target, names)
    return finish_case(m, graph, root, sums, ids.get, file, path)


def _given(x: Any) -> bool:
    return x is not None


def _is_int(x: Any) -> bool:
    return isinstance(x, int)


def _is_str(x: Any) -> bool:
    return isinstance(x, str)


def _move_name(moves: list[list[str]], k: int) -> str:
    """The ``k``-th move name of the concatenated move lists."""
    return next(islice(chain.from_iterable(moves), k, None))


def _from_compact(
    m: CompactCaseModel,
    data: dict[str, Any],
    arrays: dict[tuple[str, ...], NDArray[np.int64]],
    literals: Sequence[float],
    file: str,
    path: Path | None,
) -> Case:
    sem = Semantics(m.semantics)
    n = m.nodes
    names = m.names
    if names is not None:
        _check_length(names, n, ("names",), file)
        _check_names(names, file)
    src = _id_array(arrays.get(("edges", "src"), m.edges.src), n, ("edges", "src"), file)
    dst = _id_array(arrays.get(("edges", "dst"), m.edges.dst), n, ("edges", "dst"), file)
    if len(dst) != len(src):
        fail(file, ("edges", "dst"), f"{len(dst)} entries but src has {len(src)}")
    ptr, idx, dup = edges_to_csr(src, dst, n)
    if dup is not None:
        fail(
            file,
            ("edges", "dst", dup),
            f"duplicate edge {int(src[dup])} -> {int(dst[dup])}",
        )
    owner = np.full(n, NOBODY, dtype=np.int8)
    owner_items = arrays.get(("owner",), m.owner)
    if owner_items is not None:
        _check_length(owner_items, n, ("owner",), file)
        raw_owner = _int_array(owner_items, ("owner",), file)
        bad = first((raw_owner < -1) | (raw_owner > 1))
        if bad is not None:
            fail(file, ("owner", bad), f"owner must be -1, 0 or 1 (got {int(raw_owner[bad])})")
        owner = raw_owner.astype(np.int8)
    value = np.full(n, np.nan)
    if m.value is not None:
        _check_length(m.value, n, ("value",), file)
        value = np.array(m.value, dtype=np.float64)
        check_values_finite(value, data["value"], file, lambda i, f: (f, i))
        if literals:
            raw = data["value"]
            check_leaf_literals(
                value,
                raw.__getitem__,
                list(literals),
                file,
                lambda i: ("value", i),
                codes=not describe(sem).scores,
            )

    def resolve(i: int) -> int | None:
        return i if 0 <= i < n else None

    target, root, sums = resolve_positions(sem, m.root, None, m.sums, resolve, n, file)
    target_items = arrays.get(("targets",), m.targets)
    if target_items is not None:
        target = _compact_targets(sem, _int_array(target_items, ("targets",), file), n, file)
    value = check_nodes(sem, np.diff(ptr), owner, value, target, file, lambda i, f: (f, i))
    graph = graph_from_csr(sem, ptr, idx, owner, value, target, names)
    return finish_case(m, graph, root, sums, compact_key(n), file, path)


def _compact_targets(
    sem: Semantics, ids: NDArray[np.int64], n: int, file: str
) -> NDArray[np.bool_]:
    """The target mask of a compact case's ``targets`` (vectorized version of the checks in
    :func:`resolve_positions`)."""
    if not describe(sem).has_targets:
        fail(file, ("targets",), "targets are only for reachability semantics")
    bad = first((ids < 0) | (ids >= n))
    if bad is not None:
        fail(file, ("targets", bad), f"target {int(ids[bad])} is not a node")
    target = np.zeros(n, dtype=np.bool_)
    target[ids] = True
    if int(target.sum()) != len(ids):
        seen = np.zeros(n, dtype=np.bool_)
        for k, i in enumerate(ids.tolist()):
            if seen[i]:
                fail(file, ("targets", k), f"duplicate target {i}")
            seen[i] = True
    return target


def _check_length(
    items: Sequence[Any] | NDArray[Any], n: int, where: tuple[PathPart, ...], file: str
) -> None:
    if len(items) != n:
        fail(file, where, f"{len(items)} entries for {n} nodes")


def _check_names(names: Sequence[str], file: str) -> None:
    distinct = set(names)
    if len(distinct) == len(names) and "" not in distinct:
        return  # the common case, without a Python loop
    seen: dict[str, int] = {}
    for k, x in enumerate(names):
        if not x:
            fail(file, ("names", k), "a name must not be empty")
        j = seen.setdefault(x, k)
        if j != k:
            fail(file, ("names", k), f"duplicate name {shown(x)} (also at [{j}])")


def _int_array(
    items: list[int] | NDArray[np.int64], where: tuple[PathPart, ...], file: str
) -> NDArray[np.int64]:
    if isinstance(items, np.ndarray):
        return items
    try:
        return np.fromiter(items, dtype=np.int64, count=len(items))
    except OverflowError:
        k = next(k for k, v in enumerate(items) if not -(2**63) <= v < 2**63)
        fail(file, (*where, k), f"integer out of range (got {shown(items[k])})")


def _id_array(
    items: list[int] | NDArray[np.int64], n: int, where: tuple[PathPart, ...], file: str
) -> NDArray[np.int64]:
    a = _int_array(items, where, file)
    bad = first((a < 0) | (a >= n))
    if bad is not None:
        fail(file, (*where, bad), f"node id {int(a[bad])} out of range (nodes: {n})")
    return a


def resolve_positions(
    sem: Semantics,
    root: Any,
    targets: Sequence[Any] | None,
    sums: Sequence[SumModel] | None,
    resolve: Callable[[Any], int | None],
    n: int,
    file: str,
) -> tuple[NDArray[np.bool_], int | None, tuple[SumSpec, ...]]:
    """Resolve root, targets and sums (names or ids) to ids: ``(target mask, root, sums)``."""
    root_id = None
    if root is not None:
        root_id = resolve(root)
        if root_id is None:
            fail(file, ("root",), f"root {shown(root)} is not a node")
    target = np.zeros(n, dtype=np.bool_)
    if targets is not None:
        if not describe(sem).has_targets:
            fail(file, ("targets",), "targets are only for reachability semantics")
        for k, x in enumerate(targets):
            i = resolve(x)
            if i is None:
                fail(file, ("targets", k), f"target {shown(x)} is not a node")
            if target[i]:
                fail(file, ("targets", k), f"duplicate target {shown(x)}")
            target[i] = True
    specs: list[SumSpec] = []
    if sums is not None:
        if not describe(sem).has_sums:
            fail(file, ("sums",), "sums are only for impartial semantics")
        seen: set[str] = set()
        for k, s in enumerate(sums):
            if s.name in seen:
                fail(file, ("sums", k, "name"), f"duplicate sum name {shown(s.name)}")
            seen.add(s.name)
            ids: list[int] = []
            for j, x in enumerate(s.positions):
                i = resolve(x)
                if i is None:
                    fail(file, ("sums", k, "positions", j), f"position {shown(x)} is not a node")
                ids.append(i)
            specs.append(SumSpec(s.name, tuple(ids)))
    return target, root_id, tuple(specs)


class CaseMeta(Protocol):
    """The metadata fields every encoding shares (the models, the ``.npz`` header)."""

    @property
    def id(self) -> str | None: ...
    @property
    def source(self) -> str | None: ...
    @property
    def description(self) -> str | None: ...
    @property
    def expect(self) -> ExpectModel | None: ...


def finish_case(
    meta: CaseMeta,
    graph: GameGraph,
    root: int | None,
    sums: tuple[SumSpec, ...],
    node_id: Callable[[str], int | None],
    file: str,
    path: Path | None,
) -> Case:
    """The ``Case`` of a checked graph, with its metadata and ``expect`` (keys resolved by
    ``node_id``)."""
    expect = None
    if meta.expect is not None:
        expect = build_expect(
            meta.expect, graph.semantics, node_id, root, [s.name for s in sums], file
        )
    return Case(
        graph=graph,
        id=meta.id or default_case_id(file),
        root=root,
        source=meta.source,
        description=meta.description,
        expect=expect,
        sums=sums,
        path=path,
    )


# ====================================================================== writing
def case_to_dict(case: Case, encoding: Encoding = "auto") -> dict[str, Any]:
    """The case as the JSON object of ``docs/case-format.md`` in the given encoding."""
    g = case.graph
    compact = _is_compact(g, encoding)
    key: Callable[[int], Any] = (lambda i: i) if compact else g.name
    out: dict[str, Any] = {"semantics": g.semantics.value}
    if compact:
        out["encoding"] = "compact"
    out["id"] = case.id
    for name in ("source", "description"):
        if getattr(case, name) is not None:
            out[name] = getattr(case, name)
    if case.root is not None:
        out["root"] = key(case.root)
    if describe(g.semantics).has_targets and g.target.any():
        out["targets"] = [key(i) for i in np.flatnonzero(g.target).tolist()]
    if case.sums:
        out["sums"] = [
            {"name": s.name, "positions": [key(i) for i in s.positions]} for s in case.sums
        ]
    if compact:
        out.update(_compact_graph(g))
    else:
        out["nodes"] = _readable_nodes(g)
    if case.expect is not None:
        out["expect"] = expect_to_dict(case.expect, str if compact else g.name)
    return out


def _is_compact(g: GameGraph, encoding: Encoding) -> bool:
    if encoding not in ("readable", "compact", "auto"):
        raise UsageError(f"unknown encoding {encoding!r} (readable, compact or auto)")
    return encoding == "compact" or (encoding == "auto" and g.n > AUTO_COMPACT_NODES)


def _number(v: float) -> int | float:
    """A float as JSON writes it best: integral values without ``.0``."""
    return int(v) if float(v).is_integer() else float(v)


def _readable_nodes(g: GameGraph) -> dict[str, dict[str, Any]]:
    d = describe(g.semantics)
    names = g.names
    nodes: dict[str, dict[str, Any]] = {}
    owners = g.owner.tolist()
    values = g.value.tolist()
    for i in range(g.n):
        node: dict[str, Any] = {}
        o, v = owners[i], values[i]
        if o != NOBODY:
            node["owner"] = d.owner_words.get(o, o)
        moves = g.successors(i).tolist()
        if moves:
            node["moves"] = [names[j] for j in moves]
        if not math.isnan(v):
            if d.value_field == "label":
                if v != d.terminal_default:  # a terminal without a label reads as this
                    node["label"] = "won" if v == 1.0 else "draw"
            else:
                node["value"] = _number(v)
        nodes[names[i]] = node
    return nodes


def _compact_graph(g: GameGraph) -> dict[str, Any]:
    out: dict[str, Any] = {"nodes": g.n}
    if g.has_names:
        out["names"] = list(g.names)
    out["edges"] = {"src": g.edge_src.tolist(), "dst": g.succ_idx.tolist()}
    if (g.owner != NOBODY).any():
        out["owner"] = g.owner.tolist()
    if not np.isnan(g.value).all():
        out["value"] = [None if math.isnan(v) else _number(v) for v in g.value.tolist()]
    return out


def expect_to_dict(expect: Expect, key: Callable[[int], str]) -> dict[str, Any]:
    """The ``expect`` block as JSON, node keys written by ``key`` (name or id string)."""
    out: dict[str, Any] = {}

    def table(name: str, items: Iterable[tuple[int, Any]], conv: Callable[[Any], Any]) -> None:
        t = {key(i): conv(v) for i, v in items}
        if t:
            out[name] = t

    table("values", expect.values.items(), _number)
    table("labels", expect.labels.items(), str)
    table("winner", expect.winner.items(), int)
    table("grundy", expect.grundy.items(), _grundy)
    table("remoteness", expect.remoteness.items(), int)
    table("intervals", expect.intervals.items(), lambda v: [_number(v[0]), _number(v[1])])
    if expect.root_value is not None:
        rv = expect.root_value
        out["root_value"] = rv if isinstance(rv, str) else _number(rv)
    if expect.unique is not None:
        out["unique"] = expect.unique
    if expect.sums:
        out["sums"] = {k: _grundy(v) for k, v in expect.sums.items()}
    return out


def _grundy(v: Any) -> int | str:
    return v if isinstance(v, str) else int(v)


def dump_case(case: Case, path: str | Path, encoding: Encoding = "auto") -> Path:
    """Write the case to ``path`` as JSON (atomically: a temporary file, then a rename).

    Refuses to overwrite the file the case was read from (``UsageError``): writers never touch
    their input. Returns the path written.
    """
    data = case_to_text(case, encoding).encode("utf-8")
    return write_atomically(path, lambda f: f.write(data), case.path)


def case_to_text(case: Case, encoding: Encoding = "auto") -> str:
    """The JSON text :func:`dump_case` writes: one top-level field per line (and one node per
    line in the readable encoding)."""
    d = case_to_dict(case, encoding)

    def j(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False, allow_nan=False)

    lines = []
    for k, v in d.items():
        if k in ("nodes", "expect") and isinstance(v, dict) and v:
            inner = ",\n".join(f"    {j(name)}: {j(x)}" for name, x in v.items())
            lines.append(f"  {j(k)}: {{\n{inner}\n  }}")
        else:
            lines.append(f"  {j(k)}: {j(v)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"
