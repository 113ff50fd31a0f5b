"""Structure-aware mutation of valid case files of every format, for the reader fuzz tests.

Each format starts from the valid examples of ``io_examples.VALID`` written by the project's own
writers, and is damaged the way an attacker would: at the level of its structure (JSON values,
zip entries and ``.npy`` headers, XML / GML tokens: wrong types, huge numbers, huge strings,
size fields that lie) and at the level of its bytes (truncation, bit flips, spliced text).
"""

from __future__ import annotations

import copy
import io
import json
import re
import struct
import warnings
import zipfile
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st
from io_examples import VALID
from io_mutations import mutate

from verifier.io import parse_case, save_any

FORMATS = (".json", ".npz", ".graphml", ".gml")

HOSTILE_TEXT = [
    b"9" * 5000,
    b"-" + b"9" * 4400,
    b"99999999999999999999",
    b"2147483648",
    b"-1",
    b"1e400",
    b"-1e400",
    b"1" + b"0" * 400 + b".5",
    b"NaN",
    b"Infinity",
    b"null",
    b"true",
    b"0.5",
    b"1e-400",  # underflows to 0: refused, never read as a draw
    b"9007199254740993.0",  # an integer beyond 2^53 written as a float
    b"1.00000000000000001",  # the same float64 as 1
    b'"' + b"x" * 200_000 + b'"',
    b"x" * 200_000,
    b"[" * 3000 + b"]" * 3000,
    b"{" * 3000,
    b"\xff\xfe",
    b"\x00",
    b"\\u0000",
    b"&lt;&#0;&amp;",
    b"<!ENTITY x 'y'>",
    b"]]>",
    b"[ [ [",
]
"""Snippets spliced into text: huge literals and strings, wrong types, deep nesting, bad bytes."""


@cache
def seeds(suffix: str) -> tuple[bytes, ...]:
    """The valid example files of one format, as bytes."""
    import tempfile

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, doc in sorted(VALID.items()):
            if suffix == ".json":
                out.append(json.dumps(doc, indent=1).encode())
                continue
            if suffix != ".npz" and "compact" in name:
                continue  # the graph formats keep no encoding: one seed per semantics
            case = parse_case(json.dumps(doc), f"{name}.json")
            path = save_any(case, Path(tmp) / f"{name}{suffix}")
            out.append(path.read_bytes())
    return tuple(out)


# ---------------------------------------------------------------------- bytes
@st.composite
def damaged_bytes(draw: st.DrawFn, raw: bytes) -> bytes:
    """``raw`` truncated, with bits flipped, or with a hostile snippet spliced in."""
    op = draw(st.sampled_from(["truncate", "flip", "splice", "delete", "repeat"]))
    k = draw(st.integers(0, len(raw)))
    if op == "truncate":
        return raw[:k]
    if op == "flip" and raw:
        k = min(k, len(raw) - 1)
        return raw[:k] + bytes([raw[k] ^ (1 << draw(st.integers(0, 7)))]) + raw[k + 1 :]
    if op == "splice":
        j = draw(st.integers(k, min(len(raw), k + 16)))
        return raw[:k] + draw(st.sampled_from(HOSTILE_TEXT)) + raw[j:]
    if op == "delete":
        return raw[:k] + raw[k + draw(st.integers(1, 64)) :]
    j = draw(st.integers(k, min(len(raw), k + 64)))
    return raw[:k] + raw[k:j] * draw(st.integers(2, 50)) + raw[j:]


# ---------------------------------------------------------------------- JSON
_PLACEHOLDER = "\x00hostile\x00"


@st.composite
def json_mutants(draw: st.DrawFn, docs: tuple[Any, ...] | None = None) -> bytes:
    """A valid case (or one of ``docs``) mutated in its structure (and sometimes its bytes)."""
    pool = docs if docs is not None else tuple(VALID[k] for k in sorted(VALID))
    doc: Any = copy.deepcopy(draw(st.sampled_from(pool)))
    data = draw(st.data())
    for _ in range(draw(st.integers(0, 3))):
        doc = mutate(doc, data)
    snippet = None
    if draw(st.booleans()):  # a hostile literal in a random slot of the structure
        doc = _put(doc, data, _PLACEHOLDER)
        snippet = draw(st.sampled_from(HOSTILE_TEXT))
    raw = json.dumps(doc).encode()
    if snippet is not None:
        raw = raw.replace(json.dumps(_PLACEHOLDER).encode(), snippet)
    if draw(st.integers(0, 3)) == 0:
        raw = draw(damaged_bytes(raw))
    return raw


def _put(doc: Any, data: st.DataObject, value: Any) -> Any:
    """``doc`` with ``value`` at a random place (a key of an object or an item of a list)."""
    from io_mutations import containers

    node: Any = doc
    for step in data.draw(st.sampled_from(containers(doc))):
        node = node[step]
    if isinstance(node, dict):
        keys = [*node, "nodes", "value", "src", "root"]
        node[data.draw(st.sampled_from(keys))] = value
    elif node:
        node[data.draw(st.integers(0, len(node) - 1))] = value
    else:
        node.append(value)
    return doc


# ---------------------------------------------------------------------- .npz
_CENTRAL = b"PK\x01\x02"


def _npy(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, a, allow_pickle=False)
    return buf.getvalue()


_ODD_ARRAYS = [
    np.zeros(0, dtype=np.int32),
    np.zeros((2, 2), dtype=np.int64),
    np.array([2**40, -1], dtype=np.int64),
    np.array([0.5, np.nan, np.inf]),
    np.array([1, 0], dtype=">i4"),
    np.array([True]),
    np.array([b"ab"], dtype="S2"),
    np.array(["ab"], dtype="U2"),
    np.arange(10, dtype=np.uint64),
    np.frombuffer(b'{"semantics": "impartial"}', dtype=np.uint8),
    np.frombuffer(b"[1, 2", dtype=np.uint8),
]


@st.composite
def npz_mutants(draw: st.DrawFn, files: tuple[bytes, ...] | None = None) -> bytes:
    """A valid ``.npz`` case (or one of ``files``) whose entries, ``.npy`` headers, zip sizes
    or bytes are damaged."""
    pool = files if files is not None else seeds(".npz")
    with zipfile.ZipFile(io.BytesIO(draw(st.sampled_from(pool)))) as z:
        entries = {i.filename: z.read(i) for i in z.infolist()}
    names = sorted(entries)
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(names))
        op = draw(
            st.sampled_from(["drop", "rename", "odd", "header", "shape", "bytes", "json", "dup"])
        )
        if op == "drop":
            entries.pop(name, None)
        elif op == "rename" and name in entries:
            entries[draw(st.sampled_from([*names, "x.npy", "succ_idx"]))] = entries.pop(name)
        elif op == "odd":
            entries[name] = _npy(draw(st.sampled_from(_ODD_ARRAYS)))
        elif op in ("header", "shape") and name in entries:
            entries[name] = _lying_npy_header(draw, entries[name], op == "shape")
        elif op == "bytes" and name in entries:
            entries[name] = draw(damaged_bytes(entries[name]))
        elif op == "json" and "header.npy" in entries:
            entries["header.npy"] = _mutated_header(draw, entries["header.npy"])
        elif op == "dup":
            entries[name + "\x00dup"] = entries.get(name, b"")
    raw = _zip(entries, draw(st.booleans()))
    op = draw(st.sampled_from(["none", "none", "sizes", "bytes"]))
    if op == "sizes":
        raw = _lying_sizes(draw, raw)
    elif op == "bytes":
        raw = draw(damaged_bytes(raw))
    return raw


def _lying_npy_header(draw: st.DrawFn, entry: bytes, shape_only: bool) -> bytes:
    """The entry with its ``.npy`` header's shape (or dtype) replaced: sizes that lie."""
    m = re.search(rb"\{.*?\}", entry[:256])
    if m is None:
        return entry
    head = m.group().decode("latin-1")
    if shape_only:
        n = draw(st.sampled_from([0, 1, 7, 10**6, 10**12, 2**62, -1]))
        new = re.sub(r"'shape': \([^)]*\)", f"'shape': ({n},)", head)
    else:
        descr = draw(st.sampled_from(["'|O'", "'<f16'", "'<c16'", "'|V8'", "'<M8[s]'", "'xx'"]))
        new = re.sub(r"'descr': '[^']*'", f"'descr': {descr}", head)
    return entry[: m.start()] + new.encode("latin-1") + entry[m.end() :]


def _mutated_header(draw: st.DrawFn, entry: bytes) -> bytes:
    """The header entry with its JSON mutated like a case."""
    try:
        doc = json.loads(np.lib.format.read_array(io.BytesIO(entry)).tobytes())
    except Exception:
        return entry
    doc = mutate(doc, draw(st.data()))
    return _npy(np.frombuffer(json.dumps(doc).encode(), dtype=np.uint8))


def _zip(entries: dict[str, bytes], deflate: bool) -> bytes:
    buf = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(buf, "w", method) as z:
            for name, data in entries.items():
                z.writestr(name.removesuffix("\x00dup"), data)
    return buf.getvalue()


def _lying_sizes(draw: st.DrawFn, raw: bytes) -> bytes:
    """``raw`` with a central directory record's compressed or uncompressed size changed."""
    starts = [m.start() for m in re.finditer(re.escape(_CENTRAL), raw)]
    if not starts:
        return raw
    at = draw(st.sampled_from(starts)) + draw(st.sampled_from([20, 24]))
    size = draw(st.sampled_from([0, 1, 100, 2**20, 2**31, 2**32 - 1]))
    return raw[:at] + struct.pack("<I", size) + raw[at + 4 :]


# ---------------------------------------------------------------------- GraphML / GML
_GRAPHML_TOKENS = re.compile(rb'"[^"<>]*"|>[^<>]*<|<[a-z]+ ')
_GML_TOKENS = re.compile(rb'"[^"]*"|-?[0-9][0-9.eE+-]*|[A-Za-z_]+|\[|\]')


@st.composite
def graph_mutants(draw: st.DrawFn, suffix: str) -> bytes:
    """A valid GraphML or GML case with tokens replaced, removed or repeated (and bytes)."""
    tokens = _GRAPHML_TOKENS if suffix == ".graphml" else _GML_TOKENS
    return draw(token_mutants(seeds(suffix), tokens, xml=suffix == ".graphml"))


@st.composite
def token_mutants(
    draw: st.DrawFn, files: tuple[bytes, ...], tokens: re.Pattern[bytes], xml: bool = False
) -> bytes:
    """One of ``files`` (text) with ``tokens`` replaced, removed or repeated (and bytes)."""
    raw = draw(st.sampled_from(files))
    for _ in range(draw(st.integers(1, 3))):
        spans = [m.span() for m in tokens.finditer(raw)]
        if not spans:
            break
        a, b = draw(st.sampled_from(spans))
        op = draw(st.sampled_from(["replace", "replace", "drop", "repeat", "line"]))
        if op == "replace":
            snippet = draw(st.sampled_from(HOSTILE_TEXT))
            if xml and raw[a : a + 1] in b'">':
                edge = raw[a : a + 1], raw[b - 1 : b]
                snippet = edge[0] + snippet.replace(b'"', b"&quot;") + edge[1]
            raw = raw[:a] + snippet + raw[b:]
        elif op == "drop":
            raw = raw[:a] + raw[b:]
        elif op == "repeat":
            raw = raw[:b] + raw[a:b] * draw(st.integers(1, 3)) + raw[b:]
        else:
            lines = raw.split(b"\n")
            k = draw(st.integers(0, len(lines) - 1))
            lines.insert(draw(st.integers(0, len(lines))), lines[k])
            raw = b"\n".join(lines)
    if draw(st.integers(0, 3)) == 0:
        raw = draw(damaged_bytes(raw))
    return raw


def mutants(suffix: str) -> st.SearchStrategy[bytes]:
    """Mutated files of one format (by suffix)."""
    if suffix == ".json":
        return json_mutants()
    if suffix == ".npz":
        return npz_mutants()
    return graph_mutants(suffix)


# ---------------------------------------------------------------------- answer files
ANSWER_FORMATS = (".json", ".csv", ".npz", ".parquet")
"""The encodings of answer files (``verifier.io.answers``), fuzzed against one case."""

_CSV_TOKENS = re.compile(rb"[^,\n]+|\n")


@cache
def answer_case_json() -> str:
    """The case the answer files are for: the readable normal-play example (with a cycle)."""
    return json.dumps(VALID["normal-readable"])


@cache
def answer_seeds(suffix: str) -> tuple[bytes, ...]:
    """Valid answer files for ``answer_case_json()``: the whole answer and the root's alone."""
    import tempfile

    import verifier
    from verifier.io.answers import save_answers
    from verifier.model.solution import Solution

    case = parse_case(answer_case_json(), "case.json")
    sol = verifier.solve(case)
    one = np.zeros(case.graph.n, dtype=np.bool_)
    one[0] = True
    partial = Solution(sol.graph, sol.root, sol.description, sol.columns, one)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, s in enumerate((sol, partial)):
            out.append(save_answers(s, case, Path(tmp) / f"a{k}{suffix}").read_bytes())
    return tuple(out)


def answer_mutants(suffix: str) -> st.SearchStrategy[bytes]:
    """Mutated answer files of one encoding."""
    if suffix == ".json":
        return json_mutants(tuple(json.loads(raw) for raw in answer_seeds(".json")))
    if suffix == ".npz":
        return npz_mutants(answer_seeds(".npz"))
    if suffix == ".parquet":
        return st.one_of(
            st.sampled_from(answer_seeds(".parquet")).flatmap(damaged_bytes),
            parquet_tables(),
        )
    return token_mutants(answer_seeds(".csv"), _CSV_TOKENS)


_ARROW_TYPES = ("int8", "int64", "uint64", "float64", "string", "bool", "list")


@st.composite
def parquet_tables(draw: st.DrawFn) -> bytes:
    """A well-formed Parquet file with hostile content: columns of any name and type, values
    out of range, nulls, lengths that disagree, a header that is not the case's (or not JSON)."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = draw(st.integers(0, 12))
    names = draw(
        st.lists(
            st.sampled_from(["id", "value", "remoteness", "move", "loopy", "colour"]),
            max_size=6,
            unique=True,
        )
    )
    ints = st.one_of(st.none(), st.integers(-3, 12), st.integers(-(2**63), 2**63 - 1))
    cols = {}
    for name in names:
        kind = draw(st.sampled_from(_ARROW_TYPES))
        cells = draw(st.lists(ints, min_size=rows, max_size=rows))
        if kind == "string":
            cols[name] = pa.array([None if c is None else str(c) for c in cells])
        elif kind == "bool":
            cols[name] = pa.array([None if c is None else c > 0 for c in cells])
        elif kind == "list":
            cols[name] = pa.array(
                [None if c is None else [c % 7 - 1] * (abs(c) % 3) for c in cells],
                pa.list_(pa.int64()),
            )
        elif kind == "float64":
            cols[name] = pa.array([None if c is None else c / 2 for c in cells], pa.float64())
        else:
            t = getattr(pa, kind)()
            lo, hi = (0, 2**64 - 1) if kind == "uint64" else (-(2**63), 2**63 - 1)
            if kind == "int8":
                lo, hi = -128, 127
            cells = [None if c is None or not lo <= c <= hi else c for c in cells]
            cols[name] = pa.array(cells, t)
    table = pa.table(cols) if cols else pa.table({"id": pa.array([], pa.int64())})
    header = draw(
        st.sampled_from(
            [
                None,
                b"{}",
                b"not json",
                b"[]",
                b'{"semantics": "minimax"}',
                b'{"graph": {"positions": 3}}',
                b'{"graph": 7}',
            ]
        )
    )
    if header is not None:
        table = table.replace_schema_metadata({b"gamegraph-verifier": header})
    out = io.BytesIO()
    pq.write_table(table, out)
    return out.getvalue()
