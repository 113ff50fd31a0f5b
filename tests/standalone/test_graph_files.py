"""GraphML and GML cases judged by the standalone checker with its own reader (checker/graphs.py,
issue 43 item 1): it reads every case as the package does (names, their order, successors,
owners, terminal values, targets, root), on the whole corpus written in both formats, generated
games and hand-written files of every semantics; ``verify``, ``solve --certificate``,
``check-certificate``, the checker run as a script and the pytest plugin accept a right answer;
a corrupted certificate is rejected; a file the checker cannot read as the package does is BAD
with one line naming what it refuses."""

from __future__ import annotations

import ast
import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from io_examples import random_cases
from typer.testing import CliRunner

from checker.check_certificate import Game, check
from verifier import api
from verifier.cli import app, verify_app
from verifier.errors import CaseError, UsageError
from verifier.io import load_any, write_graph_file
from verifier.model import Case
from verifier.model.report import CaseVerdict

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "cases"
CHECKER = ROOT / "checker"
runner = CliRunner()

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'


def graphml(keys: str, graph: str, edgedefault: str = "directed") -> str:
    """A GraphML document: ``keys`` as ``id:for:name:type`` words, the graph's inner XML."""
    decl = "".join(
        f'<key id="{i}" for="{f}" attr.name="{n}" attr.type="{t}"/>'
        for i, f, n, t in (k.split(":") for k in keys.split())
    )
    return f'{HEAD}{decl}<graph edgedefault="{edgedefault}">{graph}</graph></graphml>\n'


KEYS = "s:graph:semantics:string r:graph:root:string o:node:owner:string v:node:value:double"
KEYS += " w:node:value:string l:node:label:string t:node:target:string n:node:owner:int"
KEYS += " b:node:target:boolean x:node:colour:string"

# Hand-written files of every semantics, in the styles a person writes: typed and string
# attributes, words and numbers, ignored attributes, edges before nodes are declared.
HAND = {
    "minimax.graphml": graphml(
        KEYS,
        '<data key="s">minimax</data><data key="r">a</data>'
        '<node id="a"><data key="o">max</data></node>'
        '<node id="b"><data key="o">min</data><data key="x">red</data></node>'
        '<node id="c"><data key="v">2.5</data></node><node id="d"><data key="w">loss</data></node>'
        '<node id="e"><data key="w">-3</data></node>'
        '<edge source="a" target="b"/><edge source="a" target="e"/><edge source="b" target="c"/>'
        '<edge source="b" target="d"/><edge source="b" target="a"/>',
    ),
    "normal.graphml": graphml(
        KEYS,
        '<data key="s">normal</data><data key="r">p</data>'
        '<edge source="p" target="q"/><edge source="p" target="r"/><edge source="q" target="s"/>'
        '<node id="p"/><node id="q"/><node id="r"><data key="l">won</data></node>'
        '<node id="s"><data key="v">0</data></node><node id="u"/>'
        '<edge source="u" target="u"/>',
    ),
    "reachability.graphml": graphml(
        KEYS,
        '<data key="s">reachability</data>'
        '<node id="1"><data key="n">0</data></node><node id="2"><data key="o"> 1 </data></node>'
        '<node id="3"><data key="b">True</data></node><node id="4"><data key="t">yes</data></node>'
        '<node id="5"/><node id="6"><data key="n">1</data><data key="t">no</data></node>'
        '<edge source="1" target="2"/><edge source="1" target="5"/><edge source="2" target="3"/>'
        '<edge source="2" target="4"/><edge source="6" target="5"/><edge source="6" target="3"/>',
    ),
    "impartial.graphml": graphml(
        "s:graph:semantics:string",
        '<data key="s">impartial</data><node id="0"/><node id="1"/><node id="2"/>'
        '<node id="3"/><edge source="3" target="2"/><edge source="3" target="1"/>'
        '<edge source="2" target="1"/><edge source="1" target="0"/><edge source="2" target="2"/>',
    ),
    "plain.graphml": """<?xml version="1.0"?>
<graphml>
  <key id="s" for="graph" attr.name="semantics" attr.type="string"/>
  <key id="o" for="node" attr.name="owner" attr.type="string"/>
  <key id="v" for="node" attr.name="value" attr.type="double"/>
  <graph edgedefault="directed">
    <data key="s">minimax</data>
    <node id="a"><data key="o">max</data></node>
    <node id="b"><data key="v">1</data></node>
    <node id="c"><data key="v">-1</data></node>
    <edge source="a" target="b"/>
    <edge source="a" target="c"/>
  </graph>
</graphml>
""",  # no namespace: networkx adds it, and so does the checker
    "minimax.gml": """# hand-written GML: the node's label is its name
Creator "by hand"
graph [
  directed 1
  semantics "minimax"
  root "top &amp; more"
  node [ id 10 label "top &amp; more" owner "max" ]
  node [ id 11 label 7 owner "min" graphics [ x 1.5 y 2 ] ]
  node [ id 12 label "leaf" value 3 ]
  node [ id 13 label "w" value "win" ]
  node [ id 14 label "-0.5" value -0.5 ]
  edge [ source 10 target 11 ]
  edge [ source 10 target 14 ]
  edge [ source 11 target 12 ]
  edge [ source 11 target 13 weight 2 ]
  edge [ source 11 target 10 ]
]
""",
    "normal.gml": """graph [
  directed 1 semantics "normal"
  node [ id 0 label "a" ] node [ id 1 label "b" ] node [ id 2 label "c" value 1.0 ]
  node [ id 3 label "d" value 0 ] node [ id 4 label "e" value -1 ]
  edge [ source 0 target 1 ] edge [ source 0 target 2 ] edge [ source 1 target 3 ]
  edge [ source 1 target 4 ] edge [ source 0 target 0 ]
]
""",
    "reachability.gml": """graph [
  directed 1 semantics "reachability" root "x"
  node [ id "x" label "x" owner 0 ] node [ id "y" label "y" owner "1" ]
  node [ id "z" label "z" target 1 ] node [ id "w" label "w" target "true" owner 1 ]
  node [ id "v" label "v" ] edge [ source "y" target "v" ]
  edge [ source "x" target "y" ] edge [ source "y" target "z" ] edge [ source "y" target "w" ]
]
""",
    "impartial.gml": """graph [
  directed 1 semantics "impartial"
  node [ id 1 label 1 ] node [ id 2 label 2 ] node [ id 3 label 3 ]
  edge [ source 3 target 2 ] edge [ source 2 target 1 ] edge [ source 3 target 1 ]
  edge [ source 1 target 1 ]
]
""",
}


def hand(tmp: Path, name: str) -> Path:
    p = tmp / name
    p.write_text(HAND[name], encoding="ascii")
    return p


def assert_read_alike(path: Path) -> None:
    """The checker's reading of ``path`` is the package's: names in order, successors, owners,
    terminal values (normal labels +1/-1/0, minimax scores), targets and root."""
    case, mine = load_any(path), Game(str(path))
    g = case.graph
    names = [g.name(x) for x in range(g.n)]
    assert mine.names == names
    assert [sorted(mine.names[y] for y in ys) for ys in mine.succ] == [
        sorted(g.name(int(y)) for y in g.successors(x)) for x in range(g.n)
    ]
    assert mine.owner == g.owner.tolist()
    values = g.value.tolist()
    for x in range(g.n):
        if not mine.succ[x] and case.semantics.value in ("normal", "minimax"):
            assert mine.leaf[x] == values[x], (path.name, names[x])
        if case.semantics.value in ("reachability", "impartial"):
            assert math.isnan(values[x]) and mine.leaf[x] is None
    assert mine.target == g.target.tolist()
    assert mine.root == case.root


@pytest.mark.parametrize("suffix", [".graphml", ".gml"])
def test_every_corpus_case_in_each_format_is_read_as_the_package_reads_it(
    suffix: str, tmp_path: Path
) -> None:
    n = 0
    for src in sorted(p for p in CASES.glob("*.json") if p.stat().st_size < 100_000):
        path = write_graph_file(load_any(src), tmp_path / f"{src.stem}{suffix}")
        assert_read_alike(path)
        n += 1
    assert n >= 20  # the big games: tic-tac-toe generated as GraphML, below


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=random_cases())
def test_random_cases_written_by_the_package_are_read_alike(case: Case, tmp_path: Path) -> None:
    """Any names (quotes, ampersands, non-ASCII, digits), values and shapes the package writes."""
    for suffix in (".graphml", ".gml"):
        try:
            path = write_graph_file(case, tmp_path / f"r{suffix}")
        except UsageError:  # a character XML cannot hold
            continue
        try:
            load_any(path)
        except CaseError:  # a root named "\r" comes back as "\n" (XML's line ends): refused
            continue
        assert_read_alike(path)


@pytest.mark.parametrize("name", sorted(HAND))
def test_hand_written_files_are_read_alike_and_verified(name: str, tmp_path: Path) -> None:
    path = hand(tmp_path, name)
    assert_read_alike(path)
    rep = api.verify(path)
    cert = [c for c in rep.checks if c.check == "certificate"]
    assert rep.verdict is CaseVerdict.VERIFIED, rep.findings
    assert [c.verdict.value for c in cert] == ["confirmed"], cert


def test_generated_games_are_verified_with_the_certificate_confirmed(tmp_path: Path) -> None:
    ladder, ttt = tmp_path / "l3.gml", tmp_path / "t.graphml"
    assert runner.invoke(app, ["generate", "ladder", "--n", "3", "-o", str(ladder)]).exit_code == 0
    assert runner.invoke(app, ["generate", "tictactoe", "-o", str(ttt)]).exit_code == 0
    for path in (ladder, ttt):
        assert_read_alike(path)
        r = runner.invoke(app, ["verify", str(path)])
        assert r.exit_code == 0 and "VERIFIED" in r.output, r.output
        assert "the standalone checker (its own reader) accepts" in r.output


def test_solve_with_a_certificate_then_the_checker_accepts(tmp_path: Path) -> None:
    case = hand(tmp_path, "normal.graphml")
    answers, cert = tmp_path / "a.csv", tmp_path / "c.json"
    r = runner.invoke(app, ["solve", str(case), "-o", str(answers), "--certificate", str(cert)])
    assert r.exit_code == 0, r.output
    ok = runner.invoke(app, ["check-certificate", str(case), str(cert), "--answers", str(answers)])
    assert (ok.exit_code, ok.output.strip()) == (0, "ACCEPTED")
    script = [sys.executable, str(CHECKER / "check_certificate.py"), str(case), str(cert)]
    run = subprocess.run([*script, "--answers", str(answers)], capture_output=True, text=True)
    assert (run.returncode, run.stdout.strip()) == (0, "ACCEPTED"), run.stderr
    answers.write_text(answers.read_text().replace("\np,draw,", "\np,won,"))
    bad = runner.invoke(app, ["check-certificate", str(case), str(cert), "--answers", str(answers)])
    assert bad.exit_code == 1 and bad.output.startswith("REJECTED: position 'p': answers")


def test_the_pytest_plugin_passes_a_graphml_and_a_gml_case(pytester: pytest.Pytester) -> None:
    from importlib.metadata import entry_points

    installed = any(e.value == "verifier.pytest_plugin" for e in entry_points(group="pytest11"))
    (pytester.path / "cases").mkdir()
    for name in ("normal.graphml", "minimax.gml"):
        hand(pytester.path / "cases", name)
    load = [] if installed else ["-p", "verifier.pytest_plugin"]
    result = pytester.runpytest_subprocess(*load, "--gamegraph-cases", "cases")
    result.assert_outcomes(passed=2)


def _certified(tmp: Path, name: str, text: str) -> tuple[Path, dict[str, object]]:
    """The hand-written file ``name`` verified, its certificate's document."""
    path = hand(tmp, name)
    cert = tmp / f"{name}.cert.json"
    rep = api.verify(path, certificate=cert)
    assert rep.verdict is CaseVerdict.VERIFIED, rep.findings
    path.write_text(text, encoding="ascii")
    doc = json.loads(cert.read_text())
    doc["case"]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()  # for the new bytes
    cert.write_text(json.dumps(doc))
    return path, doc


def _edit(name: str, old: str, new: str) -> str:
    assert old in HAND[name]
    return HAND[name].replace(old, new, 1)


# Files the package reads (networkx merges a node declared twice, makes a node of an edge's
# unknown end, ignores a key's default) or refuses, which the checker must not read its own
# way: each is BAD, with the one line naming what it refuses.
# fmt: off
AMBIGUOUS = [
    ("normal.graphml", '<node id="u"/>', '<node id="u"/><node id="u"/>', "'u' declared twice"),
    ("normal.graphml", '<node id="u"/>', '<node id="u"/><edge source="u" target="zz"/>', "'zz'"),
    ("normal.graphml", '<node id="u"/>', '<node id="u"/><edge source="p" target="q"/>', "twice"),
    ("normal.graphml", 'attr.type="double"/>', 'attr.type="double"><default>1</default></key>',
     "has a default"),
    ("normal.graphml", '<node id="p"/>', '<node id="p"><data key="x"><y/></data></node>',
     "sub-elements"),
    ("normal.graphml", '<node id="p"/>', '<node id="p"><data key="x">a</data><data key="x">b'
     "</data></node>", "'colour' given twice"),
    ("normal.graphml", 'edgedefault="directed"', 'edgedefault="undirected"', "directed"),
    ("normal.graphml", '<node id="p"/>', '<node id="p"><graph edgedefault="directed"/></node>',
     "one graph"),
    ("normal.graphml", '<data key="l">won</data>', '<data key="l">unknown</data>', "r: label"),
    ("normal.graphml", '<data key="v">0</data>', '<data key="v">0.5</data>', "a normal value"),
    ("minimax.graphml", '<data key="w">loss</data>', '<data key="w"> loss</data>', "invalid"),
    ("minimax.graphml", '<data key="o">min</data>', "", "b: owner here"),
    ("minimax.graphml", '<data key="v">2.5</data>', '<data key="v">nan</data>', "not finite"),
    ("reachability.graphml", '<data key="n">0</data>', '<data key="n">2</data>', "owner 2"),
    ("reachability.graphml", '<data key="t">yes</data>', '<data key="t">maybe</data>', "target"),
    ("minimax.gml", "label 7", 'label "top &amp; more"', "share a name"),
    ("minimax.gml", 'label "leaf" value 3', 'label "leaf" value 3 value 4', "'value': given 2"),
    ("minimax.gml", "edge [ source 11 target 10 ]", "edge [ source 11 target 99 ]", "99"),
    ("minimax.gml", "node [ id 12", "node [ id 11", "node id 11 twice"),
    ("minimax.gml", 'Creator "by hand"', 'Creator "by\nhand"', "across lines"),
    ("minimax.gml", "directed 1", "directed 0", "directed 1"),
    ("minimax.gml", '"leaf" value 3', '"leaf" value INF', "a number, a string"),
    ("normal.gml", 'value 1.0 ]', 'value "won" ]', "invalid"),
    ("impartial.gml", "node [ id 1 label 1 ]", "node [ id 1 ]", "'label': given 0"),
    ("impartial.graphml", '<node id="0"/>', '<node id="0"/><node id=""/>', "has none"),
]
# fmt: on


@pytest.mark.parametrize(("name", "old", "new", "said"), AMBIGUOUS)
def test_a_file_not_read_without_doubt_is_bad(
    tmp_path: Path, name: str, old: str, new: str, said: str
) -> None:
    path, _ = _certified(tmp_path, name, _edit(name, old, new))
    out = check(str(path), str(tmp_path / f"{name}.cert.json"))
    assert out.status == "BAD" and said in out.message, out
    assert out.message.startswith(f"{path}: {'GML' if name.endswith('.gml') else 'GraphML'}: ")
    assert "\n" not in out.message


def test_what_networkx_reads_its_own_way_is_bad_input_for_package_and_checker(
    tmp_path: Path,
) -> None:
    """networkx reads an edge to an undeclared node as a new terminal and merges a node declared
    twice: the package refuses such a file as bad input (one line, exit 2), and so does the
    checker (BAD), so the two never judge different games."""
    for old, new in [
        ('<node id="u"/>', '<node id="u"/><edge source="u" target="zz"/>'),
        ('<node id="u"/>', '<node id="u"/><node id="r"/>'),
    ]:
        path = tmp_path / "odd.graphml"
        path.write_text(_edit("normal.graphml", old, new))
        with pytest.raises(CaseError, match="invalid GraphML"):
            load_any(path)
        r = CliRunner().invoke(verify_app, [str(path)])
        assert r.exit_code == 2 and len(r.stderr.splitlines()) == 1, r.output


@pytest.mark.parametrize("name", ["normal.graphml", "minimax.gml", "reachability.graphml"])
def test_a_corrupted_certificate_of_a_graph_file_is_rejected(name: str, tmp_path: Path) -> None:
    path, doc = _certified(tmp_path, name, HAND[name])
    nodes = doc["nodes"]
    assert isinstance(nodes, dict)
    other = {"normal": {"won": "lost", "lost": "draw", "draw": "won"}}.get(str(doc["semantics"]))
    for x, e in nodes.items():
        v = e["value"]
        w = other[v] if other else (1 - v if doc["semantics"] == "reachability" else v + 1)
        bad = json.loads(json.dumps(doc))
        bad["nodes"][x]["value"] = w
        (tmp_path / "bad.json").write_text(json.dumps(bad))
        out = check(str(path), str(tmp_path / "bad.json"))
        assert out.status == "REJECTED", (x, v, w, out)


def _swapped_labels() -> dict[float, str]:
    return {1.0: "lost", -1.0: "won", 0.0: "draw"}


def _owner_bits_swapped(v: object) -> object:
    return 1 - int(v) if isinstance(v, str) and v.strip() in ("0", "1") else v


def _signs_dropped(v: object) -> object:
    return float(v.lstrip("-")) if isinstance(v, str) and v.strip() not in LEAVES else v


def _flags_inverted(v: object, file: str, where: tuple[str, ...]) -> bool:
    return v.strip().lower() not in ("true", "1", "yes") if isinstance(v, str) else bool(v)


# Bugs in the package's own GraphML / GML conventions (verifier/io/networkx_io.py): every check
# of the package reads the case through them and confirms; the checker's reader does not.
NX_MUTANTS = {
    "GML normal +1/-1 read as lost/won": ("_LABEL_OF_VALUE", _swapped_labels(), "normal.gml"),
    "owner bits written as text swapped": ("_owner", _owner_bits_swapped, "reachability.gml"),
    "a value's minus sign dropped": ("_value", _signs_dropped, "minimax.graphml"),
    "target flags as text inverted": ("_flag", _flags_inverted, "reachability.graphml"),
}
LEAVES = ("win", "draw", "loss")


@pytest.mark.parametrize("mutant", sorted(NX_MUTANTS))
def test_a_bug_in_the_package_s_graph_reader_is_refuted_by_the_certificate(
    mutant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from verifier.io import networkx_io

    attr, change, name = NX_MUTANTS[mutant]
    monkeypatch.setattr(networkx_io, attr, change)
    path = hand(tmp_path, name)
    slipped = api.verify(path, self_check=False)
    assert slipped.verdict is CaseVerdict.VERIFIED, slipped.findings  # nothing else sees it
    rep = api.verify(path)
    cert = [c for c in rep.checks if c.check == "certificate"]
    assert rep.verdict is CaseVerdict.REFUTED
    assert [c.verdict.value for c in cert] == ["refuted"] and "our own output" in cert[0].detail
    assert "the standalone checker rejects it: the certificate" in cert[0].detail  # a condition


def test_the_reader_is_standalone_and_small() -> None:
    """checker/graphs.py imports the standard library only, and stays small."""
    text = (CHECKER / "graphs.py").read_text()
    assert len(text.splitlines()) <= 250
    imported = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported <= set(sys.stdlib_module_names) - {"verifier"}, imported
