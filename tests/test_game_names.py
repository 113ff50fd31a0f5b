"""No built-in game is named outside its own declaration (issue 45 item 4): the command line,
the whole dataset layer (``verifier/dataset/``, ``verifier/distributed/``) and the summary
read every game from ``verifier.games.registry``, so a new game touches its own module only and
its tiered code lives beside it (``verifier/games/tiered/``; docs/games.md, "Adding a built-in
game").

The names are the registry's (each game's name and aliases). A string literal of the code
counts, a docstring does not (it documents, it decides nothing). A name is found as a word
(``connect4``, ``chess:MATERIAL``, ``nim: number of heaps``); a name that is also a plain word
of the messages (``random`` in "a random graph", ``grundy`` the command) is found where the
code compares a text with it (``game == "random"``, ``game.startswith("chess:")``).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

import pytest

from verifier.games.registry import builtin_games

ROOT = Path(__file__).resolve().parents[1]
FILES = [
    *sorted((ROOT / "verifier" / "cli").glob("*.py")),
    *sorted((ROOT / "verifier" / "dataset").rglob("*.py")),
    *sorted((ROOT / "verifier" / "distributed").rglob("*.py")),
    ROOT / "verifier" / "games" / "summary.py",
]
WORDS = {"random", "grundy"}
"""Names that are also words of the messages: found where the code compares a text with them."""
THEOREMS = {"bouton (nim) or xor-rule (sums)."}
"""``prove``'s theorems: Bouton's is named by its game, but chooses no game."""


TEST_CALLS = ("startswith", "endswith")
HOOKS = ("generate", "rules", "solved", "solved_lines", "witnesses", "positions", "spans")
HOOKS += ("order", "names")
"""The fields of a ``TieredForm`` that name a hook, ``"module:attribute"``."""


def _names() -> list[str]:
    return sorted({w for g in builtin_games() for w in (g.name, *g.aliases)})


def _compared(tree: ast.AST) -> set[int]:
    """The literals the code compares a text with: ``==``, ``!=``, ``in`` operands, dict keys,
    ``startswith`` / ``endswith`` arguments."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
            out.update(id(n) for p in parts for n in ast.walk(p))
        elif isinstance(node, ast.Dict):
            out.update(id(k) for k in node.keys if k is not None)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") in TEST_CALLS:
            out.update(id(n) for a in node.args for n in ast.walk(a))
    return out


def _literals(path: Path) -> Iterator[tuple[int, str, bool]]:
    """A file's string literals but its docstrings: line, text, whether compared."""
    tree = ast.parse(path.read_text())
    docs = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    compared = _compared(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.lineno, node.value, id(node) in compared


def named(path: Path) -> list[str]:
    """Where ``path`` names a game: ``line: name in 'literal'``, in line order."""
    names = _names()
    out = []
    for line, text, compared in sorted(_literals(path)):
        if text in THEOREMS:
            continue
        for name in names:
            if name in WORDS and not compared:
                continue
            hit = text.lower() == name or text.lower().startswith(name + ":")
            if (compared and hit) or re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text):
                out.append(f"{line}: {name} in {text!r}")
    return out


def test_the_registry_has_the_games_looked_for() -> None:
    assert {"connect4", "chess", "nim", "random"} <= set(_names())


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_game_is_named(path: Path) -> None:
    assert named(path) == [], path.relative_to(ROOT)


def test_the_scan_finds_a_name(tmp_path: Path) -> None:
    code = tmp_path / "code.py"
    code.write_text(
        '"""connect4 in a docstring"""\n'
        'if game == "random": pass\n'
        'say("a random graph")\n'
        'if game.lower().startswith("chess:"): pass\n'
        'help = "connect4 board width."\n'
    )
    assert named(code) == [
        "2: random in 'random'",
        "4: chess in 'chess:'",
        "5: connect4 in 'connect4 board width.'",
    ]


def test_the_docs_show_connect4s_tiered_form() -> None:
    """docs/games.md, "A game's tiered form": its Python block is in verifier/games/connect4.py."""
    doc = (ROOT / "docs" / "games.md").read_text()
    section = doc.split("### A game's tiered form", 1)[1]
    block = section.split("```text\n", 1)[1].split("```", 1)[0]  # a fragment: not formatted
    assert block.startswith("    tiers=TieredForm(\n")
    assert block in (ROOT / "verifier" / "games" / "connect4.py").read_text()


def test_every_hook_of_a_tiered_form_is_found() -> None:
    pytest.importorskip("dask")
    pytest.importorskip("pyarrow")
    from verifier.dataset.rules import tier_games
    from verifier.games.registry import TieredForm, find, hook, tiered_forms

    forms = tiered_forms()
    assert [g.name for g, _ in forms] == ["connect4", "chess", "random"]
    for _, form in forms:
        for ref in filter(None, (getattr(form, h) for h in HOOKS)):
            assert callable(hook(ref)), ref
    chess = find("chess:KQK")[0].tiers
    assert chess is not None and all(getattr(chess, h) for h in HOOKS)
    for f in fields(TieredForm):  # a hook not listed here would go unchecked
        value = getattr(chess, f.name)
        assert (f.name in HOOKS) == (isinstance(value, str) and value.startswith("verifier.")), f
    assert list(tier_games()) == ["connect4", "chess", "graph"]


def test_the_search_for_games_imports_no_tiered_module() -> None:
    program = (
        "import sys\nfrom verifier.games.registry import builtin_games, tiered\n"
        "builtin_games(); tiered('chess:KQK')\n"
        "print(sorted(m for m in sys.modules if m.startswith(('verifier.distributed', "
        "'verifier.dataset', 'dask', 'verifier.games._chess_kernels'))))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.strip() == "[]"
