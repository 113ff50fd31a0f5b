"""One wrong answer is one finding (issue 29, item 3): the table opens with the claim that
breaks its own rule, the checks that fail because of it are folded under it (listed with -v),
``-q`` names the position, and every witness is words and position names: no internal ids, no
encodings, no Python reprs. By hand on a chain, and by hypothesis over random single-entry
corruptions of every semantics."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from verifier.claims import claimed, judge_claims
from verifier.games.random_graphs import random_case
from verifier.io.answers import Answers, load_answers, save_answers
from verifier.model import Case, Verdict
from verifier.model.describe import describe
from verifier.model.report import CaseReport, CaseVerdict
from verifier.model.results import View
from verifier.model.semantics import Semantics
from verifier.pipeline import run_case
from verifier.registry import Options
from verifier.writers.table import print_line, print_report

runner = CliRunner()

CHAIN = {  # a -> b -> c -> d, d terminal: d lost, c won, b lost, a won
    "semantics": "normal",
    "id": "chain",
    "root": "a",
    "nodes": {"a": {"moves": ["b"]}, "b": {"moves": ["c"]}, "c": {"moves": ["d"]}, "d": {}},
}


def _verify(*args: str) -> list[str]:
    from verifier.cli import verify_app

    r = runner.invoke(verify_app, list(args), terminal_width=300)
    assert r.exit_code == 1, r.stdout
    return [line.rstrip() for line in r.stdout.splitlines()]


def _rows(lines: list[str]) -> list[str]:
    """The rows of the checks table (after its header), stripped, seconds as ``S``."""
    start = next(i for i, line in enumerate(lines) if "solver / check" in line)
    rows = [re.sub(r" \d+\.\d{3} ", " S ", line) for line in lines[start + 1 :]]
    return [" ".join(row.split()) for row in rows]


def test_a_wrong_entry_on_a_chain_is_one_finding(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    case, bad = Path("chain.json"), Path("bad1.csv")
    case.write_text(json.dumps(CHAIN))
    bad.write_text("node,value,remoteness,move\na,won,3,b\nb,lost,2,c\nc,lost,1,d\nd,lost,0,\n")
    rows = _rows(_verify(str(case), "--answers", str(bad)))
    assert rows[0].startswith(
        "answers bad1.csv refuted S 4 of 4 positions claimed: wrong at 'c': claimed lost,"
    )
    text = " ".join(rows)
    assert text.startswith(
        "answers bad1.csv refuted S 4 of 4 positions claimed: wrong at 'c': claimed lost, "
        "remoteness 1, move d (successors: d=lost); won iff some successor is lost, lost iff "
        "every successor is won, a draw otherwise: the successors' labels make it 'won' "
        "(successors' remoteness: d=0) "
        "7 other checks refuted S fail because of it: agree label: retrograde = answers, rules "
        "(answers), smt-equations, smt-bounds, smt-won-lost, smt-strategy, moves (answers); -v "
        "shows each solvers (4) ran"
    )
    assert text.count(" refuted ") == 2  # the finding and its consequences
    quiet = _verify("-q", str(case), "--answers", str(bad))
    assert len(quiet) == 1
    assert quiet[0].endswith(
        "from a: the player to move wins in 3 plies; best move a -> b; "
        "refuted: answers bad1.csv: 'c' claimed lost, is won"
    )
    full = " ".join(_rows(_verify("-v", str(case), "--answers", str(bad))))
    assert full.startswith("answers bad1.csv refuted")
    assert full.count(" refuted ") == 9  # -v lists each of the 7
    # the consequences name c, not b (whose claim is right)
    assert "rules (answers) refuted S 'c' = lost breaks its local rule" in full
    assert "'id'" not in full and "{" not in full and "witness:" not in full
    # and read forwards, in words
    assert (
        "smt-strategy refuted S answers: at 'b' the moves fail: Z3 shows it is not so that "
        "following the moves the winner wins (move c)"
    ) in full
    assert (
        "smt-equations refuted S answers: the equation of 'c' fails (2 nodes in all) "
        "(value lost; the rule gives won; failing at c, b)"
    ) in full


# ------------------------------------------------------------------ the property
def _report(case: Case, answers: Answers) -> CaseReport:
    opts = Options()
    rep = run_case(case, opts, extra_results=claimed(answers))
    return judge_claims(rep, answers, opts)


def _printed(rep: CaseReport, quiet: bool) -> list[str]:
    out = io.StringIO()
    console = Console(file=out, width=400, force_terminal=False, color_system=None)
    (print_line if quiet else print_report)(rep, console)
    return [line.rstrip() for line in out.getvalue().splitlines()]


def _corrupt(case: Case, answers: Answers, x: int, kind: int) -> Answers | None:
    """Answer ``x`` made wrong: its value (kind 0), its remoteness (1) or its move (2)."""
    d = describe(case.semantics)
    g = case.graph
    if kind == 1:
        if answers.array("remoteness") is None or answers.array("remoteness")[x] < 0:
            return None
        rem = answers.array("remoteness").copy()
        rem[x] += 1
        return answers.with_column("remoteness", rem)
    if kind == 2:
        others = [
            int(y)
            for y in g.successors(x)
            if answers.array("move") is not None and y != answers.array("move")[x]
        ]
        if answers.array("move") is None or answers.array("move")[x] < 0 or not others:
            return None
        mv = answers.array("move").copy()
        mv[x] = others[0]
        return answers.with_column("move", mv)
    values = answers.values.copy()
    if x in answers.loopy:  # an infinite Grundy value claimed finite
        values[x] = 0
        loopy = {y: k for y, k in answers.loopy.items() if y != x}
        return replace(answers, values=values, loopy=loopy)
    if d.view is View.SCORE:
        levels = [v for v in (*g.value_levels().tolist(), 0.0, 1.0) if v != values[x]]
        values[x] = levels[0]
    elif d.view is View.LABEL:
        values[x] = {1: -1, -1: 0, 0: 1}[int(values[x])]
    elif d.view is View.REGION:
        values[x] = 1 - values[x]
    else:
        values[x] = values[x] + 1
    return replace(answers, values=values)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sem=st.sampled_from(list(Semantics)),
    seed=st.integers(0, 10_000),
    pick=st.integers(0, 10_000),
    kind=st.sampled_from([0, 0, 1, 2]),
    acyclic=st.booleans(),
)
def test_the_first_finding_names_the_corrupted_position(
    sem: Semantics, seed: int, pick: int, kind: int, acyclic: bool, tmp_path_factory: object
) -> None:
    values = (-2, -1, 0, 1, 2) if sem is Semantics.MINIMAX else (-1, 0, 1)
    case = random_case(sem, nodes=7, degree=1.7, seed=seed, values=values, acyclic=acyclic)
    case = replace(case, root=0)
    ours = run_case(case, Options(), smt=False)
    assert ours.solution is not None
    folder = Path(str(tmp_path_factory.mktemp("one")))  # type: ignore[attr-defined]
    answers = load_answers(save_answers(ours.solution, case, folder / "bad.csv"), case)
    x = pick % case.graph.n
    bad = _corrupt(case, answers, x, kind)
    if bad is None:
        return
    rep = _report(case, bad)
    if kind == 2 and rep.verdict is not CaseVerdict.REFUTED:
        return  # another optimal move (a tie): a right answer too
    name = case.graph.name(x)
    label = f"answers {bad.file}"
    first = rep.findings[0].check
    assert first.verdict is Verdict.REFUTED and first.name == label, first
    table = _printed(rep, quiet=False)
    row = _rows(table)[0]
    assert row.startswith(f"{label} ") and f"wrong at {name!r}: claimed " in row, row
    line = _printed(rep, quiet=True)
    assert len(line) == 1
    assert f"refuted: {label}: {name!r} claimed " in line[0], line[0]
    said = line[0].split("refuted: ")[1]
    assert (", is " in said) if kind < 2 else (f"the move {name} -> " in said), line[0]
    for text in (*table, *line):  # words and names: no reprs, ids or encodings
        assert "{" not in text and "'id'" not in text and "witness:" not in text, text
        assert not re.search(r"(?<![\d.])-?\d+\.0(?!\d)", text), text
    d = describe(sem)
    word = {View.SCORE: "score ", View.REGION: "by player ", View.GRUNDY: "Grundy value "}
    if d.view in word:
        assert word[d.view] in line[0], line[0]


def test_witness_words_show_values_as_the_semantics_writes_them() -> None:
    from verifier.writers.witness import witness_words

    # the region bit 1.0 is "player 0 wins": the winner 0; a score 2.0 is 2; ids are dropped
    w = {"node": "x", "id": 4, "value": 1.0, "in_region": True, "successors": {}}
    assert witness_words(w, Semantics.REACHABILITY) == "value 0; in region yes"
    assert witness_words({"id": 1, "interval": [2.0, 3.0]}, Semantics.MINIMAX) == "interval [2, 3]"
    assert witness_words({"value": -1.0, "move": "d"}, Semantics.NORMAL) == "value lost; move d"
