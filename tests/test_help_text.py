"""Help and text (issue 29 item 5): help fits 80 columns with every option name whole, -h is
--help, 'wrote ...' lines are never wrapped, whole numbers print as integers, and --engine
dask answers with the same lines as the other engines."""

from __future__ import annotations

import json
import re
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from typer import Typer
from typer.main import get_command
from typer.testing import CliRunner

from verifier.cli import app, verify_app

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "cases"
runner = CliRunner()


def _deep(tmp_path: Path) -> Path:
    """A folder whose path is well over 80 characters."""
    folder = tmp_path / ("a-rather-long-folder-name-" * 4) / "and-another-level"
    folder.mkdir(parents=True)
    return folder


def test_wrote_lines_are_never_wrapped(tmp_path: Path) -> None:
    folder = _deep(tmp_path)
    case = folder / "nim-case-with-a-long-name.json"
    r = runner.invoke(app, ["generate", "nim", "--piles", "2", "--below", "3", "-o", str(case)])
    assert r.exit_code == 0, r.stderr
    lines = r.stderr.splitlines()
    assert len(str(case)) > 80
    assert lines == [f"wrote {case}: {lines[0].split(': ', 1)[1]}"]
    assert lines[0].endswith("moves")
    dot = folder / "drawing-with-a-long-name.dot"
    r = runner.invoke(app, ["render", str(case), "-o", str(dot), "--no-smt"])
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines() == [f"wrote {dot}"]


def test_whole_numbers_print_as_integers(tmp_path: Path) -> None:
    case = json.loads((CASES / "kars-figure1-b-lt-d.json").read_text())
    case["expect"]["values"]["a"] = 5  # Kars' score of a is 0
    f = tmp_path / "wrong.json"
    f.write_text(json.dumps(case))
    r = runner.invoke(verify_app, [str(f), "--json"])
    assert r.exit_code == 1, r.stderr
    details = {c["name"]: c["detail"] for c in json.loads(r.stdout)["checks"]}
    assert details["expect values"].startswith("node 'a': expected 5, ")
    case["nodes"]["d"]["value"] = 2.5  # a fraction stays a fraction
    case["expect"] = {"values": {"d": 3.5}}
    f.write_text(json.dumps(case))
    r = runner.invoke(verify_app, [str(f), "--json"])
    assert r.exit_code == 1, r.stderr
    details = {c["name"]: c["detail"] for c in json.loads(r.stdout)["checks"]}
    assert details["expect values"] == "node 'd': expected 3.5, kars-iteration gives 2.5"
    out = tmp_path / "r.json"
    args = ["generate", "random", "--semantics", "minimax", "--nodes", "8", "--seed", "3"]
    r = runner.invoke(app, [*args, "--terminal-values", "-1,3", "-o", str(out)])
    assert r.exit_code == 0, r.stderr
    assert "values=(-1, 3)" in json.loads(out.read_text())["source"]


@pytest.mark.dask
def test_dask_engine_answers_like_the_others() -> None:
    pytest.importorskip("distributed")
    case = str(CASES / "dag-paul-carole.json")
    dask = runner.invoke(app, ["solve", case, "--engine", "dask"])
    memory = runner.invoke(app, ["solve", case])
    assert dask.exit_code == memory.exit_code == 0, dask.stdout + dask.stderr
    d, m = dask.stdout.splitlines(), memory.stdout.splitlines()
    assert "'out'" not in dask.stdout and "{" not in dask.stdout
    assert d[0].split("(")[0] == m[0].split("(")[0]  # name, size, SOLVED; seconds differ
    assert d[0].startswith("dag-paul-carole  minimax, 8 nodes, 8 moves  ->  SOLVED")
    # the answer, its best move and line of play too (the stored graph's answers give moves)
    line = "  from s: Max wins, score 4 in 3 plies; best move s -> v; line s -> v -> w -> l3"
    assert d[1] == m[1] == line
    assert d[2] == m[2] == "  won 8, lost 0, drawn 0, longest win 3 plies, root s = 4"
    assert "dask-kars" in dask.stdout
    csv_d = runner.invoke(app, ["solve", case, "--engine", "dask", "--format", "csv"]).stdout
    csv_m = runner.invoke(app, ["solve", case, "--format", "csv"]).stdout
    assert csv_d.splitlines() == csv_m.splitlines()  # the move column too


def _commands() -> list[tuple[Typer, list[str], Any]]:
    """Every command of both apps: (the app, the words before --help, the click command)."""
    out: list[tuple[Typer, list[str], Any]] = []

    def walk(typer_app: Typer, words: list[str], cmd: Any) -> None:
        out.append((typer_app, words, cmd))
        for name, sub in getattr(cmd, "commands", {}).items():  # a group's (typer's own click)
            walk(typer_app, [*words, name], sub)

    walk(app, [], get_command(app))
    walk(verify_app, [], get_command(verify_app))
    return out


COMMANDS = _commands()


@pytest.mark.parametrize(
    ("typer_app", "words", "cmd"),
    COMMANDS,
    ids=[" ".join(["verify" if a is verify_app else "verifier", *w]) for a, w, _ in COMMANDS],
)
def test_help_fits_80_columns_with_every_name_whole(
    typer_app: Typer, words: list[str], cmd: Any
) -> None:
    env = {"COLUMNS": "80", "TERMINAL_WIDTH": "80"}
    r = runner.invoke(typer_app, [*words, "--help"], env=env, terminal_width=80)
    assert r.exit_code == 0, r.output
    text = r.stdout
    too_long = [line for line in text.splitlines() if len(line) > 80]
    assert not too_long, "\n".join(too_long)
    assert "<bool>" not in text and "…" not in text
    options = [p for p in cmd.params if p.param_type_name == "option" and not p.hidden]
    for param in options:
        for name in [*param.opts, *param.secondary_opts]:
            assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text), (name, text)
    short = runner.invoke(typer_app, [*words, "-h"], env=env, terminal_width=80)
    assert short.exit_code == 0 and short.stdout == text


def test_the_command_list_reads_as_sentences() -> None:
    # each command's line in `verifier -h` is its short help reflowed, never a docstring's own
    # line breaks (which left half-empty lines in the panel)
    r = runner.invoke(app, ["-h"], terminal_width=80)
    panel = r.stdout.split("Commands")[1].splitlines()
    entries: dict[str, list[str]] = {}
    name = ""
    for line in panel[1:]:
        body = line.strip("│ ╰─╯")
        if not body:
            continue
        if line.startswith("│ ") and line[2:3] not in (" ", ""):
            name = body.split()[0]
            entries[name] = [body]
        else:
            entries.setdefault(name, []).append(body)
    assert {"verify", "query", "uniqueness", "diff", "study"} <= set(entries)
    assert all(len(lines) <= 2 for lines in entries.values()), entries


ARTEFACTS = re.compile(r"\(table\)\]|\[default: \(|\{[a-z_]+\}|<list\[|<path>|<str>")
"""What Typer prints in place of words: ``[default: (table)]``, ``{paths}...``, ``{game}``,
``<list[Path]>``."""


def _broken_sentences(text: str) -> list[str]:
    """Lines of the help that end before the right edge although the next line of the same
    paragraph (same column, not a new item) starts with a word that would have fitted there:
    a docstring's own line break printed as it is, a sentence broken mid-line."""
    lines = text.splitlines()
    broken = []
    for a, b in pairwise(lines):
        b_text = b.strip("│ ")
        if not b_text or not a.strip("│ ─╭╰╮╯"):
            continue
        col = len(b) - len(b.lstrip("│ "))
        if col >= len(a) or a[col - 1] != " " or a[col] == " ":
            continue  # b does not continue a's column: a new row, panel or paragraph
        if "  " in a[col:].rstrip("│ "):
            continue  # b starts under a's name column (a new argument), not its help
        if b.startswith("│ ") and col == 2:
            continue  # a panel's new row (an option, a command)
        first = b_text.split()[0]
        if not (first[0].islower() or first[0] == "("):  # a new sentence, [default: ...]
            continue
        right = a.rindex("│") - 1 if a.rstrip().endswith("│") else 79
        end = len(a.rstrip("│ ").rstrip())
        if end + 1 + len(first) <= right:
            broken.append(f"{a.rstrip()}\n{b.rstrip()}")
    return broken


def test_broken_sentences_heuristic() -> None:
    # the heuristic itself: a docstring's break before a word that fits is found, a wrap is not
    para = " A tiered dataset (DIR, --engine dask): its answers, or the Parquet\n"
    assert _broken_sentences(para + " table judged shard by shard.")
    assert not _broken_sentences(para + " Exit code: 0 verified.")
    wrapped = " Solve each case with every applicable solver, cross-check with Z3, compare\n"
    assert not _broken_sentences(wrapped + " with expect.")


@pytest.mark.parametrize(
    ("typer_app", "words", "cmd"),
    COMMANDS,
    ids=[" ".join(["verify" if a is verify_app else "verifier", *w]) for a, w, _ in COMMANDS],
)
def test_help_at_80_columns_has_whole_sentences_and_no_artefacts(
    typer_app: Typer, words: list[str], cmd: Any
) -> None:
    env = {"COLUMNS": "80", "TERMINAL_WIDTH": "80"}
    r = runner.invoke(typer_app, [*words, "--help"], env=env, terminal_width=80)
    assert r.exit_code == 0, r.output
    assert not ARTEFACTS.findall(r.stdout), ARTEFACTS.findall(r.stdout)
    broken = _broken_sentences(r.stdout)
    assert not broken, "\n\n".join(broken)


def test_readme_lists_every_command() -> None:
    readme = (ROOT / "README.md").read_text()
    listed = next(line for line in readme.splitlines() if "# all commands:" in line)
    names = get_command(app).commands  # type: ignore[attr-defined]
    assert [n for n in names if n not in listed.split(": ", 1)[1].split(", ")] == []
    assert [n for n in names if n != "study" and f"verifier {n} " not in readme] == []


def test_worker_memory_sits_with_the_other_dask_options() -> None:
    for words in (["verify"], ["solve"], ["generate"]):
        text = runner.invoke(app, [*words, "--help"], terminal_width=80).stdout
        panel, panels = "Options", {}
        for line in text.splitlines():
            if line.startswith("╭─ "):
                panel = line.strip("╭─ ╮").strip()
            for opt in ("--worker-memory", "--scheduler"):
                if line.lstrip("│ ").startswith(f"{opt} "):
                    panels[opt] = panel
        assert panels["--worker-memory"] == panels["--scheduler"], (words, panels)


def test_prove_help_offers_what_prove_does() -> None:
    text = runner.invoke(app, ["prove", "--help"], terminal_width=80).stdout
    assert "csv" not in text
    assert "0: no limit" in " ".join(text.replace("│", " ").split())
    grundy = " ".join(runner.invoke(app, ["grundy", "--help"], terminal_width=80).stdout.split())
    assert "heap,value" in grundy and "one row per node" not in grundy
    for words, needle in (
        (["generate"], "with --engine dask, the directory"),
        (["solve"], "a tiered dataset's directory"),
    ):
        out = runner.invoke(app, [*words, "--help"], terminal_width=80).stdout
        assert needle in " ".join(out.replace("│", " ").split()), words
