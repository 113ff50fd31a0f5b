"""networkx adapters, GraphML / GML files and ``load_any``."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from io_examples import VALID, assert_same_case, assert_same_graph, random_cases, text

from verifier.errors import CaseError, UsageError
from verifier.io import (
    from_networkx,
    load_any,
    parse_case,
    read_graph_file,
    save_any,
    to_networkx,
    write_graph_file,
)
from verifier.model import MAX, MIN, NOBODY, Case, GameGraph, Semantics


def test_to_networkx_attributes() -> None:
    g = parse_case(text(VALID["minimax-readable"])).graph
    G = to_networkx(g)
    assert isinstance(G, nx.DiGraph)
    assert G.graph["semantics"] == "minimax"
    assert list(G.nodes) == ["a", "b", "c", "d", "e"]
    assert set(G.edges) == {("a", "b"), ("a", "c"), ("c", "d"), ("c", "a")}
    assert G.nodes["a"] == {"owner": "max"}
    assert G.nodes["c"] == {"owner": "min"}
    assert G.nodes["d"] == {"value": 2.5}
    reach = to_networkx(parse_case(text(VALID["reachability-readable"])).graph)
    assert reach.nodes["x"] == {"owner": 0}
    assert reach.nodes["g"] == {"target": True}
    normal = to_networkx(parse_case(text(VALID["normal-readable"])).graph)
    assert normal.nodes["s"] == {"label": "won"}
    assert normal.nodes["r"] == {"label": "lost"}
    assert normal.nodes["p"] == {}


@pytest.mark.parametrize("name", sorted(VALID))
def test_networkx_round_trip(name: str) -> None:
    g = parse_case(text(VALID[name])).graph
    assert_same_graph(g, from_networkx(to_networkx(g)))


def test_from_networkx_reads_plain_attributes() -> None:
    G = nx.DiGraph()
    G.add_edge(1, 2)
    G.add_edge(1, 3)
    G.nodes[1]["owner"] = "1"  # GraphML string attribute
    G.nodes[2]["owner"] = np.int64(0)
    G.nodes[3]["target"] = "true"
    G.nodes[3]["colour"] = "red"  # ignored
    g = from_networkx(G, semantics="reachability")
    assert list(g.names) == ["1", "2", "3"]
    assert g.owner.tolist() == [MIN, MAX, NOBODY]
    assert g.target.tolist() == [False, False, True]


def test_from_networkx_values_and_labels() -> None:
    G = nx.DiGraph(semantics="minimax")
    G.add_edge("r", "w")
    G.add_edge("r", "x")
    G.nodes["r"]["owner"] = "max"
    G.nodes["w"]["value"] = "win"
    G.nodes["x"]["value"] = "-2.5"
    g = from_networkx(G)
    np.testing.assert_array_equal(g.value, [np.nan, 1.0, -2.5])
    N = nx.DiGraph(semantics="normal")
    N.add_edge("p", "q")
    N.add_node("d", value=0)
    N.add_node("w", label="won")
    n = from_networkx(N)
    np.testing.assert_array_equal(n.value, [np.nan, -1.0, 0.0, 1.0])


BAD_GRAPHS = {
    "undirected": (nx.Graph([("a", "b")]), "minimax", "$"),
    "not-a-graph": ({"a": ["b"]}, "minimax", "$"),
    "no-semantics": (nx.DiGraph([("a", "b")]), None, "$.semantics"),
    "unknown-semantics": (nx.DiGraph([("a", "a")]), "chess", "$.semantics"),
    "owner-word": (nx.DiGraph([("a", "b")]), "reachability", "$.nodes.a.owner"),
    "value-word": (nx.DiGraph([("a", "b")]), "minimax", "$.nodes.b.value"),
    "target-word": (nx.DiGraph([("a", "b")]), "reachability", "$.nodes.b.target"),
    "parallel-edges": (
        nx.MultiDiGraph([("a", "b"), ("a", "b")]),
        "impartial",
        "$.nodes.a.moves[1]",
    ),
    "names-collide": (nx.DiGraph([(1, "1")]), "impartial", "$.nodes['1']"),
    "owner-in-impartial": (nx.DiGraph([("a", "b")]), "impartial", "$.nodes.a.owner"),
    "empty": (nx.DiGraph(), "impartial", "$.nodes"),
}


@pytest.mark.parametrize("name", sorted(BAD_GRAPHS))
def test_bad_networkx_graphs(name: str) -> None:
    G, sem, path = BAD_GRAPHS[name]
    if name == "owner-word":
        G.nodes["a"]["owner"] = "maximum"
    elif name == "value-word":
        G.nodes["a"]["owner"] = "max"
        G.nodes["b"]["value"] = "lots"
    elif name == "target-word":
        G.nodes["a"]["owner"] = 0
        G.nodes["b"]["target"] = "perhaps"
    elif name == "owner-in-impartial":
        G.nodes["a"]["owner"] = 0
    with pytest.raises(CaseError) as info:
        from_networkx(G, sem)
    assert info.value.path == path, str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("suffix", [".graphml", ".gml"])
@pytest.mark.parametrize("name", sorted(VALID))
def test_graph_file_round_trip(name: str, suffix: str, tmp_path: Path) -> None:
    case = parse_case(text(VALID[name]), f"{name}.json")
    path = write_graph_file(case, tmp_path / f"c{suffix}")
    again = read_graph_file(path)
    assert_same_graph(case.graph, again.graph)
    assert again.root == case.root
    assert again.path == path
    assert_same_graph(case.graph, load_any(path).graph)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=random_cases(plain_names=True))
def test_random_graph_files_round_trip(case: Case, tmp_path: Path) -> None:
    for suffix in (".graphml", ".gml"):
        try:
            written = write_graph_file(case, tmp_path / f"r{suffix}")
        except UsageError:  # a control character in the description: XML cannot hold it
            assert suffix == ".graphml"
            assert any(ord(c) < 32 for c in (case.source or "") + (case.description or ""))
            continue
        again = read_graph_file(written)
        assert_same_graph(case.graph, again.graph)

        # XML reads every line break as "\n"
        def eol(t: str | None, xml: bool = suffix == ".graphml") -> str | None:
            if t is None or not xml:
                return t
            return t.replace("\r\n", "\n").replace("\r", "\n")

        assert (again.root, again.source, again.description) == (
            case.root,
            eol(case.source),
            eol(case.description),
        )


def test_graphml_written_by_hand(tmp_path: Path) -> None:
    path = tmp_path / "hand.graphml"
    path.write_text(
        """<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="s" for="graph" attr.name="semantics" attr.type="string"/>
  <key id="o" for="node" attr.name="owner" attr.type="string"/>
  <key id="v" for="node" attr.name="value" attr.type="double"/>
  <graph edgedefault="directed">
    <data key="s">minimax</data>
    <node id="a"><data key="o">max</data></node>
    <node id="b"><data key="v">-1</data></node>
    <node id="c"><data key="o">min</data></node>
    <node id="d"><data key="v">2</data></node>
    <edge source="a" target="b"/><edge source="a" target="c"/>
    <edge source="c" target="d"/><edge source="c" target="a"/>
  </graph>
</graphml>
"""
    )
    case = read_graph_file(path)
    fig1 = parse_case(text(VALID["minimax-readable"])).graph
    sub = GameGraph.from_successors(
        {"a": ["b", "c"], "b": [], "c": ["d", "a"], "d": []},
        semantics=Semantics.MINIMAX,
        owner={"a": MAX, "c": MIN},
        value={"b": -1.0, "d": 2.0},
    )
    assert_same_graph(case.graph, sub)
    assert fig1.n == 5
    assert case.id == "hand"


def test_gml_written_by_hand_and_semantics_argument(tmp_path: Path) -> None:
    path = tmp_path / "hand.gml"
    path.write_text(
        'graph [ directed 1\n node [ id 0 label "x" owner 0 ]\n node [ id 1 label "g" target 1 ]\n'
        " edge [ source 0 target 1 ] ]\n"
    )
    case = read_graph_file(path, semantics="reachability")
    assert list(case.graph.names) == ["x", "g"]
    assert case.graph.target.tolist() == [False, True]


def test_bad_graph_files(tmp_path: Path) -> None:
    broken = tmp_path / "broken.graphml"
    broken.write_text("<graphml><graph>")
    undirected = tmp_path / "u.gml"
    undirected.write_text('graph [ node [ id 0 label "a" ] ]')
    bad_owner = tmp_path / "o.gml"
    bad_owner.write_text(
        'graph [ directed 1 semantics "minimax" node [ id 0 label "a" owner "boss" ]'
        ' node [ id 1 label "b" value 1 ] edge [ source 0 target 1 ] ]'
    )
    cases = [
        (broken, "$"),
        (undirected, "$"),
        (bad_owner, "$.nodes.a.owner"),
        (tmp_path / "none.gml", "$"),
    ]
    for path, where in cases:
        with pytest.raises(CaseError) as info:
            load_any(path)
        assert info.value.path == where, str(info.value)
        assert str(info.value).startswith(str(path))


_GRAPHML = """<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="s" for="graph" attr.name="semantics" attr.type="string"/>
  <graph edgedefault="directed"><data key="s">normal</data>
    NODES
    <edge source="a" target="b"/>
  </graph>
</graphml>
"""


@pytest.mark.parametrize(
    ("nodes", "where", "said"),
    [
        ('<node id="a"/><node id="b"/><node id="a"/>', "$.nodes.a", 'node "a" is declared twice'),
        ('<node id="a"/>', "$", 'an edge\'s target "b" is no declared node'),
    ],
)
def test_graphml_a_node_declared_twice_or_an_undeclared_edge_end_is_bad_input(
    nodes: str, where: str, said: str, tmp_path: Path
) -> None:
    """networkx merges a node declared twice and makes an undeclared edge end a new node (a
    terminal): a reading the standalone checker does not share, so such a file ended REFUTED
    ("our own output is wrong") where it is bad input, as GML's parser says."""
    path = tmp_path / "g.graphml"
    path.write_text(_GRAPHML.replace("NODES", nodes))
    with pytest.raises(CaseError) as info:
        load_any(path)
    assert info.value.path == where and said in str(info.value), str(info.value)


def test_load_any_dispatches_on_suffix(tmp_path: Path) -> None:
    case = parse_case(text(VALID["impartial-readable"]), "nim.json")
    for suffix in (".json", ".npz", ".graphml", ".gml"):
        path = save_any(case, tmp_path / f"nim{suffix}")
        loaded = load_any(path)
        assert_same_graph(case.graph, loaded.graph)
        if suffix in (".json", ".npz"):
            assert_same_case(case, loaded)
    (tmp_path / "nim.txt").write_text("nim")
    with pytest.raises(CaseError, match=r"unknown file type '\.txt'"):
        load_any(tmp_path / "nim.txt")
    with pytest.raises(CaseError, match=r"nothere: \$: no such file or directory"):
        load_any(tmp_path / "nothere")  # a missing path without a suffix: says it is missing
    with pytest.raises(UsageError):
        save_any(case, tmp_path / "nim.txt")
