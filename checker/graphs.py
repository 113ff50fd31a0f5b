"""The standalone checker's own reader of GraphML (``.graphml``) and GML (``.gml``) case files,
written from docs/case-format.md (*Other file types*) and the conventions of the package's
networkx adapter: the case as the fields of the readable JSON encoding, with the nodes named
and ordered as the package names and orders them (GraphML: a node's ``id``; GML: its ``label``;
file order). Node attributes ``owner``, ``value``, ``label`` (GraphML), ``target``; graph
attributes ``semantics`` and ``root``; everything else is ignored, as the package ignores it.

Strict: what it cannot read as the package does, without doubt, is refused with one line (the
checker's BAD, exit 2): a node declared twice, an edge to an undeclared node or given twice, a
key's default (the GraphML spec applies it, networkx does not), yEd sub-elements, a string
across GML lines, a key given twice where it is read, a value of a type the package refuses.
Standard library only (``xml.etree.ElementTree`` and a small tokenizer); part of the checker.
"""

from __future__ import annotations

import html.entities
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

SUFFIXES = (".graphml", ".gml")
NS = "{http://graphml.graphdrawing.org/xmlns}"
HEADER = b'<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
TYPES: dict[str, Callable[[str], Any]] = {"int": int, "integer": int, "long": int}
TYPES |= {"float": float, "double": float, "string": str, "yfiles": str}
BOOLS = {"true": True, "false": False, "1": True, "0": False}
FLAGS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False, "": False}
OWNERS = {"minimax": ("max", "min"), "reachability": (0, 1), "normal": (), "impartial": ()}
LEAVES, LABELS = ("win", "draw", "loss"), {1.0: "won", -1.0: "lost", 0.0: "draw"}
# GML's lexical grammar as networkx reads it: key, real, int, string, [, ], comment or space
TOKEN = re.compile(
    r"([A-Za-z][0-9A-Za-z_]*\b)|([+-]?(?:[0-9]*\.[0-9]+|[0-9]+\.[0-9]*|INF)(?:[Ee][+-]?[0-9]+)?)"
    r'|([+-]?[0-9]+)|(".*?")|(\[)|(\])|(#.*$|\s+)'
)
ENTITY = re.compile("&(?:[0-9A-Za-z]+|#(?:[0-9]+|x[0-9A-Fa-f]+));")
KEY, REAL, INT, STRING, OPEN, CLOSE, SPACE = range(1, 8)


class Unread(ValueError):
    """What this reader cannot read without doubt."""


def need(ok: bool, what: str, *args: Any) -> None:
    """``what`` formatted with ``args`` (only when it is said) unless ``ok``."""
    if not ok:
        raise Unread(what.format(*args))


def read(raw: bytes, path: str, bad: type[Exception]) -> dict[str, Any]:
    """The case file's bytes as the readable encoding's fields; ``bad(one line)`` if unread."""
    kind = "GraphML" if path.lower().endswith(".graphml") else "GML"
    try:
        return case(*(graphml(raw) if kind == "GraphML" else gml(raw)))
    except (Unread, ET.ParseError, ValueError, KeyError, RecursionError, OverflowError) as e:
        raise bad(f"{kind}: {e if isinstance(e, Unread) else f'invalid: {e!r}'}") from None


Named = list[tuple[str, dict[str, Any]]]  # (name, attributes) per node, in file order


def graphml(raw: bytes) -> tuple[dict[str, Any], Named, list[tuple[str, str]]]:
    root = ET.fromstring(raw)
    if root.find(NS + "graph") is None:  # networkx's repair of a header without its namespace
        root = ET.fromstring(raw.replace(b"<graphml>", HEADER))
    need(root.tag == NS + "graphml", "not a GraphML document")
    found = [*root.iter(NS + "graph")]
    need(len(found) == 1 and found[0] in list(root), "one graph, at the top, is read")
    g = found[0]
    need(g.get("edgedefault") == "directed", "the graph must be edgedefault='directed'")
    keys: dict[str, tuple[str, Callable[[str], Any] | None]] = {}
    for k in root.findall(NS + "key"):
        name, typ, i = k.get("attr.name"), k.get("attr.type", "string"), k.get("id")
        if k.get("yfiles.type") is not None:  # as networkx names and types it
            name, typ = k.get("yfiles.type"), "yfiles"
        need(i is not None and i not in keys and name is not None, f"key {i!r}: no id or name")
        need(k.find(NS + "default") is None, f"key {i!r} has a default (networkx ignores it)")
        need(typ in TYPES or typ == "boolean", f"key {i!r}: unknown type {typ!r}")
        keys[str(i)] = (str(name), TYPES.get(typ))

    inside = {NS + "data", NS + "desc"}

    def data(el: ET.Element, allowed: set[str] = inside) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for d in el:
            need(d.tag in allowed, "element {!r} is not read", d.tag)
            if d.tag != NS + "data":
                continue
            need(d.get("key") in keys, "data of an undeclared key {!r}", d.get("key"))
            (name, typ), text = keys[str(d.get("key"))], d.text
            need(len(d) == 0, "data with sub-elements (yEd graphics) is not read")
            need(name not in out, "{!r} given twice", name)
            need(typ is not None or text is None or text.lower() in BOOLS, "{}: {!r}", name, text)
            out[name] = "" if text is None else typ(text) if typ else BOOLS[text.lower()]
        return out

    attrs, named, edges = data(g, inside | {NS + "node", NS + "edge"}), [], []
    ids: set[str] = set()
    for el in g.findall(NS + "node"):
        x = el.get("id")
        need(x is not None and el.get("yfiles.foldertype") is None, "a node without an id")
        need(x not in ids, "node {!r} declared twice", x)
        ids.add(str(x))
        named.append((str(x), data(el)))
    for el in g.findall(NS + "edge"):
        s, t = el.get("source"), el.get("target")
        need(s in ids and t in ids, "an edge {!r} -> {!r} to an undeclared node", s, t)
        need(el.get("directed") in (None, "true"), "an undirected edge")
        data(el)
        edges.append((str(s), str(t)))
    return attrs, named, edges


def gml(raw: bytes) -> tuple[dict[str, Any], Named, list[tuple[str, str]]]:
    toks: list[tuple[int, Any]] = []
    for no, line in enumerate(raw.decode("ascii").split("\n"), 1):
        need(line.count('"') % 2 == 0, "line {}: a string across lines is not read", no)
        pos = 0
        while pos < len(line):
            m = TOKEN.match(line, pos)
            need(m is not None, "line {}: cannot read {!r}", no, line[pos:])
            assert m is not None and m.lastindex is not None
            pos, k, v = m.end(), m.lastindex, m.group()
            if k != SPACE:
                toks.append((k, float(v) if k == REAL else int(v) if k == INT else v))
    top, end = block([*toks, (0, None)], 0)
    need(toks[end:] == [], "text after the graph")
    (g,) = one(top, "graph", dict)
    need(one(g, "directed", int) == [1], "the graph must be 'directed 1'")
    attrs = {k: one(g, k, (str, int, float))[0] for k in ("semantics", "root") if k in g}
    named, ids = [], {}
    for nd in g.get("node", []):
        need(isinstance(nd, dict), "a node must be a [ ... ] block")
        (i,), (label,) = one(nd, "id", (int, str)), one(nd, "label", (str, int, float))
        need(i not in ids, "node id {!r} twice", i)
        ids[i] = str(label)
        named.append((ids[i], {k: one(nd, k, (str, int, float))[0] for k in nd if k in GML_NODE}))
    edges = []
    for e in g.get("edge", []):
        need(isinstance(e, dict), "an edge must be a [ ... ] block")
        (s,), (t,) = one(e, "source", (int, str)), one(e, "target", (int, str))
        need(s in ids and t in ids, "an edge {!r} -> {!r} to an undeclared node", s, t)
        edges.append((ids[s], ids[t]))
    return attrs, named, edges


GML_NODE = ("owner", "value", "target")  # a GML node's label is its name


def block(toks: list[tuple[int, Any]], i: int) -> tuple[dict[str, list[Any]], int]:
    """``key value`` pairs from ``toks[i]`` on: each key's values in order, and where it ends."""
    out: dict[str, list[Any]] = {}
    while toks[i][0] == KEY:
        key, (k, v) = toks[i][1], toks[i + 1]
        need(k in (REAL, INT, STRING, OPEN), "{}: a number, a string or [ ... ]", key)
        if k == OPEN:
            v, i = block(toks, i + 2)  # i: its ]
            need(toks[i][0] == CLOSE, "{}: [ without ]", key)
            i -= 1
        elif k == STRING:
            v = ENTITY.sub(entity, v[1:-1])
            need(v not in ("()", "[]", "_networkx_list_start"), "{}: {!r} is not read", key, v)
        out.setdefault(key, []).append(v)
        i += 2
    return out, i


def entity(m: re.Match[str]) -> str:
    """A character reference, as networkx's GML reader unescapes it."""
    t = m.group()
    if t[1] != "#":
        code = html.entities.name2codepoint.get(t[1:-1])
        return t if code is None else chr(code)
    code = int(t[3:-1], 16) if t[2] == "x" else int(t[2:-1])
    try:
        return chr(code)
    except (ValueError, OverflowError):
        return t


def one(d: dict[str, list[Any]], key: str, types: Any) -> list[Any]:
    """The one value of ``key`` (as a list of one), of one of ``types``."""
    need(len(d.get(key, [])) == 1, "{!r}: given {} times, not once", key, len(d.get(key, [])))
    need(isinstance(d[key][0], types), "{!r}: {!r} is not read here", key, d[key][0])
    return d[key]


def case(attrs: dict[str, Any], named: Named, edges: list[tuple[str, str]]) -> dict[str, Any]:
    """The readable encoding's fields, with what the package's reader refuses refused."""
    sem = attrs.get("semantics")
    need(sem in OWNERS, f"semantics {sem!r}: not one of {sorted(OWNERS)}")
    moves: dict[str, list[str]] = {x: [] for x, _ in named}
    need(len(moves) == len(named) and "" not in moves, "two nodes share a name, or one has none")
    need(bool(named), "the graph has no nodes")
    for s, t in edges:
        need(t not in moves[s], "the move {!r} -> {!r} given twice", s, t)
        moves[s].append(t)
    nodes: dict[str, Any] = {}
    targets = [x for x, a in named if flag(a.get("target"), x)]
    aim = set(targets)
    need(sem == "reachability" or not targets, f"targets are for reachability, not {sem}")
    for x, a in named:
        inner, node = bool(moves[x]), dict[str, Any](moves=moves[x])
        o, own = a.get("owner"), OWNERS[str(sem)]
        o = int(o) if isinstance(o, str) and o.strip() in ("0", "1") else o
        need(o is None or (o in own and type(o) is type(own[0])), "{}: owner {!r}", x, o)
        if sem == "minimax" or (sem == "reachability" and inner and x not in aim):
            need((o is not None) == (inner or sem == "reachability"), "{}: owner here", x)
        if o is not None:
            node["owner"] = o
        v, label = number(a.get("value"), x, sem == "minimax"), a.get("label")
        if sem == "normal" and v is not None:
            need(label is None and v in LABELS, "{}: a normal value is 1, -1 or 0, no label", x)
            label = LABELS[v]
        need(label is None or (sem == "normal" and label in LABELS.values()), "{}: label", x)
        need(v is None or sem in ("minimax", "normal"), "{}: {} takes no value", x, sem)
        need(not inner or (v is None and label is None), "{}: a node with moves: a value", x)
        need(inner or sem != "minimax" or v is not None, "{}: a minimax leaf needs a value", x)
        node |= {"value": v} if sem == "minimax" and v is not None else {}
        nodes[x] = node | ({"label": label} if label is not None else {})
    root = attrs.get("root")
    need(root is None or str(root) in moves, f"root {root!r}: no such node")
    return {"semantics": sem, "nodes": nodes, "targets": targets} | (
        {"root": str(root)} if root is not None else {}
    )


def number(v: Any, x: str, words: bool) -> Any:
    """A value as the package reads it: a number (or a numeric text), or a minimax word."""
    if v is None or (words and v in LEAVES):
        return v
    need(not isinstance(v, bool), "{}: value {!r} is not a number", x, v)
    f = float(v)
    need(math.isfinite(f) and abs(f) <= 2**53, "{}: value {!r}: not finite, or above 2^53", x, v)
    return f


def flag(v: Any, x: str) -> bool:
    """``target`` as the package reads it: a boolean, 0 / 1, or true/yes/1, false/no/0/empty."""
    if v is None or isinstance(v, bool):
        return bool(v)
    if type(v) is int and v in (0, 1):
        return bool(v)
    need(isinstance(v, str) and v.strip().lower() in FLAGS, "{}: target {!r}", x, v)
    return FLAGS[v.strip().lower()]
