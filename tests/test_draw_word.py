"""`draw` is the one word for a drawn position; Knuth's `unknown` is read as `draw`."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from verifier.cli import app, verify_app

runner = CliRunner()
CASES = Path(__file__).resolve().parent.parent / "cases"
KNUTH = CASES / "knuth-won-lost-unknown.json"  # its expect block says "unknown"


def test_every_writer_says_draw() -> None:
    table = runner.invoke(verify_app, [str(KNUTH)])
    assert table.exit_code == 0, table.output
    assert "drawn 4" in table.stdout and "unknown" not in table.stdout.replace(
        "knuth-won-lost-unknown", ""
    )
    rows = runner.invoke(verify_app, [str(KNUTH), "--format", "csv"]).stdout.splitlines()
    by_node = {r.split(",")[0]: r.split(",") for r in rows[1:]}
    assert by_node["f"][1:3] == ["draw", "draw"] and by_node["a"][1:3] == ["lost", "loss"]
    doc = json.loads(runner.invoke(verify_app, [str(KNUTH), "--json"]).stdout)
    text = json.dumps(doc["cases"][0]["solution"] if "cases" in doc else doc)
    assert '"draw"' in text and '"unknown"' not in text


def test_both_words_are_read_in_expect_and_answers(tmp_path: Path) -> None:
    case = json.loads(KNUTH.read_text())
    for word in ("draw", "unknown"):
        case["expect"]["labels"]["f"] = word
        path = tmp_path / f"{word}.json"
        path.write_text(json.dumps(case))
        assert runner.invoke(verify_app, [str(path)]).exit_code == 0
        answers = tmp_path / f"{word}.csv"
        answers.write_text(f"node,value\nf,{word}\ng,{word}\na,lost\n")
        r = runner.invoke(verify_app, [str(KNUTH), "--answers", str(answers)])
        assert r.exit_code == 0, r.output


def test_another_word_is_the_one_line_error(tmp_path: Path) -> None:
    case = json.loads(KNUTH.read_text())
    case["expect"]["labels"]["f"] = "tie"
    path = tmp_path / "tie.json"
    path.write_text(json.dumps(case))
    r = runner.invoke(verify_app, [str(path)])
    assert r.exit_code == 2
    answers = tmp_path / "drawn.csv"
    answers.write_text("node,value\nf,drawn\n")
    r = runner.invoke(verify_app, [str(KNUTH), "--answers", str(answers)])
    assert r.exit_code == 2
    assert "not 'won', 'lost', 'draw' or 'unknown' (got \"drawn\")" in r.output


def test_diff_reads_unknown_as_draw(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("node,value\nf,draw\n")
    b.write_text("node,value\nf,unknown\n")
    r = runner.invoke(app, ["diff", str(a), str(b), "--case", str(KNUTH)])
    assert r.exit_code == 0, r.output
