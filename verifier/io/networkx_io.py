"""networkx adapters: ``GameGraph`` <-> ``nx.DiGraph``, and GraphML / GML files.

Node attributes carry the game: ``owner`` (``"max"``/``"min"`` for minimax, ``0``/``1`` for
reachability), ``value`` (minimax terminal value: a number, or ``win``/``draw``/``loss``),
``label`` (normal terminal label ``won``/``lost``/``draw``; ``value`` +1/-1/0 is accepted too,
since GML uses ``label`` for the node's name) and ``target`` (reachability; true/false). The
graph attribute ``semantics`` says which rules apply (a ``semantics`` argument overrides it);
``root``, ``id``, ``source`` and ``description`` graph attributes are read when present. Other
attributes (layout, colours) are ignored.

A networkx graph is brought to the readable case encoding and checked by the same code as a
JSON case, so bad attributes are reported as ``FILE: $.nodes.<name>.owner: ...``.

Examples
--------
>>> from verifier.model import GameGraph, Semantics
>>> g = GameGraph.from_successors({"a": ["b"], "b": []}, semantics=Semantics.IMPARTIAL)
>>> G = to_networkx(g)
>>> sorted(G.edges), G.graph["semantics"]
([('a', 'b')], 'impartial')
>>> from_networkx(G).m
1
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from verifier.errors import UsageError
from verifier.io.case_json import case_from_data, default_case_id
from verifier.io.files import write_atomically
from verifier.io.jsonpath import MAX_INT_DIGITS, fail, paused_gc, shown
from verifier.io.limits import Limits
from verifier.model import NOBODY, Case, GameGraph, Semantics
from verifier.model.describe import DESCRIPTIONS, describe

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "GRAPH_SUFFIXES",
    "case_from_networkx",
    "from_networkx",
    "read_graph_file",
    "to_networkx",
    "write_graph_file",
]

GRAPH_SUFFIXES = (".graphml", ".gml")
_GRAPH_FIELDS = ("id", "source", "description", "root")
_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no", ""}
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
"""Characters XML 1.0 (and so GraphML) cannot hold."""
_LABEL_OF_VALUE = {1.0: "won", -1.0: "lost", 0.0: "draw"}
_LABELLED = frozenset(d.semantics.value for d in DESCRIPTIONS.values() if d.value_field == "label")
"""The semantics (as written) whose terminals take a ``label``, not a ``value``."""


def to_networkx(graph: GameGraph, *, labels_as_values: bool = False) -> nx.DiGraph:
    """The graph as an ``nx.DiGraph`` with the node attributes described above.

    ``labels_as_values`` writes normal terminal labels as ``value`` +1/-1/0 instead of
    ``label`` (for GML, where ``label`` is the node's name).
    """
    import networkx as nx  # imported on use: about 0.1 s that JSON and .npz cases do not need

    G = nx.DiGraph(semantics=graph.semantics.value)
    d = describe(graph.semantics)
    names = graph.names
    owners = graph.owner.tolist()
    values = graph.value.tolist()
    targets = graph.target.tolist()
    for i in range(graph.n):
        attrs: dict[str, Any] = {}
        if owners[i] != NOBODY:
            o = owners[i]
            attrs["owner"] = d.owner_words.get(o, o)
        v = values[i]
        if not math.isnan(v):
            if d.value_field == "label" and not labels_as_values:
                attrs["label"] = _LABEL_OF_VALUE[v]
            else:
                attrs["value"] = v
        if targets[i]:
            attrs["target"] = True
        G.add_node(names[i], **attrs)
    src = graph.edge_src.tolist()
    G.add_edges_from(
        (names[s], names[d]) for s, d in zip(src, graph.succ_idx.tolist(), strict=True)
    )
    return G


def from_networkx(G: Any, semantics: Semantics | str | None = None) -> GameGraph:
    """A ``GameGraph`` from a directed networkx graph (``CaseError`` on bad attributes)."""
    return case_from_networkx(G, semantics, file="<networkx>").graph


def case_from_networkx(
    G: Any, semantics: Semantics | str | None = None, *, file: str = "<networkx>"
) -> Case:
    """A ``Case`` from a networkx graph, with the graph attributes ``root``, ``id``, ...."""
    return case_from_data(_as_case_data(G, semantics, file), file)


def _as_case_data(G: Any, semantics: Semantics | str | None, file: str) -> dict[str, Any]:
    import networkx as nx

    if not isinstance(G, nx.Graph):
        fail(file, (), f"not a networkx graph (got {type(G).__name__})")
    if not G.is_directed():
        fail(file, (), "a game graph must be directed")
    sem = semantics if semantics is not None else G.graph.get("semantics")
    if sem is None:
        fail(file, ("semantics",), "required field is missing (a graph attribute or argument)")
    data: dict[str, Any] = {"semantics": str(sem.value if isinstance(sem, Semantics) else sem)}
    for key in _GRAPH_FIELDS:
        if key in G.graph:
            data[key] = G.graph[key] if key != "root" else str(G.graph[key])
    # a normal graph's terminals take labels (an unknown semantics: as it is, refused later)
    labelled = data["semantics"] in _LABELLED
    nodes: dict[str, dict[str, Any]] = {}
    key_of: dict[Any, str] = {}
    targets: list[str] = []
    for x, attrs in G.nodes(data=True):
        name = str(x)
        if name in nodes:
            fail(file, ("nodes", name), f"duplicate node name {shown(name)}")
        key_of[x] = name
        node: dict[str, Any] = {}
        if "owner" in attrs:
            node["owner"] = _owner(attrs["owner"])
        for field in ("value", "label"):
            if field in attrs:
                node[field] = _value(attrs[field]) if field == "value" else attrs[field]
        if labelled and "value" in node:
            v = node.pop("value")
            node["label"] = _LABEL_OF_VALUE.get(v, v) if isinstance(v, float) else v
        if "target" in attrs and _flag(attrs["target"], file, ("nodes", name, "target")):
            targets.append(name)
        nodes[name] = node
    for x, y in G.edges():
        nodes[key_of[x]].setdefault("moves", []).append(key_of[y])
    data["nodes"] = nodes
    if targets:
        data["targets"] = targets
    return data


def _owner(v: Any) -> Any:
    """GraphML / GML may carry an owner 1 as the string ``"1"`` or as a numpy integer."""
    if isinstance(v, str) and v.strip() in ("0", "1"):
        return int(v)
    if isinstance(v, np.integer):
        return int(v)
    return v


def _value(v: Any) -> Any:
    if isinstance(v, bool):
        return v
    if isinstance(v, int | float | np.integer | np.floating):
        return float(v)
    if isinstance(v, str) and v.strip() not in ("win", "draw", "loss"):
        try:
            return float(v)
        except ValueError:
            return v
    return v


def _flag(v: Any, file: str, where: tuple[str, ...]) -> bool:
    if isinstance(v, bool | np.bool_):
        return bool(v)
    if isinstance(v, int | np.integer) and v in (0, 1):
        return bool(v)
    if isinstance(v, str) and v.strip().lower() in _TRUE | _FALSE:
        return v.strip().lower() in _TRUE
    fail(file, where, f"target must be true or false (got {shown(v)})")


# ---------------------------------------------------------------------- files
def read_graph_file(
    path: str | Path,
    semantics: Semantics | str | None = None,
    *,
    limits: Limits | None = None,
) -> Case:
    """Read a GraphML (``.graphml``) or GML (``.gml``) game graph as a ``Case``; a file too big
    for ``limits`` (default: sized to the machine) is refused before it is read."""
    p = Path(path)
    file = str(path)
    suffix = p.suffix.lower()
    if suffix not in GRAPH_SUFFIXES:
        fail(file, (), f"not a GraphML or GML file (suffix {p.suffix!r})")
    if not p.is_file():
        fail(
            file,
            (),
            "cannot read the file: a folder" if p.is_dir() else "no such file or directory",
        )
    limits = limits or Limits()
    limits.check_text_file(p, file)
    with paused_gc():
        return _read_graph(p, suffix, semantics, file, limits)


_READ_ERRORS = (
    ET.ParseError,
    ValueError,
    KeyError,
    TypeError,
    IndexError,
    LookupError,
    AttributeError,
    OSError,
    RecursionError,
)
"""What networkx's GraphML and GML parsers raise on malformed text (and ``nx.NetworkXError``,
added where networkx is imported)."""


def _read_graph(
    p: Path, suffix: str, semantics: Semantics | str | None, file: str, limits: Limits
) -> Case:
    import networkx as nx

    kind = "GraphML" if suffix == ".graphml" else "GML"
    try:
        G = nx.read_graphml(p) if suffix == ".graphml" else nx.read_gml(p)
    except (nx.NetworkXError, *_READ_ERRORS) as e:
        fail(file, (), f"invalid {kind}: {_parse_problem(e)}")
    if suffix == ".graphml":  # the text parsed: no error of its own can come from it
        _declared_once(p, file)
    if isinstance(G, nx.Graph):
        nodes, moves = G.number_of_nodes(), G.number_of_edges()
        limits.check_positions(nodes + moves, file, what=f"{nodes:,} nodes and {moves:,} moves")
    data = _as_case_data(G, semantics, file)
    data.setdefault("id", default_case_id(file))
    return case_from_data(data, file, path=p, limits=limits)


def _declared_once(p: Path, file: str) -> None:
    """Every GraphML node declared once and every edge between declared nodes (``CaseError``
    otherwise): networkx merges a node declared twice and adds an undeclared edge end as a new
    node, a reading the standalone checker (and a careful reader) does not share, as GML's
    parser refuses both."""
    declared: set[str] = set()
    ends: list[tuple[str, str]] = []
    for _, el in ET.iterparse(p):
        tag = el.tag.rpartition("}")[2]
        if tag == "node":
            name = str(el.get("id"))
            if name in declared:
                twice = f"invalid GraphML: node {shown(name)} is declared twice"
                fail(file, ("nodes", name), twice)
            declared.add(name)
        elif tag == "edge":
            ends += [("source", str(el.get("source"))), ("target", str(el.get("target")))]
        el.clear()
    for end, name in ends:
        if name not in declared:
            fail(file, (), f"invalid GraphML: an edge's {end} {shown(name)} is no declared node")


def _parse_problem(e: BaseException) -> str:
    """One line saying what the parser found wrong."""
    if isinstance(e, RecursionError):
        return "nested too deeply"
    text = " ".join(str(e).split())
    if "integer string conversion" in text:
        return f"an integer literal of more than {MAX_INT_DIGITS} digits"
    return text or type(e).__name__


def write_graph_file(case: Case, path: str | Path) -> Path:
    """Write a case's graph as GraphML or GML (by suffix), with ``semantics``, ``id``, ``root``,
    ``source`` and ``description`` as graph attributes (``expect`` is not kept).

    ``UsageError`` if a name or text holds characters GraphML (XML) cannot store.
    """
    import networkx as nx

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in GRAPH_SUFFIXES:
        raise UsageError(f"{p}: not a GraphML or GML file name")
    gml = suffix == ".gml"
    G = to_networkx(case.graph, labels_as_values=gml)
    G.graph["id"] = case.id
    if case.root is not None:
        G.graph["root"] = case.graph.name(case.root)
    for key in ("source", "description"):
        if getattr(case, key) is not None:
            G.graph[key] = getattr(case, key)
    if not gml:
        for where, v in [("a name", x) for x in G.nodes] + list(G.graph.items()):
            if isinstance(v, str) and _XML_INVALID.search(v):
                raise UsageError(f"{p}: {where} has characters XML cannot hold: {v!r}")
    if gml:
        text = "\n".join(nx.generate_gml(G)) + "\n"
        return write_atomically(p, lambda f: f.write(text.encode("utf-8")), case.path)
    return write_atomically(p, lambda f: nx.write_graphml(G, f), case.path)
