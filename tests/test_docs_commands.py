"""Every command block of README.md, docs/*.md and examples/*/README.md runs, and its output is
compared where the doc shows one, so the docs cannot drift from the tool.

A command block is a ```` ```sh ```` fence (every line that is not a ``#`` comment is a
command), or a ```` ```console ```` fence, a plain fence or an indented block holding at least
one command line: ``verify``, ``verifier``, ``python``, ``python3`` or ``pytest`` (optionally
after ``$ ``, ``.venv/bin/`` or ``NAME=value`` settings), or ``NAME=$(mktemp -d)`` (a fresh
folder, used as ``$NAME``). In such a block a line ending in ``\\`` continues on the next; the
lines after a command that are not commands are its output.

For the docs' authors:

* ``# exit N`` at the end of a command: the exit code it must give (else 0).
* Output is compared after normalizing: every run of whitespace is one space (wrapping and
  column widths do not matter), ``...`` matches anything, a time ``(0.78 s)`` and a
  three-decimal seconds column (``0.019``) match any time.
* ``<!-- docs-test: setup CMD; CMD -->`` on a line before the block: commands run first, unseen.
* ``<!-- docs-test: skip REASON -->``: the block is not run; every skip names its reason and
  :data:`SKIPPED` counts them, so they cannot grow silently.
* ``<!-- docs-test: slow REASON -->``: the block runs only with ``-m slow``.

Each block runs in a fresh folder holding copies of ``cases/``, ``examples/``, ``checker/`` and
``pyproject.toml`` (less its ``-n 2``), ``case.json`` (a copy of
``cases/dag-paul-carole.json``), and a ``tests/`` folder whose one test fails (a ``pytest``
command that runs the project's suite instead of what it names fails). ``verify`` and
``verifier`` run in-process through typer's ``CliRunner`` (the Typer apps of
``[project.scripts]``); ``python`` and ``pytest`` in a subprocess with this checkout first on
``PYTHONPATH``. Pipes, redirections, ``&&`` and placeholders such as ``a|b`` or ``[--flag]``
are refused: a block shows real commands or says why it is skipped.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app, verify_app

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = 8
"""How many blocks carry ``docs-test: skip`` (each with its reason)."""

PROGRAMS = ("verify", "verifier", "python", "python3", "pytest")
BUILTINS = ("cp", "mkdir")
"""Run here rather than by a shell; only in ``setup`` directives and ``sh`` fences."""
_ENV = r"(?:[A-Za-z_]\w*=\S*\s+)*"
COMMAND = re.compile(rf"^(?:\$ )?{_ENV}(?:\.venv/bin/)?(?:{'|'.join(PROGRAMS)})(?:\s|$)")
MKTEMP = re.compile(r"^(?:\$ )?([A-Za-z_]\w*)=\$\(mktemp -d\)(?:\s+#.*)?$")
DIRECTIVE = re.compile(r"^<!-- docs-test: (setup|skip|slow)\b\s*(.*?)\s*-->$")
EXIT = re.compile(r"#\s*exit (\d+)\b")
SHELL_SYNTAX = {"|", "||", "&&", ";", ">", ">>", "<", "2>", "2>&1", "&"}
TIME = re.compile(r"\(\d+(?:\.\d+)? s\)")
SECONDS = re.compile(r"(?<![\d.])\d+\.\d{3}(?![\d.])")


class DocError(Exception):
    """A block the test cannot run as written: the doc must change."""


@dataclass
class Command:
    line: int
    text: str
    exit: int = 0
    output: list[str] = field(default_factory=list)


@dataclass
class Block:
    path: Path
    line: int
    commands: list[Command]
    setup: list[str] = field(default_factory=list)
    skip: str | None = None
    slow: str | None = None

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def doc_files() -> list[Path]:
    """README.md, docs/*.md, examples/*/README.md."""
    return [
        ROOT / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / "examples").glob("*/README.md")),
    ]


def is_command(line: str) -> bool:
    return bool(COMMAND.match(line) or MKTEMP.match(line) or line.startswith("$ "))


def parse(path: Path, text: str | None = None) -> list[Block]:
    """The command blocks of one Markdown file."""
    lines = (path.read_text() if text is None else text).splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        start, line = i, lines[i]
        if line.startswith("```"):
            lang = line[3:].strip()
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            body, i, first = lines[i + 1 : j], j + 1, start + 2
            if lang not in ("sh", "console", ""):
                continue
            strict = lang == "sh"
        elif line.startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            body, i, first, strict = [x[4:] for x in lines[i:j]], j, start + 1, False
        else:
            i += 1
            continue
        commands = _commands(body, first, strict)
        if commands:
            blocks.append(_with_directives(Block(path, start + 1, commands), lines, start))
    return blocks


def _commands(body: list[str], first: int, strict: bool) -> list[Command]:
    """The commands of a block's lines (``first``: the file's line number of ``body[0]``)."""
    commands: list[Command] = []
    k = 0
    while k < len(body):
        raw, number = body[k].rstrip(), first + k
        k += 1
        stripped = raw.strip()
        if not stripped or (stripped.startswith("#") and (strict or not commands)):
            continue
        if strict or is_command(raw):
            while raw.endswith("\\") and k < len(body):
                raw = raw[:-1].rstrip() + " " + body[k].strip()
                k += 1
            text = raw.removeprefix("$ ")
            found = EXIT.search(text)
            commands.append(Command(number, text, int(found.group(1)) if found else 0))
        elif commands:
            commands[-1].output.append(raw)
    return commands


def _with_directives(block: Block, lines: list[str], start: int) -> Block:
    """Read the ``<!-- docs-test: ... -->`` lines just above the block."""
    i = start - 1
    while i >= 0 and (not lines[i].strip() or DIRECTIVE.match(lines[i].strip())):
        found = DIRECTIVE.match(lines[i].strip())
        i -= 1
        if found is None:
            continue
        kind, rest = found.groups()
        if kind == "setup":
            block.setup[:0] = _split(rest)
        elif not rest:
            raise DocError(f"{block.name}: docs-test: {kind} needs a reason")
        elif kind == "skip":
            block.skip = rest
        else:
            block.slow = rest
    return block


def _split(text: str) -> list[str]:
    """``a; b`` as ``[a, b]``, a ``;`` inside quotes kept."""
    parts, quote, current = [], "", ""
    for ch in text:
        if ch in "'\"" and quote in ("", ch):
            quote = "" if quote else ch
        if ch == ";" and not quote:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [c.strip() for c in [*parts, current] if c.strip()]


def all_blocks() -> list[Block]:
    return [b for f in doc_files() for b in parse(f)]


# running


def workspace(root: Path) -> Path:
    """A folder holding what the docs' commands name."""
    for folder in ("cases", "examples", "checker"):
        shutil.copytree(ROOT / folder, root / folder)
    # the project's own suite runs in two processes (-n 2 in addopts); a reader's pytest, the
    # one the docs show, in one
    ours = (ROOT / "pyproject.toml").read_text()
    (root / "pyproject.toml").write_text(ours.replace(" -n 2 --dist loadfile", ""))
    shutil.copy(ROOT / "cases" / "dag-paul-carole.json", root / "case.json")
    (root / "tests").mkdir()
    (root / "tests" / "test_not_asked_for.py").write_text(
        "def test_the_docs_command_ran_the_project_suite():\n"
        "    raise AssertionError('a docs command ran the test suite, not what it named')\n"
    )
    return root


def words(text: str, variables: dict[str, str]) -> list[str]:
    """The command's words, ``$NAME`` expanded; shell syntax and placeholders refused."""
    try:
        parts = shlex.split(text, comments=True)
    except ValueError as e:
        raise DocError(f"{text!r}: {e}") from None
    out: list[str] = []
    for w in parts:
        if w in SHELL_SYNTAX or "|" in w or w.startswith("[") or w.endswith("]"):
            raise DocError(
                f"{text!r}: {w!r} is shell syntax or a placeholder: write real commands, "
                "or mark the block <!-- docs-test: skip REASON -->"
            )

        def expand(m: re.Match[str]) -> str:
            name = m.group(1) or m.group(2)
            if name not in variables:
                raise DocError(f"{text!r}: ${name} is not set in the block")
            return variables[name]

        out.append(re.sub(r"\$\{(\w+)\}|\$(\w+)", expand, w))
    return out


def run(text: str, cwd: Path, variables: dict[str, str]) -> tuple[int, str]:
    """Run one command line in ``cwd``: its exit code and what it printed."""
    made = MKTEMP.match(text)
    if made:
        folder = cwd / f".tmp-{made.group(1)}-{len(variables)}"
        folder.mkdir()
        variables[made.group(1)] = str(folder)
        return 0, ""
    argv = words(text, variables)
    env: dict[str, str] = {}
    while argv and re.fullmatch(r"[A-Za-z_]\w*=.*", argv[0]):
        name, _, value = argv.pop(0).partition("=")
        env[name] = value
    if not argv:
        raise DocError(f"{text!r}: no command")
    program = argv[0].removeprefix(".venv/bin/")
    if program in ("verify", "verifier") and not env:
        result = CliRunner().invoke(verify_app if program == "verify" else app, argv[1:])
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result.exit_code, result.output
    if program in ("python", "python3", "pytest"):
        head = [sys.executable] if program != "pytest" else [sys.executable, "-m", "pytest"]
        path = os.environ.get("PYTHONPATH")
        full = {**os.environ, **env, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), path]))}
        full.pop("PYTEST_ADDOPTS", None)
        done = subprocess.run(
            [*head, *argv[1:]],
            cwd=cwd,
            env=full,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=600,
            check=False,
        )
        return done.returncode, done.stdout
    if program == "cp" and len(argv) == 3:
        shutil.copy(cwd / argv[1], cwd / argv[2])
        return 0, ""
    if program == "mkdir" and argv[1:2] == ["-p"]:
        for d in argv[2:]:
            (cwd / d).mkdir(parents=True, exist_ok=True)
        return 0, ""
    raise DocError(
        f"{text!r}: {program!r} is not run by this test: mark the block "
        "<!-- docs-test: skip REASON -->"
    )


def normalize(text: str) -> str:
    """Times to ``T``, every run of whitespace to one space."""
    return " ".join(SECONDS.sub("T", TIME.sub("(T s)", text)).split())


def output_matches(expected: list[str], actual: str) -> bool:
    """Does ``actual`` read as the doc's ``expected`` lines (``...`` matching anything)?"""
    pieces = [p.strip() for p in normalize("\n".join(expected)).split("...")]
    pattern = ".*?".join(re.escape(p) for p in pieces)
    return re.fullmatch(pattern, normalize(actual), re.DOTALL) is not None


def check_block(block: Block, cwd: Path) -> None:
    """Run the block's setup and commands in ``cwd``; fail on a wrong exit code or output."""
    variables: dict[str, str] = {}
    for text in block.setup:
        code, out = run(text, cwd, variables)
        assert code == 0, f"{block.name}: setup {text!r} exited {code}:\n{out}"
    for c in block.commands:
        code, out = run(c.text, cwd, variables)
        where = f"{block.path.relative_to(ROOT)}:{c.line}: {c.text}"
        assert code == c.exit, f"{where}\nexited {code}, the doc says {c.exit}:\n{out}"
        if c.output:
            shown = "\n".join(c.output)
            assert output_matches(c.output, out), f"{where}\nthe doc shows:\n{shown}\nbut:\n{out}"


def _params() -> Iterator[object]:
    for b in all_blocks():
        marks: list[pytest.MarkDecorator] = []
        if b.skip:
            marks.append(pytest.mark.skip(reason=f"docs-test: skip {b.skip}"))
        if b.slow:
            marks.append(pytest.mark.slow)
        yield pytest.param(b, id=b.name, marks=marks)


@pytest.mark.parametrize("block", list(_params()))
def test_the_command_block_runs(
    block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cwd = workspace(tmp_path)
    monkeypatch.chdir(cwd)
    check_block(block, cwd)


def test_the_skips_are_counted_and_each_names_its_reason() -> None:
    skipped = [(b.name, b.skip) for b in all_blocks() if b.skip]
    assert all(len(reason or "") > 10 for _, reason in skipped), skipped
    assert len(skipped) == SKIPPED, skipped


def test_the_docs_have_command_blocks_and_readme_runs_by_default() -> None:
    blocks = all_blocks()
    assert len(blocks) >= 15
    readme = [b for b in blocks if b.path.name == "README.md" and b.path.parent == ROOT]
    assert len(readme) >= 4 and sum(not (b.skip or b.slow) for b in readme) >= 3


# the test's own reading of a doc (it must be able to fail)

SAMPLE = """\
Text.

    verify case.json --answers a.csv   # exit 1
    case  ->  REFUTED  (0.78 s)
      ...

<!-- docs-test: setup verifier solve case.json -o a.csv -->
<!-- docs-test: skip needs a cluster of machines -->

```sh
# a comment
verifier solve case.json \\
    --format csv
pip install x
```

```json
{"verify": 1}
```
"""


def test_blocks_commands_exit_codes_output_and_directives_are_read() -> None:
    first, second = parse(ROOT / "README.md", SAMPLE)
    (c,) = first.commands
    assert (first.line, c.line, c.exit) == (3, 3, 1)
    assert c.output == ["case  ->  REFUTED  (0.78 s)", "  ..."]
    assert second.skip == "needs a cluster of machines"
    assert second.setup == ["verifier solve case.json -o a.csv"]
    assert _split("a 'x; y'; b \"1;2\"") == ["a 'x; y'", 'b "1;2"']
    assert [x.text for x in second.commands] == [
        "verifier solve case.json --format csv",
        "pip install x",
    ]


def test_output_is_matched_with_ellipsis_times_and_whitespace() -> None:
    shown = ["x  minimax  ->  VERIFIED  (0.78 s)", "  solvers (6)  ran  0.019  a, b, ..."]
    assert output_matches(shown, "x minimax -> VERIFIED (12.5 s)\nsolvers (6) ran 1.250 a, b, c")
    assert not output_matches(shown, "x minimax -> REFUTED (0.1 s)\nsolvers (6) ran 0.1 a, b")
    assert not output_matches(shown, "x minimax -> VERIFIED (0.1 s)\nsolvers (7) ran 0.100 a, b")


def test_placeholders_shell_syntax_and_unknown_programs_are_refused(tmp_path: Path) -> None:
    for text in (
        "verifier generate tictactoe|lgame -o case.json",
        "verifier solve case.json [--engine auto]",
        "verify cases/ | head -1",
        "pip install x",
    ):
        with pytest.raises(DocError):
            run(text, tmp_path, {})


def test_a_wrong_exit_code_or_output_fails_the_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cwd = workspace(tmp_path)
    monkeypatch.chdir(cwd)
    wrong_code = Block(ROOT / "README.md", 1, [Command(1, "verify case.json", exit=1)])
    with pytest.raises(AssertionError, match="exited 0, the doc says 1"):
        check_block(wrong_code, cwd)
    shown = ["dag-paul-carole  minimax  ->  REFUTED  ..."]
    wrong_output = Block(ROOT / "README.md", 1, [Command(1, "verify case.json", output=shown)])
    with pytest.raises(AssertionError, match="the doc shows"):
        check_block(wrong_output, cwd)


def test_the_external_solver_example_writes_nothing_in_the_folder_it_runs_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (block,) = parse(ROOT / "examples" / "external-solver" / "README.md")
    cwd = workspace(tmp_path)
    monkeypatch.chdir(cwd)
    before = {p.name for p in cwd.iterdir()}
    check_block(block, cwd)
    made = {p.name for p in cwd.iterdir()} - before
    assert [p.name for p in cwd.glob(".tmp-out-*/*.csv")] != []  # the answers went to $out
    assert all(name.startswith(".tmp-") for name in made), made  # and nowhere else
